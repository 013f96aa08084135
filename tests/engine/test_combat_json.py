"""The JSON of heavy answers: the shared denominators are converted once per answer, and the
text is byte-identical to a plain ``str()`` of every fraction (the output before the caches
and the table-at-once builder) on the heavy attacks of ``bench/bench_combat_heavy.py`` and on
random distributions."""

from __future__ import annotations

import itertools
import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine import combat
from app.engine.combat import CombatAnalysis, Denominators, dist_to_jsonable, to_jsonable
from app.engine.distributions import Dist, lowest_terms
from app.engine.wh40k10e import analyze, request_from_dict

ALL = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds"]


def _weapon(**kw: Any) -> dict[str, Any]:
    base = {"name": "g", "kind": "ranged", "attacks": "1", "skill": 3, "strength": 4, "ap": 0}
    return {**base, "damage": "1", "abilities": [], **kw}


HEAVY: dict[str, dict[str, Any]] = {  # three cases of bench/bench_combat_heavy.py
    "10 x D6+3, SH1 LH DW, D6+1 vs 10 x W3 FNP5+": {
        "attacks": [
            {"models": 10, "weapon": _weapon(attacks="D6+3", abilities=ALL, damage="D6+1")}
        ],
        "target": {"models": 10, "toughness": 4, "save": 4, "wounds": 3, "feel_no_pain": 5},
    },
    "30 x D6+3, SH1 LH, D6+1 vs one W30 model": {
        "attacks": [
            {
                "models": 30,
                "weapon": _weapon(
                    attacks="D6+3", abilities=ALL[:2], damage="D6+1", ap=-2, strength=6
                ),
            }
        ],
        "target": {"models": 1, "toughness": 11, "save": 3, "wounds": 30, "feel_no_pain": 6},
    },
    "30 x D6+3, SH1 LH DW, D6+1 vs one W30 model": {
        "attacks": [
            {
                "models": 30,
                "weapon": _weapon(attacks="D6+3", abilities=ALL, damage="D6+1", ap=-2, strength=6),
            }
        ],
        "target": {"models": 1, "toughness": 11, "save": 3, "wounds": 30, "feel_no_pain": 6},
    },
}

# issue 18's full scope: 30 x D6+3 attacks, every ability, D6+1 damage, into 28 x W3 FNP5+, a
# sergeant Sv3+ and a Captain W5 Sv2+ inv4+ FNP5+ (bench/bench_combat_heavy.py)
FULL_SCOPE: dict[str, Any] = {
    "attacks": [{"models": 30, "weapon": _weapon(attacks="D6+3", abilities=ALL, damage="D6+1")}],
    "target": {
        "models": 28,
        "toughness": 4,
        "save": 4,
        "wounds": 3,
        "feel_no_pain": 5,
        "groups": [
            {"name": "sgt", "models": 1, "wounds": 3, "save": 3, "feel_no_pain": 5},
            {
                "name": "Captain",
                "models": 1,
                "wounds": 5,
                "save": 2,
                "invulnerable_save": 4,
                "feel_no_pain": 5,
                "keywords": ["Character"],
            },
        ],
    },
}


@contextmanager
def _no_digit_limit() -> Iterator[None]:
    before = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def _text(q: Fraction) -> str:
    return str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"


def _dist(d: Dist) -> dict[str, Any]:
    at_least = dict(d.at_least_table())
    rows = [
        {
            "value": v,
            "exact": _text(p),
            "approx": round(float(p), 4),
            "at_least_exact": _text(at_least[v]),
            "at_least_approx": round(float(at_least[v]), 4),
        }
        for v, p in d.items()
    ]
    mean = d.mean()
    return {"mean": {"exact": _text(mean), "approx": round(float(mean), 4)}, "distribution": rows}


def _plain(value: object) -> Any:
    """The serialisation with ``str()`` of every number (the digit limit lifted)."""
    if isinstance(value, Dist):
        return _dist(value)
    if isinstance(value, Fraction):
        return {"exact": _text(value), "approx": round(float(value), 4)}
    if isinstance(value, CombatAnalysis):
        out: dict[str, Any] = {
            "damage": _dist(value.damage),
            "models_destroyed": _dist(value.models_destroyed),
            "wipe_probability": _plain(value.wipe_probability),
            "stages": {k: _dist(d) for k, d in value.stages.items()},
            "extra": {k: _plain(v) for k, v in value.extra.items()},
        }
        if value.outcomes:
            out["outcomes"] = [{"outcome": k, **_plain(p)} for k, p in value.outcomes.items()]
        return out
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str):
        return [_plain(v) for v in value]
    return value


