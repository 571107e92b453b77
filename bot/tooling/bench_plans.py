"""`mcbot bench plans`: how fast the obtain planner plans, for every item of a version's item
list, from empty hands and from a mid-game inventory (agency/goals/obtain_plan.py: what
`obtain ITEM 1` becomes and its workflow). Prints per version and start: the items, how many
got a plan and how many were refused (and the most common reasons), and the time per plan
(p50, p95, the slowest item), measured side by side in one run, then the target: p95 at most
50 ms. Exit code 0 the target met, 1 not. Each version's game data is loaded and its recipe
book built before the clock starts (a first plan per version), so the figures are plans.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

from agency.execution.agents.obtain import Unobtainable
from agency.game import mcdata
from agency.goals.obtain_plan import plan_obtain
from agency.stats import percentile
from bot.tooling.competence import FAIL, PASS

TARGET_P95_MS = 50.0
MIDGAME = {
    "wooden_pickaxe": 1,
    "stone_pickaxe": 1,
    "iron_pickaxe": 1,
    "stone_sword": 1,
    "oak_log": 16,
    "oak_planks": 12,
    "stick": 8,
    "cobblestone": 40,
    "coal": 12,
    "iron_ingot": 5,
    "raw_iron": 3,
    "crafting_table": 1,
    "furnace": 1,
    "torch": 16,
    "cooked_beef": 6,
    "dirt": 20,
}
STARTS = {"empty hands": {}, "mid-game": MIDGAME}


def bench_version(version: str) -> list[dict[str, Any]]:
    mcdata.use_version(version)
    plan_obtain("iron_pickaxe", 1, {})  # the data loaded and the recipe book built
    items = sorted(mcdata.data().items)
    rows = []
    for start, inventory in STARTS.items():
        times: list[float] = []
        refused: Counter[str] = Counter()
        slowest = ("", 0.0)
        for item in items:
            t0 = time.perf_counter()
            plan = plan_obtain(item, 1, inventory)
            ms = (time.perf_counter() - t0) * 1000
            times.append(ms)
            slowest = max(slowest, (item, ms), key=lambda s: s[1])
            if isinstance(plan, Unobtainable):
                refused[_kind(plan.reason)] += 1
        rows.append(
            {
                "version": version,
                "start": start,
                "items": len(items),
                "planned": len(items) - sum(refused.values()),
                "refused": sum(refused.values()),
                "refusedBy": dict(refused.most_common(4)),
                "p50Ms": percentile(times, 0.5),
                "p95Ms": percentile(times, 0.95),
                "slowest": {"item": slowest[0], "ms": slowest[1]},
            }
        )
    return rows


def _kind(reason: str) -> str:
    """A refusal's kind, for the counts: 'found only in the nether', 'no way yet', ..."""
    for key in (
        "cannot be had in survival",
        "found only in",
        "is not an item",
        "cannot get on its own",
        "knows no way",
        "NO_SOURCE",
        "NO_TOOL",
    ):
        if key in reason:
            return key
    return reason.split(":")[0][:40]


def bench_plans(versions: tuple[str, ...], as_json: bool = False, say: Callable[[str], None] = print) -> int:
    rows = [row for v in versions for row in bench_version(v)]
    worst = max(r["p95Ms"] or 0.0 for r in rows)
    verdict = PASS if worst <= TARGET_P95_MS else FAIL
    say(f"{'version':<9} {'start':<12} {'items':>5} {'planned':>7} {'refused':>7} {'p50 ms':>7} {'p95 ms':>7}  slowest")
    for r in rows:
        say(
            f"{r['version']:<9} {r['start']:<12} {r['items']:>5} {r['planned']:>7} {r['refused']:>7} "
            f"{r['p50Ms']:>7.2f} {r['p95Ms']:>7.2f}  {r['slowest']['item']} {r['slowest']['ms']:.1f} ms"
        )
    for r in rows:
        say(f"  refused at {r['version']} from {r['start']}: {r['refusedBy']}")
    say(f"target: plan p95 <= {TARGET_P95_MS:g} ms: worst {worst:.2f} ms {verdict}")
    if as_json:
        say(json.dumps({"rows": rows, "target": {"p95Ms": TARGET_P95_MS, "worst": worst, "verdict": verdict}}))
    return 0 if verdict == PASS else 1
