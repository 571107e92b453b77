"""The one object through which Python talks to node (JSPyBridge).

Keeps docs/contracts.md BRIDGE-1, BRIDGE-4 and BRIDGE-5 by design:
- node side pinned: we require ONE entry file (node/bridge.js) by absolute path, with
  NODE_PM=false so JSPyBridge can never auto-install packages;
- every JSPyBridge call runs on ONE thread owned by this object, and every call's Python
  timeout is its JS timeout plus a margin, so a late JS reply never kills the bridge;
- a watchdog notices a dead node process or a dead bridge thread within seconds, and a
  wedged one (alive but answering nothing: its heartbeat stopped or lags, calls time out one
  after another, its RSS is over the limit; bot/runtime/wedge.py) too: it kills that node,
  which then is dead like any other;
- node runs with a heap limit, so a runaway dies early instead of eating the machine;
- `rebuild()` replaces node and all JS state (old proxies are stale; bots are rebuilt by
  their owners); `shutdown()` quits every bot and ends node, within seconds even when node
  answers nothing.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import itertools
import json
import os
import queue
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from loguru import logger

from bot.runtime import node_spawn
from bot.runtime.errors import BotRuntimeError, InitError
from bot.runtime.node_runtime import NodeRuntimeError, resolve_node_bin
from bot.runtime.node_watch import NodeWatch
from bot.runtime.wedge import Verdict, WedgeLimits

NODE_DIR = Path(__file__).resolve().parents[2] / "node"
ENTRY = NODE_DIR / "bridge.js"

# Property gets through JSPyBridge have a fixed 10 s timeout (its own); plain helper calls
# that wait on nothing in JS get this one.
DEFAULT_JS_TIMEOUT_MS = 10_000
DEFAULT_HEAP_MB = 1024  # node's old space (--max-old-space-size)
# Once the daemon stops, a call waits at most this long (goodbyes to a node that answers).
SHUTDOWN_CALL_S = 2.0
# A node whose last beat is older than this when the daemon stops gets no goodbyes: killed.
SHUTDOWN_BEAT_S = 1.5


class BridgeError(BotRuntimeError):
    """A JS helper raised; the bridge itself is fine."""


class BridgeDead(InitError):
    """node or the bridge thread is gone; rebuild the bridge to go on."""


class BridgeInitError(InitError):
    """The node side could not be started (node missing, deps not installed, ...)."""


class _Worker:
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


class Bridge:
    _instance_lock = threading.Lock()
    _live_instance: Bridge | None = None  # JSPyBridge is process-global: one at a time

    def __init__(
        self,
        node_bin: str = "auto",
        call_margin_s: float = 5.0,
        dead_check_interval_s: float = 1.0,
        on_dead: Callable[[str], None] | None = None,
        *,
        limits: WedgeLimits | None = None,
        heap_mb: int = DEFAULT_HEAP_MB,
    ) -> None:
        self.node_bin = node_bin
        self.call_margin_s = call_margin_s
        self.dead_check_interval_s = dead_check_interval_s
        self.on_dead = on_dead
        self.heap_mb = heap_mb
        # Heartbeat, wedge judgement, what runs on node, the figures of each wedge.
        self.node_watch = NodeWatch(limits or WedgeLimits())
        self._executor: _Worker | None = None
        self._thread: threading.Thread | None = None
        # bridge.js as (module proxy, its helpers' proxies read so far), replaced as one value
        # at every (re)start: a helper read from an older node is never called on a newer one.
        # JSPyBridge's `mod.fn` is a round trip of its own ("get") before the call's ("call"):
        # each helper is read once per node. Only the bridge thread fills the dict.
        self._mod: tuple[Any, dict[str, Any]] | None = None
        self._dead_reason: str | None = None
        self._starting = False  # a start in progress reads as not alive (and never as dead)
        self._closing_at: float | None = None  # when shutdown began: no rebuild, calls capped
        self._abandoned: tuple[str, float] | None = None  # the in-flight call a stop gave up on
        self._stopping = threading.Event()
        self._watchdog: threading.Thread | None = None
        self.generation = 0  # bumped by every (re)start: ids from older generations are stale
        self._rebuild_lock = threading.Lock()
        self.calls = 0
        self.call_seconds = 0.0
        self.calls_by_fn: Counter[str] = Counter()  # which helpers the daemon leans on (/metrics)
        self._count_lock = threading.Lock()

    # ---- lifecycle -------------------------------------------------------------------
    def start(self, timeout_s: float = 60.0) -> None:
        self._closing_at, self._abandoned = None, None
        self._start(timeout_s)

    def _start(self, timeout_s: float) -> None:
        with Bridge._instance_lock:
            if Bridge._live_instance not in (None, self):
                raise BridgeInitError("another Bridge is live in this process (JSPyBridge is process-global)")
            Bridge._live_instance = self
        if not ENTRY.exists():
            raise BridgeInitError(f"{ENTRY} is missing")
        if not (NODE_DIR / "node_modules" / "mineflayer").exists():
            raise BridgeInitError(f"node dependencies are not installed: run `npm ci` in {NODE_DIR}")
        try:
            node_bin = resolve_node_bin(self.node_bin)
        except NodeRuntimeError as e:
            raise BridgeInitError(str(e)) from None
        os.environ["NODE_PM"] = "false"  # never let JSPyBridge npm-install anything
        os.environ["NODE_BIN"] = node_bin
        # The heap limit and the heartbeat file go to the bridge's node only (node_spawn.py).
        node_spawn.configure([f"--max-old-space-size={self.heap_mb}"], self.node_watch.spawn_env())
        self._executor = _Worker("jsbridge")
        self._stopping.clear()
        self._starting = True
        try:
            future = self._executor.submit(self._start_on_thread)
            deadline = time.monotonic() + timeout_s
            while True:  # in slices: a daemon stopping meanwhile does not wait for node
                try:
                    future.result(timeout=min(0.25, max(0.0, deadline - time.monotonic())))
                    break
                except concurrent.futures.TimeoutError:
                    if self._closing_at is not None:
                        raise BridgeInitError("the bridge was shut down while starting") from None
                    if time.monotonic() >= deadline:
                        raise BridgeInitError(f"node side did not start within {timeout_s:.0f} s") from None
        except BridgeInitError:
            self._starting = False
            raise
        except FileNotFoundError as e:
            self._starting = False
            raise BridgeInitError(f"node executable not found ({node_bin}): {e}") from e
        except Exception as e:  # any start failure is an init failure
            self._starting = False
            raise BridgeInitError(f"node side failed to start: {e}") from e
        # Cleared only now (a bridge being rebuilt still says why it went down, /healthz), and
        # with the generation, before it reads alive: never the old generation alive.
        self._dead_reason = None
        self.generation += 1
        self.node_watch.node_up(self.node_pid, self.generation)  # judged afresh from here
        self._starting = False
        self._watchdog = threading.Thread(target=self._watch, name="jsbridge-watchdog", daemon=True)
        self._watchdog.start()
        logger.info(
            "bridge up: node pid {} (generation {}, heap limit {} MB)", self.node_pid, self.generation, self.heap_mb
        )

    def _start_on_thread(self) -> None:
        self._thread = threading.current_thread()
        import javascript  # noqa: PLC0415 - importing it spawns node: only ever on this thread
        from javascript import config, connection, events, proxy  # noqa: PLC0415 - as the line above

        # JSPyBridge prints node's stray output and its own complaints to stdout: send them
        # to the log instead (stdout carries `mcbot snapshot`'s JSON).
        for module in (connection, proxy, events):
            module.print = _route_node_output
        if config.event_loop is None:  # after a rebuild the module must be re-initialised
            javascript.init()
        mod = javascript.require(str(ENTRY))
        if mod.ping(timeout=DEFAULT_JS_TIMEOUT_MS / 1000) != "pong":
            raise BridgeInitError("bridge.js did not answer ping")
        self._mod = (mod, {})

    def begin_shutdown(self) -> None:
        """The daemon is stopping: from now on no rebuild starts, every call waits at most
        SHUTDOWN_CALL_S (none once one was given up behind a call still holding the bridge
        thread), and a node that has not beaten within SHUTDOWN_BEAT_S is killed
        (now, or by the watchdog as soon as its beats stop): nothing would answer the
        goodbyes, and stopping must not wait on it."""
        if self._closing_at is None:
            self._closing_at = time.monotonic()
        self._kill_if_silent()

    def _kill_if_silent(self) -> None:
        if self._executor is None or self._starting or self._dead_reason is not None:
            return
        self.node_watch.observe()  # the latest beat first
        if self.node_watch.beating(SHUTDOWN_BEAT_S):
            return
        self._dead_reason = "shut down while node was not answering"
        judge = self.node_watch.judge
        logger.warning(
            "bridge: node pid {} has not beaten for {:.1f} s while stopping; killed without goodbyes",
            self.node_pid,
            judge.silent_for(time.monotonic()) if judge is not None else 0.0,
        )
        self._signal_kill()

    def shutdown(self) -> None:
        """Quit every bot, end node, stop the thread. Safe to call twice."""
        self.begin_shutdown()
        self._stopping.set()
        if self._executor is None:
            self.node_watch.close()
            return
        if self.alive:
            try:
                self.call("quitAll", timeout_ms=2_000)
            except Exception as e:  # noqa: BLE001 - shutting down regardless
                logger.debug("quitAll at shutdown failed: {}", e)
        self._kill_node(grace_s=1.0)
        self._executor.shutdown()
        self._executor = None
        self._mod = None
        self.node_watch.close()
        with Bridge._instance_lock:
            if Bridge._live_instance is self:
                Bridge._live_instance = None
        logger.info("bridge shut down")

    def rebuild_if_dead(self, timeout_s: float = 60.0) -> None:
        """Rebuild a dead bridge once, however many bodies see it dead at the same time."""
        with self._rebuild_lock:
            if not self.alive and self._closing_at is None:
                self.rebuild(timeout_s)

    def rebuild(self, timeout_s: float = 60.0) -> None:
        """A fresh node and bridge thread; every bot id from before is gone."""
        if self._closing_at is not None:
            raise BridgeDead("the bridge is shut down")
        logger.warning("rebuilding bridge (was: {})", self._dead_reason or "alive")
        self.node_watch.note("rebuild", self._dead_reason or "alive")
        self._stopping.set()
        self._kill_node()
        if self._executor is not None:
            self._executor.shutdown()
            self._executor = None
        self._mod = None
        self._start(timeout_s)

    def _signal_kill(self) -> None:
        """SIGKILL node now: a wedged or stopped node does not act on SIGTERM."""
        proc = getattr(_jspy("connection"), "proc", None)  # not loaded: no node to kill
        try:
            if proc is not None and proc.poll() is None:
                proc.kill()
                self.node_watch.note("killed", f"node pid {proc.pid}")
        except OSError as e:  # already gone
            logger.debug("killing node failed: {}", e)

    def _kill_node(self, grace_s: float = 5.0) -> None:
        connection = _jspy("connection")
        if connection is None:  # never loaded: nothing to kill
            return
        proc, com_thread = connection.proc, connection.com_thread
        connection.stop()  # terminates node and resets JSPyBridge's globals
        if proc is not None:
            try:
                proc.wait(timeout=grace_s)
            except Exception:  # noqa: BLE001 - a node that does not exit in its grace is killed, whatever the wait raised
                proc.kill()
                proc.wait(timeout=5)
        # The old reader thread must be gone before a new node starts: it reads the
        # module-global process handle and would otherwise steal the new node's replies.
        if com_thread is not None:
            com_thread.join(timeout=5)

    # ---- health ----------------------------------------------------------------------
    @property
    def node_pid(self) -> int | None:
        proc = getattr(_jspy("connection"), "proc", None)
        return proc.pid if proc is not None else None

    @property
    def dead_reason(self) -> str | None:
        return self._dead_reason

    @property
    def state(self) -> str:
        """ "up", "wedged" (also while a wedged bridge is rebuilt), "dead", "starting" or "stopped"."""
        reason = self._dead_reason
        if reason and reason.startswith("wedged"):
            return "wedged"
        if self._starting:
            return "starting"
        if self._executor is None:
            return "stopped"
        return "up" if self.alive else "dead"

    @property
    def alive(self) -> bool:
        if self._executor is None or self._starting:
            return False
        reason = self._check()
        if reason:
            self._dead_reason = reason
        return reason is None

    def _check(self) -> str | None:
        if self._dead_reason:
            return self._dead_reason
        connection = _jspy("connection")
        if connection is None:
            return "bridge not started"
        if connection.proc is None or connection.proc.poll() is not None:
            return node_exit_reason(connection.proc.poll() if connection.proc else None)
        event_thread = getattr(_jspy("config"), "event_thread", None)
        if event_thread is None or not event_thread.is_alive():
            return "JSPyBridge event thread died"
        if self._thread is not None and not self._thread.is_alive():
            return "bridge thread died"
        return None

    def _watch(self) -> None:
        generation = self.generation
        # Twice a beat: a lagging beat is read before the next one overwrites it.
        tick = min(self.dead_check_interval_s, self.node_watch.limits.heartbeat_interval_s / 2)
        while not self._stopping.wait(tick):
            if generation != self.generation:
                return
            if self._closing_at is not None:
                self._kill_if_silent()
            reason = self._check()
            if reason is None and (verdict := self.node_watch.observe()) is not None:
                reason = self._declare_wedged(verdict)
            if reason:
                self._dead_reason = reason
                if self._closing_at is None and not reason.startswith("wedged"):
                    logger.error("bridge dead: {}", reason)
                    self.node_watch.note("dead", reason)
                if self.on_dead:
                    try:
                        self.on_dead(reason)
                    except Exception as e:  # noqa: BLE001 - a failing handler must not stop the death's handling
                        logger.exception("on_dead handler failed: {}", e)
                return

    def _declare_wedged(self, verdict: Verdict) -> str:
        """Node is there but answers nothing: say why and what was running, then kill it.
        Dead from here on, it is rebuilt like a node that died by itself."""
        reason = f"wedged: {verdict.reason}"
        self._dead_reason = reason  # first: callers waiting on node give up now, as BridgeDead
        record = self.node_watch.wedged(verdict, self.generation)
        logger.error(
            "bridge wedged: {}; in flight on the bridge thread: {}; actions running: {}; "
            "killing node pid {} (generation {})",
            verdict.reason,
            record.in_flight or "nothing",
            ", ".join(record.actions) or "none",
            record.node_pid,
            record.generation,
        )
        self._signal_kill()
        record.killed_ts = self.node_watch.wall()
        return reason

    # ---- calls -----------------------------------------------------------------------
    def call(self, fn: str, *args: Any, timeout_ms: int = DEFAULT_JS_TIMEOUT_MS, urgent: bool = False) -> Any:
        """Call a bridge.js helper on the bridge thread (`urgent`: a user waits for it, it goes
        before the calls queued without).

        `timeout_ms` is the JS-side bound of whatever the helper waits on; the Python wait is
        longer by `call_margin_s` so that JS always settles first (BRIDGE-1).
        """
        node = self._mod  # read once: a rebuild replaces it whole
        if self._executor is None or node is None:
            raise BridgeDead(self._dead_reason or "bridge not started")
        if self._dead_reason:
            raise BridgeDead(self._dead_reason)
        if (held := self._held()) is not None:  # it would only queue behind that call
            raise BridgeDead(f"call {fn} not sent: the bridge is shutting down, its thread still in {held[0]}")
        py_timeout = timeout_ms / 1000 + self.call_margin_s
        # A call waits its turn at most `limit`, then runs at most `limit` from when it began:
        # a slow call ahead of it is not this call's timeout, and the caller waits <= 2 x limit.
        limit = py_timeout + self.call_margin_s
        mod, helpers = node
        # This node's judge: a late answer never counts for the next node.
        judge, watch = self.node_watch.judge, self.node_watch
        what = f"many({args[0]})" if fn == "many" and args else fn
        ran_at: list[float] = []  # when the bridge thread took the call up

        def run() -> Any:
            ran_at.append(time.monotonic())
            watch.in_flight = mine = (what, time.monotonic())
            try:
                helper = helpers.get(fn)
                if helper is None:
                    helper = helpers[fn] = getattr(mod, fn)
                return helper(*args, timeout=py_timeout)
            finally:
                if watch.in_flight is mine:  # an abandoned worker's late return leaves the new one's
                    watch.in_flight = None

        started = time.monotonic()
        future = self._executor.submit(run, urgent=urgent)
        # Wait in slices so a bridge that dies mid-call is reported at once, not at timeout.
        while True:
            deadline = (ran_at[0] if ran_at else started) + limit
            try:
                left = self._wait_until(deadline, started) - time.monotonic()
                result = future.result(timeout=min(0.25, max(0.0, left)))
                break
            except concurrent.futures.TimeoutError:
                reason = self._check()
                if reason:
                    self._dead_reason = reason
                    future.cancel()  # still queued: never sent to a node that is gone
                    raise BridgeDead(reason) from None
                if self._held() is not None and future.cancel():
                    raise BridgeDead(f"call {fn} abandoned: the bridge is shutting down") from None
                now = time.monotonic()
                if now < self._wait_until(deadline, started):
                    continue
                if future.cancel():  # still queued: it never reached node, no node timeout
                    if self._closing_at is not None:
                        self._abandon()
                        raise BridgeDead(f"call {fn} abandoned: the bridge is shutting down") from None
                    busy = watch.in_flight
                    raise BridgeDead(
                        f"call {fn} never ran: the bridge thread was busy"
                        f"{f' in {busy[0]}' if busy else ''} for {limit:.1f} s"
                    ) from None
                if not ran_at:  # taken up just now: its own time starts here
                    ran_at.append(now)
                    continue
                if future.done():  # came back meanwhile
                    continue
                if self._closing_at is not None:
                    self._abandon()
                    if now < deadline:  # cut short by the daemon stopping
                        raise BridgeDead(f"call {fn} abandoned: the bridge is shutting down") from None
                if judge is not None:
                    judge.call_timed_out(what)
                raise BridgeDead(f"call {fn} did not return within {py_timeout:.0f} s") from None
            except Exception as e:  # JS errors arrive as JavaScriptError
                reason = self._check()
                if reason:
                    self._dead_reason = reason
                    raise BridgeDead(reason) from e
                if judge is not None and _jspybridge_timeout(e):  # JSPyBridge gave up: no answer
                    judge.call_timed_out(what)
                elif judge is not None:  # a JS error is an answer
                    judge.call_answered()
                raise BridgeError(f"{fn}: {_js_message(e)}") from None
        if judge is not None:
            judge.call_answered()
        self.calls += 1
        self.call_seconds += time.monotonic() - started
        with self._count_lock:  # calls come from many worker threads
            self.calls_by_fn[fn] += 1
        return result

    def _wait_until(self, deadline: float, started: float) -> float:
        """A call's deadline, cut once the daemon stops: SHUTDOWN_CALL_S from the stop (or
        from the call's start, for a goodbye sent later)."""
        closing = self._closing_at
        if closing is None:
            return deadline
        return min(deadline, max(closing, started) + SHUTDOWN_CALL_S)

    def _abandon(self) -> None:
        """A call was given up while stopping: note what holds the bridge thread, so the
        goodbyes after it fail at once instead of each waiting SHUTDOWN_CALL_S behind it."""
        self._abandoned = self.node_watch.in_flight

    def _held(self) -> tuple[str, float] | None:
        """While stopping, the call abandoned on the bridge thread if it is still there."""
        held = self._abandoned
        if held is None or self._closing_at is None or self.node_watch.in_flight is not held:
            return None
        return held

    def helper_calls(self) -> dict[str, int]:
        with self._count_lock:
            return dict(self.calls_by_fn)

    def call_json(self, fn: str, *args: Any, timeout_ms: int = DEFAULT_JS_TIMEOUT_MS) -> Any:
        return json.loads(self.call(fn, *args, timeout_ms=timeout_ms))

    async def acall_json(self, fn: str, *args: Any, timeout_ms: int = DEFAULT_JS_TIMEOUT_MS) -> Any:
        return await asyncio.to_thread(self.call_json, fn, *args, timeout_ms=timeout_ms)

    def raw(self, fn: str, *args: Any) -> Any:
        """Return a JS proxy (benchmark only: proxies must not escape into the house)."""
        return self.call(fn, *args)

    @property
    def module(self) -> Any:
        """bridge.js's module proxy (the benchmark's per-property baseline reads through it)."""
        node = self._mod
        if node is None:
            raise BridgeDead(self._dead_reason or "bridge not started")
        return node[0]

    def on_bridge_thread(self, func: Callable[[], Any], timeout_s: float = 60.0) -> Any:
        """Run a function on the bridge thread (benchmark's per-property baseline)."""
        if self._executor is None:
            raise BridgeDead("bridge not started")
        return self._executor.submit(func).result(timeout=timeout_s)


