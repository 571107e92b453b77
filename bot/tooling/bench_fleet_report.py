"""`mcbot bench fleet`, the report: one fleet size's figures (RunResult, filled by
bot/tooling/bench_fleet_run.py), the RSS per bot added, the issue's targets judged on the
largest fleet (PASS, FAIL or NOT JUDGED) and the table, a column per fleet size.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from agency.stats import percentile
from bot.tooling.competence import FAIL, NOT_JUDGED, PASS

TWO_CORES = 2
CPU_TARGET_PCT = 50.0  # of two cores
SNAPSHOT_RATIO = 2.0  # largest fleet's p50 / the 1-bot p50
TARGET_BOTS = 20


@dataclass
class RunResult:
    """One fleet size's figures (CPU in % of all the machine's cores unless named otherwise)."""

    bots: int
    seconds: float = 0.0
    cpu_count: int = 0
    daemon_cpu_s: float = 0.0
    python_cpu_s: float = 0.0  # of which the daemon's own Python process (its one event loop)
    world_cpu_s: float = 0.0
    bench_cpu_s: float = 0.0
    machine_cpu_pct: float | None = None  # every process on the machine, for contention
    rss_mb: float = 0.0  # daemon tree, mean over the window
    rss_mb_max: float = 0.0
    world_rss_mb: float = 0.0
    snapshot_ms: list[float] = field(default_factory=list)
    snapshot_errors: int = 0
    moved: dict[str, bool] = field(default_factory=dict)
    walks: dict[str, int] = field(default_factory=dict)  # POST /api/goals answers by status, completed, failed
    daemon_log: str = ""
    marginal_rss_mb: float | None = None  # per bot added over the smallest fleet

    def pct(self, cpu_s: float, cores: int | None = None) -> float:
        return 100.0 * cpu_s / self.seconds / (cores or self.cpu_count) if self.seconds else 0.0

    @property
    def cpu_pct(self) -> float:
        return self.pct(self.daemon_cpu_s)

    @property
    def cpu_pct_two_cores(self) -> float:
        return self.pct(self.daemon_cpu_s, TWO_CORES)

    @property
    def p50(self) -> float | None:
        return percentile(self.snapshot_ms, 0.5, interpolate=True)

    @property
    def p95(self) -> float | None:
        return percentile(self.snapshot_ms, 0.95, interpolate=True)

    def summary(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("snapshot_ms")

        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 2)

        return {
            **out,
            "snapshot_samples": len(self.snapshot_ms),
            "snapshot_p50_ms": r(self.p50),
            "snapshot_p95_ms": r(self.p95),
            "cpu_pct_all_cores": r(self.cpu_pct),
            "cpu_pct_two_cores": r(self.cpu_pct_two_cores),
            "cpu_pct_per_bot": r(self.cpu_pct / self.bots),
            "python_cpu_pct": r(self.pct(self.python_cpu_s)),
            "world_cpu_pct": r(self.pct(self.world_cpu_s)),
            "bench_cpu_pct": r(self.pct(self.bench_cpu_s)),
            "rss_mb_per_bot": r(self.rss_mb / self.bots),
            "moved_bots": sum(self.moved.values()),
        }


def add_marginals(runs: list[RunResult]) -> None:
    """RSS per bot added, against the smallest fleet measured."""
    if not runs:
        return
    base = min(runs, key=lambda r: r.bots)
    for r in runs:
        r.marginal_rss_mb = (r.rss_mb - base.rss_mb) / (r.bots - base.bots) if r.bots > base.bots else None


def verdicts(runs: list[RunResult]) -> list[dict[str, Any]]:
    """The issue's targets, judged on the largest fleet; and that every bot did walk."""
    if not runs:
        return []
    big = max(runs, key=lambda r: r.bots)
    share = big.cpu_pct_two_cores
    note = "" if big.bots >= TARGET_BOTS else f" (judged at {big.bots} bots; the target names {TARGET_BOTS})"
    out = [
        {
            "id": "cpu",
            "name": f"{big.bots} bots under {CPU_TARGET_PCT:g} % of two cores while idle-walking",
            "status": PASS if share < CPU_TARGET_PCT else FAIL,
            "detail": f"{share:.1f} % of two cores ({big.daemon_cpu_s:.1f} CPU s over {big.seconds:.0f} s; "
            f"{big.cpu_pct:.1f} % of this machine's {big.cpu_count} cores){note}",
        }
    ]
    one = next((r for r in runs if r.bots == 1), None)
    name = f"snapshot p50 within {SNAPSHOT_RATIO:g}x of the 1-bot figure"
    if one is None or big is one:
        out.append(
            {"id": "snapshot", "name": name, "status": NOT_JUDGED, "detail": "needs 1 and a larger fleet in --bots"}
        )
    elif one.p50 is None or big.p50 is None:
        out.append({"id": "snapshot", "name": name, "status": FAIL, "detail": "no snapshot answered"})
    else:
        ratio = big.p50 / one.p50 if one.p50 > 0 else math.inf
        out.append(
            {
                "id": "snapshot",
                "name": name,
                "status": PASS if ratio <= SNAPSHOT_RATIO else FAIL,
                "detail": f"{big.bots} bots {big.p50:.1f} ms vs 1 bot {one.p50:.1f} ms: {ratio:.2f}x",
            }
        )
    still = {r.bots: sorted(n for n, m in r.moved.items() if not m) for r in runs}
    still = {n: names for n, names in still.items() if names}
    out.append(
        {
            "id": "moved",
            "name": "every bot walked during the window",
            "status": FAIL if still else PASS,
            "detail": "; ".join(f"{n} bots: {', '.join(names)} did not move" for n, names in still.items())
            or f"{', '.join(f'{sum(r.moved.values())}/{r.bots}' for r in runs)} moved",
        }
    )
    return out


