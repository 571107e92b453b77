"""`mcbot bench tasks FILE...` and `mcbot bench plans`: the command lines of
bot/tooling/bench_tasks.py and bench_plans.py (the obtain planner judged)."""

from __future__ import annotations

from typing import Any

from bot.cli import values as val


def add_plans_parser(bench_sub: Any) -> None:
    bp = bench_sub.add_parser(
        "plans",
        help="plan every item of the version's item list from empty hands and mid-game: p50/p95 per plan",
        description="For each version, obtain ITEM 1 planned for every item of its item list (offline, no world), "
        "from empty hands and from a mid-game inventory: how many got a plan, the refusals by kind, p50/p95 and "
        "the slowest plan. Target: p95 <= 50 ms. Exit code: 0 met, 1 not.",
    )
    bp.add_argument("--versions", default="26.1,1.21.11,1.21.4,1.18.2", metavar="V1,V2", help="versions (default all)")
    bp.add_argument("--json", action="store_true", help="also print the rows as one JSON object")


def run_plans(args: Any) -> int:
    from bot.tooling.bench_plans import bench_plans

    return bench_plans(tuple(v.strip() for v in args.versions.split(",") if v.strip()), as_json=args.json)


def add_parser(bench_sub: Any) -> None:
    bt = bench_sub.add_parser(
        "tasks",
        help="run task files in MineCollab's format, each task on a fresh embedded world",
        description="Each task of the files (MineCollab's JSON: initial_inventory, target, number_of_target, "
        "agent_count, timeout) on its own daemon and world at its own seed: the bots are given what the task "
        "lists, the teammates hand theirs to bench0, bench0 is asked `obtain TARGET N`; success when a bot holds "
        "N. Prints a line per task, the table, the rates per file, kind and bot count, and the targets "
        "(single-bot >= 95 %, two- and three-bot >= 85 %); writes DIR/tasks-<stamp>.json. Exit code: 0 every "
        "judged target met, 1 a target FAILED, 3 a daemon did not start, 4 a malformed task file.",
    )
    bt.add_argument("files", nargs="+", metavar="FILE", help="task files (JSON)")
    bt.add_argument(
        "--version",
        type=val.embedded_version,
        help="Minecraft version of the embedded world (default: the newest served)",
    )
    bt.add_argument("--seed", type=int, default=1000, help="the first task's world seed; task k plays seed + k")
    bt.add_argument("--terrain", choices=("plains", "caves"), default="caves", help="the world's ground (caves)")
    bt.add_argument("--only", default="", metavar="ID1,ID2", help="run only these task ids")
    bt.add_argument("--limit", type=val.positive_int, help="run at most N tasks")
    bt.add_argument("--out", default="bench-results", metavar="DIR", help="output folder (default bench-results)")


def run(args: Any, version: str) -> int:
    from bot.tooling.bench_tasks import BenchTasksSettings, bench_tasks

    only = tuple(t for t in args.only.split(",") if t.strip())
    settings = BenchTasksSettings(
        files=tuple(args.files),
        version=version,
        seed=args.seed,
        terrain=args.terrain,
        only=only,
        limit=args.limit,
        out=args.out,
    )
    return bench_tasks(settings)
