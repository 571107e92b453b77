"""`mcbot run`, `server`, `snapshot`, `record` and `doctor`: the commands that start a world or
join one (the daemon, the embedded world alone, a one-off live session, the server check)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from loguru import logger

from bot.cli import values as val
from bot.cli.exit_codes import EXIT_FAILURE, EXIT_INVALID, EXIT_OK

if TYPE_CHECKING:  # the config loads only when a command runs (`--help` stays fast)
    from bot.config.loader import McbotConfig


def add_live_commands(sub: Any) -> None:
    run = sub.add_parser("run", help="run the bot (starts the embedded world when configured)")
    run.add_argument("--host")
    run.add_argument("--port", type=val.port)

    srv = sub.add_parser("server", help="run the embedded flying-squid world in the foreground")
    srv.add_argument("--port", type=val.port)
    srv.add_argument("--version", type=val.embedded_version)

    snap = sub.add_parser("snapshot", help="connect, print one WorldSnapshot as JSON, exit")
    snap.add_argument("--host")
    snap.add_argument("--port", type=val.port)
    snap.add_argument("--version", type=val.bot_version)

    rec = sub.add_parser("record", help="record a live session to JSONL for replay tests")
    rec.add_argument("--minutes", type=val.positive_float, required=True)
    rec.add_argument("--out", required=True, metavar="FILE.jsonl")
    rec.add_argument("--host")
    rec.add_argument("--port", type=val.port)

    doc = sub.add_parser("doctor", help="check that the bot can live on a server; prints one table of findings")
    doc.add_argument("--host")
    doc.add_argument("--port", type=val.port)
    doc.add_argument("--version", type=val.bot_version, help="pin the version the bot speaks (default: server.version)")
    doc.add_argument(
        "--command",
        dest="check_commands",
        action="append",
        default=[],
        metavar="CMD",
        help='a command the bot must be allowed to run, e.g. "/time query daytime" (repeatable)',
    )


def _session(cfg: McbotConfig, args: Any, embedded: bool):
    from bot.runtime.session import live_session

    return live_session(
        cfg,
        embedded=embedded,
        host=getattr(args, "host", None),
        port=getattr(args, "port", None),
        version=getattr(args, "version", None),
    )


def _wants_embedded(cfg: McbotConfig, args: Any) -> bool:
    return cfg.server.use_embedded and not getattr(args, "host", None)


def cmd_snapshot(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    # Never starts a server: it reads the world the bot is asked to join.
    with _session(cfg, args, embedded=False) as s:
        print(s.body.snapshot().model_dump_json())
    return EXIT_OK


def cmd_run(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    from bot.runtime.daemon import run_daemon

    return asyncio.run(run_daemon(cfg, host=args.host, port=args.port))


def cmd_server(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    from bot.runtime.server import EmbeddedServer
    from bot.runtime.world_folder import embedded_settings

    server = EmbeddedServer(embedded_settings(cfg, port=args.port, version=args.version), cfg.bridge.node_bin)
    server.start()
    print(f"embedded world on 127.0.0.1:{server.port} (Ctrl-C to stop)", file=sys.stderr)
    try:
        while server.running:
            time.sleep(0.5)
        return EXIT_FAILURE
    finally:
        server.stop()


def cmd_record(args: Any, cfg: McbotConfig, loaded: Any) -> int:
    from bot.tooling.recorder import Recorder

    out = Path(args.out)
    try:  # before connecting: a bad --out must not cost a world start
        out.parent.mkdir(parents=True, exist_ok=True)
        f = out.open("w", encoding="utf-8")
    except OSError as e:
        print(f"mcbot: error: argument --out: cannot write {out}: {e.strerror or e}", file=sys.stderr)
        return EXIT_INVALID
    with f, _session(cfg, args, embedded=_wants_embedded(cfg, args)) as s:
        rec = Recorder(s.body, f, config=cfg.model_dump(mode="json"))
        rec.run(args.minutes * 60)
        logger.info("recorded {} lines to {}", rec.lines, out)
    return EXIT_OK


def cmd_doctor(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    from bot.cli.doctor import doctor

    return doctor(cfg, host=args.host, port=args.port, version=args.version, commands=args.check_commands)
