"""The real world at a build site: one region read of footprint + 8, the verifier on it,
and what the blueprint still lacks there.

`metadata.build` of a shelter task records how to rebuild its blueprint (template, origin,
facing, blocks) and its progress (moduleCursor / totalModules / lastStepId /
lastWorkedAt, which the resolver scores and the hold witness reads).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from typing import Any

from agency.blocks import is_door, is_log, is_solid
from agency.names import same
from agency.shelter.blueprint import ShelterBlueprint, basic_shelter
from agency.shelter.models import SITE_MARGIN, Bounds, SiteSignature, VerificationResult
from agency.shelter.verifier import verify_shelter_v0
from agency.world import BlockRegion, Body

STRUCTURAL_MODULES = ("walls_layer_", "roof", "floor")


def stands(module: str, wanted: str, name: str | None) -> bool:
    """Is this placement already built? The same block, a wall torch for a torch, or (walls
    and roof) any solid block but a log: the verifier asks for a closed wall, not a particular
    wood, but the bot's own collects take the nearest logs (agency.shelter.earthwork._shell)."""
    if same(name, wanted) or (same(wanted, "torch") and same(name, "wall_torch")):
        return True
    return module.startswith(STRUCTURAL_MODULES) and is_solid(name) and not is_door(name) and not is_log(name)


def read_bounds(site: SiteSignature) -> Bounds:
    return site.footprintBounds.expanded(SITE_MARGIN)


def read_site(body: Body, site: SiteSignature) -> BlockRegion:
    """Footprint + 8 in ONE bridge call: all the verifier may look at."""
    b = read_bounds(site)
    size = (b.max[0] - b.min[0] + 1, b.max[1] - b.min[1] + 1, b.max[2] - b.min[2] + 1)
    return body.region(b.min, size)


def blueprint_from(build: Mapping[str, Any] | None) -> ShelterBlueprint | None:
    """The blueprint a shelter task is building, from its metadata.build (None before the
    site is chosen)."""
    if not build or "origin" not in build:
        return None
    return basic_shelter(
        tuple(build["origin"]),
        build.get("facing", "south"),
        wall_block=build.get("wallBlock", "oak_planks"),
        door_block=build.get("doorBlock", "oak_door"),
        light_block=build.get("lightBlock", "torch"),
    )


def verify_region(region: BlockRegion, site: SiteSignature, build: Mapping[str, Any] | None) -> VerificationResult:
    build = build or {}
    done, total = build.get("moduleCursor"), build.get("totalModules")
    return verify_shelter_v0(region, site, completed_modules=done, total_modules=total)


def missing_blocks(region: BlockRegion, blueprint: ShelterBlueprint) -> Counter[str]:
    """Items the blueprint still needs placed at its site (what a repair must bring)."""
    need: Counter[str] = Counter()
    for module in blueprint.modules:
        for x, y, z, block in module.placements:
            if not stands(module.name, block, region.block_at(x, y, z)):
                need[block] += 1
    return need


def region_digest(region: BlockRegion) -> str:
    """Cheap identity of what stands at a site: a changed digest is world drift."""
    h = hashlib.blake2b(digest_size=12)
    h.update(repr((region.origin, region.size, region.palette)).encode())
    h.update(bytes(d % 256 for d in region.data) if len(region.palette) <= 256 else repr(region.data).encode())
    return h.hexdigest()
