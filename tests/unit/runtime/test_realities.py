"""Paper realities (bot/runtime/realities.py) and the doctor's pure parts, on recorded replies and
fake packets: the unsupported-version verdict (from versions.js replies recorded in
tests/fixtures/version_checks.json), the known-issues table, the once-only chat-refusal
error (events as node/lib/chat_guard.js queues them), kick reasons and command replies in
the servers' own words (minecraft-data's en_us texts), and the doctor's table."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from loguru import logger

from agency.world import BodyEvent, EventType
from bot.cli.doctor import Finding, _loaded_reach, _plain, exit_code, render
from bot.runtime import realities
from bot.runtime.body import ConnectionSettings, MineflayerBody, VersionUnsupported
from bot.runtime.realities import (
    KNOWN_ISSUES,
    command_denied,
    explain_kick,
    movement_issues,
    note_body_event,
    version_verdict,
    warn_known_issues,
)
from tests.conftest import FIXTURES
from tests.status_server import PAPER_NEWER, status_server

CHECKS = {k: v for k, v in json.loads((FIXTURES / "version_checks.json").read_text()).items() if k != "_comment"}


@pytest.fixture
def logs():
    records: list[tuple[str, str]] = []
    sink = logger.add(lambda m: records.append((m.record["level"].name, m.record["message"])), level="DEBUG")
    realities._logged.clear()
    realities._warned.clear()
    yield records
    logger.remove(sink)


def _verdict(case: str, pinned: str | None = None):
    args, reply = CHECKS[case]["args"], CHECKS[case]["reply"]
    return version_verdict("mc.example.org", 25565, args[1], args[0], reply, pinned)


# ---- versions ------------------------------------------------------------------------------
def test_a_supported_paper_version_is_spoken_as_is():
    v = _verdict("paper_1_21_4")
    assert (v.ok, v.version, v.message) == (True, "1.21.4", "")


def test_a_newer_server_names_its_version_the_range_and_viaversion_viabackwards():
    v = _verdict("paper_newer")
    assert not v.ok and not v.explicit
    assert "mc.example.org:25565 speaks Paper 26.9 (protocol 9999)" in v.problem
    assert "newer than mineflayer 4.39.0 supports (supported: 1.8.8 - 26.1)" in v.problem
    assert "ViaVersion and ViaBackwards" in v.fix and 'server.version = "26.1"' in v.fix
    assert v.message == f"{v.problem}. Fix: {v.fix}"


def test_an_older_server_is_told_apart_from_a_newer_one():
    v = _verdict("old_1_7_10")
    assert not v.ok and "older than mineflayer" in v.problem and "ViaBackwards" not in v.fix
    assert 'server.version = "1.8.8"' in v.fix


def test_a_pinned_version_mineflayer_lacks_is_a_config_error_and_a_known_one_is_used():
    bad = _verdict("pinned_1_5_2", pinned="1.5.2")
    assert not bad.ok and bad.explicit and "1.5.2" in bad.problem and "1.8.8 - 26.1" in bad.problem
    good = _verdict("paper_newer", pinned="1.21.11")  # e.g. ViaBackwards on a newer server
    assert (good.ok, good.version, good.explicit) == (True, "1.21.11", True)


class _FakeBridge:
    """Answers checkVersion with a recorded reply; any other call is a test error."""

    def __init__(self, reply: dict[str, Any], events: list[list[dict[str, Any]]] | None = None) -> None:
        self.reply, self.events, self.calls = reply, events or [], []

    def call_json(self, fn: str, *args: Any, **_: Any) -> Any:
        self.calls.append((fn, args))
        if fn == "checkVersion":
            return self.reply
        if fn == "many" and args[0] == "drainEvents":  # every bot's queue in one call (bulk_reads.py)
            return {key: {"value": self.events.pop(0) if self.events else []} for key in json.loads(args[1])}
        raise AssertionError(f"unexpected bridge call {fn}")


def test_resolve_version_on_a_newer_server_raises_the_complete_message():
    with status_server(PAPER_NEWER) as port:
        bridge = _FakeBridge(CHECKS["paper_newer"]["reply"])
        body = MineflayerBody(bridge, ConnectionSettings(port=port))  # type: ignore[arg-type]  # a fake bridge
        with pytest.raises(VersionUnsupported) as e:
            body.resolve_version()
    assert not e.value.explicit  # exit 3, not 4
    assert bridge.calls == [("checkVersion", (9999, "Paper 26.9"))]
    for part in ("Paper 26.9", "1.8.8 - 26.1", "ViaVersion and ViaBackwards", "Fix:"):
        assert part in str(e.value)


# ---- known movement issues -----------------------------------------------------------------
@pytest.mark.parametrize(
    "version,keys",
    [
        ("1.21.4", []),
        ("1.21.8", []),
        ("1.20.4", []),
        ("1.18.2", []),
        ("1.21.9", ["step-up", "swimming", "knockback"]),
        ("1.21.11", ["step-up", "swimming", "knockback"]),
        ("26.1", ["step-up", "swimming", "knockback"]),
    ],
)
def test_known_issues_by_version(version, keys):
    assert [i.key for i in movement_issues(version)] == keys


def test_every_known_issue_names_a_workaround_and_a_reference():
    assert {i.key for i in KNOWN_ISSUES} == {"step-up", "swimming", "knockback"}
    for i in KNOWN_ISSUES:
        assert i.workaround and all(r.startswith("PrismarineJS/mineflayer#") for r in i.refs)


def test_login_warning_names_issue_and_workaround_once_per_version(logs):
    warn_known_issues("1.21.11")
    warn_known_issues("1.21.11")  # a reconnect: no second round
    warn_known_issues("1.21.4")
    assert [m for level, m in logs if level == "WARNING"] == []  # the bot works around all three
    handled = [m for level, m in logs if level == "INFO" and "worked around" in m]
    assert len(handled) == 3
    step = next(m for m in handled if "(step-up)" in m)
    assert "1.21.11" in step and "1e-5 short of a block's side" in step and "#3911" in step


# ---- chat refused (events as chat_guard.js queues them) -----------------------------------------
def _refused(server: str = "mc.example.org:25565", source: str = "system_message") -> dict[str, Any]:
    reason = "Chat disabled due to missing profile public key. Please try reconnecting."
    return {
        "type": "error",
        "ts": 1,
        "data": {
            "code": "chat_refused",
            "message": f"chat refused by the server: {reason}",
            "reason": reason,
            "source": source,
            "server": server,
            "fix": realities.SECURE_PROFILE_FIX,
        },
    }


def test_chat_refusal_is_logged_once_as_an_error_naming_the_fix(logs):
    ev = BodyEvent.model_validate(_refused())
    assert note_body_event(ev) and note_body_event(ev)
    errors = [m for level, m in logs if level == "ERROR"]
    assert len(errors) == 1
    assert "enforce-secure-profile=false" in errors[0] and 'bot.auth = "microsoft"' in errors[0]
    assert "missing profile public key" in errors[0]
    assert not note_body_event(BodyEvent(type=EventType.error, ts=1, data={"message": "ECONNRESET"}))


def test_body_drains_refusals_once_across_reconnects_and_keeps_the_events(logs):
    # First bot: the refusal; the bot rejoins after a kick, whose guard says it again ('remembered').
    bridge = _FakeBridge(
        {},
        events=[
            [_refused()],
            [_refused(source="remembered"), {"type": "chat", "ts": 2, "data": {"username": "a", "message": "hi"}}],
        ],
    )
    body = MineflayerBody(bridge, ConnectionSettings())  # type: ignore[arg-type]  # a fake bridge
    body.bot_id = "1"
    first, second = body.events(), body.events()
    assert [e.type for e in first] == [EventType.error]
    assert [e.type for e in second] == [EventType.error, EventType.chat]
    assert len([m for level, m in logs if level == "ERROR"]) == 1
    assert not [m for level, m in logs if level == "WARNING" and "chat_refused" in m]  # no generic duplicate


# ---- kicks and command replies in the servers' words -------------------------------------------
@pytest.mark.parametrize(
    "reason,expect",
    [
        ('{"translate":"multiplayer.disconnect.not_whitelisted"}', "/whitelist add"),
        ("You are not white-listed on this server!", "/whitelist add"),
        ('{"translate":"multiplayer.disconnect.unverified_username"}', 'bot.auth = "microsoft"'),
        ("Failed to verify username!", 'bot.auth = "microsoft"'),
        ("Missing profile public key.\nThis server requires secure profiles.", "enforce-secure-profile=false"),
        ('{"translate":"multiplayer.disconnect.unsigned_chat"}', "enforce-secure-profile=false"),
        ("Incompatible client! Please use 1.21.4", "ViaVersion"),
        ("You logged in from another location", "another bot.username"),
        ("Flying is not enabled on this server", "allow-flight=true"),
        ("You are banned from this server.\nReason: spam", "/pardon"),
    ],
)
def test_kick_reasons_are_explained(reason, expect):
    what, fix = explain_kick(reason)  # type: ignore[misc]  # a kick it explains
    assert what and expect in fix


def test_an_unknown_kick_reason_has_no_made_up_explanation():
    assert explain_kick("Kicked by an operator") is None


@pytest.mark.parametrize(
    "reply,denied",
    [
        ("Unknown or incomplete command, see below for error", True),  # vanilla/Paper, not op
        ("I'm sorry, but you do not have permission to perform this command.", True),  # Bukkit/Paper
        ("Unknown command or insufficient permissions", True),
        ("Command not found", True),  # flying-squid
        ("The time is 1234", False),
        ('mcbot: {"time":160}', False),
    ],
)
def test_command_replies(reply, denied):
    assert command_denied(reply) is denied


# ---- the doctor's table --------------------------------------------------------------------
def test_table_has_one_header_aligned_columns_and_a_fix_per_problem():
    findings = [
        Finding("server", "ok", "127.0.0.1:25565 answers"),
        Finding("version", "FAIL", "server speaks Paper 26.9", "install ViaVersion and ViaBackwards"),
        Finding("login", "skip", "version not supported"),
    ]
    lines = render(findings).splitlines()
    assert lines[0].split() == ["CHECK", "RESULT", "FINDING", "FIX"] and set(lines[1]) <= {"-", " "}
    starts = {line.index(f.finding) for line, f in zip(lines[2:], findings, strict=True)}
    assert len(starts) == 1  # the findings column is aligned
    assert lines[3].endswith("install ViaVersion and ViaBackwards")
    assert exit_code(findings) == 3
    assert exit_code([Finding("chat", "warn", "refused", "fix")]) == 0  # warnings: the bot can live there


def test_kick_reason_text_from_json_and_nbt():
    assert _plain('{"text":"","extra":[{"text":"You are banned"}]}') == "You are banned"
    assert (
        _plain(
            {"type": "compound", "value": {"translate": {"type": "string", "value": "multiplayer.disconnect.banned"}}}
        )
        == "multiplayer.disconnect.banned"
    )
    assert _plain("plain words") == "plain words"


def test_loaded_reach_is_the_nearer_unloaded_side():
    palette = [None, "stone"]
    data = [0] * 10 + [1] * 20 + [1] * 35 + [0] * 64  # center 64: 54 loaded to the left, 0 to the right
    assert _loaded_reach(data, palette, 64) == 0
    data = [0] * 30 + [1] * 70 + [0] * 29
    assert _loaded_reach(data, palette, 64) == 34


def test_the_js_chat_guard_names_the_same_fix_as_python():
    """node/lib/chat_guard.js puts its FIX in every refusal event and error; it must say what
    realities.SECURE_PROFILE_FIX says (the doctor and the kick explanations use that one)."""
    js = (Path(__file__).resolve().parents[3] / "node" / "lib" / "chat_guard.js").read_text()
    decl = re.search(r"const FIX = (.*?)\n\n", js, re.S)
    assert decl, "const FIX not found in chat_guard.js"
    parts = re.findall(r"'((?:[^'\\]|\\.)*)'", decl.group(1))
    assert "".join(p.replace("\\'", "'") for p in parts) == realities.SECURE_PROFILE_FIX
