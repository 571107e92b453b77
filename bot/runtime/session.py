"""A live session: (optionally) the embedded server, the bridge, and a connected body, set
up in order and torn down in reverse whatever way the caller leaves."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from bot.config.loader import BotEntry, McbotConfig
from bot.runtime.body import ConnectionSettings, MineflayerBody
from bot.runtime.bridge import Bridge
from bot.runtime.server import EmbeddedServer
from bot.runtime.wedge import WedgeLimits
from bot.runtime.world_folder import embedded_settings


@dataclass
class Session:
    bridge: Bridge
    body: MineflayerBody
    server: EmbeddedServer | None


def connection_settings(
    cfg: McbotConfig,
    host: str | None = None,
    port: int | None = None,
    version: str | None = None,
    bot: BotEntry | None = None,
) -> ConnectionSettings:
    """How one bot joins: `bot` (a [[bots]] entry) names it; the rest comes from [bot]."""
    s, b = cfg.server, cfg.bot
    return ConnectionSettings(
        host=host or s.host or "127.0.0.1",
        port=port or s.port,
        username=bot.username if bot is not None else b.username,
        version=version or s.version,
        auth=(bot.auth if bot is not None and bot.auth else b.auth),
        profiles_folder=b.profiles_folder,
        connect_timeout_s=b.connect_timeout_s,
        reconnect_min_s=b.reconnect_min_s,
        reconnect_max_s=b.reconnect_max_s,
        hostile_radius=b.hostile_radius,
    )


def bridge_of(cfg: McbotConfig) -> Bridge:
    """The bridge as [bridge] configures it (not started)."""
    b = cfg.bridge
    limits = WedgeLimits(
        heartbeat_interval_s=b.heartbeat_interval_s,
        missed_heartbeat_s=b.missed_heartbeat_s,
        max_loop_lag_ms=b.max_loop_lag_ms,
        lag_samples=b.lag_samples,
        timeouts_in_a_row=b.timeouts_in_a_row,
        max_rss_mb=b.max_rss_mb,
    )
    return Bridge(
        node_bin=b.node_bin,
        call_margin_s=b.call_margin_s,
        dead_check_interval_s=b.dead_check_interval_s,
        limits=limits,
        heap_mb=b.heap_mb,
    )


@contextmanager
def live_session(
    cfg: McbotConfig,
    *,
    embedded: bool,
    host: str | None = None,
    port: int | None = None,
    version: str | None = None,
) -> Iterator[Session]:
    server = None
    bridge = bridge_of(cfg)
    body = None
    try:
        if embedded:
            server = EmbeddedServer(embedded_settings(cfg, port=port), node_bin=cfg.bridge.node_bin)
            server.start()
        bridge.start()
        body = MineflayerBody(
            bridge, connection_settings(cfg, host=None if embedded else host, port=port, version=version)
        )
        body.connect()
        yield Session(bridge=bridge, body=body, server=server)
    finally:
        if body is not None:
            body.close()
        bridge.shutdown()
        if server is not None:
            server.stop()
