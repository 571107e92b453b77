"""`mcbot bench tasks FILE...`: tasks in MineCollab's format (bot/tooling/task_files.py), each
on a fresh embedded world. For each task a daemon starts with as many bots as the task has
agents (bench0, bench1...), no LLM and no drive ticks, on a new world at its own seed; the
bots are given what the task lists (/give), in daylight; then bench0 is asked `obtain TARGET
N` (POST /api/goals, agency.execution.agents.obtain), whose plan asks the teammates for what
they hold of it (the fleet's deliveries: agency.execution.agents.planning), and the task succeeds when a bot
holds N of the target once its task ends, or at the timeout. A goal refused (422) fails the
task with the refusal's reason.

Prints a line per task, then the table (task, kind, bots, success, seconds, why it failed),
the success rate per file, per kind and by bot count, and the targets: single-bot tasks at
least 95 % done, two- and three-bot tasks at least 85 %. Writes DIR/tasks-<stamp>.json (per
task its id, success, seconds and reason; per file the rate) and each daemon's log beside it.
A task naming an item the version lacks is reported invalid with the names and not counted.

Exit codes: 0 every judged target met, 1 a target FAILED, 3 a daemon did not start, 4 a task
file is malformed (the message names the file, the task and the field) or --only names a task
the files do not have, 130 interrupted.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx

from bot.runtime.server import free_port
from bot.tooling.competence import FAIL, NOT_JUDGED, PASS
from bot.tooling.daemon_run import spawn_daemon, stop_daemon, wait_up
from bot.tooling.loopback_http import loopback
from bot.tooling.task_files import CollabTask, TaskFileError, load_task_files

EXIT_OK, EXIT_FAILED, EXIT_START, EXIT_CONFIG, EXIT_INTERRUPTED = 0, 1, 3, 4, 130
START_TIMEOUT_S = 90.0
GIVE_TIMEOUT_S = 30.0  # for the /give items to show in the inventories
POLL_S = 1.0
TARGETS = {1: 0.95, 2: 0.85, 3: 0.85}  # success rate wanted, by the task's bot count
DAYLIGHT = "/time set 1000"


@dataclass(frozen=True)
class BenchTasksSettings:
    files: tuple[str, ...]
    version: str = "26.1"
    seed: int = 1000  # the first task's world; task k plays seed + k
    terrain: str = "caves"
    only: tuple[str, ...] = ()  # task ids to run (empty: all)
    limit: int | None = None
    out: str = "bench-results"


@dataclass
class TaskResult:
    file: str
    id: str
    kind: str
    bots: int
    target: str
    count: int
    success: bool
    seconds: float
    reason: str = ""
    held: int = 0  # the most any bot held of the target at the end
    invalid: bool = False
    seed: int | None = None


def _of(task: CollabTask) -> dict[str, Any]:
    return {
        "file": task.file,
        "id": task.id,
        "kind": task.kind,
        "bots": len(task.agents),
        "target": task.target,
        "count": task.count,
    }


def task_record(r: TaskResult) -> dict[str, Any]:
    """A task in the JSON report."""
    rec: dict[str, Any] = {"id": r.id, "file": r.file, "success": r.success, "seconds": round(r.seconds, 1)}
    rec.update(reason=r.reason, kind=r.kind, bots=r.bots, target=r.target, count=r.count, held=r.held, seed=r.seed)
    if r.invalid:
        rec["invalid"] = True
    return rec


def bot_names(n: int) -> list[str]:
    return [f"bench{i}" for i in range(n)]


def config_text(names: Iterable[str]) -> str:
    """The daemon's config: the task's bots, no drive ticks (the bench gives the goal), no 3D view."""
    head = "[drive_tick]\nenabled = false\n\n[viewer]\nenabled = false\n"
    return head + "".join(f'\n[[bots]]\nusername = "{name}"\n' for name in names)


def daemon_env(db: Path, settings: BenchTasksSettings, seed: int, api_port: int) -> dict[str, str]:
    """Environment overrides beat the config files: pin what the bench depends on."""
    return {
        **os.environ,
        "MCBOT_SERVER__HOST": "",  # the embedded world
        "MCBOT_SERVER__PORT": str(free_port()),
        "MCBOT_SERVER__EMBEDDED_VERSION": settings.version,
        "MCBOT_SERVER__SEED": str(seed),
        "MCBOT_SERVER__TERRAIN": settings.terrain,
        "MCBOT_SERVER__WORLD_FOLDER": "",  # a new world each task
        "MCBOT_API__PORT": str(api_port),
        "MCBOT_VIEWER__ENABLED": "false",
        "MCBOT_STORAGE__DB_PATH": str(db),
        "MCBOT_STORAGE__URL": "",
        "MCBOT_LOGGING__FILE": "",
        "MCBOT_LLM__TARGETS": "[]",
    }  # no model, whatever the user's config says


def held_count(inventory: Iterable[dict[str, Any]], item: str) -> int:
    return sum(int(i.get("count", 0)) for i in inventory if i.get("name") == item)


# -- the report ---------------------------------------------------------------------------------


def rates(results: list[TaskResult], key: Callable[[TaskResult], Any]) -> dict[Any, dict[str, Any]]:
    """Success rate of the valid tasks, grouped by key."""
    out: dict[Any, dict[str, Any]] = {}
    for r in results:
        if r.invalid:
            continue
        g = out.setdefault(key(r), {"tasks": 0, "done": 0})
        g["tasks"] += 1
        g["done"] += int(r.success)
    for g in out.values():
        g["rate"] = g["done"] / g["tasks"]
    return out


def verdicts(results: list[TaskResult]) -> list[dict[str, Any]]:
    by_bots = rates(results, lambda r: min(r.bots, 3))
    out = []
    for bots, want in TARGETS.items():
        g = by_bots.get(bots)
        what = f"{bots}-bot tasks done" if bots > 1 else "single-bot tasks done"
        if g is None:
            out.append({"target": what, "want": want, "got": None, "verdict": NOT_JUDGED})
        else:
            out.append({"target": what, "want": want, "got": g["rate"], "verdict": PASS if g["rate"] >= want else FAIL})
    return out


def table_lines(results: list[TaskResult]) -> list[str]:
    rows = [("task", "kind", "bots", "success", "s", "why it failed")]
    for r in results:
        ok = "invalid" if r.invalid else "yes" if r.success else "no"
        rows.append((f"{Path(r.file).name}:{r.id}", r.kind, str(r.bots), ok, f"{r.seconds:.0f}", r.reason))
    widths = [max(len(row[i]) for row in rows) for i in range(5)]
    return ["  ".join(c.ljust(w) for c, w in zip(row[:5], widths, strict=True)) + "  " + row[5] for row in rows]


def rate_lines(results: list[TaskResult]) -> list[str]:
    lines = []
    for title, key in (
        ("file", lambda r: Path(r.file).name),
        ("kind", lambda r: r.kind),
        ("bots", lambda r: r.bots),
    ):
        for name, g in sorted(rates(results, key).items(), key=lambda kv: str(kv[0])):
            lines.append(f"  by {title} {name}: {g['done']}/{g['tasks']} = {100 * g['rate']:.0f} %")
    invalid = [r for r in results if r.invalid]
    if invalid:
        lines.append(f"  invalid (not counted): {len(invalid)}: " + "; ".join(f"{r.id} ({r.reason})" for r in invalid))
    return lines


def verdict_lines(judged: list[dict[str, Any]]) -> list[str]:
    out = []
    for v in judged:
        got = "-" if v["got"] is None else f"{100 * v['got']:.0f} %"
        out.append(f"  {v['target']}: {got} (target >= {100 * v['want']:.0f} %) {v['verdict']}")
    return out


# -- running one task ---------------------------------------------------------------------------


class TaskRun:
    """One task on its own daemon and world."""

    def __init__(self, task: CollabTask, settings: BenchTasksSettings, seed: int, log_copy: Path) -> None:
        self.task, self.settings, self.seed, self.log_copy = task, settings, seed, log_copy
        self.names = bot_names(len(task.agents))
        self.result = TaskResult(**_of(task), success=False, seconds=0.0, seed=seed)

    def run(self) -> TaskResult | None:
        """The result; None when the daemon did not start."""
        with tempfile.TemporaryDirectory(prefix="mcbot-bench-task-") as tmp:
            cfg = Path(tmp) / "bench.toml"
            cfg.write_text(config_text(self.names))
            api_port = free_port()
            base = f"http://127.0.0.1:{api_port}"
            log_path = Path(tmp) / "daemon.log"
            env = daemon_env(Path(tmp) / "bench.db", self.settings, self.seed, api_port)
            proc = spawn_daemon(cfg, env, log_path)
            try:
                if not wait_up(proc, base, START_TIMEOUT_S) or not self._connected(base):
                    return None
                with httpx.Client(base_url=base, timeout=15) as api:
                    self._play(api)
            finally:
                stop_daemon(proc)
                shutil.copyfile(log_path, self.log_copy)
        return self.result

    def _connected(self, base: str) -> bool:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            bots = loopback().get(base + "/api/bots", timeout=5).json().get("bots", [])
            if len(bots) == len(self.names) and all(b.get("connected") and b.get("position") for b in bots):
                return True
            time.sleep(POLL_S)
        return False

    def _say(self, api: httpx.Client, name: str, line: str) -> None:
        r = api.post(f"/api/bots/{name}/actions", json={"tool": "chat", "args": {"message": line}})
        r.raise_for_status()

    def _inventory(self, api: httpx.Client, name: str) -> list[dict[str, Any]]:
        r = api.get(f"/api/bots/{name}/snapshot")
        return list(r.json().get("inventory", [])) if r.status_code == 200 else []

    def _wait(self, pred: Callable[[], bool], timeout_s: float) -> bool:
        deadline = time.monotonic() + timeout_s
        while not pred():
            if time.monotonic() > deadline:
                return False
            time.sleep(POLL_S)
        return True

    def _give(self, api: httpx.Client) -> str | None:
        """The task's inventories, in daylight; the reason when they did not arrive."""
        self._say(api, self.names[0], DAYLIGHT)
        for name, inv in zip(self.names, self.task.agents, strict=True):
            for item, n in inv.items():
                self._say(api, name, f"/give {name} {item} {n}")
        for name, inv in zip(self.names, self.task.agents, strict=True):

            def arrived(name: str = name, inv: dict[str, int] = inv) -> bool:
                held = self._inventory(api, name)
                return all(held_count(held, item) >= n for item, n in inv.items())

            if not self._wait(arrived, GIVE_TIMEOUT_S):
                return f"{name} was not given {inv} within {GIVE_TIMEOUT_S:.0f} s"
        return None

    def _play(self, api: httpx.Client) -> None:
        t = self.task
        why = self._give(api)
        if why:
            self.result.reason = why
            return
        t0 = time.monotonic()
        r = api.post("/api/goals", json={"text": f"obtain {t.target} {t.count}", "bot": self.names[0]})
        if r.status_code != 201:
            body = r.json() if r.headers.get("content-type", "").startswith("application/json") else {}
            self.result.reason = f"refused ({r.status_code}): {body.get('detail') or r.text[:200]}"
            self._judge(api, t0)
            return
        task_id = r.json()["id"]
        last: dict[str, Any] = {}

        def ended() -> bool:
            nonlocal last
            got = api.get(f"/api/tasks/{task_id}")
            last = got.json() if got.status_code == 200 else last
            return last.get("status") in ("completed", "failed")

        finished = self._wait(ended, t.timeout_s)
        self._judge(api, t0)
        if self.result.success:
            return
        if not finished:
            self.result.reason = f"timeout after {t.timeout_s} s (task {last.get('status', '?')})"
        else:
            meta = last.get("metadata") or {}
            why = meta.get("blockedReason") or (meta.get("solver") or {}).get("failureReason") or ""
            self.result.reason = f"task {last.get('status')}: {why}" if why else f"task {last.get('status')}"
            if last.get("status") == "completed":
                self.result.reason += f", holding {self.result.held} of {t.count}"

    def _judge(self, api: httpx.Client, t0: float) -> None:
        self.result.seconds = time.monotonic() - t0
        self.result.held = max(held_count(self._inventory(api, n), self.task.target) for n in self.names)
        self.result.success = self.result.held >= self.task.count


