"""argparse value types for every `mcbot` flag that takes a value.

Each raises ArgumentTypeError with the accepted values, so a bad value ends as one line
`mcbot: error: argument --FLAG: ...` and exit 4, never a traceback later on.
"""

from __future__ import annotations

import argparse
import math
import re

LOG_LEVELS = ("TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING", "ERROR", "CRITICAL")
_VERSION = re.compile(r"^1\.\d{1,2}(\.\d{1,2})?$")


def log_level(value: str) -> str:
    if value.upper() not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(f"{value!r} is not a log level; accepted: {', '.join(LOG_LEVELS)}")
    return value.upper()


def port(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if not 1 <= n <= 65535:
        raise argparse.ArgumentTypeError(f"{value!r} is not a TCP port; accepted: an integer 1..65535")
    return n


def positive_int(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not accepted; accepted: an integer >= 1")
    return n


def integer(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is not accepted; accepted: an integer") from None


def positive_float(value: str) -> float:
    try:
        x = float(value)
    except ValueError:
        x = math.nan
    if not (math.isfinite(x) and x > 0):
        raise argparse.ArgumentTypeError(f"{value!r} is not accepted; accepted: a number > 0")
    return x


def unit_interval(value: str) -> float:
    try:
        x = float(value)
    except ValueError:
        x = math.nan
    if not (math.isfinite(x) and 0 <= x <= 1):
        raise argparse.ArgumentTypeError(f"{value!r} is not accepted; accepted: a number 0..1")
    return x


def api_url(value: str) -> str:
    if not re.match(r"^https?://[^/\s]+/?$", value):
        raise argparse.ArgumentTypeError(f"{value!r} is not accepted; accepted: http://HOST:PORT")
    return value


def bot_version(value: str) -> str:
    """What the bot speaks: `auto` (ask the server) or a Minecraft version; whether
    mineflayer supports it is settled against the server later (exit 4 when pinned)."""
    if value != "auto" and not _VERSION.match(value):
        raise argparse.ArgumentTypeError(f"{value!r} is not accepted; accepted: auto or a version such as 1.21.4")
    return value


def embedded_version(value: str) -> str:
    from bot.config.loader import EMBEDDED_VERSIONS

    if value not in EMBEDDED_VERSIONS:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not an embedded version; accepted: {', '.join(EMBEDDED_VERSIONS)}"
        )
    return value


def embedded_versions(value: str) -> str:
    """A comma-separated list of embedded versions (kept as the string the caller splits)."""
    for v in value.split(","):
        embedded_version(v.strip())
    return value


def seed_list(value: str) -> str:
    """A comma-separated list of world seeds (integers), kept as the string the caller splits."""
    parts = [v.strip() for v in value.split(",")]
    if not all(re.fullmatch(r"-?\d{1,18}", v) for v in parts):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not accepted; accepted: integer seeds separated by commas, e.g. 1,2,3"
        )
    return value


def run_id(value: str) -> str:
    """A run directory NAME: no path separators, not `.`/`..`."""
    if not value or value in (".", "..") or "/" in value or "\\" in value:
        raise argparse.ArgumentTypeError(f"{value!r} is not accepted; accepted: a directory name without '/'")
    return value
