"""Deliveries between a fleet's bots: the deliver plan (have the items, then give), a
builder's shelter plan that asks the helpers for its walls first, a craft step that makes
only what is missing, the delivery board on a real task store, and the request/await tools
on the fake body and injected time."""

from __future__ import annotations

import asyncio

import pytest

from agency.execution.agents.build_plan import shelter_plan
from agency.execution.agents.deliver_plan import deliver_plan
from agency.execution.agents.planning import WorkflowPlanError, craft_plan
from agency.execution.builtin_tools import default_tool_registry
from agency.planning.delivery import DELIVER, DELIVERY_HOOK, DeliveryBoard
from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.store import SqliteTaskStore
from agency.tools import ToolContext
from agency.tools.testing import FakeBody, FakeTime


def test_deliver_plan_crafts_a_recipe_then_gives_and_collects_a_raw_material_then_gives():
    planks = deliver_plan("gatherer", {"target": "oak_planks", "amount": 8, "to": "builder1"}, {})
    assert [s.id for s in planks.steps] == ["gather-oak_log", "craft-oak-planks", "give"]
    assert planks.steps[-1].args == {"player": "builder1", "item": "oak_planks", "count": 8}
    pick = {"wooden_pickaxe": 1}  # stone drops cobblestone only to a pickaxe
    stone = deliver_plan(
        "gatherer", {"target": "cobblestone", "amount": 5, "to": "builder1"}, {**pick, "cobblestone": 2}
    )
    assert [(s.id, s.tool) for s in stone.steps] == [("collect", "collect_block"), ("give", "give")]
    assert stone.steps[0].args == {"block": "stone", "count": 5, "ensure": True}  # 5 held in all, 2 already
    many = deliver_plan("gatherer", {"target": "cobblestone", "amount": 20, "to": "builder1"}, pick)
    assert [s.args.get("count") for s in many.steps] == [6, 12, 18, 20, 20]  # batches, then the give
    bare = deliver_plan("gatherer", {"target": "cobblestone", "amount": 5, "to": "builder1"}, {})
    ids = [s.id for s in bare.steps]
    assert ids.index("craft-wooden-pickaxe") < ids.index("collect") and ids[-1] == "give"  # the pickaxe first
    held = deliver_plan("gatherer", {"target": "oak_planks", "amount": 8, "to": "builder1"}, {"oak_planks": 9})
    assert [s.id for s in held.steps] == ["give"]
    with pytest.raises(WorkflowPlanError) as e:
        deliver_plan("gatherer", {"target": "oak_planks", "amount": 8}, {})
    assert e.value.code == "NO_TARGET"


def test_an_ensure_craft_makes_only_what_is_missing_and_nothing_when_it_is_held():
    part = craft_plan("crafter", {"target": "oak_planks", "amount": 12, "ensure": True}, {"oak_planks": 8})
    assert [s.args.get("count") for s in part.steps if s.tool == "craft"] == [12]  # 4 more: one log
    whole = craft_plan("crafter", {"target": "oak_planks", "amount": 12, "ensure": True}, {"oak_planks": 12})
    assert [(s.id, s.tool) for s in whole.steps] == [("held", "inventory")]


