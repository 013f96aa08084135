"""The stages of a weapon with a long per-model support (issue 18): ``_Weapon.stage`` takes one
GMP power of the packed per-model polynomial where ``Dist.repeat`` used binary powering of
Python integers (1.35 s for Sustained Hits 2's mortal wounds from 30 models of D6+3 attacks);
the distributions are identical, whichever branch ``repeat`` would take."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.distributions import Dist
from app.engine.wh40k10e import exact
from app.engine.wh40k10e.profiles import request_from_dict
from app.engine.wh40k10e.rules import weapon_rules
from tests.engine.wh40k10e.factory import weapon


def _weapon(raw: dict[str, Any]) -> exact._Weapon:
    req = request_from_dict(raw)
    entry = req.attacks[0]
    return exact._Weapon(
        entry, weapon_rules(entry.weapon, req.target, req.situation), req.situation
    )


@settings(max_examples=40, deadline=None)
@given(
    models=st.integers(1, 30),
    attacks=st.sampled_from(["1", "D3", "D6", "D6+3", "2D6"]),
    damage=st.sampled_from(["1", "D3", "D6", "D6+1"]),
    sustained=st.sampled_from([[], ["Sustained Hits 1"], ["Sustained Hits 2"]]),
)
def test_a_stage_is_the_repeat_of_its_per_model_distribution(
    models: int, attacks: str, damage: str, sustained: list[str]
) -> None:
    abilities = [*sustained, "Devastating Wounds", "Lethal Hits"]
    w = _weapon(
        {
            "attacks": [
                {
                    "models": models,
                    "weapon": weapon(attacks=attacks, damage=damage, abilities=abilities),
                }
            ],
            "target": {"models": 10, "toughness": 4, "save": 4, "wounds": 3},
        }
    )
    _, _, p_crit = w.wound
    per_roll = Dist.mixture([(1 - p_crit, Dist.constant(0)), (p_crit, w.damage)])
    lethal = Dist.constant(0)
    got = w.stage(per_roll, lethal, exact._Budget())
    want = w.per_model.compound(w.per_attack(per_roll, lethal)).repeat(models)
    assert got == want
    assert got.total == want.total  # the same reduced weights, not only the same values


def test_the_issue_s_sustained_hits_2_stage_takes_the_gmp_power() -> None:
    w = _weapon(
        {
            "attacks": [
                {
                    "models": 30,
                    "weapon": weapon(
                        attacks="D6+3",
                        damage="D6+1",
                        abilities=["Sustained Hits 2", "Lethal Hits", "Devastating Wounds"],
                    ),
                }
            ],
            "target": {"models": 30, "toughness": 4, "save": 4, "wounds": 3},
        }
    )
    _, _, p_crit = w.wound
    per_roll = Dist.mixture([(1 - p_crit, Dist.constant(0)), (p_crit, w.damage)])
    pm = w.per_model.compound(w.per_attack(per_roll, Dist.constant(0)))
    assert len(pm) > 4 * 30  # Dist.repeat would take its binary powering
    got = w.stage(per_roll, Dist.constant(0), exact._Budget())
    assert got == pm.repeat(30)
    assert len(got) > 3000
