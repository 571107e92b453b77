"""Drive ticks (docs/contracts.md DRIVE-1..5): one explicit, labelled source of autonomy.

Every DRIVE_TICK_INTERVAL_MS, if the bot is safe (health and food >= 16, no hostiles, not
creative/spectator), pick one goal from the inventory and time of day, skip it if a task
for the same goalKey is already in flight (DRIVE-2), and emit a high-novelty, convertible
thought whose goal came from build_goal_tag_v1 and was parsed back by the sanitizer, so
drive ticks and LLM replies share one goal vocabulary.

Night approaching (DRIVE-3's second rule) means, for building a shelter, timeOfDay from 3000
(agency.world.SHELTER_BUILD_START: a tick interval and a build well ahead of the dusk window
[11000, 13000)) or the snapshot already reports night (not isDay): a bot without shelter at
night still needs one, and mineflayer's isDay is false for 13000..22999.

Grounding is a check, not a stamp: the chosen goal is held to the frame the tick fired on
(the snapshot plus the blocks in sight, agency.cognition.grounding.check_doable_goal). A goal the
frame does not ground (logs to collect but none in sight, a craft with no ingredients or
sources at hand) becomes `explore farther` first: exploring claims nothing and is how the
bot finds what is missing; the next tick chooses again from the new frame. Its legs go where
new ground is, not only near the hut as the last rule's `explore nearby` does
(agency.tools.movement: what is missing may lie farther).

Where the last rule's plain `explore nearby` was (DRIVE-3), the progression (what to have, in
order: agency.cognition.progression) and the survival steps (agency.cognition.survival_steps)
pick the next missing step. A progression step is a whole obtain whose plan gets its materials
itself (digging down for ores out of sight included), so it is not held to the frame.

A goal whose newest tasks failed waits before it is asked again (20 s after one failure, 60 s
after two, 180 s after three, up to 15 minutes after five or more in a row:
agency.planning.tasks.retry_backoff); meanwhile
the tick explores farther (rule `retry_later`), and skips (`retry_later`) when exploring just
failed too, or when the goal is the night's shelter at dusk or night (no wandering off in the
dark; by day it is explored away from like any goal). A held
survival or progression step lets the next one have its turn (a stone pickaxe that cannot be
made from here does not keep the bot from hunting); a stand-in (explore first) that just
failed makes the tick skip.

With several bots, a tick's goal is about its own bot's body and inventory: the thought names
the bot (metadata.bot, so its task is bound to it), and only tasks open to that bot (bound to
it or to none) make the goal a duplicate or hold it back; another bot's task does not.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum

from agency.cognition.counters import AgencyCounters
from agency.cognition.drive_duplicates import (
    EXPLORE_FARTHER,
    blocker,
    held_back_step,
    step_held_back,
    step_in_flight,
)
from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_rules import select_drive
from agency.cognition.drive_selection import DriveSelection
from agency.cognition.follow_ups import FollowUp, Places, builds_shelter, follow_ups
from agency.cognition.grounding import FrameFacts, GroundingResult, check_doable_goal, log_grounding_fail
from agency.cognition.night_work import is_night_work
from agency.cognition.sanitizer import sanitize
from agency.cognition.settings import DriveTickConfig  # the one schema, also the [drive_tick] section
from agency.goal_tag import ExtractedGoal, build_goal_tag_v1, canonical_goal_key
from agency.planning.tasks.idempotency import TaskLookup, waits_for_surface
from agency.planning.tasks.models import Task
from agency.thoughts import Thought, ThoughtMetadata
from agency.world import (
    SAFE_FOOD,
    SAFE_HEALTH,
    BlockRegion,
    WorldSnapshot,
    night_approaching,
    under_cover_at_night,
    underground,
)

DRIVE_TICK_INTERVAL_MS = 180_000  # fixed, no jitter in v1
# The blocks "in sight": the box collect_block searches (radius 32, 8 blocks up and down),
# so a collect goal grounds exactly when the collector would find its block from here.
SIGHT_RADIUS = 32
SIGHT_VERTICAL = 8
EXPLORE_FIRST_LEGS = 2  # legs of the explore workflow (16 blocks each): new ground comes into sight
FURNACE_BLOCKS = ("furnace", "lit_furnace")  # lit_furnace: the block's name before 1.13

_CATEGORY = {
    "collect": "gathering",
    "descend": "gathering",
    "build": "building",
    "craft": "crafting",
    "explore": "exploration",
}


class DriveSkipReason(str, Enum):
    disabled = "disabled"
    unsafe_game_mode = "unsafe_game_mode"
    low_health = "low_health"
    low_food = "low_food"
    hostiles_present = "hostiles_present"
    interval_not_elapsed = "interval_not_elapsed"
    duplicate_goal = "duplicate_goal"
    sheltering = "sheltering"  # the bot spends the night in its shelter: no new work outside
    # the goal failed a moment ago (retry_backoff) and exploring instead did too, or it is the
    # night's shelter (no wandering off in the dark), or the stand-in for a goal out of sight failed
    retry_later = "retry_later"
    # under ground at night (dug in, or met underground at dusk): logs, a hunt or exploring
    # would take the bot up into the dark; they wait for the morning
    surface_work_at_night = "surface_work_at_night"


@dataclass(frozen=True)
class DriveTickFired:
    thought: Thought
    selection: DriveSelection
    ungrounded: DriveSelection | None = None  # the DRIVE-3 choice the frame did not ground, replaced by explore
    follow_ups: tuple[FollowUp, ...] = ()  # done in the same task after it (agency.cognition.follow_ups)
    queued: tuple[FollowUp, ...] = ()  # after those, queued as a task once it completes (agency.execution.after_goal)


@dataclass(frozen=True)
class DriveTickSkipped:
    reason: DriveSkipReason
    detail: str = ""
    blocking_task_id: str | None = None


DriveTickResult = DriveTickFired | DriveTickSkipped


def sight_box(snapshot: WorldSnapshot) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(origin, size) of the block region a drive tick grounds on, centred on the bot's block."""
    x, y, z = (math.floor(c) for c in (snapshot.position.x, snapshot.position.y, snapshot.position.z))
    r, v = SIGHT_RADIUS, SIGHT_VERTICAL
    return (x - r, y - v, z - r), (2 * r + 1, 2 * v + 1, 2 * r + 1)


