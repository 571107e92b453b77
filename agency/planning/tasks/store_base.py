"""TaskStoreBase: the TaskStore protocol once, for every SQL backend (SqliteTaskStore here,
agency.pg's PgTaskStore), put together from its reads and writes over TaskStoreCore."""

from __future__ import annotations

from agency.planning.tasks.store_reads import TaskStoreReads
from agency.planning.tasks.store_writes import TaskStoreWrites


class TaskStoreBase(TaskStoreWrites, TaskStoreReads):
    """The protocol once, for every SQL backend: each write is load, rule (rules.py), save and
    log in one transaction. A backend names its SQL in the _SQL_* attributes and supplies the
    primitives below the `backend` line of TaskStoreCore (placeholders, JSON decoding, row locks)."""
