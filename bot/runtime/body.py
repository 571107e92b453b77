"""`MineflayerBody`: agency's `Body` protocol on a live Mineflayer bot, through the Bridge.

The connection under it (version resolution, waiting for chunks, reconnecting, rebuilding the
bridge when node dies, the 3D view) is bot/runtime/body_connection.py. Everything it reads
comes back from ONE bridge call as JSON.

A call that meets a dead bridge or a bot that has left the server raises agency's
`BodyLost` (never the bridge's own errors), and the body counts itself disconnected at
once, so work interrupted that way is held, not failed, and nothing acts until the bot
is back.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from loguru import logger

from agency.world import (
    ActionState,
    ActionStatus,
    BlockRegion,
    BodyError,
    BodyEvent,
    BodyLost,
    EventType,
    WorldSnapshot,
)
from bot.config.sections import ViewerConfig
from bot.runtime.body_connection import Backoff, BodyConnection, ConnectionSettings, VersionUnsupported
from bot.runtime.bridge import Bridge, BridgeDead, BridgeError
from bot.runtime.bulk_reads import bulk_reads
from bot.runtime.realities import note_body_event

# Callers import the connection's settings and errors from here, beside the body.
__all__ = ["Backoff", "BodyLost", "ConnectionSettings", "MineflayerBody", "NotReady", "VersionUnsupported"]


class NotReady(BodyLost):
    """The bot is not connected (yet, or any more)."""


# What node/lib/bots.js says when a call addresses a bot whose connection ended.
_BOT_GONE = "has disconnected"


class MineflayerBody(BodyConnection):
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
        super().__init__(bridge, settings, clock, sleep, viewer=viewer)
        self._threat_radii: dict[str, float] | None = None  # watch_threats(); sent again to each new bot
        self._threat_seq = 0
        self._actions: dict[str, str] = {}  # long actions started and not seen finished: id -> kind

    def _on_ready(self) -> None:
        self._threat_seq = 0  # a new bot numbers its threats from 0
        if self._threat_radii is not None:
            self.bridge.call("watchThreats", self.bot_id, json.dumps(self._threat_radii))

    def _on_bot_lost(self) -> None:
        self._actions.clear()

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
