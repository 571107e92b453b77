"""`mcbot config show`: the merged config and where each value came from."""

from __future__ import annotations

from typing import Any

from bot.cli.exit_codes import EXIT_OK
from bot.cli.parsers import SubParser


def add_config_commands(sub: Any) -> None:
    cfg = sub.add_parser("config", help="inspect configuration")
    cfg_sub = cfg.add_subparsers(dest="config_command", required=True, parser_class=SubParser)
    cfg_sub.add_parser("show", help="print the merged config and where each value came from")


def cmd_config(args: Any, _cfg: Any, loaded: Any) -> int:
    from bot.config.loader import render_config_show

    print(render_config_show(loaded))
    return EXIT_OK
