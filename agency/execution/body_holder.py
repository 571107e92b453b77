"""Who has the body. The reflexes first: a threat, hunger, the night in a shelter, a death's
dropped items (they stop a direct action that holds it). Then a user's or MCP client's
direct action. Else the executor's tasks. The executor claims nothing while another holder
has the body, and a drive tick fires nothing (the night in the shelter is one of its own
gates)."""

from __future__ import annotations

from typing import Any, Literal, Protocol

from agency.world import WorldSnapshot

Holder = Literal["reflex", "direct", "executor"]
REFLEX: Holder = "reflex"
DIRECT: Holder = "direct"
EXECUTOR: Holder = "executor"


class ReflexHold(Protocol):
    """What the holder asks of the reflexes (agency.execution.reflexes.Reflexes)."""

    @property
    def holding_tasks(self) -> bool: ...

    def leaves_be(self, snap: WorldSnapshot) -> bool: ...


class DirectHold(Protocol):
    """What the holder asks of the direct actions (agency.execution.direct.DirectActions)."""

    @property
    def body_busy(self) -> Any: ...


class BodyHolder:
    """Reflexes or direct actions absent (before a body is attached): the executor's."""

    def __init__(self, reflexes: ReflexHold | None = None, direct: DirectHold | None = None) -> None:
        self._reflexes = reflexes
        self._direct = direct

    @property
    def reflexes_hold(self) -> bool:
        """A reflex acts, the bot shelters for the night, or it recovers a death's items."""
        return self._reflexes is not None and self._reflexes.holding_tasks

    def hostiles_left_be(self, snap: WorldSnapshot) -> bool:
        """The hostiles near are all ones the reflexes leave be (out of reach, not hurting)."""
        return self._reflexes is not None and snap.hostiles > 0 and self._reflexes.leaves_be(snap)

    @property
    def direct_holds(self) -> bool:
        """A direct action that moves the body is running."""
        return self._direct is not None and self._direct.body_busy is not None

    @property
    def holder(self) -> Holder:
        if self.reflexes_hold:
            return REFLEX
        if self.direct_holds:
            return DIRECT
        return EXECUTOR

    @property
    def taken(self) -> bool:
        """Another holder than the executor has the body: it claims nothing."""
        return self.holder != EXECUTOR
