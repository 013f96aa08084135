"""Désengagement [L392-L394] and Hit & Run [L416] (pen rulings B34): a squad still locked after
its combat leaves it with a normal move; the enemies left cannot sweep it, they consolidate.
Dice given by hand; replay equals the live state."""

from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.pen.battle import ArmySpec, BattleSetup, PenBattle, UnitSpec, command_from_json
from app.engine.pen.battle.commands import (
    Charge,
    ChooseFirst,
    Consolidate,
    Deploy,
    Disengage,
    EndPhase,
    EndStep,
    Fight,
    HitAndRun,
    Retreat,
    RollOff,
    StartTurn,
)
from app.engine.pen.battle.events import CombatResolved
from app.engine.pen.battle.views import legal_actions
from tests.engine.pen.battle.profiles import GUARD, MARINE


def locked_in_a_draw(rule: str) -> PenBattle:
    """A's five Marines (with ``rule``) charge B's five Guardsmen; every blow misses (ten
    Marine attacks with the charge's +1 A, five Guardsmen's): a draw, both still locked."""
    a = ArmySpec("A", "Alpha", (UnitSpec("tac", "Tac", 100, 5, MARINE | {"rules": [rule]}),))
    b = ArmySpec("B", "Beta", (UnitSpec("inf", "Guard", 50, 5, GUARD),))
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    battle.execute(Deploy("tac"), "A")
    battle.execute(EndStep(), "A")
    battle.execute(Deploy("inf"), "B")
    battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "inf", 4), "A")
    battle.execute(Fight("tac", "inf"), "A", dice=[1] * 15)
    assert battle.state.units["tac"].locked == {"inf"}
    return battle


def refused(battle: PenBattle, command: Any, seat: str) -> str:
    with pytest.raises(Refusal) as err:
        battle.execute(command, seat)
    return err.value.code


@pytest.mark.parametrize("rule", ["Désengagement", "Hit & Run"])
def test_a_squad_disengages_with_a_normal_move_and_the_enemy_consolidates(rule: str) -> None:
    battle = locked_in_a_draw(rule)
    offered = {"command": {"type": "disengage", "unit": "tac"}, "needs": ["inches"]}
    assert offered in legal_actions(battle.state, "A")
    assert refused(battle, Disengage("tac", 7), "A") == "too_far"  # a normal move: 6 ps
    assert refused(battle, Disengage("inf", 6), "B") == "cannot_disengage"  # no such rule
    done = battle.execute(command_from_json({"type": "disengage", "unit": "tac", "inches": 6}), "A")
    assert [e.event.kind for e in done] == ["disengaged"]  # no sweeping advance, no die
    tac, inf = battle.state.units["tac"], battle.state.units["inf"]
    assert (tac.locked, inf.locked, tac.retreating, tac.models, inf.models) == (
        frozenset(),
        frozenset(),
        False,
        5,
        5,
    )
    assert refused(battle, Retreat("inf"), "B") == "cannot_retreat"  # nothing left to leave
    assert refused(battle, Consolidate("tac", 3), "A") == "cannot_consolidate"  # it moved
    battle.execute(Consolidate("inf", 6), "B")  # the enemy left consolidates [L394]
    assert PenBattle.import_log(battle.export_json()).state == battle.state


def test_a_squad_without_its_combat_fought_does_not_disengage() -> None:
    a = ArmySpec(
        "A", "Alpha", (UnitSpec("tac", "Tac", 100, 5, MARINE | {"rules": ["Désengagement"]}),)
    )
    b = ArmySpec("B", "Beta", (UnitSpec("inf", "Guard", 50, 5, GUARD),))
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    battle.execute(Deploy("tac"), "A")
    battle.execute(EndStep(), "A")
    battle.execute(Deploy("inf"), "B")
    battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("tac", "inf", 4), "A")
    assert refused(battle, Disengage("tac", 6), "A") == "cannot_disengage"  # fight it first


def charged_hit_and_run() -> PenBattle:
    """A's five Marines with Hit & Run (I4) have charged B's five Guardsmen (I3)."""
    marines = MARINE | {"rules": ["Hit & Run"]}
    a = ArmySpec("A", "Alpha", (UnitSpec("hr", "Raiders", 100, 5, marines),))
    b = ArmySpec("B", "Beta", (UnitSpec("inf", "Guard", 50, 5, GUARD),))
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    battle.execute(Deploy("hr"), "A")
    battle.execute(EndStep(), "A")
    battle.execute(Deploy("inf"), "B")
    battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(EndPhase(), "A")
    battle.execute(Charge("hr", "inf", 4), "A")
    return battle


def test_hit_and_run_leaves_before_the_slower_enemy_strikes() -> None:
    battle = charged_hit_and_run()
    assert refused(battle, HitAndRun("inf"), "B") == "cannot_hit_and_run"  # no such rule
    assert {"command": {"type": "hit_and_run", "unit": "hr", "initiative": 0}} in (
        legal_actions(battle.state, "A")
    )
    battle.execute(command_from_json({"type": "hit_and_run", "unit": "hr"}), "A")
    # the Marines' ten attacks (I4) miss; at the end of their step the roll-off: the Guard
    # 1 + I3 = 4, the Marines 6 + I4 = 10: gone [L416]; the Guardsmen (I3) strike nobody
    done = battle.execute(Fight("hr", "inf"), "A", dice=[1] * 10 + [1, 6])
    resolved = next(e.event for e in done if isinstance(e.event, CombatResolved))
    assert (resolved.disengaged, resolved.retreating, resolved.winner) == (("hr",), (), "")
    hr, inf = battle.state.units["hr"], battle.state.units["inf"]
    assert (hr.locked, inf.locked, hr.retreating, hr.models, inf.models) == (
        frozenset(),
        frozenset(),
        False,
        5,
        5,
    )
    assert refused(battle, Consolidate("hr", 3), "A") == "cannot_consolidate"  # it moved
    battle.execute(Consolidate("inf", 6), "B")
    assert PenBattle.import_log(battle.export_json()).state == battle.state


def test_hit_and_run_stopped_fights_on_and_disengages_at_the_end_of_the_phase() -> None:
    battle = charged_hit_and_run()
    battle.execute(HitAndRun("hr"), "A")
    # the roll-off: the Guard 6 + 3 = 9, the Marines 1 + 4 = 5 (<=): they stay; the
    # Guardsmen's five attacks then miss too: a draw, still locked
    done = battle.execute(Fight("hr", "inf"), "A", dice=[1] * 10 + [6, 1] + [1] * 5)
    resolved = next(e.event for e in done if isinstance(e.event, CombatResolved))
    assert resolved.disengaged == ()
    assert battle.state.units["hr"].locked == {"inf"}
    battle.execute(Disengage("hr", 6), "A")  # it waits for the end of the phase [L416]
    assert not battle.state.units["hr"].locked
