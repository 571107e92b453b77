"""A scripted LLM provider on loopback, shipped with the package (like its other test
doubles): a real HTTP
server speaking the OpenAI-compatible (/v1/chat/completions), Ollama (/api/chat) and
Anthropic (/v1/messages) APIs. Each request consumes the next scripted step: a reply
(tool calls, final report, text, reasoning-only, empty) or an injected failure (status,
Retry-After, hang, malformed body), optionally repeated `times`. A step may be a function
of the request. `expect` checks what the server received; failures land in `errors`.

    python -m agency.llm.testing --port 8765      # the demo scenario of the README
"""

from __future__ import annotations

import argparse
import json
import re
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_NONCE = re.compile(r"ai-agent-([0-9a-f]{8})-")


@dataclass
class Received:
    """One request as the server saw it, in a provider-neutral view."""

    api: str  # "openai" | "ollama" | "anthropic"
    path: str
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def model(self) -> str:
        model: str = self.body.get("model", "")
        return model

    @property
    def messages(self) -> list[dict[str, Any]]:
        msgs = list(self.body.get("messages") or [])
        if self.api == "anthropic" and self.body.get("system"):
            msgs.insert(0, {"role": "system", "content": self.body["system"]})
        return msgs

    @property
    def tool_names(self) -> list[str]:
        return [t.get("function", t).get("name") for t in self.body.get("tools") or []]

    def _sampling(self, key: str) -> float | None:
        value: float | None = (self.body.get("options") or {}).get(key) if self.api == "ollama" else self.body.get(key)
        return value

    @property
    def temperature(self) -> float | None:
        return self._sampling("temperature")

    @property
    def top_p(self) -> float | None:
        return self._sampling("top_p")

    @property
    def text(self) -> str:
        return json.dumps(self.messages, ensure_ascii=False)

    @property
    def nonce(self) -> str | None:
        m = _NONCE.search(self.text)
        return m.group(1) if m else None

    def last_tool_output(self) -> str | None:
        for m in reversed(self.messages):
            content = m.get("content")
            if m.get("role") == "tool":
                return content if isinstance(content, str) else json.dumps(content)
            if m.get("role") == "user" and isinstance(content, list):  # anthropic tool_result
                return json.dumps(content)
            if m.get("role") == "user" and isinstance(content, str) and content.startswith("System Notice: tool"):
                return content
            if m.get("role") == "assistant":
                return None
        return None


@dataclass
class Reply:
    content: str = ""
    reasoning: str = ""
    tool_calls: list[tuple[str, Any]] = field(default_factory=list)  # (name, dict args or raw str)
    stop_reason: str | None = None
    usage: tuple[int, int] | None = None  # (input, output); None = estimated from sizes
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    raw_body: str | None = None  # sent verbatim (malformed responses)
    delay_s: float = 0.0  # the server waits this long before answering (client timeouts)
    times: int = 1
    expect: Callable[[Received], None] | None = None


Step = Reply | Callable[[Received], Reply]


def call(name: str, args: Any = None, **kw: Any) -> Reply:
    return Reply(tool_calls=[(name, {} if args is None else args)], **kw)


def calls(*pairs: tuple[str, Any], **kw: Any) -> Reply:
    return Reply(tool_calls=list(pairs), **kw)


def final(content: Any = "done", fmt: str = "markdown", metadata: dict[str, Any] | None = None, **kw: Any) -> Reply:
    key = "content_json" if fmt == "json" else "report_content"
    args = {"format": fmt, key: content} | ({"metadata": metadata} if metadata else {})
    return call("agent__final_report", args, **kw)


def text(content: str, **kw: Any) -> Reply:
    return Reply(content=content, **kw)


def reasoning_only(thought: str = "thinking...", **kw: Any) -> Reply:
    return Reply(reasoning=thought, **kw)


def empty(**kw: Any) -> Reply:
    return Reply(**kw)


def fail(status: int, body: str = "", retry_after: str | None = None, **kw: Any) -> Reply:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    return Reply(
        status=status, raw_body=body or json.dumps({"error": {"message": f"scripted {status}"}}), headers=headers, **kw
    )


def malformed(body: str = "{not json", **kw: Any) -> Reply:
    return Reply(raw_body=body, **kw)


def hang(seconds: float, **kw: Any) -> Reply:
    return Reply(delay_s=seconds, content="too late", **kw)


def demo_step(req: Received) -> Reply:
    """The README scenario: check the inventory with the bot's tool, then report."""
    fmt = "markdown"
    for t in req.body.get("tools") or []:
        fn = t.get("function", t)
        if fn.get("name") == "agent__final_report":
            props = (fn.get("parameters") or fn.get("input_schema") or {}).get("properties", {})
            fmt = props.get("format", {}).get("const", fmt)
    output = req.last_tool_output()
    if output is not None:
        return final(f"Here is what I hold: {output}", fmt=fmt)
    if "bot__inventory" in req.tool_names:
        return call("bot__inventory", {})
    return final("I have no tools to look at my inventory (started with --no-bot).", fmt=fmt)


