"""Recording fix (docs/contracts.md DEDUP-1): content dedup that demotes, never discards.

A thought similar to a recent one is tagged low novelty and not convertible, but it is
still pushed to local history. Low-novelty thoughts that carry a goal are always emitted;
the rest are emitted one in every `low_novelty_broadcast_every`, and every emitted
low-novelty copy carries metadata.fallback=true so consumers can filter them.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass

from agency.clock import Clock
from agency.cognition.counters import AgencyCounters
from agency.thoughts import Thought

_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class RecordOutcome:
    recorded: Thought  # the copy kept in local history
    broadcast: Thought | None  # the copy to emit on the stream, None when held back
    content_duplicate: bool


def _words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of word sets; two empty texts count as identical."""
    wa, wb = _words(a), _words(b)
    if not wa and not wb:
        return 1.0
    return len(wa & wb) / len(wa | wb)


def _is_drive_tick(t: Thought) -> bool:
    return t.cognitiveSystem == "drive-tick" or t.metadata.extractedGoalSource == "drive-tick"


class ThoughtRecorder:
    def __init__(
        self,
        counters: AgencyCounters,
        clock: Clock,
        *,
        history_limit: int = 200,
        compare_last: int = 10,
        similarity_threshold: float = 0.8,
        dedup_window_ms: int = 600_000,
        low_novelty_broadcast_every: int = 5,
    ) -> None:
        self._counters = counters
        self._clock = clock
        self._history: deque[Thought] = deque(maxlen=history_limit)
        self._compare_last = compare_last
        self._threshold = similarity_threshold
        self._window_ms = dedup_window_ms
        self._every = low_novelty_broadcast_every
        self._low_plain_seen = 0  # non-task-worthy low-novelty thoughts so far

    @property
    def history(self) -> tuple[Thought, ...]:
        return tuple(self._history)

    def _similar_to_recent(self, content: str) -> bool:
        now = self._clock()
        recent = list(self._history)[-self._compare_last :]
        return any(
            now - t.timestamp <= self._window_ms and similarity(content, t.content) >= self._threshold for t in recent
        )

    def record(self, thought: Thought) -> RecordOutcome:
        duplicate = False
        # Drive ticks repeat by design; their repeats are governed by goalKey idempotency,
        # and demoting them would block the stuck-timeout recovery path.
        if not _is_drive_tick(thought) and thought.novelty != "low" and self._similar_to_recent(thought.content):
            duplicate = True
            self._counters.increment("contentSuppressions")
            thought = thought.model_copy(update={"novelty": "low", "convertEligible": False})
        elif thought.novelty == "low" and thought.convertEligible:
            thought = thought.model_copy(update={"convertEligible": False})

        self._history.append(thought)
        if thought.novelty != "low":
            return RecordOutcome(recorded=thought, broadcast=thought, content_duplicate=duplicate)

        self._counters.increment("lowNoveltyRecorded")
        if thought.metadata.extractedGoal is None:
            self._low_plain_seen += 1
            if (self._low_plain_seen - 1) % self._every != 0:
                return RecordOutcome(recorded=thought, broadcast=None, content_duplicate=duplicate)
        self._counters.increment("lowNoveltyBroadcast")
        meta = thought.metadata.model_copy(update={"fallback": True})
        copy = thought.model_copy(update={"metadata": meta})
        return RecordOutcome(recorded=thought, broadcast=copy, content_duplicate=duplicate)
