"""`mcbot bench ...`: the benchmarks' command lines (bridge, reflexes, chat, survival, fleet,
goals, verifier); `tasks` and `plans` are in bot/cli/bench_tasks.py. Each bench is run by its
module in bot/tooling/, imported only when it runs."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli import bench_tasks as bench_tasks_cli, values as val
from bot.cli.exit_codes import EXIT_INVALID
from bot.cli.parsers import SubParser

if TYPE_CHECKING:  # the config loads only when a command runs (`--help` stays fast)
    from bot.config.loader import McbotConfig


def add_bench_commands(sub: Any) -> None:
    bench = sub.add_parser("bench", help="benchmarks that print side-by-side ratios")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True, parser_class=SubParser)
    bb = bench_sub.add_parser("bridge", help="bridge helpers vs per-property reads (starts an embedded world)")
    bb.add_argument("--json", action="store_true", help="print one JSON object")
    bb.add_argument("--rounds", type=val.positive_int, default=200)
    bb.add_argument(
        "--versions",
        metavar="V1,V2",
        type=val.embedded_versions,
        help="embedded versions to measure side by side, e.g. 1.21.11,1.18.2 (default: server.embedded_version)",
    )
    _add_world_bench(
        bench_sub,
        "reflexes",
        "reaction time of the reflexes by mob kind, threat watch vs 1 s tick (starts an embedded world)",
        8,
        "rounds per mob kind and mode",
    )
    _add_world_bench(
        bench_sub,
        "chat",
        "time from a commander's line in chat to the bot's reply, quiet and under a chat flood "
        "(starts an embedded world)",
        10,
        "rounds per mode (quiet, flood)",
    )
    _add_bench_survival(bench_sub)
    _add_bench_fleet(bench_sub)
    _add_bench_goals(bench_sub)
    bench_tasks_cli.add_parser(bench_sub)
    bench_tasks_cli.add_plans_parser(bench_sub)
    bv = bench_sub.add_parser("verifier", help="verify_shelter_v0 on a real region read (starts an embedded world)")
    bv.add_argument("--json", action="store_true", help="print one JSON object")
    bv.add_argument("--rounds", type=val.positive_int, default=200)


def _add_world_bench(bench_sub: Any, name: str, what: str, rounds: int, rounds_help: str) -> None:
    """A bench of rounds on an embedded world, at one version or several side by side."""
    b = bench_sub.add_parser(name, help=what)
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b.add_argument("--rounds", type=val.positive_int, default=rounds, help=rounds_help)
    b.add_argument(
        "--versions",
        metavar="V1,V2",
        type=val.embedded_versions,
        help="embedded versions to measure side by side (default: server.embedded_version)",
    )


def _add_bench_survival(bench_sub: Any) -> None:
    from bot.tooling.competence import MILESTONES

    bs = bench_sub.add_parser(
        "survival",
        help="game time to each tech-tree milestone, deaths, task success, wedges; no LLM "
        "(starts a daemon and its embedded world per version and seed)",
        description="Runs the daemon (no LLM) on a fresh embedded world per version and seed, samples its API "
        "until --game-days pass (or --until a milestone), writes DIR/survival-<stamp>/report.json and "
        "timeline.png, prints a table side by side and judges the targets: iron pickaxe within 3 game "
        "days on at least 2 of 3 seeds, at least 90 % of tasks completed, every death explained, "
        "0 wedges. Exit code: 0 every target met (or not judged: a run too short to show it), "
        "1 a target FAILED, 3 a daemon did not start, 130 interrupted (Ctrl-C stops the daemon and "
        "its world and still writes the runs so far).",
    )
    bs.add_argument("--seeds", type=val.seed_list, default="1,2,3", metavar="1,2,3", help="world seeds (default 1,2,3)")
    bs.add_argument(
        "--game-days", type=val.positive_float, default=3.0, metavar="N", help="game days per run (default 3)"
    )
    bs.add_argument(
        "--version",
        metavar="V[,V2]",
        type=val.embedded_versions,
        help="embedded versions, e.g. 1.21.11,1.18.2 (default: server.embedded_version)",
    )
    bs.add_argument(
        "--until",
        choices=MILESTONES,
        metavar="MILESTONE",
        help=f"end a run once this milestone is reached ({', '.join(MILESTONES)})",
    )
    bs.add_argument("--out", default="bench-results", metavar="DIR", help="output folder (default bench-results)")
    bs.add_argument(
        "--day-scale",
        type=val.positive_float,
        default=1.0,
        metavar="X",
        help="day length multiplier of the embedded world (default 1: vanilla, 20 wall minutes per game "
        "day; 0.5 halves the wall time and the bot's time per game day)",
    )
    bs.add_argument(
        "--drive-tick-ms",
        type=val.positive_int,
        default=180_000,
        metavar="MS",
        help="drive-tick interval (default 180000, the daemon's own; at least 1000)",
    )
    bs.add_argument(
        "--max-minutes",
        type=val.positive_float,
        metavar="MIN",
        help="wall-clock limit per run (default 1.5x the wall time the game days take, + 5 min)",
    )
    bs.add_argument(
        "--jobs",
        type=val.positive_int,
        default=1,
        metavar="N",
        help="runs at once, each with its own daemon and world (default 1: one after the other; "
        "game time is what is measured, so runs side by side compare while the machine keeps up)",
    )
    bs.add_argument(
        "--terrain",
        choices=("plains", "caves"),
        default="caves",
        help="the embedded world's ground (default caves: vanilla's layout and underground, where competence "
        "is claimed; plains: the old flat test ground)",
    )
    bs.add_argument("--json", action="store_true", help="also print the report as one JSON object (lines go to stderr)")


def _add_bench_fleet(bench_sub: Any) -> None:
    bf = bench_sub.add_parser(
        "fleet",
        help="CPU share, RSS and snapshot latency per bot with N bots idle-walking in one daemon "
        "(starts a daemon and its embedded world per fleet size)",
        description="For each fleet size, one after the other: a daemon of N bots on a fresh embedded world "
        "(no drive ticks, no hostiles, no hunger, no LLM), every bot walking (explore goals bound to "
        "it); measures the daemon tree's CPU and RSS (the world apart) and GET /api/bots/NAME/snapshot "
        "latency over --seconds, prints a table a column per size and judges: the largest fleet under "
        "50 % of two cores, its snapshot p50 within 2x of the 1-bot figure, every bot moved. Writes "
        "DIR/fleet-<stamp>.json. Exit code: 0 every judged target met, 1 a target FAILED, 3 a daemon "
        "did not start.",
    )
    bf.add_argument(
        "--bots",
        default="1,5,10,20",
        metavar="N1,N2",
        help="fleet sizes, measured one after the other (default 1,5,10,20)",
    )
    bf.add_argument(
        "--seconds",
        type=val.positive_float,
        default=60.0,
        metavar="S",
        help="measurement window per fleet size (default 60)",
    )
    bf.add_argument(
        "--version",
        type=val.embedded_version,
        help="Minecraft version of the embedded world (default: the newest served, bot/config/schema.py)",
    )
    bf.add_argument("--out", default="bench-results", metavar="DIR", help="output folder (default bench-results)")


def _add_bench_goals(bench_sub: Any) -> None:
    bg = bench_sub.add_parser(
        "goals",
        help="the goal fuzz: every goal the API accepts from empty hands, in random orders and pairs "
        "(starts a daemon and its embedded world per round)",
        description="Each round: a fresh daemon on a fresh embedded world (seed, hostiles and day length drawn), "
        "one goal or two at once over the API; waits until they end or --goal-s passes, sampling health "
        "and the RSS and CPU of the daemon, the bridge's node and the world. Judged per round: every "
        "goal refused with a reason, completed, failed with a reason, unplannable or still progressing; "
        "the bridge under 1 GB; never out of health for more than 15 s; no task left active without a "
        "run; SIGTERM stops the daemon within 10 s. Writes "
        "DIR/goals-<stamp>-<version>-seed<S>/report.json. Exit code: 0 "
        "no finding, 1 a finding, 3 no daemon started.",
    )
    bg.add_argument("--seed", type=val.positive_int, metavar="S", help="draws the rounds (default: a new one, printed)")
    bg.add_argument("--rounds", type=val.positive_int, default=24, metavar="N", help="rounds (default 24)")
    bg.add_argument(
        "--sample",
        action="store_true",
        help="make test's short sample: the first reported wedge (craft stone_pickaxe from empty hands), "
        "one round, fixed seed",
    )
    bg.add_argument(
        "--version",
        type=val.embedded_version,
        help="Minecraft version of the embedded world (default: the newest served, bot/config/schema.py)",
    )
    bg.add_argument(
        "--goal-s",
        type=val.positive_float,
        default=240.0,
        metavar="S",
        help="how long a round waits for its goals (default 240)",
    )
    bg.add_argument("--out", default="bench-results", metavar="DIR", help="output folder (default bench-results)")
    bg.add_argument("--json", action="store_true", help="also print the report as one JSON object (lines go to stderr)")


def cmd_bench(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    from bot.tooling.bench import bench_bridge
    from bot.tooling.bench_verifier import bench_verifier

    if args.bench_command == "reflexes":
        from bot.tooling.bench_reflexes import bench_reflexes

        return bench_reflexes(
            cfg, as_json=args.json, rounds=args.rounds, versions=args.versions, config_path=args.config
        )
    if args.bench_command == "chat":
        from bot.tooling.bench_chat import bench_chat

        return bench_chat(cfg, as_json=args.json, rounds=args.rounds, versions=args.versions, config_path=args.config)
    if args.bench_command == "survival":
        return _bench_survival(args, cfg)
    if args.bench_command == "fleet":
        return _bench_fleet(args)
    if args.bench_command == "goals":
        return _bench_goals(args)
    if args.bench_command == "tasks":
        return bench_tasks_cli.run(args, _embedded(args.version))
    if args.bench_command == "plans":
        return bench_tasks_cli.run_plans(args)
    if args.bench_command == "verifier":
        return bench_verifier(cfg, as_json=args.json, rounds=args.rounds)
    return bench_bridge(cfg, as_json=args.json, rounds=args.rounds, versions=args.versions, config_path=args.config)


def _bench_survival(args: Any, cfg: McbotConfig) -> int:
    from bot.tooling.bench_survival import SurvivalSettings, bench_survival

    if args.drive_tick_ms < 1000:
        print("mcbot: error: argument --drive-tick-ms: at least 1000 (the drive tick's lower bound)", file=sys.stderr)
        return EXIT_INVALID
    versions = args.version or cfg.server.embedded_version
    settings = SurvivalSettings(
        seeds=tuple(int(s) for s in args.seeds.split(",")),
        versions=tuple(v.strip() for v in versions.split(",") if v.strip()),
        game_days=args.game_days,
        until=args.until,
        day_length_scale=args.day_scale,
        drive_tick_ms=args.drive_tick_ms,
        max_minutes=args.max_minutes,
        out=args.out,
        jobs=args.jobs,
        terrain=args.terrain,
        config_path=str(Path(args.config).resolve()) if args.config else None,  # the daemons run from the root
    )
    return bench_survival(settings, as_json=args.json)


def _bench_fleet(args: Any) -> int:
    from bot.tooling.bench_fleet import bench_fleet, parse_counts

    try:
        counts = parse_counts(args.bots)
    except ValueError as e:
        print(f"mcbot: error: argument --bots: {e}", file=sys.stderr)
        return EXIT_INVALID
    return bench_fleet(counts, seconds=args.seconds, version=_embedded(args.version), out=args.out)


def _bench_goals(args: Any) -> int:
    from bot.tooling.goal_fuzz import Limits
    from bot.tooling.goal_fuzz_run import FuzzSettings, goal_fuzz, sample_settings

    out = Path(args.out)
    if args.sample:
        return goal_fuzz(sample_settings(_embedded(args.version), out), as_json=args.json)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 1_000_000)
    limits = Limits(goal_s=args.goal_s, stall_s=min(120.0, args.goal_s / 2))
    return goal_fuzz(FuzzSettings(seed, args.rounds, _embedded(args.version), limits, out), as_json=args.json)


def _embedded(version: str | None) -> str:
    from bot.config.loader import EMBEDDED_VERSIONS

    return version or EMBEDDED_VERSIONS[0]
