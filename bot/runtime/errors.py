"""The runtime's error tree: BotRuntimeError for what goes wrong while the daemon runs,
InitError for what keeps it from starting (server unreachable, node missing, bridge dead).
bot/cli/exit_codes.py maps them to exit codes 1 and 3.
"""

from __future__ import annotations


class BotRuntimeError(RuntimeError):
    """The running bot or daemon failed (exit 1)."""


class InitError(BotRuntimeError):
    """The bot could not be brought up: no server, no node, no bridge, no world (exit 3)."""
