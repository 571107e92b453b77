"""Situation frames (docs/contracts.md KEEPALIVE-1, EVAL-3): facts, changes and a memory slice,
rendered under a named prompt profile.

A frame states what IS: vitals, threats, creatures, time, inventory, position, and what
changed since the previous frame. It never proposes anything: no candidate lists, no
advice, no imperative wording. Profiles change only composition (fact budget, whether
changes are included and how many, memory slice size, formatting), never policy.
This module is the frame-building path that the KEEPALIVE-1 test scans for action verbs, so
keep such words out of it, comments included.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from agency.cognition.grounding import FrameFacts
from agency.perception.stimuli import Stimulus, describe_entities
from agency.world import WorldSnapshot, day_phase

FrameFormat = Literal["compact", "lines", "sections"]
FRAME_KIND = "factual_only"
MEMORY_CHARS = 160  # one remembered thought, clipped


@dataclass(frozen=True)
class PromptProfile:
    name: str
    fact_budget: int
    max_deltas: int  # 0 = changes not included
    memory_slice: int
    formatting: FrameFormat


PROFILES: dict[str, PromptProfile] = {
    "minimal": PromptProfile("minimal", fact_budget=4, max_deltas=0, memory_slice=0, formatting="compact"),
    "balanced": PromptProfile("balanced", fact_budget=8, max_deltas=3, memory_slice=3, formatting="lines"),
    "rich": PromptProfile("rich", fact_budget=16, max_deltas=8, memory_slice=8, formatting="sections"),
}


def get_profile(name: str) -> PromptProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"unknown prompt profile {name!r}; known: {', '.join(PROFILES)}") from None


@dataclass(frozen=True)
class SituationFrame:
    profile: str
    facts: tuple[str, ...]
    deltas: tuple[str, ...]
    memories: tuple[str, ...]
    text: str
    world: FrameFacts  # what grounding may check claims against
    kind: str = FRAME_KIND


def _fmt_num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:.1f}"


def snapshot_facts(s: WorldSnapshot, radius: float = 32.0) -> list[str]:
    """Every fact a snapshot supports, most important first (the budget cuts the tail)."""
    inventory = ", ".join(f"{i.name} x{i.count}" for i in s.inventory if i.count > 0) or "empty"
    creatures, _ = describe_entities(s, radius)
    p = s.position
    facts = [
        f"health {_fmt_num(s.health)}/20",
        f"food {s.food}/20",
        f"hostile mobs nearby: {s.hostiles}",
        creatures.rstrip("."),
        f"time: {day_phase(s.timeOfDay)} (tick {s.timeOfDay})",
        f"inventory: {inventory}",
        f"position: {_fmt_num(round(p.x, 1))}, {_fmt_num(round(p.y, 1))}, {_fmt_num(round(p.z, 1))}",
        f"dimension: {s.dimension}",
        f"game mode: {s.gameMode}",
    ]
    if s.saturation is not None:
        facts.append(f"saturation {_fmt_num(s.saturation)}")
    return facts


def snapshot_deltas(prev: WorldSnapshot | None, cur: WorldSnapshot, stimuli: Sequence[Stimulus] = ()) -> list[str]:
    """What changed since the previous frame, as plain before -> after statements."""
    out: list[str] = []
    if prev is not None:
        if prev.health != cur.health:
            out.append(f"health {_fmt_num(prev.health)} -> {_fmt_num(cur.health)}")
        if prev.food != cur.food:
            out.append(f"food {prev.food} -> {cur.food}")
        if prev.hostiles != cur.hostiles:
            out.append(f"hostile mobs {prev.hostiles} -> {cur.hostiles}")
        if day_phase(prev.timeOfDay) != day_phase(cur.timeOfDay):
            out.append(f"time {day_phase(prev.timeOfDay)} -> {day_phase(cur.timeOfDay)}")
        before = {i.name: 0 for i in prev.inventory}
        for i in prev.inventory:
            before[i.name] += i.count
        after = {i.name: 0 for i in cur.inventory}
        for i in cur.inventory:
            after[i.name] += i.count
        for name in sorted(set(before) | set(after)):
            if before.get(name, 0) != after.get(name, 0):
                out.append(f"{name} {before.get(name, 0)} -> {after.get(name, 0)}")
    for st in stimuli:
        if st.kind == "damage":
            out.append(f"took damage ({st.detail.get('hits', 1)} hits)")
        elif st.kind == "novel_entity":
            out.append("newly seen: " + ", ".join(st.detail.get("names", [])))
    return list(dict.fromkeys(out))


def _render(profile: PromptProfile, facts: Sequence[str], deltas: Sequence[str], memories: Sequence[str]) -> str:
    if profile.formatting == "compact":
        return "; ".join([*facts, *deltas, *memories])
    if profile.formatting == "lines":
        lines = [f"- {f}" for f in facts] + [f"- change: {d}" for d in deltas]
        lines += [f"- earlier thought: {m}" for m in memories]
        return "\n".join(lines)
    sections = ["Facts:", *(f"- {f}" for f in facts)]
    if deltas:
        sections += ["Changes:", *(f"- {d}" for d in deltas)]
    if memories:
        sections += ["Earlier thoughts:", *(f"- {m}" for m in memories)]
    return "\n".join(sections)


def build_frame(
    snapshot: WorldSnapshot,
    profile: PromptProfile | str,
    *,
    previous: WorldSnapshot | None = None,
    stimuli: Sequence[Stimulus] = (),
    memories: Iterable[str] = (),
    world: FrameFacts | None = None,
) -> SituationFrame:
    prof = get_profile(profile) if isinstance(profile, str) else profile
    facts = snapshot_facts(snapshot)[: prof.fact_budget]
    deltas = snapshot_deltas(previous, snapshot, stimuli)[: prof.max_deltas] if prof.max_deltas else []
    mems: list[str] = []
    if prof.memory_slice:
        for m in memories:
            text = " ".join(m.split())
            if text:
                mems.append(text if len(text) <= MEMORY_CHARS else text[: MEMORY_CHARS - 3] + "...")
            if len(mems) >= prof.memory_slice:
                break
    return SituationFrame(
        profile=prof.name,
        facts=tuple(facts),
        deltas=tuple(deltas),
        memories=tuple(mems),
        text=_render(prof, facts, deltas, mems),
        world=world if world is not None else FrameFacts.from_snapshot(snapshot),
    )
