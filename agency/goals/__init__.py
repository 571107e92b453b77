"""Goal binding (docs/contracts.md, Goal-bound tasks: GOAL-1..8, ACTIVATE-1..3, HOLD-1..2,
VERIFY-1..2, FIELDS-1..2): durable goal identity on tasks, the resolver, activation
reactor, hold protocol, the shelter verifier and blueprint, and field ownership.

Pure Python: nothing here imports bot/ or javascript. Blocks come in as BlockRegions,
time as an injected Clock, the world's feasibility as injected callables.
"""

from agency.goals.fields import IllegalGoalStateError, assert_task_state, check_task_state
from agency.goals.hold_protocol import (
    HoldOutcome,
    ResumePlan,
    SafeStopper,
    SafeStopResult,
    plan_resume,
    preempt,
    resume_module,
)
from agency.goals.identity import (
    AlreadyAnchoredError,
    anchor_goal,
    anchored_goal_key,
    chunk_of,
    new_binding,
    provisional_goal_key,
)
from agency.goals.key_index import GoalKeyConflictError, GoalKeyIndex
from agency.goals.lifecycle import GoalLifecycle, ManualPauseWallError
from agency.goals.models import (
    BUILD_SHELTER,
    BUILD_STRUCTURE,
    HOLD_MANUAL_PAUSE,
    HOLD_MATERIALS_MISSING,
    HOLD_PREEMPTED,
    HOLD_UNSAFE,
    REGRESSION_DETECTED,
    Bounds,
    GoalBinding,
    Hold,
    HoldWitness,
    SiteSignature,
    VerificationResult,
    dump_binding,
    read_binding,
)
from agency.goals.reactor import ActivationBudget, ActivationReactor
from agency.goals.resolver import BuildIntent, Outcome, Resolution, resolve_or_create_build_goal
from agency.goals.sync import Goal, GoalStatus, GoalSync, reduce_goal_status
from agency.shelter.blueprint import ShelterBlueprint, basic_shelter
from agency.shelter.verifier import verify_shelter_v0

__all__ = [
    "BUILD_SHELTER",
    "BUILD_STRUCTURE",
    "HOLD_MANUAL_PAUSE",
    "HOLD_MATERIALS_MISSING",
    "HOLD_PREEMPTED",
    "HOLD_UNSAFE",
    "REGRESSION_DETECTED",
    "ActivationBudget",
    "ActivationReactor",
    "AlreadyAnchoredError",
    "Bounds",
    "BuildIntent",
    "Goal",
    "GoalBinding",
    "GoalKeyConflictError",
    "GoalKeyIndex",
    "GoalLifecycle",
    "GoalStatus",
    "GoalSync",
    "Hold",
    "HoldOutcome",
    "HoldWitness",
    "IllegalGoalStateError",
    "ManualPauseWallError",
    "Outcome",
    "Resolution",
    "ResumePlan",
    "SafeStopResult",
    "SafeStopper",
    "ShelterBlueprint",
    "SiteSignature",
    "VerificationResult",
    "anchor_goal",
    "anchored_goal_key",
    "assert_task_state",
    "basic_shelter",
    "check_task_state",
    "chunk_of",
    "dump_binding",
    "new_binding",
    "plan_resume",
    "preempt",
    "provisional_goal_key",
    "read_binding",
    "reduce_goal_status",
    "resolve_or_create_build_goal",
    "resume_module",
    "verify_shelter_v0",
]
