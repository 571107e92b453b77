"""The daemon's HTTP API (FastAPI, served by uvicorn inside the daemon's event loop).

JSON keys are camelCase (`convertEligible`, `goalKey`), as stored metadata and the log lines
of docs/contracts.md spell them. Bad input
gets a 4xx with a reason and nothing is stored; bodies over `max_body_bytes` get 413;
a token, when configured (mandatory off loopback), is required as `Authorization: Bearer`.
"""

from __future__ import annotations

import contextlib
import hmac
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Literal

from fastapi import FastAPI, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse
from loguru import logger
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictStr
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agency.goals.user_goals import GoalRequest, GoalRequestError
from bot.runtime.api_events import MAX_SEQ, nothing_left, resume_after, task_event_stream
from bot.runtime.api_live import LiveSources, live_stream
from bot.runtime.dashboard import PUBLIC_PATHS, add_dashboard_routes
from bot.runtime.errors import BotRuntimeError

# A refused user goal: the status code by verdict (agency.goals.user_goals.Verdict).
GOAL_REFUSED = {"duplicate": 409, "already_satisfied": 409, "not_routable": 422, "not_grounded": 422, "internal_error": 500}


@dataclass
class ApiContext:
    """What the API needs from the daemon: stores and a few callables, no daemon internals."""

    stream: Any  # agency.stream.cognitive_stream.CognitiveStream
    tasks: Any  # agency.planning.tasks.store.SqliteTaskStore
    counters: Any  # agency.cognition.counters.AgencyCounters
    snapshot: Callable[[], Awaitable[Any]]  # latest WorldSnapshot (raises when not connected)
    poke_keepalive: Callable[[], Awaitable[dict[str, Any]]]
    health: Callable[[], dict[str, Any]]
    metrics: Callable[[], str]
    inject_thought: Callable[[dict[str, Any]], Any]  # POST /thoughts (dev injection rules inside)
    stalled: Callable[[], list[dict[str, Any]]] | None = None  # tasks with their stall class
    task_command: Callable[[str, str], Awaitable[Any]] | None = None  # pause/resume/cancel
    submit_goal: Callable[[Any], Awaitable[Any]] | None = None  # POST /api/goals -> agency.goals.user_goals.GoalDecision
    places: Callable[[], dict[str, Any]] | None = None  # GET /api/places: agency.places.memory.PlaceMemory.view
    stopping: Callable[[], bool] = lambda: False  # the daemon is stopping: event streams end
    direct: Any = None  # agency.execution.direct.DirectActions (None until the bot is attached)
    blocks_around: Callable[[int], Awaitable[dict[str, Any]]] | None = None  # GET /api/bot/blocks
    live: LiveSources | None = None  # GET /api/live
    logs: Callable[[int, int], list[dict[str, Any]]] | None = None  # GET /api/logs: lines after seq, limit
    viewer: Callable[[], Awaitable[dict[str, Any]]] | None = None  # GET /api/viewer: the 3D view's address
    shelters: Callable[[], list[dict[str, Any]]] | None = None  # GET /api/shelters
    bots: Any = None  # bot.runtime.api_context.FleetView of a fleet; None = one bot (GET /api/bots lists it)
    bot_name: str = "mcbot"  # the one bot's name (or the fleet's first)
    bot_summary: Callable[[], dict[str, Any]] | None = None  # GET /api/bots of a one-bot daemon

    def bot_names(self) -> list[str]:
        return self.bots.names() if self.bots is not None else [self.bot_name]

    def bot_named(self, name: str) -> str | None:
        """The bot's name as configured (player names ignore case), None for no such bot."""
        return next((n for n in self.bot_names() if n.lower() == name.lower()), None)

    def direct_of(self, name: str) -> Any:
        """The named bot's direct actions (a name bot_named found)."""
        return self.bots.agency(name).direct if self.bots is not None else self.direct

    def blocks_of(self, name: str) -> Callable[[int], Awaitable[dict[str, Any]]] | None:
        return self.bots.agency(name).blocks_around if self.bots is not None else self.blocks_around


