"""Profile validation: every invalid field raises ProfileError naming it."""

from dataclasses import replace
from typing import Any

import pytest

from app.engine.errors import ProfileError
from app.engine.pen.names import Rule, parse_rules
from app.engine.pen.profiles import (
    Armour,
    AttackRequest,
    Situation,
    Unit,
    UnitType,
    Vehicle,
    VehicleType,
    Weapon,
    WeaponKind,
    WeaponType,
)

UNIT = Unit(models=5, ws=4, bs=4, strength=4, toughness=4, save=3)


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"models": 0}, "models"),
        ({"ws": 11}, "ws"),
        ({"bs": 0}, "bs"),
        ({"toughness": 12}, "toughness"),
        ({"wounds": 0}, "wounds"),
        ({"save": 7}, "save"),
        ({"invulnerable_save": 0}, "invulnerable_save"),
        ({"cover_save": 1}, "cover_save"),
        ({"attacks": -1}, "attacks"),
        ({"leadership": 11}, "leadership"),
    ],
)
def test_unit_fields(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(ProfileError) as err:
        replace(UNIT, **changes).validate()
    assert err.value.field == field


def test_every_problem_at_once() -> None:
    with pytest.raises(ProfileError) as err:
        replace(UNIT, models=0, ws=0, save=9).validate()
    assert [f for f, _ in err.value.errors] == ["models", "ws", "save"]


@pytest.mark.parametrize(
    ("weapon", "field"),
    [
        (Weapon(shots=0), "shots"),
        (Weapon(type=WeaponType.SALVO, shots=4), "type"),
        (Weapon(kind=WeaponKind.MELEE, type=WeaponType.ASSAULT), "type"),
        (Weapon(strength=0), "strength"),
        (Weapon(ap=7), "ap"),
        (Weapon(properties=parse_rules(["Scout"])), "properties[0]"),
    ],
)
def test_weapon_fields(weapon: Weapon, field: str) -> None:
    with pytest.raises(ProfileError) as err:
        weapon.validate()
    assert err.value.field == field


def test_vehicle_fields() -> None:
    with pytest.raises(ProfileError) as err:
        Vehicle(armour=Armour(15, 12, 10), hull_points=0).validate()
    assert [f for f, _ in err.value.errors] == ["armour.front", "hull_points"]
    with pytest.raises(ProfileError, match="already destroyed"):
        Vehicle(armour=Armour(12, 12, 10), hull_points=2, hull_points_lost=2).validate()
    with pytest.raises(ProfileError, match="one vehicle"):
        Vehicle(armour=Armour(12, 12, 10), models=2).validate()


def test_request_prefixes_the_fields() -> None:
    with pytest.raises(ProfileError) as err:
        AttackRequest(
            replace(UNIT, bs=None), Weapon(strength=4), replace(UNIT, toughness=None)
        ).validate()
    assert err.value.errors == (
        ("attacker.bs", "a ranged attack needs the BS"),
        ("target.toughness", "is required"),
    )


def test_unit_types_grant_rules() -> None:
    bike = replace(UNIT, unit_type=UnitType.BIKE)
    assert bike.has(Rule.RELENTLESS)  # [L158]
    assert bike.effective_toughness == 5  # [L157]
    assert replace(UNIT, toughness=10, unit_type=UnitType.JETBIKE).effective_toughness == 10
    mc = replace(UNIT, unit_type=UnitType.MONSTROUS_CREATURE)
    assert mc.has(Rule.SMASH)  # [L171]
    assert mc.is_monstrous
    daemon = replace(UNIT, rules=parse_rules(["Démon"]), invulnerable_save=6)
    assert daemon.effective_invulnerable == 5  # [L388]
    assert daemon.has(Rule.FEARLESS)
    assert replace(UNIT, rules=parse_rules(["Essaim"])).has(Rule.VULNERABLE_TO_TEMPLATES)


def test_vehicle_types() -> None:
    flyer = Vehicle(armour=Armour(10, 10, 10), types=frozenset({VehicleType.AIRCRAFT}))
    assert flyer.is_(VehicleType.FLYER)  # [L247], [L253]
    assert flyer.is_(VehicleType.SKIMMER)
    assert flyer.has(Rule.SKIMMER)
    assert not Vehicle(armour=Armour(10, 10, 10)).is_(VehicleType.FAST)


def test_situation_fields() -> None:
    with pytest.raises(ProfileError) as err:
        Situation(target_moved=-1, models_under_template=0).validate()
    assert [f for f, _ in err.value.errors] == ["target_moved", "models_under_template"]
