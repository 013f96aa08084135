"""Embarked squads and escorts found on the table (dynamics rulings D12, D21): a squad
deployed in its transport takes an order like any unit on the battlefield [L171]; the
transport may act at its passengers' pass [L223] with no passengers named in the set-up;
the squad gets out as part of a moving order (before its own move, or after its transport
moved), may not with a Fire order, and boarding ends its action; a character with no escort
named in the set-up delays to any squad of its army, never to a vehicle or a character
[L219], [L297]."""

import pytest

from app.engine.dynamics import DynamicsBattle, DynamicsSetup, DynStage, Order
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
from app.engine.pen.battle import ArmySpec, BattleSetup, UnitSpec
from app.engine.pen.battle.commands import (
    ChooseFirst,
    Deploy,
    Disembark,
    Embark,
    EndStep,
    Move,
    RollOff,
)
from app.engine.pen.battle.state import Place, Speed
from tests.engine.dynamics.support import BOLTER, GUARD, LASGUN, MARINE, RHINO, SECRET, replayed

CAPTAIN = MARINE | {"initiative": 5, "wounds": 3, "rules": ["Personnage indépendant"]}


def deployed() -> DynamicsBattle:
    """Marines (a squad, a captain with no escort named, a Rhino, pilot 4) against Guard veterans
    (I4) deployed in their Rhino (pilot 3) and a Guard squad; turn 1 started."""
    a = ArmySpec(
        "A",
        "Marines",
        (
            UnitSpec("tac", "Tactical", 100, 5, MARINE, (BOLTER,), troops=True),
            UnitSpec("cap", "Captain", 60, 1, CAPTAIN, (BOLTER,)),
            UnitSpec("arhino", "Rhino", 50, 1, RHINO, capacity=10),
        ),
    )
    b = ArmySpec(
        "B",
        "Guard",
        (
            UnitSpec("inf", "Infantry", 60, 10, GUARD, (LASGUN,), troops=True),
            UnitSpec("vet", "Veterans", 70, 5, GUARD | {"initiative": 4}, (LASGUN,)),
            UnitSpec("rhino", "Rhino", 50, 1, RHINO, capacity=10),
        ),
    )
    setup = DynamicsSetup(
        BattleSetup((a, b), points_limit=300, objectives=1), pilots={"A": 4, "B": 3}
    )
    assert setup.problems() == []
    game = DynamicsBattle.create(setup, secret=SECRET)
    game.execute(EndStep(), "A")
    game.execute(EndStep(), "B")
    game.execute(RollOff(), "A", dice=[4, 1])
    game.execute(ChooseFirst("A"), "A")
    for unit in ("tac", "cap", "arhino"):
        game.execute(Deploy(unit), "A")
    game.execute(EndStep(), "A")
    game.execute(Deploy("inf"), "B")
    game.execute(Deploy("rhino"), "B")
    game.execute(Embark("vet", "rhino"), "B")  # deployed in its transport
    game.execute(EndStep(), "B")
    game.execute(StartTurn(), "A", dice=[1])
    return game


def code(game: DynamicsBattle, command: object, seat: str) -> str:
    with pytest.raises(Refusal) as err:
        game.execute(command, seat)  # type: ignore[arg-type]
    return err.value.code


def placed(vet: Order = Order.ASSAULT) -> DynamicsBattle:
    game = deployed()
    assert game.state.battle.units["vet"].place is Place.EMBARKED
    assert game.state.needs_order("B") == ["inf", "rhino", "vet"]  # the passengers too
    for unit, order in (("tac", Order.FIRE), ("cap", Order.FIRE), ("arhino", Order.FIRE)):
        game.execute(PlaceOrder(unit, order), "A")
    game.execute(LockOrders(), "A")
    game.execute(PlaceOrder("inf", Order.FIRE), "B")
    game.execute(PlaceOrder("rhino", Order.TACTICAL_MOVE), "B")
    assert code(game, LockOrders(), "B") == "orders_missing"  # vet has none yet
    game.execute(PlaceOrder("vet", vet), "B")
    game.execute(LockOrders(), "B")
    return game


