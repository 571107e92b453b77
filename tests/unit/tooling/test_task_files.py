"""MineCollab-format task files (bot/tooling/task_files.py) and the bench's report
(bot/tooling/bench_tasks.py): what is read, what is refused naming file, task and field,
what is invalid at a version, and how the rates and targets are judged."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bot.tooling.bench_tasks import (
    BenchTasksSettings,
    TaskResult,
    bench_tasks,
    rate_lines,
    table_lines,
    verdicts,
)
from bot.tooling.competence import FAIL, NOT_JUDGED, PASS
from bot.tooling.task_files import TaskFileError, load_task_files

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "tasks"


def _write(tmp_path: Path, doc: object, name: str = "t.json") -> Path:
    p = tmp_path / name
    p.write_text(json.dumps(doc))
    return p


def test_our_task_files_load_at_every_version_with_nothing_invalid():
    files = sorted(FIXTURES.glob("*.json"))
    assert {f.stem for f in files} >= {"voyager_techtree", "voyager_zero_shot", "crafting", "crafting_fleet", "short"}
    for version in ("26.1", "1.21.11", "1.21.4", "1.18.2"):
        loaded = load_task_files(files, version)
        assert loaded.tasks and not [t.id for t in loaded.tasks if t.invalid], version
        assert loaded.ignored_fields == {"goal"}
    zero = load_task_files([FIXTURES / "voyager_zero_shot.json"], "26.1").tasks
    assert sorted(t.target for t in zero) == ["compass", "diamond_pickaxe", "golden_sword", "lava_bucket"]
    assert all(t.agents == ({},) for t in zero)  # from empty hands


def test_a_task_is_read_with_its_defaults_and_unused_fields_reported_once(tmp_path):
    doc = {
        "gather_oak_logs": {
            "goal": "Collect at least four logs",
            "initial_inventory": {"0": {"wooden_axe": 1}},
            "agent_count": 1,
            "target": "oak_log",
            "number_of_target": 4,
            "type": "techtree",
            "timeout": 300,
            "blocked_actions": {"0": [], "1": []},
            "missing_items": [],
            "requires_ctable": False,
        },
        "bare": {"target": "stick"},
    }
    loaded = load_task_files([_write(tmp_path, doc)], "26.1")
    first, bare = loaded.tasks
    assert (first.target, first.count, first.agents, first.timeout_s, first.kind) == (
        "oak_log", 4, ({"wooden_axe": 1},), 300, "techtree"
    )  # fmt: skip
    assert (bare.count, bare.agents, bare.timeout_s) == (1, ({},), 300)
    assert loaded.ignored_fields == {"goal", "blocked_actions", "missing_items", "requires_ctable"}


def test_a_name_the_version_lacks_makes_the_task_invalid_not_the_file(tmp_path):
    doc = {"old": {"target": "wooden_door", "initial_inventory": {"0": {"planks": 6}}}, "ok": {"target": "oak_door"}}
    old, ok = load_task_files([_write(tmp_path, doc)], "26.1").tasks
    assert old.invalid and old.unknown_items == ("wooden_door", "planks")
    assert not ok.invalid


@pytest.mark.parametrize(
    ("task", "field"),
    [
        ({"number_of_target": 2}, "target"),
        ({"target": "stick", "number_of_target": 0}, "number_of_target"),
        ({"target": "stick", "number_of_target": 2305}, "number_of_target"),
        ({"target": "stick", "number_of_target": "4"}, "number_of_target"),
        ({"target": "stick", "agent_count": 9}, "agent_count"),
        ({"target": "stick", "timeout": True}, "timeout"),
        ({"target": "stick", "initial_inventory": {"1": {"stick": 1}}}, "initial_inventory"),
        ({"target": "stick", "initial_inventory": {"0": {"stick": -1}}}, "initial_inventory.0.stick"),
        ({"target": "stick", "initial_inventory": {"0": ["stick"]}}, "initial_inventory.0"),
        ({"target": "stick", "type": 3}, "type"),
    ],
)
def test_a_malformed_task_names_the_file_the_task_and_the_field(tmp_path, task, field):
    path = _write(tmp_path, {"a_task": task})
    with pytest.raises(TaskFileError) as e:
        load_task_files([path], "26.1")
    assert str(e.value).startswith(f"{path}: task 'a_task': field {field!r}: ")


def test_a_file_that_is_no_task_file_is_named(tmp_path):
    for doc, why in (([1, 2], "a JSON object of tasks"), ({}, "a JSON object of tasks")):
        with pytest.raises(TaskFileError, match=why):
            load_task_files([_write(tmp_path, doc)], "26.1")
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(TaskFileError, match=r"broken.json: not JSON \(line 1"):
        load_task_files([broken], "26.1")
    with pytest.raises(TaskFileError, match="cannot be read"):
        load_task_files([tmp_path / "absent.json"], "26.1")


def test_a_malformed_file_exits_4_before_any_daemon_starts(tmp_path):
    said: list[str] = []
    path = _write(tmp_path, {"x": {"target": "stick", "agent_count": 0}})
    code = bench_tasks(BenchTasksSettings(files=(str(path),), out=str(tmp_path / "out")), say=said.append)
    assert code == 4 and "field 'agent_count'" in said[0] and not (tmp_path / "out").exists()


def test_invalid_tasks_are_reported_and_not_counted(tmp_path):
    said: list[str] = []
    path = _write(tmp_path, {"old": {"target": "wooden_door"}})
    code = bench_tasks(BenchTasksSettings(files=(str(path),), out=str(tmp_path / "out")), say=said.append)
    assert code == 0  # nothing judged
    assert any("old: invalid (26.1 has no wooden_door)" in line for line in said)
    report = json.loads(next((tmp_path / "out").glob("tasks-*.json")).read_text())
    assert report["tasks"][0]["invalid"] is True and report["files"] == {}
    assert [v["verdict"] for v in report["targets"]] == [NOT_JUDGED] * 3


def _r(id_: str, bots: int, ok: bool, kind: str = "crafting", file: str = "a.json") -> TaskResult:
    return TaskResult(file, id_, kind, bots, "stick", 1, ok, 12.0, "" if ok else "task failed: no sheep")


def test_rates_and_targets_by_bot_count():
    results = [_r(f"s{i}", 1, i != 0) for i in range(20)] + [_r("m1", 2, True), _r("m2", 3, False, file="b.json")]
    judged = {v["target"]: v for v in verdicts(results)}
    assert judged["single-bot tasks done"]["got"] == 0.95 and judged["single-bot tasks done"]["verdict"] == PASS
    assert judged["2-bot tasks done"]["verdict"] == PASS and judged["3-bot tasks done"]["verdict"] == FAIL
    lines = rate_lines(results)
    assert "  by file a.json: 20/21 = 95 %" in lines and "  by file b.json: 0/1 = 0 %" in lines
    table = table_lines(results)
    assert table[0].split()[:4] == ["task", "kind", "bots", "success"]
    assert table[1].endswith("task failed: no sheep") and " no " in table[1]


def test_only_naming_no_task_of_the_files_exits_4_naming_it_and_runs_nothing(tmp_path):
    said: list[str] = []
    settings = BenchTasksSettings(
        files=(str(FIXTURES / "short.json"),), only=("lava_bucket",), out=str(tmp_path / "out")
    )
    assert bench_tasks(settings, say=said.append) == 4
    assert "--only names no task of the files: lava_bucket (their tasks: craft_torches" in said[-1]
    assert not (tmp_path / "out").exists()  # nothing started
