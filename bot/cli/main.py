"""`mcbot` command line. Exit codes: 0 ok, 1 failure, 3 initialization failure (server
unreachable, node missing, bridge dead at start), 4 invalid arguments or config,
5 schema validation failure."""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from loguru import logger

from bot.cli import bench_tasks as bench_tasks_cli, values as val
from bot.cli.exit_codes import EXIT_FAILURE, EXIT_INVALID, EXIT_OK, KNOWN_ERRORS, exit_code_for

if TYPE_CHECKING:  # the config loads only when a command runs (`--help` stays fast)
    from bot.config.loader import McbotConfig


class _ArgParser(argparse.ArgumentParser):
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


class _SubParser(_ArgParser):
    """A (sub)command's parser: it takes the global options too. Their default is SUPPRESS, so
    a command that is not given them keeps what was given before its name."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        add_global_options(self, default=argparse.SUPPRESS)


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


def build_parser() -> argparse.ArgumentParser:
    p = _ArgParser(prog="mcbot", description="A daemon that lives in a Minecraft world through a Mineflayer bot.")
    add_global_options(p)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_SubParser)

    run = sub.add_parser("run", help="run the bot (starts the embedded world when configured)")
    run.add_argument("--host")
    run.add_argument("--port", type=val.port)

    srv = sub.add_parser("server", help="run the embedded flying-squid world in the foreground")
    srv.add_argument("--port", type=val.port)
    srv.add_argument("--version", type=val.embedded_version)

    snap = sub.add_parser("snapshot", help="connect, print one WorldSnapshot as JSON, exit")
    snap.add_argument("--host")
    snap.add_argument("--port", type=val.port)
    snap.add_argument("--version", type=val.bot_version)

    rec = sub.add_parser("record", help="record a live session to JSONL for replay tests")
    rec.add_argument("--minutes", type=val.positive_float, required=True)
    rec.add_argument("--out", required=True, metavar="FILE.jsonl")
    rec.add_argument("--host")
    rec.add_argument("--port", type=val.port)

    doc = sub.add_parser("doctor", help="check that the bot can live on a server; prints one table of findings")
    doc.add_argument("--host")
    doc.add_argument("--port", type=val.port)
    doc.add_argument("--version", type=val.bot_version, help="pin the version the bot speaks (default: server.version)")
    doc.add_argument(
        "--command",
        dest="check_commands",
        action="append",
        default=[],
        metavar="CMD",
        help='a command the bot must be allowed to run, e.g. "/time query daytime" (repeatable)',
    )

    cfg = sub.add_parser("config", help="inspect configuration")
    cfg_sub = cfg.add_subparsers(dest="config_command", required=True, parser_class=_SubParser)
    cfg_sub.add_parser("show", help="print the merged config and where each value came from")

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

    bench = sub.add_parser("bench", help="benchmarks that print side-by-side ratios")
    bench_sub = bench.add_subparsers(dest="bench_command", required=True, parser_class=_SubParser)
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
    return p


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
        help="Minecraft version of the embedded world (default: the newest served, bot/config/loader.py)",
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
        "then one drawn round, fixed seed",
    )
    bg.add_argument(
        "--version",
        type=val.embedded_version,
        help="Minecraft version of the embedded world (default: the newest served, bot/config/loader.py)",
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


def _session(cfg: McbotConfig, args: Any, embedded: bool):
    from bot.runtime.session import live_session

    return live_session(
        cfg,
        embedded=embedded,
        host=getattr(args, "host", None),
        port=getattr(args, "port", None),
        version=getattr(args, "version", None),
    )


def _wants_embedded(cfg: McbotConfig, args: Any) -> bool:
    return cfg.server.use_embedded and not getattr(args, "host", None)


def cmd_snapshot(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    # Never starts a server: it reads the world the bot is asked to join.
    with _session(cfg, args, embedded=False) as s:
        print(s.body.snapshot().model_dump_json())
    return EXIT_OK


def cmd_run(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    from bot.runtime.daemon import run_daemon

    return asyncio.run(run_daemon(cfg, host=args.host, port=args.port))


def cmd_server(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    from bot.runtime.server import EmbeddedServer
    from bot.runtime.world_folder import embedded_settings

    server = EmbeddedServer(embedded_settings(cfg, port=args.port, version=args.version), cfg.bridge.node_bin)
    server.start()
    print(f"embedded world on 127.0.0.1:{server.port} (Ctrl-C to stop)", file=sys.stderr)
    try:
        while server.running:
            time.sleep(0.5)
        return EXIT_FAILURE
    finally:
        server.stop()


def cmd_record(args: Any, cfg: McbotConfig, loaded: Any) -> int:
    from bot.tooling.recorder import Recorder

    out = Path(args.out)
    try:  # before connecting: a bad --out must not cost a world start
        out.parent.mkdir(parents=True, exist_ok=True)
        f = out.open("w", encoding="utf-8")
    except OSError as e:
        print(f"mcbot: error: argument --out: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return EXIT_INVALID
    with f, _session(cfg, args, embedded=_wants_embedded(cfg, args)) as s:
        rec = Recorder(s.body, f, config=cfg.model_dump(mode="json"))
        rec.run(args.minutes * 60)
        logger.info("recorded {} lines to {}", rec.lines, out)
    return EXIT_OK


def cmd_doctor(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    from bot.cli.doctor import doctor

    return doctor(cfg, host=args.host, port=args.port, version=args.version, commands=args.check_commands)


def cmd_config(args: Any, _cfg: Any, loaded: Any) -> int:
    from bot.config.loader import render_config_show

    print(render_config_show(loaded))
    return EXIT_OK


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
