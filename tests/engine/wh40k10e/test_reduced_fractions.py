"""Reading probabilities of huge exact distributions (issue 18): the fractions of
:meth:`Dist.items` and :meth:`Dist.at_least_table` are reduced by dividing out the dice's
primes (2, 3, 5, 7) instead of a gcd of thousands of digits, and must equal ``Fraction``."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import distributions
from app.engine.distributions import Dist


@st.composite
def numerator_and_total(draw: st.DrawFn) -> tuple[int, int]:
    total = (
        2 ** draw(st.integers(0, 80))
        * 3 ** draw(st.integers(0, 80))
        * 5 ** draw(st.integers(0, 4))
        * 7 ** draw(st.integers(0, 3))
        * draw(st.sampled_from([1, 1, 11, 13 * 17]))  # not a dice total: the plain gcd
    )
    x = draw(st.integers(0, total))
    if draw(st.booleans()):  # many factors of 3 in the numerator, past the short count
        k = draw(st.integers(0, 60))
        x = x // 3**k * 3**k
    return x, total


@settings(max_examples=400, deadline=None)
@given(numerator_and_total())
def test_reduced_is_the_fraction(pair: tuple[int, int]) -> None:
    x, total = pair
    got = distributions._reduced(x, total, distributions._dice_exponents(total))
    want = Fraction(x, total)
    assert (got.numerator, got.denominator) == (want.numerator, want.denominator)


def test_dice_exponents() -> None:
    assert distributions._dice_exponents(6**500 * 5 * 49) == ((2, 500), (3, 500), (5, 1), (7, 2))
    assert distributions._dice_exponents(3**4000) == ((3, 4000),)
    assert distributions._dice_exponents(1) == ()
    assert distributions._dice_exponents(6**10 * 11) is None


def test_items_and_at_least_of_a_long_distribution() -> None:
    d = Dist.die(6).repeat(400) + Dist.die(3).repeat(300)
    total = d.total
    assert total.bit_length() > 1000
    items = d.items()
    assert items == [(v, Fraction(w, total)) for v, w in sorted(d.weights().items())]
    assert all(p.denominator > 1 or p in (0, 1) for _, p in items)
    acc = total
    for v, p in d.at_least_table():
        assert p == Fraction(acc, total)
        acc -= d.weights()[v]


@settings(max_examples=200, deadline=None)
@given(st.lists(numerator_and_total(), min_size=1, max_size=6))
def test_reduced_many_is_the_fraction_of_each(pairs: list[tuple[int, int]]) -> None:
    # one total for the table (the largest drawn); numerators with many factors of 2 and 3,
    # past the short count of divisions by 3 included
    total = max(t for _, t in pairs)
    xs = [x * total // t for x, t in pairs] + [0, total]
    xs += [total // 3**k for k in (1, 24, 25, 60) if total % 3**k == 0]
    got = distributions._reduced_many(xs, total)
    want = [Fraction(x, total) for x in xs]
    assert [(g.numerator, g.denominator) for g in got] == [
        (w.numerator, w.denominator) for w in want
    ]


@settings(max_examples=400, deadline=None)
@given(numerator_and_total(), st.integers(0, 3))
def test_reduced_pairs_are_the_fraction(pair: tuple[int, int], extra: int) -> None:
    """The integer pairs of the serialisation are the fraction's lowest terms, values with
    far more factors of 3 than the short count included (their valuation by squared
    powers)."""
    x, total = pair
    xs = [x, total - x, 0, total, x // 3**extra * 3**extra]
    got = distributions._reduced_pairs(xs, total)
    assert got == [(Fraction(v, total).numerator, Fraction(v, total).denominator) for v in xs]
    assert distributions._reduced_many(xs, total) == [Fraction(v, total) for v in xs]


def test_reduced_rows_are_items_and_at_least() -> None:
    d = Dist.die(6).repeat(300) + Dist.die(3).repeat(200) + Dist.binomial(40, Fraction(1, 7))
    rows = d.reduced_rows()
    items = d.items()
    at_least = d.at_least_table()
    assert len(rows) == len(items) == len(at_least)
    for (v, pn, pd, an, ad), (v1, p), (v2, a) in zip(rows, items, at_least, strict=True):
        assert v == v1 == v2
        assert (pn, pd) == (p.numerator, p.denominator)
        assert (an, ad) == (a.numerator, a.denominator)


def test_a_tail_value_with_many_factors_is_reduced() -> None:
    """A weight divisible by far more than ``_SHORT_VALUATION`` powers of 3 (the far tail of
    a long table) is reduced exactly, not left to a gcd."""
    total = 6**400
    x = 3**250 * 5
    assert distributions._reduced_pairs([x], total) == [(5, 2**400 * 3**150)]
