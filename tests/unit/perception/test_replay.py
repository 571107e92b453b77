import json

import pytest

from agency.perception.replay import Recording, ReplayBody, ReplayFormatError
from agency.world import ActionState, BodyError, EventType
from tests.conftest import replay_fixture
from tests.unit.shared.test_world import SNAP


def _write(tmp_path, lines):
    p = tmp_path / "rec.jsonl"
    p.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    return p


HEADER = {"kind": "header", "format": 1, "startedAt": 1000, "versions": {"minecraft": "1.18.2"}, "config": {}}


def _recording(tmp_path):
    return _write(
        tmp_path,
        [
            HEADER,
            {"kind": "snapshot", "t": 0, "data": SNAP},
            {"kind": "event", "t": 500, "data": {"type": "health", "ts": 1500, "data": {"health": 16}}},
            {"kind": "snapshot", "t": 1000, "data": {**SNAP, "health": 16}},
            {"kind": "event", "t": 1500, "data": {"type": "death", "ts": 2500, "data": {}}},
            {
                "kind": "region",
                "t": 1000,
                "data": {"origin": [0, 0, 0], "size": [2, 1, 1], "palette": ["dirt"], "data": [0, 0]},
            },
            {
                "kind": "action",
                "t": 1200,
                "data": {
                    "id": "a1",
                    "kind": "dig",
                    "state": "done",
                    "startedAt": 1,
                    "endedAt": 2,
                    "result": {"dug": "dirt"},
                },
            },
        ],
    )


def test_replay_snapshot_follows_injected_clock(tmp_path):
    now = {"t": 0}
    body = ReplayBody(_recording(tmp_path), clock=lambda: now["t"])
    assert body.snapshot().health == 20
    now["t"] = 999
    assert body.snapshot().health == 20
    now["t"] = 1000
    assert body.snapshot().health == 16


def test_replay_events_are_delivered_once_in_time_windows(tmp_path):
    now = {"t": 600}
    body = ReplayBody(_recording(tmp_path), clock=lambda: now["t"])
    assert [e.type for e in body.events()] == [EventType.health]
    assert body.events() == []
    now["t"] = 5000
    assert [e.type for e in body.events()] == [EventType.death]


def test_replay_is_deterministic_across_instances(tmp_path):
    path = _recording(tmp_path)

    def run():
        now = {"t": 0}
        body = ReplayBody(path, clock=lambda: now["t"])
        out = []
        for t in range(0, 2000, 100):
            now["t"] = t
            out.append((body.snapshot().model_dump_json(), [e.model_dump_json() for e in body.events()]))
        return out

    assert run() == run()


def test_replay_region_and_action_results(tmp_path):
    now = {"t": 0}
    body = ReplayBody(_recording(tmp_path), clock=lambda: now["t"])
    with pytest.raises(BodyError):
        body.region((0, 0, 0), (1, 1, 1))
    now["t"] = 1000
    assert body.region((1, 0, 0), (1, 1, 1)).block_at(1, 0, 0) == "dirt"
    started = body.start_action("dig", {"x": 0, "y": 0, "z": 0})
    assert started.state is ActionState.running
    assert body.poll_action(started.id).result == {"dug": "dirt"}
    with pytest.raises(BodyError, match="no further 'dig'"):
        body.start_action("dig", {})


def test_replay_rejects_malformed_line_naming_file_and_line(tmp_path):
    p = _write(tmp_path, [HEADER, {"kind": "snapshot", "t": 0, "data": {**SNAP, "food": 99}}])
    with pytest.raises(ReplayFormatError, match=r"rec.jsonl:2: .*food"):
        Recording(p)


def test_replay_requires_header(tmp_path):
    p = _write(tmp_path, [{"kind": "snapshot", "t": 0, "data": SNAP}])
    with pytest.raises(ReplayFormatError, match=r"rec.jsonl:1"):
        Recording(p)


def test_each_versions_fixture_set_was_recorded_at_that_version(replay_version):
    for name in ("day_to_dusk", "taking_damage"):
        rec = Recording(replay_fixture(replay_version, name))
        assert rec.header.versions["minecraft"] == replay_version
        assert rec.duration_ms > 10_000
