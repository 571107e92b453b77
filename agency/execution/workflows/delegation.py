"""Delegation guard: depth limit (docs/contracts.md DELEGATE-1) and no circular chains
(DELEGATE-2).
Both are returned as errors for the caller, never raised."""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_MAX_DEPTH = 5
DELEGATION_DEPTH_EXCEEDED = "DELEGATION_DEPTH_EXCEEDED"
CIRCULAR_DELEGATION = "CIRCULAR_DELEGATION"


@dataclass(frozen=True)
class DelegationError:
    code: str
    message: str


@dataclass(frozen=True)
class DelegationChain:
    """Agents from the root of the run to the one now working (the last)."""

    agents: tuple[str, ...]
    max_depth: int = DEFAULT_MAX_DEPTH

    @property
    def depth(self) -> int:
        return len(self.agents) - 1

    def can_delegate(self) -> bool:
        return self.depth < self.max_depth

    def is_in_chain(self, agent_id: str) -> bool:
        return agent_id in self.agents

    def check(self, target: str) -> DelegationError | None:
        if self.is_in_chain(target):
            loop = " -> ".join((*self.agents, target))
            return DelegationError(CIRCULAR_DELEGATION, f"circular delegation refused: {loop}")
        if not self.can_delegate():
            return DelegationError(
                DELEGATION_DEPTH_EXCEEDED,
                f"delegation from '{self.agents[-1]}' to '{target}' refused: depth {self.depth + 1} "
                f"would exceed maxDepth {self.max_depth} (chain {' -> '.join(self.agents)})",
            )
        return None

    def extended(self, target: str) -> DelegationChain:
        return DelegationChain((*self.agents, target), self.max_depth)
