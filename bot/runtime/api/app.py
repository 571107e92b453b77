"""create_app: the routers (bot/runtime/api/routes/), the error handlers
(bot/runtime/api/errors.py) and the gate every request passes first
(bot/runtime/api/gate.py), put together."""

from __future__ import annotations

from fastapi import APIRouter, FastAPI
from fastapi.routing import APIRoute

from bot.runtime import dashboard
from bot.runtime.api import errors
from bot.runtime.api.context import ApiContext
from bot.runtime.api.deps import FLEET_PREFIX
from bot.runtime.api.gate import BodyLimit, Gate
from bot.runtime.api.routes import bots, goals, health, live, places, tasks, thoughts, tools

# Each router and the prefix it is served at. One bot's routes are written once: the first
# bot's at their plain paths, each bot's under its name.
MOUNTS: tuple[tuple[APIRouter, str], ...] = (
    (thoughts.router, ""),
    (tasks.router, ""),
    (goals.router, ""),
    (tools.router, ""),
    (live.router, ""),
    (places.router, ""),
    (bots.router, ""),
    (health.router, ""),
    (tools.BOT_ROUTES, "/api"),
    (bots.BOT_ROUTES, "/api/bot"),
    (tools.BOT_ROUTES, FLEET_PREFIX),
    (bots.BOT_ROUTES, FLEET_PREFIX),
)


def create_app(
    ctx: ApiContext,
    *,
    token: str | None = None,
    max_body_bytes: int = 65536,
    allowed_hosts: frozenset[str] | None = None,
) -> BodyLimit:
    """allowed_hosts: the Host names a request may carry (None: any). The daemon passes its
    loopback names when no token is set: a web page that rebinds its own name to 127.0.0.1
    must not reach the API through the user's browser (it sends its own name as Host)."""
    app = FastAPI(title="mcbot", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.ctx = ctx
    errors.install(app)
    for router, prefix in MOUNTS:
        app.include_router(router, prefix=prefix)
    dashboard.add_dashboard_routes(app)
    return BodyLimit(Gate(app, token, allowed_hosts), max_body_bytes)


def route_table() -> list[tuple[str, str]]:
    """Every (method, path) the API serves, HEAD aside. The app cannot list them itself:
    FastAPI keeps an included router whole rather than copying its routes into the app's."""
    table = [
        (m, prefix + r.path)
        for router, prefix in MOUNTS
        for r in router.routes
        if isinstance(r, APIRoute)
        for m in r.methods or ()
    ]
    return [(m, p) for m, p in table + [("GET", path) for path in dashboard.FILES] if m != "HEAD"]
