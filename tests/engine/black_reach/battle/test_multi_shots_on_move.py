"""Rafale and Double Tir during a move (issue 16, rulings 123) [L1196-L1200],
[L1296-L1317], [L1428-L1436]: a unit with Tir en Mouvement fires its Double Tir (two targets)
or its Rafale (the modified CV, the Tir en Mouvement penalty taken off, split between
targets) once during its move, each shot with the penalty.

The board of ``test_transport_assaults``; the tactical squad (on (1, 3)) is given CV 4
against infantry, Tir en Mouvement (-1), Double Tir and Rafale. It moves by (1, 2) to (2, 1)
and fires at the two boyz on (6, 0) and (7, 2) (DV 4).
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.black_reach.battle.events import BurstDeclared, UnitShot
from app.engine.match.errors import Refusal
from tests.engine.black_reach.battle.test_transport_assaults import (
    BOYZ1,
    BOYZ2,
    NOB,
    SHOOTAS,
    TACTICAL,
    TRANSPORT,
    order,
    setup,
)

A, B = "A", "B"
PATH = [{"x": 1, "y": 2}, {"x": 2, "y": 1}]


def gunners(abilities: tuple[str, ...] = ("double_shot", "burst")) -> BattleSetup:
    made = setup({BOYZ1: (7, 2, "W")})
    catalogue = copy.deepcopy(made.catalogue)
    assert isinstance(catalogue, dict)
    squad = next(c for c in catalogue["counters"] if c["id"] == "sample-um-tactical")
    face = squad["faces"][0]
    face["cv"]["infantry"] = 4
    face["abilities"] += [{"id": "shoot_on_move", "param": -1}] + [{"id": a} for a in abilities]
    return dataclasses.replace(made, catalogue=catalogue)


def battle(abilities: tuple[str, ...] = ("double_shot", "burst")) -> BlackReachBattle:
    game = BlackReachBattle.create(gunners(abilities))
    game.execute_json(
        {"type": "place_orders", "orders": [order(TACTICAL, 1), order(TRANSPORT, 2)]}, A
    )
    game.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    return game


def refused(game: BlackReachBattle, command: dict[str, Any]) -> Refusal:
    version = game.version
    with pytest.raises(Refusal) as info:
        game.execute_json(command, A, dice=[])
    assert game.version == version
    return info.value


def test_double_tir_during_a_move() -> None:
    game = battle()
    move = {"type": "move", "unit": TACTICAL, "path": PATH, "fire_at": BOYZ2,
            "fire_second": BOYZ1, "fire_after": 2}  # fmt: skip
    new = game.execute_json(move, A, dice=[1, 6])
    shots = [e.event for e in new if isinstance(e.event, UnitShot)]
    # CV 4 - 1 (Tir en Mouvement) = 3: 1 + 3 = 4 against DV 4, then 6 + 3 = 9 (Coup Double)
    assert [(s.target, s.moving_penalty, s.modified_cv, s.final, s.outcome) for s in shots] == [
        (BOYZ2, 1, 3, 4, "step"),
        (BOYZ1, 1, 3, 9, "coup_double"),
    ]
    assert TACTICAL in game.state.acted


def test_rafale_during_a_move() -> None:
    game = battle()
    shares = [{"target": BOYZ2, "cv": 2}, {"target": BOYZ1, "cv": 1}]
    move = {"type": "move", "unit": TACTICAL, "path": PATH, "burst": shares}
    new = game.execute_json(move, A, dice=[2, 3])
    declared = next(e.event for e in new if isinstance(e.event, BurstDeclared))
    assert declared.modified_cv == 3  # CV 4 - 1, split 2 + 1
    shots = [e.event for e in new if isinstance(e.event, UnitShot)]
    # each share is its shot's modified CV: the penalty came off before the split
    assert [(s.target, s.cv, s.modified_cv, s.final) for s in shots] == [
        (BOYZ2, 2, 2, 4),
        (BOYZ1, 1, 1, 4),
    ]


def test_the_shares_add_up_to_the_moving_modified_cv_checked_before_any_die() -> None:
    game = battle()
    shares = [{"target": BOYZ2, "cv": 2}, {"target": BOYZ1, "cv": 2}]
    err = refused(game, {"type": "move", "unit": TACTICAL, "path": PATH, "burst": shares})
    assert err.code == "burst_total"
    assert err.details["modified_cv"] == 3


def test_double_tir_on_the_move_needs_the_ability_and_two_targets() -> None:
    game = battle(abilities=())
    move = {"type": "move", "unit": TACTICAL, "path": PATH, "fire_at": BOYZ2, "fire_second": BOYZ1}
    assert refused(game, move).code == "no_double_shot"
    game = battle()
    same = {**move, "fire_second": BOYZ2}
    assert refused(game, same).code == "same_target"
    alone = {"type": "move", "unit": TACTICAL, "path": PATH, "fire_second": BOYZ1}
    assert refused(game, alone).code == "no_target"
    both = {**move, "burst": [{"target": BOYZ2, "cv": 2}, {"target": BOYZ1, "cv": 1}]}
    assert refused(game, both).code == "fire_or_burst"
