"""A Forced Move gives no Activated marker (issue 16, rulings 135): a defender beaten in an
assault retreats (a Forced Move, "not a Movement Action" [L1605-L1607]) and keeps its
face-down token, then acts with it later in the turn; one with no token still makes its
Movement Action in the Reserve phase [L703-L708]. The marker is placed only when a rule asks
for it [L2226-L2241] (En Alerte, a supporter, a mechanic), and no Forced Move asks.

The board is the sample relay with the Orks' second Boyz on (4, 3), next to the Tactical
squad on (3, 2); nothing else is near, so the beaten Boyz' retreat is open.
"""

from __future__ import annotations

import copy
from typing import Any

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.events import ForcedMove
from tests.engine.black_reach.battle.test_battle_rules import (
    BOLTER,
    BOYZ1,
    BOYZ2,
    BUGGY,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    order,
)

A, B = "A", "B"


def beaten(*ork_orders: str) -> tuple[BlackReachBattle, list[Any]]:
    """The Tactical squad (A's token 1) assaults the Boyz on (4, 3) and wins (best of [6, 1]
    + CV 2 + Assaut 1 = 9 against 1 + 2 + 2 = 5): the Boyz lose a step and retreat."""
    setup = sample_setup()
    where = {BOYZ2: (4, 3), TACTICAL: (3, 2)}
    data = copy.deepcopy(setup.scenario)
    assert isinstance(data, dict)
    data["sides"][0]["deployment"] = [{"from": [0, 0], "to": [7, 2]}]
    data["sides"][1]["deployment"] = [{"from": [0, 6], "to": [7, 11]}, [4, 3]]
    deployment = tuple(
        Deploy(d.unit, *where[d.unit], d.facing) if d.unit in where else d for d in setup.deployment
    )
    battle = BlackReachBattle.create(
        BattleSetup(data, setup.catalogue, setup.boards, setup.seats, deployment)
    )
    orks = [order(u, n) for n, u in enumerate(ork_orders, start=1)]
    battle.execute_json({"type": "place_orders", "orders": orks}, B)
    marines = [order(TACTICAL, 1), order(BOLTER, 2), order(SERGEANT, 3)]
    battle.execute_json({"type": "place_orders", "orders": marines}, A)
    battle.execute_json({"type": "hold", "unit": ork_orders[0]}, B)
    new = battle.execute_json(
        {"type": "assault", "unit": TACTICAL, "target": BOYZ2}, A, dice=[6, 1, 1, 1]
    )
    awaited = next((e.event for e in new if e.event.kind == "square_awaited"), None)
    if awaited is not None:  # the Orks take the square offered first (rulings 142)
        first = awaited.squares[0]
        answer = {"type": "choose_square", "unit": awaited.unit, "x": first.x, "y": first.y}
        new = [*new, *battle.execute_json(answer, B)]
    return battle, new


def test_a_defender_that_retreated_keeps_its_token_and_acts_with_it() -> None:
    battle, new = beaten(BOYZ1, BOYZ2, NOB, SHOOTAS)
    fight = next(e.event for e in new if e.event.kind == "assault_resolved")
    assert fight.outcome == "attacker_wins"
    retreat = next(e.event for e in new if isinstance(e.event, ForcedMove))
    assert (retreat.unit, retreat.why) == (BOYZ2, "retreat")
    boyz = battle.state.units[BOYZ2]
    assert boyz.alive
    assert boyz.placement is not None
    assert boyz.placement.anchor != (4, 3)
    # no Activated marker, no action spent: its token 2 is still face down and due next
    assert BOYZ2 not in battle.state.activated
    assert BOYZ2 not in battle.state.acted
    assert battle.state.turn is not None
    assert BOYZ2 not in battle.state.turn.revealed["orks"]
    assert battle.state.active_seat == B
    moves = [
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "move" and a["command"]["unit"] == BOYZ2
    ]
    assert moves
    assert moves[0]["to"]
    steps = next(iter(moves[0]["paths"].values()))
    walk = [{"x": x, "y": y, "facing": f} for x, y, f in steps]
    played = battle.execute_json({"type": "move", "unit": BOYZ2, "path": walk}, B)
    assert [e.event.kind for e in played][:2] == ["order_revealed", "unit_moved"]


def test_a_defender_without_a_token_that_retreated_moves_in_the_reserve_phase() -> None:
    battle, _ = beaten(BOYZ1, NOB, SHOOTAS, BUGGY)
    assert BOYZ2 not in battle.state.activated
    for seat, unit in ((B, NOB), (A, BOLTER), (B, SHOOTAS), (A, SERGEANT), (B, BUGGY)):
        battle.execute_json({"type": "hold", "unit": unit}, seat)
    assert battle.state.phase == "reserve"
    assert battle.state.active_seat == B  # the Orks have the Initiative: they move first
    reserve = [
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "reserve_move" and a["command"]["unit"] == BOYZ2
    ]
    assert reserve
    assert reserve[0]["to"]
    steps = next(iter(reserve[0]["paths"].values()))
    walk = [{"x": x, "y": y, "facing": f} for x, y, f in steps]
    moved = battle.execute_json({"type": "reserve_move", "unit": BOYZ2, "path": walk}, B)
    assert "unit_moved" in [e.event.kind for e in moved]
    placed = battle.state.units[BOYZ2].placement
    assert placed is not None
    assert (placed.anchor.x, placed.anchor.y) == (walk[-1]["x"], walk[-1]["y"])
