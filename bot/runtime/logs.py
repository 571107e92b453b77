"""Logging through loguru: stderr + a rotating file, with stdlib logging (APScheduler,
uvicorn, asyncio) routed into it so there is one log, one format."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from loguru import logger


class _InterceptHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            level: str | int = logger.level(record.levelname).name
        except ValueError:
            level = record.levelno
        logger.opt(depth=6, exception=record.exc_info).log(level, "{}: {}", record.name, record.getMessage())


def setup_logging(level: str = "INFO", file: str | None = None, rotation: str = "10 MB", retention: int = 5) -> None:
    logger.remove()
    logger.add(sys.stderr, level=level.upper(), format="{time:HH:mm:ss.SSS} | {level: <7} | {message}")
    if file:
        Path(file).parent.mkdir(parents=True, exist_ok=True)
        logger.add(file, level="DEBUG", rotation=rotation, retention=retention, enqueue=True)
    logging.basicConfig(handlers=[_InterceptHandler()], level=0, force=True)
    for name in ("apscheduler", "uvicorn", "uvicorn.error", "uvicorn.access", "asyncio"):
        std = logging.getLogger(name)
        std.handlers = [_InterceptHandler()]
        std.propagate = False
    # APScheduler logs every job run at INFO: only its warnings (missed runs) matter.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