# A node that ends by one of these signals was stopped by someone else (an operator, a
# supervisor, the chaos soak): the bridge's own kills of a wedged node are reasoned "wedged: ..."
# first, and a runaway dies of its heap limit (SIGABRT). Such an end says nothing of the task
# that was running (bot/runtime/bridge_downs.py does not count it toward poison).
OUTSIDE_KILL = "node process killed from outside"
_OUTSIDE_SIGNALS = (signal.SIGKILL, signal.SIGTERM)


def node_exit_reason(code: int | None) -> str:
    if code is not None and code < 0 and -code in _OUTSIDE_SIGNALS:
        return f"{OUTSIDE_KILL} ({signal.Signals(-code).name})"
    return f"node process exited (code {code})"


def _jspy(name: str) -> Any:
    """A JSPyBridge module if loaded, else None. Never imported here: importing the package
    starts node, and node_spawn loads `connection` (and its `config`) without the package."""
    return sys.modules.get(f"javascript.{name}")


def _route_node_output(*parts: Any, **_: Any) -> None:
    text = " ".join(str(p) for p in parts).strip()
    if text.startswith("[JSE]"):
        text = text[5:].strip()
    if text:
        logger.debug("node: {}", text)


def _jspybridge_timeout(e: BaseException) -> bool:
    """JSPyBridge gave up waiting for node's reply (a JS error arrives as JavaScriptError)."""
    errors = _jspy("errors")
    if errors is not None and isinstance(e, errors.JavaScriptError):
        return False
    return "timed out" in str(e).lower()


def _js_message(e: BaseException) -> str:
    text = str(e)
    # JavaScriptError renders a long pretty stack; its first error line is what we need.
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("Error:") or "Error:" in line[:40]:
            return line.split("Error:", 1)[1].strip() or line
    return text.strip().splitlines()[0] if text.strip() else type(e).__name__
