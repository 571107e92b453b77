"""What the shelter tools take: the materials of the hut, the site (origin and facing) and
the module, and the goal store's side of a build (ctx.hooks["shelter"]: anchoring the site,
module progress), which the daemon provides; without it the tools still build."""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import Field

from agency.shelter.blueprint import ShelterBlueprint, basic_shelter
from agency.shelter.models import Facing
from agency.tools.base import ToolContext, ToolInput

HOOKS_KEY = "shelter"


class ShelterHooks(Protocol):
    def anchored_site(self, task_id: str) -> dict[str, Any] | None: ...
    def anchor(self, task_id: str, blueprint: ShelterBlueprint, materials: dict[str, Any]) -> None: ...
    def module_done(self, task_id: str, index: int, total: int, name: str) -> None: ...


class ShelterMaterials(ToolInput):
    taskId: str | None = None
    wallBlock: str = Field(default="oak_planks", min_length=1)
    doorBlock: str = Field(default="oak_door", min_length=1)
    lightBlock: str = Field(default="torch", min_length=1)


class ShelterSiteInput(ShelterMaterials):
    pass


class ShelterPrepareInput(ShelterMaterials):
    origin: tuple[int, int, int]
    facing: Literal["north", "south", "east", "west"]


class ShelterModuleInput(ShelterPrepareInput):
    module: str = Field(min_length=1)


def shelter_hooks(ctx: ToolContext) -> ShelterHooks | None:
    return ctx.hooks.get(HOOKS_KEY)


def blueprint_for(p: ShelterMaterials, origin: tuple[int, int, int], facing: Facing) -> ShelterBlueprint:
    return basic_shelter(origin, facing, wall_block=p.wallBlock, door_block=p.doorBlock, light_block=p.lightBlock)
