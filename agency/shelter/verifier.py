"""verify_shelter_v0 (docs/contracts.md VERIFY-1): is there really a shelter at this site?

Existence checks on a block region, never pathfinding. Every read goes through a view
bounded by footprintBounds + 8, so the verifier can neither be fooled by a structure
further away nor grow in cost with the world. Hard requirements (all needed for done):
enclosure, roof, a 2-high passable entrance, spawn safety. Soft ones add to the score.

`lit` is reported beside them and can fail without failing the shelter: every floor cell
inside at block light >= 8 from the torches (and other emitters) inside, worked out from the
blocks (agency.shelter.lighting). A dark hut still shelters: no hostile spawns within 24
blocks of a player (vanilla), so none appears inside while the bot is in it; the light keeps
the hut clear while it is away, and the bot has no torch without coal.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Protocol

from agency.blocks import is_door, is_open_for_enclosure, is_passable, is_solid
from agency.names import canonical
from agency.shelter.lighting import SAFE_LEVEL, block_light, floor_cells
from agency.shelter.models import FACING_VECTORS, SITE_MARGIN, Bounds, Pos, SiteSignature, VerificationResult
from agency.tools.spatial import neighbours

MARGIN = SITE_MARGIN
ROOF_SCAN = 8  # blocks above each probe
COVER_SCAN = 4  # solid within this above a probe = dark but safe from spawns
MIN_SAFE_LIGHT = 8
WORKSTATION_REACH = 4.0
HARD_WEIGHT = 0.5  # score: half from the hard checks, half from the soft ones
SOFT_BED, SOFT_STORAGE, SOFT_WORKSTATIONS, SOFT_FIDELITY = 0.15, 0.1, 0.1, 0.15

LightSource = Callable[[Pos], "int | None"] | Mapping[Pos, int]


class BlockSource(Protocol):
    def block_at(self, x: int, y: int, z: int) -> str | None: ...


class _BoundedView:
    """The only way the verifier reads blocks. Out-of-bounds reads return None (unknown)
    and are counted: a nonzero count is a verifier bug, reported in the evidence."""

    def __init__(self, region: BlockSource, bounds: Bounds) -> None:
        self.region, self.bounds = region, bounds
        self.seen: dict[Pos, str | None] = {}
        self.out_of_bounds = 0
        self.unknown: set[Pos] = set()

    def get(self, p: Pos) -> str | None:
        if p in self.seen:
            return self.seen[p]
        if not self.bounds.contains(p):
            self.out_of_bounds += 1
            return None
        name = self.region.block_at(*p)
        self.seen[p] = name
        if name is None:
            self.unknown.add(p)
        return name


def _fmt(p: Pos) -> str:
    return f"{p[0]},{p[1]},{p[2]}"


def _enclosure(view: _BoundedView, footprint: Bounds, probe: Pos) -> tuple[str, set[Pos]]:
    """BFS through open cells from probe; leaving the footprint is an exit. Depth capped at
    the footprint diagonal. Returns (verdict, visited): enclosed / leak@x,y,z / unloaded /
    probe_blocked / unbounded."""
    start = view.get(probe)
    if start is None:
        return "unloaded", set()
    if not is_open_for_enclosure(start):
        return "probe_blocked", set()
    cap = math.ceil(footprint.diagonal)
    visited, queue, capped = {probe}, deque([(probe, 0)]), False
    while queue:
        cell, depth = queue.popleft()
        for n in neighbours(cell):
            if n in visited:
                continue
            if not footprint.contains(n):
                return f"leak@{_fmt(cell)}", visited
            name = view.get(n)
            if name is None:
                return "unloaded", visited
            if is_open_for_enclosure(name):
                if depth + 1 > cap:
                    capped = True
                    continue
                visited.add(n)
                queue.append((n, depth + 1))
    return ("unbounded" if capped else "enclosed"), visited


def _first_solid_above(view: _BoundedView, p: Pos, limit: int) -> int | None:
    """Height of the first solid block above p within limit; -1 if an unknown cell came first."""
    for dy in range(1, limit + 1):
        name = view.get((p[0], p[1] + dy, p[2]))
        if name is None:
            return -1
        if is_solid(name):
            return dy
    return None


def _light_at(light: LightSource | None, p: Pos) -> int | None:
    if light is None:
        return None
    return light.get(p) if isinstance(light, Mapping) else light(p)


def _station_hits(
    view: _BoundedView, stations: Mapping[str, Iterable[Pos]] | None, match: Callable[[str], bool]
) -> list[Pos]:
    """Where `match` (on canonical names) finds a station in the view or the known stations."""
    found = [p for p, n in view.seen.items() if n is not None and match(canonical(n))]
    for name, positions in (stations or {}).items():
        if match(canonical(name)):
            found.extend((x, y, z) for x, y, z in positions)
    return found


def _near(points: list[Pos], probes: list[Pos]) -> bool:
    return any(math.dist(a, b) <= WORKSTATION_REACH for a in points for b in probes)


def verify_shelter_v0(
    region: BlockSource,
    site: SiteSignature,
    *,
    light: LightSource | None = None,
    stations: Mapping[str, Iterable[Pos]] | None = None,
    completed_modules: int | None = None,
    total_modules: int | None = None,
) -> VerificationResult:
    """light: level per position when the bot can read it (else the covered-above fallback).
    stations: the station registry (name -> positions). completed/total_modules: fidelity."""
    footprint = site.footprintBounds
    view = _BoundedView(region, footprint.expanded(MARGIN))
    probes = list(site.interiorProbes)
    blockers: list[str] = []
    evidence: list[str] = [f"bounds={_fmt(view.bounds.min)}..{_fmt(view.bounds.max)}"]
    hard_passed = 0
    if not probes:
        blockers.append("no_interior_probes")

    # Enclosure: at least one probe's volume closed within the footprint.
    verdicts = [(p, *_enclosure(view, footprint, p)) for p in probes]
    evidence += [f"enclosure:{_fmt(p)}={v} cells={len(cells)}" for p, v, cells in verdicts]
    if any(v == "enclosed" for _, v, _ in verdicts):
        hard_passed += 1
    elif probes:
        blockers.append("not_enclosed")

    # Roof: a solid block within 8 above every probe.
    roofs = {p: _first_solid_above(view, p, ROOF_SCAN) for p in probes}
    evidence += [f"roof:{_fmt(p)}=+{h}" for p, h in roofs.items() if h and h > 0]
    if probes and all(h and h > 0 for h in roofs.values()):
        hard_passed += 1
    elif probes:
        blockers.append("no_roof")

    # Entrance: the declared doorway is 2 high and passable (a door, open or closed, is).
    if site.entrance is None:
        blockers.append("no_entrance")
    else:
        e = site.entrance
        lower, upper = view.get(e), view.get((e[0], e[1] + 1, e[2]))
        evidence.append(f"entrance:{_fmt(e)} lower={lower} upper={upper}")
        if is_passable(lower) and is_passable(upper):
            hard_passed += 1
            dx, dz = FACING_VECTORS[site.facing]
            outside = (e[0] + dx, e[1], e[2] + dz)
            evidence.append(f"entrance_outside:{_fmt(outside)}={view.get(outside)}")  # informative only
            if is_door(lower) or is_door(upper):
                evidence.append("entrance_has_door")
        elif lower is not None and upper is not None:
            blockers.append("entrance_too_low" if is_passable(lower) or is_passable(upper) else "entrance_blocked")

    # Spawn safety: each probe lit >= 8, or covered by a solid block within 4.
    unsafe = []
    for p in probes:
        level = _light_at(light, p)
        if level is not None and level >= MIN_SAFE_LIGHT:
            evidence.append(f"spawn:{_fmt(p)}=lit {level}")
        elif (h := _first_solid_above(view, p, COVER_SCAN)) and h > 0:
            evidence.append(f"spawn:{_fmt(p)}=covered +{h}" + ("" if level is None else f" light {level}"))
        else:
            unsafe.append(p)
    if probes and not unsafe:
        hard_passed += 1
    elif probes:
        blockers.append("spawn_unsafe")

    lit = _lit(view, footprint, [cells for _, v, cells in verdicts if v == "enclosed"], evidence)

    if view.unknown:
        blockers.insert(0, "unloaded")
        evidence.append(f"unknown_blocks={len(view.unknown)}")
    if view.out_of_bounds:
        evidence.append(f"out_of_bounds_reads={view.out_of_bounds}")

    # Soft: bed, storage, workstations within reach, template fidelity.
    soft = 0.0
    if _station_hits(view, stations, lambda n: n == "bed" or n.endswith("_bed")):
        soft += SOFT_BED
        evidence.append("soft:bed")
    if _station_hits(view, stations, lambda n: n in ("chest", "trapped_chest", "barrel")):
        soft += SOFT_STORAGE
        evidence.append("soft:storage")
    tables = _station_hits(view, stations, lambda n: n == "crafting_table")
    furnaces = _station_hits(view, stations, lambda n: n == "furnace")
    if _near(tables, probes) and _near(furnaces, probes):
        soft += SOFT_WORKSTATIONS
        evidence.append("soft:workstations")
    if completed_modules is not None and total_modules:
        soft += SOFT_FIDELITY * min(max(completed_modules / total_modules, 0.0), 1.0)
        evidence.append(f"soft:fidelity {completed_modules}/{total_modules}")
    evidence.append(f"reads={len(view.seen)}")

    done = not blockers and hard_passed == 4
    score = round(HARD_WEIGHT * hard_passed / 4 + soft, 4)
    return VerificationResult(done=done, score=score, blockers=blockers, evidence=evidence, lit=lit)


def _lit(view: _BoundedView, footprint: Bounds, enclosed: list[set[Pos]], evidence: list[str]) -> bool | None:
    """Every floor cell of the enclosed space at block light >= SAFE_LEVEL (None: nothing enclosed)."""
    inside = set().union(*enclosed) if enclosed else set()
    floor = floor_cells(view.get, inside)
    if not floor:
        return None
    levels = block_light(view.get, footprint)
    dark = [p for p in floor if levels.get(p, 0) < SAFE_LEVEL]
    lowest = min(floor, key=lambda p: levels.get(p, 0))
    evidence.append(
        f"lit:{len(floor) - len(dark)}/{len(floor)} floor cells >= {SAFE_LEVEL}, "
        f"lowest {levels.get(lowest, 0)} at {_fmt(lowest)}"
    )
    return not dark
