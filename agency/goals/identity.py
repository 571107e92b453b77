"""Goal identity (docs/contracts.md GOAL-3): the immutable goalInstanceId, the phase A provisional key,
the phase B anchored key, and the one atomic A -> B transition.

Keys read `<goalType>:A:<hash>` / `<goalType>:B:<hash>` so a stored key says which phase
made it (the FIELDS-2 check "anchored but no alias recorded" needs that).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

from agency.db import integrity_errors
from agency.errors import AgencyError
from agency.goals.key_index import GoalKeyConflictError, is_goal_key_conflict
from agency.goals.models import (
    BUILD_STRUCTURE,
    Anchors,
    Completion,
    GoalBinding,
    RegionHint,
    SiteSignature,
    dump_binding,
    require_binding,
)
from agency.planning.tasks.models import Task, TaskNotFoundError
from agency.planning.tasks.store import TaskStore

PROVISIONAL_SCOPE_M = 32.0
# Goal types whose identity includes the template (GOAL-3). A shelter's template
# is an attribute: improving it is a plan revision of the same goal.
TEMPLATE_IN_IDENTITY = frozenset({BUILD_STRUCTURE})


class AlreadyAnchoredError(AgencyError, ValueError):
    def __init__(self, task_id: str, key: str) -> None:
        super().__init__(f"task {task_id} is already anchored as {key}; phase A -> B happens once")
        self.task_id = task_id
        self.key = key


def _digest(payload: Mapping[str, Any]) -> str:
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def chunk_of(position: tuple[float, float, float]) -> tuple[int, int]:
    return math.floor(position[0] / 16), math.floor(position[2] / 16)


def provisional_goal_key(
    goal_type: str, intent_params: Mapping[str, Any], bot_position: tuple[float, float, float]
) -> str:
    """Phase A: hash(goalType + intentParams + the bot's chunk): sticky within a chunk."""
    payload = {"goalType": goal_type, "params": dict(intent_params), "chunk": list(chunk_of(bot_position))}
    return f"{goal_type}:A:{_digest(payload)}"


def anchored_goal_key(goal_type: str, site: SiteSignature, template_digest: str | None = None) -> str:
    """Phase B: hash(goalType + refCorner + facing [+ templateDigest for structures])."""
    payload: dict[str, Any] = {"goalType": goal_type, "refCorner": list(site.refCorner), "facing": site.facing}
    if goal_type in TEMPLATE_IN_IDENTITY:
        if not template_digest:
            raise ValueError(f"{goal_type} identity needs a templateDigest")
        payload["templateDigest"] = template_digest
    return f"{goal_type}:B:{_digest(payload)}"


def is_anchored_key(key: str) -> bool:
    return ":B:" in key


def new_binding(
    goal_type: str,
    intent_params: Mapping[str, Any],
    bot_position: tuple[float, float, float],
    *,
    verifier: str,
    definition_version: int = 0,
    goal_id: str | None = None,
    site: SiteSignature | None = None,
    template_digest: str | None = None,
    supersedes_instance_id: str | None = None,
) -> GoalBinding:
    """A fresh binding with a new goalInstanceId. Given a site, it is born anchored with its
    provisional key already recorded as an alias (same end state as anchoring later)."""
    key = provisional_goal_key(goal_type, intent_params, bot_position)
    aliases: list[str] = []
    if site is not None:
        key, aliases = anchored_goal_key(goal_type, site, template_digest), [key]
    x, y, z = bot_position
    return GoalBinding(
        goalKey=key,
        goalKeyAliases=aliases,
        goalType=goal_type,
        goalId=goal_id,
        anchors=Anchors(
            siteSignature=site,
            regionHint=RegionHint(x=x, y=y, z=z, r=PROVISIONAL_SCOPE_M),
            templateDigest=template_digest,
        ),
        completion=Completion(verifier=verifier, definitionVersion=definition_version),
        supersedesInstanceId=supersedes_instance_id,
    )


def anchored_binding(binding: GoalBinding, site: SiteSignature, template_digest: str | None = None) -> GoalBinding:
    """The A -> B transition as a pure function: new key, old key pushed to the aliases,
    site recorded; goalInstanceId untouched."""
    if binding.anchors.siteSignature is not None:
        raise ValueError(f"binding already anchored as {binding.goalKey}; phase A -> B happens once")
    new_key = anchored_goal_key(binding.goalType, site, template_digest)
    anchors = binding.anchors.model_copy(update={"siteSignature": site, "templateDigest": template_digest})
    return binding.model_copy(
        update={"goalKey": new_key, "goalKeyAliases": [*binding.goalKeyAliases, binding.goalKey], "anchors": anchors}
    )


def anchor_goal(store: TaskStore, task_id: str, site: SiteSignature, template_digest: str | None = None) -> Task:
    """Commit the site: one store update writes key, alias and site together. Re-anchoring
    to the same key is a no-op; to a different one raises AlreadyAnchoredError. A live task
    already holding the anchored key makes the database refuse: GoalKeyConflictError."""
    task = store.get_task(task_id)
    if task is None:
        raise TaskNotFoundError(task_id)
    binding = require_binding(task)
    if binding.anchors.siteSignature is not None:
        if anchored_goal_key(binding.goalType, site, template_digest) == binding.goalKey:
            return task
        raise AlreadyAnchoredError(task_id, binding.goalKey)
    updated = anchored_binding(binding, site, template_digest)
    try:
        return store.update_task_metadata(task_id, {"goalBinding": dump_binding(updated)})
    except integrity_errors() as exc:
        if is_goal_key_conflict(exc):
            raise GoalKeyConflictError(binding.goalType, updated.goalKey) from exc
        raise
