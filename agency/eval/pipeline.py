"""One scenario through keep-alive's thought pipeline (docs/contracts.md EVAL-3, EVAL-6,
PROPERTY-1..3).

The same steps KeepAlive._introspect/_publish take, with the frame composed from the
scenario instead of live state: build_frame under the profile -> the LLM generator ->
build_llm_thought (sanitizer, goalTags/intentExtractions) -> eligibility.decide
(grounding against the frame, routing) -> apply_decision. The thought id is the scenario
id, so grounding's `[Grounding] fail scenario=<ID>` names the scenario (PROPERTY-1).

End-to-end mode then publishes the thought to a real CognitiveStream and lets the real
PlanningConsumer poll, convert and ack it against a real task store (one temp SQLite
file per scenario, so scenarios never dedup each other's goals).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from loguru import logger

from agency.clock import Clock
from agency.cognition.counters import AgencyCounters
from agency.cognition.eligibility import EligibilityDecision, apply_decision, decide, default_is_routable
from agency.cognition.llm_thoughts import Generation, LlmThoughtGenerator
from agency.cognition.sanitizer import build_llm_thought
from agency.cognition.situation_frame import SituationFrame, build_frame
from agency.eval.suite import PreparedScenario
from agency.planning.consumer import PlanningConsumer
from agency.planning.tasks.models import TaskStatus
from agency.planning.tasks.store import SqliteTaskStore
from agency.stream.cognitive_stream import CognitiveStream
from agency.thoughts import Thought

Mode = Literal["thought_only", "end_to_end"]
MAX_PLANNING_POLLS = 5  # one thought per scenario: the second poll must already be empty


@dataclass
class ScenarioResult:
    scenario: PreparedScenario
    frame: SituationFrame
    generation: Generation
    thought: Thought | None = None  # None: the model said nothing usable
    decision: EligibilityDecision | None = None
    started_ms: int = 0
    finished_ms: int = 0
    planning: dict[str, Any] | None = None
    properties: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def goal(self) -> Any:
        return self.thought.metadata.extractedGoal if self.thought is not None else None

    @property
    def convert_eligible(self) -> bool:
        return bool(self.thought is not None and self.thought.convertEligible is True)


def scenario_frame(sc: PreparedScenario, profile: str) -> SituationFrame:
    return build_frame(sc.snapshot, profile, previous=sc.previous, stimuli=sc.stimuli, memories=sc.memory)


def to_thought(
    raw: str, sc: PreparedScenario, frame: SituationFrame, now_ms: int, counters: AgencyCounters
) -> tuple[Thought | None, EligibilityDecision | None]:
    """KeepAlive._publish's steps, minus publishing; (None, None) when nothing is left."""
    draft = build_llm_thought(
        raw, now_ms=now_ms, counters=counters, thought_type="introspection", cognitive_system="keepalive"
    )
    if not draft.content:
        return None, None  # keep-alive stays silent here too, even if a tag was present
    meta = draft.metadata.model_copy(update={"source": "keepalive", "frameProfile": frame.profile})
    draft = draft.model_copy(update={"id": sc.id, "metadata": meta, "tags": ["keepalive"]})
    decision = decide(draft, frame.world, is_routable=default_is_routable)
    return apply_decision(draft, decision), decision


def log_goal_lines(r: ScenarioResult) -> None:
    sid, goal = r.scenario.id, r.goal
    if goal is None:
        logger.info("[Eval] no_goal scenario={} convertEligible={}", sid, "true" if r.convert_eligible else "false")
    elif r.convert_eligible:
        logger.info(
            "[Eval] goal_emitted scenario={} action={} target={} grounding=pass routable=true",
            sid,
            goal.action,
            goal.target,
        )
    else:
        d = r.decision
        grounding = (d.grounding.reason or "pass") if d and d.grounding else "none"
        logger.info(
            "[Eval] goal_rejected scenario={} action={} target={} reason={} grounding={}",
            sid,
            goal.action,
            goal.target,
            d.reason if d else "none",
            grounding,
        )


def run_planning(thought: Thought | None, db: Path, clock: Clock) -> dict[str, Any]:
    """Publish to a real stream, poll the real planning consumer until the feed is empty."""
    stream = CognitiveStream(db, clock=clock)
    store = SqliteTaskStore(db, clock=clock)
    try:
        if thought is not None:
            stream.publish(thought)
        consumer = PlanningConsumer(stream, store, clock)
        stats: dict[str, Any] = {"polls": 0, "fetched": 0, "acked": 0, "converted": 0, "skipped": 0, "errors": 0}
        for _ in range(MAX_PLANNING_POLLS):
            poll = consumer.poll_once()
            stats["polls"] += 1
            if poll.fetched == 0:
                break
            stats["fetched"] += poll.fetched
            stats["acked"] += len(poll.ack.acked) if poll.ack else 0
            for status in ("converted", "skipped"):
                stats[status] += poll.batch.count(status)
            stats["errors"] += poll.batch.count("error")
        tasks = store.list_by_status(*TaskStatus)
        stored = stream.get(thought.id) if thought is not None else None
        stats["tasks_created"] = len(tasks)
        stats["tasks"] = [
            {"id": t.id, "title": t.title, "goalKey": t.metadata.goalKey, "status": t.status.value} for t in tasks
        ]
        stats["thought_processed"] = stored.processed if stored is not None else None
        stats["thought_processed_by"] = stored.processedBy if stored is not None else None
        return stats
    finally:
        stream.close()
        store.close()


async def run_scenario(
    sc: PreparedScenario,
    *,
    profile: str,
    seed: int,
    mode: Mode,
    generator: LlmThoughtGenerator,
    counters: AgencyCounters,
    clock: Clock,
    work_dir: Path | None,
) -> ScenarioResult:
    frame = scenario_frame(sc, profile)
    logger.info(
        "[Eval] scenario_run id={} profile={} facts={} memories={} deltas={} seed={}",
        sc.id,
        frame.profile,
        len(frame.facts),
        len(frame.memories),
        len(frame.deltas),
        seed,
    )
    started = clock()
    gen = await generator.acomplete(frame, counters=counters)
    result = ScenarioResult(sc, frame, gen, started_ms=started)
    if gen.status == "ok" and gen.text is not None:
        result.thought, result.decision = to_thought(gen.text, sc, frame, clock(), counters)
    log_goal_lines(result)
    if mode == "end_to_end":
        assert work_dir is not None
        result.planning = run_planning(result.thought, work_dir / f"{sc.id}.db", clock)
    result.finished_ms = clock()
    return result
