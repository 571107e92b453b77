"""One wrapper over APScheduler 3.x for every periodic job of the daemon.

Every job: max_instances=1 and coalesce=True (a slow tick never piles up), a bounded body
(asyncio timeout), and exceptions routed to one handler that logs and counts them, so a
failing job never kills the scheduler. Jobs can be switched off by config.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable

from apscheduler.schedulers.asyncio import AsyncIOScheduler
from loguru import logger

JobFunc = Callable[[], Any] | Callable[[], Awaitable[Any]]


@dataclass
class JobStats:
    runs: int = 0
    errors: int = 0
    timeouts: int = 0
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
    stats: JobStats = field(default_factory=JobStats)


class Scheduler:
    def __init__(self) -> None:
        self._aps = AsyncIOScheduler()
        self.jobs: dict[str, JobSpec] = {}

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
        try:
            result = spec.func()
            if inspect.isawaitable(result):
                await asyncio.wait_for(result, timeout=spec.timeout_s)
            ok = True
        except asyncio.TimeoutError:
            spec.stats.timeouts += 1
            spec.stats.errors += 1
            spec.stats.last_error = f"timed out after {spec.timeout_s} s"
            logger.error("job {} timed out after {} s", name, spec.timeout_s)
            ok = False
        except asyncio.CancelledError:
            raise
        except Exception as e:  # noqa: BLE001 - the error handler: log, count, carry on
            spec.stats.errors += 1
            spec.stats.last_error = f"{type(e).__name__}: {e}"
            logger.opt(exception=e).error("job {} failed: {}", name, e)
            ok = False
        spec.stats.runs += 1
        spec.stats.last_run_s = time.perf_counter() - started
        spec.stats.total_s += spec.stats.last_run_s
        return ok

    def start(self) -> None:
        self._aps.start()

    @property
    def running(self) -> bool:
        return bool(self._aps.running)

    def shutdown(self) -> None:
        if self._aps.running:
            self._aps.shutdown(wait=False)
