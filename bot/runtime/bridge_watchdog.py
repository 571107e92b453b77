"""The bridge's health and its watchdog (docs/contracts.md BRIDGE-4): a dead node process or
a dead bridge thread is noticed within seconds, and a wedged node (alive but answering
nothing: its heartbeat stopped or lags, calls time out one after another, its RSS is over
the limit; bot/runtime/wedge.py) too: the watchdog kills it, which then is dead like any
other. While the daemon stops, a node that has not beaten lately is killed without goodbyes."""

from __future__ import annotations

import time

from loguru import logger

from bot.runtime.bridge_node import BridgeNode, jspy, node_exit_reason
from bot.runtime.wedge import Verdict

# A node whose last beat is older than this when the daemon stops gets no goodbyes: killed.
SHUTDOWN_BEAT_S = 1.5


class BridgeWatchdog(BridgeNode):
    """Whether the bridge is alive, read on demand, and the thread that watches it."""

    def _kill_if_silent(self) -> None:
        if self._executor is None or self._starting or self._dead_reason is not None:
            return
        self.node_watch.observe()  # the latest beat first
        if self.node_watch.beating(SHUTDOWN_BEAT_S):
            return
        self._dead_reason = "shut down while node was not answering"
        judge = self.node_watch.judge
        logger.warning(
            "bridge: node pid {} has not beaten for {:.1f} s while stopping; killed without goodbyes",
            self.node_pid,
            judge.silent_for(time.monotonic()) if judge is not None else 0.0,
        )
        self._signal_kill()

    @property
    def dead_reason(self) -> str | None:
        return self._dead_reason

    @property
    def state(self) -> str:
        """ "up", "wedged" (also while a wedged bridge is rebuilt), "dead", "starting" or "stopped"."""
        reason = self._dead_reason
        if reason and reason.startswith("wedged"):
            return "wedged"
        if self._starting:
            return "starting"
        if self._executor is None:
            return "stopped"
        return "up" if self.alive else "dead"

    @property
    def alive(self) -> bool:
        if self._executor is None or self._starting:
            return False
        reason = self._check()
        if reason:
            self._dead_reason = reason
        return reason is None

    def _check(self) -> str | None:
        if self._dead_reason:
            return self._dead_reason
        connection = jspy("connection")
        if connection is None:
            return "bridge not started"
        if connection.proc is None or connection.proc.poll() is not None:
            return node_exit_reason(connection.proc.poll() if connection.proc else None)
        event_thread = getattr(jspy("config"), "event_thread", None)
        if event_thread is None or not event_thread.is_alive():
            return "JSPyBridge event thread died"
        if self._thread is not None and not self._thread.is_alive():
            return "bridge thread died"
        return None

    def _watch(self) -> None:
        generation = self.generation
        # Twice a beat: a lagging beat is read before the next one overwrites it.
        tick = min(self.dead_check_interval_s, self.node_watch.limits.heartbeat_interval_s / 2)
        while not self._stopping.wait(tick):
            if generation != self.generation:
                return
            if self._closing_at is not None:
                self._kill_if_silent()
            reason = self._check()
            if reason is None and (verdict := self.node_watch.observe()) is not None:
                reason = self._declare_wedged(verdict)
            if reason:
                self._dead_reason = reason
                if self._closing_at is None and not reason.startswith("wedged"):
                    logger.error("bridge dead: {}", reason)
                    self.node_watch.note("dead", reason)
                if self.on_dead:
                    try:
                        self.on_dead(reason)
                    except Exception as e:  # noqa: BLE001 - a failing handler must not stop the death's handling
                        logger.exception("on_dead handler failed: {}", e)
                return

    def _declare_wedged(self, verdict: Verdict) -> str:
        """Node is there but answers nothing: say why and what was running, then kill it.
        Dead from here on, it is rebuilt like a node that died by itself."""
        reason = f"wedged: {verdict.reason}"
        self._dead_reason = reason  # first: callers waiting on node give up now, as BridgeDead
        record = self.node_watch.wedged(verdict, self.generation)
        logger.error(
            "bridge wedged: {}; in flight on the bridge thread: {}; actions running: {}; "
            "killing node pid {} (generation {})",
            verdict.reason,
            record.in_flight or "nothing",
            ", ".join(record.actions) or "none",
            record.node_pid,
            record.generation,
        )
        self._signal_kill()
        record.killed_ts = self.node_watch.wall()
        return reason
