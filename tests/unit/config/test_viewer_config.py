"""The `[viewer]` section: defaults, ranges, and a host refused off loopback (the 3D view has
no token check), each error naming its field path and the layer it came from."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.config.loader import ConfigError, McbotConfig, load_config
from bot.config.sections import ViewerConfig


def _load(tmp_path: Path, toml: str = "", environ: dict[str, str] | None = None) -> McbotConfig:
    """The shipped config under a working-dir mcbot.toml; nothing of the real machine."""
    cwd, home, etc = (tmp_path / d for d in ("cwd", "home", "etc"))
    for d in (cwd, home, etc):
        d.mkdir()
    if toml:
        (cwd / "mcbot.toml").write_text(toml)
    return load_config(cwd=cwd, home=home, etc_dir=etc, environ=environ or {}).config


def test_defaults_serve_loopback_on_3007(tmp_path: Path) -> None:
    viewer = _load(tmp_path).viewer
    assert viewer == ViewerConfig()
    assert (viewer.enabled, viewer.host, viewer.port, viewer.view_distance, viewer.first_person) == (
        True,
        "127.0.0.1",
        3007,
        6,
        False,
    )


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "localhost", "::1"])
def test_loopback_hosts_are_accepted(host: str) -> None:
    assert ViewerConfig(host=host).host == host


def test_a_non_loopback_host_is_refused_naming_the_field_and_the_way_in(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as exc:
        _load(tmp_path, '[viewer]\nhost = "0.0.0.0"\n')
    line = next(x for x in str(exc.value).splitlines() if "viewer.host:" in x)
    assert "must be a loopback address" in line and "no token check" in line and "SSH tunnel" in line
    assert str(tmp_path / "cwd" / "mcbot.toml") in line
    assert exc.value.exit_code == 4


def test_a_non_loopback_host_from_the_environment_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as exc:
        _load(tmp_path, environ={"MCBOT_VIEWER__HOST": "192.168.1.5"})
    line = next(x for x in str(exc.value).splitlines() if "viewer.host:" in x)
    assert "192.168.1.5" in line and "env:MCBOT_VIEWER__HOST" in line


def test_the_viewer_host_is_refused_even_when_the_view_is_off() -> None:
    # Switching it on later must not open an unguarded port: the address is checked always.
    with pytest.raises(ValueError, match=r"viewer.host must be a loopback address"):
        McbotConfig.model_validate({"viewer": {"enabled": False, "host": "mc.example.net"}})


@pytest.mark.parametrize(
    ("toml", "field"),
    [
        ("port = 0", "viewer.port"),
        ("port = 70000", "viewer.port"),
        ("view_distance = 1", "viewer.view_distance"),
        ("view_distance = 13", "viewer.view_distance"),
        ('first_person = "maybe"', "viewer.first_person"),
        ('token = "x"', "viewer.token"),
    ],
)
def test_out_of_range_values_name_their_field(tmp_path: Path, toml: str, field: str) -> None:
    with pytest.raises(ConfigError) as exc:
        _load(tmp_path, f"[viewer]\n{toml}\n")
    assert f"{field}:" in str(exc.value)


def test_environment_overrides_reach_the_section(tmp_path: Path) -> None:
    viewer = _load(
        tmp_path,
        environ={"MCBOT_VIEWER__PORT": "3100", "MCBOT_VIEWER__ENABLED": "false", "MCBOT_VIEWER__VIEW_DISTANCE": "12"},
    ).viewer
    assert (viewer.port, viewer.enabled, viewer.view_distance) == (3100, False, 12)