@pytest.mark.parametrize("name", list(HEAVY))
def test_heavy_answers_are_byte_identical_to_plain_str(name: str) -> None:
    analysis = analyze(request_from_dict(HEAVY[name]))
    text = json.dumps(to_jsonable(analysis))
    with _no_digit_limit():
        expected = json.dumps(_plain(analysis))
    assert text == expected
    # the case is heavy indeed: some of its numbers are past the direct conversion
    longest = max(len(part) for part in text.replace('"', " ").replace("/", " ").split())
    assert longest > 2000 * 0.30103


def test_each_denominator_of_an_answer_is_converted_once(monkeypatch: pytest.MonkeyPatch) -> None:
    big = 7**2000  # past the direct conversion: _decimal splits it
    d = Dist.from_probs({0: Fraction(1, big), 1: Fraction(3, big), 2: 1 - Fraction(4, big)})
    seen: list[int] = []
    original = combat._decimal

    def counting(n: int) -> str:
        seen.append(n)
        return original(n)

    monkeypatch.setattr(combat, "_decimal", counting)
    memo: Denominators = {}
    out = cast(dict[str, Any], dist_to_jsonable(d, 4, memo))
    assert memo == {big: original(big)}
    assert seen.count(big) == 1  # six fractions and the mean share it
    with _no_digit_limit():
        assert out["distribution"][1]["exact"] == f"3/{big}"


def test_a_long_integer_is_written_by_gmp_whatever_its_size() -> None:
    n = 3**20000  # about 9500 digits: past CPython's own str() guard
    first = combat._decimal(n)
    assert combat._decimal(n + 1) == first[:-1] + str(int(first[-1]) + 1)
    assert combat._decimal(-n) == "-" + first
    with _no_digit_limit():
        assert first == str(n)


# -- issue 18: the answer built from whole tables (lowest_terms, _approximations) ------------
#
# The reference below is the serialisation as it was written before (every probability a
# Fraction of the distribution's items and at-least table, its float ``round(float(q),
# digits)``): the faster builder must give the same JSON, byte for byte.


def _old_dist(d: Dist, digits: int) -> dict[str, Any]:
    at_least = dict(d.at_least_table())
    rows = [
        {
            "value": v,
            "exact": _text(p),
            "approx": round(float(p), digits),
            "at_least_exact": _text(at_least[v]),
            "at_least_approx": round(float(at_least[v]), digits),
        }
        for v, p in d.items()
    ]
    mean = d.mean()
    return {
        "mean": {"exact": _text(mean), "approx": round(float(mean), digits)},
        "distribution": rows,
    }


