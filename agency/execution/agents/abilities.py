"""Abilities: short Minecraft know-how texts injected into the system prompt of prompt
steps before the call (docs/contracts.md ABILITY-1): the profile's core abilities first and
never filtered (ABILITY-2), then abilities matched to the task by relevance, all within a
token budget, with a warning when something had to be cut (ABILITY-3).

Tokens are estimated offline as ceil(chars / 4): no tokenizer dependency, and the
estimate only has to be consistent with itself.
"""

from __future__ import annotations

import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from loguru import logger
from pydantic import BaseModel, ConfigDict, Field

HEADER = "## Abilities\n"
TRUNCATION_MARK = " [...]"


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / 4)


def words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.lower().replace("_", " ")))


class Ability(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    title: str = Field(min_length=1)
    text: str = Field(min_length=1)
    keywords: list[str] = Field(default_factory=list)

    def block(self) -> str:
        return f"### {self.title}\n{self.text.strip()}\n"

    def relevance(self, task_words: set[str]) -> int:
        return len(task_words & (words(" ".join(self.keywords)) | words(self.title)))


class AbilityLibrary:
    def __init__(self, abilities: list[Ability] | None = None) -> None:
        self.by_id: dict[str, Ability] = {}
        for a in abilities or []:
            if a.id in self.by_id:
                raise ValueError(f"duplicate ability id '{a.id}'")
            self.by_id[a.id] = a

    @classmethod
    def load_dir(cls, path: str | Path) -> AbilityLibrary:
        found: list[Ability] = []
        for f in sorted(Path(path).glob("*.toml")):
            data = tomllib.loads(f.read_text(encoding="utf-8"))
            found.extend(Ability.model_validate(a) for a in data.get("ability", []))
        return cls(found)

    def get(self, ability_id: str) -> Ability:
        return self.by_id[ability_id]

    def ids(self) -> list[str]:
        return sorted(self.by_id)


@dataclass
class InjectionResult:
    system_prompt: str
    ability_ids: list[str]
    tokens: int
    truncated: bool = False
    dropped: list[str] = field(default_factory=list)


def inject_abilities(
    library: AbilityLibrary,
    core: list[str],
    candidates: list[str] | None,
    task_text: str,
    base_system: str,
    budget_tokens: int,
) -> InjectionResult:
    """The system prompt with abilities prepended; the ability block stays within
    budget_tokens. Core abilities are always present (their text cut if the budget is
    smaller than they are); task-matched ones are added by relevance while they fit."""
    task_words = words(task_text)
    pool = [i for i in (candidates or library.ids()) if i not in core and i in library.by_id]
    scored = sorted(((library.get(i).relevance(task_words), i) for i in pool), key=lambda si: (-si[0], si[1]))
    matched = [i for score, i in scored if score > 0]
    out, ids, used, truncated, dropped = [HEADER], [], estimate_tokens(HEADER), False, []
    for aid in core:
        text = library.get(aid).block()
        room = budget_tokens - used
        if estimate_tokens(text) > room:  # never filtered out: cut, keep
            keep = room * 4 - len(TRUNCATION_MARK)
            text = text[:keep] + TRUNCATION_MARK if keep > 0 else ""
            truncated = True
        out.append(text)
        ids.append(aid)
        used = estimate_tokens("".join(out))
    for aid in matched:
        text = library.get(aid).block()
        if used + estimate_tokens(text) > budget_tokens:
            dropped.append(aid)
            truncated = True
            continue
        out.append(text)
        ids.append(aid)
        used = estimate_tokens("".join(out))
    if truncated:
        logger.warning(
            "ability injection truncated to {} tokens (budget {}); dropped: {}",
            used,
            budget_tokens,
            ", ".join(dropped) or "none (core text cut)",
        )
    block = "".join(out) if ids else ""
    system = f"{block}\n{base_system}".strip() + "\n" if block else base_system
    return InjectionResult(system, ids, used if ids else 0, truncated, dropped)
