"""Keep-alive loop: docs/contracts.md KEEPALIVE-1..8 with a frozen clock, frames under
profiles, the 10-minute stable scenario."""

from __future__ import annotations

import ast
import itertools
import re
import subprocess
import sys
from pathlib import Path

import pytest

import agency.cognition.keepalive as keepalive_mod
import agency.cognition.situation_frame as frame_mod
from agency.cognition.drive_memory import DriveTickState
from agency.cognition.drive_tick import evaluate_drive_tick
from agency.cognition.keepalive import KeepAlive, KeepAliveConfig, memory_slice
from agency.cognition.sanitizer import build_llm_thought
from agency.cognition.situation_frame import PROFILES, build_frame, snapshot_facts
from agency.perception.stimuli import Perception, Stimulus
from agency.planning.consumer import IdleReporter, PlanningConsumer
from agency.stream.cognitive_stream import CognitiveStream
from agency.thoughts import Thought
from agency.world import EntityInfo, Vec3

ACTION_VERBS = (
    "explore",
    "gather",
    "craft",
    "collect",
    "mine",
    "build",
    "hunt",
    "attack",
    "flee",
    "navigate",
    "chop",
    "harvest",
)
ADVICE = ("you should", "should", "consider", "try to", "[goal", "goal", "task", "suggest")


def ent(name, hostile=False):
    return EntityInfo(name=name, type="mob", hostile=hostile, distance=6, position=Vec3(x=2, y=64, z=2))


def msgs(logs):
    return [m for _, m in logs]


class Scripted:
    """Deterministic ThoughtGenerator: returns the scripted replies in order, then repeats the last."""

    def __init__(self, *replies):
        self.replies = list(replies)
        self.frames = []

    def generate(self, frame):
        self.frames.append(frame)
        return self.replies[min(len(self.frames) - 1, len(self.replies) - 1)]


@pytest.fixture
def stream(tmp_path, clock):
    s = CognitiveStream(tmp_path / "agency.db", clock=clock)
    yield s
    s.close()


@pytest.fixture
def perception(clock, stream):
    return Perception(clock, publish=stream.publish)


@pytest.fixture
def make_keepalive(stream, perception, clock):
    def make(generator=None, **kw):
        cfg = kw.pop("config", KeepAliveConfig())
        return KeepAlive(stream=stream, perception=perception, clock=clock, generator=generator, config=cfg, **kw)

    return make


@pytest.fixture
def calm(make_snapshot):
    return make_snapshot({"oak_log": 3, "crafting_table": 1}, entities=[ent("cow"), ent("cow")])


def keepalive_thoughts(stream):
    return [t for t in stream.recent(1000) if t.cognitiveSystem == "keepalive"]


# -- KEEPALIVE-1 --------------------------------------------------------------------


def _words_in(text: str, words) -> list[str]:
    return [w for w in words if re.search(rf"\b{re.escape(w)}\b", text, re.IGNORECASE)]


def test_KA_A1_frame_building_code_has_no_action_verbs_or_advice():
    frame_src = Path(frame_mod.__file__).read_text()
    assert _words_in(frame_src, ACTION_VERBS + ADVICE) == []
    keepalive_src = Path(keepalive_mod.__file__).read_text()
    assert _words_in(keepalive_src, (*ACTION_VERBS, "you should", "should", "suggest")) == []


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_KA_A1_rendered_frames_are_factual_only(profile, make_snapshot):
    prev = make_snapshot({"oak_log": 1}, health=20, timeOfDay=10_000)
    cur = make_snapshot(
        {"oak_log": 3, "crafting_table": 1, "wooden_pickaxe": 1},
        health=14,
        food=12,
        hostiles=1,
        timeOfDay=12_000,
        entities=[ent("cow"), ent("zombie", hostile=True)],
    )
    stimuli = [Stimulus("damage", 0, {"hits": 1}), Stimulus("novel_entity", 0, {"names": ["zombie"]})]
    frame = build_frame(cur, profile, previous=prev, stimuli=stimuli, memories=["It is getting dark.", "Cows."])
    assert frame.kind == "factual_only"
    assert _words_in(frame.text, ACTION_VERBS + ADVICE) == []
    p = PROFILES[profile]
    assert len(frame.facts) == min(p.fact_budget, len(snapshot_facts(cur)))
    assert len(frame.deltas) <= p.max_deltas and len(frame.memories) <= p.memory_slice


