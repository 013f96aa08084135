"""A Character's auras and markers, and two vehicle gifts, in the Black Reach battle (issue 16,
rulings 146-151) [L2577-L2579], [L2594-L2596], [L2625-L2689].

The board and units are those of ``test_equipment`` (8 x 8, no terrain), but the Ork Nob (the
mob's Character) stands on (3, 5): the Boyz on (2, 4) are 1 square from him, the Shootas on
(0, 6) 3 squares, the other Boyz on (7, 7) 4 squares. The mob's tile holds our own made-up
options in the book's words (sample content): a Boss Pole (3 markers, aura of 3 squares), a
Waaagh! Banner (+1 to the assault roll within 2 squares) and a Kombi Weapon (3 markers: Tir
Direct (B) at 6 intercases at most, or Lance-Flammes (M), the test's own flamer template "M").
The vehicle tests use ``test_ambush``'s board: the battle tank on (5, 2)-(5, 1), the ambushed
Shootas in the wood on (5, 5).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy
from app.engine.black_reach.battle.rules import assault_request
from app.engine.black_reach.forces import Ability
from app.engine.black_reach.loaders import catalogue_from_dict
from app.engine.match.errors import Refusal, RefusalKind
from tests.engine.black_reach.battle import test_ambush as ambush
from tests.engine.black_reach.battle import test_equipment as base

SERGEANT, TACTICAL, BOLTER = base.SERGEANT, base.TACTICAL, base.BOLTER
NOB, BOYZ1, BOYZ2, SHOOTAS = base.NOB, base.BOYZ1, base.BOYZ2, base.SHOOTAS
ORK_GROUP = base.ORK_GROUP
A, B = base.A, base.B
POLE = {
    "id": "test-pole",
    "name": "A made-up boss pole",
    "faction": "orks",
    "type": "personalisation",
    "cost": 2,
    "bands": ["red"],
    "equipment": {"markers": 3, "aura": 3, "bonuses": ["dakka", "boss", "zag", "grim"]},
}
BANNER = {
    "id": "test-banner",
    "name": "A made-up banner",
    "faction": "orks",
    "type": "personalisation",
    "cost": 2,
    "bands": ["red"],
    "equipment": {"aura": 2, "assault_bonus": 1},
}
KOMBI = {
    "id": "test-kombi",
    "name": "A made-up kombi weapon",
    "faction": "orks",
    "type": "personalisation",
    "cost": 2,
    "bands": ["red"],
    "equipment": {
        "markers": 3,
        "alternative": True,
        "grants": [{"id": "direct_fire", "param": "B"}, {"id": "flamer", "param": "M"}],
        "range": 6,
    },
}
FLAMER_M = {
    "id": "M",
    "cells": [[0, -1], [0, -2], [-1, -3], [0, -3], [1, -3]],
    "cv": {"infantry": 3, "light_vehicle": 2, "heavy_vehicle": None},
}


def setup(*options: str, first: str = "orks", nob: tuple[int, int] = (3, 5)) -> BattleSetup:
    """The test_equipment battle, the mob's slots holding ``options`` (ids above)."""
    start = base.setup(first)
    catalogue = copy.deepcopy(start.catalogue)
    scenario = copy.deepcopy(start.scenario)
    assert isinstance(catalogue, dict)
    assert isinstance(scenario, dict)
    catalogue["options"].extend(copy.deepcopy([POLE, BANNER, KOMBI]))
    catalogue["templates"].append(copy.deepcopy(FLAMER_M))
    mob = next(t for t in catalogue["tiles"] if t["id"] == "sample-ork-mob")
    mob["slots"] = [{"bands": ["red"]} for _ in range(max(1, len(options)))]
    scenario["sides"][1]["army"]["tiles"][0]["slots"] = [
        {"slot": n, "option": o} for n, o in enumerate(options)
    ]
    deployment = tuple(Deploy(NOB, *nob, "N") if d.unit == NOB else d for d in start.deployment)
    return replace(start, catalogue=catalogue, scenario=scenario, deployment=deployment)


