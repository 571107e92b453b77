"""The embedded world: flying-squid (node/server.js) as a child process of ours.

The server never outlives the command that started it: we hold its stdin, which it watches
(a SIGKILLed parent closes the pipe), and we terminate it on every normal way out.
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from loguru import logger

from bot.config.loader import EMBEDDED_VERSIONS, ServerConfig
from bot.runtime.bridge import NODE_DIR
from bot.runtime.errors import InitError
from bot.runtime.node_runtime import NodeRuntimeError, resolve_node_bin
from bot.runtime.port_claims import claims_held

READY_PREFIX = "MCBOT_SERVER_READY"
# node/server.js and its tick (node/plugins/ticks.js) keep the world up through an error and say
# so on one line: a warning here, so a bench or a user's log shows what went wrong in the world
SERVER_FAULT = "(kept alive"
FAULT_WARNINGS_PER_MINUTE = 10  # the rest of a burst at debug
SERVER_JS = NODE_DIR / "server.js"


class ServerStartError(InitError):
    pass


@dataclass
class EmbeddedServerSettings:
    port: int = 25565
    version: str = EMBEDDED_VERSIONS[0]
    world_folder: str = ""
    seed: int = 1337
    tree_density: float = 0.04
    hostiles: bool | Sequence[str] = True  # a list = only those kinds spawn at night
    hostile_cap: int = 8
    animals: bool = True
    animal_cap: int = 10
    hunger_rate: float = 1.0
    day_length_scale: float = 1.0  # multiplier on day LENGTH (0.1 = days ten times shorter)
    game_mode: str = "survival"
    view_distance: int = 6  # chunks sent around each player (vanilla's view-distance)
    terrain: str = "plains"  # "caves": vanilla's underground under hills (node/plugins/underground.js)
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> str:
        return json.dumps(
            {
                "worldFolder": self.world_folder or None,
                "seed": self.seed,
                "treeDensity": self.tree_density,
                "hostiles": self.hostiles,
                "hostileCap": self.hostile_cap,
                "animals": self.animals,
                "animalCap": self.animal_cap,
                "hungerRate": self.hunger_rate,
                # the server's dayLengthScale is a clock SPEED multiplier: the inverse
                "dayLengthScale": 1.0 / self.day_length_scale,
                "gameMode": self.game_mode,
                "viewDistance": self.view_distance,
                "terrain": self.terrain,
                **self.extra,
            }
        )


class EmbeddedServer:
    def __init__(
        self, settings: EmbeddedServerSettings, node_bin: str = "auto", clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.settings = settings
        self._clock = clock
        self.node_bin = node_bin
        self.proc: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        self.lines: list[str] = []  # recent output, for error messages
        self._fault_times: list[float] = []  # monotonic times of the last minute's warned faults

    @property
    def port(self) -> int:
        return self.settings.port

    def start(self, timeout_s: float = 30.0) -> None:
        if not SERVER_JS.exists():
            raise ServerStartError(f"{SERVER_JS} is missing")
        s = self.settings
        try:
            node_bin = resolve_node_bin(self.node_bin)
        except NodeRuntimeError as e:
            raise ServerStartError(str(e)) from None
        cmd = [node_bin, str(SERVER_JS), "--port", str(s.port), "--version", s.version, "--config", s.to_json()]
        try:
            self.proc = subprocess.Popen(
                cmd,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                bufsize=1,
                cwd=str(NODE_DIR),
            )
        except FileNotFoundError as e:
            raise ServerStartError(f"node executable not found ({node_bin}): {e}") from None
        ready = threading.Event()
        self._reader = threading.Thread(target=self._read, args=(ready,), name="embedded-server-log", daemon=True)
        self._reader.start()
        deadline = time.monotonic() + timeout_s
        while not ready.wait(0.05):
            if self.proc.poll() is not None:
                tail = " | ".join(self.lines[-5:])
                raise ServerStartError(f"embedded server exited with code {self.proc.returncode}: {tail}")
            if time.monotonic() > deadline:
                self.stop()
                raise ServerStartError(f"embedded server not ready within {timeout_s:.0f} s")
        kept = f"kept in {s.world_folder}" if s.world_folder else "in memory, lost when it stops"
        logger.info(
            "embedded server ready on 127.0.0.1:{} ({}), pid {}; the world is {}",
            s.port,
            s.version,
            self.proc.pid,
            kept,
        )

    def _read(self, ready: threading.Event) -> None:
        assert self.proc and self.proc.stdout
        for line in self.proc.stdout:
            line = line.rstrip()
            self.lines = [*self.lines, line][-50:]
            if line.startswith(READY_PREFIX):
                ready.set()
            elif SERVER_FAULT in line and self._fault_warning_due():
                logger.warning("server: {}", line)
            elif line:
                logger.debug("server: {}", line)

    def _fault_warning_due(self) -> bool:
        now = self._clock()
        self._fault_times = [t for t in self._fault_times if now - t < 60]
        if len(self._fault_times) >= FAULT_WARNINGS_PER_MINUTE:
            return False
        self._fault_times.append(now)
        return True

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def reap(self) -> int | None:
        """The exit code if the server died since it started (the child is reaped: no
        zombie), else None. The server can then be started again."""
        if self.proc is None or self.proc.poll() is None:
            return None
        code = self.proc.returncode
        if self.proc.stdin:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()
        self.proc = None
        return code

    def stop(self, timeout_s: float = 10.0) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            try:
                assert self.proc.stdin
                self.proc.stdin.close()  # the server exits when its stdin closes
            except (OSError, AssertionError):
                pass
            try:
                self.proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=timeout_s)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            logger.info("embedded server stopped (pid {})", self.proc.pid)
        self.proc = None

    def __enter__(self) -> EmbeddedServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


EPHEMERAL_RANGE = Path("/proc/sys/net/ipv4/ip_local_port_range")
SPARE_PORTS = (20000, 32768)  # from here up to where the kernel's ephemeral range starts


def free_port(claims: Path | None = None, clock: Callable[[], float] = time.time) -> int:
    """A port free to listen on now and claimed for this process (bot/runtime/port_claims.py),
    chosen below the kernel's ephemeral range where that can be read: a port from bind(0) is one
    the kernel also hands to outgoing connections, and one was taken by a connection between
    this check and the embedded server's listen (EADDRINUSE, a CI run's resume test). Else,
    bind(0)'s."""
    low, high = spare_ports()
    with claims_held(claims, clock) as held:
        for _ in range(64 if low < high else 0):
            port = random.randrange(low, high)
            if port in held:
                continue
            with socket.socket() as s, contextlib.suppress(OSError):
                s.bind(("127.0.0.1", port))
                held[port] = clock()
                return port
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = int(s.getsockname()[1])
        held[port] = clock()
        return port


