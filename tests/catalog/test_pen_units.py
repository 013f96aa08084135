"""Player-defined PEN units: bounds [L123], names from the PEN vocabulary, army points."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.catalog.pen_units import (
    PenArmour,
    PenArmy,
    PenCharacteristics,
    PenUnit,
    PenWeapon,
    army_problems,
    check_army,
    check_unit,
    unit_problems,
)
from app.engine.errors import ProfileError

SQUAD = PenUnit(
    name="Tactical squad",
    points=170,
    models=10,
    unit_type="Infanterie",
    characteristics=PenCharacteristics(4, 4, 4, 4, 1, 4, 1, 8, 3),
    weapons=(
        PenWeapon("Bolter", type="Tir rapide", strength=4, ap=5, range=24),
        PenWeapon("Lance-flammes", type="assault", strength=4, ap=5, template="souffle"),
        PenWeapon("Épée énergétique", kind="melee", type="melee", ap=2),
    ),
    rules=("Ils ne connaîtront pas la peur",),
)
RHINO = PenUnit(
    name="Rhino",
    points=35,
    unit_type=None,
    characteristics=PenCharacteristics(bs=4),
    armour=PenArmour(11, 11, 10),
    hull_points=3,
    vehicle_types=("char", "Transport"),
    transport_capacity=10,
)


def test_a_valid_unit_is_returned_with_canonical_names() -> None:
    fixed = check_unit(SQUAD)
    assert fixed.unit_type == "infantry"
    assert [w.type for w in fixed.weapons] == ["rapid fire", "assault", "melee"]
    assert fixed.weapons[1].template == "template"
    assert unit_problems(SQUAD) == ()


def test_vehicle_needs_armour_and_known_types() -> None:
    problems = dict(unit_problems(RHINO))
    assert problems == {"vehicle_types[0]": "unknown vehicle type 'char'"}
    fixed = check_unit(replace(RHINO, vehicle_types=("tank", "transport")))
    assert fixed.vehicle_types == ("tank", "transport")
    assert fixed.is_vehicle


@pytest.mark.parametrize(
    ("unit", "field"),
    [
        (PenUnit("x", 10, characteristics=PenCharacteristics(ws=11, toughness=4)),
         "characteristics.ws"),
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=0)),
         "characteristics.toughness"),
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4, save=1)),
         "characteristics.save"),
        (PenUnit("x", 10), "characteristics"),
        (PenUnit("x", -1, characteristics=PenCharacteristics(toughness=4)), "points"),
        (PenUnit("x", 10, models=0, characteristics=PenCharacteristics(toughness=4)), "models"),
        (PenUnit("", 10, characteristics=PenCharacteristics(toughness=4)), "name"),
        (PenUnit("x", 10, unit_type="dragon", characteristics=PenCharacteristics(toughness=4)),
         "unit_type"),
        (PenUnit("x", 10, unit_type=None, armour=PenArmour(15, 10, 10)), "armour.front"),
        (PenUnit("x", 10, unit_type=None, armour=PenArmour(10, 10, 10), hull_points=11),
         "hull_points"),
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4), hull_points=3),
         "hull_points"),
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4),
                 weapons=(PenWeapon("w", strength=11),)), "weapons[0].strength"),
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4),
                 weapons=(PenWeapon("w", ap=0),)), "weapons[0].ap"),
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4),
                 weapons=(PenWeapon("w", kind="melee", type="assault"),)), "weapons[0].type"),
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4),
                 weapons=(PenWeapon("w", type="salvo"),)), "weapons[0].salvo_moved"),
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4),
                 weapons=(PenWeapon("w", kind="melee", type="melee", template="blast"),)),
         "weapons[0].template"),
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4),
                 weapons=(PenWeapon("w", properties=("Perforent",)),)), "weapons[0].properties[0]"),
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4), rules=("Nope",)),
         "rules[0]"),
    ],
)  # fmt: skip
def test_each_bound_names_its_field(unit: PenUnit, field: str) -> None:
    assert field in dict(unit_problems(unit))
    with pytest.raises(ProfileError) as info:
        check_unit(unit)
    assert field in [f for f, _ in info.value.errors]


def test_unknown_names_suggest_the_closest() -> None:
    unit = PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4), rules=("Perforent",))
    (message,) = dict(unit_problems(unit)).values()
    assert "did you mean" in message


def test_all_problems_at_once() -> None:
    unit = PenUnit("", -5, models=0, unit_type="dragon", characteristics=PenCharacteristics(ws=0))
    fields = {f for f, _ in unit_problems(unit)}
    assert fields >= {"name", "points", "models", "unit_type", "characteristics.ws"}


def test_army_points_and_limit() -> None:
    rhino = check_unit(replace(RHINO, vehicle_types=("tank",)))
    army = PenArmy("Strike force", (SQUAD, rhino), points_limit=200)
    assert army.points == 205
    problems = dict(army_problems(army))
    assert problems == {"points_limit": "the army costs 205 points, over its limit of 200"}
    ok = check_army(PenArmy("Strike force", (SQUAD, rhino), points_limit=250))
    assert ok.units[0].unit_type == "infantry"
    bad_unit = PenArmy("A", (PenUnit("x", 10),))
    assert "units[0].characteristics" in dict(army_problems(bad_unit))


def test_army_json_round_trip() -> None:
    army = PenArmy("Strike force", (SQUAD, RHINO), points_limit=1500)
    data = json.loads(json.dumps(army.to_dict()))
    assert data["format"] == "auspex.pen-army"
    assert PenArmy.from_dict(data) == army
    with pytest.raises(ProfileError) as info:
        PenArmy.from_dict({**data, "units": [{"name": "x"}]})
    assert info.value.field == "units[0].points"
    with pytest.raises(ProfileError):
        PenArmy.from_dict({**data, "units": [{}] * 101})


def test_profiles_for_the_combat_calculator() -> None:
    req = SQUAD.attacker("bolter")
    assert req["attacker"] == {
        "models": 10, "ws": 4, "bs": 4, "strength": 4, "attacks": 1, "initiative": 4,
    }  # fmt: skip
    assert req["weapon"]["type"] == "Tir rapide"
    assert req["weapon"]["ap"] == 5
    assert SQUAD.attacker("Lance-flammes")["weapon"]["type"] == "souffle"
    assert SQUAD.target()["toughness"] == 4
    assert SQUAD.target()["save"] == 3
    assert RHINO.target() == {
        "armour": {"front": 11, "side": 11, "rear": 10},
        "facing": "front",
        "hull_points": 3,
    }
    with pytest.raises(ProfileError, match="no weapon"):
        SQUAD.attacker("lascannon")


@given(
    st.builds(
        PenCharacteristics,
        ws=st.none() | st.integers(-2, 12),
        bs=st.none() | st.integers(-2, 12),
        toughness=st.none() | st.integers(-2, 12),
        wounds=st.none() | st.integers(-2, 12),
        save=st.none() | st.integers(0, 8),
    )
)
def test_bounds_property(ch: PenCharacteristics) -> None:
    """A profile is accepted exactly when every value is within its bounds."""
    unit = PenUnit("x", 10, characteristics=ch)
    in_bounds = (
        all(v is None or 1 <= v <= 10 for v in (ch.ws, ch.bs))
        and ch.toughness is not None
        and 1 <= ch.toughness <= 10
        and ch.wounds is not None
        and 1 <= ch.wounds <= 10
        and (ch.save is None or 2 <= ch.save <= 6)
    )
    assert (unit_problems(unit) == ()) == in_bounds
