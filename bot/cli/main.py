"""`mcbot` command line. Exit codes: 0 ok, 1 failure, 3 initialization failure (server
unreachable, node missing, bridge dead at start), 4 invalid arguments or config,
5 schema validation failure."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from loguru import logger

from bot.cli.bench import add_bench_commands, cmd_bench
from bot.cli.config import add_config_commands, cmd_config
from bot.cli.exit_codes import EXIT_INVALID, EXIT_OK, KNOWN_ERRORS, exit_code_for
from bot.cli.live import add_live_commands, cmd_doctor, cmd_record, cmd_run, cmd_server, cmd_snapshot
from bot.cli.parsers import ArgParser, SubParser, add_global_options

if TYPE_CHECKING:  # the config loads only when a command runs (`--help` stays fast)
    from bot.config.loader import McbotConfig


def build_parser() -> argparse.ArgumentParser:
    p = ArgParser(prog="mcbot", description="A daemon that lives in a Minecraft world through a Mineflayer bot.")
    add_global_options(p)
    sub = p.add_subparsers(dest="command", required=True, parser_class=SubParser)

    # The order of these calls is the order `mcbot --help` lists the commands in.
    add_live_commands(sub)
    add_config_commands(sub)

    from bot.cli.agent import add_agent_commands
    from bot.cli.agents import add_agents_commands
    from bot.cli.eval import add_eval_commands
    from bot.cli.goal import add_goal_commands
    from bot.cli.llm import add_llm_commands
    from bot.cli.mcp import add_mcp_command
    from bot.cli.plan import add_plan_command
    from bot.cli.world import add_world_commands

    add_goal_commands(sub)
    add_mcp_command(sub)
    add_agents_commands(sub)
    add_agent_commands(sub)
    add_eval_commands(sub)
    add_world_commands(sub)
    add_plan_command(sub)
    add_llm_commands(sub)
    add_bench_commands(sub)
    return p


def _install_signal_handlers() -> None:
    def stop(signum: int, _frame: Any) -> None:
        raise SystemExit(128 + signum if signum != signal.SIGTERM else EXIT_OK)

    def interrupt(_signum: int, _frame: Any) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)
    # Installed explicitly: a process started in the background inherits SIGINT ignored.
    signal.signal(signal.SIGINT, interrupt)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from bot.config.loader import ConfigError, load_config

    try:
        loaded = load_config(explicit=args.config)
    except ConfigError as e:
        print(f"mcbot: {e}", file=sys.stderr)
        return EXIT_INVALID
    cfg = loaded.config
    from bot.runtime.logs import setup_logging

    level = args.log_level or cfg.logging.level
    client = args.command in CLIENT_COMMANDS
    setup_logging(level, None if client else cfg.logging.file, cfg.logging.rotation, cfg.logging.retention)
    if client:
        quiet_libraries(level)
    _install_signal_handlers()
    handler: Callable[[Any, Any, Any], int] = COMMANDS[args.command]
    try:
        return handler(args, cfg, loaded)
    except KeyboardInterrupt:
        logger.info("interrupted")
        return EXIT_OK
    except KNOWN_ERRORS as e:  # the error tree, mapped to exit codes by bot/cli/exit_codes.py
        print(f"mcbot: {e}", file=sys.stderr)
        return exit_code_for(e)


def quiet_libraries(level: str) -> None:
    """A client command's output is its answer: the libraries' stdlib loggers (httpx's line per
    request, the MCP SDK's per call, uvicorn's start-up) pass only their warnings, unless the
    level asked for is DEBUG or TRACE. mcbot's own lines keep `level`."""
    if level.upper() not in ("TRACE", "DEBUG"):
        logging.getLogger().setLevel(logging.WARNING)


def _agents(args: Any, cfg: McbotConfig, loaded: Any) -> int:
    from bot.cli.agents import cmd_agents

    return cmd_agents(args, cfg, loaded)


def _agent(args: Any, cfg: McbotConfig, loaded: Any) -> int:
    from bot.cli.agent import cmd_agent

    return cmd_agent(args, cfg, loaded)


def _goal_command(name: str) -> Callable[[Any, Any, Any], int]:
    def run(args: Any, cfg: McbotConfig, loaded: Any) -> int:
        from bot.cli import goal as goal_cli

        return getattr(goal_cli, f"cmd_{name}")(args, cfg, loaded)

    return run


def _mcp(args: Any, cfg: McbotConfig, loaded: Any) -> int:
    from bot.cli.mcp import cmd_mcp

    return cmd_mcp(args, cfg, loaded)


def _world(args: Any, cfg: McbotConfig, loaded: Any) -> int:
    from bot.cli.world import cmd_world

    return cmd_world(args, cfg, loaded)


def _llm(args: Any, cfg: McbotConfig, loaded: Any) -> int:
    from bot.cli.llm import cmd_llm

    return cmd_llm(args, cfg, loaded)


def _plan(args: Any, cfg: McbotConfig, loaded: Any) -> int:
    from bot.cli.plan import cmd_plan

    return cmd_plan(args, cfg, loaded)


def _eval(args: Any, cfg: McbotConfig, loaded: Any) -> int:
    from bot.cli.eval import cmd_eval

    return cmd_eval(args, cfg, loaded)


COMMANDS: dict[str, Callable[[Any, Any, Any], int]] = {
    "run": cmd_run,
    "server": cmd_server,
    "snapshot": cmd_snapshot,
    "record": cmd_record,
    "config": cmd_config,
    "doctor": cmd_doctor,
    "bench": cmd_bench,
    "agents": _agents,
    "agent": _agent,
    "eval": _eval,
    "goal": _goal_command("goal"),
    "tasks": _goal_command("tasks"),
    "task": _goal_command("task"),
    "mcp": _mcp,
    "world": _world,
    "llm": _llm,
    "plan": _plan,
}
# Commands that talk to a running daemon (or only read config): they write no log file, and the
# libraries log only their warnings (quiet_libraries).
CLIENT_COMMANDS = frozenset({"config", "goal", "tasks", "task", "mcp", "plan"})


if __name__ == "__main__":
    sys.exit(main())
