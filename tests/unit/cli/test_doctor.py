"""The doctor's checks on fake bodies: what a Paper server can answer that the embedded world
never does (refused chat, a kick at login, a denied command), with an injected clock."""

from __future__ import annotations

from typing import Any

import pytest

from agency.world import BodyError, BodyEvent
from bot.cli.doctor import Doctor
from bot.config.loader import McbotConfig
from bot.runtime.bridge import BridgeError
from bot.runtime.ping import ServerUnreachable
from bot.runtime.realities import SECURE_PROFILE_FIX

REFUSAL = "Chat disabled due to missing profile public key. Please try reconnecting."


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t

    def sleep(self, s: float) -> None:
        self.t += s


class FakeBody:
    """Events arrive one batch per events() call; chat lines are recorded. With `kick_on_chat`
    the server kicks in answer to a line: the kick is queued and the bot has ended (as mineflayer
    sends 'end' right after 'kicked'). With `chat_error` every line fails to send."""

    def __init__(
        self,
        batches: list[list[dict[str, Any]]] | None = None,
        connect_error: str | None = None,
        kick_on_chat: dict[str, Any] | None = None,
        chat_error: str | None = None,
    ) -> None:
        self.batches = batches or []
        self.sent: list[str] = []
        self.bot_id = "1"
        self.connect_error = connect_error
        self.kick_on_chat = kick_on_chat
        self.chat_error = chat_error
        self.ended = False

    def events(self) -> list[BodyEvent]:
        return [BodyEvent.model_validate({"ts": 1, **e}) for e in (self.batches.pop(0) if self.batches else [])]

    def chat(self, line: str) -> None:
        if self.chat_error:
            raise BodyError(self.chat_error)
        self.sent.append(line)
        if self.kick_on_chat:
            self.batches.append([self.kick_on_chat, {"type": "end", "data": {"reason": "kicked"}}])
            self.ended = True

    def connect(self) -> None:
        if self.connect_error:
            raise ServerUnreachable(self.connect_error)


class FakeBridge:
    """With `raise_after_kick` (a FakeBody), chatFacts raises once that bot has ended, as
    bots.get(id) did for an ended bot."""

    def __init__(
        self,
        facts: dict[str, Any] | None = None,
        replies: list[dict[str, Any]] | None = None,
        raise_after_kick: FakeBody | None = None,
    ) -> None:
        self.facts = {
            "refused": False,
            "reason": None,
            "enforcesSecureChat": False,
            "seq": 0,
            "system": [],
            **(facts or {}),
        }
        self.replies = replies or []
        self.polls = 0
        self.raise_after_kick = raise_after_kick

    def call_json(self, fn: str, _id: str, since: int) -> dict[str, Any]:
        assert fn == "chatFacts"
        if self.raise_after_kick is not None and self.raise_after_kick.ended:
            raise BridgeError("bot 1 has disconnected (kicked)")
        self.polls += 1
        # command replies show up from the second poll on
        system = [m for m in self.replies if m["seq"] > since] if self.polls > 1 else []
        return {**self.facts, "system": system}


@pytest.fixture
def doctor() -> Doctor:
    clock = Clock()
    return Doctor(
        McbotConfig(),
        host="mc.example.org",
        port=25565,
        commands=["time query daytime"],
        clock=clock,
        sleep=clock.sleep,
    )


def _row(d: Doctor, check: str) -> tuple[str, str, str]:
    f = next(f for f in d.findings if f.check == check)
    return f.result, f.finding, f.fix


def test_chat_that_comes_back_is_ok(doctor):
    body = FakeBody()
    body.batches = [[], []]
    bridge = FakeBridge()
    # the echo arrives on the second drain after sending
    original_chat = body.chat

    def chat(line: str) -> None:
        original_chat(line)
        body.batches = [[], [{"type": "chat", "data": {"username": "mcbot", "message": line}}]]

    body.chat = chat  # type: ignore[method-assign]  # the test's stand-in
    assert doctor.check_chat(bridge, body)
    result, finding, _ = _row(doctor, "chat")
    assert result == "ok" and body.sent[0] in finding


def test_refused_chat_is_a_warning_with_the_secure_profile_fix_and_the_bot_lives_on(doctor):
    refusal = {"type": "error", "data": {"code": "chat_refused", "reason": REFUSAL, "server": "mc.example.org:25565"}}
    body = FakeBody(batches=[[], [refusal]])
    assert doctor.check_chat(FakeBridge(), body)
    result, finding, fix = _row(doctor, "chat")
    assert result == "warn" and REFUSAL in finding and fix == SECURE_PROFILE_FIX
    assert "enforce-secure-profile=false" in fix and "microsoft" in fix


def test_a_refusal_already_known_sends_nothing(doctor):
    body = FakeBody()
    assert doctor.check_chat(FakeBridge({"refused": True, "reason": REFUSAL}), body)
    assert body.sent == [] and _row(doctor, "chat")[0] == "warn"


def test_a_kick_for_unsigned_chat_is_a_warning_and_ends_the_checks(doctor):
    # The kick ends the bot at once: chatFacts on it then fails, so the kick must be seen first.
    kick = {"type": "kicked", "data": {"reason": '{"translate":"multiplayer.disconnect.unsigned_chat"}'}}
    body = FakeBody(kick_on_chat=kick)
    assert not doctor.check_chat(FakeBridge(raise_after_kick=body), body)
    result, finding, fix = _row(doctor, "chat")
    assert result == "warn" and "unsigned_chat" in finding and fix == SECURE_PROFILE_FIX


