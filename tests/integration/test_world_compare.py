"""`mcbot world compare` as a user runs it: node counts the embedded world's chunks and the real
vanilla ones (prismarine-provider-anvil's fixtures); the table, the JSON and the PNG."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.one_version(reason="counts chunks offline, no world is started")
def test_world_compare_puts_our_chunks_beside_every_vanilla_sample_and_fails_a_world_without_caves(tmp_path):
    env = {**os.environ, "MCBOT_LOGGING__FILE": ""}
    r = subprocess.run(
        [sys.executable, "-m", "bot", "world", "compare", "--chunks", "4", "--seed", "5", "--out", str(tmp_path)],
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
