"""POST /thoughts body -> thought, with the dev-only convertEligible injection
(docs/contracts.md DEV-2).

The body's convertEligible is honoured only in development (agency.environment: only
MCBOT_ENV=development; unset means production, so the bypass must be switched on, never
left on by accident). It is the
ONLY injectable field: id, processed, novelty, goalKey, extractedGoal, metadata and the
rest are ignored. A goal can still come from the content's own [GOAL: ...] tag, through
the same sanitizer as model output. Injection does not get around KEEPALIVE-8: the stream
still refuses convertEligible=true without an extracted goal and a passing grounding
record, so the caller passes `ground` when it wants an injected goal to be actionable.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from loguru import logger

from agency.cognition.grounding import GroundingResult
from agency.cognition.sanitizer import sanitize
from agency.environment import environment, is_development
from agency.errors import InvalidInputError
from agency.goal_tag import ExtractedGoal, canonical_goal_key
from agency.thoughts import Thought, ThoughtMetadata

MAX_CONTENT_CHARS = 4_000
MAX_TYPE_CHARS = 64
ALLOWED_FIELDS = frozenset({"content", "type", "convertEligible"})


class InjectionError(InvalidInputError):
    """The body cannot become a thought; str() is the reason for a 400 response."""


def apply_dev_injection(
    body: Any,
    env: Mapping[str, str] | str | None,
    *,
    now_ms: int,
    ground: Callable[[ExtractedGoal, str], GroundingResult] | None = None,
) -> Thought:
    """Build the thought to publish from a POST /thoughts body. Raises InjectionError on
    a bad body. ground(goal, thought_id) grounds a goal found in the content."""
    if not isinstance(body, Mapping):
        raise InjectionError("body must be a JSON object")
    content = body.get("content")
    if not isinstance(content, str) or not content.strip():
        raise InjectionError("content must be a non-empty string")
    if len(content) > MAX_CONTENT_CHARS:
        raise InjectionError(f"content longer than {MAX_CONTENT_CHARS} characters")
    ttype = body.get("type", "external")
    if not isinstance(ttype, str) or not ttype or len(ttype) > MAX_TYPE_CHARS:
        raise InjectionError(f"type must be a string of 1..{MAX_TYPE_CHARS} characters")
    requested = body.get("convertEligible")
    if requested is not None and not isinstance(requested, bool):
        raise InjectionError("convertEligible must be a boolean")
    ignored = sorted(k for k in body if k not in ALLOWED_FIELDS)
    if ignored:
        logger.debug("[Cognition] POST /thoughts ignored fields {}", ignored)

    eligible = False
    if requested is not None:
        if is_development(env):
            eligible = requested
            logger.info("[Cognition] dev injection convertEligible={} env={}", str(requested).lower(), environment(env))
        else:
            logger.info("[Cognition] dev injection ignored in production field=convertEligible")

    parsed = sanitize(content)
    goal = parsed.goal
    text = parsed.text or (f"{goal.action} {goal.target}" if goal else "")
    if not text:
        raise InjectionError("content is empty once sanitized")
    thought = Thought(
        type=ttype,
        content=text,
        timestamp=now_ms,
        convertEligible=eligible,
        cognitiveSystem="external",
        tags=["external"],
        metadata=ThoughtMetadata(
            extractedGoal=goal,
            extractedIntent=parsed.intent,
            intentParse=parsed.intent_parse,
            goalKey=canonical_goal_key(goal.action, goal.target) if goal else None,
            source="http",
            devInjected=eligible,
        ),
    )
    if eligible and goal is not None and ground is not None:
        meta = thought.metadata.model_copy(update={"grounding": ground(goal, thought.id).as_record()})
        thought = thought.model_copy(update={"metadata": meta})
    return thought
