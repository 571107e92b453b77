"""What an empty bucket is filled with: a water or lava source block, or a cow's milk
(node/plugins/buckets.js serves it in the embedded world, as vanilla does)."""

from __future__ import annotations

FILLED_FROM = {"water_bucket": "water", "lava_bucket": "lava", "milk_bucket": "milk"}
MILKED = ("cow", "mooshroom")
EMPTY = "bucket"


def fill_source(item: str) -> str | None:
    """'lava' for lava_bucket; None when `item` is no filled bucket."""
    return FILLED_FROM.get(item)
