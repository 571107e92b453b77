"""Keep-alive observation loop (docs/contracts.md KEEPALIVE-1..8).

Each tick may run one introspection: ask perception for a refresh (through the perception
pipeline, never a fabricated percept), compose a factual-only situation frame, hand it to a
ThoughtGenerator, and publish whatever it says as a non-actionable thought unless the
model's own explicit goal passes extraction, grounding and routing (agency.cognition.eligibility).

- KEEPALIVE-4: introspections are at least min_interval_ms apart (KeepAliveConfig,
  default 120 s); a tick inside the cooldown logs the remaining time and does nothing.
- KEEPALIVE-5: only a stimulus (threat_delta, damage, hunger_drop, health_drop, novel_entity)
  or an eval poke bypasses the cooldown, and the reason is logged.
- AUTONOMY-2: with no generator configured, frames are built and logged, nothing is published.
- Dedup (DEDUP-1, DEDUP-2): with a SituationGate, a banded situation that repeats
  skips the model and records a low-novelty fallback thought instead (a stimulus counts as
  news); with a ThoughtRecorder, a reply like a recent thought is demoted, and low-novelty
  plain thoughts reach the stream one in five, flagged metadata.fallback. build_keepalive
  wires both, as the daemon runs it.
- The daemon awaits atick/apoke on its event loop: the model call is awaited there, so
  the stream and every other agency store are only touched from the loop. tick/poke run
  the same body synchronously (tests, scripts), calling the generator's blocking generate.
- KEEPALIVE-8: this module never touches task creation (no agency.planning.tasks, no agency.planning.converter
  import; a test checks it) and never sets convertEligible itself.
"""

from __future__ import annotations

from collections.abc import Coroutine, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from loguru import logger

from agency.clock import Clock
from agency.cognition.counters import AgencyCounters
from agency.cognition.eligibility import Routable, apply_decision, decide, default_is_routable
from agency.cognition.sanitizer import build_llm_thought
from agency.cognition.settings import KeepAliveConfig  # the one schema, also the [keepalive] section
from agency.cognition.situation import SituationDecision, SituationGate
from agency.cognition.situation_frame import SituationFrame, build_frame, get_profile
from agency.cognition.thought_recorder import ThoughtRecorder
from agency.goal_tag import find_goal_opener
from agency.log_rate import LogRate
from agency.perception.stimuli import Perception, Stimulus
from agency.thoughts import Thought, ThoughtMetadata, novelty_for
from agency.world import WorldSnapshot

# The order a reason is reported in when several stimuli arrive together: most urgent first.
BYPASS_ORDER: tuple[str, ...] = ("threat_delta", "damage", "health_drop", "hunger_drop", "novel_entity")
BypassReason = Literal["threat_delta", "damage", "hunger_drop", "health_drop", "novel_entity", "eval_poke"]
MEMORY_CANDIDATES = 50  # recent thoughts scanned for the memory slice
FALLBACK_FACTS = 4  # facts restated by a signature-dedup fallback thought


class ThoughtGenerator(Protocol):
    """Turns a situation frame into raw model text; None means 'nothing to say' (valid).
    A generator may also have `async def agenerate(frame)`, the same answer awaited:
    KeepAlive.atick awaits it when there is one (LlmThoughtGenerator has it)."""

    def generate(self, frame: SituationFrame) -> str | None: ...


class ThoughtSink(Protocol):
    """The part of the cognitive stream keep-alive uses."""

    def publish(self, thought: Thought) -> Thought: ...

    def recent(self, limit: int = 20, processed: bool | None = None) -> Sequence[Thought]: ...


@dataclass(frozen=True)
class KeepAliveOutcome:
    # held: recorded in local history, held back from the stream (low-novelty one-in-five)
    status: Literal["disabled", "skipped", "framed", "silent", "published", "held", "error"]
    frame: SituationFrame | None = None
    thought: Thought | None = None
    bypass: BypassReason | None = None
    situation: SituationDecision | None = None  # the SituationGate's verdict, when one is wired
    remaining_ms: int | None = None
    error: str | None = None


def bypass_reason(stimuli: Sequence[Stimulus], poke: bool) -> BypassReason | None:
    if poke:
        return "eval_poke"
    kinds = {s.kind for s in stimuli}
    return next((k for k in BYPASS_ORDER if k in kinds), None)


def memory_slice(thoughts: Sequence[Thought], n: int) -> list[str]:
    """Newest-first thought texts for the frame. Drive-tick thoughts, externally posted
    thoughts and any thought that carries a goal, or still holds a goal tag in its text (a
    later tag, or one after a broken first tag), are left out: replaying them would put a
    proposal into the frame (AUTONOMY-1). Dedup fallback copies are repeats: nothing to remember."""
    out: list[str] = []
    for t in thoughts:
        if len(out) >= n:
            break
        if t.cognitiveSystem in ("drive-tick", "external") or t.metadata.extractedGoal is not None:
            continue
        if find_goal_opener(t.content, 0) != -1:
            continue
        if t.metadata.fallback:
            continue
        out.append(t.content)
    return out


