"""The start of a common turn: PEN's start-of-turn tests once for both players (dawn,
regroup, then regeneration [L453] and poison [L665], rulings D19)."""

from typing import Any

from app.engine.dynamics import DynamicsBattle, DynamicsSetup, DynStage, Order
from app.engine.dynamics.commands import EndOrder, LockOrders, PlaceOrder, RevealOrder, StartTurn
from app.engine.pen.battle import ArmySpec, BattleSetup, UnitSpec, WeaponSpec
from app.engine.pen.battle.commands import ChooseFirst, Deploy, EndStep, RollOff, Shoot
from tests.engine.dynamics.support import MARINE, SECRET, replayed

OGRYN: dict[str, Any] = MARINE | {
    "ws": 4,
    "bs": 3,
    "strength": 5,
    "toughness": 5,
    "wounds": 3,
    "initiative": 2,
    "attacks": 3,
    "save": 5,
    "rules": ["Régénération"],
}
NEEDLE = WeaponSpec(
    "needle",
    {"kind": "ranged", "type": "heavy", "shots": 1, "strength": 1, "ap": 6}
    | {"properties": ["Empoisonnée (4+)"]},
)


def battle() -> DynamicsBattle:
    a = ArmySpec("A", "Alpha", (UnitSpec("snip", "Snipers", 50, 1, MARINE, (NEEDLE,)),))
    b = ArmySpec("B", "Beta", (UnitSpec("ogr", "Ogryns", 90, 2, OGRYN),))
    setup = DynamicsSetup(BattleSetup((a, b), points_limit=400, objectives=0))
    out = DynamicsBattle.create(setup, secret=SECRET)
    out.execute(EndStep(), "A")
    out.execute(EndStep(), "B")
    out.execute(RollOff(), "A", dice=[4, 1])
    out.execute(ChooseFirst("B"), "A")
    out.execute(Deploy("ogr"), "B")
    out.execute(EndStep(), "B")
    out.execute(Deploy("snip"), "A")
    out.execute(EndStep(), "A")
    return out


def test_regeneration_and_poison_once_per_common_turn() -> None:
    game = battle()
    game.execute(StartTurn(), "A", dice=[1])  # dawn 1: night; nothing else to test yet
    game.execute(PlaceOrder("snip", Order.FIRE), "A")
    game.execute(PlaceOrder("ogr", Order.FORCED_MARCH), "B")
    game.execute(LockOrders(), "A")
    game.execute(LockOrders(), "B")
    game.execute(RevealOrder("ogr"), "B")  # Initiative 2
    game.execute(RevealOrder("snip", target="ogr"), "A")  # Initiative 4
    # to hit 6; poisoned 4+ wounds on 4; save 5+ fails on 1: the worn Ogryn loses 1 W
    game.execute(Shoot("snip", "ogr", "needle", 10), "A", dice=[6, 4, 1])
    ogr = game.state.battle.units["ogr"]
    assert (ogr.models, ogr.wounds_taken, ogr.poisoned) == (2, 1, True)
    game.execute(EndOrder("snip"), "A")
    game.execute(EndOrder("ogr"), "B")
    assert (game.state.stage, game.state.turn) == (DynStage.TURN_START, 2)
    # turn 2: dawn 1 (night), regeneration 5 (5+: the W back), poison 6 (fails: 1 W again)
    new = game.execute(StartTurn(), "B", dice=[1, 5, 6])
    kinds = [e.event.kind for e in new]
    assert kinds[:3] == ["dawn_rolled", "regenerated", "poison_tested"]
    ogr = game.state.battle.units["ogr"]
    assert (ogr.models, ogr.wounds_taken, ogr.poisoned) == (2, 1, True)
    assert replayed(game).state == game.state
