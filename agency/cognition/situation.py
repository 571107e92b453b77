"""Situation-signature dedup (docs/contracts.md DEDUP-2, counted per COUNTER-1): skip the LLM when nothing has changed.

The snapshot is reduced to coarse bands (vitals, threat, time of day, chunk, inventory
buckets). While the banded state repeats, asking the model again would only produce the
same thought, so the call is suppressed and counted. After heartbeat_ms without a call a
'heartbeat' escape lets one through (its thought is medium novelty). A stimulus perceived
since the last cycle (a new creature, damage) is news the bands may not show: always fresh.
"""

from __future__ import annotations

import math
from typing import Literal

from agency.cognition.counters import AgencyCounters
from agency.world import WorldSnapshot, day_phase

SituationDecision = Literal["fresh", "heartbeat", "suppressed"]

DEFAULT_HEARTBEAT_MS = 300_000


def _vital_band(v: float) -> str:
    # 16 is the drive-tick safety threshold, so crossing it always changes the signature.
    if v < 6:
        return "critical"
    if v < 12:
        return "low"
    if v < 16:
        return "mid"
    return "ok"


def _count_bucket(n: int) -> str:
    return "0" if n <= 0 else "1-7" if n < 8 else "8-31" if n < 32 else "32+"


def situation_signature(s: WorldSnapshot) -> str:
    hostiles = "0" if s.hostiles == 0 else "1-2" if s.hostiles <= 2 else "3+"
    chunk = f"{math.floor(s.position.x / 16)},{math.floor(s.position.z / 16)}"
    totals: dict[str, int] = {}
    for item in s.inventory:
        totals[item.name] = totals.get(item.name, 0) + item.count
    inv = ",".join(f"{name}:{_count_bucket(n)}" for name, n in sorted(totals.items()) if n > 0)
    return "|".join(
        [
            f"hp={_vital_band(s.health)}",
            f"food={_vital_band(s.food)}",
            f"hostiles={hostiles}",
            f"mode={s.gameMode}",
            f"dim={s.dimension}",
            f"phase={day_phase(s.timeOfDay)}",
            f"chunk={chunk}",
            f"inv={inv}",
        ]
    )


class SituationGate:
    """Decides per cognition cycle whether the LLM is worth calling."""

    def __init__(self, counters: AgencyCounters, *, heartbeat_ms: int = DEFAULT_HEARTBEAT_MS) -> None:
        self._counters = counters
        self._heartbeat_ms = heartbeat_ms
        self._last_signature: str | None = None
        self._last_call_ms: int | None = None

    def check(self, snapshot: WorldSnapshot, now_ms: int, *, stimulus: bool = False) -> SituationDecision:
        sig = situation_signature(snapshot)
        if stimulus or sig != self._last_signature:
            decision: SituationDecision = "fresh"
        elif self._last_call_ms is not None and now_ms - self._last_call_ms >= self._heartbeat_ms:
            decision = "heartbeat"
        else:
            self._counters.increment("signatureSuppressions")
            return "suppressed"
        self._last_signature = sig
        self._last_call_ms = now_ms
        return decision
