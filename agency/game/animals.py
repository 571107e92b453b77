"""The food animals: what each drops, and so the kinds the bot hunts (agency.tools.hunting)."""

from __future__ import annotations

# What each food animal drops (vanilla loot); the keys are the kinds the bot hunts.
ANIMAL_DROPS: dict[str, tuple[str, ...]] = {
    "cow": ("beef", "leather"),
    "mooshroom": ("beef", "leather"),
    "pig": ("porkchop",),
    "chicken": ("chicken", "feather"),
    "sheep": ("mutton", "white_wool"),
    "rabbit": ("rabbit", "rabbit_hide"),
}
ANIMALS: tuple[str, ...] = tuple(ANIMAL_DROPS)


def animal_for(item: str) -> str | None:
    """The animal a plan hunts for `item` (leather: cow), the first that drops it; None if none."""
    return next((a for a, drops in ANIMAL_DROPS.items() if item in drops), None)