def test_an_embarked_squad_takes_an_order_and_its_transport_acts_at_its_pass() -> None:
    game = placed()
    s = game.state
    assert (s.stage, s.step, s.to_act) == (DynStage.REVEAL, 3, "B")
    game.execute(RevealOrder("inf", target="tac"), "B")
    # the Rhino's passengers are on the table, not in the set-up: it may act at their pass
    game.execute(RevealOrder("rhino", target="tac", with_passengers=True), "B")
    assert game.state.slots["rhino"].step == 4
    game.execute(RollAdvantage(), "A", dice=[1, 6])
    game.execute(ChooseStarter("B"), "B")
    game.execute(RevealOrder("vet", target="tac"), "B")
    game.execute(RevealOrder("tac", target="rhino"), "A")
    # A's empty Rhino has no passengers to wait for [L223]
    assert code(game, RevealOrder("arhino", target="rhino", with_passengers=True), "A") == (
        "bad_declaration"
    )
    game.execute(RevealOrder("arhino", target="rhino"), "A")
    game.execute(RevealOrder("cap", target="inf"), "A")
    # resolution: pass 5 (the captain), then pass 4: the Rhino and its veterans act together
    assert (game.state.stage, game.state.step) == (DynStage.RESOLVE, 5)
    game.execute(EndOrder("cap"), "A")
    assert game.state.step == 4
    game.execute(RollAdvantage(), "A", dice=[1, 6])
    game.execute(ChooseStarter("B"), "B")
    game.execute(Move("rhino", Speed.NORMAL, 6), "B")
    assert code(game, Move("vet", Speed.NORMAL, 6), "B") == "order_open"
    game.execute(EndOrder("rhino"), "B")
    game.execute(EndOrder("tac"), "A")
    # the veterans get out after their transport moved: that is their move [L282]
    game.execute(Disembark("vet"), "B")
    me = game.state.battle.units["vet"]
    assert (me.place, me.transport) == (Place.TABLE, None)
    assert game.state.slots["vet"].moved
    assert code(game, Move("vet", Speed.NORMAL, 6), "B") == "already_moved"
    game.execute(EndOrder("vet"), "B")
    assert replayed(game).state == game.state


def test_a_fire_order_stays_aboard_and_boarding_ends_the_action() -> None:
    game = placed(vet=Order.FIRE)
    game.execute(RevealOrder("inf", target="tac"), "B")
    game.execute(RevealOrder("rhino", target="tac"), "B")
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("A"), "A")
    game.execute(RevealOrder("tac", target="rhino"), "A")
    game.execute(RevealOrder("vet", target="tac"), "B")
    game.execute(RevealOrder("arhino", target="inf"), "A")
    game.execute(RevealOrder("cap", target="inf"), "A")
    game.execute(EndOrder("cap"), "A")
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("B"), "A")  # A won, and lets B start
    assert code(game, Disembark("vet"), "B") == "no_move"  # a Fire order does not move [L80]
    game.execute(EndOrder("vet"), "B")
    game.execute(EndOrder("tac"), "A")
    game.execute(EndOrder("arhino"), "A")
    # pass 3: the Guard squad; a Fire order cannot board either
    assert game.state.step == 3
    assert code(game, Embark("inf", "rhino"), "B") == "no_move"