def ordered(
    *options: str,
    orks: tuple[str, ...] = (BOYZ1, SHOOTAS),
    first: str = "orks",
    nob: tuple[int, int] = (3, 5),
) -> BlackReachBattle:
    battle = BlackReachBattle.create(setup(*options, first=first, nob=nob))
    orders = [base.order(u, n) for n, u in enumerate(orks, 1)]
    battle.execute_json({"type": "place_orders", "orders": orders}, B)
    um = [base.order(BOLTER, 1), base.order(TACTICAL, 2)]
    battle.execute_json({"type": "place_orders", "orders": um}, A)
    return battle


def ready(unit: str, bonus: str | None, count: int = 1, option: str = "test-pole") -> Any:
    command: dict[str, Any] = {
        "type": "ready_equipment",
        "unit": unit,
        "option": option,
        "count": count,
    }
    if bonus is not None:
        command["bonus"] = bonus
    return command


def events_of(envelopes: Any) -> list[Any]:
    return [e.event for e in envelopes]


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any]) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat)
    assert battle.version == version
    return info.value


def kept(battle: BlackReachBattle, envelopes: Any, *dice: int) -> list[Any]:
    """The pole's Grim is offered after each roll it may reroll (rulings 153): every offer
    kept, the dice after the roll given to the first answer."""
    events = events_of(envelopes)
    rest = list(dice)
    while battle.state.reroll is not None:
        seat = battle.state.seat_of(battle.state.reroll.side)
        events += events_of(battle.execute_json({"type": "keep_roll"}, seat, dice=rest))
        rest = []
    return events


ASSAULT = {"type": "assault", "unit": BOYZ1, "target": TACTICAL, "path": [{"x": 2, "y": 3}]}


def assault_total(battle: BlackReachBattle) -> tuple[int, list[Any]]:
    # the Boyz: 6 + CV 2 + Assaut 2 (+ bonuses); the squad: 1 + CV 2 + Assaut 1
    events = kept(battle, battle.execute_json(ASSAULT, B, dice=[6, 6, 1, 1]))
    resolved = next(e for e in events if e.kind == "assault_resolved")
    return resolved.attacker_total, events


# -- Boss Pole ------------------------------------------------------------------------------------


def test_a_boss_pole_marker_serves_units_within_three_squares_of_its_character() -> None:
    battle = ordered("test-pole")
    offers = {
        (a["command"]["unit"], a["command"]["bonus"])
        for a in battle.actions(B)
        if a["command"]["type"] == "ready_equipment"
    }
    for unit in (NOB, BOYZ1, SHOOTAS):  # the Nob himself, 1 and 3 squares from him
        assert {(unit, "dakka"), (unit, "boss")} <= offers
    assert (BOYZ1, "zag") in offers  # Zag for the unit that may move now only
    assert (NOB, "zag") not in offers
    assert not any(u == BOYZ2 for u, _ in offers)  # 4 squares away
    assert not any(b == "grim" for _, b in offers)  # the reroll is asked after a roll
    for command, code, kind in [
        (ready(BOYZ2, "dakka"), "out_of_aura", RefusalKind.RULES),
        (ready(BOYZ1, None), "bonus_needed", RefusalKind.INPUT),
        (ready(BOYZ1, "waaagh"), "bad_bonus", RefusalKind.INPUT),
        (ready(BOYZ1, "grim"), "grim_after_the_roll", RefusalKind.RULES),
        (ready(BOYZ1, "boss", 2), "one_save", RefusalKind.RULES),
        (ready(BOYZ1, "dakka", 4), "bad_count", RefusalKind.INPUT),
    ]:
        err = refused(battle, B, command)
        assert (err.code, err.kind) == (code, kind), command
    err = refused(battle, A, ready(TACTICAL, "dakka"))  # the other side's pole
    assert err.code == "not_your_option"
    err = refused(battle, A, ready(BOYZ1, "dakka"))
    assert (err.code, err.kind) == ("not_your_unit", RefusalKind.FORBIDDEN)


