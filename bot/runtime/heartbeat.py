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
        self._removed = False

    def env(self, interval_s: float) -> dict[str, str]:
        """What node needs to beat into this file; called at every spawn."""
        self.ensure()
        return {ENV_FILE: str(self.path), ENV_INTERVAL_MS: str(max(1, round(interval_s * 1000)))}

    def ensure(self) -> None:
        """The folder again, if it went (a temp cleaner, an exiting node's tidy-up): node
        never creates it, and its writes into a missing one fail silently, which reads as
        a node that never beats - killed and rebuilt, again and again."""
        if not self._removed:  # a watchdog read racing remove() leaves no folder behind
            self._dir.mkdir(mode=0o700, parents=True, exist_ok=True)

    def read(self, pid: int | None) -> Beat | None:
        """The latest beat of node `pid` (a killed node's last beat stays in the file until
        the new one writes), or None."""
        try:
            beat = Beat.from_json(json.loads(self.path.read_text()))
        except FileNotFoundError:
            self.ensure()  # a running node's next beat lands again
            return None
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return beat if beat.pid == pid else None

    def remove(self) -> None:
        self._removed = True
        shutil.rmtree(self._dir, ignore_errors=True)
