"""Settings of the cognition room: drive ticks (`[drive_tick]`) and the keep-alive loop
(`[keepalive]`). The one schema of each: agency code takes these models, and bot/config
uses them as the types of the TOML sections, so a key, its default and its bounds are
declared here only (the defaults are those of config/mcbot.toml).

Pure pydantic, no other agency import: bot.config.schema imports this to validate the
config before anything heavy starts.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator

# The situation-frame prompt profiles (agency.cognition.situation_frame.PROFILES).
Profile = Literal["minimal", "balanced", "rich"]
PROFILE_NAMES: tuple[str, ...] = get_args(Profile)


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)  # a typo in a key is an error, not a silent default


class DriveTickConfig(_Settings):
    """Drive ticks (docs/contracts.md DRIVE-1..5): the explicit, labelled source of autonomy."""

    enabled: bool = True  # off = no ticks
    interval_ms: int = Field(180_000, ge=1000)  # = drive_tick.DRIVE_TICK_INTERVAL_MS; fixed, no jitter in v1
    # A pending task with zero progress for this long no longer blocks a new drive tick
    # (= agency.planning.tasks.idempotency.STUCK_PENDING_TIMEOUT_MS).
    stuck_timeout_ms: int = Field(300_000, ge=1000)
    # Goals the next ticks would choose, done in the same task after the tick's own
    # (agency.cognition.follow_ups); 0 = each tick's goal alone (none queued either).
    follow_ups: int = Field(3, ge=0, le=8)
    # Goals after those, queued as a task of their own once the tick's task completes
    # (agency.execution.after_goal; it gives way to work queued meanwhile); 0 = none.
    queued_follow_ups: int = Field(3, ge=0, le=8)


class KeepAliveConfig(_Settings):
    """The keep-alive observation loop (KEEPALIVE-1..8)."""

    enabled: bool = True
    profile: Profile = "balanced"  # situation-frame profile
    # At most one introspection per interval unless a stimulus bypasses it (KEEPALIVE-4).
    min_interval_ms: int = Field(120_000, ge=0)
    # With a SituationGate: while the situation repeats, one model call per heartbeat
    # (= agency.cognition.situation.DEFAULT_HEARTBEAT_MS).
    heartbeat_ms: int = Field(300_000, ge=0)

    @field_validator("profile", mode="before")
    @classmethod
    def _known_profile(cls, v: Any) -> Any:
        if isinstance(v, str) and v not in PROFILE_NAMES:
            raise ValueError(f"unknown prompt profile {v!r}; known: {', '.join(PROFILE_NAMES)}")
        return v
