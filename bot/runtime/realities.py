"""Paper realities: what a real server can refuse the bot, detected and explained, in one place.

- A server version mineflayer does not speak: `version_verdict` turns node's version check
  (node/lib/versions.js) into one message naming the server's version, the supported range
  and the fix (ViaVersion/ViaBackwards on the server, then a pinned version).
- Versions with known mineflayer movement bugs: `KNOWN_ISSUES` is the table (data, here
  only); `warn_known_issues` warns once per version at login, naming each issue and its
  known workaround.
- Chat refused by a server that enforces secure profiles: node/lib/chat_guard.js detects it
  and queues a `chat_refused` error event; `note_body_event` logs it ONCE as an error naming
  the fix. The bot lives on; its chat calls fail at once with the reason.
- What a kick or a failed join means: `explain_kick` (used by `mcbot doctor`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from loguru import logger

from agency.world import BodyEvent, EventType

CHAT_REFUSED = "chat_refused"  # the code of node/lib/chat_guard.js's error event
# The same words as chat_guard.js's FIX, which it puts in each event (a unit test holds them equal).
SECURE_PROFILE_FIX = (
    "set enforce-secure-profile=false in the server's server.properties and restart it, "
    'or join with bot.auth = "microsoft" (a signed-in account signs its chat)'
)


# ---- versions --------------------------------------------------------------------------------
@dataclass(frozen=True)
class VersionVerdict:
    ok: bool
    version: str | None  # the version the bot will speak (when ok)
    explicit: bool  # the version was pinned in config/--version (an error there is exit 4)
    problem: str = ""
    fix: str = ""

    @property
    def message(self) -> str:
        return f"{self.problem}. Fix: {self.fix}" if self.problem else ""


def version_verdict(
    host: str, port: int, server_name: str, protocol: int, check: dict[str, Any], pinned: str | None
) -> VersionVerdict:
    """`check` is node's versions.check(protocol, name); `pinned` the configured version or None."""
    supported: list[str] = check["supported"]
    rng = check.get("range") or f"{supported[0]} - {supported[-1]}"
    mineflayer = f"mineflayer {check['mineflayer']}" if check.get("mineflayer") else "this mineflayer"
    latest = check.get("latest") or supported[-1]
    oldest = check.get("oldest") or supported[0]
    if pinned:
        if pinned in supported:
            return VersionVerdict(True, pinned, explicit=True)
        return VersionVerdict(
            False,
            None,
            explicit=True,
            problem=f"configured version {pinned} is not one {mineflayer} supports "
            f"(supported: {rng}: {', '.join(supported)})",
            fix='set server.version = "auto" (ask the server) or one of the supported versions',
        )
    if check["ok"]:
        return VersionVerdict(True, check["version"], explicit=False)
    where = f"server at {host}:{port} speaks {server_name or '?'} (protocol {protocol})"
    relation = check.get("relation")
    if relation == "older":
        problem = f"{where}, older than {mineflayer} supports (supported: {rng})"
        fix = (
            f"update the server to {oldest} or later, or put ViaVersion on it (a proxy such as "
            f'ViaProxy for servers older than 1.8) and set server.version = "{oldest}" in mcbot.toml'
        )
    else:
        kind = "newer than" if relation == "newer" else "a version unknown to"
        problem = f"{where}, {kind} {mineflayer} supports (supported: {rng})"
        fix = (
            f"install ViaVersion and ViaBackwards on the server (so it accepts older clients) and "
            f'set server.version = "{latest}" in mcbot.toml (or --version {latest}), '
            "or upgrade mcbot's mineflayer once it supports this version"
        )
    return VersionVerdict(False, None, explicit=False, problem=problem, fix=fix)


def _vkey(version: str) -> tuple[int, ...]:
    parts = [int(p) for p in re.findall(r"\d+", version)[:3]]
    return tuple(parts + [0] * (3 - len(parts)))


# ---- known mineflayer movement issues (the one table) ----------------------------------------
@dataclass(frozen=True)
class KnownIssue:
    key: str
    first: str  # first version that has it
    last: str | None  # last version that has it; None = still open in our mineflayer
    issue: str
    workaround: str
    refs: tuple[str, ...]
    handled: str | None = None  # how the bot itself works around it (node/lib/client_fixes.js)

    def affects(self, version: str) -> bool:
        v = _vkey(version)
        return _vkey(self.first) <= v and (self.last is None or v <= _vkey(self.last))


_PIN_1_21_8 = (
    'reported not to happen at 1.21.8: with ViaBackwards on the server, set server.version = "1.21.8" (untested here)'
)
_GAP = (
    "the bot's collisions stop 1e-5 short of a block's side, so the server's single-precision "
    "box never overlaps it (the server sent the bot back for an overlap of 1e-8)"
)
KNOWN_ISSUES: tuple[KnownIssue, ...] = (
    KnownIssue(
        key="step-up",
        first="1.21.9",
        last=None,
        issue="the bot cannot step or jump up a 1-block ledge: it walks into the block and stops, "
        "so pathfinding stalls at the first step up",
        workaround="as op, run `/attribute <bot> minecraft:scale base set 0.9999999` once the bot "
        f"is in (reported to restore stepping up; again after a death if lost); or {_PIN_1_21_8}",
        refs=("PrismarineJS/mineflayer#3911", "PrismarineJS/mineflayer#3913"),
        handled=_GAP,
    ),
    KnownIssue(
        key="swimming",
        first="1.21.9",
        last=None,
        issue="the bot cannot swim out of water: it bobs at the surface and never reaches the shore",
        workaround=f"keep the bot's area free of deep water (or fence it); or {_PIN_1_21_8}",
        refs=("PrismarineJS/mineflayer#3913",),
        handled=_GAP,
    ),
    KnownIssue(
        key="knockback",
        first="1.21.9",
        last=None,
        issue="horizontal knockback is ignored: a hit lifts the bot but does not push it back",
        workaround=f"none inside mineflayer yet (the scale attribute does not help); {_PIN_1_21_8}",
        refs=("PrismarineJS/mineflayer#3915",),
        handled="the bot scales the server's block-per-tick velocities back to what mineflayer 4.39 expects",
    ),
)


