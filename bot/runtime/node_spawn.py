"""How the bridge's node is started: JSPyBridge spawns it itself (javascript/connection.py:
`subprocess.Popen([NODE_BIN, <its bridge.js>])` with this process's environment). Its own
flags (the heap limit) and environment (the heartbeat file) go to that one spawn through
the Popen its connection module calls, never through os.environ, which every other child
(the embedded world's node) would inherit."""

from __future__ import annotations

import importlib
import importlib.util
import os
import subprocess
import sys
from types import ModuleType
from typing import Any


class _Subprocess:
    """The `subprocess` module as JSPyBridge's connection module sees it: Popen adds our
    node flags and environment; everything else is the real module's."""

    def __init__(self) -> None:
        self.node_args: list[str] = []
        self.env: dict[str, str] = {}

    def Popen(self, args: list[str], **kw: Any) -> subprocess.Popen[bytes]:  # subprocess.Popen's name
        args = [args[0], *self.node_args, *args[1:]]  # node's own flags go before the script
        kw["env"] = {**(kw.get("env") or os.environ), **self.env}
        return subprocess.Popen(args, **kw)

    def __getattr__(self, name: str) -> Any:
        return getattr(subprocess, name)


_spawner = _Subprocess()


def configure(node_args: list[str], env: dict[str, str]) -> None:
    """Set the flags and environment of every bridge node spawned from now on (the first
    and each rebuild's). Call before the bridge thread imports `javascript`."""
    _spawner.node_args, _spawner.env = list(node_args), dict(env)
    _connection_module().subprocess = _spawner  # type: ignore[attr-defined]  # JSPyBridge's spawn, replaced on its module


def _connection_module() -> ModuleType:
    """javascript.connection, loaded without starting node. Importing the `javascript`
    package starts node at once (its __init__ calls init()), too early to hook the spawn:
    its connection module is loaded first under a stand-in for the package; the real package,
    imported later on the bridge thread, finds it (and its config) in sys.modules."""
    loaded = sys.modules.get("javascript.connection")
    if loaded is not None:
        return loaded
    spec = importlib.util.find_spec("javascript")
    if spec is None:
        raise ImportError("javascript (JSPyBridge) is not installed")
    stand_in = importlib.util.module_from_spec(spec)  # not executed: no node
    sys.modules["javascript"] = stand_in
    try:
        return importlib.import_module("javascript.connection")
    finally:
        if sys.modules.get("javascript") is stand_in:
            del sys.modules["javascript"]
