"""The bridge thread: every JSPyBridge call of a Bridge (bot/runtime/bridge.py) runs on the
one thread of its BridgeWorker, JSPyBridge's start included."""

from __future__ import annotations

import concurrent.futures
import itertools
import queue
import threading
from collections.abc import Callable
from typing import Any


class BridgeWorker:
    """One daemon thread running submitted calls in order, a user's calls first (an API
    read waits for the call under way, not for a fleet's queued polls). Unlike
    ThreadPoolExecutor's workers it is not joined at interpreter exit, so a call stuck on a
    dead node can never hold the process open."""

    URGENT, NORMAL, STOP = 0, 1, 2

    def __init__(self, name: str) -> None:
        self._queue: queue.PriorityQueue[
            tuple[int, int, concurrent.futures.Future[Any] | None, Callable[[], Any] | None]
        ] = queue.PriorityQueue()
        self._seq = itertools.count()  # in order within a lane
        self.thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while (item := self._queue.get())[2] is not None:
            _, _, future, func = item
            assert future is not None and func is not None
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(func())
            except BaseException as e:  # noqa: BLE001 - handed to the caller
                future.set_exception(e)

    def submit(self, func: Callable[[], Any], *, urgent: bool = False) -> concurrent.futures.Future[Any]:
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._queue.put((self.URGENT if urgent else self.NORMAL, next(self._seq), future, func))
        return future

    def shutdown(self) -> None:
        self._queue.put((self.STOP, next(self._seq), None, None))  # after the calls already queued
