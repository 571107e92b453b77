"""Logging through loguru: stderr + a rotating file, with stdlib logging (APScheduler,
uvicorn, asyncio) routed into it so there is one log, one format.

In a fleet, a line logged while one bot's job runs names that bot in a column of its own
(`12:00:01.250 | INFO    | alice | [Executor] claimed ...`): the job sets loguru's
`extra["bot"]` (bot/runtime/scheduler.py), and the tasks it starts inherit it. The message
itself is left as written: an exact line is part of its rule (docs/contracts.md)."""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from loguru import logger

if TYPE_CHECKING:
    from loguru import Record


class _InterceptHandler(logging.Handler):
    def emit(self, record: logging.LogRecord) -> None:
        try:
            level: str | int = logger.level(record.levelname).name
        except ValueError:
            level = record.levelno
        logger.opt(depth=6, exception=record.exc_info).log(level, "{}: {}", record.name, record.getMessage())


CONSOLE = "{time:HH:mm:ss.SSS} | {level: <7} | "
FILE = "{time:YYYY-MM-DD HH:mm:ss.SSS} | {level: <8} | {name}:{function}:{line} - "


def line_format(head: str) -> Callable[[Record], str]:
    """head, then the bot's column when the line has one, then the message."""

    def fmt(record: Record) -> str:
        return head + ("{extra[bot]} | " if record["extra"].get("bot") else "") + "{message}\n{exception}"

    return fmt


def setup_logging(
    level: str = "INFO", file: str | None = None, rotation: str = "10 MB", retention: int | str = 5
) -> None:
    logger.remove()
    logger.add(sys.stderr, level=level.upper(), format=line_format(CONSOLE))
    if file:
        Path(file).parent.mkdir(parents=True, exist_ok=True)
        logger.add(file, level="DEBUG", rotation=rotation, retention=retention, enqueue=True, format=line_format(FILE))
    logging.basicConfig(handlers=[_InterceptHandler()], level=0, force=True)
    for name in ("apscheduler", "uvicorn", "uvicorn.error", "uvicorn.access", "asyncio"):
        std = logging.getLogger(name)
        std.handlers = [_InterceptHandler()]
        std.propagate = False
    # APScheduler logs every job run at INFO: only its warnings (missed runs) matter.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    # httpcore traces each request in six DEBUG lines: a survival bench's sampling wrote 10 MB of
    # them to the file in 12 minutes, and two benches in one checkout then rotated it under each other.
    logging.getLogger("httpcore").setLevel(logging.INFO)
