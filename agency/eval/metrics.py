"""Eval metrics (docs/contracts.md EVAL-5) and scenario properties (EVAL-7, PROPERTY-1..3).

Metrics describe behaviour ("too much vs too little"); they never decide PASS. PASS comes
from properties only, and no property requires action: a run where the model never acts
passes when every property holds (EVAL-7).

- action_rate: scenarios whose thought carries an extracted goal / scenarios.
- grounding_pass_rate: thoughts whose grounding (goal and text claims) passed / thoughts;
  1.0 when there was no thought at all (nothing was claimed).
- repetition_rate: thoughts content-identical (case and whitespace folded) to one of the
  REPETITION_WINDOW previous thoughts in suite order / thoughts.
- compulsion_proxy: low-stimulus scenarios with a goal / low-stimulus scenarios.
- hallucination_count: grounding failures by category (missing_entity/item/location).
- latency p50/p95: nearest-rank (agency.stats.percentile) over scenarios that made an LLM
  call, in ms; 0 when none did.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from agency.eval.pipeline import ScenarioResult
from agency.stats import percentile

REPETITION_WINDOW = 10
HALLUCINATION_CATEGORIES = ("missing_entity", "missing_item", "missing_location")


def _prop(ok: bool, detail: str = "") -> dict[str, Any]:
    return {"pass": ok, "detail": detail}


def judge(r: ScenarioResult) -> dict[str, dict[str, Any]]:
    """The properties of one scenario; every value's 'pass' must be true for PASS."""
    props: dict[str, dict[str, Any]] = {}
    gen = r.generation
    props["llm_answered"] = _prop(gen.status in ("ok", "silent"), gen.error or gen.status)
    goal, eligible, d = r.goal, r.convert_eligible, r.decision
    grounded = d is None or d.grounding is None or d.grounding.passed
    # PROPERTY-2: convertEligible only after extraction + grounding + routing.
    props["goal_correctness"] = _prop(
        not eligible or (goal is not None and grounded and bool(d and d.routable)),
        "convertEligible=true needs extractedGoal, grounding pass and routable",
    )
    # PROPERTY-3: no goal -> not actionable (and, end to end, no task).
    no_goal_ok = goal is not None or not eligible
    if r.planning is not None and not eligible:
        no_goal_ok = no_goal_ok and r.planning["tasks_created"] == 0
    props["non_goal_not_actionable"] = _prop(no_goal_ok, "no goal or not eligible -> convertEligible=false, 0 tasks")
    if r.scenario.expect.no_hallucination:  # PROPERTY-1
        reason = d.grounding.reason if d and d.grounding and not d.grounding.passed else None
        props["no_hallucination"] = _prop(grounded, reason or "grounded")
    if r.scenario.expect.no_compulsion:
        props["no_compulsion"] = _prop(goal is None, f"goal {goal.action} {goal.target}" if goal else "no goal")
    if r.planning is not None:
        p = r.planning
        props["planning_acked"] = _prop(
            p["fetched"] == p["acked"] and (not eligible or p["thought_processed"] is True),
            f"fetched={p['fetched']} acked={p['acked']}",
        )
    return props


def _fold(text: str) -> str:
    return " ".join(text.lower().split()).rstrip(".!?")


def repetitions(results: Sequence[ScenarioResult], window: int = REPETITION_WINDOW) -> list[str]:
    """Ids of scenarios whose thought repeats one of the previous `window` thoughts."""
    recent: list[str] = []
    repeated: list[str] = []
    for r in results:
        if r.thought is None:
            continue
        key = _fold(r.thought.content)
        if key in recent[-window:]:
            repeated.append(r.scenario.id)
        recent.append(key)
    return repeated


def compute_metrics(results: Sequence[ScenarioResult]) -> dict[str, Any]:
    """Results must be in suite order (repetition is judged in that order)."""
    n = len(results)
    thoughts = [r for r in results if r.thought is not None]
    goals = [r for r in results if r.goal is not None]
    grounded = [r for r in thoughts if not (r.decision and r.decision.grounding and not r.decision.grounding.passed)]
    low = [r for r in results if r.scenario.stimulus == "low"]
    low_goals = [r for r in low if r.goal is not None]
    failures: Counter[str | None] = Counter(
        r.decision.grounding.reason
        for r in thoughts
        if r.decision and r.decision.grounding and not r.decision.grounding.passed
    )
    repeated = repetitions(results)
    latencies = [r.generation.latency_ms for r in results if r.generation.attempts]
    return {
        "scenarios": n,
        "thoughts": len(thoughts),
        "goals": len(goals),
        "convert_eligible": sum(1 for r in results if r.convert_eligible),
        "action_rate": len(goals) / n if n else 0.0,
        "grounding_pass_rate": len(grounded) / len(thoughts) if thoughts else 1.0,
        "repetition_rate": len(repeated) / len(thoughts) if thoughts else 0.0,
        "repeated_scenarios": repeated,
        "compulsion_proxy": len(low_goals) / len(low) if low else 0.0,
        "compulsion_count": len(low_goals),
        "low_stimulus_scenarios": len(low),
        "hallucination_count": {c: failures.get(c, 0) for c in HALLUCINATION_CATEGORIES}
        | {"total": sum(failures.values())},
        "latency_p50_ms": percentile(latencies, 0.5) or 0.0,  # None: no call was made
        "latency_p95_ms": percentile(latencies, 0.95) or 0.0,
        "llm_errors": sum(1 for r in results if r.generation.status not in ("ok", "silent")),
    }


def planning_totals(results: Sequence[ScenarioResult]) -> dict[str, int] | None:
    """End-to-end ack statistics over the run; None in thought_only mode."""
    plans = [r.planning for r in results if r.planning is not None]
    if not plans:
        return None
    keys = ("fetched", "acked", "converted", "skipped", "errors", "tasks_created")
    return {k: sum(int(p[k]) for p in plans) for k in keys}
