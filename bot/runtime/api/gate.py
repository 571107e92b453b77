"""What every request passes before FastAPI routes it, as plain ASGI: the body size limit,
the Host check and the token. starlette's @app.middleware("http") would run every request
through a task and memory streams of its own (0.4 ms a request); and a check made here
answers before routing, so a client without the token learns nothing of which routes
exist or what they accept."""

from __future__ import annotations

import hmac

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from bot.runtime.api.errors import error_response
from bot.runtime.dashboard import PUBLIC_PATHS

LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})


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
            await self._too_large(scope, receive, send)
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
                await self._too_large(scope, receive, send)
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

    async def _too_large(self, scope: Scope, receive: Receive, send: Send) -> None:
        await error_response(413, f"request body exceeds {self.max_bytes} bytes")(scope, receive, send)


class Gate:
    """The Host check and the token."""

    def __init__(self, app: ASGIApp, token: str | None, allowed_hosts: frozenset[str] | None) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None
        self.allowed_hosts = allowed_hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = dict(scope.get("headers") or [])
            host = headers.get(b"host", b"").decode("latin-1")
            if self.allowed_hosts is not None and host_name(host) not in self.allowed_hosts:
                await error_response(
                    403, "this API answers only to its loopback address (set api.token to serve other names)"
                )(scope, receive, send)
                return
            if (
                self.expected is not None
                and scope["path"] not in PUBLIC_PATHS  # the page's shell holds no data
                and not hmac.compare_digest(headers.get(b"authorization", b""), self.expected)
            ):
                await error_response(401, "missing or wrong API token")(scope, receive, send)
                return
        await self.app(scope, receive, send)


def host_name(host: str) -> str:
    """The name in a Host header, without its port ('[::1]:3003' -> '::1')."""
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host
