"""Percentiles, one definition for every figure the house reports (eval latencies, soak
recovery times, bench timings)."""

from __future__ import annotations

import math
from collections.abc import Iterable


def percentile(values: Iterable[float], q: float, *, interpolate: bool = False) -> float | None:
    """The q-th percentile (q a fraction, 0..1) of values; None when there are none.

    By default the nearest rank: the ceil(q * n)-th smallest value (the smallest for q 0),
    so the figure is one that was measured - what a gate or a report quotes ("p95 812 ms"
    was a real call). interpolate=True gives the linear interpolation between the two
    closest ranks at q * (n - 1) instead (numpy's default; the median of an even count is
    the mean of the middle two), a smoother figure for benches that compare runs of many
    samples.
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must be a fraction between 0 and 1, not {q!r}")
    ordered = sorted(values)
    if not ordered:
        return None
    if interpolate:
        pos = q * (len(ordered) - 1)
        lo, hi = math.floor(pos), math.ceil(pos)
        return float(ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo))
    # Rounded first so a product meant to be whole (0.95 * 20) never ceils past it on a float error.
    rank = max(1, math.ceil(round(q * len(ordered), 9)))
    return float(ordered[rank - 1])
