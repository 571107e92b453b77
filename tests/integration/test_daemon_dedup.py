"""Dedup in the running daemon (docs/contracts.md DEDUP-1, DEDUP-2, COUNTER-1): `mcbot run` against the
embedded world, its keep-alive thoughts coming from a scripted LLM on loopback that says the
same thing every time. Keep-alive is driven through POST /api/keepalive/poke (the scheduled
keep-alive job is switched off so every introspection is the test's own).

While the bot stands still the banded situation repeats: pokes skip the model and record a
low-novelty fallback thought; every heartbeat lets one call through, and its reply, like
the first, is demoted by content dedup. The counters move on the HTTP API and /metrics, and
the stream shows only the broadcast copies, flagged."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from typing import Any

import httpx
import pytest

from agency.llm.testing import ScriptedLLM, text
from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, daemon_env, wait_until

pytestmark = pytest.mark.one_version(
    reason="the keep-alive's suppression is agency logic over the daemon's stream, not the protocol"
)

SAID = "The grass is green and nothing moves."
HEARTBEAT_MS = 2000


def _config(llm_url: str) -> str:
    return f"""
[server]
hostiles = false
hunger_rate = 0.0
day_length_scale = 100.0   # the time-of-day band stays put for the test

[drive_tick]
enabled = false            # no tasks: the bot stands still, its situation repeats

[keepalive]
heartbeat_ms = {HEARTBEAT_MS}

[jobs]
disabled = ["keepalive"]   # introspections come from the test's pokes only

[[llm.targets]]
provider = "openai"
model = "scripted"
base_url = "{llm_url}"
"""


def test_daemon_keepalive_suppresses_demotes_and_broadcasts_one_in_five(tmp_path, mc_version):
    llm = ScriptedLLM(default=text(SAID + "\nINTENT: none")).start()
    cfg = tmp_path / "dedup.toml"
    cfg.write_text(_config(llm.url()))
    api_port = free_port()
    env = daemon_env(tmp_path, mc_version, api_port)
    p = subprocess.Popen(
        [sys.executable, "-m", "bot", "--config", str(cfg), "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    base = f"http://127.0.0.1:{api_port}"
    pokes: list[dict[str, Any]] = []

    def poke() -> dict[str, Any]:
        r = loopback().post(f"{base}/api/keepalive/poke", timeout=30).json()
        pokes.append(r)
        return r

    def counters() -> dict[str, int]:
        return loopback().get(f"{base}/api/agency/counters", timeout=5).json()

    try:

        def connected():
            assert p.poll() is None, p.stdout.read()
            try:
                return loopback().get(f"{base}/healthz", timeout=2).json().get("botConnected")
            except (httpx.HTTPError, ValueError):
                return False

        wait_until(connected, 60, "the daemon's bot to be connected")
        first = poke()
        assert (first["status"], first["situation"]) == ("published", "fresh"), first

        def deduplicated() -> bool:
            poke()
            c = counters()
            return (
                c["signatureSuppressions"] >= 1
                and c["contentSuppressions"] >= 1
                and c["lowNoveltyBroadcast"] >= 1
                and c["lowNoveltyRecorded"] > c["lowNoveltyBroadcast"]
            )

        wait_until(deduplicated, 60, "signature and content dedup to fire on repeated pokes", poll_s=0.5)
        c = counters()
        situations = [r["situation"] for r in pokes]
        assert "suppressed" in situations and "heartbeat" in situations, situations
        # Only fresh and heartbeat cycles reach the model; a suppressed one never does.
        assert len(llm.requests) == c["llmCalls"] == sum(s != "suppressed" for s in situations)
        assert c["signatureSuppressions"] == situations.count("suppressed")

        thoughts = loopback().get(f"{base}/thoughts", params={"limit": 500}, timeout=5).json()["thoughts"]
        keepalive = {t["id"]: t for t in thoughts if t.get("cognitiveSystem") == "keepalive"}
        t0 = keepalive[first["thoughtId"]]
        assert (t0["content"], t0["novelty"], t0["convertEligible"]) == (SAID, "high", False)
        assert not t0["metadata"].get("fallback")
        held = [r for r in pokes[1:] if r["status"] == "held"]
        shown = [r for r in pokes[1:] if r["status"] == "published"]
        assert held and shown
        for r in held:  # recorded locally, never on the stream
            assert r["thoughtId"] not in keepalive
        for r in shown:  # every later thought repeats: the broadcast copy is demoted and flagged
            t = keepalive[r["thoughtId"]]
            assert (t["novelty"], t["convertEligible"], t["metadata"]["fallback"]) == ("low", False, True), t
        assert sum(t["novelty"] == "low" for t in keepalive.values()) == c["lowNoveltyBroadcast"] == len(shown)
        assert c["lowNoveltyRecorded"] == len(pokes) - 1

        metrics = loopback().get(f"{base}/metrics", timeout=5).text
        for name in ("signatureSuppressions", "contentSuppressions", "lowNoveltyRecorded", "lowNoveltyBroadcast"):
            m = re.search(rf'mcbot_agency_counter\{{name="{name}",bot="[^"]+"\}} (\d+)', metrics)
            assert m and int(m.group(1)) >= 1, name
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=15)
        assert p.returncode == 0, out[-2000:]
    finally:
        if p.poll() is None:
            p.kill()
        llm.stop()
    assert not llm.errors, llm.errors
