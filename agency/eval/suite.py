"""Eval suites: JSONL scenario files, re-read and validated on every run (docs/contracts.md
EVAL-1, EVAL-2).

One line = one scenario: the world as a snapshot-like dict, deltas (a partial 'previous'
world plus stimuli), a memory slice and the properties expected of the thought. Loading
hashes the exact bytes read, so an edited file shows a new sha and line count in the very
next run's `[Eval] suite_loaded` line; nothing is cached or compiled.

Validation fails fast on the first bad line with `[Eval] suite_invalid ...` naming the
path, the 1-based line number and the pydantic error list as JSON (exit code 5 in the CLI).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from loguru import logger
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from agency.errors import SchemaError
from agency.perception.stimuli import Stimulus, StimulusKind
from agency.world import EntityInfo, InventoryItem, Vec3, WorldSnapshot, day_phase

# Creatures counted as hostile when a scenario does not say (matches what the bridge reports).
HOSTILE_NAMES = frozenset(
    {
        "zombie",
        "skeleton",
        "creeper",
        "spider",
        "cave_spider",
        "enderman",
        "witch",
        "slime",
        "drowned",
        "husk",
        "stray",
        "phantom",
        "pillager",
        "zombie_villager",
    }
)
ScenarioStimulus = Literal["low", "elevated", "high"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ScenarioEntity(_Strict):
    name: str = Field(min_length=1)
    distance: float = Field(8.0, ge=0)
    hostile: bool | None = None  # None: decided by HOSTILE_NAMES


class ScenarioWorld(_Strict):
    """A snapshot-like dict: every field optional, defaults describe a calm day."""

    health: float = Field(20, ge=0, le=20)
    food: int = Field(20, ge=0, le=20)
    saturation: float | None = Field(None, ge=0)
    gameMode: Literal["survival", "creative", "adventure", "spectator"] = "survival"
    dimension: str = "overworld"
    timeOfDay: int = Field(1000, ge=0, lt=24000)
    position: tuple[float, float, float] = (0.0, 64.0, 0.0)
    inventory: dict[str, int] = Field(default_factory=dict)
    entities: list[ScenarioEntity] = Field(default_factory=list)
    hostiles: int | None = Field(None, ge=0)  # None: counted from entities

    @model_validator(mode="after")
    def _counts(self) -> ScenarioWorld:
        bad = [k for k, v in self.inventory.items() if v < 0]
        if bad:
            raise ValueError(f"negative inventory counts: {bad}")
        return self

    def snapshot(self, ts: int = 0) -> WorldSnapshot:
        x, y, z = self.position
        ents = [
            EntityInfo(
                name=e.name,
                type="mob",
                hostile=e.hostile if e.hostile is not None else e.name in HOSTILE_NAMES,
                distance=e.distance,
                position=Vec3(x=x + e.distance, y=y, z=z),
            )
            for e in self.entities
        ]
        hostiles = self.hostiles if self.hostiles is not None else sum(1 for e in ents if e.hostile)
        return WorldSnapshot(
            health=self.health,
            food=self.food,
            saturation=self.saturation,
            gameMode=self.gameMode,
            dimension=self.dimension,
            timeOfDay=self.timeOfDay,
            isDay=day_phase(self.timeOfDay) != "night",
            position=Vec3(x=x, y=y, z=z),
            inventory=[InventoryItem(name=n, count=c) for n, c in self.inventory.items()],
            entities=ents,
            hostiles=hostiles,
            ts=ts,
        )


class ScenarioStimulusEvent(_Strict):
    kind: StimulusKind
    detail: dict[str, Any] = Field(default_factory=dict)


class ScenarioDeltas(_Strict):
    previous: dict[str, Any] | None = None  # fields of `world` as they were one frame earlier
    stimuli: list[ScenarioStimulusEvent] = Field(default_factory=list)


class ScenarioExpect(_Strict):
    """Properties judged per scenario. None of them ever requires action (EVAL-7)."""

    no_hallucination: bool = True  # grounding of goal and text claims passes (PROPERTY-1)
    no_compulsion: bool = False  # no goal at all in this scenario (for calm scenes)


class Scenario(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")  # also a file name
    version: int = Field(ge=1)
    description: str = ""
    stimulus: ScenarioStimulus
    world: ScenarioWorld
    deltas: ScenarioDeltas = Field(default_factory=ScenarioDeltas)
    memory: list[str] = Field(default_factory=list)
    expect: ScenarioExpect = Field(default_factory=ScenarioExpect)

    @model_validator(mode="after")
    def _previous_is_a_world(self) -> Scenario:
        if self.deltas.previous is not None:
            ScenarioWorld.model_validate(self.world.model_dump() | self.deltas.previous)
        return self


@dataclass(frozen=True)
class PreparedScenario:
    """A scenario ready to frame: what the harness runs, from a suite line or a fixture."""

    id: str
    version: int
    hash: str
    stimulus: ScenarioStimulus
    snapshot: WorldSnapshot
    previous: WorldSnapshot | None
    stimuli: tuple[Stimulus, ...]
    memory: tuple[str, ...]
    expect: ScenarioExpect
    line: int
    description: str = ""


@dataclass(frozen=True)
class LoadedSuite:
    name: str
    path: Path
    sha256: str
    line_count: int
    scenarios: list[PreparedScenario] = field(default_factory=list)


class SuiteInvalid(SchemaError):
    def __init__(self, path: Path, line: int, errors: list[dict[str, Any]]) -> None:
        super().__init__(f"{path}:{line}: {json.dumps(errors)}")
        self.path, self.line, self.errors = path, line, errors


def scenario_hash(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def prepare(s: Scenario, line: int, raw: dict[str, Any]) -> PreparedScenario:
    snap = s.world.snapshot()
    prev = None
    if s.deltas.previous is not None:
        prev = ScenarioWorld.model_validate(s.world.model_dump() | s.deltas.previous).snapshot()
    stimuli = tuple(Stimulus(st.kind, 0, dict(st.detail)) for st in s.deltas.stimuli)
    return PreparedScenario(
        s.id,
        s.version,
        scenario_hash(raw),
        s.stimulus,
        snap,
        prev,
        stimuli,
        tuple(s.memory),
        s.expect,
        line,
        s.description,
    )


def _errors(e: ValidationError) -> list[dict[str, Any]]:
    return [{"loc": list(err["loc"]), "msg": err["msg"], "type": err["type"]} for err in e.errors()]


def _invalid(path: Path, line: int, errors: list[dict[str, Any]]) -> SuiteInvalid:
    logger.error("[Eval] suite_invalid path={} line={} errors={}", path, line, json.dumps(errors))
    return SuiteInvalid(path, line, errors)


def load_suite(path: str | Path) -> LoadedSuite:
    """Read, hash, log and validate a suite; raises SuiteInvalid at the first bad line."""
    p = Path(path)
    data = p.read_bytes()
    lines = data.decode("utf-8").splitlines()
    sha = hashlib.sha256(data).hexdigest()
    count = sum(1 for ln in lines if ln.strip())
    logger.info("[Eval] suite_loaded path={} line_count={} suite_sha256={}", p, count, sha)
    scenarios: list[PreparedScenario] = []
    seen: set[str] = set()
    for lineno, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            raw = json.loads(text)
            scenario = Scenario.model_validate(raw)
        except json.JSONDecodeError as e:
            raise _invalid(
                p, lineno, [{"loc": [], "msg": f"not JSON: {e.msg} at column {e.colno}", "type": "json_invalid"}]
            ) from None
        except ValidationError as e:
            raise _invalid(p, lineno, _errors(e)) from None
        if scenario.id in seen:  # ids name artifact files: a duplicate would overwrite one
            raise _invalid(
                p, lineno, [{"loc": ["id"], "msg": f"duplicate scenario id {scenario.id!r}", "type": "duplicate_id"}]
            )
        seen.add(scenario.id)
        scenarios.append(prepare(scenario, lineno, raw))
    if not scenarios:
        raise _invalid(p, 0, [{"loc": [], "msg": "suite has no scenarios", "type": "empty_suite"}])
    return LoadedSuite(p.stem, p, sha, count, scenarios)
