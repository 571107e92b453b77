"""`mcbot bench bridge`: the one-call helpers against the naive way, side by side in one run
on the embedded world. Speed goals are judged here (ratios), never by timed test asserts.
With `--versions 1.21.4,1.18.2` each version is measured in its own child process (one
JSPyBridge per process) and the figures are printed in one table, a column per version."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import psutil

from agency.stats import percentile
from bot.config.loader import McbotConfig
from bot.runtime.server import EmbeddedServer, free_port, settings_from_config
from bot.runtime.session import live_session
from bot.tooling.progress import Progress, to_stderr


def _sample_percentile(samples: list[float], q: float) -> float:
    """The q-th percentile of a bench's samples (never empty: every bench runs at least one round)."""
    value = percentile(samples, q)
    assert value is not None
    return value


def wait_for(pred: Callable[[], Any], timeout_s: float, what: str) -> None:
    """A bench's set-up step: wait for a real event, polled every 0.1 s, bounded."""
    deadline = time.monotonic() + timeout_s
    while not pred():
        if time.monotonic() > deadline:
            raise TimeoutError(f"bench set-up: no {what} within {timeout_s:.0f} s")
        time.sleep(0.1)


REGION_SIZE = (32, 16, 32)  # x, y, z: "32x32x16" = 32 wide, 32 deep, 16 high
PER_BLOCK_SAMPLE = 256
ENTITIES = 100  # a crowded scene
TARGETS = {"snapshot_p50_ms": 1.5, "snapshot_speedup": 100.0, "region_p50_ms": 10.0}


def _timed(fn: Callable[[], Any], rounds: int) -> list[float]:
    out = []
    for _ in range(rounds):
        t = time.perf_counter()
        fn()
        out.append((time.perf_counter() - t) * 1000)
    return out


def _per_property_snapshot(bot: Any) -> dict[str, Any]:
    """The same state as the snapshot helper, read property by property through proxies."""
    pos = bot.entity.position
    me = (pos.x, pos.y, pos.z)
    state: dict[str, Any] = {
        "health": bot.health,
        "food": bot.food,
        "saturation": bot.foodSaturation,
        "gameMode": bot.game.gameMode,
        "dimension": bot.game.dimension,
        "timeOfDay": bot.time.timeOfDay,
        "isDay": bot.time.isDay,
        "position": me,
        "inventory": [(i.name, i.count) for i in bot.inventory.items()],
        "entities": [],
    }
    entities = bot.entities
    for key in entities:
        e = entities[key]
        if not e.isValid:
            continue
        p = e.position
        x, y, z = p.x, p.y, p.z
        distance = ((x - me[0]) ** 2 + (y - me[1]) ** 2 + (z - me[2]) ** 2) ** 0.5
        state["entities"].append((e.name, e.type, x, y, z, distance))
    return state


def bench_bridge(
    cfg: McbotConfig,
    as_json: bool = False,
    rounds: int = 200,
    versions: str | None = None,
    config_path: str | None = None,
) -> int:
    if versions:
        return _bench_versions([v.strip() for v in versions.split(",") if v.strip()], as_json, rounds, config_path)
    port = free_port()
    fresh = cfg.server.model_copy(update={"world_folder": ""})  # a fresh world in memory, never the kept one
    server = EmbeddedServer(settings_from_config(fresh, port=port), node_bin=cfg.bridge.node_bin)
    server.start()
    try:
        with live_session(cfg, embedded=False, host="127.0.0.1", port=port) as s:
            result = _measure(s, server, rounds)
    finally:
        server.stop()
    if as_json:
        print(json.dumps(result))
    else:
        _print_table(result)
    return 0


