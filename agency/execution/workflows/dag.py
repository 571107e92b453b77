"""Dependency analysis for parallel workflows: computed, and cycles rejected, before any
step runs (docs/contracts.md PARALLEL-2)."""

from __future__ import annotations

from agency.errors import InvalidInputError
from agency.execution.workflows.models import WorkflowDef


class WorkflowCycleError(InvalidInputError):
    def __init__(self, workflow_id: str, cycle: list[str]) -> None:
        super().__init__(f"workflow '{workflow_id}' has a dependency cycle: {' -> '.join(cycle)}")
        self.cycle = cycle


def find_cycle(deps: dict[str, list[str]]) -> list[str] | None:
    """One cycle as a path [a, b, ..., a], or None. Iterative DFS in definition order."""
    state: dict[str, int] = {}  # 1 = on the stack, 2 = done
    for root in deps:
        if state.get(root):
            continue
        stack: list[tuple[str, int]] = [(root, 0)]
        path: list[str] = []
        while stack:
            node, i = stack.pop()
            if i == 0:
                state[node] = 1
                path.append(node)
            children = deps.get(node, [])
            if i < len(children):
                stack.append((node, i + 1))
                child = children[i]
                if state.get(child) == 1:
                    return [*path[path.index(child) :], child]
                if not state.get(child):
                    stack.append((child, 0))
            else:
                state[node] = 2
                path.pop()
    return None


def dependencies(workflow: WorkflowDef) -> dict[str, list[str]]:
    return {s.id: list(s.dependsOn) for s in workflow.steps}


def validate_dag(workflow: WorkflowDef) -> list[str]:
    """A topological order (definition order among ready steps); raises on a cycle."""
    deps = dependencies(workflow)
    cycle = find_cycle(deps)
    if cycle:
        raise WorkflowCycleError(workflow.id, cycle)
    done: list[str] = []
    left = [s.id for s in workflow.steps]
    while left:
        ready = [s for s in left if all(d in done for d in deps[s])]
        done.extend(ready)
        left = [s for s in left if s not in ready]
    return done
