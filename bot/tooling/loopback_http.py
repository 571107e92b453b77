"""One HTTP client for the tools and tests that poll a daemon on this machine.

`httpx.get()` builds a new client, and with it a TLS context loaded from the CA bundle, on
every call: about 30 to 70 ms of CPU each on the project's 2-core CI machine, which polling
loops (ten a second in some tests) paid over and over. One client made once costs under a
millisecond a request. It keeps no connection open between requests, as httpx.get() did not: an
idle keep-alive connection would hold a server's port after the server is told to close.
"""

from __future__ import annotations

import functools

import httpx


@functools.cache
def loopback() -> httpx.Client:
    """The process's shared client (thread-safe; pass `timeout=` per request)."""
    return httpx.Client(limits=httpx.Limits(max_keepalive_connections=0))