def spare_ports(ranges: Path = EPHEMERAL_RANGE) -> tuple[int, int]:
    """SPARE_PORTS, ending where the ephemeral range starts; (0, 0) when that is not known."""
    try:
        ephemeral_low = int(ranges.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return (0, 0)
    return (SPARE_PORTS[0], min(SPARE_PORTS[1], ephemeral_low))


def settings_from_config(
    server_cfg: ServerConfig, port: int | None = None, version: str | None = None
) -> EmbeddedServerSettings:
    """Embedded server settings from the `[server]` config section."""
    return EmbeddedServerSettings(
        port=port or server_cfg.port,
        version=version or server_cfg.embedded_version,
        world_folder=str(Path(server_cfg.world_folder).expanduser().resolve()) if server_cfg.world_folder else "",
        seed=server_cfg.seed,
        tree_density=server_cfg.tree_density,
        hostiles=server_cfg.hostiles,
        hostile_cap=server_cfg.hostile_cap,
        animals=server_cfg.animals,
        animal_cap=server_cfg.animal_cap,
        hunger_rate=server_cfg.hunger_rate,
        day_length_scale=server_cfg.day_length_scale,
        game_mode=server_cfg.game_mode,
        view_distance=server_cfg.view_distance,
        terrain=server_cfg.terrain,
    )
