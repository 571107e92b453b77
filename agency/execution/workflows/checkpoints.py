"""Checkpoints (docs/contracts.md CHECKPOINT-1, CHECKPOINT-2) and workflow runs, in the
agency's database (SQLite or PostgreSQL, whichever the store is given).

A checkpoint is written after each successful step only, validated before it is saved,
and holds everything a resume needs: stepIndex, completedStepId, stepOutputs (every step
completed so far), context and memorySnapshot. The run row keeps the workflow definition
the run started with, so a new process resumes by task id with exactly the same steps.

A run archived on entering another world is renamed and listed in workflow_run_archive:
the lookups below never return it, so the task (if it carries on) starts a fresh run.

In SQLite the tables are created here with IF NOT EXISTS (not through agency/db.py's
MIGRATIONS): they share the file and its connection settings, and the daemon's one connection
when the store is given its Database. In PostgreSQL they are agency/pg's migration 5, shared
by every daemon on the database: runs are keyed by task id, so a daemon that takes over a
dead daemon's task resumes it from the checkpoint that daemon wrote.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, model_validator

from agency.clock import Clock, system_clock_ms
from agency.db import StoreSource, database_of, json_value
from agency.errors import AgencyError
from agency.execution.workflows.models import WorkflowDef

SCHEMA = """
CREATE TABLE IF NOT EXISTS workflow_runs (
    run_id     TEXT PRIMARY KEY,
    task_id    TEXT,
    agent_id   TEXT NOT NULL,
    workflow   TEXT NOT NULL,  -- the WorkflowDef JSON the run started with
    context    TEXT NOT NULL,
    status     TEXT NOT NULL CHECK (status IN ('running', 'completed', 'failed', 'stopped')),
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_workflow_runs_task ON workflow_runs (task_id, created_at);
CREATE TABLE IF NOT EXISTS workflow_checkpoints (
    run_id            TEXT NOT NULL REFERENCES workflow_runs (run_id) ON DELETE CASCADE,
    seq               INTEGER NOT NULL,
    step_index        INTEGER NOT NULL CHECK (step_index >= 0),
    completed_step_id TEXT NOT NULL,
    data              TEXT NOT NULL,  -- the whole Checkpoint JSON
    created_at        INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
);
-- Runs archived when the store entered another world (agency/goals/world_identity.py): renamed
-- '<run id>@<world id>' so a new run of the task may take the old name, kept, never resumed.
CREATE TABLE IF NOT EXISTS workflow_run_archive (
    run_id      TEXT PRIMARY KEY REFERENCES workflow_runs (run_id) ON DELETE CASCADE,
    original_id TEXT NOT NULL,
    world_id    TEXT NOT NULL,
    archived_at INTEGER NOT NULL
);
"""
_NOT_ARCHIVED = "run_id NOT IN (SELECT run_id FROM workflow_run_archive)"
_RUN_COLUMNS = "run_id, task_id, agent_id, workflow, context, status, created_at, updated_at"


@dataclass(frozen=True)
class _Statements:
    """The store's SQL in one dialect (insertion order: SQLite's rowid, PostgreSQL's seq)."""

    start_run: str  # a run id already started is left as it is
    get_run: str
    latest_run_for_task: str
    unfinished_runs: str
    copy_run: str  # archive: the run under its new name, then its checkpoints moved over
    move_checkpoints: str
    delete_run: str
    list_archived: str
    archived_runs: str
    set_run_status: str
    next_seq: str
    insert_checkpoint: str
    touch_run: str
    latest: str
    history: str


_SQL = {
    "sqlite": _Statements(
        start_run="INSERT OR IGNORE INTO workflow_runs VALUES (?, ?, ?, ?, ?, 'running', ?, ?)",
        get_run="SELECT * FROM workflow_runs WHERE run_id = ?",
        latest_run_for_task=(
            f"SELECT * FROM workflow_runs WHERE task_id = ? AND {_NOT_ARCHIVED} "
            "ORDER BY created_at DESC, rowid DESC LIMIT 1"
        ),
        unfinished_runs=(
            f"SELECT * FROM workflow_runs WHERE status <> 'completed' AND {_NOT_ARCHIVED} ORDER BY created_at, rowid"
        ),
        copy_run=(
            "INSERT INTO workflow_runs SELECT ?, task_id, agent_id, workflow, context, status, created_at, "
            "updated_at FROM workflow_runs WHERE run_id = ?"
        ),
        move_checkpoints="UPDATE workflow_checkpoints SET run_id = ? WHERE run_id = ?",
        delete_run="DELETE FROM workflow_runs WHERE run_id = ?",
        list_archived="INSERT INTO workflow_run_archive VALUES (?, ?, ?, ?)",
        archived_runs=(
            "SELECT run_id FROM workflow_run_archive WHERE ? IS NULL OR world_id = ? ORDER BY archived_at, run_id"
        ),
        set_run_status="UPDATE workflow_runs SET status = ?, updated_at = ? WHERE run_id = ?",
        next_seq="SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM workflow_checkpoints WHERE run_id = ?",
        insert_checkpoint="INSERT INTO workflow_checkpoints VALUES (?, ?, ?, ?, ?, ?)",
        touch_run="UPDATE workflow_runs SET updated_at = ? WHERE run_id = ?",
        latest="SELECT data FROM workflow_checkpoints WHERE run_id = ? ORDER BY seq DESC LIMIT 1",
        history="SELECT data FROM workflow_checkpoints WHERE run_id = ? ORDER BY seq",
    ),
    "postgresql": _Statements(
        start_run=(
            f"INSERT INTO workflow_runs ({_RUN_COLUMNS}) "
            "VALUES (%s, %s, %s, %s::jsonb, %s::jsonb, 'running', %s, %s) ON CONFLICT (run_id) DO NOTHING"
        ),
        get_run="SELECT * FROM workflow_runs WHERE run_id = %s",
        latest_run_for_task=(
            f"SELECT * FROM workflow_runs WHERE task_id = %s AND {_NOT_ARCHIVED} "
            "ORDER BY created_at DESC, seq DESC LIMIT 1"
        ),
        unfinished_runs=(
            f"SELECT * FROM workflow_runs WHERE status <> 'completed' AND {_NOT_ARCHIVED} ORDER BY created_at, seq"
        ),
        copy_run=(
            f"INSERT INTO workflow_runs ({_RUN_COLUMNS}) SELECT %s, task_id, agent_id, workflow, context, "
            "status, created_at, updated_at FROM workflow_runs WHERE run_id = %s"
        ),
        move_checkpoints="UPDATE workflow_checkpoints SET run_id = %s WHERE run_id = %s",
        delete_run="DELETE FROM workflow_runs WHERE run_id = %s",
        list_archived=(
            "INSERT INTO workflow_run_archive (run_id, original_id, world_id, archived_at) VALUES (%s, %s, %s, %s)"
        ),
        archived_runs=(
            "SELECT run_id FROM workflow_run_archive WHERE %s::text IS NULL OR world_id = %s "
            "ORDER BY archived_at, run_id"
        ),
        set_run_status="UPDATE workflow_runs SET status = %s, updated_at = %s WHERE run_id = %s",
        next_seq="SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM workflow_checkpoints WHERE run_id = %s",
        insert_checkpoint=(
            "INSERT INTO workflow_checkpoints (run_id, seq, step_index, completed_step_id, data, "
            "created_at) VALUES (%s, %s, %s, %s, %s::jsonb, %s)"
        ),
        touch_run="UPDATE workflow_runs SET updated_at = %s WHERE run_id = %s",
        latest="SELECT data FROM workflow_checkpoints WHERE run_id = %s ORDER BY seq DESC LIMIT 1",
        history="SELECT data FROM workflow_checkpoints WHERE run_id = %s ORDER BY seq",
    ),
}

RunStatus = Literal["running", "completed", "failed", "stopped"]


class CheckpointInvalid(AgencyError, ValueError):
    pass


class Checkpoint(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    runId: str = Field(min_length=1)
    workflowId: str = Field(min_length=1)
    stepIndex: int = Field(ge=0)
    completedStepId: str = Field(min_length=1)
    stepOutputs: dict[str, Any]
    context: dict[str, Any]
    memorySnapshot: dict[str, Any]
    createdAt: int = Field(ge=0)

    @model_validator(mode="after")
    def _self_consistent(self) -> Checkpoint:
        if self.completedStepId not in self.stepOutputs:
            raise ValueError(f"completedStepId '{self.completedStepId}' has no entry in stepOutputs")
        return self

    def validate_against(self, workflow: WorkflowDef) -> None:
        """The checkpoint must describe a real position in this workflow."""
        if self.workflowId != workflow.id:
            raise CheckpointInvalid(f"checkpoint for workflow '{self.workflowId}', run uses '{workflow.id}'")
        if self.stepIndex >= len(workflow.steps) or workflow.steps[self.stepIndex].id != self.completedStepId:
            raise CheckpointInvalid(
                f"stepIndex {self.stepIndex} is not step '{self.completedStepId}' of '{workflow.id}'"
            )
        unknown = set(self.stepOutputs) - {s.id for s in workflow.steps}
        if unknown:
            raise CheckpointInvalid(f"stepOutputs name steps not in '{workflow.id}': {sorted(unknown)}")
        if workflow.parallel is None:
            expected = {s.id for s in workflow.steps[: self.stepIndex + 1]}
            if set(self.stepOutputs) != expected:
                raise CheckpointInvalid(
                    f"sequential checkpoint at {self.stepIndex} must hold outputs of {sorted(expected)}"
                )
        try:
            json.dumps(self.model_dump(mode="json"))
        except (TypeError, ValueError) as e:
            raise CheckpointInvalid(f"checkpoint is not JSON-serializable: {e}") from None


class RunRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    runId: str
    taskId: str | None
    agentId: str
    workflow: WorkflowDef
    context: dict[str, Any]
    status: RunStatus
    createdAt: int
    updatedAt: int


class CheckpointStore(Protocol):
    def start_run(
        self, run_id: str, workflow: WorkflowDef, agent_id: str, task_id: str | None, context: dict[str, Any]
    ) -> RunRecord: ...
    def get_run(self, run_id: str) -> RunRecord | None: ...
    def latest_run_for_task(self, task_id: str) -> RunRecord | None: ...
    def set_run_status(self, run_id: str, status: RunStatus) -> None: ...
    def save(self, checkpoint: Checkpoint, workflow: WorkflowDef) -> None: ...
    def latest(self, run_id: str) -> Checkpoint | None: ...
    def history(self, run_id: str) -> list[Checkpoint]: ...


class DatabaseCheckpointStore:
    """The CheckpointStore protocol on the database it is given, SQLite or PostgreSQL."""

    def __init__(self, path: StoreSource, *, clock: Clock = system_clock_ms) -> None:
        self._db = database_of(path)  # a path: a connection of its own; a database: the shared one
        self.conn: Any = self._db.conn
        self._sql = _SQL[self._db.dialect]
        if self._db.dialect == "sqlite":
            self.conn.executescript(SCHEMA)
        self.clock = clock

    def close(self) -> None:
        self._db.release()

    def start_run(
        self, run_id: str, workflow: WorkflowDef, agent_id: str, task_id: str | None, context: dict[str, Any]
    ) -> RunRecord:
        now = self.clock()
        self.conn.execute(
            self._sql.start_run, (run_id, task_id, agent_id, workflow.model_dump_json(), json.dumps(context), now, now)
        )
        rec = self.get_run(run_id)
        assert rec is not None
        return rec

    def _record(self, row: Any) -> RunRecord | None:
        if row is None:
            return None
        return RunRecord(
            runId=row["run_id"],
            taskId=row["task_id"],
            agentId=row["agent_id"],
            workflow=WorkflowDef.model_validate(json_value(row["workflow"])),
            context=json_value(row["context"]),
            status=row["status"],
            createdAt=row["created_at"],
            updatedAt=row["updated_at"],
        )

    def get_run(self, run_id: str) -> RunRecord | None:
        return self._record(self.conn.execute(self._sql.get_run, (run_id,)).fetchone())

    def latest_run_for_task(self, task_id: str) -> RunRecord | None:
        return self._record(self.conn.execute(self._sql.latest_run_for_task, (task_id,)).fetchone())

    def unfinished_runs(self) -> list[RunRecord]:
        """Runs a task could still resume (not completed, not archived), oldest first."""
        rows = self.conn.execute(self._sql.unfinished_runs).fetchall()
        return [r for r in (self._record(row) for row in rows) if r is not None]

    def archive_run(self, run_id: str, world_id: str) -> str:
        """Rename the run and its checkpoints to '<run id>@<world id>' and list it as
        archived, in one transaction. Returns the archived name."""
        new_id = f"{run_id}@{world_id}"
        with self._db.tx() as conn:
            conn.execute(self._sql.copy_run, (new_id, run_id))
            conn.execute(self._sql.move_checkpoints, (new_id, run_id))
            conn.execute(self._sql.delete_run, (run_id,))
            conn.execute(self._sql.list_archived, (new_id, run_id, world_id, self.clock()))
        return new_id

    def archived_runs(self, world_id: str | None = None) -> list[str]:
        rows = self.conn.execute(self._sql.archived_runs, (world_id, world_id)).fetchall()
        return [r["run_id"] for r in rows]

    def set_run_status(self, run_id: str, status: RunStatus) -> None:
        self.conn.execute(self._sql.set_run_status, (status, self.clock(), run_id))

    def save(self, checkpoint: Checkpoint, workflow: WorkflowDef) -> None:
        checkpoint = Checkpoint.model_validate(checkpoint.model_dump())  # re-validate: never store a bad one
        checkpoint.validate_against(workflow)
        with self._db.tx() as conn:
            seq = conn.execute(self._sql.next_seq, (checkpoint.runId,)).fetchone()["seq"]
            conn.execute(
                self._sql.insert_checkpoint,
                (
                    checkpoint.runId,
                    seq,
                    checkpoint.stepIndex,
                    checkpoint.completedStepId,
                    checkpoint.model_dump_json(),
                    checkpoint.createdAt,
                ),
            )
            conn.execute(self._sql.touch_run, (self.clock(), checkpoint.runId))

    def latest(self, run_id: str) -> Checkpoint | None:
        row = self.conn.execute(self._sql.latest, (run_id,)).fetchone()
        return Checkpoint.model_validate(json_value(row["data"])) if row else None

    def history(self, run_id: str) -> list[Checkpoint]:
        rows = self.conn.execute(self._sql.history, (run_id,)).fetchall()
        return [Checkpoint.model_validate(json_value(r["data"])) for r in rows]


SqliteCheckpointStore = DatabaseCheckpointStore  # the name it had when SQLite was its one database