def test_a_fleet_builder_asks_for_its_walls_first_makes_the_door_meanwhile_then_crafts_only_the_rest():
    alone = shelter_plan("builder", {"target": "basic_shelter", "id": "t1"}, {})
    fleet = shelter_plan("builder", {"target": "basic_shelter", "id": "t1", "facts": {"helpers": ["g1", "g2"]}}, {})
    alone_ids, fleet_ids = [s.id for s in alone.steps], [s.id for s in fleet.steps]
    assert "ask-walls" not in alone_ids
    assert fleet_ids[:2] == ["ask-walls", "get-door"]
    assert fleet_ids.index("await-walls") + 1 == fleet_ids.index("get-walls") < fleet_ids.index("site")
    ask, wait, get = (fleet.steps[fleet_ids.index(i)] for i in ("ask-walls", "await-walls", "get-walls"))
    alone_get = alone.steps[alone_ids.index("get-walls")]
    assert ask.args["count"] == wait.args["total"]  # holding nothing: all it must hold at the site
    assert wait.args["deliveryTaskId"] == "${steps.ask-walls.deliveryTaskId}"
    assert get.task == {"action": "craft", "target": "oak_planks", "amount": wait.args["total"], "ensure": True}
    # what it must hold at the site: the blueprint's planks and the spare ones for filling holes
    # (not the door's 6 and the table's 4: the crafter makes those from logs meanwhile; nor the
    # wooden pickaxe's 5 of a bot building alone: a fleet's build gets no night kit)
    assert "get-pickaxe" in alone_ids and "get-pickaxe" not in fleet_ids
    assert wait.args["total"] == alone_get.task["amount"] and alone_get.task["ensure"]
    # holding 20 planks: the door takes 10 of them, so it asks for what the site needs beyond the other 10
    some = shelter_plan(
        "builder", {"target": "basic_shelter", "id": "t1", "facts": {"helpers": ["g1"]}}, {"oak_planks": 20}
    )
    assert next(s for s in some.steps if s.id == "ask-walls").args["count"] == wait.args["total"] - 10


def test_a_fleet_repair_that_needs_only_a_door_asks_nobody_for_planks():
    facts = {"needed": {"oak_door": 1}, "wallBlock": "oak_planks", "doorBlock": "oak_door", "helpers": ["g1"]}
    plan = shelter_plan("builder", {"target": "basic_shelter", "id": "t1", "facts": facts}, {})
    ids = [s.id for s in plan.steps]
    assert "ask-walls" not in ids and "await-walls" not in ids and ids[0] == "get-door"


@pytest.fixture
def store(tmp_path):
    ftime = FakeTime()
    tasks = SqliteTaskStore(tmp_path / "t.db", clock=ftime.clock, dev_mode=False, strict_finalize=False)
    yield tasks, ftime
    tasks.close()


def test_the_board_posts_one_open_delivery_per_parent_and_item_and_withdraws_only_an_untaken_one(store):
    tasks, _ = store
    board = DeliveryBoard(tasks, "builder1", lambda: ["builder1", "gatherer1"])
    assert board.helpers() == ["gatherer1"]
    first = board.request("task-shelter", "oak_planks", 30)
    assert board.request("task-shelter", "oak_planks", 30) == first  # a resumed run finds it
    t = tasks.get_task(first)
    assert t.type == DELIVER and t.metadata.bot is None and t.metadata.parentTaskId == "task-shelter"
    assert t.parameters == {"target": "oak_planks", "amount": 30, "to": "builder1"}
    assert board.state(first).status == "pending" and not board.state(first).claimed
    claimed = tasks.claim_next("gatherer1", {DELIVER})
    assert claimed is not None and claimed.id == first
    assert board.state(first).claimed and board.state(first).heldBy == "gatherer1"
    assert board.withdraw(first, "too late") is False and tasks.get_task(first).status is TaskStatus.active
    other = board.request("task-shelter", "cobblestone", 5)
    assert other != first and board.withdraw(other, "nobody came")
    assert tasks.get_task(other).status is TaskStatus.failed and board.state(other).over
    assert board.state("task-none").status == "missing"


def _ctx(body, ftime, board=None):
    return ToolContext(
        body=body,
        clock=ftime.clock,
        sleep=ftime.sleep,
        poll_interval_s=0.1,
        hooks={DELIVERY_HOOK: board} if board else {},
    )


def test_request_and_await_are_no_ops_for_a_bot_alone(store):
    _, ftime = store
    tools, body = default_tool_registry(), FakeBody(FakeTime().clock)
    req = asyncio.run(
        tools.execute("request_delivery", {"taskId": "t1", "item": "oak_planks", "count": 8}, _ctx(body, ftime))
    )
    assert req.success and req.output["requested"] is False
    wait = asyncio.run(
        tools.execute("await_delivery", {"item": "oak_planks", "total": 8, "deliveryTaskId": None}, _ctx(body, ftime))
    )
    assert wait.success and wait.output["delivered"] is False and ftime.slept == 0


