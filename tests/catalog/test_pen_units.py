"""Player-defined PEN units: bounds [L123], names from the PEN vocabulary, army points."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

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
from app.combat.forms.pen import PenForm
from app.engine.errors import ProfileError
from app.engine.pen.analysis import analyze
from app.engine.pen.attack import plan_attack
from app.engine.pen.names import Rule
from app.engine.pen.profiles import Template, UnitType, Vehicle, VehicleType, WeaponType
from app.engine.pen.requests import request_from_dict

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
        (PenUnit("x", 10, characteristics=PenCharacteristics(toughness=4, save=0)),
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
        "models": 10, "ws": 4, "bs": 4, "strength": 4, "toughness": 4, "wounds": 1,
        "attacks": 1, "initiative": 4, "leadership": 8, "save": 3, "invulnerable_save": None,
        "unit_type": "Infanterie", "rules": ["Ils ne connaîtront pas la peur"],
    }  # fmt: skip
    assert req["weapon"]["type"] == "Tir rapide"
    assert req["weapon"]["ap"] == 5
    flamer = SQUAD.attacker("Lance-flammes")["weapon"]
    assert (flamer["type"], flamer["template"]) == ("assault", "souffle")
    assert SQUAD.target()["toughness"] == 4
    assert SQUAD.target()["save"] == 3
    assert RHINO.target() == {
        "armour": {"front": 11, "side": 11, "rear": 10},
        "facing": "front",
        "hull_points": 3,
        "types": ["char", "Transport"],
        "rules": [],
        "bs": 4,
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
        and (ch.save is None or 1 <= ch.save <= 6)
    )
    assert (unit_problems(unit) == ()) == in_bounds


# -- from the editor to the calculator (issue 13) -------------------------------------------

DEVASTATORS = check_unit(
    PenUnit(
        name="Devastators",
        points=120,
        models=5,
        unit_type="infantry",
        characteristics=PenCharacteristics(4, 4, 4, 4, 1, 4, 1, 8, 3),
        weapons=(
            PenWeapon("Canon plasma", type="Lourde", shots=1, strength=7, ap=2, range=36,
                      template="explosion", properties=("Surchauffe", "Embrasement")),
            PenWeapon("Salvo gun", type="Salve", shots=4, salvo_moved=2, strength=5, ap=4),
        ),
    )
)  # fmt: skip
CARNIFEX = check_unit(
    PenUnit(
        name="Carnifex",
        points=160,
        models=1,
        unit_type="créature monstrueuse",
        characteristics=PenCharacteristics(3, 3, 9, 6, 4, 1, 4, 10, 3),
        weapons=(PenWeapon("Claws", kind="melee", type="melee"),),
    )
)


def _from_calculator_link(unit: PenUnit, weapon: str, **target: Any) -> dict[str, Any]:
    """The request the calculator builds from the editor's link (and a target)."""
    query = unit.calculator_query(weapon)
    query += [(f"t.{k}", str(v)) for k, v in target.items()]
    state = PenForm().parse(query)
    assert not state.has_errors, state.errors
    assert state.request is not None
    return state.request


def test_a_heavy_blast_weapon_stays_heavy_in_the_calculator() -> None:
    """ "Lourde 1 explosion" (plasma cannon [L576]) is heavy with a blast: moving, it snap
    fires at BS 4 // 2 = 2 [L494], [L517]; it is not an assault weapon."""
    for body in (
        DEVASTATORS.attacker("Canon plasma") | {"target": SQUAD.target()},
        _from_calculator_link(DEVASTATORS, "Canon plasma"),
    ):
        request = request_from_dict(body)
        assert request.weapon.type is WeaponType.HEAVY
        assert request.weapon.template is Template.BLAST
        assert plan_attack(request).hit.skill == 2  # snap fire: the squad moved
    assert dict(DEVASTATORS.calculator_query("Canon plasma"))["w.type"] == "heavy blast"


def test_a_salvo_weapon_from_the_editor_is_accepted_by_the_calculator() -> None:
    for body in (
        DEVASTATORS.attacker("Salvo gun") | {"target": SQUAD.target()},
        _from_calculator_link(DEVASTATORS, "Salvo gun"),
    ):
        request = request_from_dict(body)
        assert request.weapon.type is WeaponType.SALVO
        assert (request.weapon.salvo_moved, request.weapon.shots) == (2, 4)
        analyze(request)  # no "a salvo weapon needs X/Y"


