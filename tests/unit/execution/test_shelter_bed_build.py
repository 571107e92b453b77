"""The builder puts a held bed in the shelter it builds: the last step, from the ring outside
the wall in line with the bed, so its head lands inside; the hut still verifies."""

from __future__ import annotations

from typing import Any

from agency.execution.agents import AgentRuntime, TaskSpec, load_default_registry
from agency.execution.agents.build_plan import build_plan
from agency.execution.builtin_tools import default_tool_registry
from agency.execution.workflows import SqliteCheckpointStore
from agency.shelter.bed import shelter_bed_spot
from agency.shelter.blueprint import basic_shelter
from agency.shelter.verifier import verify_shelter_v0
from agency.tools import ToolContext
from agency.tools.testing import FakeBody
from tests.unit.conftest import run


def _beds_like_the_game(body: FakeBody) -> None:
    """A bed's head goes one block further the way the placer looks (vanilla BedBlock)."""
    place = body._do_place

    def do_place(a: dict[str, Any]) -> dict[str, Any]:
        out = place(a)
        if a["block"].endswith("_bed"):
            fx, fz = a["x"] + 0.5 - body.position.x, a["z"] + 0.5 - body.position.z
            step = (1 if fx > 0 else -1, 0) if abs(fx) > abs(fz) else (0, 1 if fz > 0 else -1)
            body.blocks[(a["x"] + step[0], a["y"], a["z"] + step[1])] = a["block"]
        return out

    body._do_place = do_place  # type: ignore[method-assign]  # the test's stand-in


def test_a_held_bed_goes_into_the_built_shelter_whole(
    ctx: ToolContext, body: FakeBody, store: SqliteCheckpointStore
) -> None:
    _beds_like_the_game(body)
    body.inventory.update({"oak_planks": 80, "oak_door": 1, "torch": 1, "white_bed": 1})
    rt = AgentRuntime(load_default_registry(), default_tool_registry(), ctx, checkpoints=store)
    res = run(rt.run_task(TaskSpec(action="build", target="basic_shelter", amount=1, id="task-hut")))
    assert res.ok, res.errors
    assert [s.stepId for s in res.steps][-2:] == ["module-light", "furnish-bed"]
    site_out = next(s for s in res.steps if s.stepId == "site").output
    origin, facing = tuple(site_out["origin"]), site_out["facing"]
    spot = shelter_bed_spot(origin, facing)
    assert body.blocks[spot.foot] == body.blocks[spot.head] == "white_bed" and body.inventory["white_bed"] == 0
    bp = basic_shelter(origin, facing)
    for x, y, z, block in bp.extra_world_blocks:  # the door's upper half: the game adds it, the fake world does not
        body.blocks[(x, y, z)] = block
    region = body.region(*_box(bp.site.footprintBounds.expanded(8)))
    verdict = verify_shelter_v0(region, bp.site)
    assert verdict.done and verdict.lit is True and "soft:bed" in verdict.evidence, verdict.evidence
    # a repair re-does the site's earthwork first: the bed is the hut's, not in the way
    tools = default_tool_registry()
    again = run(tools.execute("prepare_shelter_site", {"origin": list(origin), "facing": facing}, ctx))
    assert again.success and again.output["dug"] == 0, again.error
    assert body.blocks[spot.foot] == "white_bed"


def test_no_bed_held_no_bed_step() -> None:
    task = {"action": "build", "target": "basic_shelter", "amount": 1, "id": "t"}
    assert "furnish-bed" not in [s.id for s in build_plan("builder", task, {"oak_planks": 80, "oak_door": 1}).steps]


def _box(b: Any) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    return b.min, tuple(hi - lo + 1 for lo, hi in zip(b.min, b.max, strict=True))