def movement_issues(version: str) -> list[KnownIssue]:
    return [i for i in KNOWN_ISSUES if i.affects(version)]


_warned: set[tuple[str, str]] = set()


def warn_known_issues(version: str) -> list[KnownIssue]:
    """At login: one line per known issue of this version (once per process): a warning for
    one the bot does not work around itself, else what it does about it."""
    issues = movement_issues(version)
    for i in issues:
        if (version, i.key) in _warned:
            continue
        _warned.add((version, i.key))
        if i.handled:
            logger.info(
                "known mineflayer issue at {} ({}) worked around: {} [{}]", version, i.key, i.handled, ", ".join(i.refs)
            )
            continue
        logger.warning(
            "known mineflayer issue at {} ({}): {}. Workaround: {} [{}]",
            version,
            i.key,
            i.issue,
            i.workaround,
            ", ".join(i.refs),
        )
    return issues


# ---- chat refused ------------------------------------------------------------------------------
_logged: set[str] = set()


def note_body_event(ev: BodyEvent) -> bool:
    """Log a chat refusal (from node/lib/chat_guard.js) ONCE per server as an error naming the
    fix; True when the event was one (the caller then skips its generic log line)."""
    if ev.type is not EventType.error or ev.data.get("code") != CHAT_REFUSED:
        return False
    server = str(ev.data.get("server", ""))
    if server in _logged:
        logger.debug("chat still refused by {} ({})", server, ev.data.get("source"))
        return True
    _logged.add(server)
    logger.error(
        'chat refused by the server {}: "{}": an offline-mode bot on a server that enforces '
        "secure profiles. The bot keeps working without chat (chat calls fail with this "
        "reason). Fix: {}",
        server,
        ev.data.get("reason"),
        ev.data.get("fix") or SECURE_PROFILE_FIX,
    )
    return True


# ---- kicks and failed joins --------------------------------------------------------------------
# (pattern on the reason, what it means, the fix): first match wins.
KICK_FIXES: tuple[tuple[str, str, str], ...] = (
    (
        r"not_whitelisted|not white-?listed",
        "the bot's name is not on the server's whitelist",
        "as op: /whitelist add <bot name>",
    ),
    (
        r"unverified_username|failed to verify username",
        "the server is in online mode and the bot joined with auth offline",
        'set bot.auth = "microsoft" in mcbot.toml (the bot needs a Minecraft account), or '
        "online-mode=false in server.properties (only safe behind an authenticating proxy)",
    ),
    (
        r"missing_public_key|requires secure profiles|unsigned_chat|chat_validation_failed|profile public key",
        "the server enforces secure profiles and the bot cannot sign chat",
        SECURE_PROFILE_FIX,
    ),
    (r"banned", "the bot's name or address is banned", "as op: /pardon <bot name> (or /pardon-ip)"),
    (
        r"outdated_(client|server)|incompatible client|outdated (client|server)",
        "the server expects another protocol version",
        'leave server.version = "auto", or install ViaVersion (and ViaBackwards for older clients) on the server',
    ),
    (
        r"duplicate_login|logged in from another location|already connected",
        "another client is logged in with the bot's name",
        "stop the other client (a running `mcbot run`?) or use another bot.username",
    ),
    (r"server is full|server_full", "the server is full", "raise max-players in server.properties"),
    (
        r"flying is not enabled|kicked for flying",
        "the server thinks the bot is flying (mineflayer's physics can look like that to it)",
        "set allow-flight=true in server.properties (or relax the anti-cheat for the bot)",
    ),
    (
        r"ECONNREFUSED|connection refused",
        "nothing listens at that address",
        "start the server, or check server.host / server.port (and the firewall)",
    ),
    (
        r"timed out|timeout",
        "the connection timed out",
        "check the network between the bot and the server, and bot.connect_timeout_s",
    ),
)


def explain_kick(reason: str) -> tuple[str, str] | None:
    for pattern, what, fix in KICK_FIXES:
        if re.search(pattern, reason or "", re.IGNORECASE):
            return what, fix
    return None


# ---- command replies -----------------------------------------------------------------------------
# A reply that means "you may not" (vanilla, Bukkit/Paper, flying-squid wordings).
COMMAND_DENIED = re.compile(
    r"unknown or incomplete command|unknown command|command not found|do(?: not|n't) have permission|"
    r"no permission|insufficient permissions|not allowed to use|command\.unknown",
    re.IGNORECASE,
)


def command_denied(reply: str) -> bool:
    return bool(COMMAND_DENIED.search(reply or ""))
