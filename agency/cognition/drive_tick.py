"""Drive ticks (contract 3): one explicit, labelled source of autonomy.

Every DRIVE_TICK_INTERVAL_MS, if the bot is safe (health and food >= 16, no hostiles, not
creative/spectator), pick one goal from the inventory and time of day, skip it if a task
for the same goalKey is already in flight (3.2), and emit a high-novelty, convertible
thought whose goal came from build_goal_tag_v1 and was parsed back by the sanitizer, so
drive ticks and LLM replies share one goal vocabulary.

Night approaching (rule 2) means timeOfDay in the dusk window [11000, 13000) or the
snapshot already reports night (not isDay): a bot without shelter at night still needs
one, and mineflayer's isDay is false for 13000..22999.

Grounding is a check, not a stamp: the chosen goal is held to the frame the tick fired on
(the snapshot plus the blocks in sight, agency.cognition.grounding.check_doable_goal). A goal the
frame does not ground (logs to collect but none in sight, a craft with no ingredients or
sources at hand) becomes `explore nearby` first: exploring claims nothing and is how the
bot finds what is missing; the next tick chooses again from the new frame.

The tech-tree progression (issue 19) stands where the spec's default `explore nearby` was:
once the five 3.3 rules pass (logs, shelter at night, table, a pickaxe, 16 logs), the next
missing step toward an iron pickaxe is chosen from the inventory and the furnace known
nearby (in sight, or remembered and still standing: agency.places), first missing step wins:

| rule | fires when | goal |
|---|---|---|
| no_cobblestone | cobblestone short of 3 (no stone pickaxe) + 8 (furnace still needed) | collect stone <short> |
| no_stone_pickaxe | no stone (or better) pickaxe | craft stone_pickaxe 1 |
| no_furnace | iron still to smelt, no furnace held, in sight or remembered standing | craft furnace 1 |
| no_coal | iron still to smelt and not yet in hand, no coal or charcoal | collect coal_ore 3 |
| no_iron_ore | raw iron (+ iron ore) held short of the ingots still to smelt | collect iron_ore <short> |
| no_iron_ingot | fewer than 3 iron ingots, the raw iron for them held | smelt iron_ingot <short> |
| no_iron_pickaxe | 3 iron ingots, no iron (or better) pickaxe | craft iron_pickaxe 1 |
| no_iron_sword | an iron pickaxe, no iron sword, 2 iron ingots held | craft iron_sword 1 |

"Iron still to smelt" = no iron (or better) pickaxe and fewer than 3 iron ingots. A step
whose goal no workflow carries out (a craft the crafter has no recipe for, a smelt the
furnace table does not know) is never emitted (`routable`): the progression ends before it.

Coal and iron lie underground (below what a tick sees from the surface), so a collect of
either with none in sight digs down first (`dig_down_first`, rule `dig_down_first`): a
staircase to DIG_DOWN_BLOCKS below the bot for coal, to IRON_LEVEL (or DIG_DOWN_BLOCKS
lower, when already that deep) for iron, never below mining.SAFE_FLOOR_Y:

| ore | goal |
|---|---|
| coal_ore | descend y<bot's y - 12> |
| iron_ore | descend y<min(40, bot's y - 12)> |

Once the ore is in sight the collect step grounds and takes over. At the floor (or with no
pickaxe) the collect is grounded into `explore nearby`, like any other goal out of sight.
"""

from __future__ import annotations

import math
import uuid
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, Iterable

from agency.blocks import is_log
from agency.cognition.counters import AgencyCounters
from agency.cognition.drive_selection import DriveSelection
from agency.cognition.survival_steps import SURVIVAL_ACTIONS, next_survival_step
from agency.db import Database, DatabaseSource
from agency.goal_tag import ExtractedGoal, build_goal_tag_v1, canonical_goal_key
from agency.cognition.grounding import FrameFacts, GroundingResult, check_doable_goal, log_grounding_fail
from agency.cognition.sanitizer import sanitize
from agency.execution.tools.furnace_recipes import output_of
from agency.execution.tools.mining import MAX_DESCENT, SAFE_FLOOR_Y, level_target
from agency.execution.tools.recipes import CRAFTABLE
from agency.cognition.settings import DriveTickConfig  # the one schema, also the [drive_tick] section
from agency.planning.tasks.idempotency import TaskLookup, find_blocking_task
from agency.planning.tasks.models import Task
from agency.thoughts import Thought, ThoughtMetadata
from agency.world import BlockRegion, WorldSnapshot, night_approaching

