"""`MineflayerBody`: agency's `Body` protocol on a live Mineflayer bot, through the Bridge.

Owns the connection policy: version resolution (explicit, or `auto` = server list ping
checked against what mineflayer supports), waiting for chunks before reporting ready,
reconnecting on `end` with exponential backoff and jitter, and rebuilding the bridge when
node dies. Everything it reads comes back from ONE bridge call as JSON. The 3D view, when
configured, follows each new bot (node/lib/viewer.js) and ends with `close()`.

A call that meets a dead bridge or a bot that has left the server raises agency's
`BodyLost` (never the bridge's own errors), and the body counts itself disconnected at
once, so work interrupted that way is held, not failed, and nothing acts until the bot
is back.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

from loguru import logger

from agency.world import ActionState, ActionStatus, BlockRegion, BodyError, BodyEvent, BodyLost, EventType, WorldSnapshot
from bot.config.sections import ViewerConfig
from bot.runtime.bridge import Bridge, BridgeDead, BridgeError
from bot.runtime.bridge_downs import bridge_downs
from bot.runtime.bulk_reads import bulk_reads
from bot.runtime.ping import PingResult, ServerUnreachable, ping
from bot.runtime.realities import note_body_event, version_verdict, warn_known_issues
from bot.runtime.errors import InitError


# A login that has not spawned after this long is retried once (local logins take ~0.5 s).
LOGIN_STALL_S = 5.0
# After the bridge died its bot's connection was cut, not closed: the same name joining again
# at once met, now and then, an embedded world that sent it no chunks for a minute. The
# server gets this long to drop the old player first.
REJOIN_SETTLE_S = 2.0
# JS-side bounds of the 3D view's listen and close (node/lib/viewer.js keeps within them).
VIEWER_START_TIMEOUT_MS = 5_000
VIEWER_STOP_TIMEOUT_MS = 3_000


class VersionUnsupported(InitError):
    def __init__(self, message: str, explicit: bool) -> None:
        super().__init__(message)
        self.explicit = explicit
        # A version the user asked for is an invalid argument (4); one the server offered
        # that the bot cannot speak keeps the bot from starting (3).
        self.exit_code = 4 if explicit else 3


class NotReady(BodyLost):
    """The bot is not connected (yet, or any more)."""


# What node/lib/bots.js says when a call addresses a bot whose connection ended.
_BOT_GONE = "has disconnected"


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
    remote = True  # every call waits on node over the bridge (agency.world.is_remote)

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
        self.viewer = viewer  # the 3D view, served for every bot this body connects
        self._viewer_error: str | None = None  # why the last start failed, for viewer_status()
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
        self._threat_radii: dict[str, float] | None = None  # watch_threats(); sent again to each new bot
        self._threat_seq = 0
        self._actions: dict[str, str] = {}  # long actions started and not seen finished: id -> kind

    @property
    def connected(self) -> bool:
        """Spawned and still there: a dead bridge or a lost bot reads False at once."""
        return self._connected and self.bridge.alive

    @connected.setter
    def connected(self, value: bool) -> None:
        self._connected = value

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
                logger.warning("login to {}:{} stalled ({:.0f} s, client {}); retrying with a new connection",
                               s.host, s.port, self.clock() - started, st.get("client"))
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
        self._threat_seq = 0  # a new bot numbers its threats from 0
        if self._threat_radii is not None:
            self.bridge.call("watchThreats", self.bot_id, json.dumps(self._threat_radii))
        logger.info("bot {} ready on {}:{} ({})", s.username, s.host, s.port, self.version)
        self._start_viewer()

    def _start_viewer(self) -> None:
        """Serve the 3D view of the bot just connected: started on the first connect (and in
        a rebuilt bridge's new node), re-attached to the new bot on reconnects. A failure is
        one warning, never a failed connect."""
        v = self.viewer
        if v is None or not v.enabled or self.bot_id is None:
            return
        options = {"host": v.host, "port": v.port, "viewDistance": v.view_distance, "firstPerson": v.first_person}
        try:
            st = self.bridge.call_json("startViewer", self.bot_id, json.dumps(options),
                                       timeout_ms=VIEWER_START_TIMEOUT_MS)
        except (BridgeError, BridgeDead) as e:
            st = {"running": False, "error": str(e)}
        if not st.get("running"):
            self._viewer_error = st.get("error") or "not running"
            logger.warning("[Viewer] 3D view not served on port {}: {}", v.port, self._viewer_error)
            return
        self._viewer_error = None
        if st.get("started"):
            logger.info("[Viewer] 3D view at {} (bot {})", st.get("url"), self.settings.username)
        else:
            logger.info("[Viewer] re-attached to the new bot")

    def _stop_viewer(self) -> None:
        if self.viewer is None or not self.viewer.enabled or not self.bridge.alive:
            return  # a dead node took its server with it
        try:
            self.bridge.call("stopViewer", timeout_ms=VIEWER_STOP_TIMEOUT_MS)
        except (BridgeError, BridgeDead) as e:
            logger.debug("stopping the 3D view failed: {}", e)

    def viewer_status(self) -> dict[str, Any]:
        """The 3D view as node reports it: {running, host, port, url, botAttached, clients, error}."""
        if self.viewer is None or not self.viewer.enabled:
            return {"running": False, "enabled": False}
        try:
            st = dict(self.bridge.call_json("viewerStatus"))
        except (BridgeError, BridgeDead) as e:
            return {"running": False, "error": str(e)}
        if not st.get("error") and not st.get("running") and self._viewer_error:
            st["error"] = self._viewer_error  # a start that failed before node knew of it
        return st

    def _quit_quietly(self) -> None:
        if self.bot_id is not None and self.bridge.alive:
            try:
                self.bridge.call("quit", self.bot_id)
            except (BridgeError, BridgeDead):
                pass

    def close(self) -> None:
        """Quit the bot and stop the 3D view: the body is done."""
        self._drop_bot()
        self._stop_viewer()

    def _drop_bot(self) -> None:
        self._quit_quietly()
        self.bot_id = None
        self.connected = False
        self._actions.clear()  # a bot that quit ended them

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
        if self._reconnect_at is None:
            self._schedule_reconnect()
        if self.clock() < self._reconnect_at:
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
        self._actions.clear()  # they died with it
        self._pending.append(_event(EventType.end, reason=reason))
        self._reconnect_at = self.clock() + REJOIN_SETTLE_S

    def reconnect_now(self) -> None:
        """The server is back (the embedded world restarted): the next `maintain()` tries
        at once, and later tries start again from the shortest backoff."""
        self.backoff.reset()
        if not self.connected:
            self._reconnect_at = self.clock()

    def _schedule_reconnect(self) -> None:
        delay = self.backoff.next_delay()
        self._reconnect_at = self.clock() + delay
        if delay:
            logger.info("reconnecting in {:.1f} s", delay)

    # ---- Body protocol ---------------------------------------------------------------
    def _bot(self) -> str:
        if self.bot_id is None or not self.connected:
            raise NotReady("bot is not connected")
        return self.bot_id

    def _call(self, fn: str, *args: Any, timeout_ms: int = 10_000, urgent: bool = False) -> Any:
        """One bridge call for the Body protocol."""
        with self._body_errors():
            return self.bridge.call(fn, *args, timeout_ms=timeout_ms, urgent=urgent)

    @contextmanager
    def _body_errors(self) -> Iterator[None]:
        """A dead bridge or a bot that left the server is BodyLost (and the body
        disconnected); any other JS error is BodyError."""
        try:
            yield
        except BridgeDead as e:
            self._connected = False
            raise BodyLost(f"bridge dead: {e}") from None
        except BridgeError as e:
            if _BOT_GONE in str(e):
                self._connected = False  # the `end` event is still queued for events()
                raise BodyLost(str(e)) from None
            raise BodyError(str(e)) from None

    def _call_json(self, fn: str, *args: Any, timeout_ms: int = 10_000) -> Any:
        return json.loads(self._call(fn, *args, timeout_ms=timeout_ms))

    def snapshot(self, *, urgent: bool = False) -> WorldSnapshot:
        """A snapshot read now (`urgent`: a user waits for it; it goes before queued polls)."""
        raw = self._call("snapshot", self._bot(), self.settings.hostile_radius, urgent=urgent)
        return WorldSnapshot.model_validate_json(raw)

    def recent_snapshot(self) -> WorldSnapshot:
        """A snapshot at most half a second old (never from before this bot's last
        action started or ended), read with the other bots' in one call: for periodic readers
        (the reflex tick, perception). A tool, which must see what its last action did, reads
        snapshot()."""
        with self._body_errors():
            raw = bulk_reads(self.bridge).snapshots.read(self._bot(), self._bot(), self.settings.hostile_radius)
        return WorldSnapshot.model_validate(raw)

    def region(self, origin: tuple[int, int, int], size: tuple[int, int, int]) -> BlockRegion:
        box = json.dumps({"origin": list(origin), "size": list(size)})
        raw = self._call("region", self._bot(), box)
        return BlockRegion.model_validate_json(raw)

    def events(self, max_events: int = 500) -> list[BodyEvent]:
        """Drain the bot's event queue (one call). An `end` event marks the bot
        disconnected; `maintain()` then reconnects."""
        out, self._pending = self._pending, []
        if self.bot_id is None:
            return out
        try:  # a lost bot's queue is drained too: its `end` says why it left; one call for every bot on the bridge
            batch = bulk_reads(self.bridge).events.take(self.bot_id, self.bot_id, max_events)
        except BridgeDead:
            return out  # maintain() rebuilds the bridge and says so with an `end`
        for raw in batch:
            try:
                ev = BodyEvent.model_validate(raw)
            except ValueError as e:
                logger.warning("dropping malformed body event {}: {}", raw, e)
                continue
            handled = note_body_event(ev)  # chat refused by the server: logged once, as an error
            if ev.type is EventType.end:
                logger.warning("bot disconnected: {}", ev.data.get("reason"))
                self.connected = False  # maintain() schedules the reconnect
            elif not handled and ev.type in (EventType.kicked, EventType.error):
                logger.warning("bot {}: {}", ev.type.value, ev.data)
            out.append(ev)
        return out

    def watch_threats(self, radii: dict[str, float]) -> None:
        """Stamp every hostile that comes within its kind's radius ('default': the rest),
        on this bot and every bot a reconnect makes; read them with new_threats()."""
        self._threat_radii = dict(radii)
        if self.connected and self.bot_id is not None:
            self._call("watchThreats", self._bot(), json.dumps(self._threat_radii))

    def new_threats(self) -> list[dict[str, Any]]:
        """Hostiles that came within their radius since the last call (one cheap call):
        {id, name, distance, ts} with ts on the node clock, like an action's startedAt."""
        with self._body_errors():  # one call for every bot on the bridge (bulk_reads.py)
            raw = bulk_reads(self.bridge).threats.read(self._bot(), self._bot(), self._threat_seq)
        raw = {"seq": raw["seq"], "threats": [t for t in raw["threats"] if int(t["seq"]) > self._threat_seq]}
        self._threat_seq = int(raw["seq"])
        return list(raw["threats"])

    def start_action(self, kind: str, args: dict[str, Any], timeout_ms: int | None = None) -> ActionStatus:
        raw = self._call_json("startAction", self._bot(), kind, json.dumps(args), timeout_ms or 0)
        bulk_reads(self.bridge).snapshots.invalidate(self._bot())  # the bot acts: a periodic read must not predate it
        st = ActionStatus.model_validate(raw)
        if not st.state.terminal:
            self._actions[st.id] = st.kind
        return st

    def actions_running(self) -> list[str]:
        """The long actions this body started and has not seen end (what a wedged bridge was
        doing, for the watchdog's report)."""
        return [f"{kind} #{aid} of {self.settings.username}" for aid, kind in list(self._actions.items())]

    def poll_action(self, action_id: str) -> ActionStatus:
        with self._body_errors():  # one call for every running action on the bridge (bulk_reads.py)
            st = ActionStatus.model_validate(bulk_reads(self.bridge).actions.read(action_id, action_id))
        if st.state.terminal:
            self._actions.pop(action_id, None)
            bulk_reads(self.bridge).actions.forget(action_id)
            bulk_reads(self.bridge).snapshots.invalidate(self._bot())  # what it did is in the next read
        if st.state in (ActionState.failed, ActionState.timeout) and self._bot_ended():
            self._connected = False  # the action died with the connection, not on its merits
            raise BodyLost(f"{st.kind} ended with the bot's connection: {st.error}")
        return st

    def _bot_ended(self) -> bool:
        """Has the bot's connection ended (asked only when an action failed)?"""
        if self.bot_id is None:
            return True
        try:
            return self._call_json("status", self.bot_id).get("state") == "ended"
        except BodyError:
            return True

    def cancel_action(self, action_id: str) -> ActionStatus:
        st = ActionStatus.model_validate(self._call_json("cancelAction", action_id))
        if st.state.terminal:
            self._actions.pop(action_id, None)
        return st

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
        self._call("chat", self._bot(), message)


def _event(kind: EventType, **data: Any) -> BodyEvent:
    return BodyEvent(type=kind, ts=int(time.time() * 1000), data=data)
