"""Shelter tools for the builder: pick and anchor a site, then build one blueprint module.

`shelter_site` reads one region around the bot and picks a flat site (or returns the site
the goal is already anchored to, so a resumed or repair run builds in the same place).
`build_shelter_module` builds one module of agency.goals.shelter_blueprint like
build_blueprint does (one region read, skip what already stands, so a re-run repairs),
but places every block from the ring around the footprint: the bot never walls itself in.
The goal store's side (anchoring, module progress) goes through ctx.hooks["shelter"] when
the daemon provides it; without it the tools still build.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Literal, Protocol

from pydantic import Field

from agency.goals.shelter_blueprint import ShelterBlueprint, basic_shelter
from agency.goals.site_check import stands
from agency.goals.site_finder import REPLACEABLE, SCAN_RADIUS, choose_site, ring_cells, scan_box
from agency.tools.actions import run_action
from agency.tools.base import BODY_QUEUE, Tool, ToolContext, ToolFailure, ToolInput
from agency.tools.movement import walk
from agency.tools.results import PRECONDITION_FAILED
from agency.tools.spatial import block_pos

HOOKS_KEY = "shelter"
EYE_HEIGHT = 1.62
PLACE_REACH = 4.5  # survival reach, measured from the eyes
PLACE_POLL_S = 0.05


class ShelterHooks(Protocol):
    def anchored_site(self, task_id: str) -> dict[str, Any] | None: ...
    def anchor(self, task_id: str, blueprint: ShelterBlueprint, materials: dict[str, Any]) -> None: ...
    def module_done(self, task_id: str, index: int, total: int, name: str) -> None: ...


class _Materials(ToolInput):
    taskId: str | None = None
    wallBlock: str = Field(default="oak_planks", min_length=1)
    doorBlock: str = Field(default="oak_door", min_length=1)
    lightBlock: str = Field(default="torch", min_length=1)


class ShelterSiteInput(_Materials):
    pass


class ShelterModuleInput(_Materials):
    origin: tuple[int, int, int]
    facing: Literal["north", "south", "east", "west"]
    module: str = Field(min_length=1)


def _hooks(ctx: ToolContext) -> ShelterHooks | None:
    return ctx.hooks.get(HOOKS_KEY)


def blueprint_for(p: _Materials, origin: tuple[int, int, int], facing: str) -> ShelterBlueprint:
    return basic_shelter(origin, facing, wall_block=p.wallBlock, door_block=p.doorBlock, light_block=p.lightBlock)  # type: ignore[arg-type]


async def shelter_site(ctx: ToolContext, p: ShelterSiteInput) -> dict[str, Any]:
    hooks = _hooks(ctx)
    if hooks is not None and p.taskId:
        known = hooks.anchored_site(p.taskId)
        if known is not None:  # anchored once, for good: resume and repair build here
            return {**known, "anchored": True, "reused": True}
    feet = block_pos(ctx.body.snapshot().position)
    choice = choose_site(ctx.body.region(*scan_box(feet)), feet)
    if choice is None:
        raise ToolFailure(PRECONDITION_FAILED, f"no flat 7x7 spot with 4 clear layers within {SCAN_RADIUS} blocks of the bot")
    bp = blueprint_for(p, choice.origin, choice.facing)
    materials = {"wallBlock": p.wallBlock, "doorBlock": p.doorBlock, "lightBlock": p.lightBlock}
    if hooks is not None and p.taskId:
        hooks.anchor(p.taskId, bp, materials)
    return {"origin": list(choice.origin), "facing": choice.facing, "modules": [m.name for m in bp.modules],
            "anchored": bool(hooks and p.taskId), "reused": False, **materials}


def _reach(stand: tuple[float, float, float], target: tuple[int, int, int]) -> bool:
    eye = (stand[0], stand[1] + EYE_HEIGHT, stand[2])
    return math.dist(eye, (target[0] + 0.5, target[1] + 0.5, target[2] + 0.5)) <= PLACE_REACH


async def _approach(ctx: ToolContext, origin: tuple[int, int, int], target: tuple[int, int, int],
                    upcoming: list[tuple[int, int, int]]) -> None:
    """Stay put if the target is within reach from outside the footprint; else walk to the
    ring cell that reaches it and as many of the upcoming placements as possible (fewest
    walks), the nearest such cell first."""
    pos = ctx.body.snapshot().position
    feet = block_pos(pos)
    x0, _, z0 = origin
    inside = x0 <= feet[0] < x0 + 5 and z0 <= feet[2] < z0 + 5
    if not inside and _reach((pos.x, pos.y, pos.z), target):
        return
    cells = [c for c in ring_cells(origin) if _reach((c[0] + 0.5, c[1], c[2] + 0.5), target)] or ring_cells(origin)

    def score(c: tuple[int, int, int]) -> tuple[int, float]:
        stand = (c[0] + 0.5, c[1], c[2] + 0.5)
        covered = sum(1 for u in upcoming if _reach(stand, u))
        return (-covered, math.dist(c, feet))

    spot = min(cells, key=score)
    await walk(ctx, spot[0] + 0.5, spot[1], spot[2] + 0.5, 0)


def _build_order(placements: list[tuple[int, int, int, str]], origin: tuple[int, int, int],
                 feet: tuple[int, int, int]) -> list[tuple[int, int, int, str]]:
    """Around the footprint once, starting on the bot's side (a walk every few blocks, not
    every block); outer rings first, so each roof block has a placed neighbour to go against."""
    cx, cz = origin[0] + 2, origin[2] + 2
    start = math.atan2(feet[2] - cz, feet[0] - cx)

    def key(p: tuple[int, int, int, str]) -> tuple[int, float]:
        ring = max(abs(p[0] - cx), abs(p[2] - cz))
        return (-ring, (math.atan2(p[2] - cz, p[0] - cx) - start) % math.tau)

    return sorted(placements, key=key)


async def build_shelter_module(ctx: ToolContext, p: ShelterModuleInput) -> dict[str, Any]:
    bp = blueprint_for(p, p.origin, p.facing)
    names = [m.name for m in bp.modules]
    if p.module not in names:
        raise ToolFailure(PRECONDITION_FAILED, f"no module '{p.module}' in {bp.template} (has {', '.join(names)})")
    module = bp.module(p.module)
    xs, ys, zs = zip(*[(x, y, z) for x, y, z, _ in module.placements])
    lo = (min(xs), min(ys), min(zs))
    standing = ctx.body.region(lo, (max(xs) - lo[0] + 1, max(ys) - lo[1] + 1, max(zs) - lo[2] + 1))
    placed, skipped = [], 0
    todo = []
    for x, y, z, block in _build_order(module.placements, p.origin, block_pos(ctx.body.snapshot().position)):
        here = standing.block_at(x, y, z)
        if stands(p.module, block, here):
            skipped += 1
        elif here is not None and here not in REPLACEABLE:
            raise ToolFailure(PRECONDITION_FAILED, f"{p.module}: {x},{y},{z} is taken by {here}, {block} cannot go there")
        else:
            todo.append((x, y, z, block))
    # A placement takes ~0.1-0.3 s: poll it finely, or each one waits out a whole interval.
    fast = replace(ctx, poll_interval_s=min(ctx.poll_interval_s, PLACE_POLL_S))
    for i, (x, y, z, block) in enumerate(todo):
        ctx.check()
        await _approach(ctx, p.origin, (x, y, z), [(a, b, c) for a, b, c, _ in todo[i + 1:]])
        await run_action(fast, "place", {"block": block, "x": x, "y": y, "z": z})
        placed.append({"x": x, "y": y, "z": z})
    hooks = _hooks(ctx)
    if hooks is not None and p.taskId:
        hooks.module_done(p.taskId, names.index(p.module) + 1, len(names), p.module)
    return {"module": p.module, "placed": placed, "skipped": skipped}


TOOLS = [
    Tool("shelter_site", "Choose (or recall) a flat site for a basic shelter near the bot and anchor the goal there.",
         ShelterSiteInput, shelter_site, timeout_s=30, queue=BODY_QUEUE),
    Tool("build_shelter_module", "Build one module of a basic shelter, skipping blocks that already stand.",
         ShelterModuleInput, build_shelter_module, timeout_s=300, queue=BODY_QUEUE),
]