class ScriptedLLM:
    def __init__(self, script: list[Step] | None = None, default: Step | None = None) -> None:
        self.script: list[list[Any]] = [[s, getattr(s, "times", 1)] for s in (script or [])]
        self.default = default
        self.requests: list[Received] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    # ---- lifecycle -------------------------------------------------------------------
    def start(self, port: int = 0) -> ScriptedLLM:
        handler = type("Handler", (_Handler,), {"llm": self})
        self._server = ThreadingHTTPServer(("127.0.0.1", port), handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, args=(0.02,), name="scripted-llm", daemon=True).start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> ScriptedLLM:
        return self.start()

    def __exit__(self, *_: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.server_address[1]

    def url(self, api: str = "openai") -> str:
        return f"http://127.0.0.1:{self.port}" + ("/v1" if api == "openai" else "")

    def add(self, *steps: Step) -> None:
        with self._lock:
            self.script.extend([s, getattr(s, "times", 1)] for s in steps)

    # ---- scripting -------------------------------------------------------------------
    def _next(self, req: Received) -> Reply:
        with self._lock:
            self.requests.append(req)
            if self.script:
                entry = self.script[0]
                entry[1] -= 1
                if entry[1] <= 0:
                    self.script.pop(0)
                step = entry[0]
            elif self.default is not None:
                step = self.default
            else:
                self.errors.append(f"script exhausted at request {len(self.requests)}")
                return fail(500, "script exhausted")
        reply: Reply = step(req) if callable(step) and not isinstance(step, Reply) else step
        if reply.expect is not None:
            try:
                reply.expect(req)
            except AssertionError as e:
                self.errors.append(f"request {len(self.requests)}: {e}")
        return reply

    def wait(self, seconds: float) -> None:
        self._stop.wait(seconds)


class _Handler(BaseHTTPRequestHandler):
    llm: ScriptedLLM

    def log_message(self, *_: Any) -> None:  # quiet
        pass

    def do_POST(self) -> None:
        api = {
            "/v1/chat/completions": "openai",
            "/chat/completions": "openai",
            "/api/chat": "ollama",
            "/v1/messages": "anthropic",
        }.get(self.path)
        length = int(self.headers.get("Content-Length") or 0)
        try:
            body = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            body = {}
        if api is None:
            return self._send(404, json.dumps({"error": f"no route {self.path}"}), {})
        req = Received(api, self.path, body, {k.lower(): v for k, v in self.headers.items()})
        reply = self.llm._next(req)
        if reply.delay_s:
            self.llm.wait(reply.delay_s)
        if reply.raw_body is not None:
            return self._send(reply.status, reply.raw_body, reply.headers)
        return self._send(reply.status, json.dumps(_render(api, req, reply)), reply.headers)

    def _send(self, status: int, text: str, headers: dict[str, str]) -> None:
        data = text.encode("utf-8")
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):  # the client timed out first
            pass


def _render(api: str, req: Received, r: Reply) -> dict[str, Any]:
    nonce = req.nonce or ""
    content = r.content.replace("{NONCE}", nonce)
    calls_ = [(uuid.uuid4().hex[:10], n, a) for n, a in r.tool_calls]
    inp, out = r.usage or (len(json.dumps(req.body)) // 4, (len(content) + len(json.dumps(r.tool_calls))) // 4)
    stop = r.stop_reason
    if api == "openai":
        msg: dict[str, Any] = {"role": "assistant", "content": content or None}
        if r.reasoning:
            msg["reasoning_content"] = r.reasoning
        if calls_:
            msg["tool_calls"] = [
                {
                    "id": i,
                    "type": "function",
                    "function": {"name": n, "arguments": a if isinstance(a, str) else json.dumps(a)},
                }
                for i, n, a in calls_
            ]
        return {
            "id": "chatcmpl-scripted",
            "object": "chat.completion",
            "model": req.model,
            "choices": [{"index": 0, "message": msg, "finish_reason": stop or ("tool_calls" if calls_ else "stop")}],
            "usage": {"prompt_tokens": inp, "completion_tokens": out, "total_tokens": inp + out},
        }
    if api == "ollama":
        omsg: dict[str, Any] = {"role": "assistant", "content": content}
        if r.reasoning:
            omsg["thinking"] = r.reasoning
        if calls_:
            omsg["tool_calls"] = [{"function": {"name": n, "arguments": a}} for _, n, a in calls_]
        return {
            "model": req.model,
            "message": omsg,
            "done": True,
            "done_reason": stop or "stop",
            "prompt_eval_count": inp,
            "eval_count": out,
        }
    blocks: list[dict[str, Any]] = []
    if r.reasoning:
        blocks.append({"type": "thinking", "thinking": r.reasoning})
    if content:
        blocks.append({"type": "text", "text": content})
    blocks += [{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in calls_]
    return {
        "id": "msg_scripted",
        "type": "message",
        "role": "assistant",
        "model": req.model,
        "content": blocks,
        "stop_reason": stop or ("tool_use" if calls_ else "end_turn"),
        "usage": {"input_tokens": inp, "output_tokens": out},
    }


def main() -> None:
    p = argparse.ArgumentParser(description="Serve the scripted demo LLM on 127.0.0.1 (OpenAI + Ollama APIs).")
    p.add_argument("--port", type=int, default=8765)
    port = p.parse_args().port
    llm = ScriptedLLM(default=demo_step).start(port)
    print(f"scripted LLM on http://127.0.0.1:{llm.port} (openai base_url http://127.0.0.1:{llm.port}/v1)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        llm.stop()


if __name__ == "__main__":
    main()
