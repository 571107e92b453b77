"""Profiles (docs/contracts.md AGENT-1, AGENT-2), selection (SELECT-1..6) and ability
injection (ABILITY-1..3). The test names carry the earlier names (INV-...) the page maps."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from agency.execution.agents import (
    Ability,
    AbilityLibrary,
    AgentRegistry,
    AgentRuntime,
    DuplicateAgentError,
    ProfileValidationError,
    TaskSpec,
    estimate_tokens,
    inject_abilities,
    load_default_registry,
    select_agents,
)
from agency.execution.agents.registry import AgentNotFoundError
from agency.execution.agents.selection import clamp
from agency.execution.workflows import PromptRequest, PromptResult
from agency.tools.base import ToolContext
from agency.tools.registry import ToolRegistry
from tests.unit.conftest import run


def prof(agent_id: str, examples: list[str], not_for: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    p = {
        "id": agent_id,
        "displayName": agent_id.title(),
        "description": f"{agent_id} agent",
        "exampleTasks": examples,
        "notForTasks": not_for or [],
    }
    p.update(extra)
    return p


def registry(*profiles: dict[str, Any]) -> AgentRegistry:
    reg = AgentRegistry(AbilityLibrary())
    reg.register(prof("standard", ["look around"]))
    for p in profiles:
        reg.register(p)
    return reg


# ---- profiles ---------------------------------------------------------------------------
def test_INV_AGT_001_invalid_profiles_rejected_with_descriptive_error(tmp_path: Path) -> None:
    reg = registry()
    cases = [
        (prof("miner", []), "exampleTasks"),  # no examples
        ({"id": "miner", "displayName": "M", "exampleTasks": ["mine"]}, "description"),  # missing field
        (prof("miner", ["mine"], colour="red"), "colour"),  # unknown field
        (
            prof("miner", ["mine"], workflows={"mine": {"steps": [{"id": "a", "kind": "delegate", "agent": "x"}]}}),
            "task",
        ),
        (
            prof(
                "miner",
                ["mine"],
                workflows={
                    "mine": {
                        "steps": [{"id": "a", "tool": "dig", "dependsOn": ["a"]}],
                        "parallel": {"maxConcurrency": 2},
                    }
                },
            ),
            "cycle",
        ),
        (prof("miner", ["mine"], coreAbilities=["no-such-ability"]), "no-such-ability"),
    ]
    for bad, mentioned in cases:
        with pytest.raises(ProfileValidationError) as e:
            reg.register(bad)
        assert mentioned in str(e.value)
        assert "miner" not in reg  # nothing partial got in
    # a directory with one bad file registers nothing at all
    (tmp_path / "a.toml").write_text('id = "alpha"\ndisplayName = "A"\ndescription = "a"\nexampleTasks = ["a"]\n')
    (tmp_path / "b.toml").write_text('id = "Beta"\ndisplayName = "B"\ndescription = "b"\nexampleTasks = ["b"]\n')
    with pytest.raises(ProfileValidationError) as e:
        reg.load_dir(tmp_path)
    assert "b.toml" in str(e.value) and "id" in str(e.value)
    assert "alpha" not in reg and [p.id for p in reg.list()] == ["standard"]


def test_INV_AGT_002_unique_ids_and_explicit_update() -> None:
    reg = registry(prof("miner", ["mine stone"]))
    with pytest.raises(DuplicateAgentError):
        reg.register(prof("miner", ["mine coal"]))
    assert reg.require("miner").exampleTasks == ["mine stone"]  # not overwritten
    updated = reg.update(prof("miner", ["mine coal"]))
    assert reg.require("miner") == updated and updated.exampleTasks == ["mine coal"]
    with pytest.raises(AgentNotFoundError):
        reg.update(prof("digger", ["dig"]))
    for bad_id in ("Miner", "my_agent", "-miner", "miner-", "two--dashes", "has space", ""):
        with pytest.raises(ProfileValidationError):
            reg.register(prof(bad_id, ["x"]))
    reg.register(prof("miner-2", ["x"]))
    with pytest.raises(ProfileValidationError):
        reg.update(prof("standard", ["look around"], enabled=False))


def test_shipped_profiles_load() -> None:
    reg = load_default_registry()
    assert {p.id for p in reg.list()} >= {"standard", "gatherer", "crafter", "builder"}
    assert reg.ensure_standard().enabled
    assert reg.require("crafter").owns("craft") and reg.require("builder").owns("build")
    assert reg.require("gatherer").owns("collect") and reg.require("standard").owns("explore")
    for p in reg.list():
        assert p.exampleTasks and p.coreAbilities and p.workflows


# ---- selection --------------------------------------------------------------------------
PROFILES = [
    prof(
        "crafter",
        ["craft wooden_pickaxe 1", "craft sticks"],
        ["build"],
        workflows={"craft": {"generator": "craft_plan"}},
    ),
    prof("gatherer", ["collect log 8", "mine stone"], ["craft"]),
    prof("builder", ["build a wall"], ["craft"]),
    prof("alpha", ["craft sticks"]),
    prof("sleepy", ["craft wooden_pickaxe 1"], enabled=False),
]
TASKS = ["craft wooden_pickaxe 1", "craft sticks", "please build a wall now", "collect log 8", "dance", "craft", ""]


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10_000), task=st.sampled_from(TASKS))
def test_INV_AGT_SEL_001_selection_is_deterministic_whatever_the_registry_order(seed: int, task: str) -> None:
    base = registry(*PROFILES)
    expected = select_agents(task, base.list(), {"action": "craft"})
    shuffled = base.list()
    random.Random(seed).shuffle(shuffled)
    assert select_agents(task, shuffled, {"action": "craft"}) == expected
    assert select_agents(task, shuffled, {"action": "craft"}) == select_agents(task, shuffled, {"action": "craft"})


@settings(max_examples=60, deadline=None)
@given(
    task=st.text(max_size=40),
    examples=st.lists(st.text(min_size=1, max_size=20).filter(str.strip), min_size=1, max_size=4),
    not_for=st.lists(st.text(min_size=1, max_size=20).filter(str.strip), max_size=3),
)
def test_INV_AGT_SEL_002_confidence_always_within_0_and_1(task: str, examples: list[str], not_for: list[str]) -> None:
    reg = registry(prof("fuzz", examples, not_for, workflows={"craft": {"generator": "craft_plan"}}))
    for sel in select_agents(task, reg.list(), {"action": "craft"}):
        assert 0.0 <= sel.confidence <= 1.0


def test_INV_AGT_SEL_002_out_of_range_scores_clamped_and_logged(logs: list[tuple[str, str]]) -> None:
    assert clamp(1.7, "x") == 1.0 and clamp(-0.2, "y") == 0.0 and clamp(0.4, "z") == 0.4
    errors = [m for level, m in logs if level == "ERROR"]
    assert len(errors) == 2 and "x" in errors[0] and "outside [0, 1]" in errors[0]


def test_INV_AGT_SEL_003_results_sorted_by_confidence_then_id() -> None:
    reg = registry(
        prof("zeta", ["chop wood"]),
        prof("mid", ["chop wood fast"]),
        prof("beta", ["chop wood"]),
        prof("owner", ["x"], workflows={"chop": {"steps": [{"id": "a", "tool": "t"}]}}),
    )
    res = select_agents("chop wood", reg.list())
    assert [(s.agentId, s.confidence) for s in res] == [("beta", 0.6), ("zeta", 0.6), ("mid", 0.4), ("owner", 0.3)]
    keys = [(-s.confidence, s.agentId) for s in select_agents("craft sticks", registry(*PROFILES).list())]
    assert keys == sorted(keys)


def test_INV_AGT_SEL_004_fallback_to_standard() -> None:
    reg = registry(*PROFILES)
    res = select_agents("juggle three pumpkins", reg.list())
    assert [(s.agentId, s.confidence) for s in res] == [("standard", 0.5)]
    assert select_agents("", []) == res  # even an empty registry answers
    empty = AgentRegistry(AbilityLibrary())
    with pytest.raises(ProfileValidationError):
        empty.ensure_standard()
    with pytest.raises(ValueError):
        reg.unregister("standard")


def test_INV_AGT_SEL_005_example_tasks_boost_confidence() -> None:
    reg = registry(prof("miner", ["mine stone", "mine stone fast", "mine coal"]))

    def by_id(text: str) -> dict[str, float]:
        return {s.agentId: s.confidence for s in select_agents(text, reg.list(), {"action": "none"})}

    assert by_id("Mine  STONE!")["miner"] == pytest.approx(0.6)  # exact after normalization
    assert by_id("mine stone now")["miner"] == pytest.approx(0.4)  # substring; several examples count once
    assert by_id("mine")["miner"] == pytest.approx(0.4)  # the other way round
    assert "miner" not in by_id("mine gold")


def test_INV_AGT_SEL_006_not_for_tasks_reduce_confidence() -> None:
    reg = registry(
        prof("crafter", ["craft planks", "craft a door"], ["door"], workflows={"craft": {"generator": "craft_plan"}}),
        prof("other", ["craft planks"]),
    )
    res = {s.agentId: s.confidence for s in select_agents("craft a door", reg.list())}
    # exact 0.6 + owns craft 0.3 - notFor 0.5: still selectable on strong signals
    assert res["crafter"] == pytest.approx(0.4)
    plain = {s.agentId: s.confidence for s in select_agents("craft planks", reg.list())}
    assert plain["crafter"] == pytest.approx(0.9)
    weak = registry(prof("weak", ["dig"], ["dig"]))
    assert {s.agentId: s.confidence for s in select_agents("dig", weak.list())} == {"weak": pytest.approx(0.1)}
    # with only a substring match, the penalty floors at 0 and the agent drops out
    floor = registry(prof("floor", ["dig a hole"], ["hole"]))
    assert [s.agentId for s in select_agents("hole", floor.list())] == ["standard"]


# ---- abilities --------------------------------------------------------------------------
LIB = AbilityLibrary(
    [
        Ability(id="core-one", title="Core one", text="always here " * 5, keywords=["nothing"]),
        Ability(id="wood", title="Wood", text="logs make planks " * 10, keywords=["log", "planks", "craft"]),
        Ability(id="stone", title="Stone", text="stone needs a pickaxe " * 10, keywords=["stone", "pickaxe", "craft"]),
        Ability(id="boats", title="Boats", text="boats float " * 10, keywords=["boat", "water"]),
    ]
)


class RecordingRunner:
    def __init__(self, events: list[str]) -> None:
        self.events = events
        self.requests: list[PromptRequest] = []

    async def run(self, request: PromptRequest) -> PromptResult:
        self.events.append("runner")
        self.requests.append(request)
        return PromptResult(text="ok")


def test_INV_AGT_ABL_001_abilities_injected_before_prompt(tools: ToolRegistry, ctx: ToolContext) -> None:
    reg = AgentRegistry(LIB)
    reg.register(
        prof(
            "standard",
            ["think"],
            coreAbilities=["core-one"],
            abilityTokenBudget=1000,
            workflows={
                "think": {
                    "steps": [
                        {
                            "id": "ask",
                            "kind": "prompt",
                            "system": "You are a bot.",
                            "prompt": "how to get ${task.target}?",
                        }
                    ]
                }
            },
        )
    )
    events: list[str] = []
    runner = RecordingRunner(events)
    rt = AgentRuntime(reg, tools, ctx, prompt_runner=runner)
    original = rt.inject

    def spy(*a: Any) -> Any:
        events.append("inject")
        return original(*a)

    rt.engine.executor.inject = spy
    res = run(rt.run_task(TaskSpec(action="think", target="stone_pickaxe")))
    assert res.ok and events == ["inject", "runner"]
    req = runner.requests[0]
    assert req.system.startswith("## Abilities\n### Core one")  # prepended ...
    assert req.system.rstrip().endswith("You are a bot.")  # ... to the base system prompt
    assert "stone needs a pickaxe" in req.system and req.prompt == "how to get stone_pickaxe?"
    assert req.abilityIds[0] == "core-one" and res.outputs["ask"]["abilityIds"] == req.abilityIds


def test_INV_AGT_ABL_002_core_abilities_always_included_first() -> None:
    res = inject_abilities(LIB, ["boats", "core-one"], None, "craft planks from log", "base", 2000)
    assert res.ability_ids[:2] == ["boats", "core-one"]  # core first, in profile order, even if irrelevant
    assert res.ability_ids[2:] == ["wood", "stone"]  # then task-matched by relevance (wood: 3 hits)
    tiny = inject_abilities(LIB, ["core-one"], None, "craft planks", "base", 20)
    assert tiny.ability_ids[0] == "core-one" and "Core one" in tiny.system_prompt  # never filtered out
    none_match = inject_abilities(LIB, ["core-one"], None, "", "base", 2000)
    assert none_match.ability_ids == ["core-one"]


def test_INV_AGT_ABL_003_token_budget_respected(logs: list[tuple[str, str]]) -> None:
    full = inject_abilities(LIB, ["core-one"], None, "craft stone pickaxe from planks log", "base", 5000)
    assert full.truncated is False and full.ability_ids == ["core-one", "stone", "wood"]
    budget = estimate_tokens("## Abilities\n" + LIB.get("core-one").block() + LIB.get("stone").block()) + 5
    cut = inject_abilities(LIB, ["core-one"], None, "craft stone pickaxe from planks log", "base", budget)
    assert cut.tokens <= budget and cut.truncated is True
    assert cut.ability_ids == ["core-one", "stone"] and cut.dropped == ["wood"]  # the most relevant kept
    block = cut.system_prompt.split("\nbase")[0]
    assert estimate_tokens(block) <= budget
    assert any(level == "WARNING" and "truncated" in m for level, m in logs)
