"""A small stand-in for the daemon's HTTP API, served by uvicorn on a loopback port: the
routes the MCP server uses, with the real shapes and refusals (the tool catalog and the
argument checks come from the real agency tool registry). An action advances one step per
poll, never by time, so tests need no sleeps: `plans[tool]` says after how many polls it
ends and how (None: it runs until cancelled)."""

from __future__ import annotations

import functools
import inspect
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import ValidationError

from agency.execution.builtin_tools import default_tool_registry
from agency.world import WorldSnapshot
from bot.runtime.server import free_port

SNAPSHOT = WorldSnapshot.model_validate(
    {
        "health": 18.0,
        "food": 17,
        "gameMode": "survival",
        "dimension": "overworld",
        "timeOfDay": 1000,
        "isDay": True,
        "position": {"x": 10.5, "y": 64.0, "z": -3.5},
        "inventory": [{"name": "oak_log", "count": 3}, {"name": "dirt", "count": 12}, {"name": "oak_log", "count": 2}],
        "entities": [
            {
                "name": "zombie",
                "type": "hostile",
                "hostile": True,
                "distance": 12.25,
                "position": {"x": 22, "y": 64, "z": -3},
            },
            {
                "name": "cow",
                "type": "animal",
                "hostile": False,
                "distance": 5.0,
                "position": {"x": 15, "y": 64, "z": -3},
            },
            {
                "name": "sheep",
                "type": "animal",
                "hostile": False,
                "distance": 40.0,
                "position": {"x": 50, "y": 64, "z": -3},
            },
        ],
        "hostiles": 1,
        "ts": 1_700_000_000_000,
    }
).model_dump(mode="json")


@dataclass
class Plan:
    polls: int | None = 2  # polls until it ends; None = runs until cancelled
    status: str = "succeeded"
    output: dict[str, Any] = field(default_factory=lambda: {"done": True})
    error: dict[str, Any] | None = None


BOTS = ("mcbot", "helper")  # the fake's fleet: /api/bots lists them


def _ignoring_bot(handler: Any) -> Any:
    """A route of the first bot's, mounted under /api/bots/{bot}: the bot's name is only in the path."""

    @functools.wraps(handler)
    async def route(bot: str, **kw: Any) -> Any:
        return await handler(**kw)

    sig = inspect.signature(handler)
    route.__signature__ = sig.replace(
        parameters=[
            inspect.Parameter("bot", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=str),
            *sig.parameters.values(),
        ]
    )
    return route