DRIVE_TICK_INTERVAL_MS = 180_000  # fixed, no jitter in v1
SAFE_HEALTH = 16
SAFE_FOOD = 16
LOW_LOG_STOCK = 16
# The blocks "in sight": the box collect_block searches (radius 32, 8 blocks up and down),
# so a collect goal grounds exactly when the collector would find its block from here.
SIGHT_RADIUS = 32
SIGHT_VERTICAL = 8
EXPLORE_FIRST_LEGS = 2  # legs of the explore workflow (16 blocks each): new ground comes into sight
# The progression (module docstring): what each step needs.
STONE_PICKAXE_COBBLE = 3
FURNACE_COBBLE = 8
IRON_FOR_PICKAXE = 3  # ingots
IRON_FOR_SWORD = 2
COAL_BATCH = 3  # one vein's worth: fuel for 24 smelts, spare for torches
STONE_OR_BETTER = ("stone_pickaxe", "iron_pickaxe", "diamond_pickaxe", "netherite_pickaxe")
IRON_OR_BETTER = ("iron_pickaxe", "diamond_pickaxe", "netherite_pickaxe")
FURNACE_BLOCKS = ("furnace", "lit_furnace")  # lit_furnace: the block's name before 1.13
# Digging down for ores out of sight: one descent brings DIG_DOWN_BLOCKS of new ground into
# the sight box (8 up and down); iron lies deeper than coal (the embedded world: iron below
# y 56, coal up to the surface; vanilla 1.18+: iron peaks at y 16, coal near y 96 and 0).
DIG_DOWN_ORES = ("coal_ore", "iron_ore")
DIG_DOWN_BLOCKS = 12
IRON_LEVEL = 40
MIN_DESCENT = 4  # less than this above the floor: explore instead

_CATEGORY = {"collect": "gathering", "descend": "gathering", "build": "building", "craft": "crafting",
             "explore": "exploration"}


@dataclass
class DriveTickState:
    """The one piece of drive-tick memory: when it last fired (None = never)."""

    last_fired_ms: int | None = None
    on_fire: Callable[[int], None] | None = field(default=None, repr=False, compare=False)  # e.g. persist it

    def due(self, now_ms: int, interval_ms: int) -> bool:
        return self.last_fired_ms is None or now_ms - self.last_fired_ms >= interval_ms

    def fired(self, now_ms: int) -> None:
        self.last_fired_ms = now_ms
        if self.on_fire is not None:
            self.on_fire(now_ms)


class DriveTickMemory:
    """When the last drive tick fired, kept in the agency's SQLite file (one row, its own
    IF NOT EXISTS table like the checkpoints'), so the interval survives a restart: a
    daemon started again a minute after a tick does not fire at once."""

    _SCHEMA = ("CREATE TABLE IF NOT EXISTS drive_tick_state ("
               "id INTEGER PRIMARY KEY CHECK (id = 1), last_fired_ms INTEGER NOT NULL)")

    def __init__(self, db_path: DatabaseSource) -> None:
        self._db = Database.of(db_path)  # a path: a connection of its own; a Database: the shared one
        self._db.execute(self._SCHEMA)

    def state(self) -> DriveTickState:
        """The stored state; firing through it writes the new time back."""
        row = self._db.execute("SELECT last_fired_ms FROM drive_tick_state WHERE id = 1").fetchone()
        return DriveTickState(last_fired_ms=None if row is None else int(row[0]), on_fire=self._save)

    def _save(self, now_ms: int) -> None:
        self._db.execute("INSERT INTO drive_tick_state (id, last_fired_ms) VALUES (1, ?) "
                         "ON CONFLICT (id) DO UPDATE SET last_fired_ms = excluded.last_fired_ms", (now_ms,))

    def close(self) -> None:
        self._db.release()


