"""`mcbot agent run`: one LLM session with the bot's tools against the running world
(or none with --no-bot), printed as the AgentResult JSON (success, finalReport,
conversation, accounting, error). Exit codes: 0 success, 1 session failure, 3 init
failure (bot unreachable, MCP server failed to start), 4 invalid arguments/config,
5 schema validation failure. Never 0 when success is false.

Wiring in bot/cli/main.py: `add_agent_commands(sub)` in build_parser and
`COMMANDS["agent"] = cmd_agent`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli import values as val
from bot.cli.exit_codes import EXIT_INIT, EXIT_INVALID, EXIT_OK, EXIT_SCHEMA

if TYPE_CHECKING:  # the config loads only when a command runs (`--help` stays fast)
    from bot.config.loader import McbotConfig


def add_agent_commands(subparsers: Any) -> None:
    agent = subparsers.add_parser("agent", help="LLM sessions (the LLM runtime)")
    sub = agent.add_subparsers(dest="agent_command", required=True, parser_class=type(agent))
    run = sub.add_parser("run", help="run one LLM session and print the AgentResult as JSON")
    run.add_argument("--prompt", required=True, help="the task for the model")
    run.add_argument(
        "--format",
        choices=["json", "markdown", "text"],
        default=None,
        help="expected final report format (default markdown; json when --schema is given)",
    )
    run.add_argument("--schema", metavar="FILE", help="JSON Schema the json final report must satisfy")
    run.add_argument("--no-bot", action="store_true", help="no bot tools (no Minecraft connection)")
    run.add_argument("--system", help="system prompt (default: the built-in mcbot prompt)")
    run.add_argument("--host", help="server the bot joins (default: server.host)")
    run.add_argument("--port", type=val.port)


def cmd_agent(args: argparse.Namespace, cfg: McbotConfig, _loaded: Any) -> int:
    if args.agent_command == "run":
        return cmd_agent_run(args, cfg)
    print(f"mcbot: unknown agent command {args.agent_command!r}", file=sys.stderr)
    return EXIT_INVALID


def _error(msg: str, code: int) -> int:
    print(f"mcbot: {msg}", file=sys.stderr)
    return code


def _load_schema(path: str | None) -> tuple[dict[str, Any] | None, int]:
    if path is None:
        return None, EXIT_OK
    from jsonschema import Draft202012Validator, SchemaError

    try:
        schema = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        return None, _error(f"--schema {path}: {e}", EXIT_INVALID)
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as e:
        return None, _error(f"--schema {path}: not a valid JSON Schema: {e.message}", EXIT_SCHEMA)
    return schema, EXIT_OK


def cmd_agent_run(args: argparse.Namespace, cfg: McbotConfig) -> int:
    from agency.llm.errors import LlmConfigError

    settings = cfg.llm
    if not settings.configured:
        return _error("the LLM is not configured: add an [[llm.targets]] table to mcbot.toml", EXIT_INVALID)
    try:
        settings.validate_bindings()
    except LlmConfigError as e:
        return _error(str(e), EXIT_INVALID)
    schema, code = _load_schema(args.schema)
    if code:
        return code
    fmt = args.format or ("json" if schema is not None else "markdown")
    if schema is not None and fmt != "json":
        return _error("--schema needs --format json", EXIT_INVALID)
    if args.no_bot:
        return _run(settings, args, fmt, schema, bot_specs=[])
    return _run_with_bot(settings, args, fmt, schema, cfg)


def _run_with_bot(settings: Any, args: argparse.Namespace, fmt: str, schema: Any, cfg: McbotConfig) -> int:
    from agency.execution.builtin_tools import default_tool_registry
    from agency.llm.bot_tools import bot_tool_specs
    from agency.tools import ToolContext
    from bot.runtime.errors import InitError
    from bot.runtime.session import live_session

    try:
        # Never starts a server: the session acts in the world the bot is asked to join.
        with live_session(cfg, embedded=False, host=args.host, port=args.port) as s:
            specs = bot_tool_specs(default_tool_registry(), ToolContext(body=s.body), settings.bot_queue)
            return _run(settings, args, fmt, schema, bot_specs=specs)
    except InitError as e:
        return _error(f"cannot reach the bot: {e}", EXIT_INIT)


def _run(settings: Any, args: argparse.Namespace, fmt: str, schema: Any, bot_specs: list[Any]) -> int:
    from agency.llm.errors import LlmConfigError, ToolSetupError
    from agency.llm.result import exit_code

    try:
        result = asyncio.run(_session(settings, args, fmt, schema, bot_specs))
    except ToolSetupError as e:
        return _error(str(e), EXIT_INIT)
    except LlmConfigError as e:
        return _error(str(e), EXIT_INVALID)
    print(json.dumps(result.to_json(), ensure_ascii=False, indent=2))
    return exit_code(result)


async def _session(settings: Any, args: argparse.Namespace, fmt: str, schema: Any, bot_specs: list[Any]) -> Any:
    from agency.llm.mcp_tools import open_mcp_servers
    from agency.llm.session import DEFAULT_SYSTEM_PROMPT, run_session
    from agency.llm.toolbox import ToolBox

    async with open_mcp_servers(settings.mcp_servers) as mcp_specs:
        toolbox = ToolBox(
            bot_specs + mcp_specs,
            settings.effective_queues(),
            settings.tool_timeout_ms,
            settings.tool_response_max_bytes,
        )
        return await run_session(
            args.prompt,
            settings,
            system_prompt=args.system or DEFAULT_SYSTEM_PROMPT,
            toolbox=toolbox,
            expected_format=fmt,
            output_schema=schema,
        )
