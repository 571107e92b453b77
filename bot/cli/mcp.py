"""`mcbot mcp`: serve the bot to MCP clients (stdio by default, or streamable HTTP), as a
client of the running daemon's API (address and token from `[api]`, like `mcbot goal`).

With `--own`, when no daemon answers, a daemon of our own is started (`python -m bot run`
with the same --config, on the API port asked for or a free one when that is taken; its
output to logs/mcp-daemon.log, never to our stdout, which is the MCP channel over stdio)
and stopped when the MCP server exits.

`--bot NAME` serves one bot of a fleet (its routes under /api/bots/NAME; goals bound to it,
tasks filtered by it); without it, the daemon's first bot.

Exit codes: 0 the client went away (stdio closed), or SIGTERM / Ctrl-C; 3 no daemon answers
(without --own), the own daemon did not come up, or the HTTP port is taken; 4 invalid
arguments or config (e.g. an HTTP host off loopback with no mcp.token, a --bot the daemon
does not drive).
"""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from loguru import logger

from bot.cli import values as val
from bot.cli.exit_codes import EXIT_INIT, EXIT_INVALID, EXIT_OK
from bot.cli.goal import Api, NoDaemon, api_from
from bot.runtime.errors import InitError

if TYPE_CHECKING:  # the config loads only when a command runs (`--help` stays fast)
    from bot.config.loader import McbotConfig

OWN_START_S = 180.0  # an own daemon starts its embedded world first: allow for a slow machine
OWN_STOP_S = 15.0  # SIGTERM, then SIGKILL after this long
CANCEL_BUDGET_S = 10.0  # a stop waits this long for running calls to cancel their actions
OWN_LOG = Path("logs") / "mcp-daemon.log"


def add_mcp_command(sub: Any) -> None:
    p = sub.add_parser("mcp", help="serve the bot to MCP clients (stdio or streamable HTTP) through the running daemon")
    p.add_argument(
        "--transport",
        choices=("stdio", "http"),
        default="stdio",
        help="stdio (default: the client starts `mcbot mcp`) or http (streamable HTTP at /mcp)",
    )
    p.add_argument(
        "--api",
        metavar="URL",
        type=val.api_url,
        help="the daemon's API, e.g. http://127.0.0.1:3003 (default: from [api])",
    )
    p.add_argument(
        "--own", action="store_true", help="when no daemon answers, start one (same --config) and stop it on exit"
    )
    p.add_argument("--host", help="the HTTP transport's address (default: [mcp] host)")
    p.add_argument("--port", type=val.port, help="the HTTP transport's port (default: [mcp] port)")
    p.add_argument(
        "--bot",
        metavar="NAME",
        help="serve this bot of a fleet (its snapshot, actions, goals and tasks; default: the first bot)",
    )


def cmd_mcp(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    from bot.config.sections import is_loopback

    host, port = args.host or cfg.mcp.host, args.port or cfg.mcp.port
    if args.transport == "http" and not is_loopback(host) and not cfg.mcp.token:
        print(
            f"mcbot: error: argument --host: {host} is not a loopback address; set mcp.token first "
            "(clients then send Authorization: Bearer <token>)",
            file=sys.stderr,
        )
        return EXIT_INVALID
    if args.transport == "http":
        _check_port_free(host, port)  # before a daemon of our own is started for nothing
    api = api_from(args, cfg)
    own: OwnDaemon | None = None
    if not answers(api):
        if not args.own:
            print(f"mcbot: no daemon at {api.base}; start one with `mcbot run` or pass --own", file=sys.stderr)
            return EXIT_INIT
        own = OwnDaemon.start(args.config, cfg, api.base)
        api = Api(own.base, cfg.api.token or None)
    try:
        bot, refused = _bot_to_serve(api, args.bot) if getattr(args, "bot", None) else (None, None)
    except BaseException:
        if own is not None:
            own.stop()
        raise
    if refused is not None:
        print(f"mcbot: error: argument --bot: {refused}", file=sys.stderr)
        if own is not None:
            own.stop()
        return EXIT_INVALID

    def serve() -> int:
        try:
            serving = _serve(api.base, cfg, args.transport, host, port, own, bot)
            asyncio.run(serving) if args.transport != "stdio" else _run_leaving_threads(serving)
        finally:
            if own is not None:
                own.stop()
        return EXIT_OK

    if args.transport != "stdio":
        return serve()
    # Over stdio the SDK's stdin reader thread would keep the process alive until the client
    # closes stdin (a SIGTERM from a supervisor included): end it here, whatever ended serving.
    code = _exit_code(serve)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _run_leaving_threads(coro: Any) -> None:
    """asyncio.run without its wait for the default executor's threads: over stdio one of them
    is blocked reading the client's stdin, and a stop (SIGTERM) must not wait for the client
    to close it. The tasks still get cancelled (a running action is cancelled on the daemon)."""
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(coro)
    finally:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.wait(pending, timeout=CANCEL_BUDGET_S))
        loop.close()  # its executor is shut down without waiting