class KeepAlive:
    def __init__(
        self,
        *,
        stream: ThoughtSink,
        perception: Perception,
        clock: Clock,
        generator: ThoughtGenerator | None = None,
        config: KeepAliveConfig = KeepAliveConfig(),
        is_routable: Routable = default_is_routable,
        counters: AgencyCounters | None = None,
        recorder: ThoughtRecorder | None = None,
        gate: SituationGate | None = None,
    ) -> None:
        get_profile(config.profile)  # fail at wiring time, not on the first tick
        self._stream = stream
        self._perception = perception
        self._clock = clock
        self._generator = generator
        self._config = config
        self._is_routable = is_routable
        self._counters = counters
        self._recorder = recorder
        self._gate = gate
        self._last_introspection_ms: int | None = None
        self._last_frame_snapshot: WorldSnapshot | None = None
        self._cooldown_log = LogRate("[KeepAlive] skip reason=cooldown", clock=lambda: clock() / 1000)

    @property
    def last_introspection_ms(self) -> int | None:
        return self._last_introspection_ms

    async def apoke(self, snapshot: WorldSnapshot) -> KeepAliveOutcome:
        """An explicit external poke (POST /api/keepalive/poke, evals): bypasses cooldown."""
        return await self.atick(snapshot, poke=True)

    async def atick(
        self, snapshot: WorldSnapshot, stimuli: Sequence[Stimulus] = (), *, poke: bool = False
    ) -> KeepAliveOutcome:
        """One scheduled keep-alive step, on the event loop: the model call is awaited
        (the generator's agenerate, when it has one). stimuli: what perception derived
        since the last tick."""
        return await self._tick(snapshot, stimuli, poke, awaiting=True)

    def poke(self, snapshot: WorldSnapshot) -> KeepAliveOutcome:
        """apoke, blocking."""
        return self.tick(snapshot, poke=True)

    def tick(
        self, snapshot: WorldSnapshot, stimuli: Sequence[Stimulus] = (), *, poke: bool = False
    ) -> KeepAliveOutcome:
        """atick, blocking: the same body run on this thread, with the generator's generate."""
        return _run_unsuspended(self._tick(snapshot, stimuli, poke, awaiting=False))

    async def _tick(
        self, snapshot: WorldSnapshot, stimuli: Sequence[Stimulus], poke: bool, *, awaiting: bool
    ) -> KeepAliveOutcome:
        """awaiting=False: nothing in here suspends, so tick can run it without a loop."""
        if not self._config.enabled:
            return KeepAliveOutcome("disabled")
        now = self._clock()
        bypass: BypassReason | None = None
        if self._last_introspection_ms is not None:
            elapsed = now - self._last_introspection_ms
            if elapsed < self._config.min_interval_ms:
                bypass = bypass_reason(stimuli, poke)
                if bypass is None:
                    remaining = self._config.min_interval_ms - elapsed
                    self._cooldown_log.log("[KeepAlive] skip reason=cooldown remaining_ms={}", remaining)
                    return KeepAliveOutcome("skipped", remaining_ms=remaining)
                logger.info("[KeepAlive] bypass cooldown reason={}", bypass)
        return await self._introspect(snapshot, stimuli, now, bypass, awaiting=awaiting)

    async def _introspect(
        self,
        snapshot: WorldSnapshot,
        stimuli: Sequence[Stimulus],
        now: int,
        bypass: BypassReason | None,
        *,
        awaiting: bool,
    ) -> KeepAliveOutcome:
        logger.info("[KeepAlive] request_perception_refresh type=environmental_awareness source=keepalive")
        self._perception.request_refresh(source="keepalive")
        profile = get_profile(self._config.profile)
        recent = self._stream.recent(MEMORY_CANDIDATES) if profile.memory_slice else []
        frame = build_frame(
            snapshot,
            profile,
            previous=self._last_frame_snapshot,
            stimuli=stimuli,
            memories=memory_slice(recent, profile.memory_slice),
        )
        self._last_introspection_ms = now
        self._last_frame_snapshot = snapshot
        logger.info(
            "[KeepAlive] introspection frame_kind={} profile={} facts={} memories={} deltas={}",
            frame.kind,
            frame.profile,
            len(frame.facts),
            len(frame.memories),
            len(frame.deltas),
        )
        if self._generator is None:
            return KeepAliveOutcome("framed", frame=frame, bypass=bypass)  # AUTONOMY-2: observing is enough
        situation = self._gate.check(snapshot, now, stimulus=bool(stimuli)) if self._gate is not None else None
        if situation == "suppressed":
            logger.info("[KeepAlive] llm_skipped reason=situation_unchanged")
            return self._emit(signature_fallback(frame, now), frame, bypass, situation)
        try:
            if self._counters is not None:
                self._counters.increment("llmCalls")
            agenerate = getattr(self._generator, "agenerate", None) if awaiting else None
            raw = await agenerate(frame) if agenerate is not None else self._generator.generate(frame)
        except Exception as exc:  # noqa: BLE001 - a failing model must not stop the loop
            logger.warning("[KeepAlive] generator failed {}: {}", type(exc).__name__, exc)
            return KeepAliveOutcome(
                "error", frame=frame, bypass=bypass, situation=situation, error=f"{type(exc).__name__}: {exc}"
            )
        if raw is None or not raw.strip():
            return KeepAliveOutcome("silent", frame=frame, bypass=bypass, situation=situation)
        return self._publish(raw, frame, now, bypass, situation)

    def _publish(
        self,
        raw: str,
        frame: SituationFrame,
        now: int,
        bypass: BypassReason | None,
        situation: SituationDecision | None,
    ) -> KeepAliveOutcome:
        draft = build_llm_thought(
            raw,
            now_ms=now,
            origin="heartbeat" if situation == "heartbeat" else "llm",
            counters=self._counters,
            thought_type="introspection",
            cognitive_system="keepalive",
        )
        if not draft.content:
            return KeepAliveOutcome("silent", frame=frame, bypass=bypass, situation=situation)
        meta = draft.metadata.model_copy(update={"source": "keepalive", "frameProfile": frame.profile})
        draft = draft.model_copy(update={"metadata": meta, "tags": ["keepalive"]})
        thought = apply_decision(draft, decide(draft, frame.world, is_routable=self._is_routable))
        return self._emit(thought, frame, bypass, situation)

    def _emit(
        self, thought: Thought, frame: SituationFrame, bypass: BypassReason | None, situation: SituationDecision | None
    ) -> KeepAliveOutcome:
        if self._recorder is not None:
            outcome = self._recorder.record(thought)  # content dedup may demote, never promote
            if outcome.broadcast is None:
                return KeepAliveOutcome(
                    "held", frame=frame, thought=outcome.recorded, bypass=bypass, situation=situation
                )
            thought = outcome.broadcast
        stored = self._stream.publish(thought)
        logger.info(
            "[Cognition] keepalive_thought published id={} convertEligible={} processed={}",
            stored.id,
            _flag(stored.convertEligible),
            _flag(stored.processed),
        )
        return KeepAliveOutcome("published", frame=frame, thought=stored, bypass=bypass, situation=situation)


