"""Every error the API answers, in one shape, turned into JSON here and only here.

The shape: `{"error": <a short code>, "detail": <a sentence>}`, where a request FastAPI
could not validate gets the list of `{"loc", "msg"}` it found as its detail, and a route
may add fields of its own (a refused goal's `goalKey`, a busy bot's `running` action).
Routes raise ApiError or a domain error; `install` registers the handlers that answer
them, and the ones that give FastAPI's and starlette's own errors (an unknown route, a
method the route does not take, a body that is not JSON) the same shape. The middleware's
answers (401, 403, 413: bot/runtime/api/gate.py) and the server's 408
(bot/runtime/api/server.py) are built by `error_response` / `error_bytes` too.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException

from agency.execution.direct import DirectActionError
from agency.goals.user_goals import GoalRequestError
from bot.runtime.errors import BotRuntimeError

# The code an error's status carries when nothing more precise is said.
CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    408: "request_timeout",
    409: "conflict",
    413: "payload_too_large",
    422: "unprocessable",
    500: "internal_error",
    501: "not_available",
    503: "unavailable",
}

# A refused direct action: the status code by the refusal's kind (agency.execution.direct).
ACTION_REFUSED = {"unknown_tool": 400, "invalid_args": 400, "busy": 409, "unavailable": 503}


class BotUnavailable(BotRuntimeError):
    """No bot to check a request against (not connected, gone mid-read): a 503."""


class ApiError(Exception):
    """An answer other than success: its status, code, detail and any fields of its own."""

    def __init__(self, status: int, detail: Any, error: str | None = None, **fields: Any) -> None:
        super().__init__(detail)
        self.status = status
        self.error = error or CODES[status]
        self.detail = detail
        self.fields = fields

    @classmethod
    def bad_request(cls, detail: str) -> ApiError:
        return cls(400, detail)

    @classmethod
    def not_found(cls, detail: str) -> ApiError:
        return cls(404, detail)

    @classmethod
    def conflict(cls, detail: str) -> ApiError:
        return cls(409, detail)

    @classmethod
    def not_wired(cls, detail: str) -> ApiError:
        """A part this daemon was built without (a test's context): 501."""
        return cls(501, detail)

    @classmethod
    def unavailable(cls, detail: str) -> ApiError:
        return cls(503, detail)


def error_body(error: str, detail: Any, **fields: Any) -> dict[str, Any]:
    return {"error": error, "detail": detail, **fields}


def error_response(
    status: int, detail: Any, error: str | None = None, *, headers: Mapping[str, str] | None = None, **fields: Any
) -> JSONResponse:
    return JSONResponse(error_body(error or CODES[status], detail, **fields), status_code=status, headers=headers)


def error_bytes(status: int, detail: str) -> bytes:
    """The body of an answer written below FastAPI (the server's 408), as JSONResponse writes it."""
    return json.dumps(error_body(CODES[status], detail), separators=(",", ":")).encode()


async def _api_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, ApiError)
    return error_response(exc.status, exc.detail, exc.error, **exc.fields)


async def _invalid(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    found = [{"loc": ".".join(str(p) for p in e.get("loc", ())), "msg": e.get("msg", "")} for e in exc.errors()]
    return error_response(400, found)


async def _http_error(request: Request, exc: Exception) -> JSONResponse:
    """starlette's and FastAPI's own: no such route, a method the route does not take, a
    body FastAPI could not parse (a JSON array nested thousands deep)."""
    assert isinstance(exc, HTTPException)
    detail: Any = exc.detail
    if exc.status_code == 404 and detail == "Not Found":
        detail = f"no route {request.url.path}"
    elif exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        detail = f"{request.method} is not allowed on {request.url.path} (it takes {allowed})"
    return error_response(exc.status_code, detail, CODES.get(exc.status_code, "http_error"), headers=exc.headers)


async def _action_refused(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DirectActionError)
    fields = {}
    if exc.details is not None:
        fields["fields" if exc.kind == "invalid_args" else "running"] = exc.details
    error = exc.kind if exc.kind in ("busy", "unavailable") else "bad_request"
    return error_response(ACTION_REFUSED[exc.kind], str(exc), error, **fields)


async def _goal_refused(_request: Request, exc: Exception) -> JSONResponse:
    return error_response(400, str(exc))


async def _bot_unavailable(_request: Request, exc: Exception) -> JSONResponse:
    return error_response(503, str(exc))


async def _internal(_request: Request, _exc: Exception) -> JSONResponse:
    """Anything a route did not expect (uvicorn still logs it, with its traceback)."""
    return error_response(500, "the daemon failed to answer (its log has the traceback)")


def install(app: FastAPI) -> None:
    """The one place errors become JSON."""
    app.add_exception_handler(ApiError, _api_error)
    app.add_exception_handler(RequestValidationError, _invalid)
    app.add_exception_handler(HTTPException, _http_error)
    app.add_exception_handler(DirectActionError, _action_refused)
    app.add_exception_handler(GoalRequestError, _goal_refused)
    app.add_exception_handler(BotUnavailable, _bot_unavailable)
    app.add_exception_handler(Exception, _internal)
