"""Nothing runs blind: jobs that act on the world (drive ticks, planning claims, reflexes,
the executor) wait while the bot is not connected, and say so once. One line when a job
starts waiting, one when it goes on; never one per tick."""

from __future__ import annotations

from loguru import logger


class BodyGate:
    def __init__(self) -> None:
        self._waiting: set[str] = set()

    def open(self, job: str, connected: bool) -> bool:
        """May `job` act now? Logs only when its answer changes."""
        if not connected and job not in self._waiting:
            self._waiting.add(job)
            logger.info("[{}] waiting: the bot is not connected", job)
        elif connected and job in self._waiting:
            self._waiting.discard(job)
            logger.info("[{}] going on: the bot is connected again", job)
        return connected

    def waiting(self) -> set[str]:
        return set(self._waiting)
