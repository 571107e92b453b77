"""Workflows of steps (tool calls, delegations, prompts) with checkpoints and resume."""

from agency.execution.workflows.checkpoints import Checkpoint, CheckpointInvalid, RunRecord, SqliteCheckpointStore
from agency.execution.workflows.dag import WorkflowCycleError, validate_dag
from agency.execution.workflows.delegation import (
    CIRCULAR_DELEGATION,
    DEFAULT_MAX_DEPTH,
    DELEGATION_DEPTH_EXCEEDED,
    DelegationChain,
)
from agency.execution.workflows.engine import WORKFLOW_CYCLE, WorkflowEngine
from agency.execution.workflows.models import (
    ParallelConfig,
    StepDef,
    StepOutcome,
    StopReport,
    ToolCall,
    WorkflowDef,
    WorkflowRunResult,
)
from agency.execution.workflows.prompts import (
    NO_PROMPT_RUNNER,
    PromptRequest,
    PromptResult,
    PromptRunner,
    StubPromptRunner,
)
from agency.execution.workflows.steps import DelegationRequest, RunState, StepExecutor

__all__ = [
    "CIRCULAR_DELEGATION",
    "DEFAULT_MAX_DEPTH",
    "DELEGATION_DEPTH_EXCEEDED",
    "NO_PROMPT_RUNNER",
    "WORKFLOW_CYCLE",
    "Checkpoint",
    "CheckpointInvalid",
    "DelegationChain",
    "DelegationRequest",
    "ParallelConfig",
    "PromptRequest",
    "PromptResult",
    "PromptRunner",
    "RunRecord",
    "RunState",
    "SqliteCheckpointStore",
    "StepDef",
    "StepExecutor",
    "StepOutcome",
    "StopReport",
    "StubPromptRunner",
    "ToolCall",
    "WorkflowCycleError",
    "WorkflowDef",
    "WorkflowEngine",
    "WorkflowRunResult",
    "validate_dag",
]
