"""Agency counters (docs/contracts.md COUNTER-1, COUNTER-2): monotonic within a session.

Counts only go up: there is no setter and no decrement, and reset_agency_counters() is the
one way back to zero (it also restarts the uptime clock). The periodic log line is kept
character for character (COUNTER-2).
"""

from __future__ import annotations

from typing import Literal

from agency.clock import Clock, system_clock_ms

CounterName = Literal[
    "llmCalls",
    "goalTags",
    "driveTicks",
    "signatureSuppressions",
    "contentSuppressions",
    "intentExtractions",
    "lowNoveltyRecorded",
    "lowNoveltyBroadcast",
]
COUNTER_NAMES: tuple[CounterName, ...] = (
    "llmCalls",
    "goalTags",
    "driveTicks",
    "signatureSuppressions",
    "contentSuppressions",
    "intentExtractions",
    "lowNoveltyRecorded",
    "lowNoveltyBroadcast",
)

AGENCY_LOG_INTERVAL_MS = 60_000


class AgencyCounters:
    __slots__ = ("_clock", "_started_at_ms", "_values")

    def __init__(self, clock: Clock = system_clock_ms) -> None:
        self._clock = clock
        self._values: dict[str, int] = {}
        self._started_at_ms = 0
        self.reset_agency_counters()

    def increment(self, name: CounterName, by: int = 1) -> int:
        if name not in self._values:
            raise KeyError(f"unknown agency counter {name!r}")
        if not isinstance(by, int) or isinstance(by, bool) or by < 1:
            raise ValueError(f"agency counters only go up; got by={by!r}")
        self._values[name] += by
        return self._values[name]

    def get(self, name: CounterName) -> int:
        return self._values[name]

    def __getattr__(self, name: str) -> int:
        # Read access as attributes (counters.llmCalls); __slots__ makes writes fail.
        values: dict[str, int] = object.__getattribute__(self, "_values")
        if name in values:
            return values[name]
        raise AttributeError(name)

    @property
    def startedAtMs(self) -> int:  # the name COUNTER-1 and the API use
        return self._started_at_ms

    def reset_agency_counters(self) -> None:
        self._values = dict.fromkeys(COUNTER_NAMES, 0)
        self._started_at_ms = self._clock()

    def snapshot(self) -> dict[str, int]:
        """camelCase JSON view, as served on the HTTP API."""
        return {**self._values, "startedAtMs": self._started_at_ms}

    def uptime_min(self, now_ms: int) -> int:
        return max(0, now_ms - self._started_at_ms) // 60_000

    def format_agency_log_line(self, now_ms: int | None = None) -> str:
        now = self._clock() if now_ms is None else now_ms
        v = self._values
        return (
            f"[Agency {self.uptime_min(now)}m] llm={v['llmCalls']} goals={v['goalTags']} "
            f"drives={v['driveTicks']} sigDedup={v['signatureSuppressions']} "
            f"contentDedup={v['contentSuppressions']} intents={v['intentExtractions']}"
        )
