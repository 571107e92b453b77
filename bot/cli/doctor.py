"""`mcbot doctor`: can the bot live on this server? One pass through what the bot needs, in
order (answers a ping, speaks a supported version, known movement issues of that version,
logs in and spawns, sees blocks, chats, runs the commands it was told to check), printed as
ONE table of findings with a fix for each problem. Exit 0 when the bot can live there (warnings
allowed), 3 when a check failed. Never starts a server; joins with the configured [bot]."""

from __future__ import annotations

import json
import math
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from agency.blocks import is_air
from agency.world import BodyError, EventType
from bot.cli.exit_codes import EXIT_INIT, EXIT_OK
from bot.runtime.body import MineflayerBody
from bot.runtime.bridge import Bridge, BridgeDead, BridgeError, BridgeInitError
from bot.runtime.ping import PingResult, ServerUnreachable, ping
from bot.runtime.realities import (
    CHAT_REFUSED,
    SECURE_PROFILE_FIX,
    _vkey,
    command_denied,
    explain_kick,
    movement_issues,
    version_verdict,
)
from bot.runtime.session import bridge_of, connection_settings

if TYPE_CHECKING:  # the config loads only when a command runs (`--help` stays fast)
    from bot.config.loader import McbotConfig

CHECKS = ("server", "version", "movement", "login", "blocks", "chat", "commands")
PLAYER_LINE = re.compile(r"^<\w{1,16}> ")
# Lines that are no command's reply though they come as system messages: joins, leaves, deaths.
NOT_A_REPLY_KEY = re.compile(r"^(multiplayer\.player\.(joined|left)|death\.)")
NOT_A_REPLY_TEXT = re.compile(
    r"^\w{1,16} (joined the game|left the game|\(formerly known as \w+\) joined the game|died|was slain by|"
    r"was shot by|was killed|was blown up by|blew up|fell |drowned|burned to death|went up in flames|"
    r"tried to swim in lava|suffocated|starved to death|hit the ground|froze to death|withered away|"
    r"was squashed|was pricked|walked into|experienced kinetic energy|was impaled|was fireballed)"
)
REACH_WANTED = 32  # blocks loaded on each side: less and the bot's searches come up short


@dataclass(frozen=True)
class Finding:
    check: str
    result: str  # ok | warn | FAIL | skip
    finding: str
    fix: str = "-"


def render(findings: list[Finding]) -> str:
    rows = [("CHECK", "RESULT", "FINDING", "FIX")] + [(f.check, f.result, f.finding, f.fix) for f in findings]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:3], widths, strict=True)) + "  " + r[3] for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths) + "  " + "-" * 3)
    return "\n".join(lines)


def exit_code(findings: list[Finding]) -> int:
    return EXIT_INIT if any(f.result == "FAIL" for f in findings) else EXIT_OK


