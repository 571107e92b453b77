"""The config's schema: `McbotConfig`, every section it holds, and the sections bot/ declares
itself (the connection, the bridge, logging and storage).

Pure pydantic, kept free of heavy imports (no javascript, no bridge, no agency stores) so the
CLI can validate config before anything else starts: of agency it loads only the rooms'
settings modules. Adding a section: a key the daemon alone reads is a `_Section` subclass here
or in bot/config/sections.py; a key an agency room reads belongs to that room's settings model
(agency/<room>/settings.py), used here as the section's type, so each schema is declared once.
Either way add one field to `McbotConfig` (and its defaults to config/mcbot.toml). Reading the
layers into it is bot/config/loader.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from agency.cognition.settings import DriveTickConfig, KeepAliveConfig
from agency.execution.settings import ReflexConfig
from agency.llm.settings import LlmSettings
from agency.places.settings import PlacesConfig
from agency.stream.settings import StreamConfig
from bot.config.sections import ApiConfig, ChatConfig, JobsConfig, McpConfig, ViewerConfig

# The Minecraft versions the embedded world serves, the default first (make test runs it and the
# oldest; make test-matrix and make bench run every one).
EmbeddedVersion = Literal["26.1", "1.21.11", "1.21.4", "1.18.2"]
EMBEDDED_VERSIONS: tuple[EmbeddedVersion, ...] = get_args(EmbeddedVersion)
AUTO_WORLD = "auto"  # server.world_folder: kept in the data directory (McbotConfig._world_folder)


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a typo in a key is an error, not a silent default


class ServerConfig(_Section):
    """The Minecraft server the bot connects to (or the embedded one)."""

    host: str = ""  # "" = the embedded server on 127.0.0.1
    port: int = Field(25565, ge=1, le=65535)
    version: str = Field("auto", pattern=r"^(auto|\d+\.\d+(\.\d+)?)$")  # auto = server list ping
    embedded: bool | None = None  # None = decided by host, see use_embedded
    embedded_version: EmbeddedVersion = EMBEDDED_VERSIONS[0]
    # where the embedded world is kept between runs: "auto" = <storage.db_path's folder>/worlds/
    # <embedded_version>-seed<seed> (McbotConfig resolves it), "" = in memory (lost on exit)
    world_folder: str = "auto"
    # a world_folder holding a save mcbot did not make (a vanilla world) is played as a copy in the
    # data directory; true plays and writes the save itself (bot/runtime/world_folder.py)
    world_in_place: bool = False
    seed: int = 1337
    tree_density: float = Field(0.04, ge=0, le=1)
    # the embedded world's ground: "plains" (rolling grass over stone, coal and iron, nothing
    # below y 0) or "caves" (vanilla 1.18+'s layout: oceans, rivers, mountains and biomes, over
    # its underground: deepslate, caves, lava and water, every ore; `mcbot world compare` measures both)
    terrain: Literal["plains", "caves"] = "plains"
    # true = vanilla's night mix, false = none, a list = only those kinds
    hostiles: bool | list[Literal["zombie", "zombie_villager", "skeleton", "creeper", "spider"]] = True
    hostile_cap: int = Field(8, ge=0)
    animals: bool = True  # cows, pigs, chickens, sheep on grass
    animal_cap: int = Field(10, ge=0)  # most animals within 128 blocks of a player for new herds
    hunger_rate: float = Field(1.0, ge=0)
    day_length_scale: float = Field(1.0, gt=0)
    game_mode: Literal["survival", "creative", "adventure", "spectator"] = "survival"  # new players (embedded)
    view_distance: int = Field(6, ge=2, le=12)  # chunks the embedded world sends around each player
    # Supervision of the embedded world the daemon started (bot/runtime/world_supervisor.py)
    world_max_restarts: int = Field(5, ge=0)  # restarts within the window; one more death exits 3
    world_restart_window_s: float = Field(600.0, gt=0)
    world_restart_backoff_s: float = Field(1.0, ge=0)  # first delay; doubles per restart in the window, <= 30 s

    @property
    def use_embedded(self) -> bool:
        return self.embedded if self.embedded is not None else self.host == ""


USERNAME = r"^[A-Za-z0-9_]{3,16}$"  # a Minecraft player name


class BotConfig(_Section):
    username: str = Field("mcbot", pattern=USERNAME)
    auth: Literal["offline", "microsoft"] = "offline"
    profiles_folder: str = "~/.config/mcbot/profiles"  # token cache for microsoft auth
    connect_timeout_s: float = Field(30.0, gt=0)
    reconnect_min_s: float = Field(5.0, gt=0)
    reconnect_max_s: float = Field(60.0, gt=0, validate_default=True)  # so a raised min is checked
    hostile_radius: int = Field(16, gt=0)

    @field_validator("reconnect_max_s")
    @classmethod
    def _backoff_ordered(cls, v: float, info: ValidationInfo) -> float:
        lo = info.data.get("reconnect_min_s")
        if lo is not None and v < lo:
            raise ValueError(f"must be >= bot.reconnect_min_s ({lo})")
        return v


class BotEntry(_Section):
    """One bot of a fleet (`[[bots]]`): its name, and which of the daemon's loops it runs.
    Connection settings other than username and auth come from `[bot]`."""

    username: str = Field(pattern=USERNAME)
    auth: Literal["offline", "microsoft"] | None = None  # None = [bot].auth
    agents: list[str] = Field(default_factory=list)  # agent profiles it works as; [] = every one
    drives: bool = True  # drive ticks choose its own goals
    reflexes: bool = True  # eat, fight, flee, shelter at night
    keepalive: bool = True  # its thoughts (and LLM calls, when configured)


class BridgeConfig(_Section):
    node_bin: str = Field("auto", min_length=1)  # "auto": .toolchain/'s pinned Node 22, else PATH
    call_margin_s: float = Field(5.0, ge=0)  # Python-side timeout = JS timeout + this
    dead_check_interval_s: float = Field(1.0, gt=0)
    # A node that answers nothing is wedged, killed and rebuilt (bot/runtime/wedge.py): it
    # beats every heartbeat_interval_s; no beat for missed_heartbeat_s, lag_samples beats in a
    # row with the event loop late by more than max_loop_lag_ms, timeouts_in_a_row calls timed
    # out one after another, or its RSS over max_rss_mb (0: no limit) is a wedge.
    heartbeat_interval_s: float = Field(0.5, ge=0.05, le=5)
    missed_heartbeat_s: float = Field(5.0, gt=0, le=60, validate_default=True)
    max_loop_lag_ms: float = Field(2000.0, ge=50)
    lag_samples: int = Field(3, ge=1, le=100)
    timeouts_in_a_row: int = Field(3, ge=1, le=100)
    max_rss_mb: int = Field(3072, ge=0)
    heap_mb: int = Field(1024, ge=128, le=65536)  # node's --max-old-space-size: a runaway dies early

    @field_validator("missed_heartbeat_s")
    @classmethod
    def _beats_missed(cls, v: float, info: ValidationInfo) -> float:
        every = info.data.get("heartbeat_interval_s")
        if every is not None and v < 3 * every:
            raise ValueError(f"must be >= 3 x bridge.heartbeat_interval_s ({every}): a beat or two late is no wedge")
        return v


class LoggingConfig(_Section):
    level: Literal["TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING", "ERROR", "CRITICAL"] = "INFO"
    file: str = "logs/mcbot.log"
    rotation: str = "10 MB"
    retention: int | str = 5  # loguru: a file count, or a duration such as "7 days"

    @field_validator("level", mode="before")
    @classmethod
    def _upper(cls, v: Any) -> Any:
        return v.upper() if isinstance(v, str) else v


class StorageConfig(_Section):
    db_path: str = ".mcbot/mcbot.db"  # SQLite, when url is ""
    # "postgresql://user:pass@host:5432/db": one database several daemons share; "" = SQLite
    url: str = Field("", pattern=r"^$|^postgres(ql)?://")
    # names this daemon's task leases; "" = host/first bot
    daemon_id: str = Field("", pattern=r"^[A-Za-z0-9_.:@/-]{0,64}$")
    lease_s: float = Field(30.0, ge=3)  # a dead daemon's active tasks go to another after this

    @property
    def postgres(self) -> bool:
        return bool(self.url)


def auto_world_folder(cfg: McbotConfig) -> str:
    """Where "auto" keeps the embedded world: beside the database, one folder per version and seed."""
    data_dir = Path(cfg.storage.db_path).expanduser().resolve().parent
    return str(data_dir / "worlds" / f"{cfg.server.embedded_version}-seed{cfg.server.seed}")


class McbotConfig(_Section):
    server: ServerConfig = Field(default_factory=ServerConfig)
    bot: BotConfig = Field(default_factory=BotConfig)
    bridge: BridgeConfig = Field(default_factory=BridgeConfig)
    logging: LoggingConfig = Field(default_factory=LoggingConfig)
    storage: StorageConfig = Field(default_factory=StorageConfig)
    api: ApiConfig = Field(default_factory=ApiConfig)
    viewer: ViewerConfig = Field(default_factory=ViewerConfig)
    jobs: JobsConfig = Field(default_factory=JobsConfig)
    mcp: McpConfig = Field(default_factory=McpConfig)
    chat: ChatConfig = Field(default_factory=ChatConfig)
    # The sections an agency room reads: that room's own settings model, nothing mirrored.
    drive_tick: DriveTickConfig = Field(default_factory=DriveTickConfig)
    keepalive: KeepAliveConfig = Field(default_factory=KeepAliveConfig)
    stream: StreamConfig = Field(default_factory=StreamConfig)
    reflexes: ReflexConfig = Field(default_factory=ReflexConfig)
    places: PlacesConfig = Field(default_factory=PlacesConfig)
    llm: LlmSettings = Field(default_factory=LlmSettings)
    bots: list[BotEntry] = Field(default_factory=list)  # a fleet; [] = the one bot of [bot]

    @field_validator("bots")
    @classmethod
    def _bots_unique(cls, bots: list[BotEntry]) -> list[BotEntry]:
        seen: set[str] = set()
        for i, entry in enumerate(bots):
            name = entry.username.lower()  # player names are case-insensitive
            if name in seen:
                raise ValueError(f"bots[{i}].username {entry.username!r} is used by another bot")
            seen.add(name)
        return bots

    @model_validator(mode="after")
    def _world_folder(self) -> McbotConfig:
        """ "auto" keeps the embedded world beside the daemon's database, one folder per version
        (a save is of one version) and seed (a new seed is a new world); absolute, since the
        world's process runs in node/."""
        if self.server.world_folder == AUTO_WORLD:
            self.server = self.server.model_copy(update={"world_folder": auto_world_folder(self)})
        return self

    def bot_entries(self) -> list[BotEntry]:
        """The bots this daemon drives: `[[bots]]`, or the single bot of `[bot]`."""
        return list(self.bots) or [BotEntry(username=self.bot.username, auth=self.bot.auth)]
