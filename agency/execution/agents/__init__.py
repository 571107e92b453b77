"""Agent profiles, their registry, selection, abilities and the task runtime."""

from agency.execution.agents.abilities import (
    Ability,
    AbilityLibrary,
    InjectionResult,
    estimate_tokens,
    inject_abilities,
)
from agency.execution.agents.profile import (
    AgentProfile,
    AgentProfileSchema,
    ProfileValidationError,
    WorkflowSpec,
    parse_profile,
)
from agency.execution.agents.registry import (
    STANDARD_AGENT,
    AgentNotFoundError,
    AgentRegistry,
    DuplicateAgentError,
    bot_agents,
    default_registry,
    load_default_registry,
)
from agency.execution.agents.runtime import AgentRuntime, RunHandle, TaskSpec
from agency.execution.agents.selection import AgentSelection, select_agents

__all__ = [
    "STANDARD_AGENT",
    "Ability",
    "AbilityLibrary",
    "AgentNotFoundError",
    "AgentProfile",
    "AgentProfileSchema",
    "AgentRegistry",
    "AgentRuntime",
    "AgentSelection",
    "DuplicateAgentError",
    "InjectionResult",
    "ProfileValidationError",
    "RunHandle",
    "TaskSpec",
    "WorkflowSpec",
    "bot_agents",
    "default_registry",
    "estimate_tokens",
    "inject_abilities",
    "load_default_registry",
    "parse_profile",
    "select_agents",
]