class DriveSkipReason(str, Enum):
    disabled = "disabled"
    unsafe_game_mode = "unsafe_game_mode"
    low_health = "low_health"
    low_food = "low_food"
    hostiles_present = "hostiles_present"
    interval_not_elapsed = "interval_not_elapsed"
    duplicate_goal = "duplicate_goal"
    sheltering = "sheltering"  # the bot spends the night in its shelter: no new work outside


@dataclass(frozen=True)
class DriveTickFired:
    thought: Thought
    selection: DriveSelection
    ungrounded: DriveSelection | None = None  # the 3.3 choice the frame did not ground, replaced by explore


@dataclass(frozen=True)
class DriveTickSkipped:
    reason: DriveSkipReason
    detail: str = ""
    blocking_task_id: str | None = None


DriveTickResult = DriveTickFired | DriveTickSkipped


def select_drive(snapshot: WorldSnapshot, shelter_nearby: bool | None, table_nearby: bool | None = None,
                 furnace_nearby: bool | None = None, bed_known: bool | None = None) -> DriveSelection:
    """Contract 3.3, first match wins. shelter_nearby None means unknown = no shelter.
    A crafting table placed within reach counts as had (table_nearby): crafts place the
    table they need, and judging by the inventory alone crafted a new one after each.
    Where the spec's default was, the progression picks the next missing tech-tree step
    (module docstring); furnace_nearby (a furnace in sight, or remembered and still standing
    within the places' reuse distance) counts as a furnace held."""
    logs = sum(i.count for i in snapshot.inventory if is_log(i.name))  # what the crafter can make planks of
    has_table = snapshot.count_of("crafting_table") > 0 or table_nearby is True
    has_pickaxe = snapshot.count_matching("_pickaxe") > 0
    if not snapshot.inventory or logs == 0:
        return DriveSelection("collect", "oak_log", 8, "no_logs", "I have no logs; I should gather some wood.")
    if night_approaching(snapshot) and shelter_nearby is not True:
        return DriveSelection(
            "build", "basic_shelter", 1, "night_no_shelter", "Night is coming and I have no shelter nearby."
        )
    if not has_table:
        return DriveSelection("craft", "crafting_table", 1, "no_crafting_table", "I have logs but no crafting table.")
    if not has_pickaxe:
        return DriveSelection("craft", "wooden_pickaxe", 1, "no_pickaxe", "I have a crafting table but no pickaxe.")
    if logs < LOW_LOG_STOCK:
        return DriveSelection("collect", "oak_log", 8, "low_logs", "My log stock is low; I should gather more wood.")
    for step in (next_survival_step(snapshot, furnace_nearby=furnace_nearby, bed_known=bed_known),
                 next_progression_step(snapshot, furnace_nearby)):
        if step is not None and routable(step.action, step.target):
            return step
    return DriveSelection("explore", "nearby", 1, "default", "Things are calm; I will explore nearby.")


def routable(action: str, target: str) -> bool:
    """Does a workflow carry this goal out? collect and descend: the gatherer (any block, any
    level); craft: the crafter's planner knows a recipe; smelt: the furnace table knows the item."""
    if action == "craft":
        return target in CRAFTABLE
    if action == "smelt":
        return output_of(target) is not None
    return action in ("collect", "descend") or action in SURVIVAL_ACTIONS


def _held(snapshot: WorldSnapshot, names: Iterable[str]) -> int:
    return sum(snapshot.count_of(n) for n in names)


