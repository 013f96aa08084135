"""The JSON of heavy answers: the powers of ten and the shared denominators are converted once
per answer, and the text is byte-identical to a plain ``str()`` of every fraction (the output
before the caches) on the heavy attacks of ``bench/bench_combat_heavy.py``."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from fractions import Fraction
from typing import Any, cast

import pytest

from app.engine import combat
from app.engine.combat import CombatAnalysis, Denominators, dist_to_jsonable, to_jsonable
from app.engine.distributions import Dist
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
