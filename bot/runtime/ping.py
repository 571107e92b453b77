"""Minecraft server list ping in pure Python: tells whether a server answers, and which
version it speaks, before any node process is started (so 'nothing listens there' is a
fast, clear exit 3, and mineflayer never meets a version it cannot speak)."""

from __future__ import annotations

import json
import socket
import struct
from dataclasses import dataclass

from bot.runtime.errors import InitError


class ServerUnreachable(InitError):
    pass


@dataclass(frozen=True)
class PingResult:
    version_name: str
    protocol: int
    motd: str
    players_online: int


def _varint(n: int) -> bytes:
    out = bytearray()
    n &= 0xFFFFFFFF
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _read_varint(sock: socket.socket) -> int:
    result = 0
    for i in range(5):
        b = _recv_exact(sock, 1)[0]
        result |= (b & 0x7F) << (7 * i)
        if not b & 0x80:
            return result
    raise ServerUnreachable("malformed varint in status reply")


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ServerUnreachable("connection closed during status ping")
        buf.extend(chunk)
    return bytes(buf)


# The status reply of a server that took the connection is waited for longer than the
# connection itself: the embedded world, just ready and generating its spawn area beside a
# loaded CI's other lanes, answered after more than 5 s and the daemon exited 3.
REPLY_TIMEOUT_S = 30.0


def ping(host: str, port: int, timeout_s: float = 5.0, reply_timeout_s: float = REPLY_TIMEOUT_S) -> PingResult:
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as sock:
            sock.settimeout(reply_timeout_s)
            host_b = host.encode()
            handshake = _varint(0) + _varint(0xFFFFFFFF) + _varint(len(host_b)) + host_b
            handshake += struct.pack(">H", port) + _varint(1)
            sock.sendall(_varint(len(handshake)) + handshake)
            sock.sendall(_varint(1) + b"\x00")
            _read_varint(sock)  # packet length
            if _read_varint(sock) != 0:
                raise ServerUnreachable("unexpected packet in status reply")
            body = _recv_exact(sock, _read_varint(sock))
    except ServerUnreachable:
        raise
    except OSError as e:
        reason = e.strerror or str(e) or type(e).__name__
        raise ServerUnreachable(f"server unreachable at {host}:{port}: {reason}") from None
    try:
        status = json.loads(body)
        version = status["version"]
        description = status.get("description", "")
        motd = description.get("text", "") if isinstance(description, dict) else str(description)
        return PingResult(
            version_name=str(version.get("name", "")),
            protocol=int(version["protocol"]),
            motd=motd,
            players_online=int(status.get("players", {}).get("online", 0)),
        )
    except (ValueError, KeyError, TypeError) as e:
        raise ServerUnreachable(f"server at {host}:{port} sent a malformed status reply: {e}") from None
