"""TaskStoreWrites: the protocol's writes. Each is load, rule (rules.py), save and log in one
transaction, so the task row and its event log never disagree."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from loguru import logger

from agency.planning.tasks import rules
from agency.planning.tasks.events import BRIDGE_DOWN, PROGRESS, TaskEvent
from agency.planning.tasks.models import NewTask, StaleStatusError, Task, TaskOrigin, TaskStatus
from agency.planning.tasks.poison import POISON_AFTER, bridge_down_update
from agency.planning.tasks.store_core import TaskStoreCore


class TaskStoreWrites(TaskStoreCore):
    def add_task(
        self,
        draft: NewTask | Mapping[str, Any],
        *,
        origin: TaskOrigin | Mapping[str, Any] | None = None,
        allow_unfinalized: bool = False,
    ) -> Task:
        """Store a new task. Metadata is rebuilt: caller keys survive only if allowlisted.
        Passing origin finalizes the task in the same transaction."""
        task = rules.new_task(draft, self._clock, origin=origin, on_dropped=self._warn_dropped)
        rules.warn_unfinalized(task, strict=self._strict_finalize, allow_unfinalized=allow_unfinalized)
        self._check(task)
        with self._tx() as conn:
            self._insert(conn, task)
            self._log_change(conn, None, task)
        return task

    def finalize_new_task(self, task_id: str, origin: TaskOrigin | Mapping[str, Any]) -> Task:
        """Stamp origin once. A task that already has one keeps it (immutable)."""
        with self._tx() as conn:
            task = self._load(conn, task_id)
            if task.metadata.origin is not None:
                logger.debug("[TaskStore] task {} already finalized; origin is immutable", task_id)
                return task
            task = rules.finalized(task, origin, self._clock)
            self._save(conn, task)
            return task

    def _patch(
        self, task_id: str, patch: Mapping[str, Any], to: TaskStatus | None, only_from: TaskStatus | None = None
    ) -> Task:
        clean = rules.clean_patch(task_id, patch, self._warn_dropped)
        with self._tx() as conn:
            before = self._load(conn, task_id)
            if only_from is not None and to is not None and before.status is not only_from:
                raise StaleStatusError(task_id, only_from, before.status, to)
            if to is None:
                task = rules.patched(before, clean, self._clock)
            else:
                rules.check_transition(before, to)
                task = rules.patched(before, clean, self._clock, status=to)
            self._save(conn, task)
            self._log_change(conn, before, task)  # without a status change, only a new hold reason logs
            return task

    def update_task_metadata(self, task_id: str, patch: Mapping[str, Any]) -> Task:
        return self._patch(task_id, patch, None)

    def set_status(
        self,
        task_id: str,
        status: TaskStatus | str,
        *,
        metadata_patch: Mapping[str, Any] | None = None,
        only_from: TaskStatus | None = None,
    ) -> Task:
        """Change status; metadata_patch (same rules as update_task_metadata) lands in the
        same transaction, so status and the fields mirroring it never disagree on disk.
        only_from: the status the caller read; StaleStatusError when the task has left it
        meanwhile (a bot of another daemon claimed it), checked under the row's lock."""
        return self._patch(task_id, metadata_patch or {}, TaskStatus(status), only_from)

    def set_progress(self, task_id: str, progress: float) -> Task:
        value = rules.checked_progress(task_id, progress)
        with self._tx() as conn:
            before = self._load(conn, task_id)
            task = rules.touched(before, self._clock(), progress=value)
            self._save(conn, task)
            if task.progress != before.progress:  # a repeated report is not news to a watcher
                self._append_event(conn, task, PROGRESS, {"progress": task.progress})
            return task

    def record_bridge_down(self, task_id: str, reason: str, *, poison_after: int = POISON_AFTER) -> Task:
        """The bridge went down while the task's run was in flight: appended to
        metadata.bridgeDowns with a `bridge_down` event; the `poison_after`-th fails the task
        in the same write (poison.py). Otherwise the status is left to the caller's hold."""
        with self._tx() as conn:
            before = self._load(conn, task_id)
            patch, to = bridge_down_update(before, reason, self._clock(), poison_after)
            if to is not None:
                rules.check_transition(before, to)
            task = rules.patched(before, patch, self._clock, **({"status": to} if to is not None else {}))
            self._save(conn, task)
            downs = len(task.metadata.bridgeDowns or [])
            # stamped with the status the run had; a poison failure's own `failed` event follows
            self._append_event(
                conn, before, BRIDGE_DOWN, {"reason": reason, "count": downs, "poisonAfter": poison_after}
            )
            self._log_change(conn, before, task)
            return task

    def claim_next(self, bot: str | None = None, actions: Collection[str] | None = None) -> Task | None:
        """pending -> active for the most urgent pending task (oldest first among equals),
        looked up and changed in one write transaction. None when nothing is free to take.
        With `bot`, only a task bound to that bot or to none, and the claim is that bot's
        (metadata.heldBy); without, any pending task, held by no bot in particular. With
        `actions` too (a bot working as some agent profiles only), only a task of one of
        those actions: another bot takes the rest."""
        with self._tx() as conn:
            if bot is None:
                row = conn.execute(self._SQL_CLAIM_NEXT).fetchone()
            elif actions is None:
                row = conn.execute(self._SQL_CLAIM_NEXT_FOR_BOT, (bot,)).fetchone()
            else:
                wanted = sorted(a.lower() for a in actions)
                row = conn.execute(self._SQL_CLAIM_NEXT_FOR_BOT_DOING, (bot, self._actions_param(wanted))).fetchone()
            if row is None:
                return None
            before = self._task_of(row["data"])
            task = rules.claimed(before, self._clock(), bot)
            self._save(conn, task)
            self._log_change(conn, before, task)
            return task

    def set_urgencies(self, urgencies: Mapping[str, float]) -> list[str]:
        """The priority scorer's write (Task.urgency has no other writer), one transaction
        per evaluation cycle. Only live tasks whose urgency changed are written; updatedAt
        stays: a new ranking is not a change to the task. Returns the ids written."""
        checked = {task_id: rules.checked_urgency(u) for task_id, u in urgencies.items()}
        written = []
        with self._tx() as conn:
            tasks = self._load_many(conn, list(checked))
            for task_id, urgency in checked.items():
                task = tasks.get(task_id)
                if task is not None and rules.needs_urgency(task, urgency):
                    self._save(conn, task.model_copy(update={"urgency": urgency}))
                    written.append(task_id)
        return written

    def record_event(self, task_id: str, event: str, data: Mapping[str, Any] | None = None) -> TaskEvent:
        """Log an event the store does not see itself (the workflow engine's step events),
        stamped with the task's status and progress as they are now. Status and progress
        events come only from the writes they describe, so a watcher never sees a
        'completed' the row does not hold."""
        rules.check_step_event(event)
        with self._tx() as conn:
            return self._append_event(conn, self._load(conn, task_id), event, data or {})
