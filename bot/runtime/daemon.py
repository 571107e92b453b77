"""`mcbot run` as a daemon: a fixed lifecycle and one owner for agency state.

    signal handlers -> initialize -> start -> run -> stop -> shutdown

Everything mutable in agency/ is touched only from the asyncio event loop (scheduler jobs,
HTTP handlers); bridge calls run on the bridge's own thread and are awaited. A state
machine refuses calls made in the wrong state with a clear error.
"""

from __future__ import annotations

import asyncio
import signal
import time
from concurrent.futures import ThreadPoolExecutor
from enum import Enum
from pathlib import Path
from typing import Any

from loguru import logger

from agency.clock import system_clock_ms
from agency.execution.agents import ProfileValidationError
from bot.config.loader import ConfigError, McbotConfig
from bot.runtime.api.daemon_context import api_context
from bot.runtime.body import MineflayerBody
from bot.runtime.bridge import Bridge
from bot.runtime.bridge_errors import BridgeDead
from bot.runtime.errors import BotRuntimeError
from bot.runtime.leases import lease_job
from bot.runtime.log_tail import LogTail
from bot.runtime.scheduler import Scheduler
from bot.runtime.server import EmbeddedServer
from bot.runtime.session import bridge_of, connection_settings
from bot.runtime.stores import SharedStores
from bot.runtime.wiring import Agency
from bot.runtime.world_folder import embedded_settings
from bot.runtime.world_supervisor import RestartPolicy, WorldGaveUp, WorldSupervisor

SHUTDOWN_BUDGET_S = 10.0
JOIN_TRIES = 3  # a bot's first join, with the bridge rebuilt between tries when it went down
EXIT_INIT = 3  # the world could not be kept alive (bot/cli/main.py's exit code for init failures)


class DaemonState(str, Enum):
    created = "created"
    initialized = "initialized"
    running = "running"
    stopping = "stopping"
    stopped = "stopped"


class DaemonStateError(BotRuntimeError):
    pass


