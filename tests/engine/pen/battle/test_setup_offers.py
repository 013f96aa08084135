"""The set-up's legal actions are all taken by the battle: the end of a step is offered only
when the battle accepts it (not to the second deployer while the first deploys [L832], not
with squads still to deploy), and the squads to deploy are offered instead (an infiltrator in its
own step [L422]).

Each test plays a whole set-up by following the offers alone and, at every step, sends each
offered complete command to a copy of the battle: every one is taken."""

from typing import Any

from app.engine.pen.battle import (
    ArmySpec,
    BattleSetup,
    PenBattle,
    Place,
    Stage,
    UnitSpec,
    WeaponSpec,
    command_from_json,
)
from app.engine.pen.battle.commands import ChooseFirst, Embark, EndStep, RollOff
from tests.engine.pen.battle.profiles import MARINE

RHINO: dict[str, Any] = {
    "armour": {"front": 11, "side": 11, "rear": 10},
    "hull_points": 3,
    "types": ["transport"],
}
BOLTER = WeaponSpec(
    "bolter", {"kind": "ranged", "type": "rapid fire", "shots": 1, "strength": 4, "ap": 5}
)
END_STEP = {"type": "end_step"}


def armies() -> tuple[ArmySpec, ArmySpec]:
    """A: two squads and an infiltrator; B: a Rhino, a squad to carry and a Scout squad."""
    a = ArmySpec(
        "A",
        "Alpha",
        (
            UnitSpec("tac", "Tac", 100, 5, MARINE, (BOLTER,)),
            UnitSpec("dev", "Dev", 100, 5, MARINE, (BOLTER,)),
            UnitSpec("inf", "Infiltrators", 80, 5, MARINE | {"rules": ["Infiltration"]}),
        ),
    )
    b = ArmySpec(
        "B",
        "Beta",
        (
            UnitSpec("t", "Rhino", 50, 1, RHINO, capacity=10),
            UnitSpec("vet", "Veterans", 100, 5, MARINE, (BOLTER,)),
            UnitSpec("sc", "Scouts", 80, 5, MARINE | {"rules": ["Scout"]}, (BOLTER,)),
        ),
    )
    return a, b


def replayed(battle: PenBattle) -> PenBattle:
    return PenBattle.import_log(battle.export_json())


def offered(battle: PenBattle, seat: str) -> list[dict[str, Any]]:
    """The seat's complete commands (those without ``needs``)."""
    return [a["command"] for a in battle.actions(seat) if "needs" not in a]


def all_taken(battle: PenBattle) -> list[tuple[str, dict[str, Any]]]:
    """Send every complete command offered to either seat to its own copy of the battle: each
    one is taken (a refusal fails the test with its code). Returns what was offered."""
    seen = []
    for seat in ("A", "B"):
        for command in offered(battle, seat):
            replayed(battle).execute(command_from_json(command), seat)  # raises if refused
            seen.append((seat, command))
    return seen


def undeployed(battle: PenBattle) -> set[str]:
    return {u.id for u in battle.state.units.values() if u.place is Place.UNDEPLOYED}


def play_setup(battle: PenBattle, first: str) -> list[tuple[str, dict[str, Any]]]:
    """Through reserves, the roll-off (A wins and names ``first``), deployment, infiltration
    and scouting, by the offers alone; every offer checked at each step."""
    seen = all_taken(battle)
    battle.execute(EndStep(), "A")  # no reserves
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst(first), "A")
    while battle.state.stage in (Stage.DEPLOY, Stage.INFILTRATE, Stage.SCOUT):
        seen += all_taken(battle)
        seat = next(s for s in ("A", "B") if offered(battle, s))
        placements = [c for c in offered(battle, seat) if c != END_STEP]
        if seat == "B" and battle.state.units["t"].on_table and "vet" in undeployed(battle):
            # deployed inside its transport [L276]: the end of the step waits for it
            assert END_STEP not in offered(battle, seat)
            battle.execute(Embark("vet", "t"), seat)
            continue
        # deploy a squad, else end the step
        command = (placements or [END_STEP])[0]
        battle.execute(command_from_json(command), seat)
    assert battle.state.stage is Stage.BATTLE
    return seen


def test_the_second_deployer_is_not_offered_the_end_of_the_deployment() -> None:
    battle = PenBattle.create(BattleSetup(armies(), points_limit=400, objectives=0))
    seen = play_setup(battle, first="A")
    # while A deploys, B is offered nothing: neither the end of the step nor a squad
    deploying_a = [c for s, c in seen if s == "A" and c["type"] == "deploy"]
    assert {c["unit"] for c in deploying_a} == {"tac", "dev", "inf"}
    assert battle.state.units["vet"].transport == "t"
    assert battle.state.units["inf"].on_table  # deployed in the infiltration step


def test_the_end_of_a_step_is_offered_only_with_nothing_left_to_deploy() -> None:
    battle = PenBattle.create(BattleSetup(armies(), points_limit=400, objectives=0))
    battle.execute(EndStep(), "A")  # no reserves
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("B"), "A")
    # B deploys first: A is offered nothing yet, B its squads but not the end of the step
    assert battle.actions("A") == []
    assert END_STEP not in offered(battle, "B")
    assert {"type": "deploy", "unit": "t"} in offered(battle, "B")
    battle.execute(command_from_json({"type": "deploy", "unit": "t"}), "B")
    assert END_STEP not in offered(battle, "B")  # the Veterans and the Scouts are left
    battle.execute(Embark("vet", "t"), "B")  # inside the Rhino [L276]
    assert offered(battle, "B") == [{"type": "deploy", "unit": "sc"}]
    battle.execute(command_from_json({"type": "deploy", "unit": "sc"}), "B")
    assert END_STEP in offered(battle, "B")
    assert all_taken(battle)
    battle.execute(EndStep(), "B")
    # now A: its infiltrator waits for its own step [L422]
    assert {"type": "deploy", "unit": "inf"} not in offered(battle, "A")
    assert offered(battle, "B") == []
    assert all_taken(battle)


def test_every_set_up_offer_is_taken_whoever_deploys_first() -> None:
    for first in ("A", "B"):
        battle = PenBattle.create(BattleSetup(armies(), points_limit=400, objectives=0))
        seen = play_setup(battle, first=first)
        assert sum(1 for _, c in seen if c == END_STEP) >= 4  # reserves, deploy, infiltrate...
