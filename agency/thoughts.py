"""Thoughts: the model, novelty markers, convertEligible rules (docs/contracts.md THOUGHT-1..3).
agency.cognition.sanitizer builds a thought from one LLM reply.

Field names are camelCase because thoughts are served as JSON unchanged
(`jq '.thoughts[].convertEligible'`), the same convention as agency/world.py.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agency.goal_tag import ExtractedGoal
from agency.intent import IntentParse

Novelty = Literal["high", "medium", "low"]
GoalSource = Literal["llm", "drive-tick", "user"]
# Why a thought exists; novelty follows from it (THOUGHT-1).
ThoughtOrigin = Literal["llm", "heartbeat", "drive-tick", "content_dedup", "signature_dedup"]

NOVELTY_BY_ORIGIN: dict[str, Novelty] = {
    "llm": "high",  # fresh LLM call
    "drive-tick": "high",
    "heartbeat": "medium",  # heartbeat-escape LLM call
    "content_dedup": "low",
    "signature_dedup": "low",
}


class ThoughtMetadata(BaseModel):
    # extra="allow": later issues hang grounding results etc. here without a migration.
    model_config = ConfigDict(extra="allow")

    extractedGoal: ExtractedGoal | None = None
    extractedGoalSource: GoalSource | None = None
    extractedIntent: str | None = None
    intentParse: IntentParse | None = None
    goalKey: str | None = None
    fallback: bool | None = None
    goalFailReason: str | None = None
    grounding: dict[str, Any] | None = None
    bot: str | None = None  # the bot whose body or inventory the goal is about; its task is bound to it
    # a drive tick's: goals done in the same task after this one (agency.cognition.follow_ups)
    followUps: list[dict[str, Any]] | None = None
    # a drive tick's: goals after those, queued as a task of their own once its task completes
    # (agency.execution.after_goal; all of a goal-bound build's)
    followUpsAfter: list[dict[str, Any]] | None = None

    @field_validator("goalKey", mode="before")
    @classmethod
    def _empty_goal_key_is_absent(cls, v: Any) -> Any:
        return v or None  # TASK-3: '' never stands for a key


class Thought(BaseModel):
    id: str = Field(default_factory=lambda: f"thought-{uuid.uuid4()}")
    type: str = "reflection"
    content: str
    timestamp: int = Field(ge=0, description="epoch ms")
    processed: bool = False
    convertEligible: bool | None = None
    novelty: Novelty | None = None
    cognitiveSystem: str | None = None
    tags: list[str] = Field(default_factory=list)
    metadata: ThoughtMetadata = Field(default_factory=ThoughtMetadata)


def novelty_for(origin: ThoughtOrigin) -> Novelty:
    return NOVELTY_BY_ORIGIN[origin]


def is_convert_eligible(
    *,
    novelty: Novelty | None,
    drive_tick: bool = False,
    extracted_goal: ExtractedGoal | None = None,
    extracted_intent: str | None = None,
) -> bool:
    """THOUGHT-2: true only for a drive tick, an LLM reply with an extracted goal, or a
    present non-'none' intent; a low-novelty (dedup fallback) thought is never eligible
    (THOUGHT-3). The converter still requires an extracted goal before making a task."""
    if novelty == "low":
        return False
    return drive_tick or extracted_goal is not None or (extracted_intent not in (None, "none"))