class Daemon:
    def __init__(self, cfg: McbotConfig, *, host: str | None = None, port: int | None = None) -> None:
        self.cfg = cfg
        self.host = host
        self.port = port
        self.state = DaemonState.created
        self.server: EmbeddedServer | None = None
        self.world: WorldSupervisor | None = None  # only when we started the world
        self._world_task: asyncio.Task[None] | None = None
        self.exit_code = 0
        self.bridge: Bridge | None = None  # one node process for every bot
        self.shared: SharedStores | None = None  # the database and task store all bots share
        self.agencies: dict[str, Agency] = {}  # each bot's stores and loops, by username, built in initialize
        self.bodies: dict[str, MineflayerBody] = {}
        self.scheduler = Scheduler()
        self._stop = asyncio.Event()
        self._api_server: Any = None
        self._api_task: asyncio.Task[Any] | None = None
        self.started_at = time.time()
        self.log_tail = LogTail()  # the dashboard's log panel

    @property
    def agency(self) -> Agency | None:
        """The first bot's agency: the one the single-bot API routes and the 3D view serve."""
        return next(iter(self.agencies.values()), None)

    @property
    def body(self) -> MineflayerBody | None:
        return next(iter(self.bodies.values()), None)

    @property
    def fleet(self) -> bool:
        return len(self.agencies) > 1

    def _require(self, *states: DaemonState) -> None:
        if self.state not in states:
            wanted = " or ".join(s.value for s in states)
            raise DaemonStateError(f"daemon is {self.state.value}; this needs {wanted}")

    # ---- lifecycle -------------------------------------------------------------------
    def install_signal_handlers(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.request_stop, sig.name)

    def request_stop(self, why: str = "requested") -> None:
        if not self._stop.is_set():
            logger.info("stopping ({})", why)
        self._stop.set()

    async def initialize(self) -> None:
        """Stores first (nothing acknowledged may be lost), then world, bridge, bot."""
        self._require(DaemonState.created)

        cfg = self.cfg
        self.log_tail.attach(cfg.logging.level)
        Path(cfg.storage.db_path).parent.mkdir(parents=True, exist_ok=True)
        self.shared = SharedStores.open(cfg, system_clock_ms)
        entries = cfg.bot_entries()
        # Every bridge call runs in a worker thread; each bot keeps a few going at once
        # (its action poll, snapshot, perception), so the pool grows with the fleet.
        asyncio.get_running_loop().set_default_executor(
            ThreadPoolExecutor(max_workers=8 + 4 * len(entries), thread_name_prefix="mcbot-io")
        )
        for i, entry in enumerate(entries):
            try:
                self.agencies[entry.username] = Agency(cfg, bot=entry, shared=self.shared, fleet=len(entries) > 1)
            except ProfileValidationError as e:
                where = f"bots[{i}].agents" if cfg.bots else "bot"
                raise ConfigError(f"invalid config:\n  {where}: {e}") from None
        embedded = cfg.server.use_embedded and not self.host
        if embedded:
            self.server = EmbeddedServer(embedded_settings(cfg, port=self.port), cfg.bridge.node_bin)
            await asyncio.to_thread(self.server.start)
        self.bridge = bridge_of(cfg)  # its watchdog's limits and node's heap limit from [bridge]
        await asyncio.to_thread(self.bridge.start)
        for i, (name, agency) in enumerate(self.agencies.items()):
            settings = connection_settings(cfg, host=None if embedded else self.host, port=self.port, bot=agency.entry)
            # The 3D view follows the first bot.
            body = self.bodies[name] = MineflayerBody(self.bridge, settings, viewer=cfg.viewer if i == 0 else None)
            self.bridge.node_watch.watch_actions(body.actions_running)
            await asyncio.to_thread(self._join, body, name)
            agency.attach_body(body, embedded=embedded)
        if self.fleet:
            logger.info("fleet of {} bots connected: {}", len(self.bodies), ", ".join(self.bodies))
        if self.server is not None:
            s = cfg.server
            policy = RestartPolicy(s.world_max_restarts, s.world_restart_window_s, s.world_restart_backoff_s)
            self.world = WorldSupervisor(self.server, policy, on_restarted=self._world_restarted)
        self.state = DaemonState.initialized

    def _join(self, body: MineflayerBody, name: str) -> None:
        """The bot's first join; a bridge that goes down meanwhile is rebuilt and the join tried
        again, JOIN_TRIES in all, as the running daemon rebuilds one. A CI run sharing its 2
        cores with a benchmark saw node's event loop lag 2.2-4.9 s while a bot was created
        (loading the version's game data): the watchdog killed it as wedged, and the daemon
        exited 3 before it ran."""
        assert self.bridge is not None
        for attempt in range(1, JOIN_TRIES + 1):
            try:
                body.connect()
                return
            except BridgeDead as e:
                if attempt == JOIN_TRIES:
                    raise
                logger.warning(
                    "the bridge went down while {} joined ({}); rebuilding it and joining again ({} of {})",
                    name,
                    e,
                    attempt + 1,
                    JOIN_TRIES,
                )
                self.bridge.rebuild_if_dead()

    async def start(self) -> None:
        self._require(DaemonState.initialized)
        for i, (name, agency) in enumerate(self.agencies.items()):
            for spec in agency.jobs(bot=name if self.fleet else None, planning=i == 0):
                self.scheduler.add(spec)
        if self.shared is not None and self.shared.postgres:
            self.scheduler.add(lease_job(self.shared.tasks, self.cfg.storage.lease_s))
        self.scheduler.start()
        if self.cfg.api.enabled:
            await self._start_api()
        if self.world is not None:
            self._world_task = asyncio.create_task(self._supervise_world(), name="world-supervisor")
        self.state = DaemonState.running
        logger.info(
            "daemon running: {} jobs, API {}{}",
            len(self.scheduler.jobs),
            self.api_url or "off",
            f", dashboard {self.api_url}/" if self.api_url else "",
        )

    async def run(self) -> None:
        self._require(DaemonState.running)
        await self._stop.wait()

    async def _supervise_world(self) -> None:
        assert self.world is not None
        try:
            await self.world.run()
        except WorldGaveUp:
            self.exit_code = EXIT_INIT
            self.request_stop("the embedded world keeps dying")

    async def stop(self) -> None:
        if self.state in (DaemonState.stopping, DaemonState.stopped):
            return
        self.state = DaemonState.stopping
        if self._world_task is not None:
            self._world_task.cancel()  # a world stopped by shutdown is not restarted
        self.scheduler.shutdown()
        if self._api_server is not None:
            self._api_server.should_exit = True
            if self._api_task is not None:
                try:
                    await asyncio.wait_for(self._api_task, timeout=3)
                except (TimeoutError, asyncio.CancelledError):
                    self._api_task.cancel()

    async def shutdown(self) -> None:
        """Release everything in reverse order; safe after a failed initialize."""
        if self.bridge is not None:
            # Before anything waits on node: a wedged one is killed now, calls are cut short.
            self.bridge.begin_shutdown()
        await self.stop()
        for agency in self.agencies.values():
            await agency.on_shutdown()
        for body in self.bodies.values():
            await asyncio.to_thread(body.close)
        if self.bridge is not None:
            await asyncio.to_thread(self.bridge.shutdown)
        if self.server is not None:
            if self.world is not None:
                await self.world.settle()  # a restart in flight ends before we stop the server
            await asyncio.to_thread(self.server.stop)
        for agency in self.agencies.values():
            agency.close()
        if self.shared is not None:
            self.shared.close()
        self.state = DaemonState.stopped
        logger.info("daemon stopped")
        self.log_tail.detach()

    def _world_restarted(self) -> None:
        if self.shared is not None:
            self.shared.world_id = None  # an in-memory world restarted is a new world, for every bot
        for name, agency in self.agencies.items():
            agency.world_restarted()  # before the bots are back: an in-memory world is a new one
            self.bodies[name].reconnect_now()

    # ---- HTTP API ----------------------------------------------------------------------
    @property
    def stopping(self) -> bool:
        """A stop was asked for: long-lived responses (task event streams) end now."""
        return self._stop.is_set() or self.state in (DaemonState.stopping, DaemonState.stopped)

    @property
    def api_url(self) -> str | None:
        if self._api_server is None:
            return None
        return f"http://{self.cfg.api.host}:{self.cfg.api.port}"

    async def _start_api(self) -> None:
        from bot.runtime.api import LOOPBACK_NAMES, create_app  # noqa: PLC0415 - FastAPI loads only when the API runs
        from bot.runtime.api.server import api_server  # noqa: PLC0415 - as the line above

        api = self.cfg.api
        # No token (loopback only): answer only to loopback names, against DNS rebinding.
        hosts = None if api.token else LOOPBACK_NAMES | {api.host}
        app = create_app(
            api_context(self), token=api.token or None, max_body_bytes=api.max_body_bytes, allowed_hosts=hosts
        )
        self._api_server = api_server(app, api.host, api.port, api.read_timeout_s)
        self._api_task = asyncio.create_task(self._api_server.serve(), name="http-api")
        while not self._api_server.started:
            if self._api_task.done():
                exc = self._api_task.exception()
                raise RuntimeError(f"HTTP API failed to start on {self.cfg.api.host}:{self.cfg.api.port}: {exc}")
            await asyncio.sleep(0.02)

    async def viewer_status(self) -> dict[str, Any]:
        """The 3D view's state and port, for the dashboard (one bridge call)."""
        if not self.cfg.viewer.enabled:
            return {"enabled": False, "running": False}
        if self.body is None:
            return {"enabled": True, "running": False, "error": "no bot yet"}
        return {"enabled": True, **await asyncio.to_thread(self.body.viewer_status)}

    # ---- health ------------------------------------------------------------------------
    def health(self) -> dict[str, Any]:
        bots = {name: body.connected for name, body in self.bodies.items()}
        bot_connected = bool(bots) and all(bots.values())
        bridge_alive = bool(self.bridge and self.bridge.alive)
        bridge_state = self.bridge.state if self.bridge is not None else "stopped"
        scheduler_running = self.scheduler.running
        world_up = self.world is None or self.world.up
        parts = {"world": world_up, "bridge": bridge_alive, "bot": bot_connected, "scheduler": scheduler_running}
        return {
            "ok": all(parts.values()),
            "down": [name for name, up in parts.items() if not up],
            "world": self.world.status if self.world is not None else "external",
            "botConnected": bot_connected,
            "bots": bots,
            "bridgeAlive": bridge_alive,
            # "up", "wedged" (until the rebuilt one is up), "dead", "starting", "stopped"; and why
            "bridge": bridge_state,
            "bridgeReason": self.bridge.dead_reason if self.bridge is not None else None,
            "bridgeGeneration": self.bridge.generation if self.bridge is not None else 0,
            "schedulerRunning": scheduler_running,
            "state": self.state.value,
            "uptimeS": round(time.time() - self.started_at, 1),
        }


async def run_daemon(cfg: McbotConfig, host: str | None = None, port: int | None = None) -> int:
    """The whole lifecycle; returns the process exit code."""
    daemon = Daemon(cfg, host=host, port=port)
    daemon.install_signal_handlers()
    try:
        await daemon.initialize()
        await daemon.start()
        await daemon.run()
        return daemon.exit_code
    finally:
        try:
            await asyncio.wait_for(daemon.shutdown(), timeout=SHUTDOWN_BUDGET_S)
        except TimeoutError:
            logger.error("shutdown took longer than {} s; forcing", SHUTDOWN_BUDGET_S)
            if daemon.server is not None:
                daemon.server.stop(timeout_s=1)
