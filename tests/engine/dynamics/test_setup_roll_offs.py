"""The set-up's roll-offs kept by Dynamics [L142]: who places infiltrators first and who makes
scout moves first are each rolled off (best 1D6, ties re-rolled) when both players have some;
the winner chooses who starts and the other waits until that player has ended the step
(dynamics rulings D1). With one side only, there is nothing to roll."""

from typing import Any

import pytest

from app.engine.dynamics import DynamicsBattle, DynamicsSetup, DynStage
from app.engine.match.errors import Refusal
from app.engine.pen.battle import ArmySpec, BattleSetup, UnitSpec
from app.engine.pen.battle.commands import (
    ChooseFirst,
    Deploy,
    EndStep,
    RollOff,
    ScoutMove,
)
from app.engine.pen.battle.state import Stage
from tests.engine.dynamics.support import BOLTER, GUARD, LASGUN, MARINE, SECRET, replayed

INFILTRATOR: dict[str, Any] = MARINE | {"rules": ["Infiltration"]}
SCOUT: dict[str, Any] = GUARD | {"rules": ["Scout"]}


def deployed(*, guard_infiltrates: bool = True) -> DynamicsBattle:
    """Each army: a squad, an infiltrating squad (the Guard's optional) and a scout squad;
    the main armies deployed (A first); the battle at the infiltration step."""
    a = ArmySpec(
        "A",
        "Marines",
        (
            UnitSpec("tac", "Tactical", 100, 5, MARINE, (BOLTER,), troops=True),
            UnitSpec("inf_a", "Scouts", 60, 5, INFILTRATOR, (BOLTER,)),
            UnitSpec("sc_a", "Bikers", 60, 5, MARINE | {"rules": ["Scout"]}, (BOLTER,)),
        ),
    )
    sneaky = GUARD | {"rules": ["Infiltration"]} if guard_infiltrates else GUARD
    b = ArmySpec(
        "B",
        "Guard",
        (
            UnitSpec("gd", "Infantry", 60, 10, GUARD, (LASGUN,), troops=True),
            UnitSpec("inf_b", "Ratlings", 60, 5, sneaky, (LASGUN,)),
            UnitSpec("sc_b", "Rough riders", 60, 5, SCOUT, (LASGUN,)),
        ),
    )
    setup = DynamicsSetup(BattleSetup((a, b), points_limit=400, objectives=1))
    game = DynamicsBattle.create(setup, secret=SECRET)
    game.execute(EndStep(), "A")
    game.execute(EndStep(), "B")
    game.execute(RollOff(), "A", dice=[4, 1])
    game.execute(ChooseFirst("A"), "A")
    for seat, units in (("A", ("tac", "sc_a")), ("B", ("gd", "sc_b"))):
        for unit in units:
            game.execute(Deploy(unit), seat)
        if not guard_infiltrates and seat == "B":
            game.execute(Deploy("inf_b"), seat)
        game.execute(EndStep(), seat)
    return game


def code(game: DynamicsBattle, command: object, seat: str) -> str:
    with pytest.raises(Refusal) as err:
        game.execute(command, seat)  # type: ignore[arg-type]
    return err.value.code


def offered(game: DynamicsBattle, seat: str) -> list[object]:
    return [e["command"] for e in game.legal_actions(seat)]


def test_infiltrators_then_scouts_each_have_their_roll_off() -> None:
    game = deployed()
    assert game.state.battle.stage is Stage.INFILTRATE
    assert code(game, Deploy("inf_a"), "A") == "roll_off_first"
    assert offered(game, "A") == offered(game, "B") == [{"type": "roll_off"}]
    game.execute(RollOff(), "B", dice=[2, 5])  # B wins the infiltrators' roll-off
    assert game.state.placing_winner == {"infiltrate": "B"}
    assert code(game, ChooseFirst("A"), "A") == "not_your_choice"
    assert offered(game, "B") == [
        {"type": "choose_first", "seat": "A"},
        {"type": "choose_first", "seat": "B"},
    ]
    game.execute(ChooseFirst("A"), "B")  # B lets A place first, to see where they go
    assert code(game, Deploy("inf_b"), "B") == "not_your_turn"
    assert code(game, EndStep(), "B") == "not_your_turn"
    assert offered(game, "B") == []
    game.execute(Deploy("inf_a"), "A")
    game.execute(EndStep(), "A")
    assert offered(game, "B") == [{"type": "deploy", "unit": "inf_b"}]
    game.execute(Deploy("inf_b"), "B")
    game.execute(EndStep(), "B")
    # the scout moves: their own roll-off, a tie re-rolled, A wins and goes first
    assert game.state.battle.stage is Stage.SCOUT
    assert code(game, ScoutMove("sc_b", 6), "B") == "roll_off_first"
    game.execute(RollOff(), "A", dice=[3, 3, 6, 1])
    game.execute(ChooseFirst("A"), "A")
    assert code(game, ScoutMove("sc_b", 6), "B") == "not_your_turn"
    game.execute(ScoutMove("sc_a", 6), "A")
    game.execute(EndStep(), "A")
    game.execute(ScoutMove("sc_b", 6), "B")
    game.execute(EndStep(), "B")
    assert game.state.stage is DynStage.TURN_START
    assert game.state.placing_first == {"infiltrate": "A", "scout": "A"}
    rolls = [e.event for e in game.envelopes if e.event.kind == "placing_roll_off"]
    assert [(r.stage, r.winner, len(r.roll.dice)) for r in rolls] == [  # type: ignore[attr-defined]
        ("infiltrate", "B", 2),
        ("scout", "A", 4),
    ]
    assert replayed(game).state == game.state


def test_one_side_with_infiltrators_places_them_without_a_roll_off() -> None:
    game = deployed(guard_infiltrates=False)
    assert game.state.battle.stage is Stage.INFILTRATE
    assert {"type": "roll_off"} not in offered(game, "A")
    game.execute(Deploy("inf_a"), "A")
    game.execute(EndStep(), "A")
    game.execute(EndStep(), "B")
    assert game.state.battle.stage is Stage.SCOUT
    assert game.state.placing_first == {}
    assert offered(game, "B") == [{"type": "roll_off"}]  # both have scouts
