"""Which folder the embedded world plays (server.world_folder).

A folder mcbot made (it holds MARKER, or is new) is played in place: that is the kept world.
A folder holding someone's save (a vanilla world: level.dat or region/ and no MARKER) is
never written unless `server.world_in_place` says so: a copy of it is played instead, made
once in the data directory (`worlds/copy-of-<name>` beside the database) and kept there, and
the log says so. The world's node side refuses a save it cannot read (node/lib/vanilla_saves.js).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from loguru import logger

from bot.runtime.server import EmbeddedServerSettings, settings_from_config

if TYPE_CHECKING:
    from bot.config.loader import McbotConfig

MARKER = "mcbot-world.json"
LOCKS = ("session.lock", "mcbot.lock")  # a running server's, never copied


def is_foreign_save(folder: Path) -> bool:
    return (
        folder.is_dir()
        and not (folder / MARKER).exists()
        and ((folder / "level.dat").exists() or (folder / "region").is_dir())
    )


def folder_to_play(cfg: McbotConfig) -> str:
    """The folder to hand the world ("" = in memory); copies a foreign save first."""
    if not cfg.server.world_folder:
        return ""
    folder = Path(cfg.server.world_folder).expanduser().resolve()
    if is_foreign_save(folder) and not cfg.server.world_in_place:
        copy = Path(cfg.storage.db_path).expanduser().resolve().parent / "worlds" / f"copy-of-{folder.name}"
        if copy.exists():
            logger.info(
                "[World] playing the copy of {} made before, {} (the save itself is never written)", folder, copy
            )
        else:
            shutil.copytree(folder, copy, ignore=shutil.ignore_patterns(*LOCKS))
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
    server = cfg.server.model_copy(update={"world_folder": folder_to_play(cfg)})
    return settings_from_config(server, port=port, version=version)
