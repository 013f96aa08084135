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
