"""Which Node.js runs node/ (the bridge and the embedded world).

`bridge.node_bin = "auto"` (the default) means: the project's pinned Node in .toolchain/
(installed by `make install` when the machine's node is older than 22 or missing), else
the machine's `node` on PATH. An explicit path or command always wins. mineflayer needs
Node >= 22: an older one is an initialization failure that says how to get a new one.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from bot.runtime.errors import InitError

ROOT = Path(__file__).resolve().parents[2]
PINNED_NODE = ROOT / ".toolchain" / "bin" / "node"
MIN_MAJOR = 22


class NodeRuntimeError(InitError):
    """No usable Node.js: missing, or older than mineflayer supports."""


_versions: dict[str, str] = {}  # only answers are kept: a node that timed out once is asked again


def node_version(node_bin: str) -> str | None:
    """`vX.Y.Z` of a node executable, or None when it does not run."""
    if node_bin in _versions:
        return _versions[node_bin]
    try:
        out = subprocess.run([node_bin, "--version"], capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    if not re.match(r"v\d+\.", out):
        return None
    _versions[node_bin] = out
    return out


def resolve_node_bin(setting: str = "auto") -> str:
    """The node executable to run, checked to be >= 22; raises NodeRuntimeError otherwise."""
    explicit = setting != "auto"
    if explicit:
        node = shutil.which(setting) or setting
    elif PINNED_NODE.exists():
        node = str(PINNED_NODE)
    else:
        node = shutil.which("node") or ""
    version = node_version(node) if node else None
    fix = "run `make install` (it installs the pinned Node 22 into .toolchain/) or set bridge.node_bin"
    if version is None:
        what = f"bridge.node_bin = {setting!r} does not run" if explicit else "no node found (PATH or .toolchain/)"
        raise NodeRuntimeError(f"{what}: mcbot needs Node.js >= {MIN_MAJOR}; {fix}")
    if int(version[1:].split(".")[0]) < MIN_MAJOR:
        raise NodeRuntimeError(f"{node} is Node {version}; mineflayer needs >= {MIN_MAJOR}: {fix}")
    return node
