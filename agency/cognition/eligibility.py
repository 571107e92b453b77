"""Who may make a model thought actionable (docs/contracts.md AUTONOMY-3,
KEEPALIVE-2, PROPERTY-2, PROPERTY-3).

A thought becomes convertEligible only when the model wrote an explicit goal that was
extracted, grounds against the frame, and routes to something the executor can do.
Everything else (no goal, an INTENT label alone, a failed grounding, an unroutable
action) is convertEligible=false. The stream re-checks goal + grounding at publish
(KEEPALIVE-8), so this is the one place that says yes and the stream the one that enforces it.

Routable means some enabled agent has a workflow for the goal's action
(AgentRegistry.routable_actions): the registry the executor's runtime plans with is the
only source, so a goal never becomes a task the executor can only mark unplannable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from agency.cognition.grounding import FrameFacts, GroundingResult, check
from agency.goal_tag import ExtractedGoal
from agency.thoughts import Thought

if TYPE_CHECKING:
    from agency.execution.agents.registry import AgentRegistry

Routable = Callable[[ExtractedGoal], bool]
EligibilityReason = Literal["goal_passed", "no_goal", "grounding_failed", "not_routable"]


def routable_by(agents: AgentRegistry) -> Routable:
    """Routing by this registry, asked at each call (an agent enabled or added later counts)."""

    def is_routable(goal: ExtractedGoal) -> bool:
        return goal.action in agents.routable_actions()

    return is_routable


def default_is_routable(goal: ExtractedGoal) -> bool:
    """Routing by the shipped agents, the registry the daemon's executor plans with.
    Imported here, not at the top: the agents package loads the runtime and its tools, and
    keep-alive's module must not import task creation even transitively (KEEPALIVE-8)."""
    from agency.execution.agents.registry import default_registry  # noqa: PLC0415 - see the docstring

    return routable_by(default_registry())(goal)


@dataclass(frozen=True)
class EligibilityDecision:
    eligible: bool
    reason: EligibilityReason
    grounding: GroundingResult | None
    routable: bool | None


def decide(
    thought: Thought,
    facts: FrameFacts,
    *,
    is_routable: Routable = default_is_routable,
    check_text_claims: bool = True,
) -> EligibilityDecision:
    """Grounding covers the goal and, when asked, the text's claims (PROPERTY-1); its failures
    are logged by agency.cognition.grounding with the thought id as scenario id."""
    goal = thought.metadata.extractedGoal
    text = thought.content if check_text_claims else None
    grounding = check(facts, scenario_id=thought.id, goal=goal, text=text)
    if goal is None:
        return EligibilityDecision(False, "no_goal", grounding, None)
    if not grounding.passed:
        return EligibilityDecision(False, "grounding_failed", grounding, None)
    routable = bool(is_routable(goal))
    if not routable:
        return EligibilityDecision(False, "not_routable", grounding, False)
    return EligibilityDecision(True, "goal_passed", grounding, True)


def apply_decision(thought: Thought, decision: EligibilityDecision) -> Thought:
    """The thought with convertEligible and the grounding/routing records set."""
    update: dict[str, object] = {"convertEligibleReason": decision.reason}
    if decision.grounding is not None:
        update["grounding"] = decision.grounding.as_record()
    if decision.routable is not None:
        update["routable"] = decision.routable
    meta = thought.metadata.model_copy(update=update)
    return thought.model_copy(update={"convertEligible": decision.eligible, "metadata": meta})