def test_a_squad_boards_at_the_end_of_its_move_and_is_done() -> None:
    game = deployed()
    for unit, order in (("tac", Order.FORCED_MARCH), ("cap", Order.FIRE), ("arhino", Order.FIRE)):
        game.execute(PlaceOrder(unit, order), "A")
    game.execute(LockOrders(), "A")
    for unit, order in (("inf", Order.FIRE), ("rhino", Order.FIRE), ("vet", Order.FIRE)):
        game.execute(PlaceOrder(unit, order), "B")
    game.execute(LockOrders(), "B")
    game.execute(RevealOrder("inf", target="tac"), "B")
    game.execute(RevealOrder("rhino", target="tac"), "B")
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("A"), "A")
    game.execute(RevealOrder("tac"), "A")
    game.execute(RevealOrder("vet", target="tac"), "B")
    game.execute(RevealOrder("arhino", target="inf"), "A")
    game.execute(RevealOrder("cap", target="inf"), "A")
    game.execute(EndOrder("cap"), "A")
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("A"), "A")
    game.execute(Move("tac", Speed.NORMAL, 5), "A")
    game.execute(Embark("tac", "arhino"), "A")  # the end of its move [L278]
    assert game.state.battle.units["tac"].place is Place.EMBARKED
    assert code(game, Move("tac", Speed.NORMAL, 1), "A") == "already_moved"
    game.execute(EndOrder("tac"), "A")
    assert replayed(game).state == game.state


def test_a_character_with_no_escort_named_delays_to_a_squad_of_its_army() -> None:
    game = deployed()
    for unit, order in (("tac", Order.FIRE), ("cap", Order.FIRE), ("arhino", Order.FIRE)):
        game.execute(PlaceOrder(unit, order), "A")
    game.execute(LockOrders(), "A")
    for unit, order in (("inf", Order.FIRE), ("rhino", Order.FIRE), ("vet", Order.FIRE)):
        game.execute(PlaceOrder(unit, order), "B")
    game.execute(LockOrders(), "B")
    game.execute(RevealOrder("inf", target="tac"), "B")
    game.execute(RevealOrder("rhino", target="tac"), "B")
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("A"), "A")
    game.execute(RevealOrder("tac", target="inf"), "A")
    game.execute(RevealOrder("vet", target="tac"), "B")
    # a squad or a vehicle is no character: it delays to nobody [L219]
    assert code(game, RevealOrder("arhino", target="inf", delay_to="tac"), "A") == (
        "bad_declaration"
    )
    game.execute(RevealOrder("arhino", target="inf"), "A")
    # Initiative 5: the captain; never with a vehicle [L297], nor another army's squad
    assert code(game, RevealOrder("cap", target="inf", delay_to="arhino"), "A") == (
        "bad_declaration"
    )
    assert code(game, RevealOrder("cap", target="inf", delay_to="inf"), "A") == ("bad_declaration")
    assert code(game, RevealOrder("cap", target="rhino", delay_to="tac"), "A") == (
        "bad_declaration"  # not the squad's target [L219]
    )
    game.execute(RevealOrder("cap", target="inf", delay_to="tac"), "A")
    assert game.state.slots["cap"].step == 4
    # nobody is left at pass 5: the resolution starts at 4, the captain with its squad
    assert (game.state.stage, game.state.step) == (DynStage.RESOLVE, 4)


def test_the_set_up_offers_each_placement_a_client_needs() -> None:
    """The generic page draws its forms from the legal actions: the deployer is offered each
    squad's deployment, and a squad's boarding of a transport already on the table."""
    game = DynamicsBattle.create(deployed().state.setup, secret=SECRET)  # type: ignore[arg-type]
    game.execute(EndStep(), "A")
    game.execute(EndStep(), "B")
    game.execute(RollOff(), "A", dice=[4, 1])
    game.execute(ChooseFirst("B"), "A")
    assert game.legal_actions("A") == []  # B deploys first
    offered = [e["command"] for e in game.legal_actions("B")]
    assert {"type": "deploy", "unit": "vet"} in offered
    assert {"type": "embark", "unit": "vet", "transport": "rhino"} not in offered  # not yet
    game.execute(Deploy("rhino"), "B")
    offered = [e["command"] for e in game.legal_actions("B")]
    assert {"type": "embark", "unit": "vet", "transport": "rhino"} in offered
    for entry in game.legal_actions("B"):  # every offer is accepted
        game.fork().execute_json(entry["command"], "B")  # type: ignore[arg-type]
