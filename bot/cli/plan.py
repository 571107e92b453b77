"""`mcbot plan ITEM [N]`: the plan the bot would follow to obtain an item, without a daemon or
a world: what `obtain ITEM N` becomes (agency/execution/agents/obtain.py) and that goal's generated
workflow, one line a step, from empty hands or from `--have` items. Exit codes: 0 a plan,
1 refused (the reason: only in the nether, no source yet, no such item), 4 invalid arguments.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any, TextIO

from bot.cli import values as val
from bot.cli.exit_codes import EXIT_FAILURE, EXIT_INVALID, EXIT_OK

if TYPE_CHECKING:
    from bot.config.loader import McbotConfig


def add_plan_command(sub: Any) -> None:
    plan = sub.add_parser("plan", help="the steps the bot would take to obtain an item, e.g. mcbot plan compass")
    plan.add_argument("item", help="an item id, e.g. compass, iron_ingot, redstone")
    plan.add_argument("amount", nargs="?", type=val.positive_int, default=1, help="how many (default 1)")
    plan.add_argument(
        "--have", nargs="*", action="extend", default=[], metavar="ITEM=N", help="what the bot holds, e.g. oak_log=4"
    )
    plan.add_argument("--version", type=val.embedded_version, help="the Minecraft version (default: config)")
    plan.add_argument("--tree", action="store_true", help="the steps under what each is for (a tool, a smelt...)")


def cmd_plan(args: Any, cfg: McbotConfig, _loaded: Any, out: TextIO | None = None) -> int:
    from agency.execution.agents.obtain import Unobtainable
    from agency.game import mcdata
    from agency.goals.obtain_plan import plan_obtain, plan_tree, tree_lines

    out = out or sys.stdout
    have: dict[str, int] = {}
    for pair in args.have:
        name, _, n = pair.partition("=")
        if not name or not n.isdigit():
            print(f"mcbot: --have {pair!r}: give ITEM=N, e.g. oak_log=4", file=sys.stderr)
            return EXIT_INVALID
        have[name] = int(n)
    version = args.version or cfg.server.embedded_version
    mcdata.use_version(version)
    plan = plan_obtain(args.item.lower(), args.amount, have)
    if isinstance(plan, Unobtainable):
        print(f"mcbot: refused: {plan.reason}", file=sys.stderr)
        return EXIT_FAILURE
    held = ", ".join(f"{n} {k}" for k, n in sorted(have.items())) or "empty hands"
    goal = plan.goal
    print(
        f"obtain {args.item} {args.amount} at Minecraft {version}, from {held}: {goal.action} {goal.target}", file=out
    )
    if not plan.steps:
        print(f"  1 {goal.action} {goal.target} {goal.amount}", file=out)
        return EXIT_OK
    if args.tree:
        for line in tree_lines(plan_tree(plan.steps)):
            print(f"  {line}", file=out)
        return EXIT_OK
    for i, step in enumerate(plan.steps, 1):
        what = step.tool if step.kind != "delegate" else f"ask {step.agent}: {(step.task or {}).get('action')}"
        print(f"  {i:>2} {step.id:<28} {what:<18} {step.description}", file=out)
    return EXIT_OK
