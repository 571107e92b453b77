"""Settings of the stream room: the cognitive stream (`[stream]`). The one schema: bot/config
uses it as the type of the TOML section and hands `max_thoughts` to CognitiveStream.

Pure pydantic, no other agency import: bot.config.schema imports this to validate the
config before anything heavy starts.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class StreamConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)  # a typo in a key is an error, not a silent default

    # Hard cap on stored thoughts; old non-actionable ones are pruned first
    # (= cognitive_stream.DEFAULT_MAX_THOUGHTS).
    max_thoughts: int = Field(5000, ge=100)
