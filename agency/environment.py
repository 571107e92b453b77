"""MCBOT_ENV: the one switch between production and development, read the same way by
everything that behaves differently in development (docs/contracts.md DEV-1).

Unset means production: a daemon started without thought is the safe one. Only
MCBOT_ENV=development (any case) turns the development behaviour on: the dev-only
convertEligible injection on POST /thoughts, and the task store's dropped-key warnings and
illegal-goal-state check. Any other value is production too, so a typo or a `staging`
never opens the injection bypass.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

ENV_VAR = "MCBOT_ENV"
DEVELOPMENT = "development"
PRODUCTION = "production"


def environment(env: Mapping[str, str] | str | None = None) -> str:
    """'development' or 'production'. env: a mapping holding MCBOT_ENV (default
    os.environ) or the variable's value itself."""
    if env is None:
        env = os.environ
    value = env if isinstance(env, str) else env.get(ENV_VAR)
    return DEVELOPMENT if (value or "").strip().lower() == DEVELOPMENT else PRODUCTION


def is_development(env: Mapping[str, str] | str | None = None) -> bool:
    return environment(env) == DEVELOPMENT
