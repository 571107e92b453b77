"""The MCP server's way to the running daemon: its HTTP API, asynchronously.

The MCP server holds no bot state of its own; every answer comes from the daemon, and
every refusal carries the daemon's own reason (`error: detail`) so a client reads the
same words `mcbot goal` prints.
"""

from __future__ import annotations

from typing import Any

import httpx

from bot.runtime.errors import BotRuntimeError

TIMEOUT_S = 30.0


class DaemonRefused(BotRuntimeError):
    """The daemon answered with an error status; str() is its reason."""

    def __init__(self, status: int, error: str, detail: str, body: Any = None) -> None:
        super().__init__(f"{error}: {detail}" if detail else error)
        self.status = status
        self.error = error
        self.detail = detail
        self.body = body


class DaemonUnreachable(BotRuntimeError):
    """Nothing answers at the daemon's address."""


def refusal(status: int, body: Any, text: str = "") -> DaemonRefused:
    """The daemon's error body as an exception: `error` and `detail` verbatim; a 400's
    field list (FastAPI's validation errors) joined as `field: message; ...`."""
    if not isinstance(body, dict):
        return DaemonRefused(status, f"HTTP {status}", text[:300], body)
    detail = body.get("detail", "")
    if isinstance(detail, list):
        detail = "; ".join(f"{d.get('loc', '')}: {d.get('msg', '')}" if isinstance(d, dict) else str(d) for d in detail)
    elif not isinstance(detail, str):
        detail = str(detail)
    return DaemonRefused(status, str(body.get("error", f"HTTP {status}")), detail, body)


class DaemonClient:
    """A thin async client of the daemon's API: JSON in, JSON out, errors raised."""

    def __init__(
        self,
        base: str,
        token: str | None = None,
        *,
        timeout_s: float = TIMEOUT_S,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base = base.rstrip("/")
        headers = {"authorization": f"Bearer {token}"} if token else {}
        self._http = httpx.AsyncClient(base_url=self.base, headers=headers, timeout=timeout_s, transport=transport)

    async def request(self, method: str, path: str, *, ok: tuple[int, ...] = (200,), **kw: Any) -> Any:
        try:
            r = await self._http.request(method, path, **kw)
        except httpx.TimeoutException:
            raise DaemonUnreachable(
                f"the daemon at {self.base} did not answer {method} {path} within {self._http.timeout.read:.0f} s"
            ) from None
        except httpx.TransportError as e:
            raise DaemonUnreachable(f"no daemon answers at {self.base} ({type(e).__name__}: {e})") from None
        try:
            body = r.json()
        except ValueError:
            body = None
        if r.status_code not in ok:
            raise refusal(r.status_code, body, r.text)
        return body

    async def get(self, path: str, **params: Any) -> Any:
        return await self.request("GET", path, params={k: v for k, v in params.items() if v is not None})

    async def post(self, path: str, body: Any = None, *, ok: tuple[int, ...] = (200, 201, 202)) -> Any:
        return await self.request("POST", path, json=body, ok=ok)

    async def aclose(self) -> None:
        await self._http.aclose()
