"""The GMP paths of :mod:`app.engine.distributions` (issue 18): a distribution whose total
has thousands of digits is reduced by GMP's gcd and exact division, and an answer's
fractions by GMP's ``remove``; both give what plain Python integers give, as Python ints."""

from __future__ import annotations

import math
import random
from fractions import Fraction

from app.engine import distributions
from app.engine.distributions import Dist


def _plain_reduced(weights: list[int]) -> tuple[tuple[int, ...], int]:
    total = sum(weights)
    g = math.gcd(total, *weights)
    return tuple(x // g for x in weights), total // g


def test_long_totals_are_reduced_as_python_reduces_them() -> None:
    rng = random.Random(18)
    common = 2**700 * 3**900 * 5**3
    for trial in range(40):
        n = rng.randint(1, 40)
        weights = [rng.randint(0, 3**1300) * (common if trial % 2 else 1) for _ in range(n)]
        weights[rng.randrange(n)] += 1  # at least one positive weight
        d = Dist.from_weights(dict(enumerate(weights)))
        want_w, want_t = _plain_reduced(weights)
        assert sum(weights).bit_length() > distributions._GMP_GCD_BITS
        assert d.total == want_t
        assert d.weights() == {i: x for i, x in enumerate(want_w) if x}
        assert all(type(x) is int for x in d.weights().values())
        assert type(d.total) is int


def test_long_answers_reduce_to_the_fractions() -> None:
    rng = random.Random(1818)
    total = 2**655 * 3**5374
    xs = [0, total, 3**5374, 2**655, 3**6000 % total, 2**900 % total]
    xs += [rng.randint(1, total) * 3 ** rng.randint(0, 6000) % total for _ in range(30)]
    pairs = distributions._reduced_pairs(xs, total)
    for x, (n, d) in zip(xs, pairs, strict=True):
        f = Fraction(x, total)
        assert (n, d) == (f.numerator, f.denominator)
        assert type(n) is int
        assert type(d) is int


def test_long_convolutions_are_the_schoolbook_product_in_python_integers() -> None:
    # The Kronecker path (GMP's pack, product and unpack): zeros at either end, long weights
    # and short ones, one vector much longer than the other; Python ints out (JSON writes them)
    rng = random.Random(1818)
    for trial in range(30):
        la, lb = rng.randint(5, 120), rng.randint(5, 40)
        bits = rng.choice([1, 30, 900])
        a = [rng.getrandbits(bits) for _ in range(la)]
        b = [rng.getrandbits(bits) for _ in range(lb)]
        if trial % 3 == 0:
            a[-3:] = [0, 0, 0]  # the product's top slots are zero
        if trial % 3 == 1:
            b[:2] = [0, 0]
        a[0] += 1
        school = [0] * (la + lb - 1)
        for i, x in enumerate(a):
            for j, y in enumerate(b):
                school[i + j] += x * y
        got = distributions.convolve_weights(a, b)
        assert got == school
        assert all(type(x) is int for x in got)
