"""`mcbot bench plans` (bot/tooling/bench_plans.py): every item of a version planned from two
starts, the refusals counted by kind, the target judged on p95."""

from __future__ import annotations

import json

from bot.tooling.bench_plans import STARTS, bench_plans, bench_version


def test_every_item_is_planned_or_refused_from_both_starts():
    rows = bench_version("1.18.2")
    assert [r["start"] for r in rows] == list(STARTS)
    for r in rows:
        assert r["planned"] + r["refused"] == r["items"] > 1000
        assert r["planned"] > 500  # tools, ingots, bricks, dyes from flowers, books from leather...
        assert "found only in" in r["refusedBy"]  # the nether's and the end's
        assert 0 < r["p50Ms"] <= r["p95Ms"]


def test_the_table_and_the_target_are_printed():
    said: list[str] = []
    code = bench_plans(("1.18.2",), as_json=True, say=said.append)
    assert said[0].split()[:4] == ["version", "start", "items", "planned"]
    assert said[-2].startswith("target: plan p95 <= 50 ms: worst ")
    verdict = json.loads(said[-1])["target"]["verdict"]
    assert code == (0 if verdict == "pass" else 1)
