"""Armour: the items worn in the head, body, legs and feet slots (node/plugins/_armour.js holds
their defense points; the body puts on what it makes or picks up, node/lib/wear.js)."""

from __future__ import annotations

from agency.game.mcdata import data

PIECES = ("_helmet", "_chestplate", "_leggings", "_boots")


def is_armour(item: str) -> bool:
    """An item of the version that is worn as armour (a turtle shell's helmet included)."""
    return item.endswith(PIECES) and item in data().items
