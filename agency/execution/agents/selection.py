"""Choosing an agent for a task (docs/contracts.md SELECT-1..6).

Score per enabled agent, no randomness, independent of registry order:
  +0.6 when the normalized task equals one of its exampleTasks, else +0.4 when one
  contains the other (the best example counts once);
  +0.3 when it owns a workflow for the task's action (context['action'], else the first
  word): our own signal, so an agent is found for tasks its examples do not spell out;
  -0.5 when a notForTasks phrase matches (equal or contained), floored at 0.
Agents scoring above 0 are returned sorted by confidence desc, then id. None: `standard`
at 0.5. Confidence is clamped to [0, 1]; a raw score outside it is logged as an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from loguru import logger
from pydantic import BaseModel, ConfigDict, Field

from agency.execution.agents.profile import AgentProfile
from agency.execution.agents.registry import STANDARD_AGENT

EXACT_BOOST = 0.6
SUBSTRING_BOOST = 0.4
OWNS_ACTION_BOOST = 0.3
NOT_FOR_PENALTY = 0.5
FALLBACK_CONFIDENCE = 0.5


class AgentSelection(BaseModel):
    model_config = ConfigDict(frozen=True)

    agentId: str
    confidence: float = Field(ge=0, le=1)
    reasons: tuple[str, ...] = ()


def normalize(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", text.lower().replace("_", " ")))


def _contains(a: str, b: str) -> bool:
    """Whole-word containment either way (so 'log' does not match 'logs' or 'blog')."""
    return bool(a and b) and (f" {a} " in f" {b} " or f" {b} " in f" {a} ")


def clamp(score: float, agent_id: str) -> float:
    if not 0.0 <= score <= 1.0:
        logger.error("selection score {} for agent {} outside [0, 1]; clamped", score, agent_id)
    return max(0.0, min(1.0, score))


def score_agent(profile: AgentProfile, task: str, action: str | None) -> tuple[float, list[str]]:
    score, reasons = 0.0, []
    examples = [normalize(e) for e in profile.exampleTasks]
    if task in examples:
        score += EXACT_BOOST
        reasons.append("example:exact")
    elif any(_contains(task, e) for e in examples):
        score += SUBSTRING_BOOST
        reasons.append("example:substring")
    if action and profile.owns(action):
        score += OWNS_ACTION_BOOST
        reasons.append(f"owns:{action}")
    if any(n == task or _contains(task, n) for n in (normalize(x) for x in profile.notForTasks)):
        score = max(0.0, score - NOT_FOR_PENALTY)
        reasons.append("notFor")
    return score, reasons


def select_agents(
    task_text: str, agents: Iterable[AgentProfile], context: Mapping[str, Any] | None = None
) -> list[AgentSelection]:
    task = normalize(task_text)
    action = str((context or {}).get("action") or (task.split(" ")[0] if task else "")).lower() or None
    results = []
    for profile in agents:
        if not profile.enabled:
            continue
        raw, reasons = score_agent(profile, task, action)
        conf = clamp(raw, profile.id)
        if conf > 0:
            results.append(AgentSelection(agentId=profile.id, confidence=round(conf, 6), reasons=tuple(reasons)))
    results.sort(key=lambda s: (-s.confidence, s.agentId))
    if not results:
        results = [AgentSelection(agentId=STANDARD_AGENT, confidence=FALLBACK_CONFIDENCE, reasons=("fallback",))]
    return results
