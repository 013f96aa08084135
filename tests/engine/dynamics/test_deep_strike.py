"""A deep-strike arrival: the reserve roll at the start of the common turn, the scatter of the
PEN engine when it is placed, then the Deep Strike order only, declared run or shoot [L122-L126],
[L177]; it cannot charge (PEN [L900])."""

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
    Arrive,
    Charge,
    ChooseFirst,
    DeclareReserve,
    Deploy,
    EndStep,
    RollOff,
)
from app.engine.pen.battle.state import Place, ReserveMode, Speed
from tests.engine.dynamics.support import BOLTER, MARINE, SECRET, setup


def deep_setup() -> DynamicsSetup:
    """The test armies, A's Devastators swapped for Assault Marines that deep strike."""
    base = setup()
    a, b = base.battle.armies
    jumpers = UnitSpec(
        "dev", "Assault", 80, 3, MARINE | {"rules": ["Frappe en profondeur"]}, (BOLTER,)
    )
    a = ArmySpec("A", a.name, (a.units[0], jumpers))
    return DynamicsSetup(BattleSetup((a, b), points_limit=300, objectives=1), pilots={"B": 3})


def test_a_deep_strike_arrival_scatters_and_takes_the_deep_strike_order() -> None:
    game = DynamicsBattle.create(deep_setup(), secret=SECRET)
    game.execute(DeclareReserve("dev", ReserveMode.DEEP_STRIKE), "A")
    game.execute(EndStep(), "A")
    game.execute(EndStep(), "B")
    game.execute(RollOff(), "A", dice=[5, 2])
    game.execute(ChooseFirst("A"), "A")
    for seat in ("A", "B"):
        for u in game.state.battle.seat_units(seat):
            if u.place is Place.UNDEPLOYED:
                game.execute(Deploy(u.id), seat)
        game.execute(EndStep(), seat)
    # dawn 1 (night); dev's reserve roll 5 on turn 1 (5+): it arrives; A alone places
    game.execute(StartTurn(), "B", dice=[1, 5])
    assert (game.state.stage, game.state.to_act) == (DynStage.ARRIVALS, "A")
    # the scatter die 4 (an arrow), 2D6 = 3 + 4: it lands 7 ps away
    new = game.execute(Arrive("dev", Speed.NORMAL, 0), "A", dice=[4, 3, 4])
    arrived = next(e.event for e in new if e.event.kind == "unit_arrived")
    assert arrived.scatter == 7  # type: ignore[attr-defined]
    assert game.state.stage is DynStage.PLACEMENT
    with pytest.raises(Refusal) as err:
        game.execute(PlaceOrder("dev", Order.FIRE), "A")
    assert err.value.code == "deep_strike_only"  # [L177]
    game.execute(PlaceOrder("dev", Order.DEEP_STRIKE), "A")
    game.execute(PlaceOrder("tac", Order.FIRE), "A")
    for unit in ("inf", "vet", "rhino"):
        game.execute(PlaceOrder(unit, Order.FORCED_MARCH), "B")
    game.execute(LockOrders(), "A")
    game.execute(LockOrders(), "B")
    game.execute(RevealOrder("inf"), "B")
    game.execute(RevealOrder("rhino"), "B")
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("A"), "A")
    with pytest.raises(Refusal) as err:  # run or shoot [L124]
        game.execute(RevealOrder("dev", target="inf"), "A")
    assert err.value.code == "bad_declaration"
    game.execute(RevealOrder("dev", mode="run"), "A")
    assert game.state.slots["dev"].declaration.mode == "run"
    game.execute(RevealOrder("vet"), "B")
    game.execute(RevealOrder("tac", target="inf"), "A")
    game.execute(RollAdvantage(), "A", dice=[6, 1])
    game.execute(ChooseStarter("A"), "A")
    with pytest.raises(Refusal) as err:  # a deep striker does not charge
        game.execute(Charge("dev", "inf", 3), "A")
    assert err.value.code == "no_assault"
    game.execute(EndOrder("dev"), "A")
