"""`MineflayerBody`: agency's `Body` protocol on a live Mineflayer bot, through the Bridge.

Owns the connection policy: version resolution (explicit, or `auto` = server list ping
checked against what mineflayer supports), waiting for chunks before reporting ready,
reconnecting on `end` with exponential backoff and jitter, and rebuilding the bridge when
node dies. Everything it reads comes back from ONE bridge call as JSON.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from loguru import logger

from agency.world import ActionStatus, BlockRegion, BodyError, BodyEvent, EventType, WorldSnapshot
from bot.bridge import Bridge, BridgeDead, BridgeError
from bot.ping import PingResult, ServerUnreachable, ping
from bot.realities import note_body_event, version_verdict, warn_known_issues


class VersionUnsupported(RuntimeError):
    def __init__(self, message: str, explicit: bool) -> None:
        super().__init__(message)
        self.explicit = explicit


class NotReady(BodyError):
    pass


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


class MineflayerBody:
    def __init__(
        self,
        bridge: Bridge,
        settings: ConnectionSettings,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.bridge = bridge
        self.settings = settings
        self.clock = clock
        self.sleep = sleep
        self.bot_id: str | None = None
        self.version: str | None = None
        self.backoff = Backoff(settings.reconnect_min_s, settings.reconnect_max_s)
        self._reconnect_at: float | None = None
        self._pending: list[BodyEvent] = []
        self.connected = False
        self.reconnects = 0

    # ---- connection ------------------------------------------------------------------
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
        options = {
            "host": s.host,
            "port": s.port,
            "username": s.username,
            "version": self.version,
            "auth": s.auth,
            "profilesFolder": s.profiles_folder,
            "hostileRadius": s.hostile_radius,
        }
        self.bot_id = self.bridge.call("createBot", json.dumps(options))
        deadline = self.clock() + s.connect_timeout_s
        while True:
            st = self.bridge.call_json("status", self.bot_id)
            if st["state"] == "ready":
                break
            if st["state"] == "ended":
                raise ServerUnreachable(
                    f"disconnected while joining {s.host}:{s.port}: {st.get('endReason') or st.get('error')}"
                )
            if self.clock() >= deadline:
                raise ServerUnreachable(
                    f"bot did not spawn on {s.host}:{s.port} within {s.connect_timeout_s:.0f} s "
                    f"(state {st['state']}, error {st.get('error')})"
                )
            self.sleep(0.05)
        self.connected = True
        self.backoff.reset()
        self._reconnect_at = None
        logger.info("bot {} ready on {}:{} ({})", s.username, s.host, s.port, self.version)

    def close(self) -> None:
        if self.bot_id is not None and self.bridge.alive:
            try:
                self.bridge.call("quit", self.bot_id)
            except (BridgeError, BridgeDead):
                pass
        self.bot_id = None
        self.connected = False

    def maintain(self) -> bool:
        """Drive reconnection: call often. Returns True when the bot is connected.

        A dead bridge is rebuilt (old bot ids are stale), then the bot reconnects with backoff.
        """
        if not self.bridge.alive:
            logger.warning("bridge dead ({}); rebuilding with a fresh bot", self.bridge.dead_reason)
            self.connected = False
            self.bot_id = None
            self._pending.append(_event(EventType.end, reason=f"bridge dead: {self.bridge.dead_reason}"))
            self.bridge.rebuild()
            self._schedule_reconnect(immediate=True)
        if self.connected:
            return True
        if self._reconnect_at is None:
            self._schedule_reconnect()
        if self.clock() < self._reconnect_at:
            return False
        self.reconnects += 1
        logger.info("reconnect attempt {} to {}:{}", self.backoff.attempt, self.settings.host, self.settings.port)
        try:
            self.close()
            self.connect()
            self._pending.append(_event(EventType.reconnecting, attempt=self.backoff.attempt, ok=True))
            return True
        except (ServerUnreachable, BridgeError, BridgeDead) as e:
            logger.warning("reconnect failed: {}", e)
            self._schedule_reconnect()
            return False

    def reconnect_now(self) -> None:
        """The server is back (the embedded world restarted): the next `maintain()` tries
        at once, and later tries start again from the shortest backoff."""
        self.backoff.reset()
        if not self.connected:
            self._reconnect_at = self.clock()

    def _schedule_reconnect(self, immediate: bool = False) -> None:
        delay = 0.0 if immediate else self.backoff.next_delay()
        self._reconnect_at = self.clock() + delay
        if delay:
            logger.info("reconnecting in {:.1f} s", delay)

    # ---- Body protocol ---------------------------------------------------------------
    def _bot(self) -> str:
        if self.bot_id is None or not self.connected:
            raise NotReady("bot is not connected")
        return self.bot_id

    def _call_json(self, fn: str, *args: Any, timeout_ms: int = 10_000) -> Any:
        try:
            return self.bridge.call_json(fn, *args, timeout_ms=timeout_ms)
        except BridgeError as e:
            raise BodyError(str(e)) from None

    def snapshot(self) -> WorldSnapshot:
        raw = self.bridge.call("snapshot", self._bot(), self.settings.hostile_radius)
        return WorldSnapshot.model_validate_json(raw)

    def region(self, origin: tuple[int, int, int], size: tuple[int, int, int]) -> BlockRegion:
        box = json.dumps({"origin": list(origin), "size": list(size)})
        raw = self.bridge.call("region", self._bot(), box)
        return BlockRegion.model_validate_json(raw)

    def events(self, max_events: int = 500) -> list[BodyEvent]:
        """Drain the bot's event queue (one call). An `end` event marks the bot
        disconnected; `maintain()` then reconnects."""
        out, self._pending = self._pending, []
        if self.bot_id is None:
            return out
        for raw in self.bridge.call_json("drainEvents", self.bot_id, max_events):
            try:
                ev = BodyEvent.model_validate(raw)
            except ValueError as e:
                logger.warning("dropping malformed body event {}: {}", raw, e)
                continue
            handled = note_body_event(ev)  # chat refused by the server: logged once, as an error
            if ev.type is EventType.end:
                logger.warning("bot disconnected: {}", ev.data.get("reason"))
                self.connected = False
                self._reconnect_at = None
            elif not handled and ev.type in (EventType.kicked, EventType.error):
                logger.warning("bot {}: {}", ev.type.value, ev.data)
            out.append(ev)
        return out

    def start_action(self, kind: str, args: dict[str, Any], timeout_ms: int | None = None) -> ActionStatus:
        raw = self._call_json("startAction", self._bot(), kind, json.dumps(args), timeout_ms or 0)
        return ActionStatus.model_validate(raw)

    def poll_action(self, action_id: str) -> ActionStatus:
        return ActionStatus.model_validate(self._call_json("pollAction", action_id))

    def cancel_action(self, action_id: str) -> ActionStatus:
        return ActionStatus.model_validate(self._call_json("cancelAction", action_id))

    def wait_action(self, action_id: str, poll_s: float = 0.1, max_s: float = 300.0) -> ActionStatus:
        """Poll until terminal. The JS side's own timeout always ends the action first."""
        deadline = self.clock() + max_s
        while True:
            st = self.poll_action(action_id)
            if st.state.terminal:
                return st
            if self.clock() >= deadline:
                return self.cancel_action(action_id)
            self.sleep(poll_s)

    def chat(self, message: str) -> None:
        try:
            self.bridge.call("chat", self._bot(), message)
        except BridgeError as e:
            raise BodyError(str(e)) from None


def _event(kind: EventType, **data: Any) -> BodyEvent:
    return BodyEvent(type=kind, ts=int(time.time() * 1000), data=data)
