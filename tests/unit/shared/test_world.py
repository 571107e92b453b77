import json

import pytest
from pydantic import ValidationError

from agency.world import BlockRegion, BodyEvent, EventType, WorldSnapshot, under_cover_at_night

SNAP = {
    "health": 20,
    "food": 20,
    "saturation": 5.0,
    "gameMode": "survival",
    "dimension": "overworld",
    "timeOfDay": 6000,
    "isDay": True,
    "isSleeping": False,
    "oxygen": 20,
    "inWall": False,
    "cover": 0,
    "position": {"x": 1.5, "y": 64, "z": -3},
    "inventory": [{"name": "oak_log", "count": 3}, {"name": "birch_log", "count": 2}, {"name": "dirt", "count": 9}],
    "entities": [
        {"name": "zombie", "type": "hostile", "hostile": True, "distance": 7.5, "position": {"x": 5, "y": 64, "z": 1}}
    ],
    "hostiles": 1,
    "ts": 1700000000000,
}


def test_snapshot_parses_bridge_json():
    s = WorldSnapshot.model_validate_json(json.dumps(SNAP))
    assert s.health == 20 and s.food == 20 and s.gameMode == "survival"
    assert s.position.z == -3
    assert s.entities[0].hostile and s.hostiles == 1
    assert s.count_of("oak_log") == 3 and s.count_matching("_log") == 5


def test_snapshot_keeps_camelcase_keys_on_dump():
    dumped = WorldSnapshot.model_validate(SNAP).model_dump(mode="json")
    assert set(SNAP) == set(dumped)


@pytest.mark.parametrize("field,value", [("gameMode", "hardcore"), ("health", 21), ("food", -1), ("timeOfDay", 24000)])
def test_snapshot_rejects_out_of_contract_values(field, value):
    with pytest.raises(ValidationError) as e:
        WorldSnapshot.model_validate({**SNAP, field: value})
    assert field in str(e.value)


def test_snapshot_requires_every_key():
    partial = dict(SNAP)
    del partial["isDay"]
    with pytest.raises(ValidationError, match="isDay"):
        WorldSnapshot.model_validate(partial)


def test_block_region_block_at_uses_world_coordinates():
    # 2x2x2 at origin (10, 60, -5); data ordered y, z, x
    reg = BlockRegion(
        origin=(10, 60, -5), size=(2, 2, 2), palette=["stone", "air", None], data=[0, 0, 0, 2, 1, 1, 1, 0]
    )
    assert reg.block_at(10, 60, -5) == "stone"
    assert reg.block_at(11, 60, -4) is None  # unloaded
    assert reg.block_at(10, 61, -5) == "air"
    assert reg.block_at(11, 61, -4) == "stone"
    assert reg.block_at(12, 60, -5) is None  # outside
    assert reg.count("stone") == 4


def test_block_region_rejects_wrong_data_length():
    with pytest.raises(ValidationError, match="needs 8"):
        BlockRegion(origin=(0, 0, 0), size=(2, 2, 2), palette=["air"], data=[0] * 7)


def test_block_region_rejects_index_past_palette():
    with pytest.raises(ValidationError, match="palette"):
        BlockRegion(origin=(0, 0, 0), size=(1, 1, 1), palette=["air"], data=[1])


def test_body_event_types_are_closed():
    assert BodyEvent.model_validate({"type": "health", "ts": 1, "data": {"health": 3}}).type is EventType.health
    with pytest.raises(ValidationError):
        BodyEvent.model_validate({"type": "teleport", "ts": 1})


@pytest.mark.parametrize(
    ("time_of_day", "is_day", "cover", "expected"),
    [
        (18000, False, 1, True),  # night, a roof over the head
        (12600, True, 3, True),  # dusk counts as night approaching
        (18000, False, 0, False),  # night in the open
        (18000, False, None, False),  # cover not read
        (6000, True, 5, False),  # noon underground
    ],
)
def test_under_cover_at_night(time_of_day, is_day, cover, expected):
    snap = WorldSnapshot.model_validate({**SNAP, "timeOfDay": time_of_day, "isDay": is_day, "cover": cover})
    assert under_cover_at_night(snap) is expected
