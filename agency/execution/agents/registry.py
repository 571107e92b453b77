"""AgentRegistry: validated profiles by unique id (docs/contracts.md AGENT-1, AGENT-2). Creating
and updating are separate calls; `standard` always exists and stays enabled (SELECT-4).

The registry is also the one answer to "which task actions can be carried out": an action
is routable when some enabled agent owns a workflow for it (routable_actions), which is
exactly when the runtime can plan it. Goal eligibility asks here; nothing keeps a list."""

from __future__ import annotations

import builtins
import functools
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agency.errors import AgencyError, InvalidInputError
from agency.execution.agents.abilities import AbilityLibrary, estimate_tokens
from agency.execution.agents.profile import AgentProfile, ProfileValidationError, load_profile_file, parse_profile

STANDARD_AGENT = "standard"
CONFIG_DIR = Path(__file__).resolve().parents[3] / "config"


class DuplicateAgentError(InvalidInputError):
    pass


class AgentNotFoundError(AgencyError, KeyError):
    def __str__(self) -> str:
        return f"no agent with id {self.args[0]!r}"


class AgentRegistry:
    def __init__(self, abilities: AbilityLibrary | None = None) -> None:
        self.abilities = abilities or AbilityLibrary()
        self._agents: dict[str, AgentProfile] = {}

    def _check(self, data: Mapping[str, Any] | AgentProfile, source: str | None = None) -> AgentProfile:
        profile = parse_profile(data, source)  # AGENT-1: nothing unparsed gets in
        unknown = [a for a in profile.coreAbilities + profile.abilities if a not in self.abilities.by_id]
        if unknown:
            raise ProfileValidationError(f"agent '{profile.id}' names unknown abilities: {', '.join(unknown)}", source)
        core_tokens = sum(estimate_tokens(self.abilities.get(a).block()) for a in profile.coreAbilities)
        if core_tokens > profile.abilityTokenBudget:
            raise ProfileValidationError(
                f"agent '{profile.id}': core abilities need ~{core_tokens} tokens, over abilityTokenBudget "
                f"{profile.abilityTokenBudget}",
                source,
            )
        if profile.id == STANDARD_AGENT and not profile.enabled:
            raise ProfileValidationError("the 'standard' agent must stay enabled", source)
        return profile

    def register(self, data: Mapping[str, Any] | AgentProfile, source: str | None = None) -> AgentProfile:
        """Create. An existing id is an error: use update()."""
        profile = self._check(data, source)
        if profile.id in self._agents:
            raise DuplicateAgentError(f"agent '{profile.id}' is already registered (use update to change it)")
        self._agents[profile.id] = profile
        return profile

    def update(self, data: Mapping[str, Any] | AgentProfile, source: str | None = None) -> AgentProfile:
        profile = self._check(data, source)
        if profile.id not in self._agents:
            raise AgentNotFoundError(profile.id)
        self._agents[profile.id] = profile
        return profile

    def unregister(self, agent_id: str) -> None:
        if agent_id == STANDARD_AGENT:
            raise ValueError("the 'standard' agent cannot be removed")
        if self._agents.pop(agent_id, None) is None:
            raise AgentNotFoundError(agent_id)

    def get(self, agent_id: str) -> AgentProfile | None:
        return self._agents.get(agent_id)

    def require(self, agent_id: str) -> AgentProfile:
        p = self._agents.get(agent_id)
        if p is None:
            raise AgentNotFoundError(agent_id)
        return p

    def list(self) -> list[AgentProfile]:
        return [self._agents[k] for k in sorted(self._agents)]

    def owners(self, action: str) -> builtins.list[AgentProfile]:
        """Enabled agents with a workflow for the action, by id."""
        return [p for p in self.list() if p.enabled and p.owns(action)]

    def routable_actions(self) -> frozenset[str]:
        """Task actions some enabled agent has a workflow for: what the runtime can plan."""
        return frozenset(action for p in self._agents.values() if p.enabled for action in p.workflows)

    def __contains__(self, agent_id: object) -> bool:
        return agent_id in self._agents

    def ensure_standard(self) -> AgentProfile:
        std = self._agents.get(STANDARD_AGENT)
        if std is None or not std.enabled:
            raise ProfileValidationError("registry has no enabled 'standard' agent (it is the selection fallback)")
        return std

    def load_dir(self, path: str | Path) -> builtins.list[AgentProfile]:
        """All or nothing: every file is validated (and ids checked for duplicates)
        before any profile is registered."""
        files = sorted(Path(path).glob("*.toml"))
        errors: list[str] = []
        checked: list[AgentProfile] = []
        for f in files:
            try:
                checked.append(self._check(load_profile_file(f), str(f)))
            except ProfileValidationError as e:
                errors.append(str(e))
        ids = [p.id for p in checked]
        errors += [
            f"agent id '{i}' defined more than once in {path}" for i in sorted({i for i in ids if ids.count(i) > 1})
        ]
        errors += [f"agent '{i}' is already registered" for i in ids if i in self._agents]
        if errors:
            raise ProfileValidationError("; ".join(errors))
        for p in checked:
            self._agents[p.id] = p
        return checked


def load_default_registry(config_dir: str | Path | None = None) -> AgentRegistry:
    base = Path(config_dir) if config_dir else CONFIG_DIR
    reg = AgentRegistry(AbilityLibrary.load_dir(base / "abilities"))
    reg.load_dir(base / "agents")
    reg.ensure_standard()
    return reg


@functools.cache
def default_registry() -> AgentRegistry:
    """The shipped registry, loaded once per process: the daemon's runtime plans with it and
    goal routing (agency.cognition.eligibility) asks it, so the two cannot disagree."""
    return load_default_registry()


def bot_agents(names: list[str]) -> AgentRegistry:
    """The agents one bot of a fleet works as: the shipped profiles named (and `standard`,
    the selection fallback, always); [] = every shipped profile. ProfileValidationError
    names an unknown profile and the known ones."""
    shipped = default_registry()
    if not names:
        return shipped
    unknown = [n for n in names if n not in shipped]
    if unknown:
        known = ", ".join(p.id for p in shipped.list())
        raise ProfileValidationError(f"unknown agent profile(s) {', '.join(map(repr, unknown))} (known: {known})")
    reg = AgentRegistry(shipped.abilities)
    for agent_id in dict.fromkeys([*names, STANDARD_AGENT]):
        reg.register(shipped.require(agent_id))
    return reg
