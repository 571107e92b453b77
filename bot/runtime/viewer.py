"""The 3D view of a bot (prismarine-viewer in node, node/lib/viewer.js) driven over the bridge:
served from the first connect on, re-attached to each new bot a reconnect makes, stopped when
the body closes, and its status as node reports it."""

from __future__ import annotations

import json
from typing import Any

from loguru import logger

from bot.config.sections import ViewerConfig
from bot.runtime.bridge import Bridge, BridgeDead, BridgeError

# JS-side bounds of the 3D view's listen and close (node/lib/viewer.js keeps within them).
VIEWER_START_TIMEOUT_MS = 5_000
VIEWER_STOP_TIMEOUT_MS = 3_000


class BotViewer:
    """The 3D view one body serves (`config` None or disabled: none)."""

    def __init__(self, bridge: Bridge, config: ViewerConfig | None) -> None:
        self.bridge = bridge
        self.config = config
        self._error: str | None = None  # why the last start failed, for status()

    def start(self, bot_id: str | None, username: str) -> None:
        """Serve the 3D view of the bot just connected: started on the first connect (and in
        a rebuilt bridge's new node), re-attached to the new bot on reconnects. A failure is
        one warning, never a failed connect."""
        v = self.config
        if v is None or not v.enabled or bot_id is None:
            return
        options = {"host": v.host, "port": v.port, "viewDistance": v.view_distance, "firstPerson": v.first_person}
        try:
            st = self.bridge.call_json("startViewer", bot_id, json.dumps(options), timeout_ms=VIEWER_START_TIMEOUT_MS)
        except (BridgeError, BridgeDead) as e:
            st = {"running": False, "error": str(e)}
        if not st.get("running"):
            self._error = st.get("error") or "not running"
            logger.warning("[Viewer] 3D view not served on port {}: {}", v.port, self._error)
            return
        self._error = None
        if st.get("started"):
            logger.info("[Viewer] 3D view at {} (bot {})", st.get("url"), username)
        else:
            logger.info("[Viewer] re-attached to the new bot")

    def stop(self) -> None:
        if self.config is None or not self.config.enabled or not self.bridge.alive:
            return  # a dead node took its server with it
        try:
            self.bridge.call("stopViewer", timeout_ms=VIEWER_STOP_TIMEOUT_MS)
        except (BridgeError, BridgeDead) as e:
            logger.debug("stopping the 3D view failed: {}", e)

    def status(self) -> dict[str, Any]:
        """The 3D view as node reports it: {running, host, port, url, botAttached, clients, error}."""
        if self.config is None or not self.config.enabled:
            return {"running": False, "enabled": False}
        try:
            st = dict(self.bridge.call_json("viewerStatus"))
        except (BridgeError, BridgeDead) as e:
            return {"running": False, "error": str(e)}
        if not st.get("error") and not st.get("running") and self._error:
            st["error"] = self._error  # a start that failed before node knew of it
        return st