class BotUnavailable(BotRuntimeError):
    """No bot to check a request against (not connected, gone mid-read): a 503."""


class ActionBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tool: StrictStr = Field(min_length=1, max_length=64)
    args: dict[str, Any] = Field(default_factory=dict)
    timeoutS: float | None = Field(default=None, gt=0, le=900)


ACTION_REFUSED = {"unknown_tool": 400, "invalid_args": 400, "busy": 409, "unavailable": 503}


class AckBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    thoughtIds: list[StrictStr] = Field(min_length=1, max_length=1000)


class ThoughtBody(BaseModel):
    model_config = ConfigDict(extra="allow")
    content: StrictStr = Field(min_length=1, max_length=4000)
    type: StrictStr = "external"
    convertEligible: StrictBool | None = None


class BodyLimit:
    """413 for bodies over the limit, whether or not Content-Length is honest."""

    def __init__(self, app: ASGIApp, max_bytes: int) -> None:
        self.app = app
        self.max_bytes = max_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.max_bytes:
            await _too_large(self.max_bytes, send)
            return
        # Buffer the body up to the limit, then replay it: a lying or absent Content-Length
        # cannot sneak a huge body past us.
        chunks: list[bytes] = []
        seen = 0
        more = True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away mid-body: nothing to answer, nothing to handle
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.max_bytes:
                await _too_large(self.max_bytes, send)
                return
            chunks.append(chunk)
            more = message.get("more_body", False)
        body = b"".join(chunks)
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


class Gate:
    """The Host check and the token, as plain ASGI: starlette's @app.middleware("http") runs
    every request through a task and memory streams of its own (0.4 ms a request)."""

    def __init__(self, app: ASGIApp, token: str | None, allowed_hosts: frozenset[str] | None) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            host = headers.get(b"host", b"").decode("latin-1")
            if self.allowed_hosts is not None and _host_name(host) not in self.allowed_hosts:
                await JSONResponse({"error": "forbidden", "detail": "this API answers only to its loopback address "
                                    "(set api.token to serve other names)"}, status_code=403)(scope, receive, send)
                return
            if self.expected is not None and scope["path"] not in PUBLIC_PATHS:  # the page's shell holds no data
                if not hmac.compare_digest(headers.get(b"authorization", b""), self.expected):
                    await JSONResponse({"error": "unauthorized", "detail": "missing or wrong API token"},
                                       status_code=401)(scope, receive, send)
                    return
        await self.app(scope, receive, send)


async def _too_large(limit: int, send: Send) -> None:
    body = b'{"error":"payload_too_large","detail":"request body exceeds ' + str(limit).encode() + b' bytes"}'
    await send({"type": "http.response.start", "status": 413, "headers": [(b"content-type", b"application/json")]})
    await send({"type": "http.response.body", "body": body})