SIGHT_ACTIONS = frozenset({"collect", "gather", "mine", "craft"})


def explore_first(ungrounded: DriveSelection, grounding: GroundingResult) -> DriveSelection:
    why = grounding.detail.split(": ", 1)[-1]
    return DriveSelection(
        "explore",
        EXPLORE_FARTHER,
        EXPLORE_FIRST_LEGS,
        "explore_first",
        f"I cannot {ungrounded.action} {ungrounded.target} from here ({why}); I will explore first.",
    )


def _safety_gate(snapshot: WorldSnapshot) -> DriveTickSkipped | None:
    if snapshot.gameMode in ("creative", "spectator"):
        return DriveTickSkipped(DriveSkipReason.unsafe_game_mode, snapshot.gameMode)
    if snapshot.health < SAFE_HEALTH:
        return DriveTickSkipped(DriveSkipReason.low_health, f"health={snapshot.health}")
    if snapshot.food < SAFE_FOOD:
        return DriveTickSkipped(DriveSkipReason.low_food, f"food={snapshot.food}")
    if snapshot.hostiles != 0:
        return DriveTickSkipped(DriveSkipReason.hostiles_present, f"hostiles={snapshot.hostiles}")
    return None


def _build_thought(
    sel: DriveSelection,
    now_ms: int,
    thought_id: str,
    grounding: GroundingResult,
    bot: str | None,
    then: tuple[FollowUp, ...] = (),
    queued: tuple[FollowUp, ...] = (),
) -> Thought:
    # Round-trip through the sanitizer: the goal on the thought is exactly what an LLM
    # reply carrying the same tag would yield.
    parsed = sanitize(f"{sel.reason}\n{build_goal_tag_v1(sel.action, sel.target, sel.amount)}")
    expected = _goal(sel)
    if parsed.goal != expected:
        raise AssertionError(f"drive goal did not round-trip: {expected} -> {parsed.goal}")
    return Thought(
        id=thought_id,
        type="drive",
        content=parsed.text,
        timestamp=now_ms,
        novelty="high",
        convertEligible=True,
        cognitiveSystem="drive-tick",
        tags=["drive-tick", "autonomous", _CATEGORY.get(sel.action, sel.action)],
        metadata=ThoughtMetadata(
            extractedGoal=parsed.goal,
            extractedGoalSource="drive-tick",
            goalKey=canonical_goal_key(sel.action, sel.target),
            # The stream requires a passing record on every convertEligible thought (KEEPALIVE-8).
            grounding=grounding.as_record(),
            bot=bot,
            followUps=[f.as_dict() for f in then] or None,
            followUpsAfter=[f.as_dict() for f in queued] or None,
        ),
    )


