"""A drive tick's follow-ups: the goals the next ticks would choose once this one's work is
done, carried out in the same task after it (agency.execution.agents.follow_up_runs).

The tick fires every 180 s (docs/contracts.md DRIVE-1) and most of its goals take less: a
stone sword from held cobblestone, torches from held coal, eight logs. In the bench at dc34bf1
the bot stood idle for 45-62 % of the daylight, most of it after such a goal, waiting for the
next tick (docs/benchmarks.md). So a tick asks what select_drive would choose after its goal,
on the inventory its plan ends with (PlanBuilder's simulation), and again after that, up to
`drive_tick.follow_ups` goals: a whole step of work per tick (after a hunt, on the inventory
with its food stock). The chain stops at the first
goal that is not a craft, a smelt or the log rules' logs (a hunt, a shelter, exploring
wait for a tick of their own, in the order select_drive gives them), whose plan hunts an
animal not in sight, or once the bot is underground or a goal before it in the chain went
down a staircase (no sheep for a bed's wool down there; on the surface with its animals in
sight such a follow-up is marked `hunts`, which the runner lets hunt: the bench at 9a719ea
stood idle 717 s of daylight after ticks with no follow-up, 159 s after an 18 s smelt of
mutton with the bed waiting for its tick), that an open task already has (DRIVE-2), or
that repeats (but for the log rules' logs: eight more when sixteen are not held yet, and
the goal after them, as one task; the bench at dc34bf1 idled 17 % of its daylight after a
`collect log 8`, the rule asking again three minutes later). A follow-up is a total to hold
(what the simulated inventory held of it, plus the goal's amount, and never more than that
amount at once). None at dusk or at night, and none while a night's shelter is due and none
is near; the runtime starts none while other work waits in the queue: they fill the gap
before the next tick.

The chain goes on for `drive_tick.queued_follow_ups` more goals, queued as a task of their
own once the tick's task completes (agency.execution.after_goal): the task stays short. The
night's hut has follow-ups too, worked out as if it stood (what it uses up is not
simulated), all of them queued: a goal-bound build completes only once the hut is verified. A
bench bot stood idle 49-150 s after each first hut, the goals before it done.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from loguru import logger

from agency.cognition.drive_rules import DEFAULT_RULE, select_drive
from agency.cognition.drive_selection import DriveSelection
from agency.cognition.plan_hunts import PlanReach, plan_reach
from agency.cognition.survival_steps import food_stock
from agency.execution.after_goal import carries_after
from agency.execution.agents.follow_up_runs import held_of, parse_then
from agency.execution.agents.plan_builder import PlanBuilder, WorkflowPlanError
from agency.execution.agents.task_spec import FollowUpSpec
from agency.execution.hunger import FOOD_STOCK
from agency.game.furnace import output_of
from agency.goal_tag import MAKE_ACTIONS, canonical_goal_key
from agency.planning.follow_up_params import AFTER
from agency.planning.tasks.idempotency import open_to, suppresses
from agency.planning.tasks.models import Task, TaskStatus
from agency.tools.hunting import game_in_sight
from agency.tools.movement import NEAR_HOME
from agency.world import InventoryItem, WorldSnapshot, night_approaching, shelter_due, underground

FOLLOW_UP_ACTIONS = MAKE_ACTIONS
FollowUp = FollowUpSpec  # one shape: the runner parses what the chain writes (parse_then)
# DRIVE-3's first and fifth rules: their logs are a follow-up too (with none left after a hut
# or a sword, a bench bot stood 70-115 s for the tick that asked for them)
LOG_RULES = ("no_logs", "low_logs")
LOGS = "log"
STOCK_STAND_IN = "cooked_beef"  # a hunt's food stock, in the simulated inventory
SHELTER_BUILD = ("build", "basic_shelter")
DOOR = "_door"  # any wooden door (a trapdoor is no door)


@dataclass(frozen=True)
class Places:
    """What select_drive is told of the places (drive_reads), carried through the chain."""

    shelter_nearby: bool | None = None
    table_nearby: bool | None = None
    furnace_nearby: bool | None = None
    bed_known: bool | None = None


def follow_ups(
    sel: DriveSelection,
    snapshot: WorldSnapshot,
    places: Places,
    limit: int,
    held: Callable[[DriveSelection], bool] = lambda _sel: False,
    in_flight: Callable[[DriveSelection], bool] = lambda _sel: False,
) -> tuple[FollowUp, ...]:
    """Up to `limit` goals after `sel` (module docstring); () when none may follow. `held`:
    a goal held back (its last tasks failed), which select_drive passes over; `in_flight`: a
    goal an open task already has (DRIVE-2), where the chain ends. A simulation that fails
    ends the chain there: the tick's own goal never waits on it."""
    if builds_shelter(sel):
        places = Places(True, places.table_nearby, places.furnace_nearby, places.bed_known)  # the hut stands then
    if limit <= 0 or night_approaching(snapshot) or (shelter_due(snapshot) and places.shelter_nearby is not True):
        return ()
    try:
        return _chain(sel, snapshot, places, limit, held, in_flight)
    except Exception as e:  # noqa: BLE001 - a planner fault must not stop the tick: its goal goes alone
        logger.opt(exception=e).warning("[DriveTick] follow-ups of {}:{} not worked out: {}", sel.action, sel.target, e)
        return ()