def create_app(ctx: ApiContext, *, token: str | None = None, max_body_bytes: int = 65536,
               allowed_hosts: frozenset[str] | None = None) -> FastAPI:
    """allowed_hosts: the Host names a request may carry (None: any). The daemon passes its
    loopback names when no token is set: a web page that rebinds its own name to 127.0.0.1
    must not reach the API through the user's browser (it sends its own name as Host)."""
    app = FastAPI(title="mcbot", docs_url=None, redoc_url=None, openapi_url=None)

    @app.exception_handler(RequestValidationError)
    async def bad_request(_request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [
            {"loc": ".".join(str(p) for p in e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()
        ]
        return JSONResponse({"error": "bad_request", "detail": errors}, status_code=400)

    # ---- cognitive stream ------------------------------------------------------------
    @app.get("/api/cognitive-stream/actionable")
    async def actionable(limit: int = Query(10, ge=1, le=500)) -> dict[str, Any]:
        thoughts = ctx.stream.actionable(limit)
        return {"count": len(thoughts), "thoughts": [_dump(t) for t in thoughts]}

    @app.get("/api/cognitive-stream/recent")
    async def recent(limit: int = Query(20, ge=1, le=500), processed: bool | None = None) -> dict[str, Any]:
        thoughts = ctx.stream.recent(limit, processed=processed)
        return {"count": len(thoughts), "thoughts": [_dump(t) for t in thoughts]}

    @app.post("/api/cognitive-stream/ack")
    async def ack(body: AckBody) -> Any:
        result = ctx.stream.ack(body.thoughtIds, processed_by="api")
        payload = {
            "acked": len(result.acked),
            "requested": len(result.requested),
            "ackedIds": result.acked,
            "alreadyProcessed": result.already_processed,
            "unknown": result.unknown,
        }
        nothing_known = result.unknown and len(result.unknown) == len(result.requested)
        return JSONResponse(payload, status_code=404 if nothing_known else 200)

    @app.post("/thoughts", status_code=201)
    async def post_thought(body: ThoughtBody) -> Any:
        try:
            return _dump(ctx.inject_thought(body.model_dump(exclude_none=True)))
        except ValueError as e:  # the injection rules refused the body: nothing stored
            return JSONResponse({"error": "bad_request", "detail": str(e)}, status_code=400)

    @app.get("/thoughts")
    async def list_thoughts(limit: int = Query(20, ge=1, le=500)) -> dict[str, Any]:
        thoughts = ctx.stream.recent(limit)
        return {"count": len(thoughts), "thoughts": [_dump(t) for t in thoughts]}

    # ---- tasks -----------------------------------------------------------------------
    @app.get("/api/tasks")
    async def tasks(status: str | None = None, stalled: bool = False, limit: int = Query(100, ge=1, le=1000),
                    order: Literal["asc", "desc"] = "asc", bot: str | None = Query(None, min_length=1, max_length=16)) -> Any:
        if stalled:
            if ctx.stalled is None:
                return JSONResponse({"error": "not_available", "detail": "stall classification not wired"}, 501)
            items = ctx.stalled()
            return {"count": len(items), "tasks": items[:limit]}
        from agency.planning.tasks.models import TaskStatus  # noqa: PLC0415

        if status is not None:
            try:
                wanted = [TaskStatus(s) for s in status.split(",")]
            except ValueError:
                return JSONResponse({"error": "bad_request", "detail": f"unknown status in {status!r}"}, 400)
        else:
            wanted = list(TaskStatus)
        if bot is not None and (unknown := unknown_bot(bot)) is not None:
            return unknown
        items = ctx.tasks.list_by_status(*wanted, bot=ctx.bot_named(bot)) if bot else ctx.tasks.list_by_status(*wanted)
        items = sorted(items, key=lambda t: t.metadata.createdAt, reverse=order == "desc")
        return {"count": len(items[:limit]), "tasks": [_dump(t) for t in items[:limit]]}

    @app.get("/api/tasks/{task_id}")
    async def task(task_id: str) -> Any:
        t = ctx.tasks.get_task(task_id)
        if t is None:
            return JSONResponse({"error": "not_found", "detail": f"no task {task_id}"}, status_code=404)
        return _dump(t)

    @app.post("/api/tasks/{task_id}/{command}")
    async def task_command(task_id: str, command: str) -> Any:
        if command not in ("pause", "resume", "cancel") or ctx.task_command is None:
            return JSONResponse({"error": "not_found", "detail": f"no command {command!r}"}, status_code=404)
        if ctx.tasks.get_task(task_id) is None:
            return JSONResponse({"error": "not_found", "detail": f"no task {task_id}"}, status_code=404)
        try:
            return _dump(await ctx.task_command(task_id, command))
        except ValueError as e:
            return JSONResponse({"error": "conflict", "detail": str(e)}, status_code=409)

    @app.get("/api/tasks/{task_id}/events")
    async def task_events(task_id: str, request: Request, after: int = Query(0, ge=0, le=MAX_SEQ)) -> Any:
        if ctx.tasks.get_task(task_id) is None:
            return JSONResponse({"error": "not_found", "detail": f"no task {task_id}"}, status_code=404)
        try:
            after_seq = resume_after(request.headers.get("last-event-id"), after)
        except ValueError as e:
            return JSONResponse({"error": "bad_request", "detail": str(e)}, status_code=400)
        if nothing_left(ctx.tasks, task_id, after_seq):
            return Response(status_code=204)
        stream = task_event_stream(ctx.tasks, task_id, after_seq, stopping=ctx.stopping,
                                   disconnected=request.is_disconnected)
        return StreamingResponse(stream, media_type="text/event-stream",
                                 headers={"cache-control": "no-cache", "x-accel-buffering": "no"})

    # ---- a user's goals --------------------------------------------------------------
    @app.post("/api/goals", status_code=201)
    async def post_goal(body: GoalRequest) -> Any:
        if ctx.submit_goal is None:
            return JSONResponse({"error": "not_available", "detail": "goals are not wired"}, status_code=501)
        try:
            decision = await ctx.submit_goal(body)
        except GoalRequestError as e:
            return JSONResponse({"error": "bad_request", "detail": str(e)}, status_code=400)
        except BotUnavailable as e:
            return JSONResponse({"error": "unavailable", "detail": str(e)}, status_code=503)
        task = ctx.tasks.get_task(decision.task_id) if decision.task_id else None
        if decision.created:
            return _dump(task)
        payload = {"error": decision.verdict, "detail": decision.reason, "goalKey": decision.goal_key,
                   "goal": decision.goal.model_dump()}
        if task is not None:
            payload["task"] = _dump(task)
        return JSONResponse(payload, status_code=GOAL_REFUSED[decision.verdict])

    # ---- direct actions: one tool call on the bot (the dashboard, MCP clients) -----------
    def no_direct(direct: Any) -> JSONResponse | None:
        if direct is None:
            return JSONResponse({"error": "unavailable", "detail": "bot is not attached yet"}, status_code=503)
        return None

    def bot_or_404(name: str) -> tuple[str | None, JSONResponse | None]:
        """The bot's configured name, or the 404 naming the bots there are."""
        found = ctx.bot_named(name)
        if found is not None:
            return found, None
        names = ctx.bot_names()
        return None, JSONResponse({"error": "not_found", "detail": f"no bot {name!r} (this daemon drives {', '.join(names)})"},
                                  status_code=404)

    @app.get("/api/tools")
    async def tools() -> Any:
        if (refused := no_direct(ctx.direct)) is not None:
            return refused
        items = ctx.direct.catalog()
        return {"count": len(items), "tools": items}

    # The action routes: /api/actions... drive the first bot, /api/bots/{name}/actions... the one named.
    def start_action_on(direct: Any, body: ActionBody) -> Any:
        if (refused := no_direct(direct)) is not None:
            return refused
        from agency.execution.direct import DirectActionError  # noqa: PLC0415

        try:
            action = direct.start(body.tool, body.args, body.timeoutS)
        except DirectActionError as e:
            error = {"busy": "busy", "unavailable": "unavailable"}.get(e.kind, "bad_request")
            payload = {"error": error, "detail": str(e)}
            if e.details is not None:
                payload["fields" if e.kind == "invalid_args" else "running"] = e.details
            return JSONResponse(payload, status_code=ACTION_REFUSED[e.kind])
        return action.view(direct.clock())

    def actions_of(direct: Any, limit: int) -> Any:
        if (refused := no_direct(direct)) is not None:
            return refused
        items = [a.view(direct.clock()) for a in direct.recent(limit)]
        return {"count": len(items), "actions": items}

    def action_of(direct: Any, action_id: str) -> Any:
        if (refused := no_direct(direct)) is not None:
            return refused
        found = direct.get(action_id)
        if found is None:
            return JSONResponse({"error": "not_found", "detail": f"no action {action_id}"}, status_code=404)
        return found.view(direct.clock())

    def cancel_action_of(direct: Any, action_id: str) -> Any:
        if (refused := no_direct(direct)) is not None:
            return refused
        try:
            found = direct.cancel(action_id)
        except KeyError:
            return JSONResponse({"error": "not_found", "detail": f"no action {action_id}"}, status_code=404)
        except ValueError as e:
            return JSONResponse({"error": "conflict", "detail": str(e)}, status_code=409)
        return found.view(direct.clock())

    async def blocks_of(read: Callable[[int], Awaitable[dict[str, Any]]] | None, radius: int) -> Any:
        if read is None:
            return JSONResponse({"error": "not_available", "detail": "block reads are not wired"}, status_code=501)
        try:
            return await read(radius)
        except Exception as e:  # noqa: BLE001 - not connected, bridge down: say so (a JS stack's first line)
            return JSONResponse({"error": "unavailable", "detail": (str(e) or type(e).__name__).splitlines()[0]},
                                status_code=503)

    def as_bot(name: str) -> contextlib.AbstractContextManager[Any]:
        """A fleet's direct action names its bot in the lines it logs, as the bot's jobs do
        (bot/runtime/logs.py): its task starts inside this context."""
        return logger.contextualize(bot=name) if ctx.bots is not None else contextlib.nullcontext()

    @app.post("/api/actions", status_code=202)
    async def start_action(body: ActionBody) -> Any:
        with as_bot(ctx.bot_name):
            return start_action_on(ctx.direct, body)

    @app.get("/api/actions")
    async def actions(limit: int = Query(20, ge=1, le=50)) -> Any:
        return actions_of(ctx.direct, limit)

    @app.get("/api/actions/{action_id}")
    async def action(action_id: str) -> Any:
        return action_of(ctx.direct, action_id)

    @app.post("/api/actions/{action_id}/cancel")
    async def cancel_action(action_id: str) -> Any:
        with as_bot(ctx.bot_name):
            return cancel_action_of(ctx.direct, action_id)

    @app.get("/api/bot/blocks")
    async def blocks(radius: int = Query(8, ge=1, le=16)) -> Any:
        return await blocks_of(ctx.blocks_around, radius)

    @app.post("/api/bots/{name}/actions", status_code=202)
    async def bot_start_action(name: str, body: ActionBody) -> Any:
        found, unknown = bot_or_404(name)
        if unknown is not None:
            return unknown
        with as_bot(found):
            return start_action_on(ctx.direct_of(found), body)

    @app.get("/api/bots/{name}/actions")
    async def bot_actions(name: str, limit: int = Query(20, ge=1, le=50)) -> Any:
        found, unknown = bot_or_404(name)
        return unknown or actions_of(ctx.direct_of(found), limit)

    @app.get("/api/bots/{name}/actions/{action_id}")
    async def bot_action(name: str, action_id: str) -> Any:
        found, unknown = bot_or_404(name)
        return unknown or action_of(ctx.direct_of(found), action_id)

    @app.post("/api/bots/{name}/actions/{action_id}/cancel")
    async def bot_cancel_action(name: str, action_id: str) -> Any:
        found, unknown = bot_or_404(name)
        if unknown is not None:
            return unknown
        with as_bot(found):
            return cancel_action_of(ctx.direct_of(found), action_id)

    @app.get("/api/bots/{name}/blocks")
    async def bot_blocks(name: str, radius: int = Query(8, ge=1, le=16)) -> Any:
        found, unknown = bot_or_404(name)
        return unknown or await blocks_of(ctx.blocks_of(found), radius)

    # ---- what the dashboard watches ----------------------------------------------------
    @app.get("/api/live")
    async def live(request: Request, logAfter: int = Query(0, ge=0, le=MAX_SEQ)) -> Any:
        if ctx.live is None:
            return JSONResponse({"error": "not_available", "detail": "the live view is not wired"}, status_code=501)
        stream = live_stream(ctx.live, stopping=ctx.stopping, disconnected=request.is_disconnected, log_after=logAfter)
        return StreamingResponse(stream, media_type="text/event-stream",
                                 headers={"cache-control": "no-cache", "x-accel-buffering": "no"})

    @app.get("/api/logs")
    async def logs(after: int = Query(0, ge=0, le=MAX_SEQ), limit: int = Query(200, ge=1, le=500)) -> Any:
        if ctx.logs is None:
            return JSONResponse({"error": "not_available", "detail": "the log tail is not wired"}, status_code=501)
        lines = ctx.logs(after, limit)
        return {"count": len(lines), "lines": lines}

    @app.get("/api/viewer")
    async def viewer() -> Any:
        if ctx.viewer is None:
            return {"enabled": False, "running": False}
        return await ctx.viewer()

    @app.get("/api/shelters")
    async def shelters() -> Any:
        if ctx.shelters is None:
            return JSONResponse({"error": "not_available", "detail": "shelter status is not wired"}, status_code=501)
        items = ctx.shelters()
        return {"count": len(items), "shelters": items}

    add_dashboard_routes(app)

    # ---- agency, bot, keep-alive, health ----------------------------------------------
    @app.get("/api/agency/counters")
    async def counters() -> dict[str, Any]:
        return ctx.counters.snapshot()

    @app.get("/api/places")
    async def places() -> Any:
        """The places the bot remembers in this world (read-only)."""
        if ctx.places is None:
            return JSONResponse({"error": "not_available", "detail": "place memory is not wired"}, status_code=501)
        return ctx.places()

    # ---- the fleet ----------------------------------------------------------------------
    def unknown_bot(name: str) -> JSONResponse | None:
        return bot_or_404(name)[1]

    @app.get("/api/bots")
    async def bots() -> Any:
        items = ctx.bots.summary() if ctx.bots is not None else [ctx.bot_summary()] if ctx.bot_summary else []
        return {"count": len(items), "bots": items}

    @app.get("/api/bots/{name}/snapshot")
    async def bot_snapshot(name: str) -> Any:
        if (unknown := unknown_bot(name)) is not None:
            return unknown
        try:
            snap = await (ctx.bots.snapshot(name) if ctx.bots is not None else ctx.snapshot())
        except Exception as e:  # noqa: BLE001 - not connected, bridge down: say so
            return JSONResponse({"error": "unavailable", "detail": str(e)}, status_code=503)
        return _json_of(snap)

    @app.get("/api/bot/snapshot")
    async def snapshot() -> Any:
        try:
            snap = await ctx.snapshot()
        except Exception as e:  # noqa: BLE001 - not connected, bridge down: say so
            return JSONResponse({"error": "unavailable", "detail": str(e)}, status_code=503)
        return _json_of(snap)

    @app.post("/api/keepalive/poke")
    async def poke() -> dict[str, Any]:
        return await ctx.poke_keepalive()

    @app.get("/healthz")
    async def healthz() -> JSONResponse:
        h = ctx.health()
        return JSONResponse(h, status_code=200 if h.get("ok") else 503)

    @app.get("/metrics")
    async def metrics() -> PlainTextResponse:
        return PlainTextResponse(ctx.metrics(), media_type="text/plain; version=0.0.4")

    return BodyLimit(Gate(app, token, allowed_hosts), max_body_bytes)  # type: ignore[return-value]


LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


def _host_name(host: str) -> str:
    """The name in a Host header, without its port ('[::1]:3003' -> '::1')."""
    if host.startswith("["):
        return host[1:host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _json_of(model: BaseModel) -> Response:
    """pydantic's own JSON: FastAPI would walk the dumped dict again (jsonable_encoder), a
    millisecond for a snapshot of a fleet's bot with its twenty neighbours in view."""
    return Response(model.model_dump_json(), media_type="application/json")


def _dump(obj: Any) -> Any:
    return obj.model_dump(mode="json", exclude_none=True) if hasattr(obj, "model_dump") else obj