def fmt(x: float | None, digits: int = 1) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def table_lines(runs: list[RunResult]) -> list[str]:
    """One column per fleet size."""
    cores = runs[0].cpu_count if runs else 0
    rows: list[tuple[str, Callable[[RunResult], str]]] = [
        ("bots", lambda r: str(r.bots)),
        (f"CPU % (of all {cores} cores)", lambda r: fmt(r.cpu_pct)),
        ("CPU % of two cores", lambda r: fmt(r.cpu_pct_two_cores)),
        ("CPU % per bot", lambda r: fmt(r.cpu_pct / r.bots, 2)),
        ("  of which daemon python %", lambda r: fmt(r.pct(r.python_cpu_s))),
        ("RSS MB", lambda r: fmt(r.rss_mb)),
        ("RSS MB per bot", lambda r: fmt(r.rss_mb / r.bots)),
        ("RSS MB per added bot", lambda r: fmt(r.marginal_rss_mb)),
        ("snapshot p50 ms", lambda r: fmt(r.p50)),
        ("snapshot p95 ms", lambda r: fmt(r.p95)),
        ("snapshots (errors)", lambda r: f"{len(r.snapshot_ms)} ({r.snapshot_errors})"),
        ("moved bots", lambda r: f"{sum(r.moved.values())}/{r.bots}"),
        ("walks completed", lambda r: str(r.walks.get("completed", 0))),
        ("world CPU %", lambda r: fmt(r.pct(r.world_cpu_s))),
        ("world RSS MB", lambda r: fmt(r.world_rss_mb)),
        ("bench client CPU %", lambda r: fmt(r.pct(r.bench_cpu_s))),
        ("machine CPU % (all)", lambda r: fmt(r.machine_cpu_pct)),
    ]
    width = max(len(label) for label, _ in rows) + 2
    return [f"{label:<{width}}" + "".join(f"{cell(r):>10}" for r in runs) for label, cell in rows]


def verdict_lines(judged: list[dict[str, Any]]) -> list[str]:
    return [f"{v['status'].upper().replace('_', ' '):<10} {v['name']}: {v['detail']}" for v in judged]
