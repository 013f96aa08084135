"""The result confirmed by both players (pen rulings B18): with the set-up's
``confirm_result``, the battle ends once every objective is reported and both seats have
confirmed; a report made again is a correction that asks both to confirm again. Without it (the
default, and every older log) the last report ends the battle."""

from dataclasses import replace
from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.pen.battle import ArmySpec, BattleSetup, PenBattle, Stage, UnitSpec
from tests.engine.pen.battle.profiles import GUARD


def at_scoring(confirm: bool) -> PenBattle:
    """Two quiet armies played to the end of round 5 (game length 1: it ends)."""
    a = ArmySpec("A", "Alpha", (UnitSpec("a1", "Guard", 50, 5, GUARD),))
    b = ArmySpec("B", "Beta", (UnitSpec("b1", "Guard", 50, 5, GUARD),))
    setup = BattleSetup((a, b), points_limit=500, objectives=2, confirm_result=confirm)
    battle = PenBattle.create(setup)
    steps: list[tuple[str, str, list[int] | None, dict[str, Any]]] = [
        ("A", "end_step", None, {}),
        ("B", "end_step", None, {}),
        ("A", "roll_off", [6, 1], {}),
        ("A", "choose_first", None, {"seat": "A"}),
        ("A", "deploy", None, {"unit": "a1"}),
        ("A", "end_step", None, {}),
        ("B", "deploy", None, {"unit": "b1"}),
        ("B", "end_step", None, {}),
    ]
    for round_ in range(1, 6):
        for seat in ("A", "B"):
            dawn = [6] if (seat, round_) == ("A", 1) else None  # day breaks in round 1
            end = [1] if (seat, round_) == ("B", 5) else None
            steps += [
                (seat, "start_turn", dawn, {}),
                (seat, "end_phase", None, {}),
                (seat, "end_phase", end, {}),
            ]
    for seat, kind, dice, fields in steps:
        battle.execute_json({"type": kind, **fields}, seat, dice=dice)
    assert battle.state.stage is Stage.SCORING
    return battle


def kinds(battle: PenBattle, seat: str) -> list[str]:
    return [a["command"]["type"] for a in battle.legal_actions(seat)]


def test_both_players_confirm_before_the_battle_ends() -> None:
    battle = at_scoring(confirm=True)
    with pytest.raises(Refusal) as refused:
        battle.execute_json({"type": "confirm_result"}, "A")
    assert refused.value.code == "objectives_unreported"
    battle.execute_json({"type": "report_control", "objective": "objective-1", "seat": "A"}, "A")
    battle.execute_json({"type": "report_control", "objective": "objective-2", "seat": "B"}, "B")
    assert battle.state.stage is Stage.SCORING
    assert "confirm_result" in kinds(battle, "A")
    assert "confirm_result" in kinds(battle, "B")
    battle.execute_json({"type": "confirm_result"}, "A")
    assert "confirm_result" not in kinds(battle, "A")
    assert battle.view("B")["confirmed"] == ["A"]
    # B says objective 2 was nobody's: A's confirmation no longer holds
    battle.execute_json({"type": "report_control", "objective": "objective-2", "seat": ""}, "B")
    assert battle.state.confirmed == frozenset()
    battle.execute_json({"type": "confirm_result"}, "B")
    assert battle.state.stage is Stage.SCORING
    battle.execute_json({"type": "confirm_result"}, "A")
    # 50 pts an objective [L821]: 50 to 0 is a win for A (the gap is at least X [L822])
    assert battle.state.stage is Stage.ENDED
    assert (dict(battle.state.result), battle.state.winner) == ({"A": 50, "B": 0}, "A")
    assert battle.status().confirmed
    assert PenBattle.import_log(battle.export_log()).state == battle.state


def test_without_the_option_the_last_report_ends_the_battle() -> None:
    battle = at_scoring(confirm=False)
    battle.execute_json({"type": "report_control", "objective": "objective-1", "seat": "A"}, "A")
    with pytest.raises(Refusal) as refused:
        battle.execute_json({"type": "confirm_result"}, "B")
    assert refused.value.code == "no_confirmation"
    assert "confirm_result" not in kinds(battle, "B")
    battle.execute_json({"type": "report_control", "objective": "objective-2", "seat": ""}, "B")
    assert battle.state.stage is Stage.ENDED
    assert battle.view("A")["confirm_result"] is False


def test_an_older_log_without_the_option_replays() -> None:
    battle = at_scoring(confirm=False)
    data = battle.export_log()
    first = data["events"][0]["event"]["setup"]
    assert first.pop("confirm_result") is False
    again = PenBattle.import_log(data)
    assert again.state == battle.state
    assert again.state.setup == replace(battle.state.setup, confirm_result=False)
