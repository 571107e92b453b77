"""The parser classes every `mcbot` (sub)command is built from: invalid arguments exit 4, and
the global options (`--config`, `--log-level`) are taken before or after a command's name."""

from __future__ import annotations

import argparse
import sys
from typing import Any, NoReturn

from bot.cli import values as val
from bot.cli.exit_codes import EXIT_INVALID


class ArgParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # invalid arguments exit 4, not argparse's 2
        # One line naming the flag and what it accepts; `mcbot --help` has the rest.
        print(f"mcbot: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_INVALID)


def add_global_options(p: argparse.ArgumentParser, default: Any = None) -> None:
    """The options every command takes, before or after its name (`mcbot run --config F`)."""
    p.add_argument("--config", metavar="PATH", default=default, help="config file (highest-priority layer)")
    p.add_argument(
        "--log-level",
        metavar="LEVEL",
        type=val.log_level,
        default=default,
        help=f"override logging.level ({', '.join(val.LOG_LEVELS)})",
    )


class SubParser(ArgParser):
    """A (sub)command's parser: it takes the global options too. Their default is SUPPRESS, so
    a command that is not given them keeps what was given before its name."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        add_global_options(self, default=argparse.SUPPRESS)
