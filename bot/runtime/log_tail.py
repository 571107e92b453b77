"""The last lines of the daemon's log, kept in memory for the dashboard (GET /api/logs and
the live stream). A loguru sink: it may be called from any thread (the bridge's, the
scheduler's), so it only appends to a bounded deque, which is safe without a lock."""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any

from loguru import logger

KEEP = 500


class LogTail:
    def __init__(self, keep: int = KEEP) -> None:
        self._lines: deque[dict[str, Any]] = deque(maxlen=keep)
        self._seq = itertools.count(1)
        self._sink_id: int | None = None

    def sink(self, message: Any) -> None:
        r = message.record
        self._lines.append(
            {
                "seq": next(self._seq),
                "time": r["time"].strftime("%H:%M:%S.%f")[:-3],
                "level": r["level"].name,
                "bot": r["extra"].get("bot"),  # a fleet's bot, or None
                "message": str(r["message"])[:2000],
            }
        )

    def attach(self, level: str = "INFO") -> None:
        if self._sink_id is None:
            self._sink_id = logger.add(self.sink, level=level.upper(), format="{message}")

    def detach(self) -> None:
        if self._sink_id is not None:
            logger.remove(self._sink_id)
            self._sink_id = None

    def after(self, seq: int = 0, limit: int = 200) -> list[dict[str, Any]]:
        """Lines newer than `seq`, oldest first, the newest `limit` of them."""
        lines = list(self._lines)
        if lines and seq > lines[-1]["seq"]:
            seq = 0  # a page that followed an earlier daemon: this one numbers from 1 again
        return [line for line in lines if line["seq"] > seq][-limit:]
