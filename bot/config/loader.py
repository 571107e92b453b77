"""Layered mcbot configuration: TOML layers -> `${VAR}` expansion -> MCBOT_ overrides -> pydantic.

Layers, highest precedence first (docs/contracts.md CONFIG-1):
  env `MCBOT_<SECTION>__<KEY>` > `--config PATH` > `./mcbot.toml` > `<profile>/mcbot.toml`
  > shipped `config/mcbot.toml` > `~/.config/mcbot/mcbot.toml` > `/etc/mcbot/mcbot.toml`.
Tables deep-merge per key; arrays and scalars are replaced whole.

Kept free of heavy imports (no javascript, no bridge, no agency stores) so the CLI can
validate config before anything else starts. The schema the layers are validated against
(`McbotConfig` and its sections; where to add one) is bot/config/schema.py; its names are
importable from here too.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import tomli_w
from dotenv import dotenv_values
from pydantic import BaseModel, ValidationError

from bot.config.schema import (
    AUTO_WORLD,
    EMBEDDED_VERSIONS,
    USERNAME,
    BotConfig,
    BotEntry,
    BridgeConfig,
    EmbeddedVersion,
    LoggingConfig,
    McbotConfig,
    ServerConfig,
    StorageConfig,
    auto_world_folder,
)

# Callers import the schema's names from here, beside the loader that validates against it.
__all__ = [
    "AUTO_WORLD",
    "CONFIG_NAME",
    "DEFAULT_SOURCE",
    "EMBEDDED_VERSIONS",
    "ENV_PREFIX",
    "PROTECTED_KEYS",
    "SHIPPED_CONFIG_DIR",
    "USERNAME",
    "BotConfig",
    "BotEntry",
    "BridgeConfig",
    "ConfigError",
    "EmbeddedVersion",
    "LoadedConfig",
    "LoggingConfig",
    "McbotConfig",
    "ServerConfig",
    "StorageConfig",
    "auto_world_folder",
    "expand_vars",
    "load_config",
    "render_config_show",
]

CONFIG_NAME = "mcbot.toml"
ENV_PREFIX = "MCBOT_"
DEFAULT_SOURCE = "default"
SHIPPED_CONFIG_DIR = Path(__file__).resolve().parents[2] / "config"

# Values handed verbatim to child processes, which expand them in their own environment.
PROTECTED_KEYS = ("llm.mcp_servers.*.env", "llm.mcp_servers.*.headers")

_VAR = re.compile(r"\$(\$?)\{([A-Za-z_][A-Za-z0-9_]*)\}")


class ConfigError(Exception):
    """Invalid or unloadable configuration; the CLI exits with `exit_code`."""

    exit_code = 4


# --------------------------------------------------------------------------- loading


@dataclass(frozen=True)
class LoadedConfig:
    config: McbotConfig
    sources: dict[str, str]  # dotted leaf key -> file path, "env:MCBOT_...", or "default"
    layers: list[str] = field(default_factory=list)  # files actually read, highest first


def load_config(
    explicit: str | os.PathLike[str] | None = None,
    cwd: str | os.PathLike[str] | None = None,
    profile_dir: str | os.PathLike[str] | None = None,
    home: str | os.PathLike[str] | None = None,
    etc_dir: str | os.PathLike[str] | None = None,
    project_dir: str | os.PathLike[str] | None = None,
    environ: Mapping[str, str] | None = None,
) -> LoadedConfig:
    """Merge every layer, validate, and record where each leaf came from.

    `home` is the user's home directory; `etc_dir` and `project_dir` are directories that
    hold an mcbot.toml (defaults /etc/mcbot and the repo's config/). Raises ConfigError.
    """
    env = os.environ if environ is None else environ
    cwd_p = Path.cwd() if cwd is None else Path(cwd)
    candidates: list[Path] = []  # highest precedence first
    if explicit is not None:
        path = cwd_p / Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"--config {explicit}: file not found")
        candidates.append(path)
    candidates.append(cwd_p / CONFIG_NAME)
    if profile_dir is not None:
        candidates.append(Path(profile_dir) / CONFIG_NAME)
    candidates.append(Path(project_dir if project_dir is not None else SHIPPED_CONFIG_DIR) / CONFIG_NAME)
    candidates.append(Path(home if home is not None else Path.home()) / ".config" / "mcbot" / CONFIG_NAME)
    candidates.append(Path(etc_dir if etc_dir is not None else "/etc/mcbot") / CONFIG_NAME)

    layers: list[Path] = []
    for path in candidates:  # the same file reached twice (profile dir == cwd) counts once
        if path.is_file() and path.resolve() not in {p.resolve() for p in layers}:
            layers.append(path)

    merged: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for path in reversed(layers):  # lowest first so higher layers overwrite
        _merge(merged, sources, _read_layer(path, env), str(path))
    for key, value, var in _env_overrides(env):
        _merge(merged, sources, _nest(key, value), f"env:{var}")

    try:
        config = McbotConfig.model_validate(merged)
    except ValidationError as e:
        raise ConfigError(_explain(e, sources)) from None
    for key in _flatten(config.model_dump()):
        sources.setdefault(key, DEFAULT_SOURCE)
    return LoadedConfig(config=config, sources=sources, layers=[str(p) for p in layers])


def _read_layer(path: Path, environ: Mapping[str, str]) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: {e}") from None
    dotenv_path = path.parent / ".env"
    # interpolate=False: the .env must not read os.environ behind an injected `environ`.
    local = dotenv_values(dotenv_path, interpolate=False) if dotenv_path.is_file() else {}
    return expand_vars(data, local, environ, layer=str(path))


def expand_vars(
    data: Any, local: Mapping[str, str | None], environ: Mapping[str, str], layer: str, key: str = ""
) -> Any:
    """Expand `${VAR}` in strings from `local` (the layer's .env) then `environ`.

    `$${VAR}` yields a literal `${VAR}`. A missing variable is an error, never "".
    """
    if any(_protected(key, pattern) for pattern in PROTECTED_KEYS):
        return data
    if isinstance(data, dict):
        return {k: expand_vars(v, local, environ, layer, f"{key}.{k}" if key else k) for k, v in data.items()}
    if isinstance(data, list):
        return [expand_vars(v, local, environ, layer, f"{key}[{i}]") for i, v in enumerate(data)]
    if not isinstance(data, str):
        return data

    def sub(m: re.Match[str]) -> str:
        escaped, name = m.groups()
        if escaped:
            return "${" + name + "}"
        value = local.get(name)
        if value is None:
            value = environ.get(name)
        if value is None:
            raise ConfigError(f"{layer}: {key}: missing variable ${{{name}}} (not in its .env or the environment)")
        return value

    return _VAR.sub(sub, data)


def _protected(key: str, pattern: str) -> bool:
    """True if dotted `key` is at or under `pattern` (`*` matches one segment)."""
    parts, pat = key.split("."), pattern.split(".")
    return len(parts) >= len(pat) and all(fnmatchcase(p, q) for p, q in zip(parts, pat, strict=False))


def _env_overrides(environ: Mapping[str, str]) -> list[tuple[str, Any, str]]:
    """MCBOT_A__B=v -> ("a.b", parsed v, var). Vars without `__` (MCBOT_ENV) are not config."""
    out = []
    for var, raw in sorted(environ.items()):
        if not var.upper().startswith(ENV_PREFIX) or "__" not in var:
            continue
        parts = var[len(ENV_PREFIX) :].lower().split("__")
        if not all(parts):
            raise ConfigError(f"env:{var}: empty key segment")
        out.append((".".join(parts), _parse_env_value(raw, parts), var))
    return out


def _parse_env_value(raw: str, path: list[str]) -> Any:
    """A TOML scalar/array if `raw` parses as one, else the raw string.

    String fields keep the raw text unless it was quoted, so MCBOT_SERVER__VERSION=1.18
    stays "1.18" instead of becoming the float 1.18.
    """
    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw
    if _is_str_field(path) and not isinstance(value, str):
        return raw
    return value


def _is_str_field(path: list[str]) -> bool:
    model: Any = McbotConfig
    for part in path:
        if not (isinstance(model, type) and issubclass(model, BaseModel)) or part not in model.model_fields:
            return False
        model = model.model_fields[part].annotation
    # a Literal of strings is one too: MCBOT_SERVER__EMBEDDED_VERSION=26.1 is "26.1", not 26.1
    return model is str or (get_origin(model) is Literal and all(isinstance(a, str) for a in get_args(model)))


def _nest(dotted: str, value: Any) -> dict[str, Any]:
    for part in reversed(dotted.split(".")):
        value = {part: value}
    return value


def _merge(
    base: dict[str, Any], sources: dict[str, str], over: Mapping[str, Any], source: str, prefix: str = ""
) -> None:
    """Deep-merge `over` into `base` in place; tables merge, anything else replaces."""
    for k, v in over.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], sources, v, source, key + ".")
            continue
        for stale in [s for s in sources if s == key or s.startswith(key + ".")]:
            del sources[stale]
        base[k] = v
        for leaf in _flatten(v, key) if isinstance(v, dict) else [key]:
            sources[leaf] = source


def _flatten(data: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """{"a": {"b": 1}} -> {"a.b": 1}; arrays are leaves."""
    out: dict[str, Any] = {}
    for k, v in data.items():
        key = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict) and v:
            out.update(_flatten(v, key))
        else:
            out[key] = v
    return out


def _explain(error: ValidationError, sources: Mapping[str, str]) -> str:
    """One line per bad key: `dotted.key: message (from <layers>)`."""
    leaves = _flatten(McbotConfig().model_dump())
    problems: dict[str, list[str]] = {}
    for err in error.errors():
        loc = [str(p) for p in err["loc"]]
        # Union members append their type (logging.retention.int): report the field itself.
        key = next((".".join(loc[:n]) for n in range(1, len(loc)) if ".".join(loc[:n]) in leaves), ".".join(loc))
        problems.setdefault(key, []).append(err["msg"])
    lines = ["invalid config:"]
    for key, msgs in problems.items():
        text = "; ".join(dict.fromkeys(msgs))
        # The key's own layer(s), plus those of keys the message names (min/max checks).
        layers = {s for k, s in sources.items() if k == key or k.startswith(key + ".") or k in text}
        origin = f" (from {', '.join(sorted(layers))})" if layers else ""
        lines.append(f"  {key}: {text}{origin}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- show


def render_config_show(loaded: LoadedConfig) -> str:
    """`mcbot config show`: every merged leaf as `key = value    # from <layer>`."""
    leaves = _flatten(loaded.config.model_dump())
    rows = [(f"{k} = {_toml_value(v)}", loaded.sources.get(k, DEFAULT_SOURCE)) for k, v in leaves.items()]
    width = max(len(r[0]) for r in rows)
    return "\n".join(f"{text.ljust(width)}    # from {src}" for text, src in rows) + "\n"


def _toml_value(value: Any) -> str:
    if value is None:
        return "(unset)"  # TOML has no null; the key is simply absent from the files
    text = tomli_w.dumps({"v": value})
    # Scalars and plain arrays dump as `v = ...`; tables would not, so show them as Python.
    return text[4:].strip() if text.startswith("v = ") else repr(value)
