"""Settings of the places room (`[places]`). The one schema: agency.places.memory takes
this model and bot/config uses it as the type of the TOML section, so a key, its default
and its bounds are declared here only (the defaults are those of config/mcbot.toml).

Pure pydantic, no other agency import: bot.config.schema imports this to validate the
config before anything heavy starts.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class PlacesConfig(BaseModel):
    """Memory of places: tables, furnaces and beds the bot placed or saw, per world."""

    model_config = ConfigDict(extra="forbid", frozen=True)  # a typo in a key is an error, not a silent default

    enabled: bool = True  # off = nothing remembered, every craft judges by what is in reach
    # A craft needing a table walks to a remembered, still-standing one this close (blocks)
    # instead of crafting and placing a new one; the drive tick counts it as had.
    reuse_distance: float = Field(48.0, gt=0, le=256)
