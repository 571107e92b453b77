"""Task files in MineCollab's JSON format, read for `mcbot bench tasks` (bot/tooling/bench_tasks.py).

A file is one JSON object: task id -> task. The fields read:

| field | meaning |
|---|---|
| `target` | the item to have (required) |
| `number_of_target` | how many, 1..2304 (default 1) |
| `agent_count` | bots, 1..MAX_AGENTS (default 1) |
| `initial_inventory` | per bot, by index ("0", "1"...): item -> count (default: empty hands) |
| `timeout` | seconds the task may take (default 300) |
| `type` | the task's kind, for the per-kind rates (default "techtree") |

Every other field (goal, conversation, blocked_actions, missing_items, requires_ctable...) is
ignored, and reported once. A field of the wrong shape is a TaskFileError naming the file,
the task and the field. A task naming an item the version does not have (some files use
pre-1.14 names) is loaded as invalid, with the names: the bench reports it and does not count
it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agency.game import mcdata

USED = frozenset({"target", "number_of_target", "agent_count", "initial_inventory", "timeout", "type"})
MAX_AGENTS = 3
MAX_COUNT = 36 * 64  # a full inventory: what one goal may ask for
DEFAULT_TIMEOUT_S = 300


class TaskFileError(ValueError):
    """A task file that cannot be read: the message names the file, the task and the field."""


@dataclass(frozen=True)
class CollabTask:
    file: str
    id: str
    target: str
    count: int
    agents: tuple[dict[str, int], ...]  # per bot: what it holds at the start
    timeout_s: int
    kind: str
    unknown_items: tuple[str, ...] = ()  # names the version lacks: the task is invalid

    @property
    def invalid(self) -> bool:
        return bool(self.unknown_items)


@dataclass
class TaskFiles:
    tasks: list[CollabTask] = field(default_factory=list)
    ignored_fields: set[str] = field(default_factory=set)  # fields met and not used, over all files


def load_task_files(paths: list[Path], version: str) -> TaskFiles:
    """Every task of every file, in file order; TaskFileError at the first malformed one."""
    items = set(mcdata.load(version).items)
    out = TaskFiles()
    for path in paths:
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except OSError as e:
            raise TaskFileError(f"{path}: cannot be read ({e.strerror or e})") from e
        except json.JSONDecodeError as e:
            raise TaskFileError(f"{path}: not JSON (line {e.lineno}: {e.msg})") from e
        if not isinstance(doc, dict) or not doc:
            raise TaskFileError(f"{path}: a task file is a JSON object of tasks by id")
        for task_id, raw in doc.items():
            task = _task(path, str(task_id), raw, items)
            out.tasks.append(task)
            out.ignored_fields |= set(raw) - USED
    return out


def _task(path: Path, task_id: str, raw: Any, items: set[str]) -> CollabTask:
    def bad(fld: str, why: str) -> TaskFileError:
        return TaskFileError(f"{path}: task {task_id!r}: field {fld!r}: {why}")

    if not isinstance(raw, dict):
        raise bad("(task)", "a task is a JSON object")
    target = raw.get("target")
    if not isinstance(target, str) or not target.strip():
        raise bad("target", "an item name is required")
    count = _int(raw.get("number_of_target", 1), 1, MAX_COUNT, lambda why: bad("number_of_target", why))
    agents = _int(raw.get("agent_count", 1), 1, MAX_AGENTS, lambda why: bad("agent_count", why))
    timeout = _int(raw.get("timeout", DEFAULT_TIMEOUT_S), 1, 24 * 3600, lambda why: bad("timeout", why))
    kind = raw.get("type", "techtree")
    if not isinstance(kind, str):
        raise bad("type", "a string")
    inventory = raw.get("initial_inventory") or {}
    if not isinstance(inventory, dict):
        raise bad("initial_inventory", "an object of inventories by bot index")
    held: list[dict[str, int]] = [{} for _ in range(agents)]
    for key, inv in inventory.items():
        if not (isinstance(key, str) and key.isdigit() and int(key) < agents):
            raise bad("initial_inventory", f"bot {key!r} is not one of 0..{agents - 1} (agent_count {agents})")
        if not isinstance(inv, dict):
            raise bad(f"initial_inventory.{key}", "an object of item -> count")
        for item, n in inv.items():
            fld = f"initial_inventory.{key}.{item}"
            held[int(key)][str(item)] = _int(n, 1, MAX_COUNT, lambda why, f=fld: bad(f, why))
    target = target.strip()
    named = [target, *(i for inv in held for i in inv)]
    unknown = tuple(dict.fromkeys(n for n in named if n not in items))
    return CollabTask(str(path), task_id, target, count, tuple(held), timeout, kind, unknown)


def _int(value: Any, lo: int, hi: int, bad: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise bad(f"a whole number from {lo} to {hi} (got {value!r})")
    if not lo <= value <= hi:
        raise bad(f"from {lo} to {hi} (got {value})")
    return value
