"""Da Jump in the Black Reach battle (issue 16, rulings 132) [L2933-L2942]: the Weirdboy and
an allied infantry unit in his zone of control leave the battlefield; in the next turn's
Reserve phase each comes back with a Movement Action from a board edge (the same edge for
both, never in the enemy deployment zone); one not back when its side ends that Reserve phase
is destroyed.

The board is ``test_psykers``' (8 x 8, no terrain; the Ultramarines' zone (0, 0)-(3, 3)): the
Weirdboy (level 2, MV 4) on (5, 5) with a made-up Da Jump (cost 2), the Nob beside him on
(6, 5).
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.match.errors import Refusal
from tests.engine.black_reach.battle import test_psykers as psykers
from tests.engine.black_reach.battle.test_psykers import (
    BOYZ1,
    BOYZ2,
    LIBRARIAN,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    WEIRDBOY,
    order,
)

A, B = "A", "B"
JUMP = {
    "id": "test-da-jump",
    "name": "A made-up jump",
    "faction": "orks",
    "type": "psychic_power",
    "cost": 3,
    "bands": ["yellow"],
    "power": {"psyker": "weirdboy", "discipline": "waaagh", "cost": 2, "effect": "da_jump"},
}
JUMP_WITH_NOB = {"type": "manifest", "unit": WEIRDBOY, "power": "test-da-jump", "target": NOB}


def setup() -> BattleSetup:
    base = psykers.setup()
    catalogue = copy.deepcopy(base.catalogue)
    scenario = copy.deepcopy(base.scenario)
    assert isinstance(catalogue, dict)
    assert isinstance(scenario, dict)
    catalogue["options"].append(JUMP)
    scenario["sides"][1]["army"]["tiles"][1]["slots"][0]["option"] = "test-da-jump"
    return replace(base, catalogue=catalogue, scenario=scenario)


def hold(battle: BlackReachBattle, seat: str, unit: str) -> None:
    battle.execute_json({"type": "hold", "unit": unit}, seat)


def jumped() -> BlackReachBattle:
    """Turn 1: the Shootas and the Librarian hold; the Weirdboy jumps with the Nob (6 + 2 -
    4 = 4: it works)."""
    battle = BlackReachBattle.create(setup())
    orders = [order(SHOOTAS, 1), order(WEIRDBOY, 2), order(NOB, 3)]
    battle.execute_json({"type": "place_orders", "orders": orders}, B)
    orders = [order(LIBRARIAN, 1), order(TACTICAL, 2), order(SERGEANT, 3)]
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    hold(battle, B, SHOOTAS)
    hold(battle, A, LIBRARIAN)
    events = [e.event.kind for e in battle.execute_json(JUMP_WITH_NOB, B, dice=[6])]
    assert events == [
        "order_revealed",
        "suppressed_placed",
        "power_manifested",
        "units_jumped",
        "units_activated",
    ]
    return battle


def back_in_reserve() -> BlackReachBattle:
    """The rest of turn 1, then turn 2 up to the Orks' Reserve moves (the Ultramarines, with
    the Initiative, end theirs first)."""
    battle = jumped()
    hold(battle, A, TACTICAL)
    hold(battle, B, NOB)  # its token, played with no effect
    hold(battle, A, SERGEANT)
    battle.execute_json({"type": "end_reserve"}, B)
    battle.execute_json({"type": "end_reserve"}, A)
    orders = [order(LIBRARIAN, 1), order(TACTICAL, 2), order(SERGEANT, 3)]
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    orders = [order(SHOOTAS, 1), order(BOYZ1, 2), order(BOYZ2, 3)]
    battle.execute_json({"type": "place_orders", "orders": orders}, B)
    for seat, unit in (
        (A, LIBRARIAN),
        (B, SHOOTAS),
        (A, TACTICAL),
        (B, BOYZ1),
        (A, SERGEANT),
        (B, BOYZ2),
    ):
        hold(battle, seat, unit)
    battle.execute_json({"type": "end_reserve"}, A)
    return battle


def back(unit: str, *squares: tuple[int, int]) -> dict[str, Any]:
    path = [{"x": x, "y": y, "facing": "W"} for x, y in squares]
    return {"type": "reserve_move", "unit": unit, "path": path}


def test_the_weirdboy_and_the_nob_leave_the_battlefield() -> None:
    offers = [
        a["command"].get("target")
        for a in jumped().actions(B)
        if a["command"]["type"] == "manifest" and a["command"]["power"] == "test-da-jump"
    ]
    assert offers == []  # the Weirdboy's token is spent: checked below on a fresh battle
    battle = BlackReachBattle.create(setup())
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(WEIRDBOY, 1), order(SHOOTAS, 2), order(NOB, 3)],
        },
        B,
    )
    orders = [order(LIBRARIAN, 1), order(TACTICAL, 2), order(SERGEANT, 3)]
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    targets = {
        a["command"].get("target")
        for a in battle.actions(B)
        if a["command"]["type"] == "manifest" and a["command"]["power"] == "test-da-jump"
    }
    assert targets == {None, NOB, BOYZ1}  # alone, or with infantry of his zone of control
    battle = jumped()
    state = battle.state
    assert state.units[WEIRDBOY].placement is None
    assert state.units[NOB].placement is None
    assert state.units[NOB].alive
    assert NOB in state.activated  # its token is played with no effect
    assert state.jumped == {WEIRDBOY: (WEIRDBOY, 1), NOB: (WEIRDBOY, 1)}


def test_they_come_back_by_one_edge_in_the_next_reserve_phase() -> None:
    battle = jumped()
    hold(battle, A, TACTICAL)
    hold(battle, B, NOB)
    hold(battle, A, SERGEANT)
    with pytest.raises(Refusal) as info:  # not in the turn they left
        battle.execute_json(back(WEIRDBOY, (7, 2)), B)
    assert info.value.code == "not_yet"
    battle = back_in_reserve()
    offer = next(
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "reserve_move" and a["command"]["unit"] == WEIRDBOY
    )
    assert offer["jump"] is True
    assert [7, 2] in offer["to"]
    assert offer["paths"]["6,3"][0][:2] in ([7, 2], [7, 3], [7, 4])  # the E edge first
    for squares, code in [
        (((4, 4),), "not_on_edge"),
        (((0, 0),), "enemy_zone"),
        (((7, 7),), "entry_taken"),  # the second Boyz stand there
    ]:
        with pytest.raises(Refusal) as info:
            battle.execute_json(back(WEIRDBOY, *squares), B)
        assert info.value.code == code, squares
    events = [e.event for e in battle.execute_json(back(WEIRDBOY, (7, 2), (6, 2)), B)]
    assert [e.kind for e in events] == ["jump_landed", "unit_moved"]
    assert events[0].edges == ("E",)
    assert events[1].cost == 2
    assert battle.state.units[WEIRDBOY].placement.anchor == (6, 2)  # type: ignore[union-attr]
    with pytest.raises(Refusal) as info:  # the Nob by another edge
        battle.execute_json(back(NOB, (5, 0)), B)
    assert info.value.code == "other_edge"
    assert battle.state.jump_edges == {WEIRDBOY: ("E",)}


def test_one_not_back_when_its_side_ends_the_reserve_phase_is_destroyed() -> None:
    battle = back_in_reserve()
    battle.execute_json(back(WEIRDBOY, (7, 2)), B)
    events = [e.event for e in battle.execute_json({"type": "end_reserve"}, B)]
    lost = next(e for e in events if e.kind == "steps_taken")
    assert (lost.unit, lost.destroyed) == (NOB, True)
    assert not battle.state.units[NOB].alive
    assert battle.state.jumped == {}
