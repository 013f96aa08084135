"""One weapon with Devastating Wounds into a unit whose CHARACTERs have another Feel No Pain
than their bodyguard, the line split at the end of the main models (issue 18): forward on the
main models (every live attack moves a path on, so a few dozen steps), backward on the short
tail (:class:`exact._PrefixSplitChain`). These tests compare it with the plain
attack-by-attack engine (bounds lifted) on random units, sergeants (better or worse saves:
the latter go back to the general chains) and weapons, and check which requests it takes."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.wh40k10e import analyze, exact
from app.engine.wh40k10e.allocation import Layout
from app.engine.wh40k10e.profiles import CombatRequest, request_from_dict
from tests.engine.wh40k10e import plain
from tests.engine.wh40k10e.factory import weapon
from tests.engine.wh40k10e.test_exact_soft import FNP_PAIRS, _mixed_unit

ABILITIES = [
    "Lethal Hits",
    "Sustained Hits 1",
    "Sustained Hits 2",
    "Twin-linked",
    "Anti-Infantry 4+",
]


def same(req: CombatRequest) -> None:
    new, old = analyze(req), plain.analyze(req)
    assert new.damage == old.damage
    assert new.models_destroyed == old.models_destroyed
    assert new.wipe_probability == old.wipe_probability
    assert new.stages == old.stages
    assert new.extra == old.extra


def split_applies(req: CombatRequest) -> bool:
    layout = Layout(req.target)
    return not exact._LineChain.applies(layout) and exact._PrefixSplitChain.applies(layout, req)


@st.composite
def split_request(draw: st.DrawFn) -> dict[str, Any]:
    abilities = draw(st.lists(st.sampled_from(ABILITIES), max_size=2, unique=True))
    if "Sustained Hits 1" in abilities and "Sustained Hits 2" in abilities:
        abilities.remove("Sustained Hits 1")
    sh2 = "Sustained Hits 2" in abilities
    body_fnp, char_fnp = draw(st.sampled_from(FNP_PAIRS))
    groups: list[dict[str, Any]] = []
    if draw(st.booleans()):  # a sergeant: another save (better or worse), the same FNP
        groups.append(
            {
                "name": "sgt",
                "models": draw(st.integers(1, 2)),
                "wounds": draw(st.integers(1, 3)),
                "save": draw(st.integers(2, 6)),
                "feel_no_pain": body_fnp,
            }
        )
    for name in ["hero", "ancient"][: draw(st.integers(1, 2))]:
        groups.append(
            {
                "name": name,
                "models": 1,
                "wounds": draw(st.integers(1, 5)),
                "save": draw(st.integers(2, 5)),
                "invulnerable_save": draw(st.sampled_from([None, 4])),
                "feel_no_pain": char_fnp,
                "keywords": ["Character"],
            }
        )
    return {
        "attacks": [
            {
                "models": draw(st.integers(1, 2 if sh2 else 4)),
                "weapon": weapon(
                    attacks=draw(
                        st.sampled_from(["1", "2", "D3"] if sh2 else ["1", "2", "D3", "D6"])
                    ),
                    skill=draw(st.integers(2, 4)),
                    strength=draw(st.integers(3, 8)),
                    ap=draw(st.integers(-2, 0)),
                    damage=draw(st.sampled_from(["1", "2", "D3", "D3+1"])),
                    abilities=[*abilities, "Devastating Wounds"],
                ),
            }
        ],
        "target": {
            "models": draw(st.integers(1, 6)),
            "toughness": draw(st.integers(3, 6)),
            "save": draw(st.integers(3, 6)),
            "wounds": draw(st.integers(1, 3)),
            "feel_no_pain": body_fnp,
            "keywords": ["Infantry"],
            "groups": groups,
        },
        "situation": {"reroll_hits": draw(st.sampled_from(["none", "ones"]))},
    }


@settings(max_examples=80, deadline=None)
@given(split_request())
def test_identical_to_the_plain_engine_on_random_split_lines(raw: dict[str, Any]) -> None:
    req = request_from_dict(raw)
    assert split_applies(req)
    same(req)


def test_the_split_takes_one_weapon_without_precision_only() -> None:
    raw = _mixed_unit(attacking=4, bodyguard=6)
    assert split_applies(request_from_dict(raw))
    two = {**raw, "attacks": raw["attacks"] * 2}
    assert not split_applies(request_from_dict(two))  # two weapons: the general chains
    precise = dict(raw["attacks"][0]["weapon"])
    precise["abilities"] = [*precise["abilities"], "Precision"]
    one = {**raw, "attacks": [{"models": 4, "weapon": precise}]}
    assert not split_applies(request_from_dict(one))  # Precision: the general chains
    same_fnp = _mixed_unit(attacking=4, bodyguard=6, captain_fnp=5)
    assert not split_applies(request_from_dict(same_fnp))  # one Feel No Pain: capped chains


def test_the_issue_s_mixed_units_take_the_split() -> None:
    # the bench's two mixed units with a Captain of another Feel No Pain (4+, none)
    for fnp in (4, None):
        assert split_applies(request_from_dict(_mixed_unit(20, 18, captain_fnp=fnp)))
