"""Precision along its own line (issue 18): the general chain prunes the pending mortal wounds
of a Precision weapon as it does the others', along the CHARACTERs' line first, then the
bodyguard's. Checked against the plain attack-by-attack engine (no pruning) on random profiles:
one or two weapons (Precision first or second, so that some states start off the line), one
or two CHARACTERs, a sergeant, one or several Feel No Pains; and the issue's Precision attack
from 30 models is answered."""

from __future__ import annotations

from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.combat import CombatAnalysis
from app.engine.wh40k10e import analyze
from app.engine.wh40k10e.profiles import request_from_dict
from tests.engine.wh40k10e import plain
from tests.engine.wh40k10e.factory import mixed_unit, weapon

OTHERS = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds", "Twin-linked"]


def _groups(a: CombatAnalysis) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], a.extra["groups"])


def _same(raw: dict[str, Any]) -> None:
    req = request_from_dict(raw)
    new, old = analyze(req), plain.analyze(req)
    assert new.damage == old.damage
    assert new.models_destroyed == old.models_destroyed
    assert new.wipe_probability == old.wipe_probability
    assert new.stages == old.stages
    for g_new, g_old in zip(_groups(new), _groups(old), strict=True):
        assert g_new["models_destroyed"] == g_old["models_destroyed"]


@st.composite
def precision_request(draw: st.DrawFn) -> dict[str, Any]:
    entries = []
    precise_at = draw(st.integers(0, draw(st.integers(0, 1))))  # which weapon has Precision
    for i in range(precise_at + 1 + draw(st.integers(0, 1 - precise_at))):
        abilities = draw(st.lists(st.sampled_from(OTHERS), max_size=3, unique=True))
        if i == precise_at:
            abilities.append("Precision")
        entries.append(
            {
                "models": draw(st.integers(1, 4)),
                "weapon": weapon(
                    name=f"w{i}",
                    attacks=draw(st.sampled_from(["1", "2", "D3", "D6"])),
                    skill=draw(st.integers(2, 4)),
                    strength=draw(st.integers(3, 8)),
                    ap=draw(st.integers(-2, 0)),
                    damage=draw(st.sampled_from(["1", "2", "D3", "D3+1"])),
                    abilities=abilities,
                ),
            }
        )
    fnp = draw(st.sampled_from([None, 5, 6]))
    groups: list[dict[str, Any]] = []
    if draw(st.booleans()):
        groups.append(
            {
                "name": "sgt",
                "models": 1,
                "wounds": draw(st.integers(1, 3)),
                "save": draw(st.integers(2, 5)),
                "feel_no_pain": draw(st.sampled_from([fnp, fnp, 4])),
            }
        )
    for name in ["Captain", "Lieutenant"][: draw(st.integers(1, 2))]:
        groups.append(
            {
                "name": name,
                "models": 1,
                "wounds": draw(st.integers(1, 5)),
                "save": draw(st.integers(2, 5)),
                "invulnerable_save": draw(st.sampled_from([None, 4])),
                "feel_no_pain": draw(st.sampled_from([fnp, fnp, fnp, 4])),
                "keywords": ["Character"],
            }
        )
    return {
        "attacks": entries,
        "target": {
            "models": draw(st.integers(1, 5)),
            "toughness": 4,
            "save": draw(st.integers(3, 6)),
            "wounds": draw(st.integers(1, 3)),
            "feel_no_pain": fnp,
            "groups": groups,
        },
    }


@settings(max_examples=60, deadline=None)
@given(precision_request())
def test_precision_identical_to_the_plain_engine_on_random_profiles(raw: dict[str, Any]) -> None:
    _same(raw)


def _issue(models: int, bodyguard: int, damage: str = "D3") -> dict[str, Any]:
    abilities = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds", "Precision"]
    return {
        "attacks": [
            {"models": models, "weapon": weapon(attacks="D6", abilities=abilities, damage=damage)}
        ],
        "target": mixed_unit(bodyguard),
    }


def test_precision_from_six_models_into_a_mixed_unit_identical_to_the_plain_engine() -> None:
    _same(_issue(6, 8, damage="D3+1"))


def test_precision_from_thirty_models_into_a_mixed_unit_is_answered() -> None:
    """Refused before (the chain, not pruned along Precision's line, took 0.75 s); its
    distribution is a distribution over every wound of the unit."""
    out = analyze(request_from_dict(_issue(30, 28)))
    assert sum(out.damage.weights().values()) == out.damage.total
    assert out.damage.max == 28 * 3 + 3 + 5
    assert 0 < out.wipe_probability < 1


@st.composite
def larger_precision_request(draw: st.DrawFn) -> dict[str, Any]:
    """Precision with every ability from up to 15 models into up to 18 bodyguards, a sergeant
    and a CHARACTER (the plain engine takes up to a few seconds here)."""
    raw = _issue(
        draw(st.integers(4, 15)),
        draw(st.integers(4, 18)),
        damage=draw(st.sampled_from(["1", "2", "D3", "D3+1"])),
    )
    target = raw["target"]
    target["wounds"] = draw(st.integers(1, 3))
    target["save"] = draw(st.integers(3, 5))
    target["feel_no_pain"] = draw(st.sampled_from([None, 5, 6]))
    sgt, captain = target["groups"]
    sgt["feel_no_pain"] = captain["feel_no_pain"] = target["feel_no_pain"]
    captain["wounds"] = draw(st.integers(2, 6))
    captain["save"] = draw(st.integers(2, 4))
    return raw


@pytest.mark.slow
@settings(max_examples=6, deadline=None)
@given(larger_precision_request())
def test_larger_precision_identical_to_the_plain_engine(raw: dict[str, Any]) -> None:
    _same(raw)
