"""The bot's connection on the bridge, under `MineflayerBody` (bot/runtime/body.py): version
resolution (explicit, or `auto` = server list ping checked against what mineflayer supports),
waiting for chunks before reporting ready, reconnecting on `end` with exponential backoff and
jitter, and rebuilding the bridge when node dies. The 3D view, when configured, follows each
new bot (bot/runtime/viewer.py) and ends with `close()`.
"""

from __future__ import annotations

import contextlib
import json
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from loguru import logger

from agency.game import mcdata
from agency.world import BodyEvent, EventType
from bot.config.sections import ViewerConfig
from bot.runtime.bridge import Bridge, BridgeDead, BridgeError
from bot.runtime.bridge_downs import bridge_downs
from bot.runtime.errors import InitError
from bot.runtime.ping import PingResult, ServerUnreachable, ping
from bot.runtime.realities import version_verdict, warn_known_issues
from bot.runtime.viewer import BotViewer

# A login that has not spawned after this long is retried once (local logins take ~0.5 s).
LOGIN_STALL_S = 5.0
# After the bridge died its bot's connection was cut, not closed: the same name joining again
# at once met, now and then, an embedded world that sent it no chunks for a minute. The
# server gets this long to drop the old player first.
REJOIN_SETTLE_S = 2.0


class VersionUnsupported(InitError):
    def __init__(self, message: str, explicit: bool) -> None:
        super().__init__(message)
        self.explicit = explicit
        # A version the user asked for is an invalid argument (4); one the server offered
        # that the bot cannot speak keeps the bot from starting (3).
        self.exit_code = 4 if explicit else 3


@dataclass(frozen=True)
class ConnectionSettings:
    host: str = "127.0.0.1"
    port: int = 25565
    username: str = "mcbot"
    version: str = "auto"
    auth: str = "offline"
    profiles_folder: str | None = None
    connect_timeout_s: float = 30.0
    reconnect_min_s: float = 5.0
    reconnect_max_s: float = 60.0
    hostile_radius: int = 16


@dataclass
class Backoff:
    """5 s -> 60 s doubling with jitter; quick relogs get refused by servers."""

    min_s: float = 5.0
    max_s: float = 60.0
    attempt: int = 0
    rng: random.Random = field(default_factory=random.Random)

    def next_delay(self) -> float:
        base = min(self.max_s, self.min_s * (2**self.attempt))
        self.attempt += 1
        return min(self.max_s, base * (1.0 + 0.25 * self.rng.random()))

    def reset(self) -> None:
        self.attempt = 0