def test_EV_C3_profiles_change_only_composition(make_snapshot):
    prev = make_snapshot(health=20)
    cur = make_snapshot({"oak_log": 3}, health=12, food=15, hostiles=2)
    mems = [f"memory {i}" for i in range(10)]
    frames = {p: build_frame(cur, p, previous=prev, memories=mems) for p in PROFILES}
    counts = {p: (len(f.facts), len(f.memories), len(f.deltas)) for p, f in frames.items()}
    assert counts == {"minimal": (4, 0, 0), "balanced": (8, 3, 3), "rich": (9, 8, 4)}  # rich: every fact and change
    assert ";" in frames["minimal"].text and "\n" not in frames["minimal"].text
    assert frames["balanced"].text.startswith("- health 12/20")
    assert frames["rich"].text.startswith("Facts:\n") and "Changes:" in frames["rich"].text
    # The same facts, just more or fewer of them: every minimal fact is in the rich frame.
    assert set(frames["minimal"].facts) <= set(frames["rich"].facts)


def test_KA_A1_introspection_log_line(make_keepalive, calm, logs):
    ka = make_keepalive(config=KeepAliveConfig(profile="minimal"))
    out = ka.tick(calm)
    assert out.status == "framed"
    assert "[KeepAlive] introspection frame_kind=factual_only profile=minimal facts=4 memories=0 deltas=0" in msgs(logs)


def test_memory_slice_leaves_out_drive_ticks_and_goal_thoughts(make_snapshot, clock):
    drive = evaluate_drive_tick(make_snapshot(), clock(), DriveTickState(), []).thought

    goal = build_llm_thought("Wood. [GOAL: collect oak_log 2]", now_ms=clock())
    plain = Thought(content="Quiet morning.", timestamp=clock())
    posted = Thought(content="Go explore the cave.", timestamp=clock(), cognitiveSystem="external")
    assert memory_slice([drive, goal, posted, plain], 3) == ["Quiet morning."]


# -- KEEPALIVE-2 --------------------------------------------------------------------


def test_KA_A2_goal_less_output_published_non_actionable(make_keepalive, calm, stream, logs):
    out = make_keepalive(Scripted("The cows are grazing. It is quiet.")).tick(calm)
    t = out.thought
    assert out.status == "published" and t.convertEligible is False and t.processed is False
    assert t.metadata.source == "keepalive" and t.metadata.convertEligibleReason == "no_goal"
    assert f"[Cognition] keepalive_thought published id={t.id} convertEligible=false processed=false" in msgs(logs)
    assert stream.get(t.id).convertEligible is False
    assert stream.actionable(10).count == 0


def test_KA_A2_intent_label_alone_stays_non_actionable(make_keepalive, calm):
    out = make_keepalive(Scripted("Calm here.\nINTENT: explore")).tick(calm)
    assert out.thought.convertEligible is False


def test_KA_A2_ungrounded_goal_stays_non_actionable_and_logs_grounding_fail(make_keepalive, calm, logs):
    out = make_keepalive(Scripted("Diamonds! [GOAL: collect diamond 3]")).tick(calm)
    t = out.thought
    assert t.convertEligible is False and t.metadata.extractedGoal is not None
    assert t.metadata.grounding == {"pass": False, "reason": "missing_item", "detail": "collect diamond: not in frame"}
    assert f"[Grounding] fail scenario={t.id} reason=missing_item" in msgs(logs)
    assert f"[Cognition] keepalive_thought published id={t.id} convertEligible=false processed=false" in msgs(logs)


def test_KA_A2_unroutable_goal_stays_non_actionable(make_keepalive, calm):
    out = make_keepalive(Scripted("Logs. [GOAL: collect oak_log 2]"), is_routable=lambda g: False).tick(calm)
    assert out.thought.convertEligible is False and out.thought.metadata.routable is False


def test_I3_explicit_grounded_routable_goal_becomes_actionable(make_keepalive, calm, stream, logs):
    out = make_keepalive(Scripted("I have logs. [GOAL: collect oak_log 4]")).tick(calm)
    t = out.thought
    assert t.convertEligible is True and t.metadata.grounding["pass"] is True and t.metadata.routable is True
    assert f"[Cognition] keepalive_thought published id={t.id} convertEligible=true processed=false" in msgs(logs)
    assert [x.id for x in stream.actionable(10)] == [t.id]


# -- KEEPALIVE-3 --------------------------------------------------------------------


