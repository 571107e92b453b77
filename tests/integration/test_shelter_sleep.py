"""A night in a shelter with a bed, through the real bridge and the embedded server's beds:
the daemon's reflexes take the bot in at dusk and close the door; once the night allows it
they put the held bed in the hut (both halves inside, clear of the way in) and lie the bot
down in it; the server skips the night when every player sleeps, wakes the bot at morning,
and the reflexes walk it out.

The hut is laid by op commands (the builder's own test is test_shelter.py) and checked by
verify_shelter_v0 on a real read; the reflexes' shelter lookup is pointed at it. Other
players on the session's server are made spectators for the night (vanilla skips a night
only when every other player sleeps too) and put back in survival afterwards.
"""

from __future__ import annotations

import asyncio

import pytest

from agency.shelter.bed import shelter_bed_spot
from agency.shelter.blueprint import basic_shelter
from agency.shelter.door import doorway_cells, in_hut
from agency.shelter.site_check import read_site, verify_region
from bot.config.loader import McbotConfig
from bot.runtime.wiring import Agency
from tests.conftest import make_body, wait_until

NAME = "sleep_bot"
X, Y, Z = -620, 70, 900  # far from spawn and from the other tests' pads
FACING = "south"


def _fill(body, lo, hi, block) -> None:
    """One fill, waited for whole: the server fills block by block, and a later fill sent
    before it ends would be overwritten by it."""
    body.chat(f"/mcbot fill {lo[0]} {lo[1]} {lo[2]} {hi[0]} {hi[1]} {hi[2]} {block}")
    size = tuple(b - a + 1 for a, b in zip(lo, hi, strict=True))
    volume = size[0] * size[1] * size[2]
    wait_until(lambda: body.region(lo, size).count(block) == volume, 20, f"{block} filled {lo}..{hi}")


def _lay_hut(body, bp) -> None:
    x0, y0, z0 = bp.site.refCorner
    _fill(body, (x0 - 4, y0 - 1, z0 - 4), (x0 + 8, y0 - 1, z0 + 10), "stone")
    _fill(body, (x0 - 4, y0, z0 - 4), (x0 + 8, y0 + 4, z0 + 10), "air")
    _fill(body, (x0, y0, z0), (x0 + 4, y0 + 3, z0 + 4), "oak_planks")
    _fill(body, (x0 + 1, y0, z0 + 1), (x0 + 3, y0 + 2, z0 + 3), "air")
    dx, dy, dz = bp.site.entrance
    body.chat(f"/mcbot setblock {dx} {dy} {dz} oak_door[facing=north,half=lower,open=false]")
    body.chat(f"/mcbot setblock {dx} {dy + 1} {dz} oak_door[facing=north,half=upper,open=false]")
    tx, ty, tz, _ = bp.module("light").placements[0]
    body.chat(f"/mcbot setblock {tx} {ty} {tz} torch")
    wait_until(lambda: verify_region(read_site(body, bp.site), bp.site, None).done, 20, "the hut laid and verified")


@pytest.fixture(scope="module")
def world(bridge, embedded_server, tmp_path_factory):
    body = make_body(bridge, embedded_server.port, NAME)
    cfg = McbotConfig.model_validate({"storage": {"db_path": str(tmp_path_factory.mktemp("sleep") / "agency.db")}})
    agency = Agency(cfg)
    agency.attach_body(body)
    bp = basic_shelter((X, Y, Z), FACING)
    try:
        body.chat("/time set 1000")
        body.chat(f"/mcbot tp {NAME} {X + 2} {Y} {Z + 9}")
        wait_until(lambda: abs(body.snapshot().position.z - (Z + 9.5)) < 1.5, 10, "teleported near the site")
        wait_until(
            lambda: body.region((X, Y - 1, Z), (1, 1, 1)).block_at(X, Y - 1, Z) is not None, 15, "the site loaded"
        )
        _lay_hut(body, bp)
        body.chat(f"/give {NAME} white_bed 1")
        body.chat(f"/mcbot health {NAME} 20")
        body.chat(f"/mcbot food {NAME} 20")
        wait_until(lambda: body.snapshot().count_of("white_bed") == 1, 10, "a bed held")
        body.chat("/gamemode spectator @a")  # the others' sleep is not asked for...
        body.chat(f"/gamemode survival {NAME}")  # ...the bot's is
        wait_until(lambda: body.snapshot().gameMode == "survival", 10, "the bot in survival")
        yield agency, body, bp
    finally:
        body.chat("/gamemode survival @a")
        body.chat("/time set 1000")
        agency.close()
        body.close()


def test_at_night_the_reflexes_put_the_bed_in_the_shelter_the_bot_sleeps_and_the_night_is_skipped(world):
    agency, body, bp = world
    site = bp.site
    assert verify_region(read_site(body, site), site, None).done  # a shelter the reflexes may use
    assert body.snapshot().count_of("white_bed") == 1
    agency.reflexes.shelter_lookup = lambda snap: site
    outside, _inside = doorway_cells(site.entrance, site.facing)
    spot = shelter_bed_spot(site.refCorner, site.facing)

    # by day the server (or mineflayer) refuses a bed, and says why
    body.chat(f"/mcbot setblock {X + 8} {Y} {Z + 8} white_bed[facing=north,part=foot]")
    body.chat(f"/mcbot setblock {X + 8} {Y} {Z + 7} white_bed[facing=north,part=head]")
    wait_until(
        lambda: body.region((X + 8, Y, Z + 7), (1, 1, 1)).block_at(X + 8, Y, Z + 7) == "white_bed", 10, "a bed outside"
    )
    st = body.wait_action(body.start_action("sleep", {"x": X + 8, "y": Y, "z": Z + 8}).id, max_s=15)
    assert st.state.value == "failed" and "not night" in (st.error or ""), st
    body.chat(f"/mcbot fill {X + 8} {Y} {Z + 7} {X + 8} {Y} {Z + 8} air")

    body.chat("/time set 12000")
    wait_until(lambda: 12_000 <= body.snapshot().timeOfDay < 12_500, 10, "dusk")

    async def dusk():
        assert await agency.reflexes.tick(body.snapshot()) == "shelter"
        assert agency.reflexes.choose(body.snapshot()) is None  # in, door closed: too early for bed

    asyncio.run(dusk())
    assert in_hut(site, body.snapshot().position)
    body.chat("/time set 13000")
    wait_until(lambda: body.snapshot().timeOfDay >= 13_000, 10, "night")

    async def bedtime():
        assert await agency.reflexes.tick(body.snapshot()) == "sleep"

    asyncio.run(bedtime())
    region = body.region(site.refCorner, (5, 1, 5))
    assert region.block_at(*spot.foot) == "white_bed" and region.block_at(*spot.head) == "white_bed"  # whole, inside
    assert body.snapshot().count_of("white_bed") == 0
    assert agency.reflexes.stats.sleeps == 1
    # the server skips the night once the bot has slept 100 ticks, and wakes it
    wait_until(
        lambda: (s := body.snapshot()).timeOfDay < 1000 and not s.isSleeping, 30, "the night skipped, the bot up"
    )

    async def morning():
        assert await agency.reflexes.tick(body.snapshot()) == "leave_shelter"

    asyncio.run(morning())
    pos = body.snapshot().position
    assert not in_hut(site, pos) and (int(pos.x // 1), int(pos.z // 1)) == (outside[0], outside[2])
    assert not agency.reflexes.holding_tasks
