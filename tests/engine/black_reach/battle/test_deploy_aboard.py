"""Deploying a unit aboard a transport (issue 16, rulings 141) [L2017-L2032]: in the set-up an
infantry counter may start the battle aboard a transport of its side already on the
battlefield, within the transport's capacity (a reduced face or a Character counts 1, any other
2); it then starts the battle embarked and gets out with its first move.

The sample set-up with no deployment given: the players deploy. The sample transport carries 4:
the tactical squad (2) and the sergeant (a Character, 1) fit, the heavy-weapon team (2) no more.
"""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.black_reach.battle import BlackReachBattle, sample_setup
from app.engine.black_reach.battle.events import UnitDeployedAboard
from app.engine.match.errors import Refusal

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
TRANSPORT = "ultramarines:tiles[0].slots[1]/0:sample-um-transport"
NOB = "orks:tiles[0]/0:sample-ork-nob"
A, B = "A", "B"
PLACES = {d.unit: d for d in sample_setup().deployment}


def deploy(battle: BlackReachBattle, seat: str, unit: str) -> None:
    d = PLACES[unit]
    battle.execute_json(
        {"type": "deploy", "unit": unit, "x": d.x, "y": d.y, "facing": d.facing}, seat
    )


def aboard(unit: str, transport: str = TRANSPORT, **kw: Any) -> dict[str, Any]:
    return {"type": "deploy_aboard", "unit": unit, "transport": transport, **kw}


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any]) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat)
    assert battle.version == version
    return info.value


def place_all(battle: BlackReachBattle, seat: str, first: str) -> None:
    """Every token of the seat's pool, its unit ``first`` taking the first."""
    entry = next(a for a in battle.legal_actions(seat) if a["command"]["type"] == "place_orders")
    units = [first, *(u for u in entry["units"] if u != first)]
    orders = [
        {"unit": u, "nonce": f"n-{u}", **t} for u, t in zip(units, entry["tokens"], strict=False)
    ]
    battle.execute_json({"type": "place_orders", "orders": orders}, seat)


def offered_aboard(battle: BlackReachBattle, seat: str) -> list[tuple[str, str]]:
    return [
        (a["command"]["unit"], a["command"]["transport"])
        for a in battle.legal_actions(seat)
        if a["command"]["type"] == "deploy_aboard"
    ]


def test_infantry_deploys_aboard_a_transport_within_its_capacity() -> None:
    battle = BlackReachBattle.create(sample_setup(deployment=()))
    assert offered_aboard(battle, A) == []  # no transport on the battlefield yet
    assert refused(battle, A, aboard(TACTICAL)).code == "transport_not_deployed"
    deploy(battle, A, TRANSPORT)
    assert (TACTICAL, TRANSPORT) in offered_aboard(battle, A)
    new = battle.execute_json(aboard(TACTICAL), A)
    assert [e.event for e in new] == [UnitDeployedAboard(TACTICAL, TRANSPORT, "intact")]
    squad = battle.state.units[TACTICAL]
    assert (squad.placement, squad.embarked_in) == (None, TRANSPORT)
    battle.execute_json(aboard(SERGEANT), A)  # a Character counts 1: 3 of 4
    assert refused(battle, A, aboard(BOLTER)).code == "transport_full"
    assert (BOLTER, TRANSPORT) not in offered_aboard(battle, A)
    # on its reduced face the heavy-weapon team would count 1, but only a counter with
    # Changement d'état deploys on another face [L1123-L1124]
    assert refused(battle, A, aboard(BOLTER, face="reduced")).code == "bad_deployment"
    assert refused(battle, A, aboard(TRANSPORT, SERGEANT)).code == "not_infantry"
    assert refused(battle, A, aboard(NOB)).code == "not_your_unit"
    assert refused(battle, A, aboard(BOLTER, BOLTER)).code == "transport_not_deployed"


def test_a_unit_deployed_aboard_starts_the_battle_embarked_and_gets_out_moving() -> None:
    battle = BlackReachBattle.create(sample_setup(deployment=()))
    for unit in (TRANSPORT, BOLTER, "ultramarines:tiles[1]/0:sample-um-librarian"):
        deploy(battle, A, unit)
    battle.execute_json(aboard(TACTICAL), A)
    # deployed on the battlefield again, the sergeant leaves the transport; aboard again, it
    # does not count twice
    battle.execute_json(aboard(SERGEANT), A)
    deploy(battle, A, SERGEANT)
    assert battle.state.units[SERGEANT].embarked_in is None
    battle.execute_json(aboard(SERGEANT), A)
    battle.execute_json(aboard(SERGEANT), A)
    assert [p.uid for p in battle.state.passengers(TRANSPORT)] == [SERGEANT, TACTICAL]
    assert any(a["command"]["type"] == "end_deployment" for a in battle.legal_actions(A))
    battle.execute_json({"type": "end_deployment"}, A)
    for unit in [u for u in PLACES if u.startswith("orks:")]:
        deploy(battle, B, unit)
    battle.execute_json({"type": "end_deployment"}, B)
    assert battle.state.turn is not None
    # the opponent sees the squad aboard the transport (as a unit that got in)
    seen = next(u for u in battle.view(B)["units"] if u["id"] == TACTICAL)
    assert (seen["embarked_in"], seen["at"]) == (TRANSPORT, None)
    # it takes an Order token and gets out with its first move, next to the transport
    place_all(battle, A, TACTICAL)
    place_all(battle, B, NOB)
    battle.execute_json({"type": "hold", "unit": NOB}, B)
    entry = next(
        a
        for a in battle.legal_actions(A)
        if a["command"]["type"] == "move" and a["command"]["unit"] == TACTICAL
    )
    steps = entry["paths"]["4,1"]
    path = [{"x": x, "y": y, "facing": f} for x, y, f in steps]
    battle.execute_json({"type": "move", "unit": TACTICAL, "path": path}, A)
    squad = battle.state.units[TACTICAL]
    assert squad.embarked_in is None
    assert squad.placement is not None
    assert (squad.placement.anchor.x, squad.placement.anchor.y) == (4, 1)
