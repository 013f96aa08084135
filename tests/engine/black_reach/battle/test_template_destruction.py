"""Destruction points from templates (issue 16, rulings 106): the units and structures under a
template, even partly, are hit [L1397-L1405]; a template whose data holds Destruction (N)
rolls N dice at each structure under it, once, after the units under it are resolved
[L1174-L1194]. The unit's own Destruction does not count for its Alternative Shooting
Action [L3228-L3233].

The board of test_structures (8 x 8, an empty bunker, structure 2, on (4, 3); a hut,
structure 3, on (5, 5) where the Orks' Boyz stand). The Tactical squad on (1, 3), facing E,
gets Tir Direct with the sample template "B" (the 2 x 2 squares around its intercase, CV 3
against infantry) and a flamer "F" of three squares straight ahead.
"""

from __future__ import annotations

import copy
from typing import Any

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.black_reach.battle.events import DestructionDealt, UnitShot
from tests.engine.black_reach.battle.test_structures import (
    BOYZ1,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    dealt,
    order,
    setup,
)

A, B = "A", "B"
FLAMER = {"id": "F", "cells": [[0, -1], [0, -2], [0, -3]],
          "cv": {"infantry": 3, "light_vehicle": 2, "heavy_vehicle": 1}}  # fmt: skip


def battle_with(destruction: int | None, *, unit_destruction: bool = False) -> BlackReachBattle:
    abilities: list[dict[str, Any]] = [
        {"id": "direct_fire", "param": "B"},
        {"id": "flamer", "param": "F"},
    ]
    if unit_destruction:
        abilities.append({"id": "destruction", "param": 2})
    base = setup(abilities)
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    templates = {t["id"]: t for t in catalogue["templates"]}
    templates["F"] = copy.deepcopy(FLAMER)
    if destruction is not None:
        for tid in ("B", "F"):
            templates[tid]["abilities"] = [
                *(templates[tid].get("abilities") or []),
                {"id": "destruction", "param": destruction},
            ]
    catalogue["templates"] = list(templates.values())
    battle = BlackReachBattle.create(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    mine = [order(TACTICAL, 1), order(SERGEANT, 2)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    return battle


def fire(x: int, y: int) -> dict[str, Any]:
    return {"type": "template_fire", "unit": TACTICAL, "x": x, "y": y, "facing": "N"}


def test_a_template_over_a_unit_inside_a_structure_hits_the_unit_then_the_structure() -> None:
    battle = battle_with(2)
    # B on the intercase (6, 6): the squares (5, 5)-(6, 6), the hut and the Boyz in it;
    # 6 + CV 3 = 9 against DV 4: a Coup Double; then the hut's 2 dice: 4 and 3, 1 point
    new = battle.execute_json(fire(6, 6), A, dice=[6, 4, 3])
    kinds = [e.event.kind for e in new]
    assert kinds.index("unit_shot") < kinds.index("destruction_dealt")
    shot = next(e.event for e in new if isinstance(e.event, UnitShot))
    assert (shot.target, shot.outcome) == (BOYZ1, "coup_double")
    assert dealt(new) == [("hut", 1, 1, False, (4, 3))]
    last = new[-1].event
    assert isinstance(last, DestructionDealt)
    assert last.by == TACTICAL
    assert battle.state.destruction == {"hut": 1}


def test_a_template_over_a_structure_alone_destroys_it_at_its_value() -> None:
    battle = battle_with(2)
    # B on the intercase (5, 4): the squares (4, 3)-(5, 4), the bunker and no unit: its dice
    new = battle.execute_json(fire(5, 4), A, dice=[4, 6])
    assert [e.event.kind for e in new] == [
        "order_revealed",
        "template_placed",
        "destruction_dealt",
    ]
    assert dealt(new) == [("bunker", 2, 2, True, (4, 6))]
    assert battle.state.ruined == frozenset({"bunker"})


def test_a_template_without_destruction_deals_no_points_even_from_a_unit_with_it() -> None:
    # the unit's own Destruction does not count for an Alternative Shooting Action
    battle = battle_with(None, unit_destruction=True)
    new = battle.execute_json(fire(5, 4), A)  # no die at all
    assert [e.event.kind for e in new] == ["order_revealed", "template_placed"]
    assert battle.state.destruction == {}
    battle = battle_with(None, unit_destruction=True)
    new = battle.execute_json(fire(6, 6), A, dice=[1])  # the Boyz' die only
    assert dealt(new) == []


def test_a_flamer_with_destruction_hits_the_structure_it_reaches() -> None:
    battle = battle_with(1)
    # east from (1, 3): (2, 3), (3, 3) and the bunker's (4, 3), no unit: the bunker's 1 die
    new = battle.execute_json({"type": "flame", "unit": TACTICAL, "facing": "E"}, A, dice=[5])
    assert [e.event.kind for e in new][-1] == "destruction_dealt"
    assert dealt(new) == [("bunker", 1, 1, False, (5,))]