def next_progression_step(snapshot: WorldSnapshot, furnace_nearby: bool | None = None) -> DriveSelection | None:
    """The first missing step toward an iron pickaxe (table in the module docstring), or
    None when there is none left that a workflow can carry out."""
    stone_pick = _held(snapshot, STONE_OR_BETTER) > 0
    iron_pick = _held(snapshot, IRON_OR_BETTER) > 0
    ingots = snapshot.count_of("iron_ingot")
    raw = _held(snapshot, ("raw_iron", "iron_ore"))
    cobble = snapshot.count_of("cobblestone")
    coal = _held(snapshot, ("coal", "charcoal"))
    has_furnace = snapshot.count_of("furnace") > 0 or furnace_nearby is True
    to_smelt = 0 if iron_pick else max(0, IRON_FOR_PICKAXE - ingots)
    furnace_needed = to_smelt > 0 and not has_furnace
    steps: list[tuple[bool, DriveSelection]] = []
    need = (0 if stone_pick else STONE_PICKAXE_COBBLE) + (FURNACE_COBBLE if furnace_needed else 0)
    if cobble < need:
        short = need - cobble
        steps.append((True, DriveSelection(
            "collect", "stone", short, "no_cobblestone",
            f"I need {short} more cobblestone for stone tools and a furnace; I will mine stone.")))
    steps += [
        (not stone_pick, DriveSelection("craft", "stone_pickaxe", 1, "no_stone_pickaxe",
                                        "A wooden pickaxe is not enough for iron; I will make a stone pickaxe.")),
        (furnace_needed, DriveSelection("craft", "furnace", 1, "no_furnace",
                                        "There is iron to smelt ahead and no furnace nearby; I will make one.")),
        (to_smelt > 0 and raw + ingots < IRON_FOR_PICKAXE and coal == 0,
         DriveSelection("collect", "coal_ore", COAL_BATCH, "no_coal",
                        "I will need fuel to smelt iron; I should find some coal.")),
        (raw < to_smelt, DriveSelection("collect", "iron_ore", max(1, to_smelt - raw), "no_iron_ore",
                                        "I need iron for an iron pickaxe; I should find some iron ore.")),
        (to_smelt > 0, DriveSelection("smelt", "iron_ingot", max(1, to_smelt), "no_iron_ingot",
                                      "I have the raw iron; I will smelt it into ingots.")),
        (not iron_pick, DriveSelection("craft", "iron_pickaxe", 1, "no_iron_pickaxe",
                                       "I have the iron ingots; I will make an iron pickaxe.")),
        (iron_pick and snapshot.count_of("iron_sword") == 0 and ingots >= IRON_FOR_SWORD,
         DriveSelection("craft", "iron_sword", 1, "no_iron_sword",
                        "I have iron to spare; I will make an iron sword.")),
    ]
    for missing, sel in steps:
        if missing:
            # The first missing step decides: one no workflow can carry out ends the progression
            # (a later step would skip the one it builds on).
            return sel if routable(sel.action, sel.target) else None
    return None


def sight_box(snapshot: WorldSnapshot) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    """(origin, size) of the block region a drive tick grounds on, centred on the bot's block."""
    x, y, z = (math.floor(c) for c in (snapshot.position.x, snapshot.position.y, snapshot.position.z))
    r, v = SIGHT_RADIUS, SIGHT_VERTICAL
    return (x - r, y - v, z - r), (2 * r + 1, 2 * v + 1, 2 * r + 1)


SIGHT_ACTIONS = frozenset({"collect", "gather", "mine", "craft"})


def explore_first(ungrounded: DriveSelection, grounding: GroundingResult) -> DriveSelection:
    why = grounding.detail.split(": ", 1)[-1]
    return DriveSelection("explore", "nearby", EXPLORE_FIRST_LEGS, "explore_first",
                          f"I cannot {ungrounded.action} {ungrounded.target} from here ({why}); I will explore first.")


def dig_down_first(ungrounded: DriveSelection, snapshot: WorldSnapshot,
                   grounding: GroundingResult) -> DriveSelection | None:
    """For coal or iron out of sight: a staircase down to where it lies (module docstring),
    or None (not an ore found below, no pickaxe to dig with, too close to the floor)."""
    if ungrounded.action != "collect" or ungrounded.target not in DIG_DOWN_ORES:
        return None
    if snapshot.count_matching("_pickaxe") == 0:
        return None
    y = math.floor(snapshot.position.y)
    level = y - DIG_DOWN_BLOCKS
    if ungrounded.target == "iron_ore":
        level = min(level, IRON_LEVEL)
    level = max(level, SAFE_FLOOR_Y, y - MAX_DESCENT)
    if y - level < MIN_DESCENT:
        return None
    why = grounding.detail.split(": ", 1)[-1]
    return DriveSelection("descend", level_target(level), 1, "dig_down_first",
                          f"I cannot {ungrounded.action} {ungrounded.target} from here ({why}); it lies deeper, "
                          f"so I will dig a staircase down to y {level}.")


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