def test_the_attackers_unit_type_and_toughness_reach_the_calculator() -> None:
    """A monstrous creature keeps its type (Implacable, AP2 in melee [L171]) and its T, so
    the defender's strike back is modelled [L1213] (pen rulings 19)."""
    for body in (
        CARNIFEX.attacker("Claws") | {"target": SQUAD.target()},
        _from_calculator_link(
            CARNIFEX, "Claws", models=10, ws=4, toughness=4, strength=4, attacks=1, save="3+"
        ),
    ):
        request = request_from_dict(body)
        assert request.attacker.unit_type is UnitType.MONSTROUS_CREATURE
        assert request.attacker.toughness == 6
        assert request.attacker.wounds == 4
        combat: Any = analyze(request).extra["combat_result"]
        assert combat["strike_back_modelled"] is True


def test_the_target_export_keeps_unit_type_rules_and_vehicle_types() -> None:
    squad = request_from_dict(CARNIFEX.attacker("Claws") | {"target": check_unit(SQUAD).target()})
    assert squad.target.has_own(Rule.ATSKNF)  # type: ignore[union-attr]
    assert squad.target.strength == 4  # type: ignore[union-attr]
    beast = request_from_dict(SQUAD.attacker("bolter") | {"target": CARNIFEX.target()})
    assert beast.target.unit_type is UnitType.MONSTROUS_CREATURE  # type: ignore[union-attr]
    rhino = check_unit(replace(RHINO, vehicle_types=("tank", "transport"), rules=("Géant",)))
    vehicle = request_from_dict(SQUAD.attacker("bolter") | {"target": rhino.target()}).target
    assert isinstance(vehicle, Vehicle)
    assert vehicle.types == {VehicleType.TANK, VehicleType.TRANSPORT}
    assert vehicle.has(Rule.GIANT)


@pytest.mark.parametrize(
    ("typed", "canonical", "ap", "multiplier", "initiative"),
    [
        ("Gantelet énergétique", "Power fist", 2, 2, 1),
        ("chainfist", "Chainfist", 2, 2, 1),
        ("Marteau tonnerre", "Thunder hammer", 2, 2, 1),
        ("Lame sorcière", "Witchblade", 5, 1, None),
    ],
)
def test_special_melee_weapons_are_accepted_with_their_profile(
    typed: str, canonical: str, ap: int, multiplier: int, initiative: int | None
) -> None:
    """The close-combat weapons of §2.7 [L601], [L609], [L611], [L613]."""
    unit = replace(SQUAD, weapons=(PenWeapon("Fist", kind="melee", type=typed),))
    assert unit_problems(unit) == ()
    fixed = check_unit(unit)
    assert fixed.weapons[0].type == canonical
    for body in (
        fixed.attacker("Fist") | {"target": SQUAD.target()},
        _from_calculator_link(fixed, "Fist"),
    ):
        weapon = request_from_dict(body).weapon
        assert (weapon.ap, weapon.strength_multiplier, weapon.initiative) == (
            ap,
            multiplier,
            initiative,
        )
    ranged = replace(SQUAD, weapons=(PenWeapon("Fist", kind="ranged", type=typed),))
    assert "weapons[0].type" in dict(unit_problems(ranged))


def test_a_save_better_than_two_plus_can_be_entered() -> None:
    """[L1412]: a save better than 2+ is played as "2+ re 4+"; the editor stores it as 1."""
    unit = replace(SQUAD, characteristics=PenCharacteristics(4, 4, 4, 4, 1, 4, 1, 8, 1, 1))
    assert unit_problems(unit) == ()
    request = request_from_dict(SQUAD.attacker("bolter") | {"target": unit.target()})
    assert request.target.save == 1  # type: ignore[union-attr]


def test_a_vehicle_keeps_its_bs_for_its_own_shots_and_the_battle() -> None:
    """A vehicle shoots with its own BS and adds it to the hit-location roll [L1420] (B27):
    the editor's target and battle profile carry it, and the engine reads it."""
    rhino = check_unit(replace(RHINO, vehicle_types=("tank", "transport")))
    assert rhino.target()["bs"] == 4
    assert rhino.battle_profile()["bs"] == 4
    vehicle = request_from_dict(SQUAD.attacker("bolter") | {"target": rhino.target()}).target
    assert isinstance(vehicle, Vehicle)
    blind = replace(rhino, characteristics=PenCharacteristics())
    assert "bs" not in blind.target()
