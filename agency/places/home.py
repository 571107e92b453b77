"""The bot's home: the nearest verified shelter it walks back to for the night, and how far
from it the bot's own things still count as its own.

Declared here, below every room that reads it: the goals (the walk back), the drive tick (a bed
that counts as had) and the explore tool (legs that stay near it)."""

from __future__ import annotations

HOOK = "home"  # ToolContext.hooks: a callable(snapshot) -> (x, z) of the home now, or None
# A verified shelter this near is walked back to for the night rather than a new one built, and
# a bed the bot placed this near is its own (placed in a hut only, by the sleep reflex: the bed
# of the hut it walks back to).
RANGE_M = 96.0
# An explore `nearby` stays this close to home (one farther off heads back): well inside
# RANGE_M, so a bot that explores with nothing else to do still sleeps in its own bed (a 1.18.2
# bench bot at d20bcc9 roamed 100 blocks off and made a second bed, its sheep hunt failing there).
EXPLORE_M = 64
