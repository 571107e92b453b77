"""Which folder the embedded world plays: its own in place, someone's save as a copy."""

from __future__ import annotations

from pathlib import Path

from loguru import logger

from bot.config.loader import McbotConfig
from bot.runtime.world_folder import MARKER, embedded_settings, folder_to_play


def config(tmp_path: Path, folder: Path | str, **server: object) -> McbotConfig:
    return McbotConfig.model_validate(
        {"storage": {"db_path": str(tmp_path / "data" / "mcbot.db")}, "server": {"world_folder": str(folder), **server}}
    )


def a_vanilla_save(path: Path) -> Path:
    (path / "region").mkdir(parents=True)
    (path / "region" / "r.0.0.mca").write_bytes(b"\0" * 8192)
    (path / "level.dat").write_bytes(b"vanilla")
    (path / "session.lock").write_bytes(b"lock")
    return path


def test_a_new_folder_is_mcbots_own_and_played_in_place(tmp_path):
    folder = tmp_path / "mine"
    assert folder_to_play(config(tmp_path, folder)) == str(folder)
    assert (folder / MARKER).exists()
    (folder / "level.dat").write_bytes(b"ours")  # what the world wrote: still ours next time
    assert folder_to_play(config(tmp_path, folder)) == str(folder)
    assert folder_to_play(config(tmp_path, "")) == ""


def test_someones_save_is_copied_once_and_the_copy_played_the_save_untouched(tmp_path):
    save = a_vanilla_save(tmp_path / "My World")
    before = sorted(p.name for p in save.rglob("*"))
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(str(m)), format="{message}")
    try:
        played = Path(folder_to_play(config(tmp_path, save)))
        assert played == tmp_path / "data" / "worlds" / "copy-of-My World"
        assert (played / "region" / "r.0.0.mca").read_bytes() == b"\0" * 8192
        assert not (played / "session.lock").exists() and (played / MARKER).exists()
        (played / "level.dat").write_bytes(b"played on")
        assert folder_to_play(config(tmp_path, save)) == str(played)  # the same copy, kept
        assert (played / "level.dat").read_bytes() == b"played on"
    finally:
        logger.remove(sink)
    assert sorted(p.name for p in save.rglob("*")) == before and (save / "level.dat").read_bytes() == b"vanilla"
    assert "holds a save mcbot did not make: playing a copy" in lines[0] and "made before" in lines[1]
    # asked for: the save itself
    assert folder_to_play(config(tmp_path, save, world_in_place=True)) == str(save)
    assert embedded_settings(config(tmp_path, save, world_in_place=True), port=1).world_folder == str(save)
