"""The dashboard in a real headless Chromium against `mcbot run` on the embedded world: the
page shows live vitals and a stream entry, its chat box gets the bot's answer (and the chat
feed shows the line and the answer), a goal created through its form becomes a task
row, the row's pause and resume buttons change the task through the API (the row updated in
place), the log panel fills, the 3D view's frame draws the world around the bot (terrain, not
only sky), and a screenshot is saved (logs/screenshots/dashboard-<version>.png; the README
shows one)."""

from __future__ import annotations

import io
import shutil
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from matplotlib import image as mpimg

from bot.runtime.server import free_port
from bot.tooling.loopback_http import loopback
from tests.conftest import ROOT, daemon_env, wait_healthy

pytestmark = pytest.mark.one_version(
    reason="the dashboard is the daemon's page; test_viewer.py serves the 3D view at every version"
)

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
SHOTS = ROOT / "logs" / "screenshots"
CONFIG = """
[server]
hunger_rate = 0.0

[drive_tick]
enabled = false

[viewer]
view_distance = 2
"""
# A root process in a container: no sandbox; no GPU; none of the browser's own network chatter.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--enable-unsafe-swiftshader",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
WAIT_MS = 60_000
SKY = np.array([173, 216, 230]) / 255  # prismarine-viewer's background ('lightblue')
TERRAIN_SHARE = 0.2  # of the view's pixels away from the sky colour: blocks were meshed and drawn


def _terrain_share(png: bytes) -> float:
    """How much of a screenshot of the 3D view is not sky."""
    pixels = mpimg.imread(io.BytesIO(png), format="png")[..., :3]
    return float((np.abs(pixels - SKY).sum(axis=2) > 0.12).mean())


def _wait_for_terrain(frame, shots: int = 40, stalls: int = 12) -> float:
    """The viewer meshes chunks in web workers after they arrive: take screenshots until one
    shows them drawn, at most `shots` that came back. A screenshot waits for the view to hold
    still; on a starved machine its frames can take longer than a screenshot's timeout, and
    that one is taken again (at most `stalls` times) without counting."""
    from playwright.sync_api import TimeoutError as ScreenshotTimeout  # noqa: PLC0415 - playwright may be missing

    share = 0.0
    while shots > 0 and stalls > 0:
        try:
            share = _terrain_share(frame.screenshot(timeout=15_000))
            shots -= 1
        except ScreenshotTimeout:
            stalls -= 1
            print("viewer screenshot: the view did not hold still within 15 s; taking it again")
            continue
        if share >= TERRAIN_SHARE:
            break
        time.sleep(1)
    return share


def _browser():
    if CHROMIUM is None:
        pytest.skip(
            "no Chromium on this machine: `make test` installs Debian's chromium package where it can "
            "(as root with apt-get); install it to run the dashboard's browser test"
        )
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is missing: run `make install`")
    return playwright.sync_playwright