def _chain(
    sel: DriveSelection,
    snapshot: WorldSnapshot,
    places: Places,
    limit: int,
    held: Callable[[DriveSelection], bool],
    in_flight: Callable[[DriveSelection], bool],
) -> tuple[FollowUp, ...]:
    out: list[FollowUp] = []
    seen = {(sel.action, sel.target)}
    # underground, or the chain so far takes the bot down a staircase: no animal in sight there
    below = underground(snapshot) or plan_reach(sel, snapshot.held()).descends
    inventory, table, furnace = _after(sel, snapshot, snapshot.held(), places)
    while len(out) < limit and inventory is not None:
        nxt = select_drive(
            _with(snapshot, inventory),
            places.shelter_nearby,
            table,
            furnace,
            places.bed_known,
            held=held,
        )
        again = (nxt.action, nxt.target) in seen and (nxt.action, nxt.target) != ("collect", LOGS)
        if again or in_flight(nxt) or not _may_follow(nxt):
            break
        reach = plan_reach(nxt, inventory)
        if _hunts_out_of_sight(reach, snapshot, below):
            break
        below = below or reach.descends
        seen.add((nxt.action, nxt.target))
        out.append(FollowUp(nxt.action, nxt.target, _held_of(nxt, inventory) + nxt.amount, nxt.amount, reach.hunts))
        inventory, table, furnace = _after(nxt, snapshot, inventory, Places(places.shelter_nearby, table, furnace))
    return tuple(out)


def as_first(sel: DriveSelection, snapshot: WorldSnapshot) -> FollowUp | None:
    """The goal a tick would choose now as the first of a chain done at once (DriveJob.goals_now):
    one a chain may take, one whose plan hunts with every animal it hunts in sight on the
    surface, the food stock's plain hunt with game in sight there (both marked `hunts`: at
    dusk or below they are passed over), or the last rule's explore; None for any other (a
    shelter, a stand-in explore wait for a tick). A hunt waiting for its tick left two bench bots
    at 855429f idle in their first minutes."""
    inventory = snapshot.held()
    if sel.action == "explore":
        # the last rule's, with every step had: between ticks too (a 1.18.2 bench bot at d20bcc9
        # with every milestone stood 120-180 s after each explore's one leg, idle 34 % of the day);
        # its legs stay near the hut (agency.places.home), so the bot keeps its bed
        return FollowUp(sel.action, sel.target, sel.amount, sel.amount, False) if sel.rule == DEFAULT_RULE else None
    if sel.action == "hunt":
        if underground(snapshot) or not game_in_sight(snapshot.entities):
            return None
        return FollowUp(sel.action, sel.target, sel.amount, sel.amount, True)
    reach = plan_reach(sel, inventory)
    if not _may_follow(sel) or _hunts_out_of_sight(reach, snapshot, underground(snapshot)):
        return None
    return FollowUp(sel.action, sel.target, _held_of(sel, inventory) + sel.amount, sel.amount, reach.hunts)


def looks_for_game(sel: DriveSelection, snapshot: WorldSnapshot) -> FollowUp | None:
    """Between ticks, for a goal as_first passes over because its plan hunts game not in sight
    on the surface: the last rule's explore near home meanwhile, as a player looks about for
    sheep, whence the game may come into sight (as_first then takes the goal); None for any
    other goal, and underground (no game grazes there). A 1.18.2 bench bot at a8c0d4b with every
    step but the bed, no sheep in sight, stood six minutes of a morning waiting for the bed's
    tick (seed 8173, judged an idle wedge)."""
    if underground(snapshot):
        return None
    if sel.action == "hunt":
        unseen = not game_in_sight(snapshot.entities)
    else:
        unseen = _hunts_out_of_sight(plan_reach(sel, snapshot.held()), snapshot, below=False)
    return FollowUp("explore", NEAR_HOME, 1, 1, False) if unseen else None