@st.composite
def _dists(draw: st.DrawFn) -> Dist:
    """Distributions whose total is a product of dice primes (the valuations path, weights
    with more factors of a prime than the total included) or anything (the gcd path), long
    or short, starting below zero or not."""
    lo = draw(st.integers(-5, 5))
    if draw(st.booleans()):
        total = (
            2 ** draw(st.integers(0, 300))
            * 3 ** draw(st.integers(0, 300))
            * 5 ** draw(st.integers(0, 3))
            * 7 ** draw(st.integers(0, 3))
        )
        n = draw(st.integers(1, 12))
        cuts = sorted(draw(st.lists(st.integers(0, total), min_size=n - 1, max_size=n - 1)))
        # some weights rich in factors of 2 and 3 (the neighbours of a rich total)
        if total > 6**40 and draw(st.booleans()):
            cuts.append(total // 6**40 * draw(st.integers(1, 6**20)))
            cuts = sorted(c for c in cuts if c <= total)
        edges = [0, *cuts, total]
        weights = [b - a for a, b in itertools.pairwise(edges)]
    else:
        weights = draw(st.lists(st.integers(0, 2**400), min_size=1, max_size=12))
    if not any(weights):
        weights[0] = 1
    return Dist.from_weights({lo + i: w for i, w in enumerate(weights)})


@settings(max_examples=300, deadline=None)
@given(_dists(), st.integers(0, 10))
def test_a_distribution_is_written_as_before(d: Dist, digits: int) -> None:
    with _no_digit_limit():
        assert json.dumps(dist_to_jsonable(d, digits)) == json.dumps(_old_dist(d, digits))


def test_exact_ties_round_to_even_as_before() -> None:
    # 1/32 = 0.03125 and 31/32 = 0.96875: exactly halfway at four digits (round() keeps the
    # even digit), the short path's margin sends them to the exact rounding
    d = Dist.from_weights({0: 31, 1: 1})
    out = cast(dict[str, Any], dist_to_jsonable(d))
    rows = out["distribution"]
    assert [r["approx"] for r in rows] == [0.9688, 0.0312]
    assert [r["at_least_approx"] for r in rows] == [1.0, 0.0312]
    assert out == _old_dist(d, 4)


@settings(max_examples=500, deadline=None)
@given(
    st.integers(1, 4000),
    st.integers(0, 8),
    st.integers(0, 10**8),
    st.integers(-3, 3),
    st.booleans(),
)
def test_approximations_are_round_of_the_exact_quotient(
    bits: int, digits: int, k: int, offset: int, tie: bool
) -> None:
    """``round(x / total, digits)`` exactly, values a hair from a rounding tie included."""
    total = (1 << bits) - 1 + (bits % 5)
    k %= 10**digits + 1
    if tie:  # within a few units of (k + 1/2) / 10**digits
        x = (2 * k + 1) * total // (2 * 10**digits) + offset
    else:
        x = k * total // 10**digits + offset
    x = min(total, max(0, x))
    assert combat._approximations([x], total, digits) == [round(x / total, digits)]


def test_approximations_of_gmp_integers_are_plain_floats() -> None:
    """GMP integers (``mpz``) give the floats Python integers give, as ``float``: divided as
    ``mpz`` they would make ``mpfr`` values, rounded by ``int()`` and written by no encoder."""
    from gmpy2 import mpz

    xs = [1, 2, 10**30, 3**60]
    total = 3**61
    got = combat._approximations([mpz(x) for x in xs], mpz(total), 4)
    assert got == [round(x / total, 4) for x in xs]
    assert all(type(v) is float for v in got)
    assert combat._approximations([mpz(1)], mpz(3), 4) == [0.3333]


@settings(max_examples=200, deadline=None)
@given(_dists())
def test_lowest_terms_are_the_fractions(d: Dist) -> None:
    _, weights, total = d.dense()
    mean_weight = sum(i * x for i, x in enumerate(weights))  # beyond the total
    xs = [*weights, 0, total, mean_weight]
    nums, keys, dens = lowest_terms(xs, total)
    assert all(type(den) is int for den in dens.values())
    got = [(int(n), dens[k]) for n, k in zip(nums, keys, strict=True)]
    assert got == [(Fraction(x, total).numerator, Fraction(x, total).denominator) for x in xs]
    assert lowest_terms([], total) == ([], [], {})


def test_the_full_scope_answer_is_byte_identical_to_the_fractions() -> None:
    """Issue 18's heaviest answer (bench/bench_combat_heavy.py, the Captain with FNP5+):
    6.7 MB of JSON, the same as every fraction written by str()."""
    analysis = analyze(request_from_dict(FULL_SCOPE))
    text = json.dumps(to_jsonable(analysis))
    with _no_digit_limit():
        assert text == json.dumps(_plain(analysis))
    assert len(text) > 6_000_000


def test_lowest_terms_of_values_richer_in_a_prime_than_the_total() -> None:
    total = 2**3 * 3**2 * 7  # 504
    xs = [3**5, 2**7 * 5, 7**3 * 3, 0, total, 6**4 * 7**2, 11]
    nums, keys, dens = lowest_terms(xs, total)
    got = [(int(n), dens[k]) for n, k in zip(nums, keys, strict=True)]
    assert got == [(Fraction(x, total).numerator, Fraction(x, total).denominator) for x in xs]
    assert got[0] == (27, 56)
    assert got[3] == (0, 1)
    assert got[4] == (1, 1)