class BodyConnection:
    """One bot's connection through the bridge: `connect()`, `maintain()` to reconnect,
    `close()`. MineflayerBody adds agency's Body protocol on top."""

    def __init__(
        self,
        bridge: Bridge,
        settings: ConnectionSettings,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        *,
        viewer: ViewerConfig | None = None,
    ) -> None:
        self.bridge = bridge
        self.settings = settings
        self.viewer = BotViewer(bridge, viewer)  # the 3D view, served for every bot this body connects
        self.clock = clock
        self.sleep = sleep
        self.bot_id: str | None = None
        self._generation = 0  # the bridge generation bot_id belongs to
        self.version: str | None = None
        self.backoff = Backoff(settings.reconnect_min_s, settings.reconnect_max_s)
        self._reconnect_at: float | None = None
        self._pending: list[BodyEvent] = []
        self._connected = False
        self.reconnects = 0

    @property
    def connected(self) -> bool:
        """Spawned and still there: a dead bridge or a lost bot reads False at once."""
        return self._connected and self.bridge.alive

    @connected.setter
    def connected(self, value: bool) -> None:
        self._connected = value

    def resolve_version(self) -> str:
        """Ping the server (fast exit 3 if nothing answers) and settle the version."""
        s = self.settings
        info: PingResult = ping(s.host, s.port)
        pinned = s.version if s.version != "auto" else None
        check = self.bridge.call_json("checkVersion", info.protocol, pinned or info.version_name)
        verdict = version_verdict(s.host, s.port, info.version_name, info.protocol, check, pinned)
        if not verdict.ok:  # names the server's version, the supported range and the fix
            raise VersionUnsupported(verdict.message, explicit=verdict.explicit)
        return str(verdict.version)

    def connect(self) -> None:
        """Connect and wait until spawned with health known and chunks loaded."""
        s = self.settings
        self.version = self.resolve_version()
        warn_known_issues(self.version)  # known mineflayer movement bugs of this version
        use_game_data(self.version)  # recipes and items of the version played (agency/game/mcdata.py)
        options = {
            "host": s.host,
            "port": s.port,
            "username": s.username,
            "version": self.version,
            "auth": s.auth,
            "profilesFolder": s.profiles_folder,
            "hostileRadius": s.hostile_radius,
        }
        self._generation = self.bridge.generation  # the node process the bot lives in
        self.bot_id = self.bridge.call("createBot", json.dumps(options))
        started = self.clock()
        deadline = started + s.connect_timeout_s
        retried = False
        while True:
            st = self.bridge.call_json("status", self.bot_id)
            if st["state"] == "ready":
                break
            if st["state"] == "connecting" and not retried and self.clock() - started >= LOGIN_STALL_S:
                # Seen against the embedded world right after a bridge was killed: a login that
                # never spawns while a new connection gets in at once. One retry, then wait out
                # the rest of the timeout (a slow server still gets it).
                logger.warning(
                    "login to {}:{} stalled ({:.0f} s, client {}); retrying with a new connection",
                    s.host,
                    s.port,
                    self.clock() - started,
                    st.get("client"),
                )
                self._quit_quietly()
                self.bot_id = self.bridge.call("createBot", json.dumps(options))
                retried = True
                continue
            if st["state"] == "spawned" and st.get("error"):  # spawned, but never ready: waiting is no use
                raise ServerUnreachable(f"joined {s.host}:{s.port} but the bot never got ready: {st['error']}")
            if st["state"] == "ended":
                raise ServerUnreachable(
                    f"disconnected while joining {s.host}:{s.port}: {st.get('endReason') or st.get('error')}"
                )
            if self.clock() >= deadline:
                raise ServerUnreachable(
                    f"bot did not spawn on {s.host}:{s.port} within {s.connect_timeout_s:.0f} s "
                    f"(state {st['state']}, client {st.get('client')}, error {st.get('error')})"
                )
            self.sleep(0.05)
        self.connected = True
        self.backoff.reset()
        self._reconnect_at = None
        self._on_ready()
        logger.info("bot {} ready on {}:{} ({})", s.username, s.host, s.port, self.version)
        self.viewer.start(self.bot_id, s.username)

    def _on_ready(self) -> None:
        """A new bot is ready, before the 3D view follows it (MineflayerBody tells it what to watch)."""

    def _on_bot_lost(self) -> None:
        """The bot quit or died with its node process (MineflayerBody forgets its running actions)."""

    def viewer_status(self) -> dict[str, Any]:
        """The 3D view as node reports it: {running, host, port, url, botAttached, clients, error}."""
        return self.viewer.status()

    def _quit_quietly(self) -> None:
        if self.bot_id is not None and self.bridge.alive:
            with contextlib.suppress(BridgeError, BridgeDead):
                self.bridge.call("quit", self.bot_id)

    def close(self) -> None:
        """Quit the bot and stop the 3D view: the body is done."""
        self._drop_bot()
        self.viewer.stop()

    def _drop_bot(self) -> None:
        self._quit_quietly()
        self.bot_id = None
        self.connected = False
        self._on_bot_lost()  # a bot that quit ended them

    def maintain(self) -> bool:
        """Drive reconnection: call often. Returns True when the bot is connected.

        A dead bridge is rebuilt (old bot ids are stale), then the bot reconnects with backoff.
        """
        if not self.bridge.alive:
            reason = self.bridge.dead_reason
            logger.warning("bridge dead ({}); rebuilding with a fresh bot", reason)
            bridge_downs(self.bridge).observe()  # why, for the task whose run it took down (a rebuild forgets)
            self.bridge.rebuild_if_dead()  # a fleet's bots share it: the first to see it dead rebuilds it
            self._lost_with_bridge(f"bridge dead: {reason}")
        elif self.bot_id is not None and self._generation != self.bridge.generation:
            self._lost_with_bridge("bridge rebuilt for another bot")  # this bot's node process is gone
        if self.connected:
            return True
        at = self._reconnect_at if self._reconnect_at is not None else self._schedule_reconnect()
        if self.clock() < at:
            return False
        self.reconnects += 1
        logger.info("reconnect attempt {} to {}:{}", self.backoff.attempt, self.settings.host, self.settings.port)
        try:
            self._drop_bot()  # the 3D view stays up: connect() re-attaches it to the new bot
            self.connect()
            self._pending.append(_event(EventType.reconnecting, attempt=self.backoff.attempt, ok=True))
            return True
        except (ServerUnreachable, BridgeError, BridgeDead) as e:
            logger.warning("reconnect failed: {}", e)
            self._schedule_reconnect()
            return False

    def _lost_with_bridge(self, reason: str) -> None:
        """The node process holding this bot is gone: a fresh bot joins after the settle time."""
        self.connected = False
        self.bot_id = None
        self._on_bot_lost()  # they died with it
        self._pending.append(_event(EventType.end, reason=reason))
        self._reconnect_at = self.clock() + REJOIN_SETTLE_S

    def reconnect_now(self) -> None:
        """The server is back (the embedded world restarted): the next `maintain()` tries
        at once, and later tries start again from the shortest backoff."""
        self.backoff.reset()
        if not self.connected:
            self._reconnect_at = self.clock()

    def _schedule_reconnect(self) -> float:
        """When the next try is due (now + the backoff's next delay)."""
        delay = self.backoff.next_delay()
        self._reconnect_at = at = self.clock() + delay
        if delay:
            logger.info("reconnecting in {:.1f} s", delay)
        return at


def _event(kind: EventType, **data: Any) -> BodyEvent:
    return BodyEvent(type=kind, ts=int(time.time() * 1000), data=data)


def use_game_data(version: str) -> None:
    """Plan with the recipes and items of the version the bot plays. minecraft-data carries
    every version the bridge accepts; if it lacks this one, plans keep the default's."""
    if version == mcdata.current_version():
        return
    try:
        mcdata.use_version(version)
    except mcdata.GameDataMissing as e:
        logger.warning("game data: {}; planning with Minecraft {}'s", e, mcdata.current_version())
        return
    logger.info("game data: Minecraft {} (minecraft-data)", version)
