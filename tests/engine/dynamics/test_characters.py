"""Independent characters and transports: a character acts at its own Initiative or is
delayed to its escort's pass with the same order and target [L219], [L297]; a transport may
act at its passengers' pass [L223]; a non-walker vehicle's Initiative is its pilot's [L197]."""

import pytest

from app.engine.dynamics import DynamicsBattle, DynamicsSetup, DynStage, Order
from app.engine.dynamics.commands import (
    ChooseStarter,
    LockOrders,
    PlaceOrder,
    RevealOrder,
    RollAdvantage,
    StartTurn,
)
from app.engine.match.errors import Refusal
from app.engine.pen.battle import ArmySpec, BattleSetup, UnitSpec
from app.engine.pen.battle.commands import ChooseFirst, Deploy, EndStep, RollOff
from tests.engine.dynamics.support import BOLTER, GUARD, LASGUN, MARINE, RHINO, SECRET

CAPTAIN = MARINE | {"initiative": 5, "wounds": 3, "rules": ["Personnage indépendant"]}


def battle() -> DynamicsBattle:
    a = ArmySpec(
        "A",
        "Marines",
        (
            UnitSpec("tac", "Tactical", 100, 5, MARINE, (BOLTER,)),
            UnitSpec("cap", "Captain", 60, 1, CAPTAIN, (BOLTER,)),
        ),
    )
    b = ArmySpec(
        "B",
        "Guard",
        (
            UnitSpec("inf", "Infantry", 60, 10, GUARD, (LASGUN,)),
            UnitSpec("vet", "Veterans", 70, 5, GUARD | {"initiative": 4}, (LASGUN,)),
            UnitSpec("rhino", "Rhino", 50, 1, RHINO),
        ),
    )
    setup = DynamicsSetup(
        BattleSetup((a, b), points_limit=300, objectives=1),
        pilots={"B": 3},
        escorts={"cap": "tac"},
        transports={"rhino": ("vet",)},
    )
    assert setup.problems() == []
    game = DynamicsBattle.create(setup, secret=SECRET)
    game.execute(EndStep(), "A")
    game.execute(EndStep(), "B")
    game.execute(RollOff(), "A", dice=[4, 1])
    game.execute(ChooseFirst("A"), "A")
    for seat in ("A", "B"):
        for u in game.state.battle.seat_units(seat):
            game.execute(Deploy(u.id), seat)
        game.execute(EndStep(), seat)
    game.execute(StartTurn(), "A", dice=[1])
    for unit, order in (("tac", Order.FIRE), ("cap", Order.FIRE)):
        game.execute(PlaceOrder(unit, order), "A")
    for unit, order in (
        ("inf", Order.FIRE),
        ("vet", Order.FORCED_MARCH),
        ("rhino", Order.TACTICAL_MOVE),
    ):
        game.execute(PlaceOrder(unit, order), "B")
    game.execute(LockOrders(), "A")
    game.execute(LockOrders(), "B")
    return game


def code(game: DynamicsBattle, command: object, seat: str) -> str:
    with pytest.raises(Refusal) as err:
        game.execute(command, seat)  # type: ignore[arg-type]
    return err.value.code


def test_a_character_delays_to_its_escort_and_a_transport_to_its_passengers() -> None:
    game = battle()
    s = game.state
    assert s.setup is not None
    assert (s.setup.initiative("rhino"), s.setup.initiative("cap")) == (3, 5)  # pilot, own
    assert (s.stage, s.step, s.to_act) == (DynStage.REVEAL, 3, "B")
    assert code(game, RevealOrder("inf", target="tac", with_passengers=True), "B") == (
        "bad_declaration"  # only a transport
    )
    game.execute(RevealOrder("inf", target="tac"), "B")
    game.execute(RevealOrder("rhino", target="tac", with_passengers=True), "B")
    assert game.state.slots["rhino"].step == 4  # the passengers' pass [L223]
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("A"), "A")
    game.execute(RevealOrder("tac", target="inf"), "A")
    game.execute(RevealOrder("vet"), "B")
    # Initiative 5: the captain reveals at its own pass [L195]
    assert (game.state.step, game.state.to_act) == (5, "A")
    assert code(game, RevealOrder("cap", target="vet", delay_to="tac"), "A") == (
        "bad_declaration"  # not the escort's target
    )
    assert code(game, RevealOrder("cap", target="inf", delay_to="inf"), "A") == (
        "bad_declaration"  # not its escort
    )
    game.execute(RevealOrder("cap", target="inf", delay_to="tac"), "A")
    assert game.state.slots["cap"].step == 4
    # resolution starts at pass 4: nobody is left at 5
    assert (game.state.stage, game.state.step) == (DynStage.RESOLVE, 4)
    at_four = sorted(x.unit for x in game.state.slots.values() if x.step == 4)
    assert at_four == ["cap", "rhino", "tac", "vet"]


def test_a_character_not_delayed_acts_at_its_own_pass() -> None:
    game = battle()
    game.execute(RevealOrder("inf", target="tac"), "B")
    game.execute(RevealOrder("rhino", target="tac"), "B")
    assert game.state.slots["rhino"].step == 3
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("A"), "A")
    game.execute(RevealOrder("tac", target="inf"), "A")
    game.execute(RevealOrder("vet"), "B")
    game.execute(RevealOrder("cap", target="vet"), "A")
    assert (game.state.stage, game.state.step, game.state.to_act) == (DynStage.RESOLVE, 5, "A")
