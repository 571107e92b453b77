"""When is a bridge that still has a node process as good as dead? The judgement alone, on
injected time: heartbeats (with node's loop lag and RSS) and call timeouts go in, a verdict
comes out.

A wedged node (a search that never yields, a heap thrashing in GC) answers no call, yet
its process is there: without this the house waited on it until node died by itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class WedgeLimits:
    heartbeat_interval_s: float = 0.5  # node beats this often (node/lib/heartbeat.js)
    missed_heartbeat_s: float = 5.0  # no beat for this long: wedged
    max_loop_lag_ms: float = 2000.0  # a beat whose event loop lagged more than this is a lagging one...
    lag_samples: int = 3  # ...and this many lagging beats in a row: wedged
    timeouts_in_a_row: int = 3  # calls timed out one after another (none answered between): wedged
    max_rss_mb: float = 3072.0  # node's resident memory over this: wedged (0: no limit)


@dataclass(frozen=True)
class Beat:
    """One heartbeat as node wrote it; `ts` is node's wall clock in ms."""

    pid: int
    seq: int
    ts: float
    lag_ms: float = 0.0
    heap_used_mb: float = 0.0
    rss_mb: float = 0.0
    heap_limit_mb: float = 0.0

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Beat:
        return cls(
            pid=int(d["pid"]),
            seq=int(d["seq"]),
            ts=float(d["ts"]),
            lag_ms=float(d.get("lagMs", 0)),
            heap_used_mb=float(d.get("heapUsedMb", 0)),
            rss_mb=float(d.get("rssMb", 0)),
            heap_limit_mb=float(d.get("heapLimitMb", 0)),
        )


@dataclass(frozen=True)
class Verdict:
    kind: str  # "silent", "lagging", "timeouts", "rss"
    reason: str
    # When the trouble began on node's wall clock (ms), where the beats tell it: the beat
    # that never came (silent), the first lagging beat's due time (lagging); else None.
    onset_ms: float | None = None


class WedgeJudge:
    """Fed from the bridge's watchdog and its callers; `now` is a monotonic clock in seconds.
    A verdict, once reached, stands: the bridge is killed and a new judge made for the next."""

    def __init__(self, limits: WedgeLimits, now: float) -> None:
        self.limits = limits
        self.last_beat: Beat | None = None
        self.last_beat_at = now  # when the last new beat was seen (the start, before the first)
        self._lagging: list[Beat] = []  # the lagging beats in a row, oldest first
        self._timeouts: list[str] = []  # the helpers of the calls timed out in a row
        self.verdict: Verdict | None = None

    # ---- inputs ------------------------------------------------------------------------
    def beat(self, now: float, beat: Beat) -> None:
        if self.last_beat is not None and beat.seq == self.last_beat.seq:
            return  # the same beat read again
        self.last_beat, self.last_beat_at = beat, now
        if beat.lag_ms > self.limits.max_loop_lag_ms:
            self._lagging.append(beat)
        else:
            self._lagging.clear()

    def call_answered(self) -> None:
        """A call came back (a value or a JS error): node answers."""
        self._timeouts.clear()

    def call_timed_out(self, fn: str) -> None:
        self._timeouts.append(fn)

    # ---- output ------------------------------------------------------------------------
    def judge(self, now: float) -> Verdict | None:
        if self.verdict is None:
            self.verdict = self._judge(now)
        return self.verdict

    def silent_for(self, now: float) -> float:
        return now - self.last_beat_at

    def _judge(self, now: float) -> Verdict | None:
        lim, last = self.limits, self.last_beat
        silent = self.silent_for(now)
        if silent > lim.missed_heartbeat_s:
            if last is None:
                return Verdict("silent", f"no heartbeat since the start ({silent:.1f} s)")
            return Verdict(
                "silent",
                f"no heartbeat for {silent:.1f} s (last #{last.seq}, "
                f"loop lag {last.lag_ms:.0f} ms, heap {last.heap_used_mb:.0f} MB)",
                onset_ms=last.ts + lim.heartbeat_interval_s * 1000,
            )
        if len(self._lagging) >= lim.lag_samples:
            first = self._lagging[0]
            lags = ", ".join(f"{b.lag_ms:.0f}" for b in self._lagging[-lim.lag_samples :])
            return Verdict(
                "lagging",
                f"event loop lag over {lim.max_loop_lag_ms:.0f} ms for {len(self._lagging)} "
                f"heartbeats in a row ({lags} ms)",
                onset_ms=first.ts - first.lag_ms,
            )
        if len(self._timeouts) >= lim.timeouts_in_a_row:
            return Verdict(
                "timeouts",
                f"{len(self._timeouts)} bridge calls in a row timed out "
                f"({', '.join(self._timeouts[-lim.timeouts_in_a_row :])})",
            )
        if lim.max_rss_mb and last is not None and last.rss_mb > lim.max_rss_mb:
            return Verdict(
                "rss",
                f"node RSS {last.rss_mb:.0f} MB over the limit of {lim.max_rss_mb:.0f} MB "
                f"(heap {last.heap_used_mb:.0f} MB)",
            )
        return None
