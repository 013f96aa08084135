"""Damage sets in the forces file (docs/black-reach-data.md): six markers for the location
results 1..6, a weapon marker with the number of the weapon it hits; a heavy vehicle's tile or
support option names its set; every problem located, all at once; the sample set is ours."""

from __future__ import annotations

import copy
from fractions import Fraction

import pytest

from app.engine.black_reach.armies import Army, Fielded, Filled, groups, validate_army
from app.engine.black_reach.forces import FaceKind, Faction, apply_step, fresh_state, weapon_lost
from app.engine.black_reach.loaders import catalogue_from_dict, load_sample_catalogue
from app.engine.black_reach.tables import (
    DamageFace,
    DamageMarker,
    VehicleDamage,
    damage_face_odds,
)
from tests.engine.black_reach.forces_data import problems, raw_forces


def test_the_sample_sets_are_read() -> None:
    catalogue = load_sample_catalogue()
    grey = catalogue.damage_sets["grey"]
    assert [str(f) for f in grey.faces] == [
        "locomotion",
        "hull",
        "secondary_weapon_1",
        "hull",
        "main_weapon_1",
        "explosion",
    ]
    two = catalogue.damage_sets["sample-two-guns"]
    assert two.face(5) == DamageFace(DamageMarker.MAIN_WEAPON, 2)
    assert catalogue.tiles["sample-um-armour"].damage_set == "grey"
    assert raw_forces()["sample"] is True


def test_every_damage_set_problem_is_located() -> None:
    raw = raw_forces()
    raw["damage_sets"] = [
        {"id": "short", "faces": ["hull"] * 5},
        {
            "id": "bad",
            "faces": [
                "hull",
                "rust",
                {"marker": "hull", "number": 2},
                "hull",
                {"marker": "main_weapon", "number": 0},
                {"marker": "explosion", "colour": "red"},
            ],
        },
        {"id": "grey", "faces": ["hull"] * 6},
        {"id": "grey", "faces": ["hull"] * 6},
    ]
    found = problems(raw)
    assert found["damage_sets[0].faces"] == "six markers, for the location results 1 to 6"
    assert "damage_sets[1].faces[1].marker" in found
    assert found["damage_sets[1].faces[2].number"] == "only a weapon marker names a weapon number"
    assert "damage_sets[1].faces[4].number" in found
    assert found["damage_sets[1].faces[5].colour"] == "unknown field"
    assert found["damage_sets[3].id"] == "'grey' is used twice"


def test_a_heavy_vehicle_needs_a_known_damage_set() -> None:
    raw = raw_forces()
    armour = next(i for i, t in enumerate(raw["tiles"]) if t["id"] == "sample-um-armour")
    unknown = copy.deepcopy(raw)
    unknown["tiles"][armour]["damage_set"] = "purple"
    assert problems(unknown) == {f"tiles[{armour}].damage_set": "no damage set 'purple'"}
    # a forces file may leave it out (an editor's work in progress); fielding it may not
    no_set = copy.deepcopy(raw)
    del no_set["tiles"][armour]["damage_set"]
    no_set["options"].append(
        {
            "id": "tank-support",
            "name": "Tank support",
            "faction": "ultramarines",
            "type": "support",
            "cost": 5,
            "bands": ["blue"],
            "counters": ["sample-um-battle-tank"],
        }
    )
    catalogue = catalogue_from_dict(no_set)
    army = Army(
        Faction.ULTRAMARINES,
        (
            Fielded("sample-um-squad", (Filled(0, option="tank-support"),)),
            Fielded("sample-um-armour"),
        ),
    )
    found = [(v.code, v.where) for v in validate_army(army, catalogue)]
    assert ("no_damage_set", "tiles[1].tile") in found
    assert ("no_damage_set", "tiles[0].slots[0].option") in found


