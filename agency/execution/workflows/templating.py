"""`${...}` references in step arguments, resolved just before a step runs.

`${task.target}`, `${task.amount}`, `${context.key}`, `${memory.key}` and
`${steps.<id>.<key>...}` (outputs of completed or restored steps; list items by index).
A string that is exactly one reference takes the referenced value as is (ints stay ints);
references inside longer strings are formatted in.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agency.errors import AgencyError

REF = re.compile(r"\$\{([^}]+)\}")


class TemplateError(AgencyError, ValueError):
    pass


def lookup(path: str, scope: Mapping[str, Any]) -> Any:
    cur: Any = scope
    for part in path.strip().split("."):
        if isinstance(cur, Mapping) and part in cur:
            cur = cur[part]
        elif isinstance(cur, (list, tuple)) and part.isdigit() and int(part) < len(cur):
            cur = cur[int(part)]
        else:
            raise TemplateError(f"unresolved reference ${{{path}}} (no '{part}')")
    return cur


def render(value: Any, scope: Mapping[str, Any]) -> Any:
    if isinstance(value, str):
        whole = REF.fullmatch(value)
        if whole:
            return lookup(whole.group(1), scope)
        return REF.sub(lambda m: str(lookup(m.group(1), scope)), value)
    if isinstance(value, Mapping):
        return {k: render(v, scope) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [render(v, scope) for v in value]
    return value


def step_refs(value: Any) -> set[str]:
    """Step ids referenced through ${steps.<id>...} (implicit dependencies)."""
    found: set[str] = set()
    if isinstance(value, str):
        for m in REF.finditer(value):
            parts = m.group(1).strip().split(".")
            if parts[0] == "steps" and len(parts) > 1:
                found.add(parts[1])
    elif isinstance(value, Mapping):
        for v in value.values():
            found |= step_refs(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            found |= step_refs(v)
    return found
