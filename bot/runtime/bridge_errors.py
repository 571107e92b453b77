"""The bridge's errors (bot/runtime/bridge.py): a JS helper that raised, a bridge that is gone,
a node side that could not start. Callers import them from bot.runtime.bridge."""

from __future__ import annotations

from bot.runtime.errors import BotRuntimeError, InitError


class BridgeError(BotRuntimeError):
    """A JS helper raised; the bridge itself is fine."""


class BridgeDead(InitError):
    """node or the bridge thread is gone; rebuild the bridge to go on."""


class BridgeInitError(InitError):
    """The node side could not be started (node missing, deps not installed, ...)."""
