"""What the bridge's watchdog knows beyond "is node's process there": node's heartbeat
(bot/runtime/heartbeat.py) and the judgement of it (bot/runtime/wedge.py), what was running
when node stopped answering, and the figures of each wedge: when the beats stopped, when
that was seen, when node was killed and when a new one was up."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from bot.runtime.heartbeat import HeartbeatFile
from bot.runtime.wedge import Beat, Verdict, WedgeJudge, WedgeLimits


@dataclass
class WedgeRecord:
    """One wedge; times in seconds on the wall clock (node's beats carry the same clock)."""

    kind: str
    reason: str
    node_pid: int | None
    generation: int
    in_flight: str | None  # the helper call the bridge thread was in
    actions: list[str]  # the long actions started and not finished
    last_beat_ts: float | None  # the last beat node wrote
    onset_ts: float  # the first beat that did not come on time (where beats tell it), else detected_ts
    detected_ts: float
    killed_ts: float | None = None
    rebuilt_ts: float | None = None  # a new node answered (the next generation is up)
    new_pid: int | None = None
    new_generation: int | None = None

    @property
    def detect_s(self) -> float:
        return self.detected_ts - self.onset_ts

    @property
    def rebuild_s(self) -> float | None:
        return None if self.rebuilt_ts is None else self.rebuilt_ts - self.onset_ts


@dataclass
class NodeWatch:
    limits: WedgeLimits
    clock: Callable[[], float] = time.monotonic
    wall: Callable[[], float] = time.time
    heartbeat: HeartbeatFile | None = None  # made at the first start
    pid: int | None = None  # the node whose beats count
    judge: WedgeJudge | None = None
    in_flight: tuple[str, float] | None = None  # (helper, since: clock) on the bridge thread
    # Who knows the long actions started and not finished: each body on this bridge (its
    # owner adds its `actions_running` through watch_actions).
    action_sources: list[Callable[[], list[str]]] = field(default_factory=list)
    wedges: list[WedgeRecord] = field(default_factory=list)
    history: deque[tuple[float, str, str]] = field(default_factory=lambda: deque(maxlen=100))  # (wall, what, detail)

    def watch_actions(self, source: Callable[[], list[str]]) -> None:
        """A body on this bridge: its long actions running are named if node wedges."""
        self.action_sources.append(source)

    def spawn_env(self) -> dict[str, str]:
        if self.heartbeat is None:
            self.heartbeat = HeartbeatFile()
        return self.heartbeat.env(self.limits.heartbeat_interval_s)

    def node_up(self, pid: int | None, generation: int) -> None:
        """A new node answered: judge it afresh; a wedge waiting for its rebuild gets its figures."""
        self.pid, self.judge, self.in_flight = pid, WedgeJudge(self.limits, self.clock()), None
        self.note("up", f"generation {generation}, node pid {pid}")
        last = self.wedges[-1] if self.wedges else None
        if last is not None and last.rebuilt_ts is None:
            last.rebuilt_ts, last.new_pid, last.new_generation = self.wall(), pid, generation

    def observe(self) -> Verdict | None:
        """Read the latest beat and judge (the watchdog's tick)."""
        judge = self.judge
        if judge is None or self.heartbeat is None:
            return None
        beat = self.heartbeat.read(self.pid)
        now = self.clock()
        if beat is not None:
            judge.beat(now, beat)
        return judge.judge(now)

    def beating(self, within_s: float) -> bool:
        """Has node beaten within the last `within_s`?"""
        judge = self.judge
        return judge is not None and judge.last_beat is not None and judge.silent_for(self.clock()) <= within_s

    @property
    def last_beat(self) -> Beat | None:
        return self.judge.last_beat if self.judge is not None else None

    def running(self) -> tuple[str | None, list[str]]:
        """The helper call under way on the bridge thread (and for how long), the actions running."""
        flight = self.in_flight
        in_flight = f"{flight[0]} for {self.clock() - flight[1]:.1f} s" if flight else None
        actions: list[str] = []
        for source in list(self.action_sources):
            try:
                actions.extend(source())
            except Exception as e:  # noqa: BLE001 - a report, never a reason to fail
                actions.append(f"? ({e})")
        return in_flight, actions

    def wedged(self, verdict: Verdict, generation: int) -> WedgeRecord:
        now = self.wall()
        last = self.last_beat
        in_flight, actions = self.running()
        onset = verdict.onset_ms / 1000 if verdict.onset_ms is not None else now
        record = WedgeRecord(
            verdict.kind,
            verdict.reason,
            self.pid,
            generation,
            in_flight,
            actions,
            last.ts / 1000 if last is not None else None,
            min(onset, now),
            now,
        )
        self.wedges.append(record)
        self.note("wedged", verdict.reason)
        return record

    def figures(self) -> tuple[int, float | None, float | None]:
        """For /metrics: the wedges so far, the last one's detection and rebuild seconds."""
        wedges = list(self.wedges)  # appended by the watchdog thread
        if not wedges:
            return 0, None, None
        return len(wedges), wedges[-1].detect_s, wedges[-1].rebuild_s

    def note(self, what: str, detail: str = "") -> None:
        self.history.append((self.wall(), what, detail))

    def close(self) -> None:
        if self.heartbeat is not None:
            self.heartbeat.remove()
            self.heartbeat = None
