"""The log file (bot/runtime/logs.py): mcbot's own lines down to DEBUG, the stdlib loggers
routed in, and httpcore's per-request trace kept out. Run in a child process: setup_logging
replaces every handler of the process."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CHILD = """
import logging, sys
from loguru import logger
from bot.runtime.logs import setup_logging
setup_logging("WARNING", sys.argv[1])
logger.debug("own debug line")
logging.getLogger("httpcore.http11").debug("send_request_headers.started")
logging.getLogger("httpcore.connection").warning("connection reset")
logging.getLogger("somelib").info("a library's info line")
logger.complete()
"""


def test_the_file_has_our_debug_lines_and_the_libraries_but_not_httpcores_trace(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "mcbot.log"
    subprocess.run([sys.executable, "-c", CHILD, str(log)], check=True, capture_output=True, timeout=60)
    text = log.read_text()
    assert "own debug line" in text and "a library's info line" in text
    assert "connection reset" in text  # its warnings still come through
    assert "send_request_headers" not in text
