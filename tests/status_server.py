"""A TCP server that answers Minecraft server list pings with a given status, like a server of
any version would (only the status exchange: it cannot be joined). For the 'unsupported
version' paths, which the embedded world cannot show: it serves only versions mineflayer
supports."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from bot.runtime.ping import _varint

# Status replies shaped like Paper's (its version name carries the brand).
PAPER_NEWER = {
    "version": {"name": "Paper 26.9", "protocol": 9999},
    "players": {"max": 20, "online": 1},
    "description": {"text": "A Paper server"},
}
PAPER_OLDER = {"version": {"name": "1.7.10", "protocol": 5}, "players": {"max": 20, "online": 0}, "description": "old"}


def _packet(payload: bytes) -> bytes:
    return _varint(len(payload)) + payload


@contextmanager
def status_server(status: dict[str, Any], delay_s: float = 0.0) -> Iterator[int]:
    """Yields the port; answers every connection's status request with `status`, `delay_s`
    after it came (a loaded server)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()
    body = json.dumps(status).encode()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(4096)  # handshake + status request (small; usually one read)
                    stop.wait(delay_s)
                    conn.sendall(_packet(b"\x00" + _varint(len(body)) + body))
                except OSError:
                    pass

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield srv.getsockname()[1]
    finally:
        stop.set()
        t.join(2)
        srv.close()