def builds_shelter(sel: DriveSelection) -> bool:
    """The night's hut (DRIVE-3's second rule): a goal-bound build, whose follow-ups are queued
    as a task of their own once the hut is verified (agency.execution.after_goal)."""
    return (sel.action, sel.target) == SHELTER_BUILD


OPEN = (TaskStatus.pending, TaskStatus.active, TaskStatus.paused)


def following(
    tasks: Iterable[Task] | object, goal_key: str | None, now_ms: int, stuck_timeout_ms: int, bot: str | None
) -> Task | None:
    """A task of `bot`'s that blocks a new one by DRIVE-2's rule (active, pending and not
    stuck, paused for the morning) and whose follow-ups include goal_key: a tick choosing that
    goal now would make it twice (a tick fires as soon as the goal it chose last is had, and
    that goal's task goes on to its follow-ups)."""
    if not goal_key:
        return None
    lister = getattr(tasks, "list_by_status", None)
    candidates: Iterable[Task] = lister(*OPEN) if callable(lister) else tasks  # type: ignore[assignment]
    for task in candidates:
        if task.status not in OPEN or not open_to(task, bot) or not suppresses(task, now_ms, stuck_timeout_ms):
            continue
        params = task.parameters or {}
        after = parse_then(params.get(AFTER)) if carries_after(task, bot) else ()
        then = parse_then(params.get("then")) + after
        if any(canonical_goal_key(f.action, f.target) == goal_key for f in then):
            return task
    return None


def _may_follow(sel: DriveSelection) -> bool:
    """A craft or smelt, or the log rules' logs."""
    if sel.action == "collect":
        return sel.rule in LOG_RULES
    return sel.action in FOLLOW_UP_ACTIONS


def _hunts_out_of_sight(reach: PlanReach, snapshot: WorldSnapshot, below: bool) -> bool:
    """A plan that hunts an animal not in sight, or hunts at all where none graze (`below`:
    underground, or down the staircase of an earlier goal): not for a chain done at once."""
    return reach.hunts and (below or not all(game_in_sight(snapshot.entities, a) for a in reach.hunted))


def _held_of(sel: DriveSelection, inventory: Mapping[str, int]) -> int:
    return held_of(sel.action, sel.target, inventory)


def _after(
    sel: DriveSelection, snapshot: WorldSnapshot, inventory: Mapping[str, int], places: Places
) -> tuple[dict[str, int] | None, bool | None, bool | None]:
    """The inventory `sel`'s plan ends with, starting from `inventory` (the snapshot's world
    holding it), and whether a table and a furnace then stand (one the plan placed); (None,
    ...) when there is no plan to simulate."""
    if sel.action == "collect" and sel.target == LOGS:
        logs = {**inventory, "oak_log": inventory.get("oak_log", 0) + sel.amount}  # any wood counts alike
        return logs, places.table_nearby, places.furnace_nearby
    if sel.action == "hunt":
        # the food stock it hunts for, as cooked food held: what comes next does not hang on which
        # meat it brings (a bench bot stood idle 170-186 s after each quick hunt at 3b01a11)
        short = max(0, FOOD_STOCK - food_stock(_with(snapshot, inventory)))
        fed = {**inventory, STOCK_STAND_IN: inventory.get(STOCK_STAND_IN, 0) + short}
        return fed, places.table_nearby, places.furnace_nearby
    if builds_shelter(sel):
        # what the hut uses up is not simulated: each follow-up plans from what is held when it
        # starts, and one held by then is passed over. A door it has to make needs a table: the
        # builder's crafter places one there (or uses one it finds), so a table stands by then.
        door_held = any(name.endswith(DOOR) for name, n in inventory.items() if n > 0)
        return dict(inventory), places.table_nearby or not door_held, places.furnace_nearby
    if sel.action not in FOLLOW_UP_ACTIONS:
        return None, None, None
    plan = PlanBuilder(inventory, table_known=places.table_nearby is True, furnace_known=places.furnace_nearby is True)
    try:
        if sel.action == "craft":
            plan.craft(sel.target, sel.amount)
        else:
            plan.smelt(output_of(sel.target) or sel.target, sel.amount)
    except WorkflowPlanError:
        return None, None, None
    return (
        {k: v for k, v in plan.sim.items() if v > 0},
        plan.table or places.table_nearby,
        plan.furnace or places.furnace_nearby,
    )


def _with(snapshot: WorldSnapshot, inventory: Mapping[str, int]) -> WorldSnapshot:
    return snapshot.model_copy(update={"inventory": [InventoryItem(name=k, count=v) for k, v in inventory.items()]})
