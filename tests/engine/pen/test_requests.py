"""Plain JSON-like requests -> typed PEN requests: names, bounds, every problem at once."""

from typing import Any

import pytest

from app.engine.errors import ProfileError
from app.engine.pen.names import Rule
from app.engine.pen.profiles import (
    Facing,
    Template,
    TwinLinkedMode,
    Unit,
    UnitType,
    Vehicle,
    VehicleType,
    WeaponKind,
    WeaponType,
)
from app.engine.pen.requests import request_from_dict
from app.engine.pen.tables import DamageResult, Location

ISSUE_EXAMPLE: dict[str, Any] = {  # the request body of issue 4, as the API receives it
    "attacker": {"models": 10, "ws": 4, "bs": 4, "strength": 4, "attacks": 1, "initiative": 4},
    "weapon": {
        "name": "Bolter",
        "kind": "ranged",
        "type": "rapid fire",
        "shots": 1,
        "strength": 4,
        "ap": 5,
        "properties": [],
    },
    "target": {
        "models": 10,
        "ws": 4,
        "toughness": 4,
        "wounds": 1,
        "save": 4,
        "invulnerable_save": None,
        "cover_save": None,
        "feel_no_pain": None,
    },
    "situation": {"half_range": False, "stationary": False, "target_moved": 0},
}


def with_(**parts: dict[str, Any]) -> dict[str, Any]:
    out = {k: dict(v) for k, v in ISSUE_EXAMPLE.items()}
    for key, changes in parts.items():
        out[key].update(changes)
    return out


def problems(data: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ProfileError) as err:
        request_from_dict(data)
    return dict(err.value.errors)


def test_the_issue_example_parses() -> None:
    req = request_from_dict(ISSUE_EXAMPLE)
    assert req.attacker.models == 10
    assert req.weapon.type is WeaponType.RAPID_FIRE
    assert req.weapon.ap == 5
    assert isinstance(req.target, Unit)
    assert req.target.save == 4
    assert not req.situation.half_range


@pytest.mark.parametrize(
    ("text", "kind", "shots", "salvo", "template", "barrage"),
    [
        ("Assaut 2", WeaponType.ASSAULT, 2, None, None, False),
        ("heavy 3", WeaponType.HEAVY, 3, None, None, False),
        ("Lourde 1 explosion", WeaponType.HEAVY, 1, None, Template.BLAST, False),
        ("Lourde 1 grande explosion", WeaponType.HEAVY, 1, None, Template.LARGE_BLAST, False),
        ("Assaut 1 souffle", WeaponType.ASSAULT, 1, None, Template.FLAME, False),
        ("salvo 2/4", WeaponType.SALVO, 4, 2, None, False),
        ("Salve 3/6", WeaponType.SALVO, 6, 3, None, False),
        ("tir rapide", WeaponType.RAPID_FIRE, 1, None, None, False),
        ("Pistolet", WeaponType.PISTOL, 1, None, None, False),
        ("grenades", WeaponType.GRENADE, 1, None, None, False),
        ("Artillerie 1 barrage", WeaponType.ARTILLERY, 1, None, None, True),
        ("large blast", WeaponType.ASSAULT, 1, None, Template.LARGE_BLAST, False),
        ("barrage", WeaponType.HEAVY, 1, None, None, True),
        ("Balayage 2", WeaponType.SWEEP, 2, None, None, False),
    ],
)
def test_weapon_type_strings(
    text: str,
    kind: WeaponType,
    shots: int,
    salvo: int | None,
    template: Template | None,
    barrage: bool,
) -> None:
    weapon = {"name": "w", "type": text, "strength": 4, "ap": 5}
    req = request_from_dict(with_(weapon=weapon) | {"weapon": weapon})
    assert req.weapon.type is kind
    assert req.weapon.shots == shots
    assert req.weapon.salvo_moved == salvo
    assert req.weapon.template == template
    assert req.weapon.has(Rule.BARRAGE) is barrage


def test_properties_in_french_or_english() -> None:
    req = request_from_dict(
        with_(weapon={"properties": ["perforant", "TWIN-LINKED", "Anti-endurance (3+)"]})
    )
    assert [p.rule for p in req.weapon.properties] == [
        Rule.REND,
        Rule.TWIN_LINKED,
        Rule.ANTI_TOUGHNESS,
    ]
    assert req.weapon.value_of(Rule.ANTI_TOUGHNESS) == 3


def test_every_problem_is_reported_with_its_field() -> None:
    found = problems(
        with_(
            attacker={"models": 0, "bs": "four"},
            weapon={"properties": ["Perfornat"], "ap": 9, "colour": "red"},
            target={"save": 8},
            situation={"half_range": "yes", "smoke": True},
        )
    )
    assert "attacker.bs" in found
    assert found["weapon.properties[0]"].endswith("did you mean 'Perforant'?")
    assert found["weapon.colour"] == "unknown field"
    assert found["situation.half_range"].startswith("must be true or false")
    assert found["situation.smoke"] == "unknown field"
    assert found["attacker.models"] == "must be 1..50, got 0"
    assert found["target.save"] == "must be 1..6, got 8"
    assert found["weapon.ap"] == "must be 1..6, got 9"


