"""The stages of a weapon with a long per-model support (issue 18): ``_Weapon.stage`` takes one
GMP power of the packed per-model polynomial where ``Dist.repeat`` used binary powering of
Python integers (1.35 s for Sustained Hits 2's mortal wounds from 30 models of D6+3 attacks);
the distributions are identical, whichever branch ``repeat`` would take."""

from __future__ import annotations

import contextlib
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.distributions import Dist
from app.engine.errors import ProfileError
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


def test_a_support_with_gaps_never_takes_the_binary_powering(monkeypatch: Any) -> None:
    """``Dist.repeat`` powers by squaring (slow on wide supports) when the *dense* width is over
    4 × the copies; the stage judged by the values with a weight, so a per-model support with
    gaps (10 attacks of D3+3 damage, Sustained Hits 2) took that path: 1.2 s of CPU, refused
    or not (review of issue 18)."""
    calls: list[tuple[int, int]] = []
    original = Dist.repeat

    def spy(self: Dist, n: int) -> Dist:
        calls.append((len(self.dense()[1]), n))
        return original(self, n)

    monkeypatch.setattr(Dist, "repeat", spy)
    for fnp in (5, None):
        target: dict[str, Any] = {"models": 30, "toughness": 4, "save": 4, "wounds": 6}
        if fnp is not None:
            target["feel_no_pain"] = fnp
        w = weapon(
            attacks="10",
            damage="D3+3",
            abilities=["Sustained Hits 2", "Lethal Hits", "Devastating Wounds"],
        )
        raw = {"attacks": [{"models": 30, "weapon": w}], "target": target}
        with contextlib.suppress(ProfileError):  # refused: the point is the path taken
            exact.analyze(request_from_dict(raw))
    # many copies of a wide support by squaring (a few copies of anything are cheap)
    slow = [(width, n) for width, n in calls if n >= 4 and width > 4 * n]
    assert calls
    assert slow == []
