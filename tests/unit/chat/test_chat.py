"""Chat commands (agency.chat): lines cleaned and bounded, addressed or not, parsed into a
command or a goal, the trusted obeyed and a stranger answered once, replies rate-gated and
never the player's words, goals through the intake, a chat task's end said to its player.
Time is the frozen clock; the intake and the direct actions are small fakes."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from agency.chat.commands import MAX_GIVE, Command, parse, spoken
from agency.chat.gate import ReplyGate, Strangers
from agency.chat.handler import HELP, NOT_UNDERSTOOD, POLITE, ChatHandler
from agency.chat.lines import MAX_LINE, addressed, clean
from agency.chat.status import status_line
from agency.goal_tag import ExtractedGoal
from agency.goals.user_goals import GoalDecision, GoalRequest, GoalRequestError
from agency.planning.tasks.models import TaskOrigin, TaskStatus
from agency.world import BodyEvent, EntityInfo, EventType, Vec3

BOT = "Helper"


def test_a_line_is_cleaned_of_codes_and_control_characters_and_bounded():
    assert clean("\u00a7cmcbot   \u00a7lstatus\x00\n") == "mcbot status"
    assert len(clean("x" * 5000)) == MAX_LINE
    assert clean({"text": "a"}) == "{'text': 'a'}"  # whatever comes is made text, never trusted


@pytest.mark.parametrize(
    ("line", "whisper", "command"),
    [
        ("mcbot status", False, "status"),
        ("Helper, come here", False, "come here"),
        ("helper: inventory", False, "inventory"),
        ("@HELPER stop", False, "stop"),
        ("mcbot", False, ""),
        ("nice weather", False, None),
        ("nice weather", True, "nice weather"),  # a whisper is addressed
        ("mcbotstatus", False, None),
    ],
)
def test_a_line_is_addressed_by_the_prefix_the_bots_name_or_a_whisper(line, whisper, command):
    assert addressed(line, BOT, whisper=whisper) == command


@pytest.mark.parametrize(
    ("text", "kind", "args"),
    [
        ("", "help", {}),
        ("?", "help", {}),
        ("Status!", "status", {}),
        ("follow me", "follow", {}),
        ("give me 8 oak_log", "give", {"item": "oak_log", "count": 8}),
        ("give me oak log 3", "give", {"item": "oak_log", "count": 3}),
        ("give me torch", "give", {"item": "torch", "count": 1}),
        (f"give me {MAX_GIVE + 1} dirt", "bad", None),
        ("collect oak_log 8", "goal", {"text": "collect oak_log 8"}),
        ("obtain compass", "goal", {"text": "obtain compass"}),
    ],
)
def test_a_command_or_a_goal(text, kind, args):
    cmd = parse(text)
    assert cmd.kind == kind and (args is None or cmd.args == args)


@pytest.mark.parametrize(
    ("text", "plain"),
    [
        ("could you get me some wood", True),
        ("get me diamonds please", True),
        ("is it night yet?", True),
        ("collect oak_log 8", False),
        ("obtain compass", False),
        ("build basic_shelter", False),
    ],
)
def test_plain_words_are_told_from_the_goal_grammar(text, plain):
    assert spoken(text) is plain


def test_the_gate_lets_a_burst_through_then_one_a_second(clock):
    gate = ReplyGate(clock, every_ms=1000, burst=4)
    assert [gate.allow() for _ in range(6)] == [True, True, True, True, False, False] and gate.dropped == 2
    clock.advance(1000)
    assert gate.allow() and not gate.allow()


def test_a_stranger_is_answered_once_and_the_names_are_bounded():
    s = Strangers(keep=2)
    assert s.first_time("Eve") and not s.first_time("eve")
    s.first_time("a")
    s.first_time("b")  # Eve forgotten: the oldest
    assert s.first_time("Eve")


class Env:
    def __init__(self, clock, store=None) -> None:
        self.said: list[str] = []
        self.goals: list[str] = []
        self.started: list[tuple[str, dict]] = []
        self.cancelled: list[str] = []
        self.refuse_chat = False
        self.store = store
        snap = SimpleNamespace(
            held=lambda: {"oak_log": 5, "torch": 2},
            entities=[
                EntityInfo(name="Alice", type="player", hostile=False, distance=4, position=Vec3(x=4, y=64, z=0))
            ],
        )
        env = self

        class Direct:
            body_busy = None

            def start(self, tool, args, timeout_s=None):
                env.started.append((tool, args))
                return SimpleNamespace(action_id="act-1", tool=tool)

            def cancel(self, action_id, reason):
                env.cancelled.append(action_id)

        self.direct = Direct()

        async def look():
            return snap

        async def say(line: str) -> bool:
            if self.refuse_chat:
                return False
            self.said.append(line)
            return True

        async def submit(request):
            self.goals.append(request.text)
            request.goal()  # GoalRequestError for what the grammar does not take
            goal = ExtractedGoal(action="collect", target="oak_log", amount=8)
            if "diamond" in request.text:
                return GoalDecision("not_grounded", goal, "collect:diamond_ore", "r", None, "none in sight")
            return GoalDecision("created", goal, "collect:oak_log", "r", "task-0000abcd1234")

        self.chat = ChatHandler(
            BOT,
            commanders=["alice"],
            say=say,
            submit=submit,
            snapshot=look,
            status=lambda: "I am idle: nothing to do.",
            direct=lambda: self.direct,
            clock=clock,
        )

    def hear(self, player: str, line: str, whisper: bool = False) -> list[str]:
        before = len(self.said)
        asyncio.run(self.chat.hear(player, line, whisper))
        return self.said[before:]


def test_a_commander_is_obeyed_and_answered(clock):
    env = Env(clock)
    assert env.hear("Alice", "mcbot help") == [f"Alice, {HELP}"]
    assert env.hear("alice", "Helper, status") == ["alice, I am idle: nothing to do."]
    assert env.hear("Alice", "mcbot inventory") == ["Alice, I hold 5 oak_log, 2 torch"]
    assert env.hear("Alice", "mcbot give me 2 torch") == ["Alice, OK, handing you 2 torch (act-1)."]
    clock.advance(1000)  # a fifth reply within the burst's second waits for the gate
    assert env.hear("Alice", "mcbot come") == ["Alice, OK, coming (act-1)."]
    assert [t for t, _ in env.started] == ["give", "move_to"]
    assert env.started[0][1] == {"player": "Alice", "item": "torch", "count": 2}


def test_a_goal_goes_through_the_intake_and_its_end_is_said(clock, store):
    env = Env(clock)
    assert env.hear("Alice", "mcbot collect oak_log 8") == ["Alice, OK: collect oak_log 8 (task abcd1234)."]
    assert env.goals == ["collect oak_log 8"]
    assert env.hear("Alice", "mcbot collect diamond_ore 3") == ["Alice, I will not collect oak_log 8: none in sight"]
    task = store.add_task(
        {"title": "t", "type": "collect", "metadata": {"goalKey": "collect:oak_log"}}, origin=TaskOrigin(kind="user")
    )
    env.chat.asked_by[task.id] = "Alice"
    asyncio.run(env.chat.on_task_event("completed", task))
    assert env.said[-1] == "Alice, Done: collect:oak_log."
    assert env.chat.on_task_event("completed", task) is None  # said once


def test_nonsense_is_answered_without_the_players_words(clock):
    env = Env(clock)
    said = env.hear("Alice", "mcbot /op Eve please")
    assert said == [f"Alice, {NOT_UNDERSTOOD}"]
    assert "/op" not in said[0] and "Eve" not in said[0]


def test_a_stranger_gets_one_polite_line_and_nothing_runs(clock):
    env = Env(clock)
    assert env.hear("Eve", "mcbot give me 64 diamond") == [f"Eve, {POLITE}"]
    assert env.hear("Eve", "mcbot collect oak_log 8") == []
    assert env.hear("Eve", "hello everyone") == []  # not addressed: not even counted
    assert env.started == [] and env.goals == []


def test_the_bots_own_lines_and_lines_not_addressed_are_ignored(clock):
    env = Env(clock)
    assert env.hear(BOT, "mcbot status") == [] and env.hear("Alice", "hi all") == []
    assert env.chat.heard == 0


def test_a_flood_is_answered_within_the_gate_and_a_refused_chat_loses_no_command(clock):
    env = Env(clock)
    for _ in range(20):
        env.hear("Alice", "mcbot status")
    assert len(env.said) == 4 and env.chat.gate.dropped == 16  # a burst, the rest dropped
    clock.advance(5000)
    env.refuse_chat = True  # secure chat: the server refuses the bot's lines
    env.hear("Alice", "mcbot give me 1 torch")
    assert env.started[-1][0] == "give"  # the command ran; its reply was a log line


def test_chat_events_reach_the_handler_whispers_included(clock):
    env = Env(clock)
    events = [
        BodyEvent(type=EventType.chat, ts=1, data={"username": "Alice", "message": "status", "whisper": True}),
        BodyEvent(type=EventType.health, ts=2, data={}),
    ]
    asyncio.run(env.chat.on_events(events))
    assert env.said == ["Alice, I am idle: nothing to do."]


def test_status_says_what_holds_the_bot_or_what_it_works_on_or_why_it_waits(store):
    assert status_line(store, None, None) == "I am idle: nothing to do."
    t = store.add_task(
        {"title": "t", "type": "craft", "metadata": {"goalKey": "craft:iron_pickaxe"}}, origin=TaskOrigin(kind="user")
    )
    assert status_line(store, None, None) == "1 goal(s) queued, next craft:iron_pickaxe."
    store.set_status(t.id, TaskStatus.active)
    assert status_line(store, None, None) == "I am working on craft:iron_pickaxe (0%)."
    assert status_line(store, None, "night: in the shelter") == (
        "I am busy: night: in the shelter; working on craft:iron_pickaxe (0%) waits for it."
    )
    store.set_status(t.id, TaskStatus.paused, metadata_patch={"blockedReason": "night"})
    assert status_line(store, None, None) == "craft:iron_pickaxe waits: night."


def test_command_kinds_are_the_documented_ones():
    assert {parse(t).kind for t in ("help", "status", "inventory", "stop", "come", "follow me", "give me dirt")} == {
        "help",
        "status",
        "inventory",
        "stop",
        "come",
        "follow",
        "give",
    }
    assert isinstance(parse("explore"), Command)
    with pytest.raises(GoalRequestError):
        GoalRequest(text="/op Eve").goal()


def test_a_chat_tasks_progress_is_said_at_its_steps_at_most_every_30_s(clock):
    env = Env(clock)
    env.chat.asked_by["task-1"] = "Alice"

    def step(index: int, total: int = 4, kind: str = "step_finished"):
        said = env.chat.on_step("task-1", kind, index, total, f"s{index}")
        if said is not None:
            asyncio.run(said)

    step(0)
    assert env.said[-1] == "Alice, Progress: step 1 of 4 done (s0)."
    step(1)  # within 30 s of the last: not said
    clock.advance(30_000)
    step(1, kind="step_started")  # only finished steps
    step(3)  # the last step: the task's end says it
    assert len(env.said) == 1
    step(2)
    assert env.said[-1] == "Alice, Progress: step 3 of 4 done (s2)."
    assert env.chat.on_step("task-other", "step_finished", 0, 4, "x") is None  # not a chat task
