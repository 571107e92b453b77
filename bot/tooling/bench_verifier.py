"""`mcbot bench verifier`: verify_shelter_v0 on a REAL region read.

On a fresh embedded world: a flat pad far from spawn, a basic shelter built there with op
commands (/mcbot fill, /mcbot setblock) exactly as the blueprint lays it out, then rounds of
[one region read of footprint + 8 -> verify_shelter_v0]. Each round must say done; the
target is the p50 of the whole round (read included) <= 20 ms.
"""

from __future__ import annotations

import json
import time
from typing import Any

from agency.shelter.blueprint import basic_shelter
from agency.shelter.site_check import read_bounds, read_site
from agency.shelter.verifier import verify_shelter_v0
from agency.stats import percentile
from agency.world import EventType
from bot.config.loader import McbotConfig
from bot.runtime.server import EmbeddedServer, free_port, settings_from_config
from bot.runtime.session import live_session
from bot.tooling.bench import wait_for

TARGET_P50_MS = 20.0
ORIGIN = (600, 70, -600)  # far from spawn: the pad, the hut and nothing else in the read


def _sample_percentile(samples: list[float], q: float) -> float:
    """The q-th percentile of a bench's samples (never empty: every bench runs at least one round)."""
    value = percentile(samples, q)
    assert value is not None
    return value


def bench_verifier(cfg: McbotConfig, as_json: bool = False, rounds: int = 200) -> int:
    port = free_port()
    fresh = cfg.server.model_copy(update={"world_folder": ""})  # a fresh world in memory, never the kept one
    server = EmbeddedServer(settings_from_config(fresh, port=port), node_bin=cfg.bridge.node_bin)
    server.start()
    try:
        with live_session(cfg, embedded=False, host="127.0.0.1", port=port) as s:
            result = _measure(s.body, rounds)
    finally:
        server.stop()
    print(json.dumps(result) if as_json else _table(result))
    return 0 if result["all_done"] else 1


def _op(body: Any, command: str) -> None:
    """One op command, waiting for the server's reply: a big fill still running when the
    next command lands would overwrite it."""
    body.events()
    body.chat(command)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if any(e.type is EventType.chat for e in body.events()):
            return
        time.sleep(0.05)
    raise RuntimeError(f"bench setup: no reply to {command}")


def build_with_op_commands(body: Any, origin: tuple[int, int, int] = ORIGIN) -> Any:
    """Pad, then the blueprint's blocks: walls as a filled box hollowed out, roof, door
    (both halves), torch. Returns the blueprint."""
    bp = basic_shelter(origin, "south")
    x0, y0, z0 = origin
    _op(body, f"/mcbot fill {x0 - 10} {y0 - 1} {z0 - 10} {x0 + 14} {y0 - 1} {z0 + 14} stone")
    _op(body, f"/mcbot fill {x0 - 10} {y0} {z0 - 10} {x0 + 14} {y0 + 11} {z0 + 14} air")
    _op(body, f"/mcbot tp @s {x0 + 2} {y0} {z0 + 8}")
    wait_for(lambda: abs(body.snapshot().position.z - (z0 + 8.5)) < 1.5, 15, "the teleport")
    _op(body, f"/mcbot fill {x0} {y0} {z0} {x0 + 4} {y0 + 3} {z0 + 4} oak_planks")
    _op(body, f"/mcbot fill {x0 + 1} {y0} {z0 + 1} {x0 + 3} {y0 + 2} {z0 + 3} air")
    assert bp.site.entrance is not None  # a shelter's blueprint has its door
    ex, ey, ez = bp.site.entrance
    _op(body, f"/mcbot setblock {ex} {ey} {ez} oak_door[facing=south,half=lower,open=false]")
    _op(body, f"/mcbot setblock {ex} {ey + 1} {ez} oak_door[facing=south,half=upper,open=false]")
    _op(body, f"/mcbot setblock {x0 + 1} {y0} {z0 + 1} torch")
    wait_for(lambda: verify_shelter_v0(read_site(body, bp.site), bp.site).done, 20, "the shelter to verify")
    return bp


def _measure(body: Any, rounds: int) -> dict[str, Any]:
    bp = build_with_op_commands(body)
    site = bp.site
    for _ in range(10):  # warm-up
        verify_shelter_v0(read_site(body, site), site)
    read_ms, verify_ms, total_ms, done = [], [], [], 0
    for _ in range(rounds):
        t0 = time.perf_counter()
        region = read_site(body, site)
        t1 = time.perf_counter()
        verdict = verify_shelter_v0(region, site, completed_modules=bp.total_modules, total_modules=bp.total_modules)
        t2 = time.perf_counter()
        done += verdict.done
        read_ms.append((t1 - t0) * 1000)
        verify_ms.append((t2 - t1) * 1000)
        total_ms.append((t2 - t0) * 1000)
    b = read_bounds(site)
    blocks = 1
    for lo, hi in zip(b.min, b.max, strict=True):
        blocks *= hi - lo + 1
    result: dict[str, Any] = {
        "rounds": rounds,
        "region_blocks": blocks,
        "verify_p50_ms": round(_sample_percentile(total_ms, 0.5), 3),  # read + verify: the number judged
        "verify_p95_ms": round(_sample_percentile(total_ms, 0.95), 3),
        "region_read_p50_ms": round(_sample_percentile(read_ms, 0.5), 3),
        "region_read_p95_ms": round(_sample_percentile(read_ms, 0.95), 3),
        "verify_only_p50_ms": round(_sample_percentile(verify_ms, 0.5), 3),
        "verify_only_p95_ms": round(_sample_percentile(verify_ms, 0.95), 3),
        "all_done": done == rounds,
        "score": verdict.score,
    }
    result["target_met"] = result["verify_p50_ms"] <= TARGET_P50_MS
    return result


def _table(r: dict[str, Any]) -> str:
    rows = [
        f"verify_shelter_v0 on a real region (footprint + 8 = {r['region_blocks']} blocks), {r['rounds']} rounds",
        f"{'':34}{'p50 ms':>10}{'p95 ms':>10}",
        f"{'region read (1 bridge call)':34}{r['region_read_p50_ms']:>10.3f}{r['region_read_p95_ms']:>10.3f}",
        f"{'verify_shelter_v0 only':34}{r['verify_only_p50_ms']:>10.3f}{r['verify_only_p95_ms']:>10.3f}",
        f"{'read + verify':34}{r['verify_p50_ms']:>10.3f}{r['verify_p95_ms']:>10.3f}",
        f"every round done: {r['all_done']} (score {r['score']})",
        f"target read + verify p50 <= {TARGET_P50_MS} ms: {'met' if r['target_met'] else 'NOT MET'}",
    ]
    return "\n".join(rows)