def signature_fallback(frame: SituationFrame, now_ms: int) -> Thought:
    """The thought recorded instead of a model call while the banded situation repeats:
    the frame's leading facts restated, low novelty, never convertible (DEDUP-2)."""
    facts = "; ".join(frame.facts[:FALLBACK_FACTS])
    return Thought(
        type="introspection",
        content=f"Nothing new since my last thought: {facts}.",
        timestamp=now_ms,
        novelty=novelty_for("signature_dedup"),
        convertEligible=False,
        cognitiveSystem="keepalive",
        tags=["keepalive", "signature-dedup"],
        metadata=ThoughtMetadata(source="keepalive", frameProfile=frame.profile),
    )


def build_keepalive(
    *,
    stream: ThoughtSink,
    perception: Perception,
    clock: Clock,
    generator: ThoughtGenerator | None,
    config: KeepAliveConfig,
    counters: AgencyCounters,
    is_routable: Routable = default_is_routable,
) -> KeepAlive:
    """Keep-alive as the daemon runs it: situation-signature gate and content recorder wired
    to the session's counters."""
    return KeepAlive(
        stream=stream,
        perception=perception,
        clock=clock,
        generator=generator,
        config=config,
        is_routable=is_routable,
        counters=counters,
        recorder=ThoughtRecorder(counters, clock),
        gate=SituationGate(counters, heartbeat_ms=config.heartbeat_ms),
    )


def _flag(value: Any) -> str:
    return "true" if value is True else "false"


def _run_unsuspended(step: Coroutine[Any, Any, KeepAliveOutcome]) -> KeepAliveOutcome:
    """Run a keep-alive step that awaits nothing which suspends (awaiting=False) to its end,
    on this thread, without an event loop: so tick works inside or outside a running loop
    and never moves agency state to another thread."""
    try:
        step.send(None)
    except StopIteration as done:
        outcome: KeepAliveOutcome = done.value
        return outcome
    step.close()
    raise RuntimeError("a blocking keep-alive step suspended; await atick instead")
