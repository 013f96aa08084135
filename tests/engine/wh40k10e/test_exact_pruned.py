"""The pruned general chain (issue 18) against the plain attack-by-attack engine (bounds
lifted): units of several profiles (a sergeant or a CHARACTER that saves better than the
others, where a live attack may change nothing), Feel No Pain alike or not, several weapons
(the state of one carried into the next, Precision among them), and the issue's mixed unit.

The chain drops, ``t`` live attacks before the end, the states those attacks certainly leave
destroyed: the pending mortal wounds that cover what is left of the unit once the attacks
have gone as far as the first model that saves better than the weakest. These tests check
that nothing else is dropped, on the sizes where the plain engine still finishes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.wh40k10e import analyze, exact
from app.engine.wh40k10e.allocation import Layout
from app.engine.wh40k10e.profiles import CombatRequest, request_from_dict
from tests.engine.wh40k10e import plain
from tests.engine.wh40k10e.factory import mixed_unit, weapon

ABILITIES = [
    "Lethal Hits",
    "Sustained Hits 1",
    "Devastating Wounds",
    "Twin-linked",
    "Anti-Infantry 4+",
]
ALL = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds"]


def same(req: CombatRequest) -> None:
    new, old = analyze(req), plain.analyze(req)
    assert new.damage == old.damage
    assert new.models_destroyed == old.models_destroyed
    assert new.wipe_probability == old.wipe_probability
    assert new.stages == old.stages
    assert new.extra == old.extra


@st.composite
def mixed_request(draw: st.DrawFn) -> dict[str, Any]:
    weapons = []
    for _ in range(draw(st.integers(1, 2))):
        abilities = draw(st.lists(st.sampled_from(ABILITIES), max_size=3, unique=True))
        if draw(st.integers(0, 5)) == 0:
            abilities.append("Precision")
        weapons.append(
            {
                "models": draw(st.integers(1, 5)),
                "weapon": weapon(
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
    # Feel No Pain alike on every model (pending mortal wounds thinned and capped), or not
    other_fnp = fnp if draw(st.booleans()) else draw(st.sampled_from([None, 4, 5]))
    groups: list[dict[str, Any]] = []
    if draw(st.booleans()):
        groups.append(
            {
                "name": "sgt",
                "models": 1,
                "wounds": draw(st.integers(1, 3)),
                "save": draw(st.integers(2, 4)),
                "feel_no_pain": other_fnp,
            }
        )
    if draw(st.booleans()) or not groups:
        groups.append(
            {
                "name": "hero",
                "models": 1,
                "wounds": draw(st.integers(2, 5)),
                "save": 2,
                "invulnerable_save": draw(st.sampled_from([None, 4])),
                "feel_no_pain": draw(st.sampled_from([fnp, other_fnp])),
                "keywords": ["Character"] if draw(st.booleans()) else [],
            }
        )
    return {
        "attacks": weapons,
        "target": {
            "models": draw(st.integers(1, 6)),
            "toughness": draw(st.integers(3, 6)),
            "save": draw(st.integers(3, 6)),
            "wounds": draw(st.integers(1, 3)),
            "feel_no_pain": fnp,
            "keywords": ["Infantry"],
            "groups": groups,
        },
        "situation": {"reroll_hits": draw(st.sampled_from(["none", "ones"]))},
    }


@settings(max_examples=60, deadline=None)
@given(mixed_request())
def test_identical_to_the_plain_engine_on_random_mixed_units(raw: dict[str, Any]) -> None:
    req = request_from_dict(raw)
    assert not exact._LineChain.applies(Layout(req.target))
    same(req)


def test_stall_gaps_reach_the_first_model_that_saves_better() -> None:
    # 3 x W2 Sv4, a sergeant W2 Sv3, a CHARACTER W3 Sv2: against AP 0, the first model
    # that saves better than the weakest is the sergeant (position 6 of the bodyguard line)
    raw = {
        "attacks": [{"models": 1, "weapon": weapon(attacks="2", damage="1")}],
        "target": {
            "models": 3,
            "toughness": 4,
            "save": 4,
            "wounds": 2,
            "groups": [
                {"name": "sgt", "models": 1, "wounds": 2, "save": 3},
                {"name": "hero", "models": 1, "wounds": 3, "save": 2, "keywords": ["Character"]},
            ],
        },
    }
    req = request_from_dict(raw)
    layout = Layout(req.target)
    budget = exact._Budget()
    chain = exact._Chain(layout, layout.uniform_feel_no_pain(), budget)
    w = exact._Weapon(
        req.attacks[0],
        exact.weapon_rules(req.attacks[0].weapon, req.target, req.situation),
        req.situation,
    )
    losses = {}
    for slot in layout.bodyguard + layout.characters:
        prof = (slot.save, slot.invulnerable_save, slot.feel_no_pain)
        losses[prof] = exact._wound_loss(slot, w, req.situation)
    q1 = 1
    for _, tot in losses.values():
        q1 = q1 * tot // exact.math.gcd(q1, tot)
    s_min = min(weights.get(0, 0) * (q1 // tot) for weights, tot in losses.values())
    gaps = chain._stall_gaps(losses, q1, s_min)
    nc = chain.NC
    assert [gaps[b * nc] for b in range(layout.B + 1)] == [6, 5, 4, 3, 2, 1, 0, 0, 0]
    # the bodyguard destroyed (b = 8), the hero takes the attacks: it saves better too
    assert [gaps[layout.B * nc + c] for c in range(layout.C)] == [0, 0, 0]


HEAVY = {
    "10 x D6 every ability, D3 vs 8 W2 + sgt + Captain, FNP 5+ alike": {
        "attacks": [{"models": 10, "weapon": weapon(attacks="D6", damage="D3", abilities=ALL)}],
        "target": mixed_unit(8, wounds=2),
    },
    "Precision first, then 8 x D6 Lethal: the carried state off the lines": {
        "attacks": [
            {
                "models": 3,
                "weapon": weapon(attacks="2", damage="2", abilities=["Precision", "Lethal Hits"]),
            },
            {"models": 8, "weapon": weapon(attacks="D6", damage="1", abilities=["Lethal Hits"])},
        ],
        "target": {
            "models": 6,
            "toughness": 4,
            "save": 4,
            "wounds": 2,
            "groups": [
                {
                    "name": "Captain",
                    "models": 1,
                    "wounds": 4,
                    "save": 3,
                    "keywords": ["Character"],
                },
            ],
        },
    },
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HEAVY))
def test_heavy_mixed_cases_identical_to_the_plain_engine(name: str) -> None:
    same(request_from_dict(HEAVY[name]))


@pytest.mark.slow
def test_the_issue_mixed_unit_is_answered() -> None:
    # issue 18: 20 x D6 SH1 LH DW D3 vs 18 x W3 + a sergeant + a Captain, FNP 5+: refused
    # before (the plain engine takes about a second)
    raw = {
        "attacks": [{"models": 20, "weapon": weapon(attacks="D6", damage="D3", abilities=ALL)}],
        "target": mixed_unit(18),
    }
    same(request_from_dict(raw))