class FakeDaemon:
    def __init__(self) -> None:
        self.registry = default_tool_registry()
        self.reset()

    def reset(self) -> None:
        self.calls: list[tuple[str, str]] = []
        self.bodies: list[Any] = []  # JSON bodies of the POSTs, in order
        self.actions: dict[str, dict[str, Any]] = {}
        self.plans: dict[str, Plan] = {}
        self.tasks: dict[str, dict[str, Any]] = {}
        self.tools_status = 200
        self.task_queries: list[str | None] = []  # the bot each GET /api/tasks filtered by
        self.bot_names: tuple[str, ...] | None = BOTS  # None: /api/bots fails

    # ---- the app -------------------------------------------------------------------------
    def app(self) -> FastAPI:
        app = FastAPI()

        @app.middleware("http")
        async def record(request: Request, call_next: Any) -> Any:
            self.calls.append((request.method, request.url.path))
            if request.method == "POST":
                body = await request.body()
                self.bodies.append(json.loads(body) if body else None)
            return await call_next(request)

        @app.exception_handler(RequestValidationError)
        async def bad_request(_r: Request, exc: RequestValidationError) -> JSONResponse:
            errors = [
                {"loc": ".".join(str(p) for p in e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()
            ]
            return JSONResponse({"error": "bad_request", "detail": errors}, status_code=400)

        @app.get("/healthz")
        async def healthz() -> dict[str, Any]:
            return {"ok": True}

        @app.get("/api/bot/snapshot")
        async def snapshot() -> dict[str, Any]:
            return SNAPSHOT

        @app.get("/api/bot/blocks")
        async def blocks(radius: int = Query(8, ge=1, le=16)) -> dict[str, Any]:
            counts = {"grass_block": 4 * radius, "oak_log": 4, "stone": 100}
            return {
                "center": {"x": 10, "y": 64, "z": -4},
                "radius": radius,
                "total": sum(counts.values()),
                "counts": counts,
            }

        @app.get("/api/bot/plan")
        async def plan(item: str, amount: int = Query(1, ge=1, le=2304)) -> Any:
            if item == "blaze_rod":
                return JSONResponse({"error": "unobtainable", "detail": "blaze_rod is found only in the nether"}, 422)
            step = {"id": f"craft-{item}", "tool": "craft", "description": f"have {amount} {item}", "serves": ""}
            tree = {"what": "", "steps": [{**step, "n": 1}], "children": []}
            return {
                "item": item,
                "amount": amount,
                "goal": {"action": "craft", "target": item},
                "steps": [step],
                "tree": tree,
            }

        @app.get("/api/tools")
        async def tools() -> Any:
            if self.tools_status != 200:
                return JSONResponse({"error": "unavailable", "detail": "bot is not attached yet"}, self.tools_status)
            items = self.catalog()
            return {"count": len(items), "tools": items}

        @app.post("/api/actions", status_code=202)
        async def start(request: Request) -> Any:
            return self.start(await request.json())

        @app.get("/api/actions")
        async def actions() -> dict[str, Any]:
            items = list(reversed(self.actions.values()))
            return {"count": len(items), "actions": items}

        @app.get("/api/actions/{action_id}")
        async def action(action_id: str) -> Any:
            if action_id not in self.actions:
                return JSONResponse({"error": "not_found", "detail": f"no action {action_id}"}, 404)
            return self.poll(action_id)

        @app.post("/api/actions/{action_id}/cancel")
        async def cancel(action_id: str) -> Any:
            found = self.actions.get(action_id)
            if found is None:
                return JSONResponse({"error": "not_found", "detail": f"no action {action_id}"}, 404)
            if found["status"] != "running":
                return JSONResponse(
                    {"error": "conflict", "detail": f"action {action_id} already {found['status']}"}, 409
                )
            self._end(found, "cancelled", error={"code": "CANCELLED", "message": "cancelled by the caller"})
            return found

        # a fleet's bot's own routes (the MCP server's --bot): the same behaviour, told apart in `calls`
        @app.get("/api/bots")
        async def bots() -> Any:
            if self.bot_names is None:
                return JSONResponse({"error": "boom"}, 500)
            return {"count": len(self.bot_names), "bots": [{"name": n, "connected": True} for n in self.bot_names]}

        for path, method, handler in (
            ("/snapshot", "GET", snapshot),
            ("/blocks", "GET", blocks),
            ("/plan", "GET", plan),
            ("/actions", "POST", start),
            ("/actions", "GET", actions),
            ("/actions/{action_id}", "GET", action),
            ("/actions/{action_id}/cancel", "POST", cancel),
        ):
            app.add_api_route(
                "/api/bots/{bot}" + path,
                _ignoring_bot(handler),
                methods=[method],
                status_code=202 if (path, method) == ("/actions", "POST") else 200,
            )

        @app.post("/api/goals", status_code=201)
        async def goals(request: Request) -> Any:
            return self.goal(await request.json())

        @app.get("/api/tasks")
        async def tasks(
            status: str | None = None, limit: int = 100, order: str = "asc", bot: str | None = None
        ) -> dict[str, Any]:
            self.task_queries.append(bot)
            items = [
                t
                for t in self.tasks.values()
                if (status is None or t["status"] in status.split(","))
                and (bot is None or t.get("metadata", {}).get("bot") == bot)
            ]
            items = list(reversed(items)) if order == "desc" else items
            return {"count": len(items[:limit]), "tasks": items[:limit]}

        @app.post("/api/tasks/{task_id}/{command}")
        async def task_command(task_id: str, command: str) -> Any:
            task = self.tasks.get(task_id)
            if task is None:
                return JSONResponse({"error": "not_found", "detail": f"no task {task_id}"}, 404)
            task["status"] = {"pause": "paused", "resume": "pending", "cancel": "failed"}[command]
            return task

        return app

    # ---- behaviour ------------------------------------------------------------------------
    def catalog(self) -> list[dict[str, Any]]:
        out = []
        for name in self.registry.names():
            tool = self.registry.get(name)
            out.append(
                {
                    "name": name,
                    "description": tool.description,
                    "inputSchema": tool.input_model.model_json_schema(),
                    "timeoutS": tool.timeout_s,
                    "movesBody": tool.queue is not None,
                }
            )
        return out

    def start(self, body: dict[str, Any]) -> Any:
        tool = self.registry.get(body.get("tool", ""))
        if tool is None:
            return JSONResponse({"error": "bad_request", "detail": f"no tool '{body.get('tool')}'"}, 400)
        args = body.get("args") or {}
        try:
            tool.input_model.model_validate(args)
        except ValidationError as e:
            msg = "; ".join(f"{'.'.join(str(p) for p in err['loc']) or '(input)'}: {err['msg']}" for err in e.errors())
            return JSONResponse({"error": "bad_request", "detail": f"invalid input for '{tool.name}': {msg}"}, 400)
        moves = tool.queue is not None
        running = next((a for a in self.actions.values() if a["status"] == "running" and a["movesBody"]), None)
        if moves and running is not None:
            return JSONResponse(
                {
                    "error": "busy",
                    "detail": f"action {running['actionId']} ({running['tool']}) has the body; cancel it or wait",
                },
                409,
            )
        action_id = f"act-{len(self.actions) + 1}"
        self.actions[action_id] = {
            "actionId": action_id,
            "tool": tool.name,
            "args": args,
            "status": "running",
            "startedAt": 1000,
            "endedAt": None,
            "elapsedMs": 0,
            "timeoutS": tool.timeout_s,
            "movesBody": moves,
            "pausedTaskId": None,
            "output": None,
            "error": None,
            "polls": 0,
        }
        return self.actions[action_id]

    def poll(self, action_id: str) -> dict[str, Any]:
        record = self.actions[action_id]
        if record["status"] == "running":
            record["polls"] += 1
            record["elapsedMs"] = record["polls"] * 1000
            plan = self.plans.get(record["tool"], Plan())
            if plan.polls is not None and record["polls"] >= plan.polls:
                self._end(
                    record, plan.status, output=plan.output if plan.status == "succeeded" else None, error=plan.error
                )
        return record

    def _end(self, record: dict[str, Any], status: str, output: Any = None, error: Any = None) -> None:
        record.update(status=status, output=output, error=error, endedAt=record["startedAt"] + record["elapsedMs"])

    def goal(self, body: dict[str, Any]) -> Any:
        text = body.get("text") or f"{body.get('action')} {body.get('target')} {body.get('amount') or 1}"
        if "diamond_ore" in text:
            return JSONResponse(
                {
                    "error": "not_grounded",
                    "detail": "missing_item: collect diamond_ore: none in sight",
                    "goalKey": "collect:diamond_ore",
                    "goal": {},
                },
                422,
            )
        action, target = text.split()[:2]
        key = f"{action}:{target}"
        live = next(
            (
                t
                for t in self.tasks.values()
                if t["metadata"]["goalKey"] == key and t["status"] not in ("completed", "failed")
            ),
            None,
        )
        if live is not None:
            return JSONResponse(
                {
                    "error": "duplicate",
                    "detail": f"a live task has goal {key}",
                    "goalKey": key,
                    "goal": {},
                    "task": live,
                },
                409,
            )
        task_id = f"task-{len(self.tasks) + 1}"
        self.tasks[task_id] = {
            "id": task_id,
            "title": text,
            "status": "pending",
            "progress": 0.0,
            "priority": body.get("priority", 0.5),
            "metadata": {"goalKey": key, "origin": {"kind": "user"}, "createdAt": 1, "bot": body.get("bot")},
        }
        return JSONResponse(self.tasks[task_id], 201)


class Served:
    """The fake on a real loopback socket, in a thread (uvicorn runs its own event loop)."""

    def __init__(self, fake: FakeDaemon) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(fake.app(), host="127.0.0.1", port=self.port, log_config=None, access_log=False)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Served:
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:  # start-up only: the tests themselves never sleep
            assert time.monotonic() < deadline and self.thread.is_alive(), "the fake daemon did not start"
            time.sleep(0.02)
        return self

    def __exit__(self, *_exc: Any) -> None:
        self.server.should_exit = True
        self.thread.join(10)