def test_await_returns_once_the_items_arrive_and_withdraws_a_request_nobody_takes(store):
    tasks, ftime = store
    tools, body = default_tool_registry(), FakeBody(ftime.clock)
    board = DeliveryBoard(tasks, "builder1", lambda: ["gatherer1"])
    ctx = _ctx(body, ftime, board)
    req = asyncio.run(tools.execute("request_delivery", {"taskId": "t1", "item": "oak_planks", "count": 8}, ctx))
    assert req.output["requested"] and list(req.output["helpers"]) == ["gatherer1"]
    delivery = req.output["deliveryTaskId"]
    tasks.claim_next("gatherer1", {DELIVER})

    async def arrives_later():
        call = asyncio.ensure_future(
            tools.execute("await_delivery", {"item": "oak_planks", "total": 8, "deliveryTaskId": delivery}, ctx)
        )
        for _ in range(50):
            await ftime.sleep(1)
        body.inventory["oak_planks"] += 8  # the helper's toss picked up
        return await call

    got = asyncio.run(arrives_later())
    assert got.success and got.output["delivered"] is True and got.output["held"] == 8
    assert tasks.get_task(delivery).status is TaskStatus.active  # its own bot completes it

    untaken = board.request("t1", "cobblestone", 3)
    before = ftime.clock()
    res = asyncio.run(
        tools.execute(
            "await_delivery", {"item": "cobblestone", "total": 3, "deliveryTaskId": untaken, "claimS": 30}, ctx
        )
    )
    assert res.success and res.output["delivered"] is False and "no bot took" in res.output["why"]
    assert 30_000 <= ftime.clock() - before < 32_000
    assert tasks.get_task(untaken).status is TaskStatus.failed


def test_a_build_that_ends_withdraws_its_untaken_requests_and_leaves_a_taken_one(store):
    tasks, _ = store
    board = DeliveryBoard(tasks, "builder1", lambda: ["gatherer1"])
    untaken = board.request("task-build", "oak_planks", 30)
    taken = board.request("task-build", "cobblestone", 5)
    other = board.request("task-other", "oak_planks", 8)
    assert tasks.claim_next("gatherer1", {DELIVER}).id == untaken  # oldest first: then claim the next
    tasks.set_status(untaken, TaskStatus.pending)  # back in the queue
    claimed = [tasks.claim_next("gatherer1", {DELIVER}) for _ in range(2)]
    assert {c.id for c in claimed} == {untaken, taken}
    tasks.set_status(untaken, TaskStatus.pending)
    board.on_task_event("failed", tasks.get_task(taken))  # a delivery's own end withdraws nothing
    assert tasks.get_task(untaken).status is TaskStatus.pending
    build = tasks.add_task({"title": "build", "type": "build"}, allow_unfinalized=True)
    board.on_task_event("completed", build.model_copy(update={"id": "task-build"}))
    assert tasks.get_task(untaken).status is TaskStatus.failed
    assert tasks.get_task(untaken).metadata.blockedReason == "withdrawn: task task-build completed"
    assert tasks.get_task(taken).status is TaskStatus.active  # a helper works on it: let it finish
    assert tasks.get_task(other).status is TaskStatus.pending  # another task's


def test_a_helper_walks_back_to_where_the_asking_bot_was_before_it_gives():
    plan = deliver_plan(
        "gatherer",
        {"target": "oak_planks", "amount": 8, "to": "builder1", "facts": {"near": [10, 64, -3]}},
        {"oak_planks": 8},
    )
    assert [(s.id, s.tool) for s in plan.steps] == [("go-near", "move_to"), ("give", "give")]
    assert plan.steps[0].args == {"x": 10, "y": 64, "z": -3, "range": 6}


