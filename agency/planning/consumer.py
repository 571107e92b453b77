"""Planning's side of the stream contract (docs/contracts.md STREAM-2, AUTONOMY-4, KEEPALIVE-3).

PlanningConsumer polls the actionable feed, converts each thought with agency.planning.converter,
and acks EVERY thought it fetched, whether converted, skipped or errored, so
fetched == acked on every cycle and an evaluated thought never comes back. Acks use the
fetched ids, not the converter's outcomes, so even a converter crash cannot leave a
fetched thought unacked (and re-fetched forever).

IdleReporter is the executor tick's idle signal: no active and no eligible (pending)
tasks. It logs on entering idle and then at most once per repeat_ms while idle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from loguru import logger

from agency.clock import Clock
from agency.planning.converter import ConversionBatch, ConversionOutcome, GoalRouter, convert_thoughts
from agency.planning.tasks.idempotency import STUCK_PENDING_TIMEOUT_MS
from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.store import TaskStore
from agency.stream.cognitive_stream import AckResult, ActionableFeed, CognitiveStream

DEFAULT_BATCH_LIMIT = 20
PROCESSED_BY = "planning"
IDLE_REPEAT_MS = 60_000
IDLE_LINE = "[Planning] [AUTONOMOUS EXECUTOR] Idle detected: no_tasks (active={}, eligible={})"


@dataclass(frozen=True)
class PollResult:
    fetched: int
    batch: ConversionBatch
    ack: AckResult | None  # None when nothing was fetched

    @property
    def converted(self) -> int:
        return self.batch.count("converted")


class PlanningConsumer:
    def __init__(
        self,
        stream: CognitiveStream,
        store: TaskStore,
        clock: Clock,
        *,
        batch_limit: int = DEFAULT_BATCH_LIMIT,
        processed_by: str = PROCESSED_BY,
        stuck_timeout_ms: int = STUCK_PENDING_TIMEOUT_MS,
        router: GoalRouter | None = None,
    ) -> None:
        self._stream = stream
        self.router = router  # goal-bound intents -> the goal resolver (the daemon's)
        self._store = store
        self._clock = clock
        self._limit = batch_limit
        self._processed_by = processed_by
        self._stuck_timeout_ms = stuck_timeout_ms

    def poll_once(self) -> PollResult:
        """One poll cycle (the daemon schedules it). An empty feed logs only the stream's
        /actionable lines: there is nothing to ack."""
        feed: ActionableFeed = self._stream.actionable(self._limit)
        if not feed.thoughts:
            return PollResult(0, ConversionBatch([]), None)
        batch = self._convert(feed)
        logger.info(batch.log_line())
        ack = self._stream.ack([t.id for t in feed.thoughts], self._processed_by)
        return PollResult(feed.count, batch, ack)

    def _convert(self, feed: ActionableFeed) -> ConversionBatch:
        try:
            return convert_thoughts(
                feed.thoughts, self._store, self._clock(), stuck_timeout_ms=self._stuck_timeout_ms, router=self.router
            )
        except Exception as exc:  # noqa: BLE001 - the converter should never raise; if it does, ack as errors
            logger.warning("[Thought-to-task] batch failed {}: {}", type(exc).__name__, exc)
            err = f"{type(exc).__name__}: {exc}"
            return ConversionBatch([ConversionOutcome(t.id, "error", error=err) for t in feed.thoughts])


class TaskCounts(Protocol):
    def list_by_status(self, *statuses: TaskStatus) -> Sequence[object]: ...


class IdleReporter:
    """Eligible = pending tasks (the ones an executor may claim next)."""

    def __init__(self, store: TaskCounts, clock: Clock, *, repeat_ms: int = IDLE_REPEAT_MS) -> None:
        self._store = store
        self._clock = clock
        self._repeat_ms = repeat_ms
        self._last_logged_ms: int | None = None

    def check(self) -> bool:
        """True when idle (no active, no eligible tasks)."""
        active = len(self._store.list_by_status(TaskStatus.active))
        eligible = len(self._store.list_by_status(TaskStatus.pending))
        if active or eligible:
            self._last_logged_ms = None  # the next idle spell logs at once
            return False
        now = self._clock()
        if self._last_logged_ms is None or now - self._last_logged_ms >= self._repeat_ms:
            logger.info(IDLE_LINE, active, eligible)
            self._last_logged_ms = now
        return True
