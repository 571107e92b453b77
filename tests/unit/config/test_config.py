"""Layered config: precedence, merge, ${VAR} expansion, MCBOT_ overrides, validation, provenance."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from bot.config.loader import (
    SHIPPED_CONFIG_DIR,
    ConfigError,
    McbotConfig,
    ServerConfig,
    _flatten,
    _merge,
    _parse_env_value,
    expand_vars,
    load_config,
    render_config_show,
)
from bot.runtime.server import settings_from_config


class Layers:
    """Six isolated layer locations under tmp_path; `load()` never sees the real machine."""

    def __init__(self, root: Path) -> None:
        self.explicit = root / "explicit" / "custom.toml"
        self.cwd = root / "cwd"
        self.profile = root / "profile"
        self.project = root / "project"
        self.home = root / "home"
        self.etc = root / "etc"
        for d in (self.explicit.parent, self.cwd, self.profile, self.project, self.home, self.etc):
            d.mkdir(parents=True)

    def file(self, name: str) -> Path:
        return {
            "explicit": self.explicit,
            "cwd": self.cwd / "mcbot.toml",
            "profile": self.profile / "mcbot.toml",
            "project": self.project / "mcbot.toml",
            "home": self.home / ".config" / "mcbot" / "mcbot.toml",
            "etc": self.etc / "mcbot.toml",
        }[name]

    def write(self, name: str, text: str, dotenv: str | None = None) -> Path:
        path = self.file(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if dotenv is not None:
            (path.parent / ".env").write_text(dotenv)
        return path

    def load(self, environ: dict[str, str] | None = None, explicit: bool = False):
        return load_config(
            explicit=self.explicit if explicit else None,
            cwd=self.cwd,
            profile_dir=self.profile,
            home=self.home,
            etc_dir=self.etc,
            project_dir=self.project,
            environ=environ or {},
        )


@pytest.fixture
def layers(tmp_path: Path) -> Layers:
    return Layers(tmp_path)


ORDER = ["explicit", "cwd", "profile", "project", "home", "etc"]  # highest first


# --------------------------------------------------------------------------- layering


def test_no_files_gives_model_defaults(layers: Layers) -> None:
    loaded = layers.load()
    assert loaded.config == McbotConfig()
    assert loaded.layers == []
    assert set(loaded.sources.values()) == {"default"}


def test_six_layers_highest_present_wins(layers: Layers) -> None:
    for seed, name in enumerate(ORDER, start=1):
        layers.write(name, f"[server]\nseed = {seed}\n")
    for seed, name in enumerate(ORDER, start=1):
        loaded = layers.load(explicit=layers.explicit.exists())
        assert loaded.config.server.seed == seed, name
        assert loaded.sources["server.seed"] == str(layers.file(name))
        layers.file(name).unlink()  # peel the top layer off; the next one must show through


def test_every_layer_contributes_its_own_keys(layers: Layers) -> None:
    keys = {
        "explicit": ("hostile_cap", 2),
        "cwd": ("seed", 3),
        "profile": ("port", 4),
        "project": ("tree_density", 0.5),
        "home": ("hunger_rate", 6.0),
        "etc": ("day_length_scale", 7.0),
    }
    for name, (key, value) in keys.items():
        layers.write(name, f"[server]\n{key} = {value}\n")
    loaded = layers.load(explicit=True)
    assert loaded.layers == [str(layers.file(n)) for n in ORDER]
    for name, (key, value) in keys.items():
        assert getattr(loaded.config.server, key) == value
        assert loaded.sources[f"server.{key}"] == str(layers.file(name))


def test_deep_merge_keeps_lower_keys_in_same_table(layers: Layers) -> None:
    layers.write("etc", '[server]\nhost = "mc.example.net"\nport = 25570\n[bot]\nusername = "etcbot"\n')
    layers.write("cwd", "[server]\nport = 25580\n")
    cfg = layers.load().config
    assert cfg.server.host == "mc.example.net"
    assert cfg.server.port == 25580
    assert cfg.bot.username == "etcbot"


def test_arrays_are_replaced_not_merged() -> None:
    base: dict = {}
    sources: dict[str, str] = {}
    _merge(base, sources, {"a": {"xs": [1, 2, 3], "t": {"k": 1}}}, "low")
    _merge(base, sources, {"a": {"xs": [9], "t": {"j": 2}}}, "high")
    assert base == {"a": {"xs": [9], "t": {"k": 1, "j": 2}}}
    assert sources == {"a.xs": "high", "a.t.k": "low", "a.t.j": "high"}


def test_scalar_replacing_table_drops_stale_sources() -> None:
    base: dict = {}
    sources: dict[str, str] = {}
    _merge(base, sources, {"a": {"t": {"k": 1}}}, "low")
    _merge(base, sources, {"a": {"t": 5}}, "high")
    assert base == {"a": {"t": 5}}
    assert sources == {"a.t": "high"}


def test_explicit_config_must_exist(layers: Layers) -> None:
    with pytest.raises(ConfigError, match=r"custom.toml"):
        layers.load(explicit=True)


def test_relative_explicit_path_is_relative_to_cwd(layers: Layers) -> None:
    (layers.cwd / "alt.toml").write_text("[server]\nseed = 42\n")
    loaded = load_config(
        explicit="alt.toml",
        cwd=layers.cwd,
        home=layers.home,
        etc_dir=layers.etc,
        project_dir=layers.project,
        environ={},
    )
    assert loaded.config.server.seed == 42


def test_same_file_reached_twice_is_one_layer(layers: Layers) -> None:
    path = layers.write("cwd", "[server]\nseed = 7\n")
    loaded = load_config(
        cwd=layers.cwd,
        profile_dir=layers.cwd,
        home=layers.home,
        etc_dir=layers.etc,
        project_dir=layers.project,
        environ={},
    )
    assert loaded.layers == [str(path)]


def test_toml_syntax_error_names_file(layers: Layers) -> None:
    path = layers.write("profile", "[server\nport = 1\n")
    with pytest.raises(ConfigError, match=str(path)):
        layers.load()


# --------------------------------------------------------------------------- ${VAR}


def test_var_from_layer_dotenv_beats_environ(layers: Layers) -> None:
    layers.write("cwd", '[server]\nhost = "${MC_HOST}"\n', dotenv="MC_HOST=from-dotenv\n")
    assert layers.load({"MC_HOST": "from-environ"}).config.server.host == "from-dotenv"


def test_var_falls_back_to_environ_and_embeds_in_text(layers: Layers) -> None:
    layers.write("cwd", '[server]\nhost = "mc-${REGION}.example.net"\nport = "${PORT}"\n')
    cfg = layers.load({"REGION": "eu", "PORT": "25570"}).config
    assert cfg.server.host == "mc-eu.example.net"
    assert cfg.server.port == 25570


def test_missing_var_names_layer_and_key(layers: Layers) -> None:
    path = layers.write("home", '[bot]\nusername = "${BOT_NAME}"\n')
    with pytest.raises(ConfigError) as exc:
        layers.load()
    msg = str(exc.value)
    assert str(path) in msg and "bot.username" in msg and "BOT_NAME" in msg


def test_another_layers_dotenv_is_not_used(layers: Layers) -> None:
    layers.write("etc", "[server]\nseed = 1\n", dotenv="BOT_NAME=etcbot\n")
    layers.write("cwd", '[bot]\nusername = "${BOT_NAME}"\n')
    with pytest.raises(ConfigError, match="BOT_NAME"):
        layers.load()


def test_empty_dotenv_value_is_used_not_missing(layers: Layers) -> None:
    layers.write("cwd", '[server]\nhost = "${MC_HOST}"\n', dotenv="MC_HOST=\n")
    assert layers.load({"MC_HOST": "from-environ"}).config.server.host == ""


def test_dotenv_values_are_literal(layers: Layers) -> None:
    # No second expansion inside .env: the result must not depend on the real os.environ.
    layers.write("cwd", '[server]\nhost = "${MC_HOST}"\n', dotenv="MC_HOST=${HOME}-x\n")
    assert layers.load().config.server.host == "${HOME}-x"


def test_double_dollar_escapes(layers: Layers) -> None:
    layers.write("cwd", '[server]\nworld_folder = "$${NOT_A_VAR}/w"\n')
    assert layers.load().config.server.world_folder == "${NOT_A_VAR}/w"


def test_vars_expand_inside_arrays() -> None:
    out = expand_vars({"a": {"xs": ["${X}", 1]}}, {}, {"X": "x"}, layer="L")
    assert out == {"a": {"xs": ["x", 1]}}
    with pytest.raises(ConfigError, match=r"L: a\.xs\[1\]: missing variable \$\{Y\}"):
        expand_vars({"a": {"xs": ["ok", "${Y}"]}}, {}, {}, layer="L")


def test_protected_keys_are_not_expanded() -> None:
    data = {
        "llm": {
            "mcp_servers": {
                "fs": {
                    "command": "${CMD}",
                    "env": {"TOKEN": "${SECRET}"},
                    "headers": {"Authorization": "Bearer ${API_KEY}"},
                }
            }
        }
    }
    out = expand_vars(data, {}, {"CMD": "npx"}, layer="L")  # SECRET/API_KEY unset: no error either
    fs = out["llm"]["mcp_servers"]["fs"]
    assert fs["command"] == "npx"
    assert fs["env"] == {"TOKEN": "${SECRET}"}
    assert fs["headers"] == {"Authorization": "Bearer ${API_KEY}"}


# --------------------------------------------------------------------------- MCBOT_ env overrides


def test_env_override_beats_explicit_config(layers: Layers) -> None:
    layers.write("explicit", "[server]\nport = 25570\n")
    loaded = layers.load({"MCBOT_SERVER__PORT": "25599"}, explicit=True)
    assert loaded.config.server.port == 25599
    assert loaded.sources["server.port"] == "env:MCBOT_SERVER__PORT"


def test_env_override_key_is_case_insensitive(layers: Layers) -> None:
    cfg = layers.load({"MCBOT_Bot__Hostile_Radius": "20"}).config
    assert cfg.bot.hostile_radius == 20


def test_env_override_types_reach_the_model(layers: Layers) -> None:
    cfg = layers.load(
        {
            "MCBOT_SERVER__TREE_DENSITY": "0.5",
            "MCBOT_SERVER__HOSTILES": "false",
            "MCBOT_SERVER__HOST": "play.example.net",  # not TOML: raw string
            "MCBOT_SERVER__VERSION": "1.18",  # TOML float, but the field is a string
            "MCBOT_BOT__USERNAME": '"quoted_bot"',
            "MCBOT_LOGGING__RETENTION": "7 days",
        }
    ).config
    assert cfg.server.tree_density == 0.5
    assert cfg.server.hostiles is False
    assert cfg.server.host == "play.example.net"
    assert cfg.server.version == "1.18"
    assert cfg.bot.username == "quoted_bot"
    assert cfg.logging.retention == "7 days"


@pytest.mark.parametrize(
    ("raw", "path", "expected"),
    [
        ("25570", ["server", "port"], 25570),
        ("0.5", ["server", "tree_density"], 0.5),
        ("true", ["server", "hostiles"], True),
        ('"x y"', ["server", "host"], "x y"),
        ("[1, 2]", ["some", "list"], [1, 2]),
        ("plain words", ["server", "host"], "plain words"),
        ("1.18", ["server", "version"], "1.18"),
        ("26.1", ["server", "embedded_version"], "26.1"),  # a Literal of strings is a string field
        ("1.18", ["unknown", "key"], 1.18),
        ("5", ["logging", "retention"], 5),  # int | str is not a plain string field
    ],
)
def test_env_value_parsing(raw: str, path: list[str], expected: object) -> None:
    value = _parse_env_value(raw, path)
    assert value == expected and type(value) is type(expected)


def test_single_level_mcbot_vars_are_not_config(layers: Layers) -> None:
    loaded = layers.load({"MCBOT_ENV": "production", "MCBOT_CONFIG": "/nowhere", "OTHER__X": "1"})
    assert loaded.config == McbotConfig()


def test_env_override_of_unknown_key_is_an_error(layers: Layers) -> None:
    with pytest.raises(ConfigError) as exc:
        layers.load({"MCBOT_SERVER__PROT": "1"})
    assert "server.prot: Extra inputs are not permitted" in str(exc.value)
    assert "env:MCBOT_SERVER__PROT" in str(exc.value)


def test_env_override_with_empty_segment_is_an_error(layers: Layers) -> None:
    with pytest.raises(ConfigError, match="MCBOT_SERVER____PORT"):
        layers.load({"MCBOT_SERVER____PORT": "1"})


# --------------------------------------------------------------------------- validation


def test_invalid_value_names_field_and_layer(layers: Layers) -> None:
    path = layers.write("profile", "[server]\nport = 70000\n")
    with pytest.raises(ConfigError) as exc:
        layers.load()
    msg = str(exc.value)
    assert "server.port: Input should be less than or equal to 65535" in msg
    assert str(path) in msg
    assert exc.value.exit_code == 4


@pytest.mark.parametrize(
    ("toml", "field"),
    [
        ("[server]\nprot = 1\n", "server.prot"),
        ("[servr]\nport = 1\n", "servr"),
        ('[server]\nversion = "1.18.x"\n', "server.version"),
        ('[server]\nembedded_version = "auto"\n', "server.embedded_version"),
        ("[server]\ntree_density = 1.5\n", "server.tree_density"),
        ("[server]\nday_length_scale = 0\n", "server.day_length_scale"),
        ('[server]\nhostiles = ["zombie", "ghast"]\n', "server.hostiles"),
        ("[server]\nanimal_cap = -1\n", "server.animal_cap"),
        ('[bot]\nusername = "no spaces"\n', "bot.username"),
        ('[bot]\nusername = "ab"\n', "bot.username"),
        ('[bot]\nauth = "mojang"\n', "bot.auth"),
        ("[bot]\nreconnect_min_s = 90.0\n", "bot.reconnect_max_s"),
        ('[logging]\nlevel = "LOUD"\n', "logging.level"),
    ],
)
def test_invalid_config_is_rejected_with_field_path(layers: Layers, toml: str, field: str) -> None:
    path = layers.write("cwd", toml)
    with pytest.raises(ConfigError) as exc:
        layers.load()
    assert f"{field}:" in str(exc.value)
    assert str(path) in str(exc.value)


def test_hostile_kinds_and_animals_reach_the_embedded_world(layers: Layers) -> None:
    layers.write("cwd", '[server]\nhostiles = ["zombie", "spider"]\nanimals = false\nanimal_cap = 4\n')
    cfg = layers.load({"MCBOT_SERVER__HOSTILE_CAP": "3"}).config
    sent = json.loads(settings_from_config(cfg.server).to_json())
    assert (sent["hostiles"], sent["hostileCap"], sent["animals"], sent["animalCap"]) == (
        ["zombie", "spider"],
        3,
        False,
        4,
    )
    assert layers.load({"MCBOT_SERVER__HOSTILES": '["creeper"]'}).config.server.hostiles == ["creeper"]


def test_the_view_distance_reaches_the_embedded_world_and_is_bounded(layers: Layers) -> None:
    layers.write("cwd", "[server]\nview_distance = 4\n")
    assert json.loads(settings_from_config(layers.load().config.server).to_json())["viewDistance"] == 4
    layers.write("cwd", "[server]\nview_distance = 40\n")
    with pytest.raises(ConfigError, match=r"server\.view_distance:"):
        layers.load()


def test_the_embedded_world_is_kept_beside_the_database_by_default(layers: Layers, tmp_path: Path) -> None:
    db = tmp_path / "data" / "mcbot.db"
    cfg = layers.load({"MCBOT_STORAGE__DB_PATH": str(db), "MCBOT_SERVER__SEED": "42"}).config.server
    assert cfg.world_folder == str(tmp_path / "data" / "worlds" / f"{cfg.embedded_version}-seed42")
    assert json.loads(settings_from_config(cfg).to_json())["worldFolder"] == cfg.world_folder
    # a version or a seed of its own is a world of its own (a save is of one version)
    other = layers.load({"MCBOT_STORAGE__DB_PATH": str(db), "MCBOT_SERVER__EMBEDDED_VERSION": "1.18.2"})
    assert other.config.server.world_folder == str(tmp_path / "data" / "worlds" / "1.18.2-seed1337")
    # "" keeps it in memory; a relative path is the user's, made absolute (the world runs in node/)
    assert (
        json.loads(settings_from_config(layers.load({"MCBOT_SERVER__WORLD_FOLDER": ""}).config.server).to_json())[
            "worldFolder"
        ]
        is None
    )
    mine = layers.load({"MCBOT_SERVER__WORLD_FOLDER": "my-world"}).config.server
    assert json.loads(settings_from_config(mine).to_json())["worldFolder"] == str(Path("my-world").resolve())


def test_the_terrain_reaches_the_embedded_world_and_an_unknown_one_is_refused(layers: Layers) -> None:
    assert json.loads(settings_from_config(layers.load().config.server).to_json())["terrain"] == "plains"
    caves = layers.load({"MCBOT_SERVER__TERRAIN": "caves"}).config.server
    assert json.loads(settings_from_config(caves).to_json())["terrain"] == "caves"
    with pytest.raises(ConfigError, match=r"server\.terrain:"):
        layers.load({"MCBOT_SERVER__TERRAIN": "mountains"})


def test_cross_field_error_names_both_layers(layers: Layers) -> None:
    path = layers.write("cwd", "[bot]\nreconnect_max_s = 10.0\n")
    with pytest.raises(ConfigError) as exc:
        layers.load({"MCBOT_BOT__RECONNECT_MIN_S": "20"})
    line = next(x for x in str(exc.value).splitlines() if "bot.reconnect_max_s:" in x)
    assert str(path) in line and "env:MCBOT_BOT__RECONNECT_MIN_S" in line


def test_union_field_error_is_reported_once_at_the_field(layers: Layers) -> None:
    with pytest.raises(ConfigError) as exc:
        layers.load({"MCBOT_LOGGING__RETENTION": "[1]"})
    msg = str(exc.value)
    assert "logging.retention: " in msg and "retention.int" not in msg
    assert msg.count("logging.retention") == 1


def test_valid_edge_values_are_accepted(layers: Layers) -> None:
    layers.write(
        "cwd",
        '[server]\nversion = "1.20"\nport = 65535\n[bot]\nusername = "Bot_123"\n'
        'reconnect_min_s = 60.0\n[logging]\nlevel = "debug"\n',
    )
    cfg = layers.load().config
    assert (cfg.server.version, cfg.server.port, cfg.bot.username) == ("1.20", 65535, "Bot_123")
    assert cfg.logging.level == "DEBUG"


@pytest.mark.parametrize(
    ("host", "embedded", "expected"),
    [("", None, True), ("mc.example.net", None, False), ("", False, False), ("mc.example.net", True, True)],
)
def test_use_embedded_resolution(host: str, embedded: bool | None, expected: bool) -> None:
    assert ServerConfig(host=host, embedded=embedded).use_embedded is expected


# --------------------------------------------------------------------------- provenance and show


def test_sources_and_render_show_provenance(layers: Layers) -> None:
    path = layers.write("cwd", '[server]\nhost = "mc.example.net"\n')
    loaded = layers.load({"MCBOT_SERVER__PORT": "25570"})
    assert loaded.sources["server.host"] == str(path)
    assert loaded.sources["server.port"] == "env:MCBOT_SERVER__PORT"
    assert loaded.sources["bot.username"] == "default"
    assert set(loaded.sources) == set(_flatten(McbotConfig().model_dump()))

    lines = {line.split(" = ")[0]: line for line in render_config_show(loaded).splitlines()}
    assert set(lines) == set(loaded.sources)
    assert lines["server.host"].split("#")[0].strip() == 'server.host = "mc.example.net"'
    assert lines["server.host"].endswith(f"# from {path}")
    assert lines["server.port"].split("#")[0].strip() == "server.port = 25570"
    assert lines["server.port"].endswith("# from env:MCBOT_SERVER__PORT")
    assert lines["server.hostiles"].split("#")[0].strip() == "server.hostiles = true"
    assert lines["bot.username"].endswith("# from default")


# --------------------------------------------------------------------------- shipped file


def test_shipped_config_loads_and_equals_model_defaults(layers: Layers) -> None:
    loaded = load_config(cwd=layers.cwd, home=layers.home, etc_dir=layers.etc, environ={})
    shipped = SHIPPED_CONFIG_DIR / "mcbot.toml"
    assert loaded.layers == [str(shipped)]
    assert loaded.config == McbotConfig()


def test_shipped_config_documents_every_default() -> None:
    shipped = _flatten(tomllib.loads((SHIPPED_CONFIG_DIR / "mcbot.toml").read_text()))
    # the declared defaults, before validation resolves server.world_folder's "auto" to a path
    defaults = {k: v for k, v in _flatten(McbotConfig.model_construct().model_dump()).items() if v is not None}
    assert shipped == defaults  # no key missing, none extra, and equal values


def test_config_module_imports_nothing_heavy() -> None:
    # Of agency, only the rooms' settings models (the sections' one schema) and what they import.
    code = (
        "import sys, bot.config.loader; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('javascript', 'fastapi', 'agency')))"
    )
    root = Path(__file__).resolve().parents[3]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True)
    light = [
        "agency",
        "agency.cognition",
        "agency.cognition.settings",
        "agency.errors",
        "agency.execution",
        "agency.execution.settings",
        "agency.llm",
        "agency.llm.errors",
        "agency.llm.messages",
        "agency.llm.settings",
        "agency.places",
        "agency.places.settings",
        "agency.stream",
        "agency.stream.settings",
    ]
    assert out.stdout.strip() == repr(light)
