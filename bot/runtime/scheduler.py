"""One wrapper over APScheduler 3.x for every periodic job of the daemon.

Every job: max_instances=1 and coalesce=True (a slow tick never piles up), a bounded body
(asyncio timeout), and exceptions routed to one handler that logs and counts them, so a
failing job never kills the scheduler. Jobs can be switched off by config.

A run skipped because the previous one is still going (or missed its window under load) is
normal for a slow tick: it is counted through APScheduler's events, logged at DEBUG, and
summed up at INFO once a minute; APScheduler's own warning for it is filtered out. The same
minute flushes every log-rate aggregator (agency.log_rate).
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from apscheduler.events import EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED, JobEvent
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from loguru import logger

from agency import log_rate

JobFunc = Callable[[], Any] | Callable[[], Awaitable[Any]]
SUMMARY_JOB = "_log_summaries"  # internal: not one of the daemon's jobs
SUMMARY_S = 60.0
# APScheduler's per-skip warnings (scheduler: max instances; executor: missed run time)
_SKIP_WARNINGS = ("maximum number of running instances reached", "was missed by")
_APS_LOGGERS = ("apscheduler.scheduler", "apscheduler.executors.default")


class _SkipWarningFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return not any(w in str(record.msg) for w in _SKIP_WARNINGS)


def _silence_skip_warnings() -> None:
    for name in _APS_LOGGERS:
        std = logging.getLogger(name)
        if not any(isinstance(f, _SkipWarningFilter) for f in std.filters):
            std.addFilter(_SkipWarningFilter())


@dataclass
class JobStats:
    runs: int = 0
    errors: int = 0
    timeouts: int = 0
    skipped: int = 0  # runs not started: the previous one still running, or missed under load
    last_error: str | None = None
    last_run_s: float = 0.0
    total_s: float = 0.0


@dataclass
class JobSpec:
    name: str
    func: JobFunc
    interval_s: float
    enabled: bool = True
    timeout_s: float = 30.0
    bot: str | None = None  # a fleet's bot whose job this is: its log lines name it (bot/runtime/logs.py)
    stats: JobStats = field(default_factory=JobStats)


class Scheduler:
    def __init__(self) -> None:
        self._aps = AsyncIOScheduler()
        self.jobs: dict[str, JobSpec] = {}
        self._skipped: Counter[str] = Counter()  # since the last summary
        _silence_skip_warnings()
        self._aps.add_listener(self.on_skipped, EVENT_JOB_MAX_INSTANCES | EVENT_JOB_MISSED)

    def add(self, spec: JobSpec) -> None:
        if spec.name in self.jobs:
            raise ValueError(f"job {spec.name!r} already scheduled")
        self.jobs[spec.name] = spec
        if not spec.enabled:
            logger.info("job {} is switched off in config", spec.name)
            return
        self._aps.add_job(
            self.run_once,
            "interval",
            args=[spec.name],
            seconds=spec.interval_s,
            id=spec.name,
            max_instances=1,
            coalesce=True,
            misfire_grace_time=max(1, int(spec.interval_s)),
        )

    async def run_once(self, name: str) -> bool:
        """Run a job's body once, bounded; True when it succeeded. Never raises."""
        spec = self.jobs[name]
        started = time.perf_counter()
        # The tasks and threads the body starts inherit the context: a task run by a fleet's
        # executor job logs its bot's name too.
        with logger.contextualize(bot=spec.bot) if spec.bot else contextlib.nullcontext():
            return await self._run_body(spec, started)

    async def _run_body(self, spec: JobSpec, started: float) -> bool:
        name = spec.name
        try:
            result = spec.func()
            if inspect.isawaitable(result):
                await asyncio.wait_for(result, timeout=spec.timeout_s)
            ok = True
        except TimeoutError:
            spec.stats.timeouts += 1
            spec.stats.errors += 1
            spec.stats.last_error = f"timed out after {spec.timeout_s} s"
            logger.error("job {} timed out after {} s", name, spec.timeout_s)
            ok = False
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is None or not task.cancelling():
                raise  # something the job awaited was cancelled, not the run itself: a real error
            # The run itself is cancelled only by the daemon's stop (the loop ending with the job
            # mid-body): it ends there, quietly, not as APScheduler's "raised an exception".
            logger.debug("job {} cancelled (stopping)", name)
            return False
        except Exception as e:  # noqa: BLE001 - the error handler: log, count, carry on
            spec.stats.errors += 1
            spec.stats.last_error = f"{type(e).__name__}: {e}"
            logger.opt(exception=e).error("job {} failed: {}", name, e)
            ok = False
        spec.stats.runs += 1
        spec.stats.last_run_s = time.perf_counter() - started
        spec.stats.total_s += spec.stats.last_run_s
        return ok

    def on_skipped(self, event: JobEvent) -> None:
        """APScheduler's listener for a run it did not start."""
        why = "still running" if event.code == EVENT_JOB_MAX_INSTANCES else "missed its run time"
        logger.debug("[Scheduler] skipped run of {}: previous run {}", event.job_id, why)
        self._skipped[event.job_id] += 1
        if event.job_id in self.jobs:
            self.jobs[event.job_id].stats.skipped += 1

    def log_summaries(self) -> None:
        """Once a minute: the skipped runs by job (if any), then every rate-limited line's count."""
        if self._skipped:
            counts = " ".join(f"{name}={n}" for name, n in sorted(self._skipped.items()))
            logger.info("[Scheduler] skipped runs in the last {:.0f} s: {}", SUMMARY_S, counts)
            self._skipped.clear()
        log_rate.flush_all()

    def start(self) -> None:
        self._aps.add_job(
            self.log_summaries,
            "interval",
            seconds=SUMMARY_S,
            id=SUMMARY_JOB,
            max_instances=1,
            coalesce=True,
            replace_existing=True,
        )
        self._aps.start()

    @property
    def running(self) -> bool:
        return bool(self._aps.running)

    def shutdown(self) -> None:
        if self._aps.running:
            self._aps.shutdown(wait=False)
