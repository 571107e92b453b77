"""Ports handed out by free_port (bot/runtime/server.py), remembered across processes.

A port checked free is only free until someone listens on it, and a daemon listens on its API
port seconds after it was chosen. Side by side (make test's lanes, a bench's jobs) two processes
drew the same port in that window: a daemon's API port was taken by another daemon's 3D view
and its health check read the view's page (a CI run's world supervision test). Every port
handed out is claimed in one file, under a lock, for CLAIM_S; no process draws a claimed port.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

CLAIM_S = 600.0  # far longer than any process takes from choosing a port to listening on it


def claims_file() -> Path:
    return Path(tempfile.gettempdir()) / f"mcbot-port-claims-{os.getuid()}.json"


@contextlib.contextmanager
def claims_held(path: Path | None = None, clock: Callable[[], float] = time.time) -> Iterator[dict[int, float]]:
    """The live claims (port: when claimed), under an exclusive lock; written back on exit. A
    claim is a courtesy: where the file cannot be locked or written (a read-only temporary
    folder), the ports are handed out unclaimed, as before claims."""
    path = path or claims_file()
    try:
        lock = open(path.with_suffix(".lock"), "a")  # noqa: SIM115 - held across the yield
    except OSError:
        yield {}
        return
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        now = clock()
        claims = {port: at for port, at in read_claims(path).items() if now - at < CLAIM_S}
        yield claims
        with contextlib.suppress(OSError):
            tmp = path.with_suffix(".tmp")
            tmp.write_text(json.dumps({str(port): at for port, at in claims.items()}))
            tmp.replace(path)


def read_claims(path: Path) -> dict[int, float]:
    """The claims file's entries; none when it is missing or unreadable."""
    try:
        raw = json.loads(path.read_text())
        return {int(port): float(at) for port, at in raw.items()}
    except (OSError, ValueError, TypeError, AttributeError):
        return {}