def test_a_dakka_marker_adds_one_to_the_assault_roll_and_is_used_for_good() -> None:
    plain, _ = assault_total(ordered("test-pole"))
    battle = ordered("test-pole")
    events = events_of(battle.execute_json(ready(BOYZ1, "dakka"), B))
    assert [(e.kind, e.bonus) for e in events] == [("equipment_readied", "dakka")]
    assert battle.state.gear_ready == {BOYZ1: {f"{ORK_GROUP}|test-pole|dakka": 1}}
    total, events = assault_total(battle)
    assert total == plain + 1
    used = next(e for e in events if e.kind == "equipment_used")
    assert (used.unit, used.option, used.count, used.bonus) == (BOYZ1, "test-pole", 1, "dakka")
    assert battle.state.gear_ready == {}
    assert battle.state.equipment_used == {f"{ORK_GROUP}|test-pole": 1}


def test_the_pole_has_three_markers_whatever_their_bonuses() -> None:
    battle = ordered("test-pole")
    battle.execute_json(ready(BOYZ1, "dakka", 2), B)
    battle.execute_json(ready(SHOOTAS, "boss"), B)
    assert refused(battle, B, ready(NOB, "zag")).code == "no_marker_left"
    assert refused(battle, B, ready(BOYZ1, "zag")).code == "no_marker_left"


@pytest.mark.parametrize(("save_die", "saved"), [(4, True), (3, False)])
def test_a_boss_marker_gives_an_automatic_save_of_four(save_die: int, saved: bool) -> None:
    battle = ordered("test-pole", first="ultramarines")
    battle.execute_json(ready(BOYZ1, "boss"), B)  # announced before the opponent's dice
    # the heavy bolter: 3 + CV 3 = 6 against the Boyz' DV 4: a step; then the 4+ save
    shot = battle.execute_json({"type": "shoot", "unit": BOLTER, "target": BOYZ1}, A, dice=[3])
    events = kept(battle, shot, save_die)
    save = next(e for e in events if e.kind == "armour_save")
    assert (save.unit, save.value, save.saved) == (BOYZ1, 4, saved)
    assert ("steps_taken" in [e.kind for e in events]) is not saved
    used = next(e for e in events if e.kind == "equipment_used")
    assert (used.unit, used.bonus) == (BOYZ1, "boss")


def test_a_zag_marker_adds_one_square_to_the_next_move() -> None:
    five = {"type": "move", "unit": BOYZ1, "path": [{"x": x, "y": 4} for x in range(3, 8)]}
    battle = ordered("test-pole")
    assert refused(battle, B, five).code == "illegal_move"  # MV 4
    events = events_of(battle.execute_json(ready(BOYZ1, "zag"), B))
    assert events[0].bonus == "zag"
    events = events_of(battle.execute_json(five, B))
    used = next(e for e in events if e.kind == "equipment_used")
    assert (used.unit, used.bonus) == (BOYZ1, "zag")
    placement = battle.state.units[BOYZ1].placement
    assert placement is not None
    assert (placement.anchor.x, placement.anchor.y) == (7, 4)


def test_the_data_reads_a_pole_and_refuses_a_bad_bonus() -> None:
    catalogue = copy.deepcopy(setup("test-pole").catalogue)
    assert isinstance(catalogue, dict)
    pole = catalogue_from_dict(catalogue).options["test-pole"].equipment
    assert pole is not None
    assert (pole.aura, [b.value for b in pole.bonuses]) == (3, ["dakka", "boss", "zag", "grim"])
    next(o for o in catalogue["options"] if o["id"] == "test-pole")["equipment"]["bonuses"] = [
        "dakka",
        "dakka",
    ]
    with pytest.raises(Exception, match="each bonus once"):
        catalogue_from_dict(catalogue)


# -- Waaagh! Banner -------------------------------------------------------------------------------


