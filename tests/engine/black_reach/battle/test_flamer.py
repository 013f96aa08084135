"""Lance-Flammes in the Black Reach battle (issue 16, rulings 100): the template laid from the
shooter's square in the direction chosen, every unit it reaches attacked once with the
template's CVs, friend or foe, then 1 Suppressed marker on each that still stands; a vehicle
stops the flame past its square [L1214-L1258].

The board is built here: 8 x 8, no terrain unless a test adds some. The Orks' Shootas on
(5, 3) are given Lance-Flammes "F", our own template (the printed one is not in the seed):
one square ahead, one more, then three across (facing N: (0, -1), (0, -2), (-1, -3),
(0, -3), (1, -3)), CV 3 against infantry, 2 against light vehicles, X against heavy ones.
Pointed W from (5, 3) it covers (4, 3), (3, 3), (2, 2), (2, 3), (2, 4).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.events import UnitShot
from app.engine.match.errors import Refusal

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
TRANSPORT = "ultramarines:tiles[0].slots[0]/0:sample-um-transport"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
A, B = "A", "B"

BOARD: dict[str, Any] = {"boards": [{"name": "flat", "width": 8, "height": 8, "sample": True}]}
FLAMER = {
    "id": "F",
    "cells": [[0, -1], [0, -2], [-1, -3], [0, -3], [1, -3]],
    "cv": {"infantry": 3, "light_vehicle": 2, "heavy_vehicle": None},
}


def setup(*, transport: tuple[int, int] | None = None, wall: bool = False) -> BattleSetup:
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    catalogue["templates"].append(copy.deepcopy(FLAMER))
    shootas = next(c for c in catalogue["counters"] if c["id"] == "sample-ork-shootas")
    shootas["faces"][0]["abilities"].append({"id": "flamer", "param": "F"})
    squad: dict[str, Any] = {"tile": "sample-um-squad"}
    if transport is not None:
        squad["slots"] = [{"slot": 1, "tile": {"tile": "sample-um-transport"}}]
    board = copy.deepcopy(BOARD)
    if wall:  # a wall that blocks sight between (3, 3) and (2, 3)
        board["boards"][0]["edges"] = [
            {"id": "wall", "kind": "wall", "blocks_los": True, "edges": [[[2, 3], [3, 3]]]}
        ]
    scenario = {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-flamer",
        "name": "Test flamer",
        "turns": 3,
        "hand_size": 0,
        "first_initiative": "orks",
        "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [4, 3]}],
                "army": {"faction": "ultramarines", "tiles": [squad]},
            },
            {
                "id": "orks",
                "deployment": [{"from": [5, 0], "to": [7, 7]}, {"from": [0, 4], "to": [4, 7]}],
                "army": {"faction": "orks", "tiles": [{"tile": "sample-ork-mob"}]},
            },
        ],
        "objectives": [],
    }
    deployment = [
        Deploy(SERGEANT, 2, 2, "E"),
        Deploy(TACTICAL, 3, 3, "E"),
        Deploy(BOLTER, 0, 0, "E"),
        Deploy(NOB, 7, 7, "W"),
        Deploy(BOYZ1, 2, 4, "E"),
        Deploy(BOYZ2, 7, 0, "W"),
        Deploy(SHOOTAS, 5, 3, "W"),
    ]
    if transport is not None:
        deployment.append(Deploy(TRANSPORT, *transport, "S"))
    return BattleSetup(
        scenario, catalogue, board, {"A": "ultramarines", "B": "orks"}, tuple(deployment)
    )


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def ordered(**kw: Any) -> BlackReachBattle:
    battle = BlackReachBattle.create(setup(**kw))
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    mine = [order(TACTICAL, 1), order(SERGEANT, 2)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    return battle


def flame(facing: str = "W") -> dict[str, Any]:
    return {"type": "flame", "unit": SHOOTAS, "facing": facing}


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any], **kw: Any) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, **kw)
    assert battle.version == version
    return info.value


def test_the_flame_attacks_every_unit_it_reaches_friend_or_foe_and_suppresses_them() -> None:
    battle = ordered()
    entry = next(a for a in battle.actions(B) if a["command"] == {**flame(), "x": None, "y": None})
    assert entry["targets"] == [SERGEANT, TACTICAL, BOYZ1]  # reading order
    assert entry["reached"] == [[2, 2], [2, 3], [2, 4], [3, 3], [4, 3]]
    new = battle.execute_json(flame(), B, dice=[4, 1, 6])
    assert [e.event.kind for e in new][:2] == ["order_revealed", "flamer_fired"]
    shots = [e.event for e in new if isinstance(e.event, UnitShot)]
    # Sergeant 4 + 3 = 7 against DV 5: a step (his Hit Point); Tactical 1 + 3 = 4: a miss;
    # the Ork Boyz 6 + 3 = 9 against DV 4: a Coup Double, destroyed
    assert [(s.target, s.final, s.outcome) for s in shots] == [
        (SERGEANT, 7, "step"),
        (TACTICAL, 4, "miss"),
        (BOYZ1, 9, "coup_double"),
    ]
    assert all(s.weapon == "flamer:F" for s in shots)
    state = battle.state
    assert (state.units[SERGEANT].suppressed, state.units[TACTICAL].suppressed) == (1, 1)
    assert not state.units[BOYZ1].alive
    assert state.units[SHOOTAS].suppressed == 0  # never the shooter


def test_a_vehicle_stops_the_flame_past_its_square() -> None:
    battle = ordered(transport=(4, 3))
    entry = next(
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "flame" and a["command"]["facing"] == "W"
    )
    assert entry["reached"] == [[4, 3]]
    assert entry["targets"] == [TRANSPORT]
    new = battle.execute_json(flame(), B, dice=[3])
    shots = [e.event for e in new if isinstance(e.event, UnitShot)]
    # 3 + CV 2 against the transport's DV 6: a miss, and its Suppressed marker
    assert [(s.target, s.cv, s.final, s.outcome) for s in shots] == [(TRANSPORT, 2, 5, "miss")]
    assert battle.state.units[TRANSPORT].suppressed == 1


def test_a_blocking_wall_stops_the_flame() -> None:
    battle = ordered(wall=True)
    entry = next(
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "flame" and a["command"]["facing"] == "W"
    )
    # the wall between (3, 3) and (2, 3): the line to (2, 3) crosses it; the one to (2, 2) and
    # (2, 4) pass through the corner it reaches
    assert [2, 3] not in entry["reached"]
    assert [3, 3] in entry["reached"]
    assert TACTICAL in entry["targets"]


def test_bad_flames_are_refused_before_any_die() -> None:
    battle = ordered()
    assert refused(battle, B, flame("NE"), dice=[1]).code == "bad_facing"
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    assert (
        refused(battle, A, {"type": "flame", "unit": TACTICAL, "facing": "E"}, dice=[1]).code
        == "no_flamer"
    )
