"""The soak's settings: its command line (scripts/soak.sh's flags, `parse`) and the daemon it
runs (`daemon_env`): the environment, the --fast scale (FAST) and the timings judged against
that scale (criterion 1's drive-tick cadence, the stuck timeout, competence's wedge window).
The fleet soak and the survival bench run their daemons with the same environment and scale.
"""

from __future__ import annotations

import argparse
import math
import os
from pathlib import Path

from agency.cognition.drive_tick import DRIVE_TICK_INTERVAL_MS
from agency.cognition.settings import DriveTickConfig
from bot.config.loader import EMBEDDED_VERSIONS
from bot.runtime.server import free_port
from bot.tooling.competence import CompetenceLimits

FAST = {  # --fast: CI-sized intervals; the report states the scale
    "MCBOT_DRIVE_TICK__INTERVAL_MS": "20000",
    "MCBOT_DRIVE_TICK__STUCK_TIMEOUT_MS": "60000",
    "MCBOT_JOBS__DRIVE_TICK_S": "2",
    "MCBOT_JOBS__COUNTERS_LOG_S": "15",
    "MCBOT_SERVER__DAY_LENGTH_SCALE": "0.1",
}


def cadence_ms(fast: bool) -> int:
    """The drive-tick cadence criterion 1 expects: DRIVE-1's 180 s, scaled in a fast soak
    by the factor FAST scales the daemon's drive-tick interval."""
    scale = int(FAST["MCBOT_DRIVE_TICK__INTERVAL_MS"]) / DRIVE_TICK_INTERVAL_MS if fast else 1.0
    return round(DRIVE_TICK_INTERVAL_MS * scale)


def stuck_timeout_ms(fast: bool) -> int:
    """The stuck timeout the soaked daemon runs with (fast: 60 s, real: the default 300 s)."""
    return int(FAST["MCBOT_DRIVE_TICK__STUCK_TIMEOUT_MS"]) if fast else DriveTickConfig().stuck_timeout_ms


def wedge_s(fast: bool) -> float:
    """The competence wedge window: twice the stuck timeout the daemon runs with (fast: 60 s,
    real: the default 300 s), so a task the stuck-timeout recovery could have replaced has
    had its chance."""
    return 2 * stuck_timeout_ms(fast) / 1000


def _fraction(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a number: give a fraction from 0 to 1 (0.8 = 80 %)"
        ) from None
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"{text} is not a fraction from 0 to 1 (0.8 = 80 %)")
    return x


def _game_days(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of game days") from None
    if not (math.isfinite(x) and x > 0):
        raise argparse.ArgumentTypeError(f"{text} game days: the window must be above 0")
    return x


def parse(argv: list[str]) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="soak.sh")
    ap.add_argument("minutes", type=float)
    ap.add_argument("--server", default="embedded", help="embedded (default) or HOST:PORT")
    ap.add_argument(
        "--version",
        choices=EMBEDDED_VERSIONS,
        help="Minecraft version of the embedded world (default: server.embedded_version)",
    )
    ap.add_argument("--creative", action="store_true", help="play in creative mode (checks criterion 8)")
    ap.add_argument("--fast", action="store_true", help="scaled intervals for CI")
    ap.add_argument("--out", default="soak-results")
    ap.add_argument(
        "--chaos", action="store_true", help="kill the bridge, the embedded world and the daemon at random intervals"
    )
    ap.add_argument("--seed", type=int, help="the chaos schedule's seed (default: random, printed)")
    ap.add_argument(
        "--recovery-times",
        choices=("bounds", "figures"),
        default="bounds",
        help="judge each fault's recovery against its bound (default), or only print the times "
        "(make test: its soaks share the machine with other worlds)",
    )
    limits = CompetenceLimits()
    ap.add_argument(
        "--min-task-success",
        type=_fraction,
        default=limits.min_task_success,
        metavar="FRACTION",
        help="competence K1: FAIL when completed / finished tasks is below this "
        f"(default {limits.min_task_success:g}; judged from "
        f"{limits.min_finished_tasks} finished tasks)",
    )
    ap.add_argument(
        "--milestone-game-days",
        type=_game_days,
        default=limits.milestone_game_days,
        metavar="DAYS",
        help="competence K2: FAIL after this many game days without a new tech-tree milestone "
        f"(default {limits.milestone_game_days:g})",
    )
    args = ap.parse_args(argv)
    if args.version and args.server != "embedded":
        ap.error("--version chooses the embedded world's version; your server speaks its own")
    if args.seed is not None and not args.chaos:
        ap.error("--seed seeds the --chaos schedule")
    return args


def daemon_env(args: argparse.Namespace, db: Path, api_port: int) -> dict[str, str]:
    env = {
        **os.environ,
        "MCBOT_STORAGE__DB_PATH": str(db),
        "MCBOT_API__PORT": str(api_port),
        "MCBOT_VIEWER__PORT": str(free_port()),  # daemons side by side: a 3D view each
        "MCBOT_LOGGING__FILE": "",
        "MCBOT_SERVER__WORLD_FOLDER": "",  # a new world each soak (--chaos keeps one, below)
    }
    if env.get("MCBOT_LOGGING__LEVEL", "").upper() not in ("TRACE", "DEBUG", "INFO", "SUCCESS", "WARNING"):
        env["MCBOT_LOGGING__LEVEL"] = "INFO"  # competence K3 reads the deaths the daemon logs (WARNING)
    if args.server == "embedded":
        env["MCBOT_SERVER__PORT"] = str(free_port())
        env["MCBOT_SERVER__HOST"] = ""
        if args.version:
            env["MCBOT_SERVER__EMBEDDED_VERSION"] = args.version
    else:
        host, _, port = args.server.rpartition(":")
        env["MCBOT_SERVER__HOST"], env["MCBOT_SERVER__PORT"] = host, port
    if args.creative:
        env["MCBOT_SERVER__GAME_MODE"] = "creative"
    if args.fast:
        env.update(FAST)
    return env
