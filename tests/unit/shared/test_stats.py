"""agency.stats.percentile: the nearest rank by default, linear interpolation on request,
and its edges (no values, one value, q 0 and 1, unsorted and integer input, a q out of range)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from agency.stats import percentile


def test_no_values_is_none_in_both_ways():
    assert percentile([], 0.5) is None and percentile([], 0.5, interpolate=True) is None
    assert percentile(iter(()), 0.95) is None


@pytest.mark.parametrize("interpolate", [False, True])
def test_one_value_is_every_percentile(interpolate):
    assert [percentile([7.0], q, interpolate=interpolate) for q in (0.0, 0.5, 0.95, 1.0)] == [7.0] * 4


def test_nearest_rank_is_a_measured_value():
    xs = [40, 10, 30, 20]  # unsorted ints: sorted here, returned as floats
    assert [percentile(xs, q) for q in (0.0, 0.25, 0.26, 0.5, 0.51, 0.75, 0.95, 1.0)] == [
        10.0,
        10.0,
        20.0,
        20.0,
        30.0,
        30.0,
        40.0,
        40.0,
    ]
    assert isinstance(percentile(xs, 0.5), float)
    assert percentile(range(1, 101), 0.95) == 95.0 and percentile(range(1, 101), 0.5) == 50.0
    assert percentile(range(1, 13), 0.95) == 12.0  # ceil(11.4): the 12th of 12


def test_a_whole_rank_never_ceils_past_itself_on_a_float_error():
    assert 0.07 * 100 > 7  # the float product is 7.000000000000001
    assert percentile(range(1, 101), 0.07) == 7.0
    assert percentile(range(1, 21), 0.95) == 19.0


def test_interpolation_between_the_closest_ranks():
    assert percentile([4.0, 1.0, 3.0, 2.0], 0.5, interpolate=True) == pytest.approx(2.5)
    assert percentile(range(1, 101), 0.95, interpolate=True) == pytest.approx(95.05)
    assert percentile([1, 3], 0.0, interpolate=True) == 1.0 and percentile([1, 3], 1.0, interpolate=True) == 3.0


@pytest.mark.parametrize("q", [-0.01, 1.01, 50, 95, math.nan])
def test_a_q_that_is_no_fraction_is_refused(q):
    with pytest.raises(ValueError, match="fraction"):
        percentile([1.0, 2.0], q)


@settings(deadline=None, max_examples=200, database=None)
@given(st.lists(st.floats(-1e6, 1e6), min_size=1, max_size=50), st.floats(0.0, 1.0))
def test_both_ways_lie_within_the_values_and_grow_with_q(xs, q):
    near, lin = percentile(xs, q), percentile(xs, q, interpolate=True)
    assert near in xs
    assert min(xs) <= lin <= max(xs) or math.isclose(lin, min(xs)) or math.isclose(lin, max(xs))
    assert percentile(xs, q) <= percentile(xs, min(1.0, q + 0.1))
    assert percentile(xs, 0.0) == min(xs) and percentile(xs, 1.0) == max(xs)
