"""A vehicle's Tank Shock and Ram are PEN's ram (charge bélier, PEN [L1010-L1030]), rolled by
the PEN engine (dynamics rulings D7): a Tactical Move rams along its declared Tank Shock for
the inches declared [L33], an Assault order rams its declared target [L100]; any other order
does not ram, and a rammer neither shoots nor charges afterwards."""

import pytest

from app.engine.dynamics import DynamicsBattle, DynStage, Order
from app.engine.dynamics.commands import (
    ChooseStarter,
    EndOrder,
    LockOrders,
    PlaceOrder,
    RevealOrder,
    RollAdvantage,
    StartTurn,
)
from app.engine.match.errors import Refusal
from app.engine.pen.battle.commands import Ram, RamTarget, Shoot
from tests.engine.dynamics.support import deployed, replayed


def code(game: DynamicsBattle, command: object, seat: str) -> str:
    with pytest.raises(Refusal) as err:
        game.execute(command, seat)  # type: ignore[arg-type]
    return err.value.code


def at_the_rhinos_pass(rhino: Order, **declaration: object) -> DynamicsBattle:
    game = deployed()
    game.execute(StartTurn(), "A", dice=[1])
    for unit in ("tac", "dev"):
        game.execute(PlaceOrder(unit, Order.FIRE), "A")
    game.execute(LockOrders(), "A")
    for unit, order in (("inf", Order.FIRE), ("vet", Order.FORCED_MARCH), ("rhino", rhino)):
        game.execute(PlaceOrder(unit, order), "B")
    game.execute(LockOrders(), "B")
    game.execute(RevealOrder("inf", target="dev"), "B")
    game.execute(RevealOrder("rhino", **declaration), "B")  # type: ignore[arg-type]
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("A"), "A")
    game.execute(RevealOrder("tac", target="inf"), "A")
    game.execute(RevealOrder("vet"), "B")
    game.execute(RevealOrder("dev", target="inf"), "A")
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("A"), "A")
    game.execute(EndOrder("tac"), "A")
    game.execute(EndOrder("vet"), "B")
    game.execute(EndOrder("dev"), "A")
    assert (game.state.stage, game.state.step, game.state.to_act) == (DynStage.RESOLVE, 3, "B")
    return game


def test_a_tank_shock_rams_along_its_declaration() -> None:
    shock = {"target": "tac", "tank_shock_inches": 6, "tank_shock_direction": "north"}
    game = at_the_rhinos_pass(Order.TACTICAL_MOVE, **shock)
    offered = {"command": {"type": "ram", "unit": "rhino", "inches": 6, "targets": []}}
    assert offered | {"needs": ["targets"]} in game.legal_actions("B")
    assert code(game, Ram("rhino", 8, (RamTarget("tac"),)), "B") == "declared_distance"
    game.execute(Ram("rhino", 6, (RamTarget("tac"),)), "B", seed=7)
    rammed = [e.event for e in game.envelopes if e.event.kind == "rammed"]
    assert len(rammed) == 1
    slot = game.state.slots["rhino"]
    assert (slot.moved, slot.shot, slot.charged) == (True, True, True)
    assert code(game, Shoot("rhino", "tac", "x", 12), "B") == "after_charge"  # no shot
    game.execute(EndOrder("rhino"), "B")
    assert replayed(game).state == game.state


def test_only_a_tank_shock_or_an_assault_rams() -> None:
    game = at_the_rhinos_pass(Order.TACTICAL_MOVE, target="tac")  # no Tank Shock declared
    assert code(game, Ram("rhino", 6, (RamTarget("tac"),)), "B") == "no_ram"
    game = at_the_rhinos_pass(Order.ASSAULT, target="tac")
    assert code(game, Ram("rhino", 6, (RamTarget("dev"),)), "B") == "declared_target"
    target = [{"unit": "tac", "facing": "front"}]
    offered = {"command": {"type": "ram", "unit": "rhino", "inches": 0, "targets": target}}
    assert offered | {"needs": ["inches"]} in game.legal_actions("B")
    game.execute(Ram("rhino", 6, (RamTarget("tac"),)), "B", seed=3)
    assert game.state.slots["rhino"].charged
