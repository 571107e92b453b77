"""The identity of the world the bot is in, from config and the connection's address.

A remote server is its address (host:port). The embedded world is its seed and world
folder; without a folder it lives in memory and is a new world at every start, so it gets
a generated id (agency/goals/world_identity.py decides what that means for stored memories).
"""

from __future__ import annotations

from pathlib import Path

from agency.goals.world_identity import WorldIdentity
from bot.config.loader import ServerConfig

LOOPBACK = "127.0.0.1"


def is_embedded(server_cfg: ServerConfig, host: str) -> bool:
    """The daemon starts the embedded world when config asks for it and no other host was
    given: the bot then connects to config's host, or loopback."""
    return bool(server_cfg.use_embedded) and host == (server_cfg.host or LOOPBACK)


def world_identity(server_cfg: ServerConfig, host: str, port: int, embedded: bool | None = None) -> WorldIdentity:
    """embedded: whether the daemon started the world it connects to (None = infer it from
    config and host; `mcbot run --host 127.0.0.1` is someone else's server on loopback)."""
    if not (is_embedded(server_cfg, host) if embedded is None else embedded):
        return WorldIdentity.server(host, port)
    if server_cfg.world_folder:
        return WorldIdentity.embedded(server_cfg.seed, str(Path(server_cfg.world_folder).expanduser().resolve()))
    return WorldIdentity.in_memory(server_cfg.seed)
