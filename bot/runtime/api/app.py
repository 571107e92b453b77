"""create_app: the routers (bot/runtime/api/routes/), the error handlers
(bot/runtime/api/errors.py) and the gate every request passes first
(bot/runtime/api/gate.py), put together."""

from __future__ import annotations

from fastapi import FastAPI

from bot.runtime.api import errors
from bot.runtime.api.context import ApiContext
from bot.runtime.api.deps import FLEET_PREFIX
from bot.runtime.api.gate import BodyLimit, Gate
from bot.runtime.api.routes import bots, goals, health, live, places, tasks, thoughts, tools
from bot.runtime.dashboard import add_dashboard_routes


def create_app(ctx: ApiContext, *, token: str | None = None, max_body_bytes: int = 65536,
               allowed_hosts: frozenset[str] | None = None) -> FastAPI:
    """allowed_hosts: the Host names a request may carry (None: any). The daemon passes its
    loopback names when no token is set: a web page that rebinds its own name to 127.0.0.1
    must not reach the API through the user's browser (it sends its own name as Host)."""
    app = FastAPI(title="mcbot", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.ctx = ctx
    errors.install(app)
    for router in (thoughts.router, tasks.router, goals.router, tools.router, live.router, places.router,
                   bots.router, health.router):
        app.include_router(router)
    # One bot's routes, written once: the first bot's at their plain paths, each bot's by name.
    app.include_router(tools.BOT_ROUTES, prefix="/api")
    app.include_router(bots.BOT_ROUTES, prefix="/api/bot")
    for bot_routes in (tools.BOT_ROUTES, bots.BOT_ROUTES):
        app.include_router(bot_routes, prefix=FLEET_PREFIX)
    add_dashboard_routes(app)
    return BodyLimit(Gate(app, token, allowed_hosts), max_body_bytes)  # type: ignore[return-value]