def test_KA_A3_ten_minute_stable_scenario_has_zero_actionable_and_zero_tasks(
    make_keepalive, perception, stream, store, calm, clock, logs
):
    gen = Scripted("Two cows nearby. Everything is calm.", "Still calm.", "Nothing has changed.")
    ka = make_keepalive(gen)
    consumer = PlanningConsumer(stream, store, clock)
    idle = IdleReporter(store, clock)
    for _ in range(60):  # a tick every 10 s for 10 minutes
        update = perception.observe(calm)
        ka.tick(calm, update.stimuli)
        assert stream.actionable(10).count == 0
        consumer.poll_once()
        assert idle.check() is True
        clock.advance(10_000)
    assert store.list_by_status() == []
    assert len(gen.frames) == 5  # t = 0, 120, 240, 360, 480 s
    assert len(keepalive_thoughts(stream)) == 5
    lines = msgs(logs)
    assert not any(m.startswith("[Thought-to-task] ack batch") for m in lines)
    assert all(m.startswith("[CognitiveStream] /actionable: returned=0") for m in lines if "/actionable:" in m)
    q = [m for m in lines if "queue_size=" in m]
    assert q and re.fullmatch(r"\[CognitiveStream\] /actionable: returned=0 queue_size=\d+ filtered_out=\d+", q[-1])
    assert "[Planning] [AUTONOMOUS EXECUTOR] Idle detected: no_tasks (active=0, eligible=0)" in lines


# -- KEEPALIVE-4 --------------------------------------------------------------------


def test_KA_A4_cooldown_skips_until_120s_boundary(make_keepalive, calm, clock, logs):
    gen = Scripted("Quiet.")
    ka = make_keepalive(gen)
    assert ka.tick(calm).status == "published"
    clock.advance(60_000)
    out = ka.tick(calm)
    assert (out.status, out.remaining_ms) == ("skipped", 60_000)
    assert "[KeepAlive] skip reason=cooldown remaining_ms=60000" in msgs(logs)
    clock.advance(59_999)
    assert ka.tick(calm).remaining_ms == 1
    assert "[KeepAlive] skip reason=cooldown remaining_ms=1" in msgs(logs)
    clock.advance(1)  # exactly KEEPALIVE_MIN_INTERVAL_MS
    assert ka.tick(calm).status == "published"
    assert len(gen.frames) == 2


def test_KA_A4_interval_is_configurable(make_keepalive, calm, clock):
    ka = make_keepalive(config=KeepAliveConfig(min_interval_ms=5_000))
    ka.tick(calm)
    clock.advance(4_999)
    assert ka.tick(calm).status == "skipped"
    clock.advance(1)
    assert ka.tick(calm).status == "framed"


def test_KA_A4_no_generator_still_rate_limits_frames(make_keepalive, calm, clock, logs):
    ka = make_keepalive()
    for _ in range(12):  # every 10 s for 2 minutes
        ka.tick(calm)
        clock.advance(10_000)
    assert sum(m.startswith("[KeepAlive] introspection") for m in msgs(logs)) == 1


# -- KEEPALIVE-5 --------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["threat_delta", "damage", "hunger_drop", "health_drop", "novel_entity"])
def test_KA_A5_stimulus_bypasses_cooldown_with_reason(kind, make_keepalive, calm, clock, logs):
    ka = make_keepalive(Scripted("Something changed."))
    ka.tick(calm)
    clock.advance(1_000)
    out = ka.tick(calm, [Stimulus(kind, clock())])
    assert out.status == "published" and out.bypass == kind
    assert f"[KeepAlive] bypass cooldown reason={kind}" in msgs(logs)


def test_KA_A5_eval_poke_bypasses_cooldown(make_keepalive, calm, clock, logs):
    ka = make_keepalive()
    ka.tick(calm)
    clock.advance(1)
    assert ka.poke(calm).bypass == "eval_poke"
    assert "[KeepAlive] bypass cooldown reason=eval_poke" in msgs(logs)


def test_KA_A5_no_bypass_log_when_not_in_cooldown(make_keepalive, calm, logs):
    make_keepalive().tick(calm, [Stimulus("damage", 0)])
    assert not any("bypass cooldown" in m for m in msgs(logs))


def test_KA_A5_most_urgent_reason_reported(make_keepalive, calm, clock, logs):
    ka = make_keepalive()
    ka.tick(calm)
    out = ka.tick(calm, [Stimulus("novel_entity", 0), Stimulus("threat_delta", 0)])
    assert out.bypass == "threat_delta"


