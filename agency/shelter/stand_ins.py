"""Planks stand in for planks. A hut's walls and roof are judged closed, not of one wood
(agency.shelter.site_check.stands), so once the planks of the walls' wood run out the builder
places other planks it holds, its plan counts them (agency.execution.agents.build_plan), and
the site's holes take them too: a 1.18.2 bench bot holding 15 acacia and 8 oak logs, far from
any acacia, failed its second hut three times on `no acacia_log within 32 blocks`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from agency.shelter.site_check import STRUCTURAL_MODULES

Placement = tuple[int, int, int, str]


def is_planks(name: str) -> bool:
    return name.endswith("_planks")


def held_planks(held: Mapping[str, int]) -> int:
    """Planks of every wood held."""
    return sum(n for name, n in held.items() if is_planks(name) and n > 0)


def with_stand_ins(module: str, todo: list[Placement], held: Mapping[str, int]) -> list[Placement]:
    """`todo` with each planks placement of a wall or the roof beyond the planks of its wood
    held given other planks held (the most held first); what none can cover keeps its block,
    and the materials check names it."""
    if not module.startswith(STRUCTURAL_MODULES):
        return todo
    left, out = Counter({k: v for k, v in held.items() if v > 0}), []
    for x, y, z, block in todo:
        if is_planks(block) and left[block] <= 0:
            others = sorted((n for n in left if is_planks(n) and left[n] > 0), key=lambda n: (-left[n], n))
            block = others[0] if others else block
        left[block] -= 1
        out.append((x, y, z, block))
    return out


def spare_planks(held: Mapping[str, int], wall: str, need: int) -> str | None:
    """Planks to fill a hole with, when more planks are held than the walls still take
    (`need`): the walls' own wood first, else the kind held most."""
    if held_planks(held) <= need:
        return None
    if held.get(wall, 0) > 0:
        return wall
    return max(sorted(n for n, c in held.items() if is_planks(n) and c > 0), key=lambda n: held[n])
