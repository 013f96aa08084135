"""Heavy vehicles in the Black Reach battle (issue 16): shot at, a step is a location roll on
the vehicle's Damage set [L658-L699] (Perforant +1, clamped to 1..6), the marker's effect
(Locomotion: no more moves; Hull: 2 Suppressed; a weapon destroyed; Explosion or a second
marker of a kind: a wreck), the rear attack +2 and Armure Frontale +2 DV by the edge the shot
comes through [L651-L656], [L1768-L1772], its weapons fired one by one at their own targets
[L563-L577] (only those with Tir en Mouvement during a move), assaults on it [L1651-L1662].

The board is built here: 8 x 8 squares, no terrain. The sample battle tank (DV 8, Armure
Frontale, main weapon CV 3/3/2 Perforant, secondary 2/1/0 with Tir en Mouvement -2) stands
on (2, 3) facing N, its rear square (2, 4). The Orks' Nob and Shootas are given CV 4 against
heavy vehicles. The sample Damage set "grey" reads 1 Locomotion, 2 Hull, 3 Secondary weapon,
4 Hull, 5 Main weapon, 6 Explosion! (our own sample: the printed sets are not in the seed).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.rules import attack_side
from app.engine.black_reach.board import Square
from app.engine.black_reach.los import Facing, best_line_of_sight
from app.engine.black_reach.movement import Footprint, Placement
from app.engine.match.errors import Refusal

TANK = "ultramarines:tiles[0]/0:sample-um-battle-tank"
TANK2 = "ultramarines:tiles[1]/0:sample-um-battle-tank"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
A, B = "A", "B"

BOARD = {"boards": [{"name": "flat", "width": 8, "height": 8, "sample": True}]}


def zone(x0: int, x1: int) -> list[dict[str, list[int]]]:
    return [{"from": [x0, 0], "to": [x1, 7]}]


SCENARIO = {
    "format": "auspex-black-reach-scenario/1",
    "id": "test-armour",
    "name": "Test armour",
    "turns": 3,
    "hand_size": 0,
    "first_initiative": "orks",
    "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
    "sides": [
        {
            "id": "ultramarines",
            "deployment": zone(0, 3),
            "army": {"faction": "ultramarines", "tiles": [{"tile": "sample-um-armour"}]},
        },
        {
            "id": "orks",
            "deployment": zone(5, 7),
            "army": {"faction": "orks", "tiles": [{"tile": "sample-ork-mob"}]},
        },
    ],
    "objectives": [],
}


def setup(
    nob: tuple[int, int] = (6, 4),
    shootas: tuple[int, int] = (5, 7),
    *,
    shootas_abilities: tuple[str, ...] = (),
    armour_save: int | None = None,
    second_tank: tuple[int, int] | None = None,
) -> BattleSetup:
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    counters = {c["id"]: c for c in catalogue["counters"]}
    counters["sample-ork-nob"]["faces"][0]["cv"]["heavy_vehicle"] = 4
    shootas_face = counters["sample-ork-shootas"]["faces"][0]
    shootas_face["cv"]["heavy_vehicle"] = 4
    shootas_face["abilities"] += [{"id": a} for a in shootas_abilities]
    if armour_save is not None:
        tile = next(t for t in catalogue["tiles"] if t["id"] == "sample-um-armour")
        tile["armour_save"] = {"value": armour_save, "colour": "green"}
    scenario = copy.deepcopy(SCENARIO)
    extra: tuple[Deploy, ...] = ()
    if second_tank is not None:
        scenario["sides"][0]["army"]["tiles"].append({"tile": "sample-um-armour"})  # type: ignore[index]
        extra = (Deploy(TANK2, *second_tank, "N"),)
    deployment = (
        *extra,
        Deploy(TANK, 2, 3, "N"),
        Deploy(NOB, *nob, "W"),
        Deploy(BOYZ1, 7, 0, "W"),
        Deploy(BOYZ2, 7, 1, "W"),
        Deploy(SHOOTAS, *shootas, "W"),
    )
    return BattleSetup(scenario, catalogue, BOARD, {"A": "ultramarines", "B": "orks"}, deployment)


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def ordered(**kw: Any) -> BlackReachBattle:
    """Tokens placed: the Orks' 1 on the Shootas, 2 on the Nob; the tank's 1."""
    battle = BlackReachBattle.create(setup(**kw))
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    mine = [order(TANK, 1)] + ([order(TANK2, 2)] if kw.get("second_tank") else [])
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    return battle


def kinds(envelopes: Any) -> list[str]:
    return [e.event.kind for e in envelopes]


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any], **kw: Any) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, **kw)
    assert battle.version == version
    return info.value


def tank_view(battle: BlackReachBattle) -> dict[str, Any]:
    return next(u for u in battle.view(None)["units"] if u["id"] == TANK)


def shoot(unit: str) -> dict[str, Any]:
    return {"type": "shoot", "unit": unit, "target": TANK}


# -- the edge a shot comes through ----------------------------------------------------------------


def test_attack_side_by_the_edge_the_line_comes_through() -> None:
    tank = Placement(Square(2, 3), Facing.N, Footprint.TWO)  # rear square (2, 4)
    assert attack_side(frozenset({Square(5, 7)}), tank) == "rear"  # 45° behind, edge included
    assert attack_side(frozenset({Square(2, 7)}), tank) == "rear"
    assert attack_side(frozenset({Square(6, 4)}), tank) == "side"
    assert attack_side(frozenset({Square(5, 0)}), tank) == "front"  # "diagonale incluse"
    assert attack_side(frozenset({Square(6, 0)}), tank) == "side"


# -- a step is a location roll ---------------------------------------------------------------------


def test_a_rear_shot_hits_and_the_location_roll_destroys_the_main_weapon() -> None:
    battle = ordered()
    events = battle.execute_json(shoot(SHOOTAS), B, dice=[2, 5])
    assert kinds(events) == ["order_revealed", "unit_shot", "damage_located", "steps_taken"]
    shot, located, steps = events[1].event, events[2].event, events[3].event
    # 2 + CV 4 + rear attack 2 = 8 against DV 8: a step
    assert (shot.side, shot.bonuses, shot.final, shot.dv, shot.outcome) == ("rear", 2, 8, 8, "step")
    assert (located.damage_set, located.modifier, located.result) == ("grey", 0, 5)
    assert (located.marker, located.number) == ("main_weapon", 1)
    assert located.roll.values == (5,)
    assert (steps.steps, steps.destroyed) == (1, False)
    view = tank_view(battle)
    assert view["damage"] == ["main_weapon_1"]
    assert view["weapons"] == [
        {"weapon": "main_1", "slot": "main", "number": 1, "destroyed": True},
        {"weapon": "secondary_1", "slot": "secondary", "number": 1, "destroyed": False},
    ]
    # the destroyed main weapon no longer fires
    bad = {"type": "vehicle_fire", "unit": TANK, "shots": [{"weapon": "main_1", "target": NOB}]}
    assert refused(battle, A, bad, dice=[6]).code == "weapon_destroyed"
    fire = next(a for a in battle.actions(A) if a["command"]["type"] == "vehicle_fire")
    assert [w["weapon"] for w in fire["weapons"]] == ["secondary_1"]


def test_hull_places_two_suppressed_and_a_second_hull_wrecks_the_tank() -> None:
    battle = ordered()
    events = battle.execute_json(shoot(SHOOTAS), B, dice=[3, 2])
    assert kinds(events)[-2:] == ["steps_taken", "suppressed_placed"]
    assert events[-1].event.count == 2
    assert battle.state.units[TANK].suppressed == 2
    battle.execute_json({"type": "hold", "unit": TANK}, A)
    # the Nob from the side: 4 + CV 4 = 8 against DV 8; location 4: a second Hull
    events = battle.execute_json(shoot(NOB), B, dice=[4, 4])
    shot, located, steps = events[1].event, events[2].event, events[3].event
    assert (shot.side, shot.bonuses, shot.final) == ("side", 0, 8)
    assert (located.marker, steps.destroyed, steps.face) == ("hull", True, "wreck")
    assert "suppressed_placed" not in kinds(events)
    assert tank_view(battle)["destroyed"] is True
    group = next(g for g in battle.view(None)["groups"] if g["side"] == "ultramarines")
    assert group["broken"] is True


def test_perforant_adds_one_to_the_location_and_forbids_the_save() -> None:
    battle = ordered(shootas_abilities=("piercing",), armour_save=4)
    # 2 + 4 + 2 = 8: a step; no save (Perforant); location 5 + 1 = 6: Explosion!
    events = battle.execute_json(shoot(SHOOTAS), B, dice=[2, 5])
    assert kinds(events) == ["order_revealed", "unit_shot", "damage_located", "steps_taken"]
    located = events[2].event
    assert (located.modifier, located.result, located.marker) == (1, 6, "explosion")
    assert events[3].event.destroyed is True
    # a 6 + 1 is clamped to 6
    clamped = ordered(shootas_abilities=("piercing",))
    events = clamped.execute_json(shoot(SHOOTAS), B, dice=[2, 6])
    assert events[2].event.result == 6


def test_an_armour_save_comes_before_the_location_roll() -> None:
    battle = ordered(armour_save=4)
    events = battle.execute_json(shoot(SHOOTAS), B, dice=[2, 4])  # the save: 4 >= 4
    assert kinds(events) == ["order_revealed", "unit_shot", "armour_save"]
    failed = ordered(armour_save=4)
    events = failed.execute_json(shoot(SHOOTAS), B, dice=[2, 3, 1])  # 3 < 4: Locomotion
    assert kinds(events)[2:] == ["armour_save", "damage_located", "steps_taken"]
    assert events[3].event.marker == "locomotion"


def test_a_coup_double_wrecks_the_tank_with_no_location_roll() -> None:
    battle = ordered(shootas_abilities=("twin_linked",))
    # a Coup Double needs 16: the best of two dice + 6 cannot reach it; DV 8 from the rear
    # with CV 4 + 2 needs a 2, so the odds say so
    entry = next(
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "shoot"
        and a["command"]["unit"] == SHOOTAS
        and a["command"]["target"] == TANK
        and not a["command"]["suppression"]
    )
    assert entry["odds"] == {"miss": "1/36", "step": "35/36", "coup_double": "0"}
    assert entry["side"] == "rear"


def test_the_legal_shot_gives_the_odds_of_each_damage_marker() -> None:
    battle = ordered(nob=(5, 0))  # the Nob in front of the tank: Armure Frontale, DV 10
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    battle.execute_json({"type": "hold", "unit": TANK}, A)
    entry = next(
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "shoot"
        and a["command"]["target"] == TANK
        and not a["command"]["suppression"]
    )
    assert entry["side"] == "front"
    assert entry["odds"] == {"miss": "5/6", "step": "1/6", "coup_double": "0"}  # 4 + 6 >= 10
    assert entry["damage_set"] == "grey"
    assert entry["damage"] == {
        "locomotion": "1/36",
        "hull": "1/18",
        "secondary_weapon_1": "1/36",
        "main_weapon_1": "1/36",
        "explosion": "1/36",
        "coup_double": "0",
    }
    events = battle.execute_json(shoot(NOB), B, dice=[6, 1])
    assert (events[1].event.dv, events[1].event.final, events[1].event.outcome) == (10, 10, "step")


def test_locomotion_stops_every_later_move() -> None:
    battle = ordered()
    battle.execute_json(shoot(SHOOTAS), B, dice=[2, 1])
    assert tank_view(battle)["immobilised"] is True
    move = {"type": "move", "unit": TANK, "path": [{"x": 2, "y": 2, "facing": "N"}]}
    assert refused(battle, A, move).code == "immobilised"
    entry = next(a for a in battle.actions(A) if a["command"]["type"] == "move")
    assert entry["to"] == []


# -- the tank's weapons ----------------------------------------------------------------------------


def test_the_tank_fires_each_weapon_at_its_own_target() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    fire = {
        "type": "vehicle_fire",
        "unit": TANK,
        "shots": [
            {"weapon": "main_1", "target": NOB},
            {"weapon": "secondary_1", "target": SHOOTAS},
        ],
    }
    events = battle.execute_json(fire, A, dice=[2, 2])
    assert kinds(events) == [
        "order_revealed",
        "unit_shot",
        "steps_taken",  # the Nob's Hit Point marker takes it
        "unit_shot",
        "steps_taken",  # the Shootas flip
    ]
    main, secondary = events[1].event, events[3].event
    assert (main.weapon, main.cv, main.final, main.dv) == ("main_1", 3, 5, 5)
    assert (secondary.weapon, secondary.cv, secondary.final, secondary.dv) == (
        "secondary_1",
        2,
        4,
        4,
    )
    assert events[2].event.hit_points_used == 1
    assert events[4].event.face == "reduced"


def test_bad_vehicle_fire_is_refused_before_any_die() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    twice = {
        "type": "vehicle_fire",
        "unit": TANK,
        "shots": [{"weapon": "main_1", "target": NOB}, {"weapon": "main_1", "target": SHOOTAS}],
    }
    assert refused(battle, A, twice, dice=[6, 6]).code == "weapon_twice"
    unknown = {"type": "vehicle_fire", "unit": TANK, "shots": [{"weapon": "main_2", "target": NOB}]}
    assert refused(battle, A, unknown, dice=[6]).code == "unknown_weapon"
    own = {"type": "double_shot", "unit": TANK, "targets": [NOB, SHOOTAS]}
    assert refused(battle, A, own, dice=[6, 6]).code == "no_double_shot"
    # shoot fires every working weapon that can at the one target
    events = battle.execute_json({"type": "shoot", "unit": TANK, "target": NOB}, A, dice=[1, 1])
    assert [e.event.weapon for e in events if e.event.kind == "unit_shot"] == [
        "main_1",
        "secondary_1",
    ]


def test_on_the_move_only_the_weapons_with_tir_en_mouvement_fire() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    move = {
        "type": "move",
        "unit": TANK,
        "path": [{"x": 2, "y": 2, "facing": "N"}],
        "fire_at": SHOOTAS,
    }
    events = battle.execute_json(move, A, dice=[4])
    assert kinds(events) == ["order_revealed", "unit_moved", "unit_shot", "steps_taken"]
    shot = events[2].event
    # secondary CV 2 - 2 (Tir en Mouvement) + 4 = 4 against DV 4
    assert (shot.weapon, shot.moving_penalty, shot.final, shot.outcome) == (
        "secondary_1",
        2,
        4,
        "step",
    )


# -- assaulting a heavy vehicle --------------------------------------------------------------------


def test_an_infantry_assault_that_wins_places_a_damage_marker_and_stays_out() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    battle.execute_json({"type": "hold", "unit": TANK}, A)
    assault = {
        "type": "assault",
        "unit": NOB,
        "target": TANK,
        "path": [{"x": 5, "y": 4}, {"x": 4, "y": 4}, {"x": 3, "y": 4}],
    }
    # Nob: best of 6, 1 + CV 4 + Assaut 3 = 13; the tank: 1 + CV 3 = 4; location 3
    events = battle.execute_json(assault, B, dice=[6, 1, 1, 3])
    assert kinds(events) == [
        "order_revealed",
        "unit_moved",
        "assault_resolved",
        "damage_located",
        "steps_taken",
        "activation_ended",  # every token played
    ]
    resolved = events[2].event
    assert (resolved.attacker_total, resolved.defender_total, resolved.outcome) == (
        13,
        4,
        "attacker_wins",
    )
    assert events[3].event.marker == "secondary_weapon"
    nob = battle.state.units[NOB].placement
    assert nob is not None
    assert (nob.anchor.x, nob.anchor.y) == (3, 4)  # its start square
    tank = battle.state.units[TANK].placement
    assert tank is not None
    assert tank.anchor == Square(2, 3)  # never retreats


# -- wrecks ---------------------------------------------------------------------------------------


def forward(*ys: int) -> dict[str, Any]:
    return {"type": "move", "unit": TANK2, "path": [{"x": 2, "y": y, "facing": "N"} for y in ys]}


def test_a_wreck_lies_on_the_board_as_terrain() -> None:
    battle = ordered(second_tank=(2, 6))
    battle.execute_json(shoot(SHOOTAS), B, dice=[2, 6])  # location 6: Explosion!
    view = tank_view(battle)
    assert (view["destroyed"], view["wreck"], view["face"]) == (True, True, "wreck")
    assert view["squares"] == [[2, 3], [2, 4]]
    wreck = battle.state.board.element(f"wreck:{TANK}")
    assert wreck.squares == {Square(2, 3), Square(2, 4)}  # type: ignore[union-attr]
    assert (wreck.structure, wreck.reduces_los) == (2, 1)  # type: ignore[union-attr]
    # a line over the wreck crosses its two squares: -1 each (its terrain) [L855-L864]
    sight = best_line_of_sight(battle.state.board, [Square(2, 0)], [Square(2, 6)])
    assert (sight.sight, sight.penalty) == ("reduced", 2)
    # before the explosion the same line had no obstacle (units are not passed here)
    assert best_line_of_sight(ordered().state.board, [Square(2, 0)], [Square(2, 6)]).penalty == 0


def test_a_heavy_vehicle_driving_into_a_wreck_deals_destruction_points() -> None:
    battle = ordered(second_tank=(2, 6))
    battle.execute_json(shoot(SHOOTAS), B, dice=[2, 6])
    battle.execute_json({"type": "hold", "unit": TANK}, A)  # the wreck's token: no effect
    battle.execute_json({"type": "hold", "unit": NOB}, B)
    events = battle.execute_json(forward(5, 4), A)  # enters one square of the wreck
    dealt = events[-2].event  # then the activation phase ends
    assert (dealt.kind, dealt.wreck, dealt.points, dealt.total) == (
        "destruction_dealt",
        TANK,
        1,
        1,
    )
    assert dealt.removed is False
    assert tank_view(battle)["destruction"] == 1


def test_crossing_several_wreck_squares_deals_two_and_removes_it() -> None:
    battle = ordered(second_tank=(2, 6))
    battle.execute_json(shoot(SHOOTAS), B, dice=[2, 6])
    battle.execute_json({"type": "hold", "unit": TANK}, A)
    battle.execute_json({"type": "hold", "unit": NOB}, B)
    events = battle.execute_json(forward(5, 4, 3), A)
    dealt = events[-2].event  # then the activation phase ends
    assert (dealt.points, dealt.total, dealt.removed) == (2, 2, True)
    assert tank_view(battle)["squares"] == []
    assert f"wreck:{TANK}" not in {e.id for e in battle.state.board.elements}


# -- the log ---------------------------------------------------------------------------------------


def test_a_log_with_damage_markers_replays_and_undo_rolls_the_same_location() -> None:
    battle = ordered()
    command = battle.decode(shoot(SHOOTAS))
    seed = battle.command_seed("match-secret", command, B)
    first = battle.execute(command, B, seed=seed)
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state
    assert again.view(A) == battle.view(A)
    values = [d.value for e in first if hasattr(e.event, "roll") for d in e.event.roll.dice]
    battle.execute_json({"type": "undo"}, B)
    batch = battle.view(A)["undo_request"]["batch"]
    battle.execute_json({"type": "approve_undo", "batch": batch}, A)
    second = battle.execute(command, B, seed=battle.command_seed("match-secret", command, B))
    assert [
        d.value for e in second if hasattr(e.event, "roll") for d in e.event.roll.dice
    ] == values


# -- review fixes (issue 16) ----------------------------------------------------------------------


def test_undone_and_sent_again_as_vehicle_fire_the_shot_rolls_the_same_dice() -> None:
    # the review: shoot and vehicle_fire are the same Shooting Action (rulings 77) but their
    # kinds made two seeds, so undo + resend another way re-rolled
    def ready() -> BlackReachBattle:
        battle = ordered()
        battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
        return battle

    shots = [{"weapon": "main_1", "target": NOB}, {"weapon": "secondary_1", "target": NOB}]
    for secret in ("s1", "s2", "s3"):
        battle = ready()
        shot = battle.decode({"type": "shoot", "unit": TANK, "target": NOB})
        seed = battle.command_seed(secret, shot, A)
        first = battle.execute(shot, A, seed=seed)
        battle.execute_json({"type": "undo"}, A)
        battle.execute_json(
            {"type": "approve_undo", "batch": battle.view(B)["undo_request"]["batch"]}, B
        )
        fire = battle.decode({"type": "vehicle_fire", "unit": TANK, "shots": shots})
        assert battle.command_seed(secret, fire, A) == seed
        again = battle.execute(fire, A, seed=battle.command_seed(secret, fire, A))
        rolled = [
            [e.event.weapon, e.event.roll.values] for e in first if e.event.kind == "unit_shot"
        ]
        assert rolled == [
            [e.event.weapon, e.event.roll.values] for e in again if e.event.kind == "unit_shot"
        ]
        assert [w for w, _ in rolled] == ["main_1", "secondary_1"]


LOG_V1 = Path(__file__).parent / "data" / "vehicle_fire_log_v1.json"


def test_a_log_made_before_the_activation_identity_replays_its_own_dice() -> None:
    # made at 90b53e4 (the kind in the identity): the tank's vehicle_fire rolled 4 at the Nob
    # (main weapon, a step) and 1 at the Boyz (secondary, a miss), one seed for both
    data = json.loads(LOG_V1.read_text())
    battle = BlackReachBattle.import_log(data)
    shots = [e.event for e in battle.envelopes if e.event.kind == "unit_shot"]
    assert [(s.weapon, s.target, s.roll.values) for s in shots] == [
        ("main_1", NOB, (4,)),
        ("secondary_1", BOYZ1, (1,)),
    ]
    assert {s.roll.seed for s in shots} == {3655438836337094472}
    assert all(a["ok"] is True for a in battle.audit())
    assert [e.event.kind for e in battle.envelopes][-4:] == [
        "order_revealed",
        "unit_shot",
        "steps_taken",
        "unit_shot",
    ]
    assert battle.export_log() == data  # nothing re-rolled, nothing rewritten
    # the new identity names new rolls only: the same command today seeds otherwise
    command = battle.decode(
        {
            "type": "vehicle_fire",
            "unit": TANK,
            "shots": [
                {"weapon": "main_1", "target": NOB},
                {"weapon": "secondary_1", "target": BOYZ1},
            ],
        }
    )
    replayed = BlackReachBattle.import_log(data)
    replayed.execute_json({"type": "undo"}, A)
    replayed.execute_json(
        {"type": "approve_undo", "batch": replayed.view(B)["undo_request"]["batch"]}, B
    )
    assert replayed.command_seed("match-secret", command, A) != 3655438836337094472