def test_silence_after_chat_is_a_warning_that_mentions_the_secure_chat_flag(doctor):
    assert doctor.check_chat(FakeBridge({"enforcesSecureChat": True}), FakeBody())
    result, finding, fix = _row(doctor, "chat")
    assert result == "warn" and "enforces secure chat" in finding and "enforce-secure-profile=false" in fix
    assert doctor.clock() >= doctor.wait_s  # it waited the whole bounded time, on the injected clock


def test_a_kick_at_login_names_the_reason_and_its_fix(doctor):
    body = FakeBody(
        batches=[[{"type": "kicked", "data": {"reason": '{"translate":"multiplayer.disconnect.not_whitelisted"}'}}]],
        connect_error="disconnected while joining mc.example.org:25565: socketClosed",
    )
    assert not doctor.check_login(body)
    result, finding, fix = _row(doctor, "login")
    assert result == "FAIL" and "not_whitelisted" in finding and "/whitelist add" in fix


@pytest.mark.parametrize(
    "reply,result",
    [
        ("Unknown or incomplete command, see below for error", "FAIL"),
        ("I'm sorry, but you do not have permission to perform this command.", "FAIL"),
        ("The time is 1234", "ok"),
    ],
)
def test_command_permission_from_the_servers_reply(doctor, reply, result):
    bridge = FakeBridge(replies=[{"seq": 1, "text": reply, "position": "system"}])
    doctor.check_commands(bridge, FakeBody())
    got, finding, fix = _row(doctor, "commands")
    assert got == result and "/time query daytime" in finding and reply in finding
    assert ("/op mcbot" in fix) is (result == "FAIL")


def test_a_player_talking_is_not_a_command_reply(doctor):
    bridge = FakeBridge(replies=[{"seq": 1, "text": "<Steve> hi all", "position": "chat"}])
    doctor.check_commands(bridge, FakeBody())
    assert _row(doctor, "commands")[0] == "warn"  # no reply within the wait


NOISE = [  # lines that arrive while a command runs and are not its reply
    {"seq": 1, "text": "Steve joined the game", "key": "multiplayer.player.joined", "position": "system"},
    {"seq": 2, "text": "Alex was slain by Zombie", "key": "death.attack.mob", "position": "system"},
    {"seq": 3, "text": "Bob left the game", "key": None, "position": "system"},  # a plugin's plain text
    {"seq": 4, "text": "[Server] restart in 5 minutes", "key": None, "position": "chat"},  # a broadcast
]


@pytest.mark.parametrize("version", [None, "1.19.4", "1.21.4"])
def test_with_system_chat_only_a_system_line_that_is_no_join_leave_or_death_is_the_reply(doctor, version):
    doctor.version = version
    bridge = FakeBridge(replies=[*NOISE, {"seq": 5, "text": "The time is 1234", "key": None, "position": "system"}])
    doctor.check_commands(bridge, FakeBody())
    assert _row(doctor, "commands")[:2] == ("ok", '/time query daytime: answered "The time is 1234"')


def test_with_system_chat_noise_alone_is_no_reply(doctor):
    doctor.version = "1.21.4"
    doctor.check_commands(FakeBridge(replies=NOISE), FakeBody())
    assert _row(doctor, "commands")[0] == "warn"


def test_before_1_19_a_chat_line_that_is_no_players_is_the_reply(doctor):
    doctor.version = "1.18.2"
    replies = [
        {"seq": 1, "text": "<Steve> hi all", "position": "chat"},
        {"seq": 2, "text": "Steve joined the game", "position": "chat"},
        {"seq": 3, "text": "mcbot: 1 bot", "position": "chat"},
    ]
    doctor.check_commands(FakeBridge(replies=replies), FakeBody())
    assert _row(doctor, "commands")[:2] == ("ok", '/time query daytime: answered "mcbot: 1 bot"')


def test_a_command_that_cannot_be_sent_is_blamed_on_secure_profiles_only_when_chat_was_refused(doctor):
    doctor.check_commands(FakeBridge(), FakeBody(chat_error="bot 1 has disconnected (socketClosed)"))
    result, _, fix = _row(doctor, "commands")
    assert result == "FAIL" and fix != SECURE_PROFILE_FIX and "server's log" in fix and "connection" in fix

    doctor.findings.clear()
    doctor.check_commands(
        FakeBridge({"refused": True, "reason": REFUSAL}), FakeBody(chat_error="bot 1 has disconnected")
    )
    assert _row(doctor, "commands")[::2] == ("FAIL", SECURE_PROFILE_FIX)

    doctor.findings.clear()
    doctor.check_commands(FakeBridge(), FakeBody(chat_error=f'chat refused by the server: "{REFUSAL}"'))
    assert _row(doctor, "commands")[::2] == ("FAIL", SECURE_PROFILE_FIX)


def test_chat_sent_back_reformatted_by_a_chat_plugin_counts(doctor):
    body = FakeBody()

    class PluginBridge(FakeBridge):
        def call_json(self, fn: str, _id: str, since: int) -> dict[str, Any]:
            system = (
                [{"seq": 3, "text": f"[Member] mcbot \u00bb {body.sent[-1]}", "position": "system"}]
                if body.sent
                else []
            )
            return {**self.facts, "seq": 2, "system": [m for m in system if m["seq"] > since]}

    assert doctor.check_chat(PluginBridge(), body)
    assert _row(doctor, "chat")[0] == "ok"
