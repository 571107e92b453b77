"""`mcbot world compare` as a user runs it: node counts the embedded world's chunks and the real
vanilla ones (prismarine-provider-anvil's fixtures); the table, the JSON and the PNG."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

COMPARE = [sys.executable, "-m", "bot", "world", "compare", "--chunks", "64"]


@pytest.mark.one_version(reason="counts chunks offline, no world is started")
def test_world_compare_puts_our_chunks_beside_every_vanilla_sample_and_fails_a_world_without_caves(tmp_path):
    env = {**os.environ, "MCBOT_LOGGING__FILE": ""}
    r = subprocess.run(
        [*COMPARE[:-1], "4", "--terrain", "plains", "--seed", "5", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=300,
    )
    # the plains world has no caves, no water or lava below y 0, no copper, gold, redstone,
    # lapis or diamond: outside vanilla's range, exit 1
    assert r.returncode == 1, r.stderr
    head = r.stdout.splitlines()[1].split()
    assert head == ["statistic", "ours", "1.18.2", "1.19.4", "1.20.6", "1.21.1", "target", "verdict"]
    report = json.loads((tmp_path / "world-compare.json").read_text())
    assert report["chunks"] == {"ours": 4, "1.18.2": 27, "1.19.4": 144, "1.20.6": 16, "1.21.1": 16}
    rows = {row["name"]: row for row in report["rows"]}
    assert rows["diamond ore per chunk"]["verdict"] == "FAIL" and rows["diamond ore per chunk"]["ours"] == 0
    assert rows["coal ore per chunk"]["samples"]["1.21.1"] > 20
    assert (tmp_path / "world-compare.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.one_version(reason="counts chunks offline, no world is started")
def test_the_caves_terrain_has_vanillas_caves_fluids_and_ores_per_chunk(tmp_path):
    r = subprocess.run(
        [*COMPARE, "--terrain", "caves", "--seed", "5", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "MCBOT_LOGGING__FILE": ""},
        timeout=300,
    )
    assert r.returncode in (0, 1), r.stderr
    assert "ours: caves terrain, seed 5" in r.stdout
    rows = {row["name"]: row for row in json.loads((tmp_path / "world-compare.json").read_text())["rows"]}
    # the caves from the bedrock up to y 47, water and lava below y 0, and each ore's total per
    # chunk, inside the real samples' range (the bands above depend on how hilly the ground is)
    judged = [n for n in rows if n.startswith(("cave air, y -", "cave air, y 0."))]
    judged += ["cave air, y 16..31", "cave air, y 32..47", "water below y 0 per chunk", "lava below y 0 per chunk"]
    judged += [f"{ore} ore per chunk" for ore in ("coal", "iron", "copper", "gold", "redstone", "lapis", "diamond")]
    outside = {n: (rows[n]["ours"], rows[n]["target"]) for n in judged if rows[n]["verdict"] != "PASS"}
    assert len(judged) == 16 and not outside, outside


@pytest.mark.one_version(reason="argument checking, no world")
def test_world_compare_refuses_a_bad_chunk_count_with_exit_4():
    r = subprocess.run(
        [sys.executable, "-m", "bot", "world", "compare", "--chunks", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert r.returncode == 4 and "--chunks" in r.stderr
