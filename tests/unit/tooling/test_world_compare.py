"""The judgement of `mcbot world compare` on made-up counts (the counting itself is tested on real
vanilla chunks in node/test/world_stats.test.js)."""

from __future__ import annotations

from typing import Any

from bot.tooling.world_compare import FAIL, PASS, UNJUDGED, judge, report, table_lines

BANDS = 24
ORES = ["coal", "iron", "copper", "gold", "redstone", "lapis", "diamond", "emerald"]


def stats(chunks: int = 10, air: float = 0.1, water: int = 0, lava: int = 0, **ores: dict[int, int]) -> dict[str, Any]:
    """`chunks` chunks with 1000 cells under the ground in each band below y 64 (bands 0..7),
    `air` of them air; ores: name -> {band: blocks}."""
    under = [1000 if i < 8 else 0 for i in range(BANDS)]
    return {
        "chunks": chunks,
        "band": 16,
        "minY": -64,
        "underground": under,
        "undergroundAir": [round(u * air) for u in under],
        "waterBelow0": water,
        "lavaBelow0": lava,
        "ores": {o: [ores.get(o, {}).get(i, 0) for i in range(BANDS)] for o in ORES},
        "surface": {"grass_block": 200, "water": 56},
        "trees": 30,
    }


def row(rows, name):
    return next(r for r in rows if r.name == name)


def test_a_statistic_inside_the_widened_range_of_the_real_samples_passes_outside_it_fails():
    vanilla = {"a": stats(air=0.1, lava=200), "b": stats(air=0.2, lava=400)}
    # the range 0.1/1.5 .. 0.2*1.5 for caves; lava 20..40 per chunk, widened to 13.3..60
    rows = judge(stats(air=0.25, lava=500), vanilla)
    caves = row(rows, "cave air, y -64..-49")
    assert caves.verdict == PASS and caves.target == "0.0667..0.3"
    assert judge(stats(air=0.35), vanilla)[0].verdict == FAIL
    assert judge(stats(air=0.05), vanilla)[0].verdict == FAIL
    assert row(rows, "lava below y 0 per chunk").verdict == PASS
    assert row(judge(stats(lava=0), vanilla), "lava below y 0 per chunk").verdict == FAIL


def test_too_few_in_every_sample_asks_only_for_presence_and_none_anywhere_is_not_judged():
    vanilla = {"a": stats(water=5), "b": stats(water=12)}  # under 20 in each: presence only
    assert row(judge(stats(water=1), vanilla), "water below y 0 per chunk").verdict == PASS
    absent = row(judge(stats(water=0), vanilla), "water below y 0 per chunk")
    assert absent.verdict == FAIL and absent.target == "present"
    assert row(judge(stats(), vanilla), "emerald ore per chunk").verdict == UNJUDGED
    # a band no sample has is not a row at all
    assert not any(r.name.startswith("cave air, y 64") for r in judge(stats(), vanilla))


def test_ores_are_judged_in_all_by_band_and_by_vanilla_heights():
    vanilla = {"a": stats(diamond={0: 60, 3: 30}), "b": stats(diamond={0: 80, 3: 20})}
    good = judge(stats(diamond={0: 70, 3: 25}), vanilla)
    assert row(good, "diamond ore per chunk").verdict == PASS
    assert row(good, "diamond ore per chunk, y -64..-49").verdict == PASS
    assert row(good, "diamond ore inside vanilla's heights y -64..16").verdict == PASS
    # the same count, but up in the hills where vanilla never puts a diamond
    high = judge(stats(diamond={8: 70, 9: 25}), vanilla)
    assert row(high, "diamond ore per chunk").verdict == PASS
    assert row(high, "diamond ore per chunk, y -64..-49").verdict == FAIL
    assert row(high, "diamond ore inside vanilla's heights y -64..16").verdict == FAIL
    missing = row(judge(stats(), vanilla), "diamond ore inside vanilla's heights y -64..16")
    assert missing.verdict == FAIL


def test_the_report_counts_verdicts_and_the_table_puts_every_sample_side_by_side():
    vanilla = {"1.18.2": stats(air=0.1), "1.21.1": stats(air=0.2)}
    data = {"version": "26.1", "seed": 3, "ours": stats(air=0.9), "vanilla": vanilla}
    rows = judge(data["ours"], vanilla)
    result = report(data, rows)
    assert result["failed"] == sum(r.verdict == FAIL for r in rows) > 0
    assert result["surface"]["ours"] == {"grass_block": 0.781, "water": 0.219}
    assert result["trees_per_chunk"] == {"ours": 3.0, "1.18.2": 3.0, "1.21.1": 3.0}
    lines = table_lines(rows, ["1.18.2", "1.21.1"])
    assert lines[0].split() == ["statistic", "ours", "1.18.2", "1.21.1", "target", "verdict"]
    assert "0.9" in lines[2] and "0.1" in lines[2] and "0.2" in lines[2] and lines[2].endswith(FAIL)