def evaluate_drive_tick(
    snapshot: WorldSnapshot,
    now_ms: int,
    state: DriveTickState,
    existing_tasks: TaskLookup | Iterable[Task],
    *,
    shelter_nearby: bool | None = None,
    table_nearby: bool | None = None,
    furnace_nearby: bool | None = None,
    bed_known: bool | None = None,
    sheltering: bool = False,
    region: BlockRegion | None = None,
    config: DriveTickConfig = DriveTickConfig(),
    counters: AgencyCounters | None = None,
    bot: str | None = None,
) -> DriveTickResult:
    """Run the gates, pick a drive, check idempotency, ground it on the frame (the
    snapshot plus `region`, the blocks in sight_box; None = not read, nothing in sight),
    exploring first when it does not ground. A furnace in that region counts as one nearby.
    Firing updates state and counts driveTicks; a skip changes nothing, so the next safe
    moment can fire. `bot`: whose tick it is (module docstring); None, the one bot's."""
    if furnace_nearby is not True and region is not None and furnace_in_sight(region):
        furnace_nearby = True
    candidate = drive_candidate(
        snapshot,
        now_ms,
        state,
        existing_tasks,
        shelter_nearby=shelter_nearby,
        table_nearby=table_nearby,
        furnace_nearby=furnace_nearby,
        bed_known=bed_known,
        sheltering=sheltering,
        config=config,
        bot=bot,
    )
    if isinstance(candidate, DriveTickSkipped):
        return candidate
    sel = candidate
    thought_id = f"thought-{uuid.uuid4()}"  # the scenario id of the grounding log line
    facts = FrameFacts.from_snapshot(snapshot, region=region, blocks=("crafting_table",) if table_nearby else ())
    # Judged quietly: a failure is logged only under a thought that is published.
    grounding = (
        GroundingResult(True, detail=f"the plan gets {sel.target}'s materials itself")
        if sel.planned
        else check_doable_goal(_goal(sel), facts, scenario_id=None)
    )
    ungrounded = None
    if not grounding.passed:
        ungrounded, sel = sel, explore_first(sel, grounding)
        blocked = _blocked(existing_tasks, sel, now_ms, config, bot)
        if blocked is not None:
            return blocked
        if held_back_step(existing_tasks, sel, now_ms, bot) is not None:  # the stand-in failed a moment ago too
            return DriveTickSkipped(DriveSkipReason.retry_later, f"{sel.action}:{sel.target} failed a moment ago")
        log_grounding_fail(grounding, thought_id)
        grounding = check_doable_goal(_goal(sel), facts, scenario_id=thought_id)
    # A goal-bound build runs none in its task: all are queued once it is verified, as a task
    # shaped like a tick's (one goal and drive_tick.follow_ups after it).
    # drive_tick.follow_ups 0: each tick's goal alone, none queued either.
    hut = builds_shelter(sel)
    n, queued_n = config.follow_ups, config.queued_follow_ups
    in_task = 0 if hut else n
    limit = 0 if n == 0 else (1 + n) if hut else n + queued_n
    chain = (
        ()
        if ungrounded is not None
        else follow_ups(
            sel,
            snapshot,
            Places(shelter_nearby, table_nearby, furnace_nearby, bed_known),
            limit,
            held=lambda step: step_held_back(existing_tasks, step, now_ms, bot),
            in_flight=lambda step: step_in_flight(existing_tasks, step, now_ms, config, bot),
        )
    )
    then, queued = chain[:in_task], chain[in_task:]
    thought = _build_thought(sel, now_ms, thought_id, grounding, bot, then, queued)
    state.fired(now_ms)
    if counters is not None:
        counters.increment("driveTicks")
        # Its goal came out of a [GOAL: ...] tag through the sanitizer, like an LLM's.
        counters.increment("goalTags")
    return DriveTickFired(thought=thought, selection=sel, ungrounded=ungrounded, follow_ups=then, queued=queued)


def drive_candidate(
    snapshot: WorldSnapshot,
    now_ms: int,
    state: DriveTickState,
    existing_tasks: TaskLookup | Iterable[Task],
    *,
    shelter_nearby: bool | None = None,
    table_nearby: bool | None = None,
    furnace_nearby: bool | None = None,
    bed_known: bool | None = None,
    sheltering: bool = False,
    config: DriveTickConfig = DriveTickConfig(),
    bot: str | None = None,
) -> DriveSelection | DriveTickSkipped:
    """The goal a drive tick would ground now, or why it skips (gates, interval, a goal in
    flight among the tasks open to `bot`). The daemon reads the blocks in sight only for a
    candidate that needs them."""
    gated = drive_gate(snapshot, now_ms, state, sheltering=sheltering, config=config)
    if gated is not None:
        return gated
    sel = select_drive(
        snapshot,
        shelter_nearby,
        table_nearby,
        furnace_nearby,
        bed_known,
        held=lambda step: held_back_step(existing_tasks, step, now_ms, bot) is not None,
    )
    if under_cover_at_night(snapshot) and sel.rule != "night_no_shelter" and not is_night_work(sel, snapshot.held()):
        return DriveTickSkipped(
            DriveSkipReason.surface_work_at_night,
            f"{sel.action}:{sel.target} is surface work; under ground at night it waits for the morning",
        )
    # A goal already in flight is its task's business: it is not grounded again.
    found = blocker(existing_tasks, sel, now_ms, config, bot)
    if found is not None:
        return _up_first(existing_tasks, found[0], snapshot, now_ms, config, bot) or _duplicate(found)
    # A goal that just failed waits (retry_backoff); meanwhile new ground may change what it needs.
    held = held_back_step(existing_tasks, sel, now_ms, bot)
    if held is None:
        return sel
    # an explore is not explored around; nor is the night's shelter in the dark (no wandering
    # off: by day, before the dusk, the tick explores like any held goal: new ground, a new site)
    if sel.action == "explore" or (sel.rule == "night_no_shelter" and night_approaching(snapshot)):
        return DriveTickSkipped(DriveSkipReason.retry_later, f"{sel.action}:{sel.target} failed a moment ago")
    tries = "try" if held.failures == 1 else f"{held.failures} tries"
    retry = DriveSelection(
        "explore",
        EXPLORE_FARTHER,
        EXPLORE_FIRST_LEGS,
        "retry_later",
        f"My last {tries} to {sel.action} {sel.target} failed; "
        f"I will explore and try again in {math.ceil(held.wait_ms / 1000)} s.",
    )
    if held_back_step(existing_tasks, retry, now_ms, bot) is not None:
        return DriveTickSkipped(
            DriveSkipReason.retry_later, f"{sel.action}:{sel.target} and explore:{EXPLORE_FARTHER} just failed"
        )
    return _blocked(existing_tasks, retry, now_ms, config, bot) or retry


