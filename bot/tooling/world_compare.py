"""`mcbot world compare`: the embedded world's chunks against real vanilla ones.

node/scripts/world_stats.js counts both the same way (node/lib/world_stats.js): the embedded
world's generator for a seed, and every fully generated chunk of the vanilla region files that
prismarine-provider-anvil ships as test fixtures (1.18.2, 1.19.4, 1.20.6, 1.21.1). Here each
statistic is judged against all the real samples, since they are small and differ:
- caves (air below the ground by height band), water and lava below y 0, and each ore per chunk
  (in all and by band): inside the range the samples span, widened by WIDEN, wherever a sample
  has at least ENOUGH of the thing; present wherever a sample has it at all;
- each ore's height: nearly all of ours (ORE_SHARE) inside the heights where vanilla 1.18+
  places it (VANILLA_ORE_HEIGHTS).
The surface blocks and trees are printed beside them, not judged.
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WIDEN = 1.5
ENOUGH = 20
ORE_SHARE = 0.95
# Where vanilla 1.18+ places each ore (its placed ore features: the lowest and highest y of
# every height distribution of that ore, in the overworld's -64..320).
VANILLA_ORE_HEIGHTS: dict[str, tuple[int, int]] = {
    "coal": (0, 320),
    "iron": (-64, 320),
    "copper": (-16, 112),
    "gold": (-64, 256),
    "redstone": (-64, 15),
    "lapis": (-64, 64),
    "diamond": (-64, 16),
    "emerald": (-16, 320),
}
PASS, FAIL, UNJUDGED = "PASS", "FAIL", "not judged"


@dataclass(frozen=True)
class Row:
    """One statistic: ours, each sample's value and count, the target and the verdict."""

    name: str
    ours: float
    samples: dict[str, float]
    counts: dict[str, int]
    target: str
    verdict: str


def _band_label(stats: dict[str, Any], i: int) -> str:
    lo = stats["minY"] + i * stats["band"]
    return f"y {lo}..{lo + stats['band'] - 1}"


def _ranged(name: str, ours: float, ours_count: int, values: dict[str, float], counts: dict[str, int]) -> Row:
    """The range rule: inside [min / WIDEN, max * WIDEN] of the samples with >= ENOUGH of the
    thing; present where some sample has it but none has ENOUGH."""
    solid = [values[v] for v in values if counts[v] >= ENOUGH]
    if solid:
        lo, hi = min(solid) / WIDEN, max(solid) * WIDEN
        ok = lo <= ours <= hi
        return Row(name, ours, values, counts, f"{lo:.3g}..{hi:.3g}", PASS if ok else FAIL)
    if any(counts.values()):
        return Row(name, ours, values, counts, "present", PASS if ours_count > 0 else FAIL)
    return Row(name, ours, values, counts, "-", UNJUDGED)


def judge(ours: dict[str, Any], vanilla: dict[str, dict[str, Any]]) -> list[Row]:
    rows: list[Row] = []
    n = max(1, ours["chunks"])
    per = {v: max(1, s["chunks"]) for v, s in vanilla.items()}
    # caves: the share of air in the cells below the ground, by band
    for i in range(len(ours["underground"])):
        if not any(s["underground"][i] for s in vanilla.values()):
            continue
        air = {
            v: s["undergroundAir"][i] / s["underground"][i] if s["underground"][i] else 0.0 for v, s in vanilla.items()
        }
        mine = ours["undergroundAir"][i] / ours["underground"][i] if ours["underground"][i] else 0.0
        counts = {v: s["undergroundAir"][i] for v, s in vanilla.items()}
        rows.append(_ranged(f"cave air, {_band_label(ours, i)}", mine, ours["undergroundAir"][i], air, counts))
    for fluid in ("water", "lava"):
        key = f"{fluid}Below0"
        rows.append(
            _ranged(
                f"{fluid} below y 0 per chunk",
                ours[key] / n,
                ours[key],
                {v: s[key] / per[v] for v, s in vanilla.items()},
                {v: s[key] for v, s in vanilla.items()},
            )
        )
    for ore, bands in ours["ores"].items():
        rows.append(
            _ranged(
                f"{ore} ore per chunk",
                sum(bands) / n,
                sum(bands),
                {v: sum(s["ores"][ore]) / per[v] for v, s in vanilla.items()},
                {v: sum(s["ores"][ore]) for v, s in vanilla.items()},
            )
        )
        for i, mine in enumerate(bands):
            counts = {v: s["ores"][ore][i] for v, s in vanilla.items()}
            if not any(counts.values()):
                continue
            values = {v: c / per[v] for v, c in counts.items()}
            rows.append(_ranged(f"{ore} ore per chunk, {_band_label(ours, i)}", mine / n, mine, values, counts))
        rows.append(_ore_height(ore, ours, vanilla))
    return rows