def test_a_waaagh_banner_adds_one_to_assaults_within_two_squares() -> None:
    plain, _ = assault_total(ordered())
    battle = ordered("test-banner")
    offered = next(
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "assault" and a["command"]["target"] == TACTICAL
    )
    without = next(
        a
        for a in ordered().actions(B)
        if a["command"]["type"] == "assault" and a["command"]["target"] == TACTICAL
    )
    assert offered["odds"] != without["odds"]  # the odds the page offers count it
    state = battle.state
    units = state.units
    # defending too: the squad's assault on the Boyz (1 square from the Nob)
    assert assault_request(state, units[TACTICAL], units[BOYZ1]).target.bonuses == 1
    # the Shootas stand 3 squares from him: no bonus; nor for the other side
    assert assault_request(state, units[SHOOTAS], units[TACTICAL]).attacker.bonuses == 0
    assert assault_request(state, units[TACTICAL], units[BOYZ1]).attacker.bonuses == 0
    total, _ = assault_total(battle)
    assert total == plain + 1


# -- Kombi Weapon ---------------------------------------------------------------------------------


def test_a_kombi_marker_gives_the_nob_one_tir_direct_within_six_intercases() -> None:
    battle = ordered("test-kombi", orks=(NOB, BOYZ1), nob=(4, 5))
    entries = [a for a in battle.actions(B) if a["command"]["type"] == "kombi"]
    direct = next(a for a in entries if not a["command"]["flame"])
    assert (direct["template"], direct["range"], direct["markers"]) == ("B", 6, 3)
    assert any(a["command"]["flame"] for a in entries)
    near = {"type": "kombi", "unit": NOB, "option": "test-kombi", "x": 5, "y": 2}
    # the template's south-east square is the heavy bolter's, on (5, 2)
    assert refused(battle, B, {**near, "unit": BOYZ1}).code == "not_due"
    assert refused(battle, B, {**near, "y": -1}).code == "off_board"
    assert refused(battle, B, {**near, "facing": "up"}).code == "bad_facing"
    # 3 + CV 3 = 6 against the heavy bolter's DV 5: a step
    events = events_of(battle.execute_json(near, B, dice=[3]))
    kinds = [e.kind for e in events]
    assert kinds.index("equipment_used") < kinds.index("template_placed")
    used = next(e for e in events if e.kind == "equipment_used")
    assert (used.unit, used.option, used.count) == (NOB, "test-kombi", 1)
    placed = next(e for e in events if e.kind == "template_placed")
    assert placed.template == "B"
    shot = next(e for e in events if e.kind == "unit_shot")
    assert (shot.target, shot.outcome) == (BOLTER, "step")
    assert battle.state.equipment_used == {f"{ORK_GROUP}|test-kombi": 1}


def test_a_kombi_marker_is_refused_out_of_range_and_to_a_unit_it_does_not_serve() -> None:
    battle = ordered("test-kombi", orks=(NOB, BOYZ1), nob=(6, 7))
    # the intercase (0, 0) is 7 intercases from the nearest corner of the Nob's square (6, 7)
    kombi = {"type": "kombi", "unit": NOB, "option": "test-kombi", "x": 0, "y": 0}
    assert refused(battle, B, kombi).code == "out_of_range"
    assert refused(battle, B, {**kombi, "x": None}).code == "intercase_needed"
    assert refused(battle, B, {**kombi, "flame": True, "x": 3}).code == "flame_square"
    battle = ordered("test-kombi", orks=(BOYZ1, NOB))
    err = refused(
        battle, B, {"type": "kombi", "unit": BOYZ1, "option": "test-kombi", "x": 2, "y": 3}
    )
    assert err.code == "not_for_this_unit"  # a Personalisation: its Character only
    err = refused(
        battle, B, {"type": "kombi", "unit": BOYZ1, "option": "test-pole", "x": 2, "y": 3}
    )
    assert (err.code, err.kind) == ("not_a_kombi_option", RefusalKind.INPUT)


def test_a_kombi_marker_gives_one_lance_flammes() -> None:
    battle = ordered("test-kombi", orks=(NOB, BOYZ1), nob=(5, 4))
    flame = next(
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "kombi"
        and a["command"]["flame"]
        and a["command"]["facing"] == "N"
    )
    assert BOLTER in flame["targets"]
    # the flame from (5, 4) pointing N reaches the heavy bolter on (5, 2): 5 + CV 3 vs DV 5
    events = events_of(battle.execute_json(flame["command"], B, dice=[5]))
    kinds = [e.kind for e in events]
    assert kinds.index("equipment_used") < kinds.index("flamer_fired")
    assert next(e for e in events if e.kind == "flamer_fired").template == "M"
    assert battle.state.units[BOLTER].suppressed == 1


