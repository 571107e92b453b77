"""The lease job of a daemon on a shared PostgreSQL store: it renews the leases on this
daemon's active tasks, and hands a dead daemon's active tasks (lease run out) back to
pending, where any daemon's bot claims them and resumes from the task's checkpoint."""

from __future__ import annotations

from typing import Any

from loguru import logger

from bot.runtime.scheduler import JobSpec

RENEWALS_PER_LEASE = 3  # a lease survives two missed renewals (a long GC pause, a busy loop)


def lease_job(tasks: Any, lease_s: float) -> JobSpec:
    """tasks: agency.pg.task_store.PgTaskStore."""

    async def renew_and_take_over() -> None:
        tasks.renew_leases()
        for task in tasks.take_over_expired():
            logger.warning(
                "[Leases] task={} goalKey={} back to pending: its daemon's lease ran out",
                task.id,
                task.metadata.goalKey,
            )

    return JobSpec("leases", renew_and_take_over, lease_s / RENEWALS_PER_LEASE, timeout_s=30.0)
