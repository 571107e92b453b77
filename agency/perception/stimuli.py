"""Perception: stimulus events and awareness thoughts from successive snapshots and body
events (docs/contracts.md KEEPALIVE-5, KEEPALIVE-6, KEEPALIVE-7).

Stimuli (the only things that may bypass the keep-alive cooldown):
- threat_delta: the hostile count rose since the last snapshot (from 0 before the first
  one; a fall is not a threat).
- damage: an entity_hurt body event about the bot itself.
- health_drop / hunger_drop: health or food fell by MORE than the threshold since the
  last snapshot; health events in between count, so a hit healed before the next
  snapshot still shows.
- novel_entity: a creature kind not seen within entity_memory_ms.

Awareness thoughts are factual ('2 cows and 1 zombie nearby.'), type
environmental_awareness, never convertible. Saliency dedup: a content-identical awareness
thought within dedup_window_ms of the last one PUBLISHED is suppressed, so a stable
scene is reported at most once per window whatever asks (ticks or keep-alive refreshes).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

from loguru import logger

from agency.clock import Clock
from agency.log_rate import LogRate
from agency.thoughts import Thought, ThoughtMetadata
from agency.world import BodyEvent, EventType, WorldSnapshot

StimulusKind = Literal["threat_delta", "damage", "hunger_drop", "health_drop", "novel_entity"]
AWARENESS_TYPE = "environmental_awareness"
AwarenessSource = Literal["perception", "keepalive"]

# Words whose plural is the same word.
_INVARIANT_PLURALS = frozenset({"sheep", "fish", "cod", "salmon", "squid", "axolotl", "glow_squid"})


@dataclass(frozen=True)
class PerceptionConfig:
    health_drop_threshold: float = 2.0  # more than one heart
    hunger_drop_threshold: int = 2  # food points
    entity_memory_ms: int = 300_000  # a kind unseen this long is novel again
    awareness_radius: float = 32.0
    dedup_window_ms: int = 30_000


@dataclass(frozen=True)
class Stimulus:
    kind: StimulusKind
    ts: int
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PerceptionUpdate:
    stimuli: list[Stimulus]
    awareness: Thought | None  # published (or publishable) awareness; None if suppressed


def _plural(name: str, n: int) -> str:
    word = name.replace("_", " ")
    if n == 1 or name in _INVARIANT_PLURALS:
        return word
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def describe_entities(snapshot: WorldSnapshot, radius: float) -> tuple[str, dict[str, int]]:
    """('2 cows and 1 zombie nearby.', {'cow': 2, 'zombie': 1}); most numerous first."""
    counts = Counter(e.name for e in snapshot.entities if e.distance <= radius)
    if not counts:
        return "No creatures nearby.", {}
    ordered = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    parts = [f"{n} {_plural(name, n)}" for name, n in ordered]
    listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    return f"{listed} nearby.", dict(ordered)


def content_hash(content: str) -> str:
    return hashlib.sha256(content.encode("utf-8")).hexdigest()[:12]


class Perception:
    def __init__(
        self,
        clock: Clock,
        *,
        config: PerceptionConfig = PerceptionConfig(),
        publish: Callable[[Thought], Any] | None = None,
        snapshot_provider: Callable[[], WorldSnapshot] | None = None,
    ) -> None:
        self._clock = clock
        self._config = config
        self._publish = publish
        self._provider = snapshot_provider
        self._last: WorldSnapshot | None = None
        self._entity_seen_ms: dict[str, int] = {}
        self._last_emitted: dict[str, int] = {}  # content hash -> when last published
        # a steady scene is suppressed every tick: INFO gets the first and a count per minute
        self._suppressed_log = LogRate(
            "[Saliency] awareness_suppressed", suffix="(dedup)", clock=lambda: clock() / 1000
        )

    @property
    def last_snapshot(self) -> WorldSnapshot | None:
        return self._last

    def observe(self, snapshot: WorldSnapshot, events: Iterable[BodyEvent] = ()) -> PerceptionUpdate:
        """Feed the next snapshot and the body events drained since the previous one."""
        events = list(events)
        now = self._clock()
        stimuli = self._stimuli(snapshot, events, now)
        self._last = snapshot
        return PerceptionUpdate(stimuli=stimuli, awareness=self._awareness(snapshot, "perception", now))

    def request_refresh(self, source: AwarenessSource = "keepalive") -> Thought | None:
        """KEEPALIVE-6: a refresh goes through the same awareness path and the same dedup, so it
        can never add a duplicate percept. Uses a fresh snapshot when a provider is wired,
        else the last one observed; None when there is nothing to perceive yet."""
        snapshot = self._provider() if self._provider is not None else self._last
        if snapshot is None:
            logger.debug("[Perception] refresh requested by {} before any snapshot", source)
            return None
        return self._awareness(snapshot, source, self._clock())

    # -- stimuli ------------------------------------------------------------------

    def _stimuli(self, snap: WorldSnapshot, events: list[BodyEvent], now: int) -> list[Stimulus]:
        cfg = self._config
        out: list[Stimulus] = []
        prev = self._last
        prev_hostiles = prev.hostiles if prev is not None else 0
        if snap.hostiles > prev_hostiles:
            out.append(Stimulus("threat_delta", now, {"from": prev_hostiles, "to": snap.hostiles}))
        hurt = [e for e in events if e.type is EventType.entity_hurt and e.data.get("self") is True]
        if hurt:
            out.append(Stimulus("damage", now, {"hits": len(hurt)}))
        if prev is not None:
            health_seen = [snap.health] + [float(e.data["health"]) for e in events if _num(e, "health")]
            food_seen = [snap.food] + [int(e.data["food"]) for e in events if _num(e, "food")]
            health_drop = prev.health - min(health_seen)
            food_drop = prev.food - min(food_seen)
            if health_drop > cfg.health_drop_threshold:
                out.append(Stimulus("health_drop", now, {"from": prev.health, "to": min(health_seen)}))
            if food_drop > cfg.hunger_drop_threshold:
                out.append(Stimulus("hunger_drop", now, {"from": prev.food, "to": min(food_seen)}))
        names = [e.name for e in snap.entities if e.distance <= cfg.awareness_radius]
        names += [str(e.data["name"]) for e in events if e.type is EventType.entity_appear and e.data.get("name")]
        novel = sorted({n for n in names if now - self._entity_seen_ms.get(n, -(10**18)) >= cfg.entity_memory_ms})
        for n in names:
            self._entity_seen_ms[n] = now
        if novel:
            out.append(Stimulus("novel_entity", now, {"names": novel}))
        return out

    # -- awareness ----------------------------------------------------------------

    def _awareness(self, snap: WorldSnapshot, source: AwarenessSource, now: int) -> Thought | None:
        content, counts = describe_entities(snap, self._config.awareness_radius)
        h = content_hash(content)
        window = self._config.dedup_window_ms
        last = self._last_emitted.get(h)
        if last is not None and now - last < window:
            self._suppressed_log.log(
                "[Saliency] awareness_suppressed reason=dedup window_ms={} content_hash={}", window, h
            )
            return None
        self._last_emitted = {k: v for k, v in self._last_emitted.items() if now - v < window}  # stay bounded
        self._last_emitted[h] = now
        thought = Thought(
            type=AWARENESS_TYPE,
            content=content,
            timestamp=now,
            convertEligible=False,  # a percept informs; it never becomes a task
            cognitiveSystem="perception",
            tags=["awareness"],
            metadata=ThoughtMetadata(source=source, contentHash=h, entityCounts=counts, hostiles=snap.hostiles),
        )
        if self._publish is not None:
            self._publish(thought)
        return thought


def _num(event: BodyEvent, key: str) -> bool:
    return event.type is EventType.health and isinstance(event.data.get(key), (int, float))