def _exit_code(run: Any) -> int:
    """What `mcbot` would exit with for `run`'s outcome (bot/cli/main.py's rules)."""
    from bot.cli.exit_codes import KNOWN_ERRORS, exit_code_for

    try:
        return run()
    except SystemExit as e:  # SIGTERM (0) or SIGINT (130), from the signal handlers
        return e.code if isinstance(e.code, int) else EXIT_OK
    except KeyboardInterrupt:
        return EXIT_OK
    except KNOWN_ERRORS as e:
        print(f"mcbot: {e}", file=sys.stderr)
        return exit_code_for(e)


def answers(api: Api) -> bool:
    """A daemon answers /healthz (healthy or not: a daemon whose bot reconnects is one)."""
    try:
        r = api.request("GET", "/healthz")
    except NoDaemon:
        return False
    if r.status_code == 401:
        raise InitError(f"the daemon at {api.base} wants its API token: set api.token (or MCBOT_API__TOKEN)")
    try:
        body = r.json()
    except ValueError:
        return False
    return isinstance(body, dict) and "ok" in body


async def _watch_own(own: OwnDaemon) -> None:
    """Ends when the daemon started by --own exits: no bot is left to serve."""
    while own.proc.poll() is None:
        await asyncio.sleep(1.0)
    raise InitError(f"the daemon started by --own exited with {own.proc.returncode}; see {own.log}")


def _bot_to_serve(api: Api, name: str) -> tuple[str | None, str | None]:
    """(the fleet's bot to route to, why the daemon cannot serve `name`). A daemon of one bot
    is served through its plain routes: its tasks are bound to no bot, and a bot filter
    would hide them."""
    try:
        r = api.request("GET", "/api/bots")
        if r.status_code != 200:
            raise ValueError(f"HTTP {r.status_code}: {r.text[:200]}")
        names = [b.get("name") for b in r.json().get("bots", [])]
    except (NoDaemon, ValueError, AttributeError) as e:
        raise InitError(f"the daemon at {api.base} did not list its bots: {e}") from None
    found = next((n for n in names if isinstance(n, str) and n.lower() == name.lower()), None)
    if found is None:
        return None, f"the daemon at {api.base} drives {', '.join(map(str, names)) or 'no bot'}, not {name!r}"
    return (found if len(names) > 1 else None), None


async def _serve(
    base: str,
    cfg: McbotConfig,
    transport: str,
    host: str,
    port: int,
    own: OwnDaemon | None = None,
    bot: str | None = None,
) -> None:
    from bot.mcp.daemon_client import DaemonClient, DaemonUnreachable
    from bot.mcp.serve import MCP_PATH, serve_http, serve_stdio
    from bot.mcp.server import BotRoutes, McpSettings, build_server
    from bot.mcp.tools import daemon_catalog

    daemon = DaemonClient(base, cfg.api.token or None)
    try:
        try:
            catalog = await daemon_catalog(daemon)
        except DaemonUnreachable as e:
            raise InitError(str(e)) from None
        server = build_server(
            daemon, catalog, McpSettings(cfg.mcp.calls_per_minute, cfg.mcp.poll_s), routes=BotRoutes(bot)
        )
        whose = f"bot {bot} of the daemon" if bot else "the daemon"
        if transport == "http":
            logger.info("[MCP] serving http://{}:{}{} for {} at {}", host, port, MCP_PATH, whose, base)
            serving = serve_http(server, host, port, cfg.mcp.token or None)
        else:
            logger.info("[MCP] serving on stdio for {} at {}", whose, base)
            serving = serve_stdio(server)
        tasks = [asyncio.create_task(serving)] + ([asyncio.create_task(_watch_own(own))] if own else [])
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in done:
            task.result()  # the own daemon's death (InitError: exit 3), or a serving error
    finally:
        await daemon.aclose()


