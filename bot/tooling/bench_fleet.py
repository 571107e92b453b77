"""`mcbot bench fleet`: what a bot costs in a fleet. For each N of --bots, one after the other,
a daemon drives N bots (fleet01..) on its own fresh embedded world and database, with no
drive ticks, no hostiles, no hunger and no LLM; every bot idle-walks (a user goal
`explore nearby 3` bound to it, posted again whenever its last one finished). Over a window
of --seconds it measures the CPU of the daemon's process tree (the daemon and its node
bridge; the embedded world's node process is measured apart), its RSS, and the latency of
GET /api/bots/{name}/snapshot sampled round-robin over the bots at random moments (two a
second on average), and checks from /api/bots
that every bot moved. Prints one table, a column per N, and judges the issue's targets:
the largest fleet under 50 % of two cores while idle-walking (CPU seconds / wall / 2,
whatever the machine's core count), and its snapshot p50 within 2x of the 1-bot figure.

Writes DIR/fleet-<stamp>.json and each daemon's log beside it (fleet-<stamp>-n<N>-daemon.log).
Exit codes: 0 every judged target met, 1 a target FAILED, 3 a daemon did not start.

Here: the fleet sizes parsed and run in turn, and the report written. One fleet size is run and
measured by bot/tooling/bench_fleet_run.py, judged and tabled by bot/tooling/bench_fleet_report.py.
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path

import psutil

from bot.tooling.bench_fleet_report import RunResult, add_marginals, table_lines, verdict_lines, verdicts
from bot.tooling.bench_fleet_run import SNAPSHOT_EVERY_S, WALK_GOAL, FleetRun, config_text
from bot.tooling.competence import FAIL

EXIT_OK, EXIT_FAILED, EXIT_START = 0, 1, 3
MAX_BOTS = 99  # fleet01..fleet99


def parse_counts(text: str) -> tuple[int, ...]:
    """'1,5,10,20' -> (1, 5, 10, 20), in the order given, repeats dropped; ValueError says why not."""
    counts: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part.isdigit() or not 1 <= int(part) <= MAX_BOTS:
            raise ValueError(f"{part!r} is not a number of bots from 1 to {MAX_BOTS} (e.g. 1,5,10,20)")
        if int(part) not in counts:
            counts.append(int(part))
    return tuple(counts)


def bench_fleet(
    counts: tuple[int, ...], seconds: float = 60.0, version: str = "1.21.4", out: str = "bench-results"
) -> int:
    """Every fleet size in turn; the table, the targets, the JSON report."""
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per request would bury the progress
    stamp = f"{time.strftime('%Y%m%d-%H%M%S')}-p{os.getpid()}"
    folder = Path(out) if Path(out).is_absolute() else Path.cwd() / out
    folder.mkdir(parents=True, exist_ok=True)

    def say(line: str) -> None:
        print(line, flush=True)

    say(
        f"[Bench fleet] fleets of {','.join(map(str, counts))} bots, {seconds:g} s each, world {version}, "
        f"{psutil.cpu_count()} cores, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    runs: list[RunResult] = []
    code = EXIT_OK
    for n in counts:
        run = FleetRun(n, seconds, version, folder / f"fleet-{stamp}-n{n}-daemon.log", say)
        if not run.run():
            code = EXIT_START
            break
        runs.append(run.result)
    add_marginals(runs)
    judged = verdicts(runs) if code == EXIT_OK else []
    if runs:
        say("")
        for line in table_lines(runs):
            say(line)
        say("")
    for line in verdict_lines(judged):
        say(line)
    if code == EXIT_OK and any(v["status"] == FAIL for v in judged):
        code = EXIT_FAILED
    report = {
        "settings": {
            "bots": list(counts),
            "seconds": seconds,
            "version": version,
            "walkGoal": WALK_GOAL,
            "snapshotEveryS": SNAPSHOT_EVERY_S,
            "config": config_text(["fleetNN"]),
            "cpuCount": psutil.cpu_count(),
            "stamp": stamp,
        },
        "runs": [r.summary() for r in runs],
        "verdicts": judged,
        "exitCode": code,
    }
    path = folder / f"fleet-{stamp}.json"
    path.write_text(json.dumps(report, indent=2))
    say(f"[Bench fleet] report {path}")
    return code