def test_bounds_are_checked() -> None:
    assert "target.save" in problems(with_(target={"save": 8}))
    assert "weapon.ap" in problems(with_(weapon={"ap": 0}))
    assert "attacker.models" in problems(with_(attacker={"models": 51}))
    assert "target.wounds" in problems(with_(target={"wounds": 11}))
    assert "weapon.shots" in problems(with_(weapon={"shots": 11}))


def test_unknown_top_level_field_and_missing_parts() -> None:
    found = problems({"attacker": {}, "weapon": {"type": "assault"}, "extra": 1})
    assert found["extra"] == "unknown field"
    assert found["target"] == "is required"


def test_feel_no_pain_is_a_yes_no_rule() -> None:
    req = request_from_dict(with_(target={"feel_no_pain": True}))
    assert isinstance(req.target, Unit)
    assert req.target.has(Rule.FEEL_NO_PAIN)
    assert "target.feel_no_pain" in problems(with_(target={"feel_no_pain": 5}))


def test_unit_types_and_rules() -> None:
    req = request_from_dict(with_(target={"unit_type": "Motojet", "rules": ["Furtif"]}))
    assert isinstance(req.target, Unit)
    assert req.target.unit_type is UnitType.JETBIKE
    assert req.target.effective_toughness == 5  # +1 T [L164]
    found = problems(with_(target={"unit_type": "infanteri"}))
    assert found["target.unit_type"].endswith("did you mean 'infantry'?")


def test_vehicle_target() -> None:
    req = request_from_dict(
        with_(target={})
        | {
            "target": {
                "armour": {"front": 14, "side": 13, "rear": 10},
                "facing": "arrière",
                "hull_points": 4,
                "types": ["Tank", "transport"],
                "invulnerable_save": None,
                "reinforced_armour": True,
            }
        }
    )
    assert isinstance(req.target, Vehicle)
    assert req.target.armour.value(Facing.REAR) == 10
    assert req.target.types == frozenset({VehicleType.TANK, VehicleType.TRANSPORT})
    assert req.target.reinforced_armour
    found = problems(with_() | {"target": {"armour": {"front": 15, "side": 13}, "hull_points": 11}})
    assert "target.armour.rear" in found
    assert "target.hull_points" in found


def test_melee_weapon_names() -> None:
    req = request_from_dict(
        with_(
            weapon={
                "kind": "melee",
                "type": "Gantelet énergétique",
                "shots": None,
                "strength": None,
                "ap": None,
            }
        )
        | {"weapon": {"kind": "melee", "type": "power fist"}}
    )
    assert req.weapon.kind is WeaponKind.MELEE
    assert req.weapon.strength_multiplier == 2
    assert req.weapon.initiative == 1
    assert req.weapon.ap == 2
    # explicit fields override the catalogue
    req = request_from_dict(
        with_() | {"weapon": {"kind": "melee", "type": "power weapon", "ap": 3}}
    )
    assert req.weapon.ap == 3
    found = problems(with_() | {"weapon": {"kind": "melee", "type": "power fisst"}})
    assert found["weapon.type"].endswith("did you mean 'Power fist'?")


def test_situation_choices() -> None:
    req = request_from_dict(
        with_(
            situation={
                "twin_linked": "double_hits",
                "announced_location": "moteurs",
                "models_under_template": 4,
            }
        )
    )
    assert req.situation.twin_linked is TwinLinkedMode.DOUBLE_HITS
    assert req.situation.announced_location is Location.MOBILITY
    assert req.situation.models_under_template == 4
    assert "situation.range_inches" in problems(with_(situation={"night": True}))


def test_cross_checks() -> None:
    found = problems(with_(attacker={"bs": None}))
    assert "attacker.bs" in found
    found = problems(with_(target={"toughness": None}))
    assert "target.toughness" in found
    found = problems(with_(target={"models": 2, "unit_type": "creature monstrueuse"}))
    assert "target.models" in found


def test_melee_weapon_defaults_to_a_close_combat_weapon() -> None:
    req = request_from_dict(with_() | {"weapon": {"kind": "melee"}})
    assert req.weapon.ap == 5  # close combat weapon: user's S, PA5 [L597]
    assert req.weapon.strength is None
    req = request_from_dict(with_() | {"weapon": {"kind": "melee", "ap": None}})
    assert req.weapon.ap is None  # an explicit "PA -"


def test_vehicle_results_earlier_this_turn() -> None:
    """Earlier results of this turn, French or English; results that never move down [L1460]
    and a vehicle already destroyed are refused with their field."""
    body = {
        "attacker": {"bs": 4},
        "weapon": {"type": "heavy 1", "strength": 9, "ap": 2},
        "target": {
            "armour": {"front": 14, "side": 13, "rear": 10},
            "results_this_turn": ["Secoué", "weapons damaged", "pilote sonne"],
        },
    }
    target = request_from_dict(body).target
    assert isinstance(target, Vehicle)
    assert target.results_this_turn == (
        DamageResult.SHAKEN,
        DamageResult.WEAPONS_DAMAGED,
        DamageResult.DRIVER_STUNNED,
    )
    body["target"]["results_this_turn"] = ["Endommagé", "Détruit", "secou"]  # type: ignore[index]
    with pytest.raises(ProfileError) as info:
        request_from_dict(body)
    fields = dict(info.value.errors)
    assert "target.results_this_turn[0]" in fields  # a marker, not a repeated result
    assert fields["target.results_this_turn[1]"] == "the vehicle is already destroyed"
    assert "did you mean" in fields["target.results_this_turn[2]"]
