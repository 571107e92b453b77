"""`build_plan`: the builder's generated workflow for `build <target> <amount>`.

`build basic_shelter 1` becomes: get what the inventory lacks (delegated to the crafter: a
door, planks from logs - a few spare to fill holes in the ground -, a torch when coal is
held), then pick and anchor a site (one region read) where the bot stands once it has
everything - so a crafting table the crafter placed is never on the site -, clear and
level it, then one checkpointed step per blueprint module (walls x3, roof, door, light), so a
stopped build resumes at the next module and a re-run skips what stands; a bed held goes in
last (agency.shelter.bed: both halves inside, clear of the way in). Completion is
NOT a step: the executor completes a goal-bound build only when verify_shelter_v0 passes
twice. Any other target keeps the old 2-high pillar.

task["facts"] (optional, from the daemon) says what is still missing at an anchored site:
{"needed": {block: count}, "wallBlock": ..., "doorBlock": ...}: a repair gathers only that.
In a fleet, facts["helpers"] names the bots that deliver: the walls are asked of them first
(request_delivery), the door made meanwhile, and the crafter makes only what did not come.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import Any

from agency.blocks import WOODS
from agency.execution.agents.planning import WorkflowPlanError
from agency.execution.workflows.models import ParallelConfig, StepDef, WorkflowDef
from agency.game.recipes import CRAFTABLE, available
from agency.shelter.bed import is_bed
from agency.shelter.blueprint import basic_shelter
from agency.shelter.stand_ins import is_planks

SHELTER_TARGETS = frozenset({"basic_shelter", "shelter"})
WALL_CHOICES = ("oak_planks", "spruce_planks", "birch_planks", "cobblestone", "stone", "dirt")
DEFAULT_WALL = "oak_planks"  # when the bot holds no wood at all (the drive tick gets logs first)
DOOR = "oak_door"
LIGHT = "torch"
DOOR_PLANKS = 6  # oak_door recipe (3 doors)
TABLE_PLANKS = 4  # a crafting table, when none is held
TORCH_PLANKS = 2  # one stick's worth
FILL_PLANKS = 4  # spare, to fill holes when levelling (earthwork.MAX_FILLS) if no dirt is dug
# The night kit (_night_kit): what a hut built of the trees around it leaves the bot with.
NIGHT_KIT_TOOL = "wooden_pickaxe"
NIGHT_KIT_PLANKS = 5  # the pickaxe's 3 planks and 2 for its sticks
PLANKS_PER_LOG = 4
NIGHT_KIT_LOGS = 4  # a table, sticks and a furnace's fuel down there (agency.cognition.drive_rules)


def _full_need(wall: str, door: str = DOOR) -> Counter[str]:
    return basic_shelter((0, 0, 0), wall_block=wall, door_block=door, light_block=LIGHT).materials()


def choose_wall(inventory: Mapping[str, int]) -> str:
    """A wall block the bot already holds enough of for the whole hut, else the planks of
    the wood it holds most of (logs or planks: a birch forest's bot builds of birch), else
    oak planks."""
    for block in WALL_CHOICES:
        if inventory.get(block, 0) >= _full_need(block)[block]:
            return block
    return f"{held_wood(inventory) or 'oak'}_planks"


def held_wood(inventory: Mapping[str, int]) -> str | None:
    """The wood kind most held as logs or planks (a log counts as the 4 planks it makes)."""
    held: dict[str, int] = {}
    for name, n in inventory.items():
        for wood in WOODS:
            if name == f"{wood}_log":
                held[wood] = held.get(wood, 0) + 4 * n
            elif name == f"{wood}_planks":
                held[wood] = held.get(wood, 0) + n
    return max(sorted(held), key=lambda w: held[w]) if held else None


def door_of(wall: str, inventory: Mapping[str, int]) -> str:
    """The door of the walls' wood (a door needs six planks of one wood); for walls of stone or
    dirt a wooden door held, else the door of the wood held most, else oak's: a 26.1 bench bot
    with 102 cobblestone, 22 spruce logs and 2 spruce doors failed its second hut on "no
    oak_log within 32 blocks", gathering logs for an oak door."""
    wood = wall.removesuffix("_planks") if wall.endswith("_planks") else None
    if wood is None:
        held = [f"{w}_door" for w in sorted(WOODS) if inventory.get(f"{w}_door", 0) > 0]
        wood = held[0].removesuffix("_door") if held else held_wood(inventory)
    return f"{wood}_door" if wood is not None and f"{wood}_door" in CRAFTABLE else DOOR


def _night_kit(facts: Mapping[str, Any], inventory: Mapping[str, int], wall: str, short: int) -> bool:
    """A first hut made of planks from the trees around it (the crafter gathers logs for it),
    with no pickaxe held, also leaves a wooden pickaxe and NIGHT_KIT_LOGS logs: the night's
    work under the hut (agency.shelter.dig_in) needs both, and a bench bot whose hut took every
    log sat its first night out in it, the pickaxe the next morning's first goal. A repair, a
    fleet's build and a hut of materials held get none."""
    return (
        "needed" not in facts
        and not facts.get("helpers")
        and wall.endswith("_planks")
        and short > 0
        and not any(name.endswith("_pickaxe") and n > 0 for name, n in inventory.items())
    )


def _craft(step_id: str, target: str, amount: int, why: str) -> StepDef:
    return StepDef(
        id=step_id,
        kind="delegate",
        agent="crafter",
        description=why,
        task={"action": "craft", "target": target, "amount": amount},
    )


def _walls_steps(wall: str, total: int, door: int, used: int, inventory: Mapping[str, int]) -> list[StepDef]:
    """Steps to hold `total` planks for the walls and roof at the site, after the door has taken
    `door` planks of the walls' wood and the table, torch and pickaxe `used` planks of any wood
    (the crafter takes other woods' first). Other woods' planks held stand in for the walls'
    (agency.shelter.stand_ins), and when the walls' own planks and logs fall short, the planks
    of other logs held are made first: only what none of them covers is gathered, as the walls'
    wood. The last step ensures a total, so a re-run makes nothing twice."""
    wood = wall.removesuffix("_planks")
    spare = sum(n for name, n in inventory.items() if is_planks(name) and name != wall and n > 0) - used
    others = max(spare, 0)
    used = door + max(-spare, 0)  # what the walls' own wood gives before its walls
    own = inventory.get(wall, 0) + PLANKS_PER_LOG * inventory.get(f"{wood}_log", 0) - used
    left = total - others - max(own, 0)
    steps: list[StepDef] = []
    for other in sorted(WOODS, key=lambda w: (-inventory.get(f"{w}_log", 0), w)):
        logs = inventory.get(f"{other}_log", 0)
        if other == wood or logs <= 0 or left <= 0:
            continue
        n = min(left, PLANKS_PER_LOG * logs)
        why = f"make {n} {other}_planks of the logs held, to stand in for {wall}"
        steps.append(_craft(f"get-{other.replace('_', '-')}-planks", f"{other}_planks", n, why))
        others, left = others + n, left - n
    if total - others > inventory.get(wall, 0) - used:  # what the planks held leave short
        steps.append(
            StepDef(
                id="get-walls",
                kind="delegate",
                agent="crafter",
                description=f"hold {total - others} {wall} for the walls and roof",
                task={"action": "craft", "target": wall, "amount": total - others, "ensure": True},
            )
        )
    return steps


def shelter_plan(agent_id: str, task: Mapping[str, Any], inventory: Mapping[str, int]) -> WorkflowDef:
    facts = task.get("facts") or {}
    wall = str(facts.get("wallBlock") or choose_wall(inventory))
    door = str(facts.get("doorBlock") or door_of(wall, inventory))
    need = Counter(facts["needed"]) if "needed" in facts else _full_need(wall, door)
    have = Counter(inventory)
    materials = {"taskId": "${task.id}", "wallBlock": wall, "doorBlock": door, "lightBlock": LIGHT}
    steps: list[StepDef] = []
    helpers = list(facts.get("helpers") or [])  # a fleet's bots that deliver (agency/planning/delivery.py)
    planks_used = 0
    planks = wall if wall.endswith("_planks") else DEFAULT_WALL  # what the door, table and torch take
    table_counted = bool(have["crafting_table"])  # the planks of a table the crafter places are counted once
    door_planks = 0  # of the walls' wood: a door is of one wood (door_of)
    if need[door] > have[door]:
        if door not in CRAFTABLE:
            raise WorkflowPlanError("NO_MATERIALS", f"the shelter needs a {door} and the bot cannot craft one")
        steps.append(_craft("get-door", door, 1, "craft a door"))
        door_planks = DOOR_PLANKS if door.removesuffix("_door") == planks.removesuffix("_planks") else 0
        planks_used += DOOR_PLANKS + (0 if table_counted else TABLE_PLANKS)
        table_counted = True
    light = need[LIGHT] <= have[LIGHT] or available(have, "coal") > 0
    if need[LIGHT] > have[LIGHT] and light:
        steps.append(_craft("get-torch", LIGHT, 1, "craft a torch"))
        planks_used += 0 if have["stick"] else TORCH_PLANKS
    spare = FILL_PLANKS if "needed" not in facts else 0  # a repair builds on a levelled site
    short = need[wall] - have[wall] + (planks_used + spare if wall == planks else 0)
    kit = _night_kit(facts, inventory, wall, short)
    if kit:
        steps.append(_craft("get-pickaxe", NIGHT_KIT_TOOL, 1, "craft a wooden pickaxe for the night's work"))
        kit_planks = NIGHT_KIT_PLANKS + (0 if table_counted else TABLE_PLANKS)  # its table, if the door made none
        planks_used += kit_planks
        short += kit_planks
    held = need[wall] + (spare if wall == planks else 0)  # to hold at the site
    # what the door and torch take from planks held (made from logs the crafter gathers otherwise)
    taken = min(planks_used, have[wall]) if wall == planks else 0
    ask = held - have[wall] + taken
    if helpers and wall.endswith("_planks") and held > 0 and ask > 0:
        # A fleet: another bot brings the walls while this one makes the door; whatever has
        # not come when the wait ends, the crafter makes (it crafts only what is missing).
        steps.insert(
            0,
            StepDef(
                id="ask-walls",
                tool="request_delivery",
                description=f"ask {', '.join(helpers)} for {ask} {wall}",
                args={"taskId": "${task.id}", "item": wall, "count": ask},
            ),
        )
        steps.append(
            StepDef(
                id="await-walls",
                tool="await_delivery",
                description=f"wait to hold {held} {wall}",
                args={"item": wall, "total": held, "deliveryTaskId": "${steps.ask-walls.deliveryTaskId}"},
            )
        )
        steps.append(
            StepDef(
                id="get-walls",
                kind="delegate",
                agent="crafter",
                description=f"hold {held} {wall}",
                task={"action": "craft", "target": wall, "amount": held, "ensure": True},
            )
        )
    elif short > 0:
        if not wall.endswith("_planks"):
            raise WorkflowPlanError("NO_MATERIALS", f"the shelter needs {short} more {wall}")
        steps.extend(_walls_steps(wall, held, door_planks, planks_used - door_planks, inventory))
    if kit and available(inventory, "log") - math.ceil(max(short, 0) / PLANKS_PER_LOG) < NIGHT_KIT_LOGS:
        # (the logs the walls' planks are made of come off those held; enough left: no step)
        steps.append(
            StepDef(
                id="keep-logs",
                tool="collect_block",
                description=f"have {NIGHT_KIT_LOGS} logs for the night's work underground",
                args={"block": "log", "count": NIGHT_KIT_LOGS, "ensure": True},
            )
        )
    steps.append(
        StepDef(
            id="site",
            tool="shelter_site",
            description="choose a site (least earthwork nearby) and anchor the goal",
            args=materials,
        )
    )
    site = {
        "taskId": "${task.id}",
        "origin": "${steps.site.origin}",
        "facing": "${steps.site.facing}",
        "wallBlock": "${steps.site.wallBlock}",
        "doorBlock": "${steps.site.doorBlock}",
        "lightBlock": "${steps.site.lightBlock}",
    }
    steps.append(StepDef(id="prepare", tool="prepare_shelter_site", description="clear and level the site", args=site))
    for module in basic_shelter((0, 0, 0)).modules:
        if module.name == "light" and not light:
            continue  # "a torch if possible": without torch or coal the hut is dark but covered
        steps.append(
            StepDef(
                id=f"module-{module.name.replace('_', '-')}",
                tool="build_shelter_module",
                description=f"build the {module.name}",
                args={**site, "module": module.name},
            )
        )
    if any(is_bed(name) and n > 0 for name, n in inventory.items()):
        steps.append(
            StepDef(
                id="furnish-bed",
                tool="place_shelter_bed",
                description="put the held bed inside",
                args={"origin": "${steps.site.origin}", "facing": "${steps.site.facing}"},
            )
        )
    return WorkflowDef(id=f"{agent_id}-build-shelter", description="build a basic shelter and verify it", steps=steps)


def pillar_plan(agent_id: str, target: str) -> WorkflowDef:
    """A 2-high pillar of target beside the bot, rolled back if placing fails half-way."""
    steps = [
        StepDef(id="where", tool="snapshot"),
        StepDef(id="base", tool="place_block", args={"block": target}, dependsOn=["where"]),
        StepDef(
            id="stack",
            tool="build_blueprint",
            dependsOn=["base"],
            args={
                "name": "pillar",
                "origin": ["${steps.base.x}", "${steps.base.y}", "${steps.base.z}"],
                "placements": [{"x": 0, "y": 1, "z": 0, "block": target}],
            },
        ),
    ]
    return WorkflowDef(
        id=f"{agent_id}-build",
        description="a 2-high pillar of the target block",
        steps=steps,
        parallel=ParallelConfig(maxConcurrency=1, strategy="rollback"),
    )


def build_plan(agent_id: str, task: Mapping[str, Any], inventory: Mapping[str, int]) -> WorkflowDef:
    target = str(task.get("target") or "")
    if target in SHELTER_TARGETS:
        return shelter_plan(agent_id, task, inventory)
    if not target:
        raise WorkflowPlanError("NO_TARGET", "build needs a target (a block, or basic_shelter)")
    return pillar_plan(agent_id, target)
