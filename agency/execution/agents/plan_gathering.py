"""A plan's raw materials (agency.execution.agents.plan_builder): collect_block steps in
batches, each after a tool with uses left for it; a hunt for a drop; buckets filled. The first
gather of an ore that lies underground comes after a seek_ore step (staircases down to its
level unless one is in sight: agency.tools.mining); just before that first descent, the logs
the rest of the plan needs are gathered to take down (the stock `planned` counts)."""

from __future__ import annotations

import math

from agency.execution.agents.plan_steps import WorkflowPlanError
from agency.execution.agents.plan_tools import ToolSteps
from agency.execution.agents.sources import gatherable, source_block
from agency.execution.workflows.models import WorkflowDef
from agency.game.animals import animal_for
from agency.game.fills import EMPTY, fill_source
from agency.game.harvest import needs_tool
from agency.game.loot import chance_drop
from agency.game.ores import ore_level
from agency.tools.hunting import MAX_HUNT

FUEL_LOG = "log"  # what to gather as fuel when none is held: any log burns 300 ticks
HUNT_EXPLORES = 4  # looks elsewhere a plan's hunt makes when no animal is in sight (agency.tools.hunting.HUNT_LOOK)
# A drive tick's goal that hunts was asked for an animal in sight (agency.cognition.survival_steps):
# gone by then, one look elsewhere, and the tick's next goal takes over; a bench bed's sheep hunt
# explored four times for its third wool and did nothing else for six minutes (26.1 seed 5062 at 3f04955).
DRIVE_HUNT_EXPLORES = 1
GATHER_BATCH = 6  # per collect step: a big order (a shelter's 18 logs) is several checkpointed steps,
# each well inside collect_block's time limit, so a stop loses at most one batch


class GatherSteps(ToolSteps):
    """Raw materials dug, hunted or filled, and the descent to an ore's level."""

    batch = GATHER_BATCH  # the most one collect step gathers

    # ---- gathering ------------------------------------------------------------------------
    def gather(
        self, raw: str, short: int, *, step_id: str | None = None, note: str = "", block: str | None = None
    ) -> None:
        """collect_block steps for `short` more `raw` in batches, each ensuring a running total,
        each after a tool with uses left for it: a batch ends where the last tool breaks."""
        raw = (gatherable(raw) or raw) if block is None else raw  # a group: the member gathered
        block = block or source_block(raw)
        if block is None:
            raise WorkflowPlanError("NO_SOURCE", f"the bot knows no block to gather {raw} from")
        while short > 0:
            self.ensure_tool(block)
            self._seek(block)
            by_chance = chance_drop(raw)
            chance = by_chance[1] if by_chance is not None and by_chance[0] == block else 1.0
            uses = int(self.uses_left(block) * chance) if needs_tool(block) else short  # digs per item: 1 / chance
            batch = min(self.batch, short, max(1, uses))
            total = self.held(raw) + batch
            self.add(
                step_id or f"gather-{raw}",
                tool="collect_block",
                description=f"have {total} {raw}" + (f" ({note})" if note else ""),
                args={"block": block, "count": total, "ensure": True}
                | ({"item": raw, "chance": chance} if chance < 1 else {}),
            )
            self._wear(block, math.ceil(batch / chance))
            if block == FUEL_LOG and self._descended():
                self.logs_below.append((batch, note == "fuel"))
            self.sim[raw] = self.sim.get(raw, 0) + batch
            short -= batch

    def _seek(self, block: str) -> None:
        """Before the first gather of an ore that lies underground (agency.game.ores): a
        seek_ore step, staircases down to its level unless one is in sight by then."""
        if ore_level(block) is None or any(s.tool == "seek_ore" and s.args.get("block") == block for s in self.steps):
            return
        if not self._descended():
            self._stock_up()
        # A table or furnace placed above is out of reach at an ore's level (the places' reuse
        # distance is 48 m, an ore's level as far below): the crafts and smelts there get their own.
        self.table = self.furnace = False
        self.add(
            f"seek-{block.replace('_', '-')}",
            tool="seek_ore",
            description=f"dig down to where {block} lies, unless one is in sight",
            args={"block": block},
        )

    def _descended(self) -> bool:
        return any(s.tool == "seek_ore" for s in self.steps)

    def _stock_up(self) -> None:
        """Before the first descent: the logs the rest of the plan needs (self.stock)."""
        kept, fuel = self.stock
        if kept + fuel <= 0:
            return
        with self.serving("after the descent"):
            self.gather(FUEL_LOG, kept + fuel, step_id="gather-log-stock", note="taken down")
        self.unburnt += kept

    # ---- hunting ------------------------------------------------------------------------
    def hunt(self, drop: str, short: int) -> None:
        """A hunt step until `short` more `drop` are held (drops are random: the kills are
        counted at run time, MAX_HUNT at most), exploring when no animal is in sight."""
        animal = animal_for(drop)
        assert animal is not None, drop
        total = self.held(drop) + short
        self.add(
            f"hunt-{animal}",
            tool="hunt",
            description=f"have {total} {drop}, hunting {animal}",
            args={
                "target": animal,
                "count": MAX_HUNT,
                "until_item": drop,
                "until_count": total,
                "explore_attempts": HUNT_EXPLORES,
            },
        )
        self.sim[drop] = self.sim.get(drop, 0) + short

    # ---- buckets ------------------------------------------------------------------------
    def fill(self, filled: str, short: int) -> None:
        """`short` more `filled` buckets: the empty buckets crafted first when too few are held
        (lava is dug down for: agency.tools.buckets), then one fill_bucket step ensuring the total."""
        fluid = str(fill_source(filled))
        empty = self.sim.get(EMPTY, 0)
        if empty < short:
            self.craft(EMPTY, short - empty)
        if fluid == "lava":
            self.ensure_tool("stone")  # the staircase down needs a pickaxe
            self._seek("lava")
        total = self.sim.get(filled, 0) + short
        self.add(
            f"fill-{fluid}",
            tool="fill_bucket",
            description=f"have {total} {filled}",
            args={"fluid": fluid, "count": total},
        )
        self.sim[EMPTY] -= short
        self.sim[filled] = total


def drive_hunts(workflow: WorkflowDef) -> WorkflowDef:
    """`workflow` with its hunts looking elsewhere at most DRIVE_HUNT_EXPLORES times: the
    plan of a drive tick's goal (agency.execution.agents.runtime)."""
    steps = [
        s.model_copy(update={"args": s.args | {"explore_attempts": DRIVE_HUNT_EXPLORES}})
        if s.tool == "hunt" and int(s.args.get("explore_attempts") or 0) > DRIVE_HUNT_EXPLORES
        else s
        for s in workflow.steps
    ]
    return workflow.model_copy(update={"steps": steps})