def _measure(s: Any, server: EmbeddedServer, rounds: int) -> dict[str, Any]:
    body, bridge = s.body, s.bridge
    snap = body.snapshot()
    for _ in range(ENTITIES // 50):  # the op command spawns at most 50 at a time
        body.chat("/mcbot spawn cow 50 mcbot 8")
    time.sleep(3.0)  # let the spawn packets arrive
    snap = body.snapshot()
    for _ in range(20):  # warm-up
        body.snapshot()
    snap_ms = _timed(body.snapshot, rounds)

    bot = bridge.raw("botProxy", body.bot_id)
    per_prop_rounds = max(5, rounds // 20)
    per_prop_ms = bridge.on_bridge_thread(lambda: _timed(lambda: _per_property_snapshot(bot), per_prop_rounds), 600)

    p = snap.position
    origin = (int(p.x) - REGION_SIZE[0] // 2, int(p.y) - REGION_SIZE[1] // 2, int(p.z) - REGION_SIZE[2] // 2)
    for _ in range(5):
        body.region(origin, REGION_SIZE)
    region_ms = _timed(lambda: body.region(origin, REGION_SIZE), max(20, rounds // 4))

    def per_block() -> None:
        sx, _, sz = REGION_SIZE
        for i in range(PER_BLOCK_SAMPLE):
            x, z, y = i % sx, (i // sx) % sz, i // (sx * sz)
            b = bot.blockAt(bridge.module.vec3(origin[0] + x, origin[1] + y, origin[2] + z))
            _ = b.name if b else None

    sample_ms = bridge.on_bridge_thread(lambda: _timed(per_block, 3), 600)
    blocks = REGION_SIZE[0] * REGION_SIZE[1] * REGION_SIZE[2]
    per_block_ms = statistics.median(sample_ms) / PER_BLOCK_SAMPLE * blocks

    node_rss = _rss(bridge.node_pid)
    result = {
        "entities_seen": len(snap.entities),
        "snapshot_p50_ms": round(_sample_percentile(snap_ms, 0.5), 3),
        "snapshot_p95_ms": round(_sample_percentile(snap_ms, 0.95), 3),
        "snapshot_per_property_p50_ms": round(_sample_percentile(per_prop_ms, 0.5), 3),
        "snapshot_per_property_p95_ms": round(_sample_percentile(per_prop_ms, 0.95), 3),
        "region_blocks": blocks,
        "region_p50_ms": round(_sample_percentile(region_ms, 0.5), 3),
        "region_p95_ms": round(_sample_percentile(region_ms, 0.95), 3),
        "region_per_block_ms": round(per_block_ms, 1),
        "python_rss_mb": round(_rss(None) / 2**20, 1),
        "node_rss_mb": round(node_rss / 2**20, 1),
        "server_rss_mb": round(_rss(server.proc.pid if server.proc else None) / 2**20, 1),
    }
    result["snapshot_speedup"] = round(result["snapshot_per_property_p50_ms"] / max(result["snapshot_p50_ms"], 1e-6), 1)
    result["region_speedup"] = round(result["region_per_block_ms"] / max(result["region_p50_ms"], 1e-6), 1)
    result["targets_met"] = (
        result["snapshot_p50_ms"] <= TARGETS["snapshot_p50_ms"]
        and result["snapshot_speedup"] >= TARGETS["snapshot_speedup"]
        and result["region_p50_ms"] <= TARGETS["region_p50_ms"]
    )
    return result


def _rss(pid: int | None) -> int:
    try:
        return psutil.Process(pid).memory_info().rss if pid else psutil.Process().memory_info().rss
    except psutil.Error:
        return 0


def _print_table(r: dict[str, Any]) -> None:
    print(f"bridge benchmark (entities seen: {r['entities_seen']})")
    print(f"{'':32}{'p50 ms':>10}{'p95 ms':>10}")
    print(f"{'snapshot helper (1 call)':32}{r['snapshot_p50_ms']:>10.3f}{r['snapshot_p95_ms']:>10.3f}")
    print(
        f"{'snapshot per property':32}{r['snapshot_per_property_p50_ms']:>10.3f}"
        f"{r['snapshot_per_property_p95_ms']:>10.3f}"
    )
    print(
        f"  -> helper is {r['snapshot_speedup']}x faster (target >= {TARGETS['snapshot_speedup']:.0f}x, p50 <= "
        f"{TARGETS['snapshot_p50_ms']} ms)"
    )
    print(f"{'region 32x32x16 helper':32}{r['region_p50_ms']:>10.3f}{r['region_p95_ms']:>10.3f}")
    print(f"{'region block by block (extrap.)':32}{r['region_per_block_ms']:>10.1f}")
    print(f"  -> helper is {r['region_speedup']}x faster (target p50 <= {TARGETS['region_p50_ms']} ms)")
    print(f"RSS: python {r['python_rss_mb']} MB, node (bridge) {r['node_rss_mb']} MB, server {r['server_rss_mb']} MB")
    print("targets met" if r["targets_met"] else "TARGETS NOT MET")


ROWS = (  # (label, key, format) of the side-by-side table
    ("snapshot helper p50 ms", "snapshot_p50_ms", ".3f"),
    ("snapshot per property p50 ms", "snapshot_per_property_p50_ms", ".3f"),
    ("snapshot speedup x", "snapshot_speedup", ".1f"),
    ("region 32x32x16 helper p50 ms", "region_p50_ms", ".3f"),
    ("region block by block ms", "region_per_block_ms", ".1f"),
    ("region speedup x", "region_speedup", ".1f"),
    ("entities seen", "entities_seen", "d"),
    ("RSS python MB", "python_rss_mb", ".1f"),
    ("RSS node (bridge) MB", "node_rss_mb", ".1f"),
    ("RSS server MB", "server_rss_mb", ".1f"),
)


CHILD_TIMEOUT_S = 900


def run_per_version(
    command: str, versions: list[str], args: list[str], config_path: str | None
) -> dict[str, Any] | int:
    """`mcbot bench <command> --json <args>` in a child process per version (one JSPyBridge
    per process), with the same config: {version: result}, or the exit code of a failure.
    The child's progress lines are passed on as they come, the version before each."""
    results: dict[str, Any] = {}
    base = [sys.executable, "-m", "bot", *(["--config", config_path] if config_path else [])]
    for v in versions:
        print(f"bench: measuring the embedded world at {v} ...", file=sys.stderr, flush=True)
        env = {**os.environ, "MCBOT_SERVER__EMBEDDED_VERSION": v}
        ran = run_relaying(
            [*base, "bench", command, "--json", *args], env, f"bench {command}:", f"[{v}] ", CHILD_TIMEOUT_S
        )
        if ran is None:
            print(f"bench: {v} did not finish within {CHILD_TIMEOUT_S} s", file=sys.stderr)
            return 1
        code, stdout, stderr = ran
        lines = stdout.strip().splitlines()
        if code != 0 or not lines:
            print(f"bench: {v} failed (exit {code}): {stderr.strip()[-500:]}", file=sys.stderr)
            return code or 1
        results[v] = json.loads(lines[-1])
    return results


def bench_world(
    name: str,
    cfg: McbotConfig,
    measure: Callable[[int, Progress], dict[str, Any]],
    *,
    as_json: bool,
    rounds: int,
    versions: str | None,
    config_path: str | None,
    quiet: dict[str, Any],
    table: Callable[[dict[str, Any]], None],
    met: Callable[[dict[str, Any]], bool] = lambda _results: True,
) -> int:
    """A world bench's runs and its exit code: with `versions`, one child per version
    (run_per_version); else `measure(port, progress)` here, on a fresh embedded world with the
    server settings `quiet` (no mobs, ...) on a free port. Prints `table(results by version)`,
    or the JSON; exits 1 when not `met(results)`, or with a child's failure."""
    if versions:
        found = run_per_version(
            name, [v.strip() for v in versions.split(",") if v.strip()], ["--rounds", str(rounds)], config_path
        )
        if isinstance(found, int):
            return found
        if as_json:
            print(json.dumps({"versions": found}))
            return 0
        table(found)
        return 0 if met(found) else 1
    progress = Progress(f"bench {name}")  # on stderr, with --json too: stdout is the table or the JSON alone
    port = free_port()
    world = cfg.server.model_copy(update={"world_folder": "", **quiet})
    server = EmbeddedServer(settings_from_config(world, port=port), node_bin=cfg.bridge.node_bin)
    progress.note(f"starting the embedded world at {cfg.server.embedded_version}")
    server.start()
    try:
        result = measure(port, progress)
    finally:
        server.stop()
    if as_json:
        print(json.dumps(result))
        return 0
    results: dict[str, Any] = {cfg.server.embedded_version: result}
    table(results)
    return 0 if met(results) else 1


def run_relaying(
    cmd: list[str], env: dict[str, str], marker: str, tag: str, timeout_s: float, say: Callable[[str], None] = to_stderr
) -> tuple[int, str, str] | None:
    """Run `cmd`: (exit code, its stdout, the end of its stderr), or None when it ran past
    `timeout_s` (then it is killed). Its stderr lines that start with `marker` (its progress)
    are said at once, `tag` first; the others (its log) are kept for a failure's message."""
    kept: deque[str] = deque(maxlen=40)
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.PIPE, text=True)

        def relay() -> None:
            assert proc.stderr is not None
            for raw in proc.stderr:
                line = raw.rstrip("\n")
                if line.startswith(marker):
                    say(tag + line)
                else:
                    kept.append(line)

        reader = threading.Thread(target=relay, name="bench-relay", daemon=True)
        reader.start()
        try:
            proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return None
        finally:
            reader.join(10)  # a grandchild still holding the pipe must not hold us
        out.seek(0)
        return proc.returncode, out.read(), "\n".join(kept)


def _bench_versions(versions: list[str], as_json: bool, rounds: int, config_path: str | None) -> int:
    """Each version in a child `mcbot bench bridge --json` with the same config."""
    results = run_per_version("bridge", versions, ["--rounds", str(rounds)], config_path)
    if isinstance(results, int):
        return results
    if as_json:
        print(json.dumps({"versions": results}))
        return 0
    print(
        "bridge benchmark, side by side" + f" (targets: snapshot p50 <= {TARGETS['snapshot_p50_ms']} ms and "
        f">= {TARGETS['snapshot_speedup']:.0f}x, region p50 <= {TARGETS['region_p50_ms']} ms)"
    )
    print(f"{'':32}" + "".join(f"{v:>12}" for v in versions))
    for label, key, fmt in ROWS:
        print(f"{label:32}" + "".join(f"{results[v][key]:>12{fmt}}" for v in versions))
    print(f"{'targets met':32}" + "".join(f"{'yes' if results[v]['targets_met'] else 'NO':>12}" for v in versions))
    return 0
