"""Two daemon starts on one database, each with a fresh in-memory embedded world: the
second start archives the first world's shelter, so the night reflex's lookup never walks
the bot to a shelter that only the old world had. The Agency runs in-process on real
worlds and bots; attach_body is the call the daemon makes at start."""

from __future__ import annotations

import re

import pytest
from loguru import logger

from agency.goals import BuildIntent, VerificationResult, anchor_goal, basic_shelter, read_binding
from agency.goals.models import BUILD_SHELTER
from agency.goals.resolver import resolve_or_create_build_goal
from agency.planning.tasks.models import TaskStatus
from bot.config.loader import McbotConfig
from bot.runtime.server import EmbeddedServer, free_port
from bot.runtime.wiring import Agency
from tests.conftest import make_body, world_settings

pytestmark = pytest.mark.one_version(reason="the world's identity and the archive of its places are the daemon's store")

NEW_WORLD = re.compile(
    r"\[World\] new world (memory:1337:\w+) \(was (memory:1337:\w+)\): "
    r"archived 1 goals, 0 checkpoints"
)


def _verified_shelter_at(agency: Agency, pos: tuple[float, float, float]) -> str:
    """A shelter goal of this world, completed after two passing verifications."""
    g = agency.goals
    intent = BuildIntent(
        goal_type=BUILD_SHELTER,
        params={"template": "basic_shelter", "count": 1},
        bot_position=pos,
        title="build basic_shelter 1",
    )
    task = resolve_or_create_build_goal(
        agency.tasks, g.index, intent, verify=g.hooks.verify, lifecycle=g.lifecycle
    ).task
    site = basic_shelter((int(pos[0]) + 3, int(pos[1]), int(pos[2]) + 3), "south").site
    anchor_goal(agency.tasks, task.id, site)
    agency.tasks.set_status(task.id, "active")
    for _ in range(2):
        g.lifecycle.record_verification(task.id, VerificationResult(done=True, score=1.0))
    return task.id


def test_a_second_start_in_a_fresh_in_memory_world_archives_the_old_worlds_shelter(
    bridge, embedded_server, mc_version, tmp_path
):
    cfg = McbotConfig.model_validate(
        {"storage": {"db_path": str(tmp_path / "agency.db")}, "server": {"world_folder": ""}}
    )
    lines: list[str] = []
    sink = logger.add(lambda m: lines.append(str(m)), level="INFO", format="{message}")
    fresh = EmbeddedServer(world_settings(port=free_port(), version=mc_version, hostiles=False))
    try:
        # start 1, world A: the bot remembers a verified shelter next to it
        body = make_body(bridge, embedded_server.port, "world_a_bot")
        first = Agency(cfg)
        first.attach_body(body)
        snap_a = body.snapshot()
        shelter_id = _verified_shelter_at(first, (snap_a.position.x, snap_a.position.y, snap_a.position.z))
        assert first.goals.nearest_verified_shelter(snap_a) is not None  # what the night reflex walks to
        first.close()
        body.close()

        # start 2, world B: same database, a new in-memory world (same seed, same spawn)
        fresh.start()
        body = make_body(bridge, fresh.port, "world_b_bot")
        second = Agency(cfg)
        second.attach_body(body)
        try:
            snap_b = body.snapshot()
            site = read_binding(second.tasks.get_task(shelter_id)).anchors.siteSignature
            assert site.footprintBounds.distance_to((snap_b.position.x, snap_b.position.y, snap_b.position.z)) <= 32
            assert second.goals.nearest_verified_shelter(snap_b) is None
            assert second.goals.shelter_nearby(snap_b) is False  # so a drive tick asks for a new one
            kept = second.tasks.get_task(shelter_id)
            assert kept.status is TaskStatus.completed  # archived, not failed
            found = [m for m in map(NEW_WORLD.search, lines) if m]
            assert len(found) == 1, lines
            new_id, old_id = found[0].groups()
            assert new_id != old_id and read_binding(kept).archivedWorld == old_id == first.world.world
            assert second.world.world == new_id
        finally:
            second.close()
            body.close()
    finally:
        logger.remove(sink)
        fresh.stop()
