"""Records a live session to JSONL for agency.perception.replay.ReplayBody (format described there)."""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from agency.perception.replay import FORMAT_VERSION
from agency.world import ActionStatus
from bot.runtime.body import MineflayerBody

REGION_HALF = (8, 4, 8)  # a 16x8x16 box around the bot


class Recorder:
    def __init__(
        self, body: MineflayerBody, out: IO[str], config: dict[str, Any], clock: Callable[[], float] = time.time
    ):
        self.body = body
        self.out = out
        self.clock = clock
        self.started_ms = int(clock() * 1000)
        self.lines = 0
        self._write(
            {
                "kind": "header",
                "format": FORMAT_VERSION,
                "startedAt": self.started_ms,
                "versions": {
                    "minecraft": body.version,
                    "python": platform.python_version(),
                    "node": _node_versions(),
                },
                "config": config,
            }
        )

    def _t(self) -> int:
        return int(self.clock() * 1000) - self.started_ms

    def _write(self, rec: dict[str, Any]) -> None:
        self.out.write(json.dumps(rec, separators=(",", ":")) + "\n")
        self.lines += 1

    def record_snapshot(self) -> None:
        self._write({"kind": "snapshot", "t": self._t(), "data": self.body.snapshot().model_dump(mode="json")})

    def record_events(self) -> None:
        for ev in self.body.events():
            self._write({"kind": "event", "t": self._t(), "data": ev.model_dump(mode="json")})

    def record_region(self) -> None:
        p = self.body.snapshot().position
        hx, hy, hz = REGION_HALF
        origin = (int(p.x) - hx, int(p.y) - hy, int(p.z) - hz)
        reg = self.body.region(origin, (2 * hx, 2 * hy, 2 * hz))
        self._write({"kind": "region", "t": self._t(), "data": reg.model_dump(mode="json")})

    def record_action(self, status: ActionStatus) -> None:
        self._write({"kind": "action", "t": self._t(), "data": status.model_dump(mode="json")})

    def record_chat(self, message: str) -> None:
        self.body.chat(message)
        self._write({"kind": "chat", "t": self._t(), "data": {"message": message}})

    def run(
        self,
        seconds: float,
        snapshot_every_s: float = 1.0,
        region_every_s: float = 10.0,
        sleep: Callable[[float], None] = time.sleep,
        on_tick: Callable[[Recorder, float], None] | None = None,
    ) -> None:
        """Record for `seconds`; `on_tick(recorder, elapsed_s)` lets a script act meanwhile."""
        start = self.clock()
        next_snap = next_region = start
        while (now := self.clock()) - start < seconds:
            self.record_events()
            if now >= next_snap:
                self.record_snapshot()
                next_snap = now + snapshot_every_s
            if now >= next_region:
                self.record_region()
                next_region = now + region_every_s
            if on_tick:
                on_tick(self, now - start)
            self.out.flush()
            sleep(0.2)
        self.record_events()
        self.record_snapshot()
        self.out.flush()


def _node_versions() -> dict[str, str]:
    pkg = Path(__file__).resolve().parents[2] / "node" / "package.json"
    try:
        return dict(json.loads(pkg.read_text())["dependencies"])
    except (OSError, ValueError, KeyError):
        return {}
