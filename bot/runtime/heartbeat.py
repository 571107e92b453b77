"""The side channel of node's heartbeat: a small JSON file node/lib/heartbeat.js rewrites
(write, then rename: never seen half-written) every interval. Python reads it from the
watchdog thread, never through JSPyBridge, whose one worker thread a wedged node blocks."""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from bot.runtime.wedge import Beat

ENV_FILE = "MCBOT_BRIDGE_HEARTBEAT_FILE"
ENV_INTERVAL_MS = "MCBOT_BRIDGE_HEARTBEAT_MS"


class HeartbeatFile:
    def __init__(self) -> None:
        self._dir = Path(tempfile.mkdtemp(prefix="mcbot-bridge-"))
        self.path = self._dir / "heartbeat.json"

    def env(self, interval_s: float) -> dict[str, str]:
        """What node needs to beat into this file."""
        return {ENV_FILE: str(self.path), ENV_INTERVAL_MS: str(max(1, round(interval_s * 1000)))}

    def read(self, pid: int | None) -> Beat | None:
        """The latest beat of node `pid` (a killed node's last beat stays in the file until
        the new one writes), or None."""
        try:
            beat = Beat.from_json(json.loads(self.path.read_text()))
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return beat if beat.pid == pid else None

    def remove(self) -> None:
        shutil.rmtree(self._dir, ignore_errors=True)
