"""Dist: exact integer-weight distributions (oracles: closed forms and brute enumeration)."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.distributions import Dist, convolve_weights

weights = st.dictionaries(st.integers(-5, 12), st.integers(0, 20), min_size=1, max_size=8).filter(
    lambda w: sum(w.values()) > 0
)


def test_die_and_constant() -> None:
    d6 = Dist.die(6)
    assert d6.items() == [(v, Fraction(1, 6)) for v in range(1, 7)]
    assert d6.mean() == Fraction(7, 2)
    assert Dist.constant(4).items() == [(4, Fraction(1))]
    with pytest.raises(ValueError):
        Dist.die(0)


def test_two_d6_table() -> None:
    # P(2D6 >= n) out of 36 for n = 2..12 (wh40k-10e-core-1.md §5.5)
    two = Dist.die(6) + Dist.die(6)
    expected = [36, 35, 33, 30, 26, 21, 15, 10, 6, 3, 1]
    assert [two.p_at_least(n) * 36 for n in range(2, 13)] == expected
    assert two.p_at_most(1) == 0
    assert two.p_at_least(13) == 0
    assert two.p_less_than(7) == Fraction(15, 36)
    assert two.p_more_than(7) == Fraction(15, 36)


def test_weights_are_reduced_so_equal_dists_compare_equal() -> None:
    a = Dist.from_weights({0: 2, 1: 2})
    b = Dist.bernoulli(Fraction(1, 2))
    assert a == b
    assert hash(a) == hash(b)
    assert a.total == 2


def test_from_probs_and_bernoulli() -> None:
    d = Dist.from_probs({0: Fraction(1, 3), 2: Fraction(2, 3)})
    assert d.prob(2) == Fraction(2, 3)
    assert d.prob(1) == 0
    with pytest.raises(ValueError):
        Dist.from_probs({0: Fraction(1, 2)})
    with pytest.raises(ValueError):
        Dist.bernoulli(Fraction(3, 2))


def test_mixture() -> None:
    d = Dist.mixture([(Fraction(1, 4), Dist.constant(0)), (Fraction(3, 4), Dist.die(3))])
    assert d.prob(0) == Fraction(1, 4)
    assert d.prob(2) == Fraction(1, 4)
    with pytest.raises(ValueError):
        Dist.mixture([(Fraction(1, 2), Dist.die(3))])


def test_binomial_matches_repeat_of_bernoulli() -> None:
    p = Fraction(2, 7)
    assert Dist.binomial(9, p) == Dist.bernoulli(p).repeat(9)
    assert Dist.binomial(9, p).prob(3) == math.comb(9, 3) * p**3 * (1 - p) ** 6


def test_bind_and_compound() -> None:
    # N ~ D3 copies of a D6: enumerate by hand
    n = Dist.die(3)
    manual: dict[int, Fraction] = {}
    for k in (1, 2, 3):
        for faces in itertools.product(range(1, 7), repeat=k):
            manual[sum(faces)] = manual.get(sum(faces), Fraction(0)) + Fraction(1, 3) / 6**k
    assert dict(n.bind(Dist.die(6).repeat).items()) == manual
    assert dict(n.compound(Dist.die(6)).items()) == manual


def test_map_clamp_max_neg() -> None:
    d6 = Dist.die(6)
    assert d6.map(lambda v: (v + 1) // 2) == Dist.die(3)  # D3 = ceil(D6 / 2) (RULINGS 2)
    assert d6.clamp(2, 4).prob(2) == Fraction(2, 6)
    assert d6.max_with(d6).prob(6) == Fraction(11, 36)
    assert (-d6).support() == [-6, -5, -4, -3, -2, -1]
    assert (d6 - 1).min == 0
    assert (d6 - d6).mean() == 0


def test_kronecker_convolution_matches_schoolbook() -> None:
    a = [3, 0, 7, 1, 12345678901234567890] * 13
    b = [1, 2, 3, 4, 5, 6, 7, 8, 9] * 11
    school = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            school[i + j] += x * y
    assert convolve_weights(a, b) == school


def test_at_least_table() -> None:
    d = Dist.die(3)
    assert d.at_least_table() == [(1, Fraction(1)), (2, Fraction(2, 3)), (3, Fraction(1, 3))]


@given(weights, weights)
def test_sum_is_convolution(wa: dict[int, int], wb: dict[int, int]) -> None:
    a, b = Dist.from_weights(wa), Dist.from_weights(wb)
    expected: dict[int, Fraction] = {}
    for x, p in a.items():
        for y, q in b.items():
            expected[x + y] = expected.get(x + y, Fraction(0)) + p * q
    assert dict((a + b).items()) == {k: v for k, v in expected.items() if v}
    assert (a + b).mean() == a.mean() + b.mean()


@given(weights, st.integers(0, 6))
def test_probabilities_sum_to_one_and_repeat(wa: dict[int, int], n: int) -> None:
    a = Dist.from_weights(wa)
    r = a.repeat(n)
    assert sum(p for _, p in r.items()) == 1
    assert r.mean() == n * a.mean()
    assert r.variance() == n * a.variance()


@given(
    st.dictionaries(st.integers(0, 5), st.integers(0, 9), min_size=1).filter(
        lambda w: sum(w.values())
    ),
    weights,
)
def test_compound_equals_bind(wn: dict[int, int], wi: dict[int, int]) -> None:
    n, inner = Dist.from_weights(wn), Dist.from_weights(wi)
    assert n.compound(inner) == n.bind(inner.repeat)
