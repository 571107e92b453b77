"""Deliveries: how one bot of a fleet asks the others for materials, through the task store.

A builder short of planks (or a crafter short of an ingredient) posts a `deliver` task
(target: the item, amount: how many, parameters.to: the asker) with the asking task as its
parent: bound to the helper that holds the most of the item when one of this daemon's holds
any (`held_by`: a helper without it would go and gather it while the holder idles), else
open to any bot. Another bot
claims it like any task, gets the items and hands them over (the `give` tool). The asking
bot waits on its own inventory and the delivery task's status, and withdraws a request
nobody took. Nothing is shared but the store, so bots of several daemons help each other
the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from loguru import logger

from agency.planning.tasks.models import IllegalTransitionError, Task, TaskNotFoundError, TaskOrigin, TaskStatus
from agency.planning.tasks.store import TaskStore

DELIVER = "deliver"
DELIVERY_HOOK = "delivery"  # the ToolContext hook a bot's tools find the board under
LIVE = (TaskStatus.pending, TaskStatus.active, TaskStatus.paused)


@dataclass(frozen=True)
class DeliveryState:
    status: str  # a TaskStatus value, or "missing" for a task the store no longer has
    heldBy: str | None = None

    @property
    def claimed(self) -> bool:
        return self.heldBy is not None or self.status == TaskStatus.active.value

    @property
    def over(self) -> bool:
        return self.status not in {s.value for s in LIVE}


class DeliveryBoard:
    """One bot's side of deliveries: `me` asks, `helpers()` names the bots that may deliver."""

    def __init__(
        self,
        tasks: TaskStore,
        me: str,
        helpers: Callable[[], Sequence[str]],
        *,
        held_by: Callable[[str], Mapping[str, int]] | None = None,
    ) -> None:
        self.tasks, self.me, self._helpers = tasks, me, helpers
        self._held_by = held_by  # a helper's inventory at its last look; None: not known (another daemon's)

    def helpers(self) -> list[str]:
        return [name for name in self._helpers() if name != self.me]

    def helpers_hold(self) -> dict[str, int]:
        """What the helpers hold together, by item (empty when not known)."""
        out: dict[str, int] = {}
        if self._held_by is not None:
            for name in self.helpers():
                for item, n in self._held_by(name).items():
                    out[item] = out.get(item, 0) + n
        return out

    def holder(self, item: str) -> str | None:
        """The helper holding the most of `item`, None when none is known to hold any."""
        if self._held_by is None:
            return None
        held = [(self._held_by(name).get(item, 0), name) for name in self.helpers()]
        best = max(held, default=(0, ""))
        return best[1] if best[0] > 0 else None

    def request(self, parent_task_id: str, item: str, count: int, near: Sequence[int] | None = None) -> str:
        """Post (or find, on a resumed run) the live delivery of `item` for the parent task;
        `near`: where the asking bot is (the helper walks there first: it may be out of sight)."""
        for task in self.tasks.list_by_status(*LIVE):
            if (
                task.type == DELIVER
                and task.metadata.parentTaskId == parent_task_id
                and task.parameters.get("target") == item
                and task.parameters.get("to") == self.me
            ):
                return task.id
        holder = self.holder(item)
        task = self.tasks.add_task(
            {
                "title": f"deliver {count} {item} to {self.me}",
                "type": DELIVER,
                "source": "delivery",
                "priority": 0.7,
                "parameters": {
                    "target": item,
                    "amount": count,
                    "to": self.me,
                    **({"near": list(near)} if near else {}),
                },
                "metadata": {"parentTaskId": parent_task_id, **({"bot": holder} if holder else {})},
            },
            origin=TaskOrigin(kind="system", sourceId=self.me, parentTaskId=parent_task_id),
        )
        logger.info(
            "[Delivery] {} asks for {} {} (of {}; task {}, for {})",
            self.me,
            count,
            item,
            holder or "any bot",
            task.id,
            parent_task_id,
        )
        return task.id

    def state(self, task_id: str) -> DeliveryState:
        task = self.tasks.get_task(task_id)
        if task is None:
            return DeliveryState("missing")
        return DeliveryState(task.status.value, task.metadata.heldBy)

    def withdraw(self, task_id: str, why: str) -> bool:
        """Fail a request nobody has taken yet; False when a bot holds it (let it finish)."""
        task = self.tasks.get_task(task_id)
        if task is None or task.status is not TaskStatus.pending:
            return False
        try:
            self.tasks.set_status(
                task_id,
                TaskStatus.failed,
                metadata_patch={"blockedReason": f"withdrawn: {why}"},
                only_from=TaskStatus.pending,
            )
        except (IllegalTransitionError, TaskNotFoundError):
            return False  # claimed in between (active -> failed is a legal move: the read is checked again)
        logger.info("[Delivery] {} withdrew task {}: {}", self.me, task_id, why)
        return True

    def withdraw_for(self, parent_task_id: str, why: str) -> int:
        """The task that asked ended: withdraw its requests nobody has taken yet."""
        return sum(
            self.withdraw(t.id, why)
            for t in self.tasks.list_by_status(TaskStatus.pending)
            if t.type == DELIVER and t.metadata.parentTaskId == parent_task_id
        )

    def on_task_event(self, kind: str, task: Task) -> None:
        """The executor's lifecycle events: a build that ended needs no more deliveries."""
        if kind in ("completed", "failed") and task.type != DELIVER:
            self.withdraw_for(task.id, f"task {task.id} {kind}")

    def near(self, task_id: str | None) -> list[int] | None:
        """Where the bot that asked for a delivery was when it asked."""
        task = self.tasks.get_task(task_id) if task_id else None
        near = task.parameters.get("near") if task is not None and task.type == DELIVER else None
        return list(near) if isinstance(near, list) and len(near) == 3 else None
