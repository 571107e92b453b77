"""How the daemon serves its HTTP API: uvicorn (h11) with a request read deadline.

uvicorn has no header or body read timeout: a client that sends part of its headers, or a
Content-Length longer than the body it sends, holds a connection (and a buffering
handler) for as long as it likes. Here every request must arrive whole within
`read_timeout_s` of the connection opening or of the previous response: otherwise the
client gets a 408 (when it had started a request) and the connection is closed.
"""

from __future__ import annotations

import asyncio
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

from bot.runtime.api.errors import error_bytes

_TIMEOUT_BODY = error_bytes(408, "request not received in time")
REQUEST_TIMEOUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    b"content-length: " + str(len(_TIMEOUT_BODY)).encode() + b"\r\n\r\n" + _TIMEOUT_BODY
)


class ReadDeadlineProtocol(H11Protocol):
    read_timeout_s: float = 5.0
    _read_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # uvicorn's own signature, narrower than asyncio's
        super().connection_made(transport)
        self._arm_read_deadline()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm_read_deadline()  # the next request on this connection gets its own deadline

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_read_deadline()
        super().connection_lost(exc)

    def _arm_read_deadline(self) -> None:
        self._cancel_read_deadline()
        if not self.transport.is_closing():
            self._read_deadline = self.loop.call_later(self.read_timeout_s, self._read_deadline_passed)

    def _cancel_read_deadline(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _read_deadline_passed(self) -> None:
        self._read_deadline = None
        state = self.conn.their_state
        if self.transport.is_closing() or state not in (h11.IDLE, h11.SEND_BODY):
            return  # the request arrived whole: the handler's time is not ours to bound
        started = state is h11.SEND_BODY or bool(self.conn.trailing_data[0])  # partial headers count
        if started and (self.cycle is None or not self.cycle.response_started):
            self.transport.write(REQUEST_TIMEOUT)
        self.transport.close()  # an idle connection just closes


def api_server(app: Any, host: str, port: int, read_timeout_s: float) -> uvicorn.Server:
    """The uvicorn server the daemon runs. While it serves, uvicorn takes SIGTERM and SIGINT: it
    stops, then raises the signal again for the daemon's own handlers."""
    protocol = type("ApiProtocol", (ReadDeadlineProtocol,), {"read_timeout_s": read_timeout_s})
    config = uvicorn.Config(app, host=host, port=port, http=protocol, log_config=None, access_log=False, lifespan="off")
    return uvicorn.Server(config)