def _up_first(
    tasks: TaskLookup | Iterable[Task],
    blocking: Task,
    snapshot: WorldSnapshot,
    now_ms: int,
    config: DriveTickConfig,
    bot: str | None,
) -> DriveSelection | None:
    """The goal is in flight in a task held for the surface (its plan hunts, claimed
    underground: agency.execution.surface_hold), itself or as a follow-up, and the bot is under
    ground by day: exploring, which climbs out first, brings the bot up and the task back. Else
    nothing would: a 26.1 bench bot at d20bcc9 stood a whole day under an overhang 4 blocks
    thick at y 70, its bed held for the surface and every tick skipped as a duplicate of the
    bucket that the bed's task carried."""
    if not waits_for_surface(blocking, now_ms) or not underground(snapshot) or night_approaching(snapshot):
        return None
    up = DriveSelection(
        "explore",
        EXPLORE_FARTHER,
        EXPLORE_FIRST_LEGS,
        "surface_first",
        f"My {blocking.metadata.goalKey} waits for the surface; I will climb out and explore.",
    )
    if held_back_step(tasks, up, now_ms, bot) is not None or _blocked(tasks, up, now_ms, config, bot) is not None:
        return None
    return up


def drive_gate(
    snapshot: WorldSnapshot,
    now_ms: int,
    state: DriveTickState,
    *,
    sheltering: bool = False,
    config: DriveTickConfig = DriveTickConfig(),
) -> DriveTickSkipped | None:
    """The gates that need nothing but the snapshot (off, the safety gates, the night in the
    shelter, the interval): the daemon asks them before it reads anything more for a tick."""
    if not config.enabled:
        return DriveTickSkipped(DriveSkipReason.disabled)
    unsafe = _safety_gate(snapshot)
    if unsafe is not None:
        return unsafe
    if sheltering:
        return DriveTickSkipped(DriveSkipReason.sheltering, "in the shelter until morning")
    if not state.due(now_ms, config.interval_ms):
        assert state.last_fired_ms is not None
        return DriveTickSkipped(
            DriveSkipReason.interval_not_elapsed, f"{now_ms - state.last_fired_ms}ms < {config.interval_ms}ms"
        )
    return None


def furnace_in_sight(region: BlockRegion) -> bool:
    """A furnace among the blocks read (the region's palette: no scan of its cells)."""
    return any(n in FURNACE_BLOCKS for n in region.palette if n)


def needs_sight(candidate: DriveSelection | DriveTickSkipped) -> bool:
    """Collect and craft goals ground on the blocks around the bot; the others, and a planned
    goal (a progression step), do not."""
    return isinstance(candidate, DriveSelection) and candidate.action in SIGHT_ACTIONS and not candidate.planned


def _goal(sel: DriveSelection) -> ExtractedGoal:
    return ExtractedGoal(action=sel.action, target=sel.target, amount=sel.amount)


def _duplicate(blocker: tuple[Task, str]) -> DriveTickSkipped:
    task, detail = blocker
    return DriveTickSkipped(DriveSkipReason.duplicate_goal, detail, blocking_task_id=task.id)


def _blocked(
    tasks: TaskLookup | Iterable[Task], sel: DriveSelection, now_ms: int, config: DriveTickConfig, bot: str | None
) -> DriveTickSkipped | None:
    found = blocker(tasks, sel, now_ms, config, bot)
    return None if found is None else _duplicate(found)
