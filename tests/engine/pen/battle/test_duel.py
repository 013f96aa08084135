"""Duels [L1223-L1228] (pen rulings B36): a character that charged challenges an enemy
character of the same combat; accepted, the two fight each other only; refused, the challenged
character strikes at I1 until the end of the turn. Dice given by hand: how many dice a fight
takes says who struck. Replay equals the live state."""

from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.pen.battle import ArmySpec, BattleSetup, PenBattle, UnitSpec, command_from_json
from app.engine.pen.battle.commands import (
    AnswerChallenge,
    Challenge,
    Charge,
    ChooseFirst,
    Deploy,
    EndPhase,
    EndStep,
    Fight,
    RollOff,
    StartTurn,
)
from app.engine.pen.battle.views import legal_actions
from tests.engine.pen.battle.profiles import GUARD, MARINE

IC = ["Personnage indépendant"]
CAPTAIN = MARINE | {"ws": 5, "wounds": 3, "attacks": 3, "initiative": 5, "rules": IC}
COMMISSAR = GUARD | {"wounds": 2, "attacks": 2, "leadership": 9, "rules": IC}


def refused(battle: PenBattle, command: Any, seat: str) -> str:
    with pytest.raises(Refusal) as err:
        battle.execute(command, seat)
    return err.value.code


def charged(commissar: dict[str, Any], *, squad: bool = True) -> PenBattle:
    """A's Captain (and five Marines when ``squad``) charge B's Commissar."""
    a_units = [UnitSpec("cap", "Captain", 90, 1, CAPTAIN)]
    if squad:
        a_units.append(UnitSpec("tac", "Tac", 100, 5, MARINE))
    a = ArmySpec("A", "Alpha", tuple(a_units))
    b = ArmySpec(
        "B",
        "Beta",
        (UnitSpec("com", "Commissar", 40, 1, commissar), UnitSpec("inf", "Guard", 60, 10, GUARD)),
    )
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    for u in a_units:
        battle.execute(Deploy(u.id), "A")
    battle.execute(EndStep(), "A")
    battle.execute(Deploy("com"), "B")
    battle.execute(Deploy("inf"), "B")
    battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("cap", "com", 4), "A")
    if squad:
        battle.execute(Charge("tac", "com", 4), "A")
    return battle


def test_an_accepted_duel_keeps_the_others_out_of_it() -> None:
    battle = charged(COMMISSAR)
    assert {"command": {"type": "challenge", "unit": "cap", "target": "com"}} in legal_actions(
        battle.state, "A"
    )
    assert refused(battle, Challenge("tac", "com"), "A") == "cannot_challenge"  # no character
    battle.execute(command_from_json({"type": "challenge", "unit": "cap", "target": "com"}), "A")
    assert refused(battle, Fight("tac", "com"), "A") == "answer_challenge"
    answers = [a for a in legal_actions(battle.state, "B") if a["command"]["type"] != "end_phase"]
    assert [a["command"] for a in answers] == [
        {"type": "answer_challenge", "unit": "com", "accept": True},
        {"type": "answer_challenge", "unit": "com", "accept": False},
    ]
    battle.execute(AnswerChallenge("com", True), "B")
    assert (battle.state.units["cap"].duel, battle.state.units["com"].duel) == ("com", "cap")
    # the Captain's 3 + 1 attacks (I5) all miss, the Marines strike nobody (their only enemy
    # fights a duel [L1226]), the Commissar's 2 attacks (I3) on the Captain miss: six dice
    battle.execute(Fight("tac", "com"), "A", dice=[1] * 6)
    units = battle.state.units
    assert (units["cap"].models, units["tac"].models, units["com"].models) == (1, 5, 1)
    assert PenBattle.import_log(battle.export_json()).state == battle.state


def test_a_refused_duel_makes_the_challenged_strike_at_i1() -> None:
    battle = charged(COMMISSAR | {"initiative": 6}, squad=False)
    battle.execute(Challenge("cap", "com"), "A")
    battle.execute(AnswerChallenge("com", False), "B")
    assert battle.state.units["com"].refused_duel
    # the Commissar (I6) strikes at I1 [L1228]: the Captain first; 4 attacks hit on 3+
    # (WS5 vs WS3) with two 6s, wound T3 with S4 on 3+ (6, 6), the 5+ save against a close
    # combat weapon's AP5 is a 6+ (1, 1): the W2 Commissar dies before striking
    battle.execute(Fight("cap", "com"), "A", dice=[6, 6, 1, 1, 6, 6, 1, 1])
    assert not battle.state.units["com"].alive
    battle.execute(EndPhase(), "A")
    assert not battle.state.units["com"].refused_duel  # until the end of the turn
    assert PenBattle.import_log(battle.export_json()).state == battle.state