class Doctor:
    def __init__(
        self,
        cfg: McbotConfig,
        host: str | None = None,
        port: int | None = None,
        version: str | None = None,
        commands: list[str] | None = None,
        wait_s: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.cfg = cfg
        self.settings = connection_settings(cfg, host=host, port=port, version=version)
        self.commands = [c if c.startswith("/") else f"/{c}" for c in commands or []]
        self.wait_s = wait_s
        self.clock, self.sleep = clock, sleep
        self.findings: list[Finding] = []
        self.version: str | None = None  # the version the bot speaks, once checked

    def add(self, check: str, result: str, finding: str, fix: str = "-") -> None:
        self.findings.append(Finding(check, result, finding, fix))

    def skip_rest(self, why: str) -> list[Finding]:
        done = {f.check for f in self.findings}
        for check in CHECKS:
            if check not in done:
                self.add(check, "skip", why)
        return self.findings

    def _current(self) -> str:
        done = {f.check for f in self.findings}
        return next((c for c in CHECKS if c not in done), CHECKS[-1])

    # ---- the checks, in order ---------------------------------------------------------------
    def run(self) -> list[Finding]:
        s = self.settings
        try:
            info = ping(s.host, s.port)
        except ServerUnreachable as e:
            what_fix = explain_kick(str(e))
            self.add(
                "server",
                "FAIL",
                str(e),
                what_fix[1] if what_fix else "start the server, or check server.host / server.port (and the firewall)",
            )
            return self.skip_rest("server unreachable")
        self.add(
            "server",
            "ok",
            f"{s.host}:{s.port} answers: {info.version_name} (protocol {info.protocol}), "
            f"{info.players_online} player(s) online",
        )
        bridge = bridge_of(self.cfg)  # [bridge] as the daemon has it: watchdog limits, heap limit
        body: MineflayerBody | None = None
        try:
            bridge.start()
            version = self.check_version(bridge, info)
            if version is None:
                return self.skip_rest("version not supported")
            self.check_movement(version)
            body = MineflayerBody(bridge, replace(s, version=version), clock=self.clock, sleep=self.sleep)
            if not self.check_login(body):
                return self.skip_rest("the bot did not get in")
            self.check_blocks(body)
            if self.check_chat(bridge, body):
                self.check_commands(bridge, body)
        except (BridgeInitError, BridgeDead) as e:
            self.add(
                self._current(),
                "FAIL",
                f"node side failed: {e}",
                "run `make install` (node and node/node_modules), then retry",
            )
        except (BridgeError, BodyError) as e:  # the bot lost its footing mid-check (e.g. kicked)
            self.add(self._current(), "FAIL", str(e), "read the server's log around this time")
        finally:
            if body is not None:
                body.close()
            bridge.shutdown()
        return self.skip_rest("not reached")

    def check_version(self, bridge: Bridge, info: PingResult) -> str | None:
        s = self.settings
        pinned = s.version if s.version != "auto" else None
        check = bridge.call_json("checkVersion", info.protocol, pinned or info.version_name)
        verdict = version_verdict(s.host, s.port, info.version_name, info.protocol, check, pinned)
        if not verdict.ok:
            self.add("version", "FAIL", verdict.problem, verdict.fix)
            return None
        how = "pinned" if pinned else "from the ping"
        self.version = verdict.version
        self.add(
            "version",
            "ok",
            f"the bot speaks {verdict.version} ({how}); mineflayer {check.get('mineflayer')} "
            f"supports {check.get('range')}",
        )
        return verdict.version

    def check_movement(self, version: str) -> None:
        issues = movement_issues(version)
        if not issues:
            self.add("movement", "ok", f"no known mineflayer movement issue at {version}")
        for i in issues:
            if i.handled:
                self.add(
                    "movement", "ok", f"{version}: {i.key} worked around in the bot: {i.handled} [{', '.join(i.refs)}]"
                )
            else:
                self.add("movement", "warn", f"{version}: {i.issue} [{', '.join(i.refs)}]", i.workaround)

    def check_login(self, body: MineflayerBody) -> bool:
        started = self.clock()
        try:
            body.connect()
        except ServerUnreachable as e:
            reason = _kick_reason(body) or str(e)
            what_fix = explain_kick(reason)
            what = f" ({what_fix[0]})" if what_fix else ""
            self.add(
                "login",
                "FAIL",
                f"{reason}{what}",
                what_fix[1]
                if what_fix
                else "read the server's log for why it refused the bot; check bot.auth and bot.username",
            )
            return False
        snap = body.snapshot()
        p = snap.position
        self.add(
            "login",
            "ok",
            f"{self.settings.username} spawned in {self.clock() - started:.1f} s at "
            f"({p.x:.0f}, {p.y:.0f}, {p.z:.0f}), {snap.gameMode}, health {snap.health:g}",
        )
        return True

    def check_blocks(self, body: MineflayerBody) -> None:
        p = body.snapshot().position
        x, y, z = math.floor(p.x), math.floor(p.y), math.floor(p.z)
        near = body.region((x - 4, y - 4, z - 4), (9, 9, 9))
        loaded = [b for i in near.data if (b := near.palette[i]) is not None]
        kinds = sorted({b for b in loaded if not is_air(b)})
        if not loaded:
            self.add(
                "blocks",
                "FAIL",
                "no blocks loaded around the bot (9x9x9 read)",
                "the server sent no chunks: check view-distance in server.properties (>= 4) and the server's log",
            )
            return
        line = body.region((x - 64, y - 1, z), (129, 1, 1))
        reach = _loaded_reach(line.data, line.palette, 64)
        shown = ", ".join(kinds[:4]) + (", ..." if len(kinds) > 4 else "")
        finding = (
            f"read {len(near.data)} blocks around the bot: {len(loaded)} loaded, {len(kinds)} kind(s) "
            f"({shown or 'all air'}); chunks loaded to {reach} blocks each side"
        )
        if not kinds:
            self.add("blocks", "warn", finding, "the bot stands in air: is it in a void or spectator world?")
        elif reach < REACH_WANTED:
            self.add(
                "blocks",
                "warn",
                finding,
                "raise view-distance in server.properties to 4 or more "
                "(the bot searches up to 32 blocks around itself)",
            )
        else:
            self.add("blocks", "ok", finding)

    def check_chat(self, bridge: Bridge, body: MineflayerBody) -> bool:
        """True when the bot is still in afterwards (commands can be checked)."""
        body.events()
        line = f"mcbot doctor check {secrets.token_hex(3)}"
        facts = bridge.call_json("chatFacts", body.bot_id, 0)
        refused = facts["reason"] if facts["refused"] else None
        if refused is None:
            try:
                body.chat(line)
            except BodyError as e:
                self.add("chat", "warn", f"sending failed: {e}", "read the server's log; the bot can live without chat")
                return True
        started = self.clock()
        while refused is None and self.clock() - started < self.wait_s:
            # Events first: a kick ends the bot, and polling an ended bot may fail.
            for ev in body.events():
                if ev.type is EventType.chat and ev.data.get("message") == line:
                    self.add("chat", "ok", f'sent "{line}" and saw it come back in {self.clock() - started:.1f} s')
                    return True
                if ev.type is EventType.error and ev.data.get("code") == CHAT_REFUSED:
                    refused = ev.data.get("reason")
                if ev.type is EventType.kicked:
                    reason = _plain(ev.data.get("reason"))
                    what_fix = explain_kick(reason)
                    if what_fix and what_fix[1] == SECURE_PROFILE_FIX:  # once: the rejoined bot never chats again
                        self.add(
                            "chat",
                            "warn",
                            f"kicked for chatting: {reason} (an offline-mode bot on a server that "
                            "enforces secure profiles; the bot rejoins and lives without chat)",
                            SECURE_PROFILE_FIX,
                        )
                    else:
                        self.add(
                            "chat",
                            "FAIL",
                            f"kicked after chatting: {reason}",
                            what_fix[1] if what_fix else "read the server's log",
                        )
                    return False
            # A chat plugin may send the line back reformatted, as a system message: any message holding it counts.
            heard = any(line in m["text"] for m in bridge.call_json("chatFacts", body.bot_id, facts["seq"])["system"])
            if heard:
                self.add("chat", "ok", f'sent "{line}" and saw it come back in {self.clock() - started:.1f} s')
                return True
            self.sleep(0.1)
        if refused is not None:
            self.add(
                "chat",
                "warn",
                f'the server refuses the bot\'s chat: "{refused}" (an offline-mode bot on '
                "a server that enforces secure profiles; the bot lives on without chat)",
                SECURE_PROFILE_FIX,
            )
            return True
        hint = " The server says it enforces secure chat." if facts.get("enforcesSecureChat") else ""
        self.add(
            "chat",
            "warn",
            f'sent "{line}" but it did not come back within {self.wait_s:g} s.{hint}',
            "check chat plugins (formatting, channels, mutes) and the server log; "
            + (SECURE_PROFILE_FIX if hint else "the bot can live without chat"),
        )
        return True

    def check_commands(self, bridge: Bridge, body: MineflayerBody) -> None:
        if not self.commands:
            self.add(
                "commands",
                "skip",
                "none to check (the bot needs no commands to live)",
                'to check one your setup uses: mcbot doctor --command "/time query daytime"',
            )
            return
        for cmd in self.commands:
            facts = bridge.call_json("chatFacts", body.bot_id, 0)
            since = facts["seq"]
            try:
                body.chat(cmd)
            except BodyError as e:
                refused = facts.get("refused") or "chat refused" in str(e).lower()
                self.add(
                    "commands",
                    "FAIL",
                    f"{cmd}: could not send: {e}",
                    SECURE_PROFILE_FIX
                    if refused
                    else "read the server's log around this time and check the connection to the server",
                )
                continue
            reply = self._first_reply(bridge, body, since)
            if reply is None:
                self.add(
                    "commands",
                    "warn",
                    f"{cmd}: no reply within {self.wait_s:g} s",
                    "run it from the server console to see what it does",
                )
            elif command_denied(reply):
                self.add(
                    "commands",
                    "FAIL",
                    f'{cmd}: refused: "{reply}"',
                    f"as op: /op {self.settings.username}, or grant the command's permission with your "
                    f"permissions plugin (LuckPerms: /lp user {self.settings.username} "
                    "permission set <node> true)",
                )
            else:
                self.add("commands", "ok", f'{cmd}: answered "{reply}"')

    def _first_reply(self, bridge: Bridge, body: MineflayerBody, since: int) -> str | None:
        started = self.clock()
        while self.clock() - started < self.wait_s:
            try:
                system = bridge.call_json("chatFacts", body.bot_id, since)["system"]
            except BridgeError:
                return None
            replies = [m for m in system if self._is_reply(m)]
            if replies:
                return _short(re.sub(r"[&\u00a7][0-9a-fk-or]", "", str(replies[0]["text"])).strip())
            self.sleep(0.1)
        return None

    def _is_reply(self, m: dict[str, Any]) -> bool:
        """A command's reply: from 1.19 a system message that is no join, leave or death line;
        before 1.19 (no system chat) also a chat-position line that is no player's."""
        text = str(m.get("text") or "")
        if NOT_A_REPLY_KEY.match(str(m.get("key") or "")) or NOT_A_REPLY_TEXT.match(text):
            return False
        if self.version is None or _vkey(self.version) >= (1, 19, 0):
            return m.get("position") == "system"
        return m.get("position") == "system" or not PLAYER_LINE.match(text)


def _kick_reason(body: MineflayerBody) -> str | None:
    try:
        events = body.events()
    except (BridgeError, BridgeDead):
        return None
    for ev in events:
        if ev.type in (EventType.kicked, EventType.error) and ev.data.get("code") != CHAT_REFUSED:
            return _plain(ev.data.get("reason") or ev.data.get("message"))
    return None


def _plain(reason: Any) -> str:
    """A kick reason (JSON text, NBT-as-JSON, or plain) as readable text."""
    if isinstance(reason, str):
        try:
            reason = json.loads(reason)
        except ValueError:
            return reason
    if isinstance(reason, dict):
        if reason.get("type") == "compound" and isinstance(reason.get("value"), dict):
            reason = {k: (v.get("value") if isinstance(v, dict) else v) for k, v in reason["value"].items()}
        text = str(reason.get("text") or reason.get("translate") or "")
        return text + "".join(_plain(e) for e in reason.get("extra") or [])
    if isinstance(reason, list):
        return "".join(_plain(e) for e in reason)
    return "" if reason is None else str(reason)


def _short(text: str, limit: int = 100) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _loaded_reach(data: list[int], palette: list[str | None], center: int) -> int:
    """How far blocks are loaded on both sides of `center` along a line (the smaller side)."""

    def side(step: int) -> int:
        n, i = 0, center + step
        while 0 <= i < len(data) and palette[data[i]] is not None:
            n, i = n + 1, i + step
        return n

    return min(side(-1), side(1))


def doctor(
    cfg: McbotConfig, host: str | None, port: int | None, version: str | None, commands: list[str] | None
) -> int:
    findings = Doctor(cfg, host=host, port=port, version=version, commands=commands).run()
    print(render(findings))
    code = exit_code(findings)
    print(
        "verdict: the bot can live here"
        if code == EXIT_OK
        else f"verdict: the bot cannot live here ({sum(f.result == 'FAIL' for f in findings)} failed check(s))"
    )
    return code