def _ore_height(ore: str, ours: dict[str, Any], vanilla: dict[str, dict[str, Any]]) -> Row:
    lo, hi = VANILLA_ORE_HEIGHTS[ore]
    bands = ours["ores"][ore]
    total = sum(bands)
    inside = sum(c for i, c in enumerate(bands) if lo <= ours["minY"] + i * ours["band"] + ours["band"] // 2 <= hi + 1)
    share = inside / total if total else 0.0
    counts = {v: sum(s["ores"][ore]) for v, s in vanilla.items()}
    name = f"{ore} ore inside vanilla's heights y {lo}..{hi}"
    if not total:
        verdict = FAIL if any(counts.values()) else UNJUDGED
        return Row(name, 0.0, {}, counts, f">= {ORE_SHARE:.0%}" if verdict == FAIL else "-", verdict)
    return Row(name, share, {}, counts, f">= {ORE_SHARE:.0%}", PASS if share >= ORE_SHARE else FAIL)


def surface_mix(stats: dict[str, Any], top: int = 6) -> dict[str, float]:
    total = sum(stats["surface"].values()) or 1
    ranked = sorted(stats["surface"].items(), key=lambda kv: -kv[1])[:top]
    return {name: round(n / total, 3) for name, n in ranked}


def collect(
    node_dir: Path,
    node_bin: str,
    version: str,
    seed: int,
    chunks: int,
    terrain: str = "plains",
    tree_density: float = 0.04,
    timeout_s: float = 600,
) -> dict[str, Any]:
    """The counts of both worlds, from node/scripts/world_stats.js."""
    script = node_dir / "scripts" / "world_stats.js"
    cmd = [node_bin, str(script), "--version", version, "--seed", str(seed), "--chunks", str(chunks)]
    cmd += ["--terrain", terrain, "--tree-density", str(tree_density)]
    out = subprocess.run(cmd, cwd=node_dir, capture_output=True, text=True, timeout=timeout_s, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{script.name} failed ({out.returncode}): {out.stderr.strip()[-500:]}")
    data: dict[str, Any] = json.loads(out.stdout)
    return data


def _num(x: float) -> str:
    return f"{x:.3g}" if x else "0"


def table_lines(rows: list[Row], versions: list[str]) -> list[str]:
    head = ["statistic", "ours", *versions, "target", "verdict"]

    def cell(r: Row, v: str) -> str:  # a sample's value, or its count where the row has none
        return _num(r.samples[v]) if v in r.samples else str(r.counts.get(v, "-"))

    body = [[r.name, _num(r.ours), *(cell(r, v) for v in versions), r.target, r.verdict] for r in rows]
    widths = [max(len(str(line[i])) for line in [head, *body]) for i in range(len(head))]

    def fmt(line: list[str]) -> str:
        return "  ".join(str(c).ljust(w) for c, w in zip(line, widths, strict=True)).rstrip()

    return [fmt(head), fmt(["-" * w for w in widths]), *(fmt(b) for b in body)]


def report(data: dict[str, Any], rows: list[Row]) -> dict[str, Any]:
    ours, vanilla = data["ours"], data["vanilla"]
    return {
        "version": data["version"],
        "seed": data["seed"],
        "terrain": data.get("terrain", "plains"),
        "spawn": ours.get("spawn"),
        "chunks": {"ours": ours["chunks"], **{v: s["chunks"] for v, s in vanilla.items()}},
        "generate_ms": ours.get("generateMs"),
        "plains_generate_ms": ours.get("plainsGenerateMs"),
        "surface": {"ours": surface_mix(ours), **{v: surface_mix(s) for v, s in vanilla.items()}},
        "trees_per_chunk": {
            "ours": round(ours["trees"] / max(1, ours["chunks"]), 2),
            **{v: round(s["trees"] / max(1, s["chunks"]), 2) for v, s in vanilla.items()},
        },
        "rows": [r.__dict__ for r in rows],
        "passed": sum(r.verdict == PASS for r in rows),
        "failed": sum(r.verdict == FAIL for r in rows),
    }
