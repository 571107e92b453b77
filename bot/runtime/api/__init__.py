"""The daemon's HTTP API (FastAPI, served by uvicorn inside the daemon's event loop).

JSON keys are camelCase (`convertEligible`, `goalKey`), as stored metadata and the log lines
of docs/contracts.md spell them. Bad input gets a 4xx with a reason and nothing is stored;
bodies over `max_body_bytes` get 413; a token, when configured (mandatory off loopback), is
required as `Authorization: Bearer`. Every error has one shape, `{"error", "detail"}`
(errors.py).

The rooms: app.py puts the API together; routes/ holds one router per resource; deps.py the
dependencies the routes share (the context, the bot addressed); context.py what the API
reads (ApiContext), which daemon_context.py gathers from the daemon; errors.py every error
answer; gate.py the body limit, Host check and token; server.py the uvicorn server with its
read deadline; task_events.py and live_stream.py the server-sent event streams.
"""

from __future__ import annotations

from bot.runtime.api.app import create_app
from bot.runtime.api.context import ApiContext, Bot
from bot.runtime.api.errors import ApiError, BotUnavailable
from bot.runtime.api.gate import LOOPBACK_NAMES

__all__ = ["LOOPBACK_NAMES", "ApiContext", "ApiError", "Bot", "BotUnavailable", "create_app"]
