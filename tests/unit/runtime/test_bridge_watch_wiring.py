"""The bridge watchdog's wiring, without node: the bridge reads JSPyBridge's modules only if
loaded (importing the package starts node), `mcbot doctor` builds its bridge from [bridge]
like the daemon, and /metrics shows the wedges' count and figures."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bot.cli import doctor as doctor_module
from bot.cli.doctor import Doctor
from bot.config.loader import load_config
from bot.runtime.bridge import Bridge, BridgeInitError
from bot.runtime.metrics import render_metrics
from bot.runtime.ping import PingResult
from bot.runtime.wedge import Verdict, WedgeLimits


class _NoJavascriptPackage:
    """A meta path finder that records any import of the `javascript` package and refuses it."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> None:
        if name == "javascript":
            self.asked.append(name)
            raise ImportError("importing javascript starts node")
        return None


class _Proc:
    pid = 4242

    def __init__(self) -> None:
        self.waited = False

    def poll(self) -> int | None:
        return None

    def wait(self, timeout: float) -> int:
        self.waited = True
        return 0

    def kill(self) -> None:
        pass


@pytest.fixture
def no_package(monkeypatch: pytest.MonkeyPatch) -> _NoJavascriptPackage:
    """No `javascript` package loaded, and none may be (it would start node in this process)."""
    finder = _NoJavascriptPackage()
    monkeypatch.setattr(sys, "meta_path", [finder, *sys.meta_path])
    for name in ("javascript", "javascript.connection", "javascript.config"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    return finder


def test_the_bridge_reads_a_preloaded_connection_and_never_imports_the_package(
    no_package: _NoJavascriptPackage, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc, stopped = _Proc(), []
    connection = SimpleNamespace(proc=proc, com_thread=None, stop=lambda: stopped.append(True))
    config = SimpleNamespace(event_thread=None)
    monkeypatch.setitem(sys.modules, "javascript.connection", connection)  # as node_spawn preloads it
    monkeypatch.setitem(sys.modules, "javascript.config", config)
    bridge = Bridge()
    assert bridge.node_pid == 4242
    assert bridge._check() == "JSPyBridge event thread died"
    bridge._kill_node(grace_s=0.1)
    assert stopped == [True] and proc.waited
    assert no_package.asked == []


def test_the_bridge_with_no_jspybridge_loaded_has_no_node(no_package: _NoJavascriptPackage) -> None:
    bridge = Bridge()
    assert bridge.node_pid is None and bridge._check() == "bridge not started"
    bridge._kill_node(grace_s=0.1)  # nothing to kill
    assert no_package.asked == []


def _config(tmp_path: Path, toml: str) -> Any:
    cwd, home, etc = (tmp_path / d for d in ("cwd", "home", "etc"))
    for d in (cwd, home, etc):
        d.mkdir()
    (cwd / "mcbot.toml").write_text(toml)
    return load_config(cwd=cwd, home=home, etc_dir=etc, environ={}).config


def test_doctor_builds_its_bridge_from_the_bridge_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = _config(tmp_path, "[bridge]\nheap_mb = 256\nlag_samples = 5\nmax_rss_mb = 900\n")
    monkeypatch.setattr(doctor_module, "ping", lambda host, port: PingResult("1.21.4", 769, "motd", 0))
    built: list[Bridge] = []

    def start(self: Bridge, timeout_s: float = 60.0) -> None:
        built.append(self)
        raise BridgeInitError("no node here")

    monkeypatch.setattr(Bridge, "start", start)
    findings = Doctor(cfg).run()
    assert [b.heap_mb for b in built] == [256]
    limits = built[0].node_watch.limits
    assert (limits.lag_samples, limits.max_rss_mb) == (5, 900)
    assert (findings[1].check, findings[1].result) == ("version", "FAIL")


def _metrics(bridge: Bridge | None) -> str:
    agency = SimpleNamespace(
        counters=SimpleNamespace(snapshot=dict),
        body=None,
        stream=SimpleNamespace(count=lambda: 0),
        tasks=SimpleNamespace(counts_by_status=dict),
    )
    daemon = SimpleNamespace(scheduler=SimpleNamespace(jobs={}), bridge=bridge)
    return render_metrics(daemon, {"mcbot": agency})


def test_metrics_show_the_wedges_and_the_last_ones_detection_and_rebuild_seconds() -> None:
    clock = {"mono": 0.0, "wall": 1000.0}
    bridge = Bridge(limits=WedgeLimits())
    watch = bridge.node_watch
    watch.clock, watch.wall = (lambda: clock["mono"]), (lambda: clock["wall"])
    bridge._signal_kill = lambda: None  # type: ignore[method-assign]  # no node here
    text = _metrics(bridge)
    assert "mcbot_bridge_wedges_total 0\n" in text and "\nmcbot_bridge_last_wedge_detect_seconds " not in text
    watch.node_up(pid=42, generation=1)
    clock["wall"] = 1006.0
    bridge._declare_wedged(Verdict("silent", "no heartbeat for 5.5 s", onset_ms=1000.5 * 1000))
    text = _metrics(bridge)
    assert "mcbot_bridge_wedges_total 1\n" in text and "mcbot_bridge_last_wedge_detect_seconds 5.5\n" in text
    assert "\nmcbot_bridge_last_wedge_rebuild_seconds " not in text  # not up again yet
    clock["wall"] = 1008.0
    watch.node_up(pid=43, generation=2)
    assert "mcbot_bridge_last_wedge_rebuild_seconds 7.5\n" in _metrics(bridge)
    assert "mcbot_bridge_wedges_total 0\n" in _metrics(None)