def _check_port_free(host: str, port: int) -> None:
    taken = _port_taken(host, port)
    if taken:
        raise InitError(f"cannot listen on {host}:{port} for MCP over HTTP ({taken}); pass --port or set mcp.port")


# ---- a daemon of our own (--own) ------------------------------------------------------------
class OwnDaemon:
    def __init__(self, proc: subprocess.Popen[bytes], base: str, log: Path) -> None:
        self.proc, self.base, self.log = proc, base, log

    @classmethod
    def start(cls, config_path: str | None, cfg: McbotConfig, wanted_base: str) -> OwnDaemon:
        from bot.tooling.daemon_run import die_with_parent

        api_host = cfg.api.host if cfg.api.host not in ("0.0.0.0", "::", "") else "127.0.0.1"
        port = urlsplit(wanted_base).port or cfg.api.port
        if _port_taken(cfg.api.host or "127.0.0.1", port):
            port = _free_port()
        base = f"http://{f'[{api_host}]' if ':' in api_host else api_host}:{port}"
        cmd = [
            sys.executable,
            "-m",
            "bot",
            *(["--config", str(Path(config_path).resolve())] if config_path else []),
            "run",
        ]
        try:
            OWN_LOG.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:  # a client may start us in a folder we cannot write to
            raise InitError(
                f"cannot write the own daemon's log {OWN_LOG.resolve()}: {e}; start mcbot mcp from a "
                "writable folder or run `mcbot run` yourself"
            ) from None
        # stdin too is kept from the child: over stdio it is the MCP channel. Its own session: an MCP
        # client that kills our process group must not cut the daemon's shutdown short; it dies with us.
        with OWN_LOG.open("ab") as log:
            proc = subprocess.Popen(
                cmd,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                env={**os.environ, "MCBOT_API__PORT": str(port)},
                preexec_fn=die_with_parent,
                start_new_session=True,
            )
        own = cls(proc, base, OWN_LOG)
        logger.info("[MCP] started a daemon of our own: pid {}, API {}, log {}", proc.pid, base, OWN_LOG)
        try:
            own.wait_healthy(Api(base, cfg.api.token or None), OWN_START_S)
        except BaseException:
            own.stop()
            raise
        return own

    def wait_healthy(self, api: Api, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise InitError(f"the daemon started by --own exited with {self.proc.returncode}; see {self.log}")
            try:
                if api.request("GET", "/healthz", timeout=2).json().get("ok"):
                    return
            except (NoDaemon, ValueError):
                pass
            time.sleep(0.5)
        raise InitError(
            f"the daemon started by --own did not report healthy at {self.base}/healthz within "
            f"{timeout_s:.0f} s; see {self.log}"
        )

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=OWN_STOP_S)
            except subprocess.TimeoutExpired:
                logger.warning(
                    "[MCP] the own daemon (pid {}) did not stop within {:.0f} s: killed", self.proc.pid, OWN_STOP_S
                )
                self.proc.kill()
                self.proc.wait()
        logger.info("[MCP] the own daemon stopped (exit {})", self.proc.returncode)


def _port_taken(host: str, port: int) -> str | None:
    """Why (host, port) cannot be listened on, or None when it can."""
    try:
        with socket.create_server((host, port)):
            return None
    except OSError as e:
        return str(e.strerror or e)


def _free_port() -> int:
    from bot.runtime.server import free_port

    return free_port()
