"""The order of bot's rooms, declared once: config is read by everything, the runtime
runs the daemon, mcp serves the running daemon to MCP clients, tooling (soak, bench,
recorder) drives the runtime, and the command line sits on top. A module may import its own
room and the rooms before it; bot/__main__.py only hands over to the command line.
tests/unit/test_layers.py holds this order.
"""

from __future__ import annotations

LAYERS: tuple[str, ...] = ("bot.config", "bot.runtime", "bot.mcp", "bot.tooling", "bot.cli")
