"""LLM runtime tests: a scripted provider on loopback, a frozen clock and a recording
sleep (nothing waits for real), and no network beyond 127.0.0.1 (the test-suite
equivalent of pydantic-ai's ALLOW_MODEL_REQUESTS = False)."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import Iterator
from typing import Any

import pytest

from agency.clock import FrozenClock
from agency.llm.result import AgentResult
from agency.llm.session import run_session
from agency.llm.settings import LlmSettings
from agency.llm.testing import ScriptedLLM
from agency.llm.toolbox import ToolSpec

_LOOPBACK = {"127.0.0.1", "::1", "localhost"}


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    real_connect, real_connect_ex = socket.socket.connect, socket.socket.connect_ex

    def _check(sock: socket.socket, address: Any) -> None:
        if sock.family in (socket.AF_INET, socket.AF_INET6) and address[0] not in _LOOPBACK:
            raise RuntimeError(f"network access forbidden in LLM tests: {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        _check(self, address)
        return real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        _check(self, address)
        return real_connect_ex(self, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    server = ScriptedLLM().start()
    yield server
    server.stop()
    assert not server.errors, server.errors  # every `expect` held and no script ran dry


class Sleeper:
    """Injected sleep: records each wait and moves the frozen clock instead of waiting."""

    def __init__(self, clock: FrozenClock) -> None:
        self.clock = clock
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)
        self.clock.advance(int(seconds * 1000))


@pytest.fixture
def clock() -> FrozenClock:
    return FrozenClock()


@pytest.fixture
def sleeper(clock: FrozenClock) -> Sleeper:
    return Sleeper(clock)


def target(llm: ScriptedLLM, api: str = "openai", model: str = "m1", **kw: Any) -> dict[str, Any]:
    return {"provider": api, "model": model, "base_url": llm.url(api), **kw}


def make_settings(llm: ScriptedLLM, targets: list[dict[str, Any]] | None = None, **kw: Any) -> LlmSettings:
    return LlmSettings.model_validate({"targets": targets or [target(llm)], "request_timeout_s": 5, **kw})


def run(prompt: str, settings: LlmSettings, **kw: Any) -> AgentResult:
    return asyncio.run(run_session(prompt, settings, **kw))


def llm_entries(result: AgentResult) -> list[dict[str, Any]]:
    return [e for e in result.accounting if e["type"] == "llm"]


def tool_entries(result: AgentResult) -> list[dict[str, Any]]:
    return [e for e in result.accounting if e["type"] == "tool"]


def spec(
    name: str,
    fn: Any = None,
    *,
    output: Any = "ok",
    server: str = "bot",
    queue: str = "default",
    params: dict[str, Any] | None = None,
) -> ToolSpec:
    """A test tool: `fn(args)` (sync or async) or a constant output; calls are recorded."""
    seen: list[dict[str, Any]] = []

    async def call(args: dict[str, Any]) -> str:
        seen.append(args)
        value = fn(args) if fn else output
        if asyncio.iscoroutine(value):
            value = await value
        return value if isinstance(value, str) else json.dumps(value)

    s = ToolSpec(
        server=server,
        name=name,
        description=f"test tool {name}",
        parameters=params or {"type": "object", "properties": {}},
        call=call,
        queue=queue,
    )
    object.__setattr__(s, "seen", seen)  # frozen dataclass: test-only attribute
    return s
