"""The request parser: defaults, every problem reported at once, bounds, unused numbers."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.engine.black_reach import Kind, request_from_dict
from app.engine.black_reach.loaders import load_sample_catalogue
from app.engine.black_reach.odds import damage_marker_odds, outcome_odds
from app.engine.black_reach.requests import BOUNDS, DAMAGE_MARKERS, Attacker, Situation, Target
from app.engine.black_reach.tables import DamageMarker, damage_face_odds
from app.engine.errors import ProfileError


def errors(raw: object) -> dict[str, str]:
    with pytest.raises(ProfileError) as info:
        request_from_dict(raw)  # type: ignore[arg-type]
    return dict(info.value.errors)


def test_every_field_but_cv_and_dv_defaults_to_zero_or_false() -> None:
    request = request_from_dict({"kind": "shot", "attacker": {"cv": 4}, "target": {"dv": 6}})
    assert request.kind is Kind.SHOT
    assert request.attacker == Attacker(cv=4)
    assert request.attacker.dice == 1
    assert request.target == Target(dv=6)
    assert request.situation == Situation(long_range=False)


def test_the_issue_example_reads_whole() -> None:
    raw = {
        "kind": "shot",
        "attacker": {
            "cv": 4,
            "bonuses": 1,
            "moving_penalty": 0,
            "dice": 1,
            "suppressed": 0,
            "penalties": 0,
            "assault_bonus": 0,
            "support": 0,
        },
        "target": {
            "dv": 6,
            "defence_bonus": 0,
            "cv": 3,
            "assault_bonus": 0,
            "has_assault": False,
            "bonuses": 0,
            "suppressed": 0,
            "penalties": 0,
        },
        "situation": {"long_range": False},
    }
    request = request_from_dict(raw)
    assert request.attacker.bonuses == 1
    assert request.target.cv == 3


def test_required_fields_depend_on_the_kind() -> None:
    assert errors({"kind": "shot", "attacker": {}, "target": {"cv": 3}}) == {
        "attacker.cv": "required",
        "target.dv": "required for a shot",
    }
    assert errors({"kind": "assault", "attacker": {"cv": 2}, "target": {"dv": 5}}) == {
        "target.cv": "required for an assault"
    }
    assert errors({}) == {
        "kind": "required: shot, suppression_fire or assault",
        "attacker": "required",
        "target": "required",
    }


def test_unknown_fields_wrong_types_and_bounds_are_all_reported() -> None:
    found = errors(
        {
            "kind": "volley",
            "attacker": {"cv": True, "dice": 3, "rerolls": 1},
            "target": {"dv": 0, "has_assault": 1},
            "situation": {"long_range": "yes"},
            "extra": 1,
        }
    )
    assert found == {
        "extra": "unknown field (known: attacker, kind, situation, target)",
        "kind": "must be shot, suppression_fire or assault",
        "attacker.cv": "must be a whole number",
        "attacker.dice": "must be between 1 and 2",
        "attacker.rerolls": (
            "unknown field (known: assault_bonus, bonuses, cv, dice, moving_penalty, "
            "penalties, piercing, support, suppressed)"
        ),
        "target.dv": "must be between 1 and 20",
        "target.has_assault": "must be true or false",
        "situation.long_range": "must be true or false",
    }


@pytest.mark.parametrize("name", sorted(BOUNDS))
def test_each_bound_is_enforced_at_both_ends(name: str) -> None:
    lo, hi = BOUNDS[name]
    section = "target" if name in ("dv", "defence_bonus") else "attacker"
    for value, ok in ((lo, True), (hi, True), (lo - 1, False), (hi + 1, False)):
        raw = {"kind": "shot", "attacker": {"cv": 1}, "target": {"dv": 5}}
        raw[section] = {**raw[section], name: value}  # type: ignore[dict-item]
        if name == "support":
            raw["kind"] = "assault"
            raw["target"] = {"cv": 1}
        if ok:
            request_from_dict(raw)
        else:
            assert f"{section}.{name}" in errors(raw)


def test_numbers_a_kind_cannot_use_are_refused_unless_zero() -> None:
    shot = {
        "kind": "shot",
        "attacker": {"cv": 3, "support": 1},
        "target": {"dv": 5, "bonuses": 1, "suppressed": 2, "penalties": 1},
    }
    assert errors(shot) == {
        "attacker.support": "does not apply to a shot or a suppression fire",
        "target.bonuses": "does not apply to a shot or a suppression fire",
        "target.suppressed": "does not apply to a shot or a suppression fire",
        "target.penalties": "does not apply to a shot or a suppression fire",
    }
    assault = {
        "kind": "assault",
        "attacker": {"cv": 3, "moving_penalty": 2},
        "target": {"cv": 2},
        "situation": {"long_range": True},
    }
    assert errors(assault) == {
        "attacker.moving_penalty": "does not apply to an assault",
        "situation.long_range": "does not apply to an assault",
    }
    # zeros (a client sending the whole shape) and unit descriptions are fine with any kind
    request_from_dict(
        {
            "kind": "assault",
            "attacker": {"cv": 3, "moving_penalty": 0, "dice": 2},
            "target": {"cv": 2, "dv": 5},
            "situation": {"long_range": False},
        }
    )


def test_an_assault_bonus_needs_the_assaut_ability() -> None:
    raw = {"kind": "assault", "attacker": {"cv": 3}, "target": {"cv": 2, "assault_bonus": 1}}
    assert errors(raw) == {
        "target.assault_bonus": "a unit without Assaut has no Assault bonus (set has_assault)"
    }
    raw["target"]["has_assault"] = True  # type: ignore[index]
    assert request_from_dict(raw).target.assault_bonus == 1


def test_sections_must_be_objects() -> None:
    assert errors({"kind": "shot", "attacker": [1], "target": "x"}) == {
        "attacker": "must be an object",
        "target": "must be an object",
    }


def test_the_damage_markers_a_request_names_are_the_tables_own() -> None:
    # requests.py cannot import tables.py (tables imports the pipeline, which imports it)
    assert set(DAMAGE_MARKERS) == {m.value for m in DamageMarker}


def test_the_analysis_of_a_damage_set_agrees_with_the_legal_actions_table() -> None:
    # the analyze API and the match's legal shots (tables.damage_face_odds) give the same odds
    for damage_set in load_sample_catalogue().damage_sets.values():
        for piercing in (False, True):
            request = request_from_dict(
                {
                    "kind": "shot",
                    "attacker": {"cv": 3, "piercing": piercing, "dice": 2},
                    "target": {
                        "dv": 5,
                        "damage_set": [
                            {"marker": f.marker.value, "number": f.number}
                            if f.marker.value.endswith("weapon")
                            else f.marker.value
                            for f in damage_set.faces
                        ],
                    },
                }
            )
            odds = outcome_odds(request)
            located = damage_face_odds(damage_set.faces, 1 if piercing else 0)
            expected = {k: odds["step"] * p for k, p in located.items()}
            expected["coup_double"] = odds["coup_double"]
            assert damage_marker_odds(request) == expected
            assert sum(expected.values()) == 1 - odds["miss"] != Fraction(0)
