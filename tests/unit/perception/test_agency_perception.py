"""Perception: stimulus derivation, awareness thoughts, saliency dedup (docs/contracts.md
KEEPALIVE-6, KEEPALIVE-7)."""

from __future__ import annotations

import pytest

from agency.perception.stimuli import Perception, PerceptionConfig, content_hash, describe_entities
from agency.world import BodyEvent, EntityInfo, EventType, Vec3, WorldSnapshot


def ent(name, hostile=False, distance=5.0):
    return EntityInfo(name=name, type="mob", hostile=hostile, distance=distance, position=Vec3(x=0, y=64, z=0))


def kinds(update):
    return [s.kind for s in update.stimuli]


def msgs(logs):
    return [m for _, m in logs]


@pytest.fixture
def published():
    return []


@pytest.fixture
def perception(clock, published):
    return Perception(clock, publish=published.append)


def test_awareness_is_factual_and_never_convertible(perception, make_snapshot, published):
    snap = make_snapshot(entities=[ent("cow"), ent("cow"), ent("zombie", hostile=True)], hostiles=1)
    upd = perception.observe(snap)
    t = upd.awareness
    assert t.content == "2 cows and 1 zombie nearby."
    assert t.type == "environmental_awareness" and t.convertEligible is False and t.processed is False
    assert t.metadata.source == "perception" and t.metadata.entityCounts == {"cow": 2, "zombie": 1}
    assert published == [t]


def test_describe_entities_lists_and_pluralizes():
    base = {
        "health": 20,
        "food": 20,
        "gameMode": "survival",
        "dimension": "overworld",
        "timeOfDay": 0,
        "isDay": True,
        "position": Vec3(x=0, y=0, z=0),
        "hostiles": 0,
        "ts": 0,
    }
    assert describe_entities(WorldSnapshot(**base), 32)[0] == "No creatures nearby."
    snap = WorldSnapshot(**base, entities=[ent("sheep"), ent("sheep"), ent("pig"), ent("cow"), ent("far", distance=99)])
    assert describe_entities(snap, 32)[0] == "2 sheep, 1 cow and 1 pig nearby."


def test_KA_A7_identical_awareness_suppressed_inside_30s_window_boundary(
    perception, clock, make_snapshot, logs, published
):
    snap = make_snapshot(entities=[ent("cow"), ent("cow")])
    assert perception.observe(snap).awareness is not None
    h = content_hash("2 cows nearby.")
    clock.advance(29_999)
    assert perception.observe(snap).awareness is None
    assert f"[Saliency] awareness_suppressed reason=dedup window_ms=30000 content_hash={h}" in msgs(logs)
    clock.advance(1)  # exactly 30 000 ms after the last published one
    assert perception.observe(snap).awareness is not None
    assert len(published) == 2


def test_KA_A7_stable_scene_coalesces_to_one_per_30s(perception, clock, make_snapshot, published):
    snap = make_snapshot(entities=[ent("cow")] * 3)
    for _ in range(60):  # 10 minutes, a snapshot every 10 s
        perception.observe(snap)
        clock.advance(10_000)
    assert len(published) == 20  # 600 s / 30 s


def test_different_content_is_not_suppressed(perception, clock, make_snapshot, published):
    perception.observe(make_snapshot(entities=[ent("cow")]))
    perception.observe(make_snapshot(entities=[ent("cow"), ent("cow")]))
    assert [t.content for t in published] == ["1 cow nearby.", "2 cows nearby."]


def test_KA_A6_refresh_emits_awareness_with_keepalive_source(perception, make_snapshot, published, clock):
    assert perception.request_refresh() is None  # nothing perceived yet: nothing fabricated
    perception.observe(make_snapshot(entities=[ent("pig")]))
    published.clear()
    clock.advance(30_000)  # past the dedup window, so the refresh is not suppressed
    t = perception.request_refresh(source="keepalive")
    assert t.type == "environmental_awareness" and t.metadata.source == "keepalive"
    assert t.convertEligible is False
    assert published == [t]


def test_KA_A6_refresh_uses_snapshot_provider_and_shares_dedup(clock, make_snapshot, published, logs):
    snap = make_snapshot(entities=[ent("cow")])
    p = Perception(clock, publish=published.append, snapshot_provider=lambda: snap)
    assert p.request_refresh().metadata.source == "keepalive"
    assert p.request_refresh() is None  # keep-alive cannot add an identical percept (KEEPALIVE-7)
    assert any(m.startswith("[Saliency] awareness_suppressed reason=dedup window_ms=30000") for m in msgs(logs))


def test_threat_delta_on_rise_only(perception, make_snapshot):
    assert kinds(perception.observe(make_snapshot(hostiles=0))) == []
    assert "threat_delta" in kinds(perception.observe(make_snapshot(hostiles=2)))
    assert "threat_delta" not in kinds(perception.observe(make_snapshot(hostiles=1)))


def test_damage_from_self_hurt_event_only(perception, make_snapshot, clock):
    perception.observe(make_snapshot())
    other = BodyEvent(type=EventType.entity_hurt, ts=clock(), data={"self": False, "name": "cow"})
    assert "damage" not in kinds(perception.observe(make_snapshot(), [other]))
    me = BodyEvent(type=EventType.entity_hurt, ts=clock(), data={"self": True, "health": 17})
    assert "damage" in kinds(perception.observe(make_snapshot(), [me]))


def test_health_drop_is_strictly_greater_than_threshold_and_sees_healed_hits(perception, make_snapshot, clock):
    perception.observe(make_snapshot(health=20))
    assert "health_drop" not in kinds(perception.observe(make_snapshot(health=18)))  # drop 2, not > 2
    assert "health_drop" in kinds(perception.observe(make_snapshot(health=15)))  # drop 3
    hit = BodyEvent(type=EventType.health, ts=clock(), data={"health": 11, "food": 20})
    assert "health_drop" in kinds(perception.observe(make_snapshot(health=15), [hit]))  # healed back by snapshot


def test_hunger_drop_threshold(clock, make_snapshot):
    p = Perception(clock, config=PerceptionConfig(hunger_drop_threshold=3))
    p.observe(make_snapshot(food=20))
    assert "hunger_drop" not in kinds(p.observe(make_snapshot(food=17)))
    assert "hunger_drop" in kinds(p.observe(make_snapshot(food=13)))


def test_novel_entity_once_per_memory_window(perception, make_snapshot, clock):
    assert "novel_entity" not in kinds(perception.observe(make_snapshot()))
    upd = perception.observe(make_snapshot(entities=[ent("cow")]))
    assert [s.detail for s in upd.stimuli if s.kind == "novel_entity"] == [{"names": ["cow"]}]
    clock.advance(10_000)
    assert "novel_entity" not in kinds(perception.observe(make_snapshot(entities=[ent("cow")])))
    appear = BodyEvent(type=EventType.entity_appear, ts=clock(), data={"name": "zombie"})
    assert "novel_entity" in kinds(perception.observe(make_snapshot(entities=[ent("cow")]), [appear]))
    clock.advance(300_000)
    assert "novel_entity" not in kinds(perception.observe(make_snapshot()))  # nothing in view
    clock.advance(300_000)  # cow unseen for a whole memory window: novel again
    assert "novel_entity" in kinds(perception.observe(make_snapshot(entities=[ent("cow")])))
