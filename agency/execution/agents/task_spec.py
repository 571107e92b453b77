"""What a task asks the runtime for: {action, target, amount}, and a drive tick's follow-ups."""

from __future__ import annotations

from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field


class FollowUpSpec(NamedTuple):
    action: str
    target: str
    total: int  # to hold once done
    amount: int  # the goal's own
    hunts: bool = False  # its plan hunts (chosen on the surface with its animal in sight)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "target": self.target, "total": self.total, "amount": self.amount}
        return out | ({"hunts": True} if self.hunts else {})


class TaskSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    action: str = Field(min_length=1)
    target: str = ""
    amount: int = Field(default=1, ge=1)
    id: str | None = None
    to: str = ""  # deliver: the bot the items are for
    ensure: bool = False  # craft: amount is the total to hold, not how many more to make
    then: tuple[FollowUpSpec, ...] = ()  # a drive tick's follow-ups, done after the goal (follow_up_runs)
    drive: bool = False  # a drive tick's goal: a plan of it that hunts is for the surface (AgentRuntime)
    # smelt: a stock, not a count: as many as the input held makes (a hunt found no more of it)
    settle: bool = False
    # blocks a failed step explored for and found none of (agency.execution.replans): the fresh
    # plan makes the thing another way where the game has one (charcoal for a torch's coal)
    absent: tuple[str, ...] = ()

    def text(self) -> str:
        return " ".join(p for p in (self.action, self.target, str(self.amount)) if p)

    def as_context(self) -> dict[str, Any]:
        ctx = {"action": self.action.lower(), "target": self.target, "amount": self.amount, "id": self.id}
        if self.to:
            ctx["to"] = self.to
        if self.ensure:
            ctx["ensure"] = True
        if self.settle:
            ctx["settle"] = True
        if self.absent:
            ctx["absent"] = list(self.absent)
        return ctx
