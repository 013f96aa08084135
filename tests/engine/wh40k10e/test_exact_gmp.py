"""The exact chains work on GMP integers (gmpy2's ``mpz``) inside and hand Python integers
out: an ``mpz`` compares equal to the same ``int``, so the equality tests against the plain
engine would not see one leak into an answer, but ``json`` and ``orjson`` cannot write one.
These tests check the types of every weight of the heavy answers of each chain, and that
their JSON is written."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest

from app.engine.combat import to_jsonable
from app.engine.distributions import Dist, power_weights
from app.engine.wh40k10e import analyze, request_from_dict
from tests.engine.wh40k10e.test_exact_split import _full_scope

ALL = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds"]


def _weapon(**kw: Any) -> dict[str, Any]:
    base = {"name": "g", "kind": "ranged", "attacks": "D6+3", "skill": 3, "strength": 4, "ap": 0}
    return {**base, "damage": "D6+1", "abilities": ALL, **kw}


def _line(models: int, wounds: int) -> dict[str, Any]:
    return {"models": models, "toughness": 4, "save": 4, "wounds": wounds, "feel_no_pain": 5}


def _plain_ints(d: Dist) -> bool:
    _lo, weights, total = d.dense()
    return type(total) is int and all(type(x) is int for x in weights)


CASES = {
    # the (r, e) line chain
    "line": {"attacks": [{"models": 10, "weapon": _weapon()}], "target": _line(10, 3)},
    # the general chain (two weapons)
    "general": {
        "attacks": [
            {"models": 5, "weapon": _weapon()},
            {"models": 5, "weapon": _weapon(name="h", attacks="2", ap=-1)},
        ],
        "target": {**_line(5, 2), "groups": [{"name": "sgt", "models": 1, "wounds": 2, "save": 3}]},
    },
    # the split line (bodyguard and CHARACTER of two Feel No Pains: forward pass and tail)
    "split": _full_scope(4),
    "split, one Feel No Pain": _full_scope(5),
}


@pytest.mark.parametrize("name", list(CASES))
def test_answers_hold_python_integers_only(name: str) -> None:
    got = analyze(request_from_dict(CASES[name]))
    dists = [got.damage, got.models_destroyed, *got.stages.values()]
    groups = got.extra["groups"]
    assert isinstance(groups, list)
    dists += [g["models_destroyed"] for g in groups if isinstance(g, dict)]
    assert all(isinstance(d, Dist) and _plain_ints(d) for d in dists)
    wipe = got.wipe_probability
    assert isinstance(wipe, Fraction)
    assert type(wipe.numerator) is int
    assert type(wipe.denominator) is int
    text = json.dumps(to_jsonable(got))
    assert '"exact"' in text


@pytest.mark.parametrize(("poly", "n", "cut"), [([3, 0, 5, 7], 30, None), ([2, 1], 12, 5)])
def test_power_weights_give_python_integers(poly: list[int], n: int, cut: int | None) -> None:
    got = power_weights(poly, n, cut)
    assert all(type(x) is int for x in got)
    expected = [1]
    for _ in range(n):
        nxt = [0] * (len(expected) + len(poly) - 1)
        for i, x in enumerate(expected):
            for j, y in enumerate(poly):
                nxt[i + j] += x * y
        expected = nxt
    assert got == (expected if cut is None else expected[:cut])
