"""Calculator forms: reading typed values, building requests, mapping errors back to inputs."""

from __future__ import annotations

import pytest

from app.combat.forms import FieldError, parse_int, parse_list, parse_roll_value
from app.combat.forms.pen import PenForm
from app.combat.forms.wh40k10e import Wh40k10eForm
from app.combat.service import validate


@pytest.mark.parametrize(
    ("text", "expected"),
    [("3", 3), (" 12 ", 12), ("-1", -1), ("\u22121", -1), ("\u20132", -2), ("0", 0)],
)
def test_parse_int(text: str, expected: int) -> None:
    assert parse_int(text) == expected


@pytest.mark.parametrize("text", ["", "x", "3+", "1.5", "1234567"])
def test_parse_int_refuses(text: str) -> None:
    with pytest.raises(FieldError):
        parse_int(text)


def test_roll_values_and_lists() -> None:
    assert parse_roll_value("3+") == 3
    assert parse_roll_value("4") == 4
    assert parse_roll_value("", optional=True) is None
    assert parse_roll_value("-", optional=True) is None
    assert parse_roll_value("n/a", optional=True) is None
    with pytest.raises(FieldError):
        parse_roll_value("")
    assert parse_list(" Heavy,  Assault ,, ") == ["Heavy", "Assault"]


FORM = Wh40k10eForm()


def test_fresh_query_starts_from_the_default_presets() -> None:
    state = FORM.parse([])
    assert state.redirect is None
    assert state.values["w0.name"] == "Bolt rifle"
    assert state.values["t.toughness"] == "5"  # Ork Boyz
    assert state.request is not None
    validate("wh40k-10e", state.request)


def test_request_built_from_the_query() -> None:
    state = FORM.parse(
        [
            ("w0.models", "3"),
            ("w0.name", ""),
            ("w0.kind", "melee"),
            ("w0.attacks", "D6+1"),
            ("w0.skill", "2+"),
            ("w0.strength", "8"),
            ("w0.ap", "−2"),
            ("w0.damage", "D3"),
            ("w0.abilities", "Lethal Hits, Anti-Infantry 4+"),
            ("t.models", "1"),
            ("t.toughness", "9"),
            ("t.save", "-"),
            ("t.wounds", "8"),
            ("t.invulnerable_save", "5+"),
            ("t.feel_no_pain", ""),
            ("t.keywords", "MONSTER"),
            ("s.charged", "on"),
            ("s.hit_modifier", "-1"),
            ("s.reroll_wounds", "ones"),
        ]
    )
    assert not state.has_errors
    assert state.request == {
        "attacks": [
            {
                "models": 3,
                "weapon": {
                    "name": "Weapon 1",
                    "kind": "melee",
                    "attacks": "D6+1",
                    "skill": 2,
                    "strength": 8,
                    "ap": -2,
                    "damage": "D3",
                    "abilities": ["Lethal Hits", "Anti-Infantry 4+"],
                },
            }
        ],
        "target": {
            "models": 1,
            "toughness": 9,
            "save": 7,
            "wounds": 8,
            "invulnerable_save": 5,
            "feel_no_pain": None,
            "keywords": ["MONSTER"],
        },
        "situation": {"charged": True, "hit_modifier": -1, "reroll_wounds": "ones"},
    }
    assert ("s.charged", "on") in state.query
    assert not any(k == "s.half_range" for k, _v in state.query)


def test_form_errors_are_keyed_by_input() -> None:
    state = FORM.parse([("w0.strength", "strong"), ("t.models", ""), ("t.toughness", "4")])
    assert state.request is None
    assert state.errors["w0.strength"] == ["Enter a whole number."]
    assert state.errors["t.models"] == ["Required."]


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (["attacks"], "weapons"),
        (["attacks", "2"], "w2"),
        (["attacks", "1", "models"], "w1.models"),
        (["attacks", "0", "weapon", "skill"], "w0.skill"),
        (["attacks", "0", "weapon", "abilities", "1"], "w0.abilities"),
        (["target", "toughness"], "t.toughness"),
        (["target"], "target"),
        (["target", "groups"], "groups"),
        (["target", "groups", "1", "save"], "g1.save"),
        (["target", "groups", "1"], "g1"),
        (["situation", "hit_modifier"], "s.hit_modifier"),
        (["situation", "half_range"], "situation"),
        ([], None),
        (["seed"], None),
    ],
)
def test_10th_edition_field_for(path: list[str], name: str | None) -> None:
    assert FORM.field_for(path) == name


def test_rows_are_renumbered_and_bounded() -> None:
    state = FORM.parse([("w3.name", "a"), ("w7.name", "b"), ("t.models", "1")])
    names = [state.values[f"w{i}.name"] for i in range(2)]
    assert names == ["a", "b"]
    assert state.context["rows"] == [0, 1]
    assert "w2.name" not in state.values


PEN = PenForm()


def test_pen_fresh_form_and_vehicle_switch() -> None:
    state = PEN.parse([])
    assert state.request is not None
    assert state.request["weapon"]["name"] == "Bolter"
    assert "armour" not in state.request["target"]
    validate("pen", state.request)
    vehicle = PEN.parse([(k, v) for k, v in state.query if k != "t.kind"] + [("t.kind", "vehicle")])
    assert vehicle.request is not None
    target = vehicle.request["target"]
    assert target["armour"] == {"front": 14, "side": 13, "rear": 10}
    assert "toughness" not in target
    assert "models" not in target
    validate("pen", vehicle.request)


def test_pen_situation_flags_of_shooting_into_a_melee_and_mutual_charges() -> None:
    fresh = PEN.parse([])
    assert fresh.request is not None
    assert "target_in_melee" not in fresh.request.get("situation", {})
    names = [f.name for f in PEN.sections[-1].fields]
    assert {"s.target_in_melee", "s.into_melee_malus", "s.defender_charged"} <= set(names)
    flags = ("target_in_melee", "into_melee_malus", "charged", "defender_charged")
    state = PEN.parse([*fresh.query, *((f"s.{flag}", "on") for flag in flags)])
    assert not state.has_errors
    assert state.request is not None
    situation = state.request["situation"]
    assert situation["target_in_melee"] is True
    assert situation["into_melee_malus"] is True
    assert situation["defender_charged"] is True
    assert ("s.defender_charged", "on") in state.query
    validate("pen", state.request)


def test_pen_presets_and_errors() -> None:
    state = PEN.parse([("w.preset", "lascannon")])
    assert state.redirect is not None
    assert dict(state.redirect)["w.strength"] == "9"
    assert PEN.field_for(["target", "armour", "front"]) == "v.front"
    assert PEN.field_for(["weapon", "properties", "0"]) == "w.properties"
    assert PEN.field_for(["attacker"]) == "a"
    assert PEN.field_for(["nothing"]) is None
    bad = PEN.parse([("a.models", "many")])
    assert bad.errors["a.models"] == ["Enter a whole number."]


def test_a_link_with_weapons_only_gets_the_default_target() -> None:
    state = FORM.parse(
        [
            ("w0.models", "1"),
            ("w0.name", "Lascannon"),
            ("w0.kind", "ranged"),
            ("w0.attacks", "1"),
            ("w0.skill", "3+"),
            ("w0.strength", "12"),
            ("w0.ap", "-3"),
            ("w0.damage", "D6+1"),
        ]
    )
    assert not state.has_errors
    assert state.values["t.toughness"] == "5"  # the default preset (Ork Boyz)
    assert state.request is not None
    assert state.request["attacks"][0]["weapon"]["name"] == "Lascannon"
