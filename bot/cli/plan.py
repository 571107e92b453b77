"""`mcbot plan ITEM [N]`: the plan the bot would follow to obtain an item, without a daemon or
a world: what `obtain ITEM N` becomes (agency/goals/obtain.py) and that goal's generated
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


def cmd_plan(args: Any, cfg: McbotConfig, _loaded: Any, out: TextIO | None = None) -> int:
    from agency.execution.agents.build_plan import build_plan
    from agency.execution.agents.gather_plan import gather_plan
    from agency.execution.agents.plan_builder import WorkflowPlanError
    from agency.execution.agents.planning import craft_plan
    from agency.execution.agents.smelt_plan import smelt_plan
    from agency.game import mcdata
    from agency.goal_tag import ExtractedGoal
    from agency.goals.obtain import Unobtainable, resolve_obtain

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
    goal = resolve_obtain(ExtractedGoal(action="obtain", target=args.item.lower(), amount=args.amount), have)
    held = ", ".join(f"{n} {k}" for k, n in sorted(have.items())) or "empty hands"
    if isinstance(goal, Unobtainable):
        print(f"mcbot: refused: {goal.reason}", file=sys.stderr)
        return EXIT_FAILURE
    task = {"action": goal.action, "target": goal.target, "amount": goal.amount}
    makers = {"craft": craft_plan, "smelt": smelt_plan, "collect": gather_plan, "build": build_plan}
    print(
        f"obtain {args.item} {args.amount} at Minecraft {version}, from {held}: {goal.action} {goal.target}", file=out
    )
    if goal.action not in makers:
        print(f"  1 {goal.action} {goal.target} {goal.amount}", file=out)
        return EXIT_OK
    try:
        steps = makers[goal.action]("planner", task, have).steps
    except WorkflowPlanError as e:
        print(f"mcbot: refused: {e.code}: {e}", file=sys.stderr)
        return EXIT_FAILURE
    for i, step in enumerate(steps, 1):
        what = step.tool if step.kind != "delegate" else f"ask {step.agent}: {(step.task or {}).get('action')}"
        print(f"  {i:>2} {step.id:<28} {what:<18} {step.description}", file=out)
    return EXIT_OK