def test_KA_A5_perceived_threat_bypasses_end_to_end(make_keepalive, perception, calm, make_snapshot, clock, logs):
    ka = make_keepalive()
    ka.tick(calm, perception.observe(calm).stimuli)
    clock.advance(10_000)
    danger = make_snapshot({"oak_log": 3}, hostiles=1, entities=[ent("cow"), ent("cow"), ent("zombie", True)])
    assert ka.tick(danger, perception.observe(danger).stimuli).bypass == "threat_delta"


# -- KEEPALIVE-6 --------------------------------------------------------------------


def test_KA_A6_refresh_goes_through_perception_with_keepalive_source(make_keepalive, perception, calm, stream, logs):
    perception.observe(calm)  # the pipeline has a snapshot; its own awareness goes out now
    ka = make_keepalive()
    ka.tick(calm)
    assert "[KeepAlive] request_perception_refresh type=environmental_awareness source=keepalive" in msgs(logs)
    # Same scene inside 30 s: the refresh was deduped, keep-alive fabricated nothing.
    aw = [t for t in stream.recent(50) if t.type == "environmental_awareness"]
    assert [t.metadata.source for t in aw] == ["perception"]


def test_KA_A6_refresh_event_reaches_stream(make_keepalive, perception, calm, stream, clock):
    perception.observe(calm)
    clock.advance(30_000)
    make_keepalive().tick(calm)
    aw = [t for t in stream.recent(50) if t.type == "environmental_awareness"]
    assert aw[0].metadata.source == "keepalive" and aw[0].convertEligible is False and aw[0].processed is False


# -- KEEPALIVE-7 --------------------------------------------------------------------


def test_KA_A7_keepalive_does_not_raise_identical_percept_rate(make_keepalive, perception, calm, stream, clock):
    ka = make_keepalive()
    for _ in range(60):
        perception.observe(calm)
        ka.poke(calm)  # worst case: an introspection (and refresh) on every tick
        clock.advance(10_000)
    aw = [t for t in stream.recent(1000) if t.type == "environmental_awareness"]
    assert len(aw) == 20  # 10 min / 30 s, same as perception alone
    stamps = sorted(t.timestamp for t in aw)
    assert all(b - a >= 30_000 for a, b in itertools.pairwise(stamps))


# -- KEEPALIVE-8 and AUTONOMY-2 -----------------------------------------------------------


def test_KA_A8_keepalive_module_does_not_import_task_creation():
    tree = ast.parse(Path(keepalive_mod.__file__).read_text())
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not {
        m for m in imported if m and (m.startswith("agency.planning.tasks") or m == "agency.planning.converter")
    }
    code = (
        "import sys, agency.cognition.keepalive; "
        "print(sorted(m for m in sys.modules if m.startswith('agency.planning.tasks') or m in "
        "('agency.planning.converter', 'agency.planning.consumer')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=Path(keepalive_mod.__file__).parent.parent,
    )
    assert out.stdout.strip() == "[]"  # not even transitively


def test_I2_no_generator_builds_frames_and_publishes_nothing(make_keepalive, calm, stream, logs):
    out = make_keepalive().tick(calm)
    assert out.status == "framed" and out.thought is None and out.frame is not None
    assert keepalive_thoughts(stream) == []
    assert any(m.startswith("[KeepAlive] introspection frame_kind=factual_only profile=balanced") for m in msgs(logs))


def test_generator_silence_and_failure_publish_nothing(make_keepalive, calm, stream, clock, logs):
    assert make_keepalive(Scripted(None)).tick(calm).status == "silent"

    class Broken:
        def generate(self, frame):
            raise TimeoutError("model took too long")

    out = make_keepalive(Broken()).tick(calm)
    assert out.status == "error" and "TimeoutError" in out.error
    assert keepalive_thoughts(stream) == []


def test_disabled_keepalive_does_nothing(make_keepalive, calm, logs):
    assert make_keepalive(config=KeepAliveConfig(enabled=False)).tick(calm).status == "disabled"
    assert not any(m.startswith("[KeepAlive]") for m in msgs(logs))


def test_unknown_profile_fails_at_construction(make_keepalive):
    with pytest.raises(ValueError, match="unknown prompt profile"):
        make_keepalive(config=KeepAliveConfig(profile="verbose"))


def test_llm_calls_counted(make_keepalive, calm, counters):
    make_keepalive(Scripted("Quiet."), counters=counters).tick(calm)
    assert counters.llmCalls == 1
