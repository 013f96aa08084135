"""A sure second group (every wound takes the same W) added to the answer by runs of
counts (issue 18) against its outcomes count by count."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.pen.allocation import _sure_into, _sure_outcomes


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=1, max_size=5).filter(any),
    st.integers(1, 3),
    st.lists(st.integers(0, 10**30), min_size=1, max_size=80),
    st.integers(0, 4),
    st.integers(0, 9),
)
def test_runs_add_each_count_at_its_outcome(
    state: list[int], per_wound: int, row: list[int], d1: int, l1: int
) -> None:
    models = sum(state) + d1
    size = models * len(state) + l1 + 1
    want_d, want_l = [0] * (models + 1), [0] * size
    for k, (jd, jl) in enumerate(_sure_outcomes(tuple(state), len(row), per_wound)):
        want_d[d1 + jd] += row[k]
        want_l[l1 + jl] += row[k]
    got_d, got_l = [0] * (models + 1), [0] * size
    _sure_into(tuple(state), row, per_wound, (d1, l1), got_d, got_l)
    assert (got_d, got_l) == (want_d, want_l)
