"""Which folder the embedded world plays (server.world_folder).

A folder mcbot made (it holds MARKER, or is new) is played in place: that is the kept world.
A folder holding someone's save (a vanilla world: level.dat or region/ and no MARKER) is
never written unless `server.world_in_place` says so: a copy of it is played instead, made
once in the data directory (`worlds/copy-of-<name>` beside the database) and kept there, and
the log says so. The world's node side refuses a save of another era (node/lib/vanilla_saves.js), and reads the
seed from a vanilla level.dat instead of writing its own over it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from loguru import logger

from bot.config.loader import auto_world_folder
from bot.runtime.server import EmbeddedServerSettings, settings_from_config

if TYPE_CHECKING:
    from bot.config.loader import McbotConfig

MARKER = "mcbot-world.json"
LOCKS = ("session.lock", "mcbot.lock")  # a running server's, never copied


def _vanilla_level(level: Path) -> bool:
    """Vanilla's level.dat records its data version; the one the embedded world writes does not."""
    try:
        return b"DataVersion" in gzip.decompress(level.read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile):
        return True  # unreadable: not one the embedded world wrote


def is_foreign_save(folder: Path) -> bool:
    """A save mcbot did not make: no MARKER, and a vanilla level.dat or region files without any
    level.dat (the embedded world writes its own level.dat before any region file)."""
    if not folder.is_dir() or (folder / MARKER).exists():
        return False
    level = folder / "level.dat"
    return _vanilla_level(level) if level.exists() else (folder / "region").is_dir()


def folder_to_play(cfg: McbotConfig) -> str:
    """The folder to hand the world ("" = in memory); copies a foreign save first."""
    if not cfg.server.world_folder:
        return ""
    folder = Path(cfg.server.world_folder).expanduser().resolve()
    if is_foreign_save(folder) and not cfg.server.world_in_place:
        # named after the save's path too: two saves called "world" get a copy each
        tag = hashlib.sha256(str(folder).encode()).hexdigest()[:8]
        copy = Path(cfg.storage.db_path).expanduser().resolve().parent / "worlds" / f"copy-of-{folder.name}-{tag}"
        if copy.exists():
            logger.info(
                "[World] playing the copy of {} made before, {} (the save itself is never written)", folder, copy
            )
        else:
            partial = copy.with_name(copy.name + ".partial")  # renamed once whole: never a half copy
            shutil.rmtree(partial, ignore_errors=True)
            shutil.copytree(folder, partial, ignore=shutil.ignore_patterns(*LOCKS))
            partial.rename(copy)
            logger.info(
                "[World] {} holds a save mcbot did not make: playing a copy, {}"
                " (server.world_in_place = true plays it in place)",
                folder,
                copy,
            )
        folder = copy
    folder.mkdir(parents=True, exist_ok=True)
    marker = folder / MARKER
    if not marker.exists():
        marker.write_text(json.dumps({"made_by": "mcbot", "version": cfg.server.embedded_version}) + "\n")
    return str(folder)


def embedded_settings(cfg: McbotConfig, port: int | None = None, version: str | None = None) -> EmbeddedServerSettings:
    """settings_from_config with the folder the world plays."""
    if version and version != cfg.server.embedded_version and cfg.server.world_folder == auto_world_folder(cfg):
        # `mcbot server --version V`: the kept world of that version, not the configured one's
        server = cfg.server.model_copy(update={"embedded_version": version})
        cfg = cfg.model_copy(update={"server": server})
        server.world_folder = auto_world_folder(cfg)
    server = cfg.server.model_copy(update={"world_folder": folder_to_play(cfg)})
    return settings_from_config(server, port=port, version=version)
