"""Serving the MCP server: stdio (the client started us; stdout is the protocol channel, so
everything else goes to stderr) or streamable HTTP at /mcp (a token, when set, is required
as `Authorization: Bearer`, mandatory off loopback like the daemon's API)."""

from __future__ import annotations

import hmac

import uvicorn
from mcp.server.mcpserver import MCPServer
from starlette.types import ASGIApp, Receive, Scope, Send

MCP_PATH = "/mcp"


class BearerToken:
    """401 for HTTP requests without the token; lifespan and other scopes pass through."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                body = b'{"error":"unauthorized","detail":"missing or wrong MCP token"}'
                await send(
                    {
                        "type": "http.response.start",
                        "status": 401,
                        "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


def http_app(server: MCPServer, host: str, token: str | None) -> ASGIApp:
    app: ASGIApp = server.streamable_http_app(streamable_http_path=MCP_PATH, host=host)
    return BearerToken(app, token) if token else app


async def serve_http(server: MCPServer, host: str, port: int, token: str | None) -> None:
    # log_config=None: uvicorn keeps our logging (stderr); its access log would print every POST.
    config = uvicorn.Config(
        http_app(server, host, token),
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=5,
    )  # a call polling a long action must not hold a stop
    await uvicorn.Server(config).serve()


async def serve_stdio(server: MCPServer) -> None:
    await server.run_stdio_async()