def _build_thought(sel: DriveSelection, now_ms: int, thought_id: str, grounding: GroundingResult) -> Thought:
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
            # The stream requires a passing record on every convertEligible thought (KA-A8).
            grounding=grounding.as_record(),
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
) -> DriveTickResult:
    """Run the gates, pick a drive, check idempotency, ground it on the frame (the
    snapshot plus `region`, the blocks in sight_box; None = not read, nothing in sight),
    exploring first when it does not ground. A furnace in that region counts as one nearby.
    Firing updates state and counts driveTicks; a skip changes nothing, so the next safe
    moment can fire."""
    if furnace_nearby is not True and region is not None and furnace_in_sight(region):
        furnace_nearby = True
    candidate = drive_candidate(snapshot, now_ms, state, existing_tasks, shelter_nearby=shelter_nearby,
                                table_nearby=table_nearby, furnace_nearby=furnace_nearby, bed_known=bed_known,
                                sheltering=sheltering, config=config)
    if isinstance(candidate, DriveTickSkipped):
        return candidate
    sel = candidate
    thought_id = f"thought-{uuid.uuid4()}"  # the scenario id of the grounding log line
    facts = FrameFacts.from_snapshot(snapshot, region=region, blocks=("crafting_table",) if table_nearby else ())
    # Judged quietly: a failure is logged only under a thought that is published.
    grounding = check_doable_goal(_goal(sel), facts, scenario_id=None)
    ungrounded = None
    if not grounding.passed:
        ungrounded, sel = sel, dig_down_first(sel, snapshot, grounding) or explore_first(sel, grounding)
        blocked = _blocked(existing_tasks, sel, now_ms, config)
        if blocked is not None:
            return blocked
        log_grounding_fail(grounding, thought_id)
        grounding = check_doable_goal(_goal(sel), facts, scenario_id=thought_id)
    thought = _build_thought(sel, now_ms, thought_id, grounding)
    state.fired(now_ms)
    if counters is not None:
        counters.increment("driveTicks")
        # Its goal came out of a [GOAL: ...] tag through the sanitizer, like an LLM's.
        counters.increment("goalTags")
    return DriveTickFired(thought=thought, selection=sel, ungrounded=ungrounded)


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
) -> DriveSelection | DriveTickSkipped:
    """The goal a drive tick would ground now, or why it skips (gates, interval, a goal in
    flight). The daemon reads the blocks in sight only for a candidate that needs them."""
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
    sel = select_drive(snapshot, shelter_nearby, table_nearby, furnace_nearby, bed_known)
    # A goal already in flight is its task's business: it is not grounded again.
    blocked = _blocked(existing_tasks, sel, now_ms, config)
    return sel if blocked is None else blocked


def furnace_in_sight(region: BlockRegion) -> bool:
    """A furnace among the blocks read (the region's palette: no scan of its cells)."""
    return any(n in FURNACE_BLOCKS for n in region.palette if n)


def needs_sight(candidate: DriveSelection | DriveTickSkipped) -> bool:
    """Collect and craft goals ground on the blocks around the bot; the others do not."""
    return isinstance(candidate, DriveSelection) and candidate.action in SIGHT_ACTIONS


def _goal(sel: DriveSelection) -> ExtractedGoal:
    return ExtractedGoal(action=sel.action, target=sel.target, amount=sel.amount)


def _blocked(tasks: TaskLookup | Iterable[Task], sel: DriveSelection, now_ms: int,
             config: DriveTickConfig) -> DriveTickSkipped | None:
    goal_key = canonical_goal_key(sel.action, sel.target)
    blocking = find_blocking_task(tasks, goal_key, now_ms, config.stuck_timeout_ms)
    if blocking is None:
        return None
    return DriveTickSkipped(DriveSkipReason.duplicate_goal, f"{goal_key} already {blocking.status.value}",
                            blocking_task_id=blocking.id)
