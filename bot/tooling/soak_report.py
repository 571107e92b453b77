"""The soak's report: the SOAK-1 criteria and stalls (bot/tooling/soak_criteria.py), the
competence criteria beside them (bot/tooling/competence.py), the chaos verdict
(bot/tooling/soak_chaos_verdict.py) and the chart (bot/tooling/soak_chart.py)."""

from __future__ import annotations

from typing import Any

from bot.tooling.competence import VERDICT_WORDS, CompetenceLimits, evaluate_competence, idle_line, milestone_line
from bot.tooling.soak_chaos_verdict import evaluate_chaos
from bot.tooling.soak_chart import write_chart
from bot.tooling.soak_criteria import evaluate

__all__ = ["add_competence", "competence_lines", "evaluate", "evaluate_chaos", "write_chart"]


# -- competence: beside the eight criteria (bot/tooling/competence.py) ------------------------


def add_competence(
    report: dict[str, Any],
    samples: list[dict[str, Any]],
    limits: CompetenceLimits,
    *,
    chaos: bool,
    creative: bool = False,
) -> dict[str, Any]:
    """Judge competence beside the SOAK-1 criteria: report["competence"], and a competence FAIL
    fails the run. Under chaos, like the SOAK-1 criteria, it is shown and does not decide."""
    block = evaluate_competence(samples, limits, decides=not chaos, creative=creative)
    report["competence"] = block
    report["pass"] = report["pass"] and block["pass"]
    return block


def competence_lines(block: dict[str, Any]) -> list[str]:
    """The report's lines: one per criterion in the `[Soak] PASS|FAIL|NOT JUDGED id name:
    detail` form of the SOAK-1 criteria, then the milestones reached (game seconds) and the
    idle share in daylight (informational here: the soak's drive tick is its own interval)."""
    shown = "" if block["decides"] else "(informational under chaos) "
    lines = [
        f"[Soak] {VERDICT_WORDS[c['verdict']]} {c['id']} {c['name']}: {shown}{c['detail']}" for c in block["criteria"]
    ]
    lines.append(f"[Soak] milestones: {milestone_line(block)}")
    lines.append(f"[Soak] {idle_line(block['idle'])}")
    return lines
