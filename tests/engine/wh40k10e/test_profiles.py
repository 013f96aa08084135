"""Profiles and request construction from plain values: every bad field named."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.dice import DiceExpr
from app.engine.errors import ProfileError
from app.engine.wh40k10e.profiles import (
    RerollPolicy,
    Target,
    TargetGroup,
    Weapon,
    WeaponKind,
    request_from_dict,
)

GOOD: dict[str, Any] = {
    "attacks": [
        {
            "models": 10,
            "weapon": {
                "name": "Bolt rifle",
                "kind": "ranged",
                "attacks": "2",
                "skill": 3,
                "strength": 4,
                "ap": -1,
                "damage": "1",
                "abilities": ["Heavy", "Assault"],
            },
        }
    ],
    "target": {
        "models": 5,
        "toughness": 4,
        "save": 3,
        "invulnerable_save": None,
        "wounds": 2,
        "feel_no_pain": None,
        "keywords": ["INFANTRY"],
    },
    "situation": {
        "half_range": False,
        "remained_stationary": False,
        "charged": False,
        "cover": False,
        "hit_modifier": 0,
        "wound_modifier": 0,
        "reroll_hits": "none",
        "reroll_wounds": "none",
    },
}


def test_the_issue_example_builds() -> None:
    req = request_from_dict(GOOD)
    w = req.attacks[0].weapon
    assert (w.kind, w.skill, w.attacks, w.ap) == (WeaponKind.RANGED, 3, DiceExpr.parse("2"), -1)
    assert req.target.keywords == ("INFANTRY",)
    assert req.situation.reroll_hits is RerollPolicy.NONE
    assert (
        request_from_dict({k: v for k, v in GOOD.items() if k != "situation"}).situation
        == req.situation
    )


def _errors(data: dict[str, Any]) -> list[str]:
    with pytest.raises(ProfileError) as err:
        request_from_dict(data)
    return [f for f, _ in err.value.errors]


def _with(path: list[Any], value: Any) -> dict[str, Any]:
    import copy

    data = copy.deepcopy(GOOD)
    node: Any = data
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (["target", "toughness"], 0, "target.toughness"),
        (["attacks", 0, "weapon", "skill"], 7, "attacks[0].weapon.skill"),
        (["attacks", 0, "weapon", "attacks"], "D7", "attacks[0].weapon.attacks"),
        (["attacks", 0, "weapon", "damage"], "banana", "attacks[0].weapon.damage"),
        (["attacks", 0, "weapon", "abilities"], ["Twin Lnked"], "attacks[0].weapon.abilities[0]"),
        (["attacks", 0, "weapon", "ap"], 2, "attacks[0].weapon.ap"),
        (["attacks", 0, "weapon", "kind"], "laser", "attacks[0].weapon.kind"),
        (["attacks", 0, "models"], 0, "attacks[0].models"),
        (["target", "save"], 1, "target.save"),
        (["target", "feel_no_pain"], 7, "target.feel_no_pain"),
        (["target", "colour"], "red", "target.colour"),
        (["situation", "reroll_hits"], "always", "situation.reroll_hits"),
        (["situation", "hit_modifier"], "1", "situation.hit_modifier"),
        (["situation", "cover"], 1, "situation.cover"),
        (["situation", "typo"], True, "situation.typo"),
        (["extra"], 1, "extra"),
    ],
)
def test_each_bad_field_is_named(path: list[Any], value: Any, field: str) -> None:
    assert field in _errors(_with(path, value))


def test_several_problems_reported_together() -> None:
    data = _with(["target", "toughness"], 0)
    data["attacks"][0]["weapon"]["skill"] = 7
    data["situation"]["typo"] = 1
    assert set(_errors(data)) == {"target.toughness", "attacks[0].weapon.skill", "situation.typo"}


def test_torrent_may_have_no_skill_others_must() -> None:
    w = _with(["attacks", 0, "weapon", "skill"], None)
    assert "attacks[0].weapon.skill" in _errors(w)
    w["attacks"][0]["weapon"]["abilities"] = ["Torrent"]
    assert request_from_dict(w).attacks[0].weapon.skill is None


def test_weapon_kind_checks() -> None:
    with pytest.raises(ProfileError, match="ranged weapons only"):
        Weapon(
            "x",
            WeaponKind.MELEE,
            DiceExpr.parse("1"),
            3,
            4,
            0,
            DiceExpr.parse("1"),
            abilities=(
                __import__(
                    "app.engine.wh40k10e.abilities", fromlist=["parse_ability"]
                ).parse_ability("Heavy"),
            ),
        )


def test_groups_and_limits() -> None:
    g = TargetGroup("Captain", 1, 5, 3, 4, None, ("character",))
    assert g.is_character
    t = Target(models=5, toughness=4, save=3, wounds=2, groups=(g,))
    assert t.total_models == 6
    assert "CHARACTER" in t.all_keywords
    with pytest.raises(ProfileError, match="unique"):
        Target(models=5, toughness=4, save=3, wounds=2, groups=(g, g))
    with pytest.raises(ProfileError, match="200"):
        Target(models=60, toughness=4, save=3, wounds=30)


def test_target_not_visible_needs_indirect_fire() -> None:
    data = _with(["situation", "target_not_visible"], True)
    assert "attacks[0].weapon.abilities" in _errors(data)
    data["attacks"][0]["weapon"]["abilities"] = ["Indirect Fire"]
    assert request_from_dict(data).situation.target_not_visible