# -- the command --------------------------------------------------------------------------------


def bench_tasks(settings: BenchTasksSettings, say: Callable[[str], None] = print) -> int:
    logging.getLogger("httpx").setLevel(logging.WARNING)  # a line per poll otherwise
    try:
        loaded = load_task_files([Path(f) for f in settings.files], settings.version)
    except TaskFileError as e:
        say(f"[Bench tasks] {e}")
        return EXIT_CONFIG
    unknown = sorted(set(settings.only) - {t.id for t in loaded.tasks})
    if unknown:
        known = ", ".join(t.id for t in loaded.tasks[:12])
        say(f"[Bench tasks] --only names no task of the files: {', '.join(unknown)} (their tasks: {known})")
        return EXIT_CONFIG
    tasks = [t for t in loaded.tasks if not settings.only or t.id in settings.only]
    if settings.limit is not None:
        tasks = tasks[: settings.limit]
    if loaded.ignored_fields:
        say(f"[Bench tasks] fields not used (ignored): {', '.join(sorted(loaded.ignored_fields))}")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    out = Path(settings.out)
    out.mkdir(parents=True, exist_ok=True)
    say(
        f"[Bench tasks] {len(tasks)} tasks from {len(settings.files)} file(s) at {settings.version}, "
        f"terrain {settings.terrain}, seeds from {settings.seed}; results in {out}"
    )
    results: list[TaskResult] = []
    code = EXIT_OK
    try:
        for k, task in enumerate(tasks):
            tag = f"[Bench tasks] {k + 1}/{len(tasks)} {Path(task.file).name}:{task.id}"
            if task.invalid:
                names = ", ".join(task.unknown_items)
                why = f"{settings.version} has no {names}"
                results.append(TaskResult(**_of(task), success=False, seconds=0.0, reason=why, invalid=True))
                say(f"{tag}: invalid ({settings.version} has no {names})")
                continue
            say(f"{tag}: obtain {task.target} {task.count}, {len(task.agents)} bot(s), up to {task.timeout_s} s")
            log_copy = out / f"tasks-{stamp}-{k + 1:03d}-daemon.log"
            result = TaskRun(task, settings, settings.seed + k, log_copy).run()
            if result is None:
                say(f"{tag}: the daemon did not start; its log: {log_copy}")
                code = EXIT_START
                break
            results.append(result)
            verdict = "done" if result.success else f"FAILED: {result.reason}"
            say(f"{tag}: {verdict} in {result.seconds:.0f} s")
    except KeyboardInterrupt:
        code = EXIT_INTERRUPTED
    judged = verdicts(results)
    for line in ["", *table_lines(results), "", *rate_lines(results), "", *verdict_lines(judged)]:
        say(line)
    report = {
        "settings": asdict(settings),
        "ignoredFields": sorted(loaded.ignored_fields),
        "tasks": [task_record(r) for r in results],
        "files": rates(results, lambda r: r.file),
        "kinds": rates(results, lambda r: r.kind),
        "targets": judged,
    }
    path = out / f"tasks-{stamp}.json"
    path.write_text(json.dumps(report, indent=2))
    say(f"[Bench tasks] report: {path}")
    if code == EXIT_OK and any(v["verdict"] == FAIL for v in judged):
        code = EXIT_FAILED
    return code
