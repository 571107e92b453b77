"""The head-free reflex: the bot's eyes inside a block it suffocates in (the snapshot's
`inWall`) are answered before anything else by digging that block, again while gravel falls
into the cell dug (agency.tools.head_free). A 1.18.2 bench bot digging for coal suffocated with
no reflex answering."""

from __future__ import annotations

import asyncio
import math

from loguru import logger

from agency.execution.reflexes import ReflexConfig, Reflexes
from agency.execution.reflexes.head_free import RETRY_MS
from agency.tools.head_free import eye_cells
from agency.tools.testing import GROUND_Y, FakeBody, FakeTime, Mob
from agency.world import Vec3, WorldSnapshot
from tests.unit.execution.world import add_task, executor_env

EYES = (0, GROUND_Y + 1, 0)  # the bot stands at (0.5, GROUND_Y, 0.5)
SOLID = ("stone", "gravel", "sand", "dirt", "cobblestone")


class WallBody(FakeBody):
    """The fake world whose snapshot says `inWall` when the eye cell holds a solid block, and
    where `falling` gravel drops into the eye cell each time it is dug."""

    falling = 0

    def snapshot(self) -> WorldSnapshot:
        p = self.position
        eyes = (math.floor(p.x), math.floor(p.y + 1.62), math.floor(p.z))
        return super().snapshot().model_copy(update={"inWall": self.block(*eyes) in SOLID})

    def _do_dig(self, a):
        out = super()._do_dig(a)
        if self.falling and (a["x"], a["y"], a["z"]) == EYES:
            self.falling -= 1
            self.blocks[EYES] = "gravel"
        return out


def _env(tmp_path):
    ftime = FakeTime()
    e = executor_env(tmp_path, ftime, WallBody(ftime.clock))
    e["reflexes"] = Reflexes(e["tools"], e["ctx"], e["ex"], ReflexConfig(), clock=ftime.clock)
    return e


SAID = "[Reflex] the head in a block (suffocating) -> dug free: "


def _in_a_block_at_work(tmp_path, block: str) -> tuple[dict, str, list[str]]:
    """The fake world with `block` at the bot's eyes while a task runs: its env (close
    env["tasks"]), the task and the log lines kept (read once the env is closed)."""
    e = _env(tmp_path)
    body = e["body"]
    body.position = body.position.model_copy(update={"x": 0.5, "y": GROUND_Y, "z": 0.5})
    body.polls_to_finish = 30
    running = add_task(e["tasks"], "craft", "wooden_pickaxe")
    body.blocks[EYES] = block
    lines: list[str] = []
    e["sink"] = logger.add(lambda m: lines.append(m.record["message"]), level="INFO")
    assert asyncio.run(e["ex"].tick()) == "claimed"
    return e, running, lines


def test_a_head_in_gravel_is_dug_free_before_a_zombie_is_answered_and_the_task_goes_on(tmp_path):
    e, running, lines = _in_a_block_at_work(tmp_path, "gravel")
    body, reflexes = e["body"], e["reflexes"]
    body.falling = 2  # two more over it
    body.mobs = [Mob("zombie", hostile=True, x=2.5, z=0.5)]
    try:
        assert asyncio.run(reflexes.tick(body.snapshot())) == "free_head"
        status = e["tasks"].get_task(running).status.value
    finally:
        logger.remove(e["sink"])
        e["tasks"].close()
    digs = [a for k, a in body.started if k == "dig"]
    assert [(a["x"], a["y"], a["z"]) for a in digs] == [EYES] * 3
    assert body.block(*EYES) == "air" and not body.snapshot().inWall
    assert reflexes.stats.heads_freed == 1
    assert any(line.startswith(SAID + "ok") for line in lines)
    assert status == "pending"  # held for the dig, given back


def test_no_reflex_with_the_head_in_the_open_or_when_dead(tmp_path):
    e = _env(tmp_path)
    body, reflexes = e["body"], e["reflexes"]
    try:
        assert reflexes.choose(body.snapshot()) is None
        body.blocks[(0, GROUND_Y + 1, 0)] = "stone"
        body.position = body.position.model_copy(update={"x": 0.5, "y": GROUND_Y, "z": 0.5})
        assert reflexes.choose(body.snapshot()) == "free_head"
        assert reflexes.choose(body.snapshot().model_copy(update={"health": 0})) is None  # dead: the respawn next
    finally:
        e["tasks"].close()


def test_a_block_that_will_not_dig_fails_the_reflex_with_the_reason_and_is_not_tried_again_at_once(tmp_path):
    e, running, lines = _in_a_block_at_work(tmp_path, "stone")
    body, reflexes = e["body"], e["reflexes"]
    body.fail["dig"] = "cannot dig bedrock (out of reach or undiggable)"
    try:
        assert asyncio.run(reflexes.tick(body.snapshot())) == "free_head"
        status = e["tasks"].get_task(running).status.value
        assert reflexes.choose(body.snapshot()) != "free_head"  # the task gets the body back meanwhile
        e["ftime"].clock.advance(RETRY_MS)
        assert reflexes.choose(body.snapshot()) == "free_head"
    finally:
        logger.remove(e["sink"])
        e["tasks"].close()
    failed = [line for line in lines if line.startswith(SAID + "failed")]
    assert len(failed) == 1 and f"could not dig the block at the head {EYES}" in failed[0]
    assert "not tried again for 5 s" in failed[0]
    assert status == "pending" and reflexes.stats.heads_freed == 0


def test_a_stale_reading_of_a_head_in_a_block_holds_no_task(tmp_path):
    """The tick's snapshot may be half a second old: the gravel has fallen on since."""
    e = _env(tmp_path)
    body, reflexes = e["body"], e["reflexes"]
    body.position = body.position.model_copy(update={"x": 0.5, "y": GROUND_Y, "z": 0.5})
    stale = body.snapshot().model_copy(update={"inWall": True})
    try:
        assert asyncio.run(reflexes.tick(stale)) == "free_head"
    finally:
        e["tasks"].close()
    assert not [k for k, _ in body.started if k == "dig"] and reflexes.stats.heads_freed == 0


def test_by_a_corner_every_cell_around_the_eyes_is_dug():
    """The cells vanilla checks (node/lib/in_wall.js eyeCells, the same figures in its test)."""
    assert eye_cells(Vec3(x=10.5, y=64, z=-3.5)) == [(10, 65, -4)]
    assert sorted(eye_cells(Vec3(x=10.9, y=64, z=-3.9))) == [(10, 65, -5), (10, 65, -4), (11, 65, -5), (11, 65, -4)]
