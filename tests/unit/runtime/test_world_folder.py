"""Which folder the embedded world plays: its own in place, someone's save as a copy."""

from __future__ import annotations

import gzip
from pathlib import Path

from loguru import logger

from bot.config.loader import McbotConfig
from bot.runtime.world_folder import MARKER, embedded_settings, folder_to_play


def config(tmp_path: Path, folder: Path | str, **server: object) -> McbotConfig:
    return McbotConfig.model_validate(
        {"storage": {"db_path": str(tmp_path / "data" / "mcbot.db")}, "server": {"world_folder": str(folder), **server}}
    )


VANILLA_LEVEL = gzip.compress(b"\n\0\0\n\0\4Data\3\0\x0bDataVersion\0\0\x0fs")  # what matters: DataVersion
SQUID_LEVEL = gzip.compress(b"\n\0\0\n\0\4Data\x08\0\x09LevelName\0\x10prismarine-world")


def a_vanilla_save(path: Path) -> Path:
    (path / "region").mkdir(parents=True)
    (path / "region" / "r.0.0.mca").write_bytes(b"\0" * 8192)
    (path / "level.dat").write_bytes(VANILLA_LEVEL)
    (path / "session.lock").write_bytes(b"lock")
    return path


def test_a_new_folder_is_mcbots_own_and_played_in_place(tmp_path):
    folder = tmp_path / "mine"
    assert folder_to_play(config(tmp_path, folder)) == str(folder)
    assert (folder / MARKER).exists()
    (folder / "level.dat").write_bytes(SQUID_LEVEL)  # what the world wrote: still ours next time
    assert folder_to_play(config(tmp_path, folder)) == str(folder)
    assert folder_to_play(config(tmp_path, "")) == ""
    # a world the embedded world made before the marker existed: its level.dat says it is ours
    older = tmp_path / "older"
    (older / "region").mkdir(parents=True)
    (older / "level.dat").write_bytes(SQUID_LEVEL)
    assert folder_to_play(config(tmp_path, older)) == str(older)


def test_someones_save_is_copied_once_and_the_copy_played_the_save_untouched(tmp_path):
    save = a_vanilla_save(tmp_path / "My World")
    before = sorted(p.name for p in save.rglob("*"))
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(str(m)), format="{message}")
    try:
        played = Path(folder_to_play(config(tmp_path, save)))
        assert played.parent == tmp_path / "data" / "worlds" and played.name.startswith("copy-of-My World-")
        assert (played / "region" / "r.0.0.mca").read_bytes() == b"\0" * 8192
        assert not (played / "session.lock").exists() and (played / MARKER).exists()
        (played / "level.dat").write_bytes(b"played on")
        assert folder_to_play(config(tmp_path, save)) == str(played)  # the same copy, kept
        assert (played / "level.dat").read_bytes() == b"played on"
    finally:
        logger.remove(sink)
    assert sorted(p.name for p in save.rglob("*")) == before and (save / "level.dat").read_bytes() == VANILLA_LEVEL
    # another save of the same name elsewhere: a copy of its own
    other = a_vanilla_save(tmp_path / "elsewhere" / "My World")
    assert folder_to_play(config(tmp_path, other)) not in (str(played), str(other))
    assert "holds a save mcbot did not make: playing a copy" in lines[0] and "made before" in lines[1]
    # asked for: the save itself
    assert folder_to_play(config(tmp_path, save, world_in_place=True)) == str(save)
    assert embedded_settings(config(tmp_path, save, world_in_place=True), port=1).world_folder == str(save)


def test_the_kept_world_of_another_version_is_its_own_folder(tmp_path):
    cfg = McbotConfig.model_validate({"storage": {"db_path": str(tmp_path / "data" / "mcbot.db")}})
    assert embedded_settings(cfg, port=1).world_folder.endswith(f"{cfg.server.embedded_version}-seed1337")
    assert embedded_settings(cfg, port=1, version="1.18.2").world_folder == str(
        tmp_path / "data" / "worlds" / "1.18.2-seed1337"
    )
    assert cfg.server.world_folder.endswith(f"{cfg.server.embedded_version}-seed1337")  # the config is left as it was
