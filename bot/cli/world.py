"""`mcbot world compare`: the embedded world's chunks next to real vanilla ones
(bot/tooling/world_compare.py says what is counted and how it is judged).

Prints the table, writes world-compare.json and world-compare.png in --out. Exit codes: 0 every
judged statistic inside vanilla's range, 1 one is not, 3 the counting failed (node), 4 invalid
arguments.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.cli import values as val
from bot.cli.exit_codes import EXIT_FAILURE, EXIT_INIT, EXIT_OK

if TYPE_CHECKING:
    from bot.config.loader import McbotConfig


def add_world_commands(sub: Any) -> None:
    world = sub.add_parser("world", help="the embedded world itself")
    world_sub = world.add_subparsers(dest="world_command", required=True)
    cmp = world_sub.add_parser(
        "compare",
        help="the embedded world's chunks next to real vanilla chunks: caves, fluids, ores, surface, trees",
    )
    cmp.add_argument("--seed", type=val.integer, default=1, help="the embedded world's seed (default 1)")
    cmp.add_argument("--chunks", type=val.positive_int, default=64, help="chunks of ours to count (default 64)")
    cmp.add_argument("--version", type=val.embedded_version, help="the registry to generate ours in (default: config)")
    cmp.add_argument("--terrain", choices=("plains", "caves"), help="the embedded world's ground (default: config)")
    cmp.add_argument("--out", type=Path, default=Path("bench-results"), help="folder for the JSON and the PNG")
    cmp.add_argument("--json", action="store_true", help="print the JSON report instead of the table")


def cmd_world(args: Any, cfg: McbotConfig, _loaded: Any) -> int:
    from bot.runtime.bridge import NODE_DIR
    from bot.runtime.node_runtime import NodeRuntimeError, resolve_node_bin
    from bot.tooling.world_compare import FAIL, collect, judge, report, table_lines
    from bot.tooling.world_compare_chart import write_chart

    version = args.version or cfg.server.embedded_version
    terrain = args.terrain or cfg.server.terrain
    try:
        node = resolve_node_bin(cfg.bridge.node_bin)
        data = collect(NODE_DIR, node, version, args.seed, args.chunks, terrain, cfg.server.tree_density)
    except (NodeRuntimeError, RuntimeError, OSError, ValueError) as e:
        print(f"mcbot: world compare: {e}", file=sys.stderr)
        return EXIT_INIT
    rows = judge(data["ours"], data["vanilla"])
    result = report(data, rows)
    args.out.mkdir(parents=True, exist_ok=True)
    json_path, png_path = args.out / "world-compare.json", args.out / "world-compare.png"
    json_path.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    write_chart(data, png_path)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        versions = list(data["vanilla"])
        chunks = ", ".join(f"{v} {n}" for v, n in result["chunks"].items())
        spawn = result.get("spawn") or {}
        around = f" around the spawn at x {spawn['x']}, z {spawn['z']}" if spawn else ""
        print(f"[World compare] ours: {terrain} terrain, seed {args.seed}, {version}{around}; chunks counted: {chunks}")
        for line in table_lines(rows, versions):
            print(line)
        print(f"surface blocks: {json.dumps(result['surface'])}")
        print(f"trees per chunk: {json.dumps(result['trees_per_chunk'])}")
        ms, plains = result["generate_ms"] or {}, result["plains_generate_ms"] or {}
        print(
            f"ours generated in p50 {ms.get('p50', 0):.1f} ms, p95 {ms.get('p95', 0):.1f} ms a chunk"
            f" (the plains generator in the same run: p50 {plains.get('p50', 0):.1f} ms,"
            f" p95 {plains.get('p95', 0):.1f} ms)"
        )
        print(f"{result['passed']} statistics inside vanilla's range, {result['failed']} outside")
        print(f"wrote {json_path} and {png_path}")
    return EXIT_FAILURE if any(r.verdict == FAIL for r in rows) else EXIT_OK