def test_the_dashboard_shows_the_bot_live_and_drives_a_task_in_a_real_browser(tmp_path, mc_version):
    sync_playwright = _browser()
    cfg = tmp_path / "dashboard.toml"
    cfg.write_text(CONFIG)
    api_port, viewer_port = free_port(), free_port()
    env = daemon_env(tmp_path, mc_version, api_port, MCBOT_VIEWER__PORT=str(viewer_port))
    base = f"http://127.0.0.1:{api_port}"
    p = subprocess.Popen(
        [sys.executable, "-m", "bot", "--config", str(cfg), "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_healthy(p, base, 90)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                page = browser.new_page(viewport={"width": 1400, "height": 1500})
                errors: list[str] = []
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.goto(f"{base}/")

                # live vitals and position from the stream (no polling in the page)
                # an en dash: no value yet
                page.wait_for_function(
                    "document.querySelector('[data-testid=health-value]').textContent !== '\u2013'", timeout=WAIT_MS
                )
                health = float(page.inner_text("[data-testid=health-value]"))
                assert 0 < health <= 20
                assert len(page.inner_text("[data-testid=position]").split()) == 3
                assert page.inner_text("[data-testid=conn]") == "live"
                assert page.is_hidden("#bots-panel")  # one bot: the fleet's table stays out of the way

                # a stream entry: a thought posted to the daemon shows up in the feed
                loopback().post(f"{base}/thoughts", json={"content": "watching the sunrise from the hill"}, timeout=10)
                page.wait_for_selector("[data-testid=stream] li:has-text('watching the sunrise')", timeout=WAIT_MS)

                # the chat box: a line as a commander's, answered in the box and shown in the chat feed
                page.fill("[data-testid=chat-text]", "inventory")
                page.click("[data-testid=chat-submit]", timeout=WAIT_MS)
                page.wait_for_function(
                    "document.querySelector('[data-testid=chat-result]').textContent.startsWith('I hold')",
                    timeout=WAIT_MS,
                )
                page.wait_for_selector("[data-testid=chat] li:has-text('(dashboard)inventory')", timeout=WAIT_MS)
                page.wait_for_selector("[data-testid=chat] li:has-text('(dashboard), I hold')", timeout=WAIT_MS)

                # a goal through the page's form, then pause and resume through its row's buttons
                page.fill("[data-testid=goal-text]", "build basic_shelter 1")
                page.click("[data-testid=goal-submit]", timeout=WAIT_MS)
                page.wait_for_function(
                    "document.querySelector('[data-testid=goal-result]').textContent.startsWith('created')",
                    timeout=WAIT_MS,
                )
                task_id = page.inner_text("[data-testid=goal-result]").split()[1]
                status = f"[data-testid='status-{task_id}']"
                row = page.wait_for_selector(status, timeout=WAIT_MS)
                page.click(f"[data-testid='pause-{task_id}']", timeout=WAIT_MS)
                page.wait_for_function(
                    f"document.querySelector(\"{status}\")?.textContent === 'paused'", timeout=WAIT_MS
                )
                # the row was updated in place, not rebuilt (a rebuilt row under the pointer loses the click)
                assert row.evaluate("cell => cell.isConnected"), "the task's row was replaced by a new one"
                assert loopback().get(f"{base}/api/tasks/{task_id}", timeout=10).json()["status"] == "paused"
                page.click(f"[data-testid='resume-{task_id}']", timeout=WAIT_MS)
                page.wait_for_function(
                    f"['pending', 'active'].includes(document.querySelector(\"{status}\")?.textContent)",
                    timeout=WAIT_MS,
                )
                assert loopback().get(f"{base}/api/tasks/{task_id}", timeout=10).json()["status"] in (
                    "pending",
                    "active",
                )

                # the log panel carries the daemon's own lines about it
                page.wait_for_selector(f"[data-testid=log] span:has-text('{task_id}')", timeout=WAIT_MS)

                # the 3D view: prismarine-viewer's page in the frame draws on its canvas
                frame = page.wait_for_selector("[data-testid=viewer]", timeout=WAIT_MS)
                assert frame.get_attribute("src").endswith(f":{viewer_port}/")
                frame.content_frame().wait_for_selector("canvas", timeout=WAIT_MS)
                share = _wait_for_terrain(frame)
                assert share >= TERRAIN_SHARE, f"the 3D view shows only sky ({share:.0%} terrain)"

                SHOTS.mkdir(parents=True, exist_ok=True)
                shot = SHOTS / f"dashboard-{mc_version}.png"
                page.screenshot(path=str(shot), full_page=True)
                assert shot.stat().st_size > 20_000
                print(f"dashboard screenshot: {shot}")

                # a task claimed (pending -> active) keeps its pause button: one not rebuilt under the pointer
                kept = page.evaluate("""() => {
                  const t = { id: 'task-claimed', status: 'pending', progress: 0, metadata: {} }
                  renderTasks({ tasks: [t] })
                  const pause = document.querySelector("[data-testid='pause-task-claimed']")
                  renderTasks({ tasks: [{ ...t, status: 'active', progress: 0.5 }] })
                  return pause !== null && pause.isConnected &&
                    document.querySelector("[data-testid='status-task-claimed']").textContent
                }""")
                assert kept == "active", f"the pause button was rebuilt when the task went active ({kept})"
                assert errors == [], errors
            finally:
                browser.close()
        loopback().post(f"{base}/api/tasks/{task_id}/cancel", timeout=10)
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=30)
        assert p.returncode == 0, out[-2000:]
    finally:
        if p.poll() is None:
            p.kill()
            p.wait(10)
