"""Equipment and Personalisation options in the Black Reach battle (issue 16, rulings
126-128): permanent gifts on the face a unit shows, armour saves from equipment, and the
markers used once, announced before the action (``ready_equipment``) [L2469-L2689].

The board is built here: 8 x 8, no terrain. The Ultramarines squad (Sergeant, a Character, on
(0, 0); tactical squad on (2, 2); heavy-weapon team on (5, 2)) carries the sample Ammo (3
markers, +1 to a shot) and a made-up Personalisation, "halo": Optique, DV 7, +1 MV and a green
5+ armour save (sample content). The Ork mob (Nob (6, 5), Boyz (2, 4) and (7, 7), Shootas (0,
6)) carries made-up Camo markers (+1 DV) and the sample Rokkit Hammers (+1 to the assault roll
and Perçant).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.forces import Ability
from app.engine.black_reach.loaders import catalogue_from_dict
from app.engine.match.errors import Refusal, RefusalKind
from tests.engine.black_reach.battle import test_heavy_vehicles as vehicles

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
UM_GROUP, ORK_GROUP = "ultramarines:tiles[0]", "orks:tiles[0]"
A, B = "A", "B"
BOARD = {"boards": [{"name": "flat", "width": 8, "height": 8, "sample": True}]}
HALO = {
    "id": "test-halo",
    "name": "A made-up halo",
    "faction": "ultramarines",
    "type": "personalisation",
    "cost": 2,
    "bands": ["blue"],
    "equipment": {
        "grants": [{"id": "optics"}],
        "dv": 7,
        "mv_bonus": 1,
        "armour_save": {"value": 5, "colour": "green"},
    },
}
CAMO = {
    "id": "test-camo",
    "name": "Made-up camo cloaks",
    "faction": "orks",
    "type": "equipment",
    "cost": 2,
    "bands": ["red"],
    "equipment": {"markers": 3, "restriction": ["infantry"], "dv_bonus": 1},
}


def setup(first: str = "ultramarines", squad_save: int | None = None) -> BattleSetup:
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    catalogue["options"].extend([HALO, CAMO])
    if squad_save is not None:
        squad = next(t for t in catalogue["tiles"] if t["id"] == "sample-um-squad")
        squad["armour_save"] = {"value": squad_save, "colour": "green"}
    scenario = {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-equipment",
        "name": "Test equipment",
        "turns": 3,
        "hand_size": 0,
        "first_initiative": first,
        "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [7, 3]}],
                "army": {
                    "faction": "ultramarines",
                    "tiles": [
                        {
                            "tile": "sample-um-squad",
                            "slots": [
                                {"slot": 0, "option": "sample-um-ammo"},
                                {"slot": 1, "option": "test-halo"},
                            ],
                        }
                    ],
                },
            },
            {
                "id": "orks",
                "deployment": [{"from": [0, 4], "to": [7, 7]}],
                "army": {
                    "faction": "orks",
                    "tiles": [
                        {
                            "tile": "sample-ork-mob",
                            "slots": [
                                {"slot": 0, "option": "test-camo"},
                                {"slot": 1, "option": "sample-ork-hammers"},
                            ],
                        }
                    ],
                },
            },
        ],
        "objectives": [],
    }
    deployment = (
        Deploy(SERGEANT, 0, 0, "S"),
        Deploy(TACTICAL, 2, 2, "S"),
        Deploy(BOLTER, 5, 2, "S"),
        Deploy(NOB, 6, 5, "N"),
        Deploy(BOYZ1, 2, 4, "N"),
        Deploy(BOYZ2, 7, 7, "N"),
        Deploy(SHOOTAS, 0, 6, "N"),
    )
    return BattleSetup(scenario, catalogue, BOARD, {"A": "ultramarines", "B": "orks"}, deployment)


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def ordered(first: str = "ultramarines", squad_save: int | None = None) -> BlackReachBattle:
    """UM: the team 1, the tactical squad 2; Orks: the Shootas 1, the Boyz 2."""
    battle = BlackReachBattle.create(setup(first, squad_save))
    battle.execute_json(
        {"type": "place_orders", "orders": [order(SHOOTAS, 1), order(BOYZ1, 2)]},
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2)],
        },
        A,
    )
    return battle


def ready(unit: str, option: str, count: int = 1) -> dict[str, Any]:
    return {"type": "ready_equipment", "unit": unit, "option": option, "count": count}


def events_of(envelopes: Any) -> list[Any]:
    return [e.event for e in envelopes]


# -- permanent gifts ------------------------------------------------------------------------------


def test_a_personalisation_shows_on_its_characters_face_only() -> None:
    battle = ordered()
    sergeant = battle.state.units[SERGEANT]
    assert (sergeant.face.dv, sergeant.face.mv) == (7, 5)  # DV set to 7, MV 4 + 1
    assert sergeant.face.has(Ability.OPTICS)
    assert sergeant.face.ability(Ability.ASSAULT) is not None  # its own abilities stay
    tactical = battle.state.units[TACTICAL]
    assert (tactical.face.dv, tactical.face.mv, tactical.face.has(Ability.OPTICS)) == (5, 4, False)
    view = battle.view(A)
    mine = next(u for u in view["units"] if u["id"] == SERGEANT)
    assert (mine["dv"], mine["mv"]) == (7, 5)


def test_an_equipment_gift_serves_only_the_classes_it_allows() -> None:
    catalogue = copy.deepcopy(setup().catalogue)
    assert isinstance(catalogue, dict)
    halo = next(o for o in catalogue["options"] if o["id"] == "test-halo")
    halo["type"] = "equipment"  # an Equipment option: every unit of the group it allows
    halo["equipment"]["restriction"] = ["light_vehicle"]
    base = setup()
    battle = BlackReachBattle.create(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    assert battle.state.units[TACTICAL].face.dv == 5  # infantry: not served
    halo["equipment"]["restriction"] = []
    battle = BlackReachBattle.create(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    assert {battle.state.units[u].face.dv for u in (SERGEANT, TACTICAL, BOLTER)} == {7}


@pytest.mark.parametrize(("save_die", "saved"), [(5, True), (4, False)])
def test_an_iron_halo_rolls_its_green_save(save_die: int, saved: bool) -> None:
    battle = ordered(first="orks")
    # the Shootas: 5 + CV 2 = 7 against the Sergeant's DV 7: a step; then his 5+ save
    events = events_of(
        battle.execute_json(
            {"type": "shoot", "unit": SHOOTAS, "target": SERGEANT}, B, dice=[5, save_die]
        )
    )
    save = next(e for e in events if e.kind == "armour_save")
    assert (save.value, save.saved) == (5, saved)
    assert ("steps_taken" in [e.kind for e in events]) is not saved


def test_the_best_green_save_is_rolled() -> None:
    battle = ordered(first="orks", squad_save=6)  # the tile's 6+ and the halo's 5+
    events = events_of(
        battle.execute_json({"type": "shoot", "unit": SHOOTAS, "target": SERGEANT}, B, dice=[5, 5])
    )
    assert next(e for e in events if e.kind == "armour_save").value == 5


# -- markers -------------------------------------------------------------------------------------


def shot_odds(battle: BlackReachBattle, unit: str, target: str) -> dict[str, str]:
    entry = next(
        a
        for a in battle.actions(A)
        if a["command"]["type"] == "shoot"
        and a["command"]["unit"] == unit
        and a["command"]["target"] == target
        and not a["command"].get("suppression")
    )
    return dict(entry["odds"])


def test_ammo_markers_add_to_the_shot_and_are_used_for_good() -> None:
    battle = ordered()
    offer = next(a for a in battle.actions(A) if a["command"]["type"] == "ready_equipment")
    assert offer["command"]["unit"] == BOLTER  # a shooting marker: for the unit due
    assert (offer["counts"], offer["left"]) == ([1, 2, 3], 3)
    before = shot_odds(battle, BOLTER, BOYZ1)
    events = events_of(battle.execute_json(ready(BOLTER, "sample-um-ammo", 2), A))
    assert [e.kind for e in events] == ["equipment_readied"]
    assert battle.state.gear_ready == {BOLTER: {f"{UM_GROUP}|sample-um-ammo": 2}}
    # 1 die + CV 3 against DV 4: Coup Double (8) on 5 or 6; with +2, on 3 or more, no miss
    assert before == {"miss": "0", "step": "2/3", "coup_double": "1/3"}
    assert shot_odds(battle, BOLTER, BOYZ1) == {"miss": "0", "step": "1/3", "coup_double": "2/3"}
    events = events_of(
        battle.execute_json({"type": "shoot", "unit": BOLTER, "target": BOYZ1}, A, dice=[1])
    )
    shot = next(e for e in events if e.kind == "unit_shot")
    assert (shot.bonuses, shot.final, shot.outcome) == (2, 6, "step")
    used = next(e for e in events if e.kind == "equipment_used")
    assert (used.unit, used.option, used.count) == (BOLTER, "sample-um-ammo", 2)
    assert battle.state.gear_ready == {}
    assert battle.state.equipment_used == {f"{UM_GROUP}|sample-um-ammo": 2}


def test_the_markers_left_and_three_identical_at_most() -> None:
    battle = ordered()
    battle.execute_json(ready(BOLTER, "sample-um-ammo", 2), A)
    offer = next(a for a in battle.actions(A) if a["command"]["type"] == "ready_equipment")
    assert (offer["counts"], offer["left"], offer["readied"]) == ([1], 1, 2)
    for command, code, kind in [
        (ready(BOLTER, "sample-um-ammo", 2), "too_many_markers", RefusalKind.RULES),
        (ready(BOLTER, "sample-um-ammo", 4), "bad_count", RefusalKind.INPUT),
        (ready(BOLTER, "sample-um-ammo", 0), "bad_count", RefusalKind.INPUT),
        (ready(BOLTER, "test-camo"), "not_your_option", RefusalKind.RULES),
        (ready(BOLTER, "test-halo"), "not_a_marker_option", RefusalKind.INPUT),
        (ready(BOLTER, "nothing-such"), "not_a_marker_option", RefusalKind.INPUT),
        (ready(BOYZ1, "test-camo"), "not_your_unit", RefusalKind.FORBIDDEN),
        (ready("nobody", "sample-um-ammo"), "unknown_unit", RefusalKind.INPUT),
    ]:
        version = battle.version
        with pytest.raises(Refusal) as info:
            battle.execute_json(command, A)
        assert (info.value.code, info.value.kind) == (code, kind), command
        assert battle.version == version


def test_a_camo_marker_raises_the_dv_against_the_next_shot() -> None:
    battle = ordered()
    battle.execute_json(ready(BOYZ1, "test-camo"), B)  # any time: the Boyz may be shot at
    # 1 + CV 3 against DV 4 + 1: a miss
    assert shot_odds(battle, BOLTER, BOYZ1)["miss"] == "1/6"
    events = events_of(
        battle.execute_json({"type": "shoot", "unit": BOLTER, "target": BOYZ1}, A, dice=[1])
    )
    shot = next(e for e in events if e.kind == "unit_shot")
    assert (shot.dv, shot.outcome) == (5, "miss")
    used = next(e for e in events if e.kind == "equipment_used")
    assert (used.unit, used.group, used.option) == (BOYZ1, ORK_GROUP, "test-camo")
    assert battle.state.equipment_used == {f"{ORK_GROUP}|test-camo": 1}


def test_rokkit_hammers_add_one_and_forbid_the_save() -> None:
    assault = {"type": "assault", "unit": BOYZ1, "target": TACTICAL, "path": [{"x": 2, "y": 3}]}

    def run(hammers: bool) -> list[Any]:
        battle = ordered(first="orks", squad_save=2)
        battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
        battle.execute_json({"type": "hold", "unit": BOLTER}, A)
        if hammers:
            battle.execute_json(ready(BOYZ1, "sample-ork-hammers"), B)
        # the Boyz: 6 + CV 2 + Assaut 2 (+1); the squad: 1 + CV 2 + Assaut 1
        dice = [6, 6, 1, 1] + ([] if hammers else [6])  # the save's die, when there is one
        return events_of(battle.execute_json(assault, B, dice=dice))

    plain = run(hammers=False)
    resolved = next(e for e in plain if e.kind == "assault_resolved")
    assert (resolved.attacker_total, resolved.outcome) == (10, "attacker_wins")
    assert next(e for e in plain if e.kind == "armour_save").saved  # 6: saved
    hammered = run(hammers=True)
    resolved = next(e for e in hammered if e.kind == "assault_resolved")
    assert resolved.attacker_total == 11
    assert "armour_save" not in [e.kind for e in hammered]  # Perçant: no save
    assert next(e for e in hammered if e.kind == "steps_taken").unit == TACTICAL


def test_the_data_reads_the_new_equipment_fields() -> None:
    catalogue = copy.deepcopy(setup().catalogue)
    assert isinstance(catalogue, dict)
    read = catalogue_from_dict(catalogue)
    halo = read.options["test-halo"].equipment
    assert halo is not None
    assert (halo.dv, halo.mv_bonus, halo.permanent) == (7, 1, True)
    hammers = read.options["sample-ork-hammers"].equipment
    assert hammers is not None
    assert (hammers.assault_bonus, hammers.permanent) == (1, False)
    catalogue["options"][-1]["equipment"]["shot_bonus"] = 9
    with pytest.raises(Exception, match="shot_bonus"):
        catalogue_from_dict(catalogue)


def test_a_grot_rigger_makes_a_hull_marker_one_suppressed() -> None:
    """Grot Rigger [L2587-L2592] (rulings 133): a permanent vehicle gift; the heavy-vehicle
    test's Hull shot (the Shootas: 3, location 2) places 1 Suppressed marker, not 2."""
    base = vehicles.setup()
    catalogue = copy.deepcopy(base.catalogue)
    scenario = copy.deepcopy(base.scenario)
    assert isinstance(catalogue, dict)
    assert isinstance(scenario, dict)
    catalogue["options"].append(
        {
            "id": "test-rigger",
            "name": "A made-up grot rigger",
            "faction": "ultramarines",
            "type": "equipment",
            "cost": 1,
            "bands": ["gold"],
            "equipment": {"restriction": ["heavy_vehicle"], "hull_suppressed": 1},
        }
    )
    armour = next(t for t in catalogue["tiles"] if t["id"] == "sample-um-armour")
    armour["slots"] = [{"bands": ["gold"]}]
    scenario["sides"][0]["army"]["tiles"][0]["slots"] = [{"slot": 0, "option": "test-rigger"}]
    battle = BlackReachBattle.create(replace(base, catalogue=catalogue, scenario=scenario))
    battle.execute_json(
        {"type": "place_orders", "orders": [order(vehicles.SHOOTAS, 1), order(vehicles.NOB, 2)]},
        B,
    )
    battle.execute_json({"type": "place_orders", "orders": [order(vehicles.TANK, 1)]}, A)
    events = events_of(battle.execute_json(vehicles.shoot(vehicles.SHOOTAS), B, dice=[3, 2]))
    assert next(e for e in events if e.kind == "damage_located").marker == "hull"
    assert next(e for e in events if e.kind == "suppressed_placed").count == 1
    assert battle.state.units[vehicles.TANK].suppressed == 1
