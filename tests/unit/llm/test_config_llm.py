"""docs/contracts.md CONFIG-1..3 for [llm]: layered loading, deep merge, ${VAR} expansion,
protected keys, validation. The [llm] section is LlmSettings itself (McbotConfig's field
type)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agency.llm.settings import LlmSettings
from bot.config.loader import ConfigError, McbotConfig, load_config


@pytest.mark.parametrize(
    "bad",
    [
        {"max_turns": 0},
        {"targets": [{"provider": "gemini", "model": "x"}]},
        {"temperature": 3},
        {"surprise": 1},
        {"tool_transport": "json"},
    ],
)
def test_invalid_values_are_rejected(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        LlmSettings.model_validate(bad)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def _load(tmp: Path, environ: dict[str, str] | None = None):
    return load_config(
        explicit=None,
        cwd=tmp / "cwd",
        home=tmp / "home",
        etc_dir=tmp / "etc",
        project_dir=tmp / "project",
        environ=environ or {},
    )


def test_layers_deep_merge_llm_tables(tmp_path: Path) -> None:
    _write(
        tmp_path / "project" / "mcbot.toml",
        """
[llm]
max_turns = 5
[[llm.targets]]
provider = "ollama"
model = "qwen3:8b"
[llm.queues.web]
concurrent = 2
""",
    )
    _write(
        tmp_path / "cwd" / "mcbot.toml",
        """
[llm]
temperature = 0.6
[llm.queues.slow]
concurrent = 1
""",
    )
    cfg = _load(tmp_path).config.llm
    assert cfg.max_turns == 5 and cfg.temperature == 0.6
    assert set(cfg.queues) == {"web", "slow"}  # tables deep-merge
    settings = LlmSettings.model_validate(cfg.model_dump())
    assert settings.targets[0].url == "http://127.0.0.1:11434"
    assert settings.effective_queues() == {"web": 2, "slow": 1, "default": 1}


def test_api_key_placeholder_expands_from_layer_dotenv_then_environ(tmp_path: Path) -> None:
    _write(
        tmp_path / "cwd" / "mcbot.toml",
        """
[[llm.targets]]
provider = "openai"
model = "gpt-4o-mini"
api_key = "${OPENAI_API_KEY}"
[llm.mcp_servers.files]
command = "srv"
env = { TOKEN = "${CHILD_TOKEN}" }
""",
    )
    _write(tmp_path / "cwd" / ".env", "OPENAI_API_KEY=from-dotenv\n")
    cfg = _load(tmp_path, {"OPENAI_API_KEY": "from-env"}).config.llm
    assert cfg.targets[0].api_key == "from-dotenv"
    assert cfg.mcp_servers["files"].env == {"TOKEN": "${CHILD_TOKEN}"}  # protected: passed verbatim


def test_missing_variable_is_an_error_naming_the_layer(tmp_path: Path) -> None:
    _write(tmp_path / "cwd" / "mcbot.toml", '[[llm.targets]]\nprovider = "openai"\nmodel = "m"\napi_key = "${NOPE}"\n')
    with pytest.raises(ConfigError, match=r"mcbot.toml.*NOPE"):
        _load(tmp_path)


def test_invalid_llm_value_names_the_field(tmp_path: Path) -> None:
    _write(tmp_path / "cwd" / "mcbot.toml", "[llm]\nmax_retries = 0\n")
    with pytest.raises(ConfigError, match=r"llm.max_retries"):
        _load(tmp_path)


def test_absent_targets_means_not_configured() -> None:
    assert McbotConfig().llm == LlmSettings() and not McbotConfig().llm.configured
