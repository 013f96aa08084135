"""A small Dynamics battle for the tests: Marines (A) against Guard (B)."""

from typing import Any

from app.engine.dynamics import DynamicsBattle, DynamicsSetup
from app.engine.pen.battle import ArmySpec, BattleSetup, UnitSpec, WeaponSpec
from app.engine.pen.battle.commands import ChooseFirst, Deploy, EndStep, RollOff
from app.engine.pen.battle.state import Place

SECRET = "a match secret the server keeps"

MARINE: dict[str, Any] = {
    "ws": 4,
    "bs": 4,
    "strength": 4,
    "toughness": 4,
    "wounds": 1,
    "initiative": 4,
    "attacks": 1,
    "leadership": 8,
    "save": 3,
}
GUARD: dict[str, Any] = MARINE | {
    "ws": 3,
    "bs": 3,
    "strength": 3,
    "toughness": 3,
    "initiative": 3,
    "leadership": 7,
    "save": 5,
}
BOLTER = WeaponSpec(
    "bolter", {"kind": "ranged", "type": "rapid fire", "shots": 1, "strength": 4, "ap": 5}
)
LASGUN = WeaponSpec("lasgun", {"kind": "ranged", "type": "rapid fire", "shots": 1, "strength": 3})
LASCANNON = WeaponSpec(
    "lascannon", {"kind": "ranged", "type": "heavy", "shots": 1, "strength": 9, "ap": 2}
)
RHINO: dict[str, Any] = {"armour": {"front": 11, "side": 11, "rear": 10}, "hull_points": 3}


def setup(**kw: Any) -> DynamicsSetup:
    a = ArmySpec(
        "A",
        "Marines",
        (
            UnitSpec("tac", "Tactical", 100, 5, MARINE, (BOLTER,), troops=True),
            UnitSpec("dev", "Devastators", 80, 3, MARINE, (LASCANNON,)),
        ),
    )
    b = ArmySpec(
        "B",
        "Guard",
        (
            UnitSpec("inf", "Infantry", 60, 10, GUARD, (LASGUN,), troops=True),
            UnitSpec("vet", "Veterans", 70, 5, GUARD | {"initiative": 4}, (LASGUN,)),
            UnitSpec("rhino", "Rhino", 50, 1, RHINO),
        ),
    )
    battle = BattleSetup((a, b), points_limit=300, objectives=1)
    return DynamicsSetup(battle, pilots={"B": 3}, **kw)


def deployed(**kw: Any) -> DynamicsBattle:
    """Created, no reserves, deployment roll-off won by A who deploys first: turn 1 starts."""
    battle = DynamicsBattle.create(setup(**kw), secret=SECRET)
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "B", dice=[5, 2])
    battle.execute(ChooseFirst("A"), "A")
    for seat in ("A", "B"):
        for u in battle.state.battle.seat_units(seat):
            if u.place is Place.UNDEPLOYED:
                battle.execute(Deploy(u.id), seat)
        battle.execute(EndStep(), seat)
    return battle


def replayed(battle: DynamicsBattle) -> DynamicsBattle:
    return DynamicsBattle.import_log(battle.match.export_json())
