"""One HTTP client for the tools and tests that poll a daemon on this machine.

`httpx.get()` builds a new client, and with it a TLS context loaded from the CA bundle, on
every call: about 30 to 70 ms of CPU each on the project's 2-core CI machine, which polling
loops (ten a second in some tests) paid over and over. One client made once costs under a
millisecond a request and keeps its connections open.
"""

from __future__ import annotations

import functools

import httpx


@functools.cache
def loopback() -> httpx.Client:
    """The process's shared client (thread-safe; pass `timeout=` per request)."""
    return httpx.Client()
