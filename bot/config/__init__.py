"""Configuration: layered TOML, `${VAR}` expansion, MCBOT_ overrides, validated by pydantic."""
