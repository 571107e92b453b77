"""`mcbot goal`, `mcbot tasks`, `mcbot task pause|resume|cancel|follow`: a user's commands
to the running daemon, through its HTTP API (address and token from `[api]`).

Exit codes: 0 done (goal created, command applied, a followed task completed), 1 refused
(the reason is printed), a followed task failed or the daemon stopped while following, 3 no
daemon answers at the API address, 130 Ctrl-C while following (the task goes on).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TextIO

import httpx

from bot.cli import values as val
from bot.cli.exit_codes import EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_OK, exit_code_for
from bot.runtime.errors import BotRuntimeError, InitError

if TYPE_CHECKING:  # the config loads only when a command runs (`--help` stays fast)
    from bot.config.loader import McbotConfig

EXIT_REFUSED = EXIT_FAILURE  # the daemon refused the goal or command, or the task did not complete
BAR = 20
REASON_WIDTH = 100  # the last column: a poison failure's reason names the bridge's last word
READ_TIMEOUT_S = 40.0  # the stream sends a keep-alive every 15 s
RECONNECTS = 3  # a dropped stream is picked up where it left off this many times in a row
RECONNECT_PAUSE_S = 1.0


class NoDaemon(InitError):
    pass


def add_goal_commands(sub: Any) -> None:
    api_help = "the daemon's API, e.g. http://127.0.0.1:3003 (default: from [api])"
    goal = sub.add_parser("goal", help="give the running daemon a goal, e.g. mcbot goal collect oak_log 8")
    goal.add_argument("text", nargs="+", help="action target [amount], e.g. collect oak_log 8 (or build basic_shelter)")
    goal.add_argument("--priority", type=val.unit_interval, default=0.5, help="0..1 (default 0.5)")
    goal.add_argument("--follow", action="store_true", help="print the task's lifecycle until it ends")
    goal.add_argument("--api", metavar="URL", type=val.api_url, help=api_help)

    tasks = sub.add_parser("tasks", help="the daemon's tasks: status, progress, reason")
    tasks.add_argument("--status", metavar="S[,S]", help="only these statuses, e.g. pending,active,paused")
    tasks.add_argument("--limit", type=val.positive_int, default=30, help="the newest N (default 30)")
    tasks.add_argument("--json", action="store_true", help="print the API's JSON")
    tasks.add_argument("--api", metavar="URL", type=val.api_url, help=api_help)

    task = sub.add_parser("task", help="pause, resume, cancel or follow one task")
    task.add_argument(
        "task_command", metavar="{pause,resume,cancel,follow}", choices=("pause", "resume", "cancel", "follow")
    )
    task.add_argument("task_id", metavar="ID")
    task.add_argument("--api", metavar="URL", type=val.api_url, help=api_help)


# ---- talking to the daemon -----------------------------------------------------------------
class Api:
    def __init__(self, base: str, token: str | None, timeout_s: float = 30.0) -> None:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self.base = base.rstrip("/")
        self.client = httpx.Client(base_url=self.base, headers=headers, timeout=timeout_s)

    def request(self, method: str, path: str, **kw: Any) -> httpx.Response:
        try:
            return self.client.request(method, path, **kw)
        except httpx.TransportError as e:
            raise NoDaemon(
                f"no daemon answers at {self.base} ({type(e).__name__}: {e}); start one with `mcbot run`"
            ) from None

    def events(self, task_id: str, after: int = 0) -> Iterator[tuple[str, dict[str, Any]]]:
        """(event, data) pairs of the task's event stream after `after`, until it closes
        (nothing at all when the task ended with nothing left: 204). A stream quiet for
        longer than two keep-alives is a dead connection: httpx.ReadTimeout."""
        with self.client.stream(
            "GET",
            f"/api/tasks/{task_id}/events",
            params={"after": after},
            # (connect, read, write, pool) as a tuple: the tests' client is starlette's TestClient,
            # whose httpx2 (2.17 on) refuses an httpx.Timeout object
            timeout=(30.0, READ_TIMEOUT_S, 30.0, 30.0),
        ) as r:
            if r.status_code == 204:
                return
            if r.status_code != 200:
                r.read()
                raise Refused(_reason(r))
            yield from _parse_sse(r.iter_lines())


class Refused(BotRuntimeError):
    pass


def _parse_sse(lines: Iterator[str]) -> Iterator[tuple[str, dict[str, Any]]]:
    event = "message"
    data: list[str] = []
    for line in lines:
        if not line:
            if data:
                yield event, json.loads("\n".join(data))
            event, data = "message", []
        elif line.startswith(":"):
            continue  # keep-alive comment
        elif line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())


def _reason(r: httpx.Response) -> str:
    try:
        body = r.json()
    except ValueError:
        return f"HTTP {r.status_code}: {r.text[:200]}"
    detail = body.get("detail", body)
    if isinstance(detail, list):  # a 400's field errors
        detail = "; ".join(f"{d.get('loc', '')}: {d.get('msg', '')}" for d in detail)
    return f"{body.get('error', r.status_code)}: {detail}"


def api_from(args: Any, cfg: McbotConfig) -> Api:
    if args.api:
        return Api(args.api, cfg.api.token or None)
    host = cfg.api.host if cfg.api.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
    host = f"[{host}]" if ":" in host else host
    return Api(f"http://{host}:{cfg.api.port}", cfg.api.token or None)


# ---- the commands --------------------------------------------------------------------------
def cmd_goal(args: Any, cfg: McbotConfig, _loaded: Any, out: TextIO = sys.stdout) -> int:
    return _guard(lambda: _goal(api_from(args, cfg), " ".join(args.text), args.priority, args.follow, out))


def cmd_tasks(args: Any, cfg: McbotConfig, _loaded: Any, out: TextIO = sys.stdout) -> int:
    return _guard(lambda: _tasks(api_from(args, cfg), args.status, args.limit, args.json, out))


def cmd_task(args: Any, cfg: McbotConfig, _loaded: Any, out: TextIO = sys.stdout) -> int:
    api = api_from(args, cfg)
    if args.task_command == "follow":
        return _guard(lambda: _follow_existing(api, args.task_id, out))
    return _guard(lambda: _task_command(api, args.task_command, args.task_id, out))


def _guard(run: Any) -> int:
    try:
        return run()
    except NoDaemon as e:
        print(f"mcbot: {e}", file=sys.stderr)
        return exit_code_for(e)
    except Refused as e:
        print(f"mcbot: refused: {e}", file=sys.stderr)
        return exit_code_for(e)


def _goal(api: Api, text: str, priority: float, follow: bool, out: TextIO) -> int:
    r = api.request("POST", "/api/goals", json={"text": text, "priority": priority, "by": "cli"})
    if r.status_code != 201:
        body = _json(r)
        blocking = body.get("task", {}).get("id") if isinstance(body.get("task"), dict) else None
        suffix = f" (follow it: mcbot task follow {blocking})" if blocking and r.status_code == 409 else ""
        raise Refused(_reason(r) + suffix)
    task = r.json()
    print(f"created {task['id']}: {task['title']} ({task['metadata'].get('goalKey')}), {task['status']}", file=out)
    if task.get("waiting"):
        print(f"  {task['waiting']}", file=out)  # why it does not start now (the night's shelter, ...)
    return _follow(api, task["id"], out) if follow else EXIT_OK


def _follow_existing(api: Api, task_id: str, out: TextIO) -> int:
    r = api.request("GET", f"/api/tasks/{task_id}")
    if r.status_code != 200:
        raise Refused(_reason(r))
    task = r.json()
    print(f"{task['id']}: {task['title']}, {task['status']}", file=out)
    if task.get("waiting"):
        print(f"  {task['waiting']}", file=out)
    return _follow(api, task_id, out)


def _follow(api: Api, task_id: str, out: TextIO) -> int:
    """Print each lifecycle event with a progress bar until the task ends; a dropped stream
    is picked up after the last event seen. The exit code says how the task ended."""
    shown, after, tries = 0.0, 0, 0
    try:
        while True:
            try:
                for event, data in api.events(task_id, after):
                    tries = 0
                    if event == "end":
                        return _ended(task_id, data, out)
                    after = data.get("seq", after)
                    shown = max(shown, data.get("progress", 0.0), _step_share(event, data.get("data") or {}))
                    if event != "progress":  # the bar on every line shows it
                        print(format_event(event, data, shown), file=out, flush=True)
            except httpx.TransportError:
                pass  # dropped or silent: pick it up again below
            task = api.request("GET", f"/api/tasks/{task_id}").json()  # closed without `end` (or 204)
            if task.get("status") in ("completed", "failed"):
                return _ended(task_id, {"status": task["status"]}, out)
            tries += 1
            if tries > RECONNECTS:
                raise NoDaemon(f"lost the event stream of {task_id} {RECONNECTS} times; it is {task.get('status')}")
            time.sleep(RECONNECT_PAUSE_S)
    except KeyboardInterrupt:
        print(f"stopped following {task_id}; the task goes on (mcbot task follow {task_id})", file=out)
        return EXIT_INTERRUPTED


def _ended(task_id: str, data: dict[str, Any], out: TextIO) -> int:
    status = data.get("status")
    if data.get("reason") == "daemon stopping":
        print(f"the daemon is stopping; {task_id} stays {status} and resumes at its next start", file=out)
        return EXIT_REFUSED
    return EXIT_OK if status == "completed" else EXIT_REFUSED


def _step_share(event: str, d: dict[str, Any]) -> float:
    """How far a finished step has brought the run (the task's own progress follows on the
    executor's next tick)."""
    if event != "step_finished" or not d.get("total"):
        return 0.0
    return min(0.99, (d.get("index", 0) + 1) / d["total"])


def format_event(event: str, data: dict[str, Any], progress: float | None = None) -> str:
    at = time.strftime("%H:%M:%S", time.localtime(data.get("at", 0) / 1000))
    d = data.get("data") or {}
    if event.startswith("step_"):
        what = f"step {d.get('index', 0) + 1}/{d.get('total', '?')} {event[5:]:<8} {d.get('stepId', '')}"
        error = d.get("error") or {}
        if error:
            what += f" ({error.get('code')}: {error.get('message', '')})"
    elif event == "replanned":  # a failed step's plan made again (a failure line follows the last)
        what = f"replanned {d.get('replan', '?')}/{d.get('of', '?')} after {d.get('step', '?')} ({d.get('reason', '')})"
    elif event == "bridge_down":  # the count toward failing the task as poison (a failure line follows the last)
        what = f"bridge down {d.get('count', '?')}/{d.get('poisonAfter', '?')} ({d.get('reason', '')})"
    else:
        reason = d.get("reason")
        what = f"{event}" + (f" ({reason})" if reason else "")
    return f"  {at} {what:<48} {progress_bar(data.get('progress', 0.0) if progress is None else progress)}"


def progress_bar(progress: float) -> str:
    filled = max(0, min(BAR, round(progress * BAR)))
    return f"[{'#' * filled}{'.' * (BAR - filled)}] {round(progress * 100):3d}%"


def _tasks(api: Api, status: str | None, limit: int, as_json: bool, out: TextIO) -> int:
    params: dict[str, Any] = {"limit": min(limit, 1000), "order": "desc"}  # the newest N, shown oldest first
    if status:
        params["status"] = status
    r = api.request("GET", "/api/tasks", params=params)
    if r.status_code != 200:
        raise Refused(_reason(r))
    items = list(reversed(r.json()["tasks"]))
    if as_json:
        print(json.dumps(items, indent=2), file=out)
        return EXIT_OK
    print(render_tasks(items), file=out)
    return EXIT_OK


def _origin(origin: dict[str, Any]) -> str:
    """`user`, or who asked: `user (chat:Steve)`."""
    kind, by = origin.get("kind", ""), origin.get("by")
    return f"{kind} ({by})" if by else kind


def render_tasks(items: list[dict[str, Any]]) -> str:
    if not items:
        return "no tasks"
    rows = [("ID", "STATUS", "PROGRESS", "ORIGIN", "GOAL", "REASON")]
    for t in items:
        meta = t.get("metadata", {})
        reason = t.get("waiting") or meta.get("blockedReason") or (meta.get("solver") or {}).get("failureReason") or ""
        rows.append(
            (
                t["id"],
                t["status"],
                f"{round(t.get('progress', 0) * 100)}%",
                _origin(meta.get("origin") or {}),
                meta.get("goalKey") or t.get("title", ""),
                _clip(reason, REASON_WIDTH),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]) - 1)]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)) + "  " + r[-1] for r in rows)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _task_command(api: Api, command: str, task_id: str, out: TextIO) -> int:
    r = api.request("POST", f"/api/tasks/{task_id}/{command}")
    if r.status_code != 200:
        raise Refused(_reason(r))
    task = r.json()
    print(f"{task['id']}: {command} -> {task['status']}", file=out)
    return EXIT_OK


def _json(r: httpx.Response) -> dict[str, Any]:
    try:
        body = r.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}