def test_a_support_option_gives_its_own_set_to_its_vehicles() -> None:
    raw = raw_forces()
    raw["options"].append(
        {
            "id": "tank-support",
            "name": "Tank support",
            "faction": "ultramarines",
            "type": "support",
            "cost": 5,
            "bands": ["blue"],
            "counters": ["sample-um-battle-tank"],
            "damage_set": "sample-two-guns",
        }
    )
    catalogue = catalogue_from_dict(raw)
    army = Army(
        Faction.ULTRAMARINES,
        (
            Fielded("sample-um-squad", (Filled(0, option="tank-support"),)),
            Fielded("sample-um-armour"),
        ),
    )
    squad, armour = groups(army, catalogue, "ultramarines")
    assert squad.damage_sets == {"ultramarines:tiles[0]/3:sample-um-battle-tank": "sample-two-guns"}
    assert armour.damage_sets == {"ultramarines:tiles[1]/0:sample-um-battle-tank": "grey"}


def test_weapon_markers_hit_the_weapon_of_their_number() -> None:
    tank = load_sample_catalogue().counters["sample-um-battle-tank"]
    main, secondary = tank.first_face.weapons
    state = fresh_state(tank)
    hit = apply_step(tank, state, damage=[DamageFace(DamageMarker.MAIN_WEAPON, 2)])
    assert hit.state.damage.numbers == (2,)
    weapons = tank.first_face.weapons
    assert not weapon_lost(weapons, main, hit.state.damage)  # main weapon 2: not this one
    hit = apply_step(tank, state, damage=[DamageFace(DamageMarker.SECONDARY_WEAPON, 1)])
    assert weapon_lost(weapons, secondary, hit.state.damage)
    assert not weapon_lost(weapons, main, hit.state.damage)
    # a single weapon is main and secondary at once: either marker destroys it [L1036-L1038]
    only = (main,)
    assert weapon_lost(only, main, VehicleDamage((DamageMarker.SECONDARY_WEAPON,), numbers=(1,)))
    # a second main-weapon marker, whatever its number, wrecks the vehicle (same type)
    twice = apply_step(tank, hit.state, damage=[DamageFace(DamageMarker.SECONDARY_WEAPON, 2)])
    assert twice.destroyed
    assert twice.state.face is FaceKind.WRECK


def test_location_odds_of_the_sample_set() -> None:
    grey = load_sample_catalogue().damage_sets["grey"]
    assert damage_face_odds(grey.faces) == {
        "locomotion": Fraction(1, 6),
        "hull": Fraction(1, 3),
        "secondary_weapon_1": Fraction(1, 6),
        "main_weapon_1": Fraction(1, 6),
        "explosion": Fraction(1, 6),
    }
    # Perforant +1, clamped to 6: the 1 reads Hull, the 6 stays an Explosion
    assert damage_face_odds(grey.faces, 1) == {
        "hull": Fraction(1, 3),
        "secondary_weapon_1": Fraction(1, 6),
        "main_weapon_1": Fraction(1, 6),
        "explosion": Fraction(1, 3),
    }
    with pytest.raises(ValueError, match="each result"):
        damage_face_odds(grey.faces[:5])


def test_only_a_wreck_face_carries_terrain() -> None:
    raw = raw_forces()
    tank = next(i for i, c in enumerate(raw["counters"]) if c["id"] == "sample-um-battle-tank")
    wreck = raw["counters"][tank]["faces"][1]
    assert wreck["terrain"]["structure"] == 2
    bad = copy.deepcopy(raw)
    bad["counters"][tank]["faces"][0]["terrain"] = {"reduces_los": 1}
    bad["counters"][tank]["faces"][1]["terrain"] = {"squares": [[0, 0]], "structure": 0}
    found = problems(bad)
    assert found[f"counters[{tank}].faces[0].terrain"] == "only a wreck face is terrain [L633-L637]"
    assert found[f"counters[{tank}].faces[1].terrain.squares"] == "unknown field"
    assert f"counters[{tank}].faces[1].terrain.structure" in found
