"""What a task asks the runtime for: {action, target, amount}, and a drive tick's follow-ups."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

FollowUpSpec = tuple[str, str, int, int]  # action, target, total to hold once done, the goal's own amount


class TaskSpec(BaseModel):
    model_config = ConfigDict(frozen=True)

    action: str = Field(min_length=1)
    target: str = ""
    amount: int = Field(default=1, ge=1)
    id: str | None = None
    to: str = ""  # deliver: the bot the items are for
    ensure: bool = False  # craft: amount is the total to hold, not how many more to make
    then: tuple[FollowUpSpec, ...] = ()  # a drive tick's follow-ups, done after the goal (follow_up_runs)

    def text(self) -> str:
        return " ".join(p for p in (self.action, self.target, str(self.amount)) if p)

    def as_context(self) -> dict[str, Any]:
        ctx = {"action": self.action.lower(), "target": self.target, "amount": self.amount, "id": self.id}
        if self.to:
            ctx["to"] = self.to
        if self.ensure:
            ctx["ensure"] = True
        return ctx
