"""The indexed simplex of squad states (issue 18): its lines, its in-place shear and spread
against the dictionary path they replace, and both paths of two allocations (the indexed
one, and the dictionary one kept for squads too large to index) giving the same integers."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from gmpy2 import xmpz
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.distributions import Dist
from app.engine.pen import allocation, analysis, simplex
from app.engine.pen.allocation import _one_more_wound, two_allocations
from app.engine.pen.analysis import _cover_pass, analyze, hits_distribution, save_groups
from app.engine.pen.attack import plan_attack
from app.engine.pen.profiles import Unit
from app.engine.pen.simplex import one_more_wound, spread
from tests.engine.pen.test_heavy_exact import _rending


@pytest.mark.parametrize(("models", "wounds"), [(1, 2), (3, 2), (4, 3), (5, 4), (30, 3)])
def test_the_simplex_holds_every_squad_once_and_its_lines_cover_it(
    models: int, wounds: int
) -> None:
    space = simplex.simplex(models, wounds)
    assert len(space.digits) == math.comb(models + wounds, wounds)
    assert len(set(space.digits)) == len(space.digits)
    assert all(sum(d) == models for d in space.digits)
    for level, lines in enumerate(space.lines, start=1):
        seen = sorted(i for line in lines for i in line)
        assert seen == list(range(len(space.digits)))
        for line in lines:
            for position, i in enumerate(line):
                d = space.digits[i]
                assert d[level] == position
                assert d[level - 1] + d[level] == len(line) - 1
                assert space.place[level - 1][i] == (line, position)


one_w = st.tuples(st.integers(0, 4), st.integers(0, 4)).filter(lambda w: sum(w) > 0)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(2, 4),
    one_w,
    st.dictionaries(st.integers(0, 10**6), st.integers(1, 10**40), min_size=1, max_size=30),
)
def test_one_more_wound_in_place_is_the_dictionary_path(
    models: int, wounds: int, weights: tuple[int, int], picks: dict[int, int]
) -> None:
    space = simplex.simplex(models, wounds)
    table = {space.digits[k % len(space.digits)][1:]: v for k, v in picks.items()}
    w0, w1 = weights
    want = _one_more_wound(dict(table), models, wounds, w0, w1)
    vals: list[xmpz | int] = [0] * len(space.digits)
    for state, value in table.items():
        vals[space.index[(models - sum(state), *state)]] = value
    one_more_wound(vals, space, w0, w1)
    got = {space.digits[i][1:]: int(x) for i, x in enumerate(vals) if x}
    assert got == {state: int(x) for state, x in want.items() if x}


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(2, 4),
    st.integers(1, 5),
    st.integers(1, 50),
    st.dictionaries(st.integers(0, 10**6), st.integers(1, 10**40), min_size=1, max_size=30),
)
def test_spread_is_each_model_of_a_level_hit_once(
    models: int, wounds: int, stay: int, hit: int, picks: dict[int, int]
) -> None:
    space = simplex.simplex(models, wounds)
    coef = allocation._binomial_rows(models, stay, hit)
    vals: list[xmpz | int] = [0] * len(space.digits)
    keyed: dict[int, int] = {}
    for k, v in picks.items():
        i = k % len(space.digits)
        vals[i] = v
        keyed[allocation._keyed(space.digits[i][1:], models)] = v
    for index in range(wounds):
        spread(vals, space.lines[index], coef)
        keyed = allocation._hit_level(keyed, index, stay, hit, coef)
        got = {space.digits[i][1:]: int(x) for i, x in enumerate(vals) if x}
        want = {
            allocation._decoded(key // allocation._BASE, wounds): int(x)
            for key, x in keyed.items()
            if x
        }
        assert got == want


fractions = st.builds(Fraction, st.integers(1, 5), st.integers(6, 7))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(2, 4),
    st.integers(5, 40),
    fractions,
    fractions,
    one_w,
    st.tuples(st.integers(1, 4), st.integers(1, 4)),
    st.booleans(),
)
def test_the_indexed_and_dictionary_paths_give_the_same_integers(
    models: int,
    wounds: int,
    shots: int,
    p1: Fraction,
    p2: Fraction,
    loss1: tuple[int, int],
    loss2: tuple[int, int],
    sure: bool,
) -> None:
    hits = Dist.binomial(shots, Fraction(1, 2))
    first = (p1 / 2, Dist.from_weights({k: w for k, w in enumerate(loss1) if w}))
    second = (p2 / 2, Dist.constant(1) if sure else Dist.from_weights(dict(enumerate(loss2))))
    indexed = two_allocations(models, wounds, hits, first, second)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(allocation, "MAX_SIMPLEX", 0)
        by_dictionary = two_allocations(models, wounds, hits, first, second)
    assert indexed == by_dictionary


def test_thirty_attackers_into_twenty_three_wound_models_are_answered_exactly() -> None:
    # 30 x 9 Rending shots into 20 x W3 Sv3: estimated past the line on the dictionary path
    # (0.55 s), answered on the indexed simplex (three quarters of that estimate), with the
    # distributions of the sequence-free counts method (no wound layers)

    req = _rending(30, 9, Unit(models=20, toughness=4, wounds=3, save=3))
    plan = plan_attack(req)
    groups = save_groups(plan)
    through = hits_distribution(plan.hit).thin(_cover_pass(plan.cover))
    first, second = ((g.probability, g.loss) for g in groups)
    analysis.infantry_exact.cache_clear()
    result = analyze(req)
    counts = two_allocations(20, 3, through, first, second, layers=False)
    assert (result.models_destroyed, result.damage) == counts
