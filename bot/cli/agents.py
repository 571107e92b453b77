"""`mcbot agents list|select`: the agent registry and a selection, from the shipped (or a
given) config directory. Wired into bot/cli/main.py with:

    from bot.cli.agents import add_agents_commands, cmd_agents
    add_agents_commands(sub)            # in build_parser(), `sub` = the top-level subparsers
    COMMANDS["agents"] = cmd_agents     # handler(args, cfg, loaded) -> exit code

Exit codes: 0 ok; 4 invalid profiles (config) or arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from bot.cli.exit_codes import EXIT_INVALID, EXIT_OK


def add_agents_commands(subparsers: Any) -> argparse.ArgumentParser:
    agents = subparsers.add_parser("agents", help="agent profiles: list them, or see which one a task selects")
    agents.add_argument(
        "--config-dir", metavar="DIR", help="directory holding agents/ and abilities/ (default: the shipped config/)"
    )
    sub = agents.add_subparsers(dest="agents_command", required=True, parser_class=type(agents))
    ls = sub.add_parser("list", help="registered agents")
    ls.add_argument("--json", action="store_true", help="print a JSON list")
    sel = sub.add_parser("select", help='rank agents for a task text, e.g. "craft wooden_pickaxe 1"')
    sel.add_argument("task", help="the task text")
    sel.add_argument(
        "--json", action="store_true", help='print [{"agentId": ..., "confidence": ...}] in selection order'
    )
    return agents


def cmd_agents(args: Any, _cfg: Any = None, _loaded: Any = None) -> int:
    from agency.execution.agents import ProfileValidationError, load_default_registry, select_agents

    try:
        registry = load_default_registry(getattr(args, "config_dir", None))
    except (ProfileValidationError, OSError, ValueError) as e:
        print(f"mcbot: {e}", file=sys.stderr)
        return EXIT_INVALID
    if args.agents_command == "list":
        rows: list[dict[str, Any]] = [
            {
                "agentId": p.id,
                "displayName": p.displayName,
                "enabled": p.enabled,
                "actions": sorted(p.workflows),
                "exampleTasks": p.exampleTasks,
                "notForTasks": p.notForTasks,
                "coreAbilities": p.coreAbilities,
                "description": p.description,
            }
            for p in registry.list()
        ]
        if args.json:
            print(json.dumps(rows, indent=2))
        else:
            for r in rows:
                state = "enabled " if r["enabled"] else "disabled"
                print(f"{r['agentId']:<12} {state} actions: {', '.join(r['actions']) or '-':<24} {r['description']}")
        return EXIT_OK
    ranked = select_agents(args.task, registry.list())
    if args.json:
        print(json.dumps([{"agentId": s.agentId, "confidence": s.confidence} for s in ranked]))
    else:
        for s in ranked:
            print(f"{s.agentId:<12} {s.confidence:.2f}  ({', '.join(s.reasons)})")
    return EXIT_OK
