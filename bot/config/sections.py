"""Config sections only bot/ reads: the HTTP API, the 3D view, the scheduled jobs and
`mcbot mcp`.
(The connection sections live in bot/config/schema.py; the sections an agency room reads
are that room's own settings models, agency/<room>/settings.py; McbotConfig gathers all.)"""

from __future__ import annotations

import ipaddress
import re

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class ApiConfig(_Section):
    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = Field(3003, ge=1, le=65535)
    token: str = ""  # required when host is not a loopback address
    max_body_bytes: int = Field(65536, ge=1024, le=16 * 2**20)
    read_timeout_s: float = Field(5.0, gt=0, le=60)  # a request (headers and body) must arrive within this

    @model_validator(mode="after")
    def _token_off_loopback(self) -> ApiConfig:
        if not is_loopback(self.host) and not self.token:
            raise ValueError(f"api.token must be set when api.host ({self.host}) is not a loopback address")
        return self


class ViewerConfig(_Section):
    """The 3D view of the bot (prismarine-viewer), served by the bridge's node process."""

    enabled: bool = True
    host: str = "127.0.0.1"
    port: int = Field(3007, ge=1, le=65535)
    view_distance: int = Field(6, ge=2, le=12)  # in chunks around the bot
    first_person: bool = False  # the bot's own eyes instead of an orbit camera

    # A field validator, not a model one: the error then names `viewer.host` itself.
    @field_validator("host")
    @classmethod
    def _loopback_only(cls, host: str) -> str:
        if not is_loopback(host):
            raise ValueError(
                f"viewer.host must be a loopback address, not {host}: the 3D view has no token check "
                "(reach it through an SSH tunnel)"
            )
        return host


class JobsConfig(_Section):
    """Intervals (seconds) of the daemon's scheduled jobs; `disabled` switches jobs off."""

    body_s: float = Field(0.5, gt=0)  # drain bot events (chat answered within 1 s: bench chat), reconnect
    perception_s: float = Field(2.0, gt=0)
    keepalive_s: float = Field(10.0, gt=0)  # keep-alive has its own cooldown inside
    planning_s: float = Field(5.0, gt=0)
    drive_tick_s: float = Field(10.0, gt=0)  # checks gates often; fires at most every interval
    executor_s: float = Field(2.0, gt=0)
    reflexes_s: float = Field(1.0, gt=0)
    reflex_watch_s: float = Field(0.02, gt=0, le=1.0)  # between reflex ticks, threats are polled this often
    review_s: float = Field(60.0, gt=0)
    counters_log_s: float = Field(60.0, gt=0)
    stream_prune_s: float = Field(60.0, gt=0)
    disabled: list[str] = Field(default_factory=list)


class ChatConfig(_Section):
    """Players' commands in the game's chat (agency.chat, docs/chat.md)."""

    enabled: bool = True  # off: the bot reads no chat
    commanders: list[str] = Field(default_factory=list)  # player names obeyed (any case); [] = none
    reply_every_s: float = Field(1.0, gt=0, le=60)  # after a burst of 4, one reply this often

    @field_validator("commanders")
    @classmethod
    def _names(cls, names: list[str]) -> list[str]:
        for i, name in enumerate(names):
            if not re.fullmatch(r"[A-Za-z0-9_]{1,16}", name):
                raise ValueError(f"commanders[{i}] {name!r} is not a player name (1-16 letters, digits or _)")
        return names


class McpConfig(_Section):
    """`mcbot mcp`: the bot as an MCP server, a client of the daemon's API."""

    host: str = "127.0.0.1"  # the streamable HTTP transport's address (stdio needs none)
    port: int = Field(3005, ge=1, le=65535)
    token: str = ""  # required when host is not a loopback address: clients send Authorization: Bearer
    calls_per_minute: int = Field(120, ge=1, le=10000)  # tool calls per client (stdio: the one; HTTP: per address)
    poll_s: float = Field(0.5, gt=0, le=10)  # how often a running action is polled (and progress reported)

    @model_validator(mode="after")
    def _token_off_loopback(self) -> McpConfig:
        if not is_loopback(self.host) and not self.token:
            raise ValueError(f"mcp.token must be set when mcp.host ({self.host}) is not a loopback address")
        return self