def test_a_request_says_where_the_asking_bot_is(store):
    tasks, ftime = store
    body = FakeBody(ftime.clock)
    board = DeliveryBoard(tasks, "builder1", lambda: ["gatherer1"])
    res = asyncio.run(
        default_tool_registry().execute(
            "request_delivery", {"taskId": "t1", "item": "oak_planks", "count": 8}, _ctx(body, ftime, board)
        )
    )
    p = body.position
    assert board.near(res.output["deliveryTaskId"]) == [int(p.x // 1), int(p.y // 1), int(p.z // 1)]
    assert board.near("task-none") is None


def test_a_withdrawal_that_loses_the_race_to_a_claim_leaves_the_claimed_task_alone(store):
    """Another daemon's bot claims the request between the board's read and its write."""
    tasks, _ = store
    board = DeliveryBoard(tasks, "builder1", lambda: ["builder1", "gatherer1"])
    asked = board.request("task-shelter", "oak_planks", 30)
    read = tasks.get_task

    def read_then_claimed(task_id):
        seen = read(task_id)
        if task_id == asked and seen.status is TaskStatus.pending:
            tasks.claim_next("gatherer1", {DELIVER})
        return seen

    tasks.get_task = read_then_claimed
    assert board.withdraw(asked, "nobody came") is False
    tasks.get_task = read
    got = tasks.get_task(asked)
    assert (got.status, got.metadata.heldBy, got.metadata.blockedReason) == (TaskStatus.active, "gatherer1", None)


# -- a craft's ingredients from the fleet ------------------------------------------------------------


def test_a_delivery_is_bound_to_the_helper_holding_the_most_and_open_when_none_holds_it(store):
    tasks, _ = store
    held = {"gatherer1": {"stick": 2}, "gatherer2": {"stick": 5, "iron_ingot": 1}}
    board = DeliveryBoard(
        tasks, "crafter1", lambda: ["crafter1", "gatherer1", "gatherer2"], held_by=lambda n: held.get(n, {})
    )
    assert board.helpers_hold() == {"stick": 7, "iron_ingot": 1}
    sticks = tasks.get_task(board.request("task-pick", "stick", 2))
    assert sticks.metadata.bot == "gatherer2"  # the one holding most: it hands them over at once
    assert tasks.claim_next("gatherer1", {DELIVER}) is None  # not the other helper's to take
    planks = tasks.get_task(board.request("task-pick", "oak_planks", 4))
    assert planks.metadata.bot is None  # nobody holds any: open to any bot


def _fleet(hold, **inv):
    return craft_plan(
        "crafter",
        {"target": "iron_pickaxe", "amount": 1, "facts": {"helpers": ["bench1"], "helpersHold": hold}},
        {"crafting_table": 1, **inv},
    )


def test_a_craft_in_a_fleet_asks_for_the_ingredients_a_helper_holds_then_makes_the_item():
    plan = _fleet({"iron_ingot": 1, "stick": 2}, iron_ingot=2)
    ids = [s.id for s in plan.steps]
    assert ids[:4] == ["ask-iron-ingot", "ask-stick", "await-iron-ingot", "await-stick"]
    assert plan.steps[0].args == {"taskId": "${task.id}", "item": "iron_ingot", "count": 1}
    assert plan.steps[2].args["total"] == 3  # 2 held + 1 asked for
    assert plan.steps[-1].tool == "craft" and plan.steps[-1].args["item"] == "iron_pickaxe"
    assert "gather-log" not in ids  # planned as if the sticks came


def test_what_no_helper_holds_is_not_asked_for():
    plan = _fleet({"stick": 1}, iron_ingot=3)  # a helper holds 1 of the 2 sticks
    assert [(s.id, s.args.get("count")) for s in plan.steps if s.tool == "request_delivery"] == [("ask-stick", 1)]
    alone = _fleet({}, iron_ingot=3)  # nobody holds anything useful: the bot's own plan
    assert not [s for s in alone.steps if s.tool in ("request_delivery", "await_delivery")]
    child = craft_plan(  # a child of a plan (ensure) never asks: its parent did
        "crafter",
        {
            "target": "iron_pickaxe",
            "amount": 1,
            "ensure": True,
            "facts": {"helpers": ["b"], "helpersHold": {"stick": 2}},
        },
        {"iron_ingot": 3},
    )
    assert not [s for s in child.steps if s.tool == "request_delivery"]