# -- vehicle gifts: Auspex and Machine Spirit ---------------------------------------------------


def vehicle_setup(*options: dict[str, Any]) -> BattleSetup:
    start = ambush.setup()
    catalogue = copy.deepcopy(start.catalogue)
    scenario = copy.deepcopy(start.scenario)
    assert isinstance(catalogue, dict)
    assert isinstance(scenario, dict)
    catalogue["options"].extend(copy.deepcopy(list(options)))
    armour = next(t for t in catalogue["tiles"] if t["id"] == "sample-um-armour")
    armour["slots"] = [{"bands": ["gold"]} for _ in options]
    scenario["sides"][0]["army"]["tiles"][0]["slots"] = [
        {"slot": n, "option": o["id"]} for n, o in enumerate(options)
    ]
    return replace(start, catalogue=catalogue, scenario=scenario)


AUSPEX_OPTION = {
    "id": "test-auspex",
    "name": "A made-up auspex",
    "faction": "ultramarines",
    "type": "equipment",
    "cost": 1,
    "bands": ["gold"],
    "equipment": {
        "restriction": ["light_vehicle", "heavy_vehicle"],
        "grants": [{"id": "optics"}, {"id": "auspex", "param": 6}],
    },
}
SPIRIT_OPTION = {
    "id": "test-spirit",
    "name": "A made-up machine spirit",
    "faction": "ultramarines",
    "type": "equipment",
    "cost": 1,
    "bands": ["gold"],
    "equipment": {
        "restriction": ["light_vehicle", "heavy_vehicle"],
        "grants": [{"id": "personal_order"}],
    },
}


def test_the_auspex_option_gives_optique_and_spots_within_six_squares() -> None:
    battle = BlackReachBattle.create(vehicle_setup(AUSPEX_OPTION))
    tank = battle.state.units[ambush.TANK]
    assert tank.face.has(Ability.OPTICS)
    ref = tank.face.ability(Ability.AUSPEX)
    assert ref is not None
    assert ref.param == 6
    units = (ambush.TANK, ambush.TACTICAL, ambush.SERGEANT)
    orders = [ambush.order(u, n) for n, u in enumerate(units, 1)]
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    battle.execute_json(
        {"type": "place_orders", "orders": [ambush.order(SHOOTAS, 1), ambush.order(NOB, 2)]}, B
    )
    assert ambush.face(battle, SHOOTAS) == "ambush"
    new = battle.execute_json({"type": "hold", "unit": ambush.TANK}, A)
    assert [(s.why, s.by) for s in ambush.spotted(new)] == [("auspex", ambush.TANK)]
    assert ambush.face(battle, SHOOTAS) == "inactive"


def test_machine_spirit_gives_the_vehicle_its_own_numbered_token() -> None:
    plain = BlackReachBattle.create(vehicle_setup())
    spirit = BlackReachBattle.create(vehicle_setup(SPIRIT_OPTION))
    assert spirit.state.units[ambush.TANK].face.has(Ability.PERSONAL_ORDER)
    assert plain.state.turn is not None
    assert spirit.state.turn is not None
    mine = plain.state.turn.pools["ultramarines"]
    theirs = spirit.state.turn.pools["ultramarines"]
    assert len(theirs) == len(mine) + 1 == 4
    assert spirit.state.turn.pools["orks"] == plain.state.turn.pools["orks"]
    # the infantry's three tokens and the tank's own: it must carry one [L1938-L1942]
    others = (ambush.SERGEANT, ambush.TACTICAL, ambush.HEAVY)
    orders = [ambush.order(u, n) for n, u in enumerate(others, 1)]
    err = refused(spirit, A, {"type": "place_orders", "orders": orders})
    assert err.code == "tokens_left"
    orders.append(ambush.order(ambush.TANK, 4))
    spirit.execute_json({"type": "place_orders", "orders": orders}, A)
    assert ambush.TANK in spirit.state.secret["ultramarines"]
