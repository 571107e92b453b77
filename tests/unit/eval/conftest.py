"""Eval harness tests: the scripted provider on loopback only (no other network), loguru
captured, small suites written to tmp_path. Scenario i stands at x=i, so a scripted reply
can be chosen by the frame's `position: i, ...` fact whatever order requests arrive in."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from loguru import logger

from agency.llm.settings import LlmSettings
from agency.llm.testing import Received, Reply, ScriptedLLM, text
from bot.cli.eval import add_eval_commands, cmd_eval
from bot.cli.parsers import ArgParser
from bot.config.llm import LlmSection

_LOOPBACK = {"127.0.0.1", "::1", "localhost"}
_POS = re.compile(r"position: (-?\d+),")


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def _check(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in _LOOPBACK:
            raise RuntimeError(f"network access forbidden in eval tests: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", lambda s, a: (_check(s, a), real_connect(s, a))[1])
    monkeypatch.setattr(socket.socket, "connect_ex", lambda s, a: (_check(s, a), real_connect_ex(s, a))[1])


@pytest.fixture
def logs() -> Iterator[list[str]]:
    records: list[str] = []
    sink = logger.add(lambda m: records.append(m.record["message"]), level="DEBUG")
    yield records
    logger.remove(sink)


def by_position(replies: dict[int, str], default: str = "All is quiet.\nINTENT: none") -> Callable[[Received], Reply]:
    """A scripted step answering scenario x=i with replies[i]."""

    def step(req: Received) -> Reply:
        m = _POS.search(req.messages[-1]["content"])
        return text(replies.get(int(m.group(1)), default) if m else default)

    return step


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    server = ScriptedLLM(default=by_position({})).start()
    yield server
    server.stop()
    assert not server.errors, server.errors


def llm_section(llm: ScriptedLLM, **kw: Any) -> LlmSection:
    return LlmSection.model_validate(
        {
            "targets": [{"provider": "openai", "model": "scripted-1", "base_url": llm.url()}],
            "request_timeout_s": 5,
            **kw,
        }
    )


def settings(llm: ScriptedLLM, **kw: Any) -> LlmSettings:
    return LlmSettings.model_validate(llm_section(llm, **kw).model_dump())


def scenario(i: int, sid: str | None = None, stimulus: str = "low", **over: Any) -> dict[str, Any]:
    world = {"position": [i, 64, 0], **over.pop("world", {})}
    return {"id": sid or f"sc-{i:02d}", "version": 1, "stimulus": stimulus, "world": world, **over}


def write_suite(path: Path, rows: list[dict[str, Any] | str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def run_cli(llm: ScriptedLLM, argv: list[str]) -> int:
    p = ArgParser(prog="mcbot")
    add_eval_commands(p.add_subparsers(dest="command", parser_class=ArgParser))
    try:
        args = p.parse_args(["eval", *argv])
    except SystemExit as e:
        return int(e.code or 0)
    return cmd_eval(args, SimpleNamespace(llm=llm_section(llm)))


def lines(logs: list[str], prefix: str) -> list[str]:
    return [m for m in logs if m.startswith(prefix)]
