"""A squad may choose to retreat from a combat it did not lose, or lost with its morale test
passed; the enemy may then try a sweeping advance for the casualty difference [L1244],
[L1254], [L1256-L1258] (pen rulings B29). Dice given by hand; replay equals live."""

import pytest

from app.engine.match.errors import Refusal
from app.engine.pen.battle import ArmySpec, BattleSetup, PenBattle, UnitSpec, WeaponSpec
from app.engine.pen.battle.events import Retreated
from tests.engine.pen.battle.profiles import GUARD, MARINE

LASGUN = WeaponSpec("lasgun", {"kind": "ranged", "type": "rapid fire", "strength": 3})


def charged(guard_rules: tuple[str, ...] = ()) -> PenBattle:
    """Five Marines have charged five Guardsmen (A's turn 1, assault phase)."""
    a = ArmySpec("A", "Alpha", (UnitSpec("tac", "Tac", 100, 5, MARINE),))
    guard = GUARD | {"rules": list(guard_rules)}
    b = ArmySpec("B", "Beta", (UnitSpec("inf", "Guard", 50, 5, guard, (LASGUN,)),))
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    for seat, kind, dice, fields in (
        ("A", "end_step", None, {}),
        ("B", "end_step", None, {}),
        ("A", "roll_off", [6, 1], {}),
        ("A", "choose_first", None, {"seat": "A"}),
        ("A", "deploy", None, {"unit": "tac"}),
        ("A", "end_step", None, {}),
        ("B", "deploy", None, {"unit": "inf"}),
        ("B", "end_step", None, {}),
        ("A", "start_turn", [6], {}),
        ("A", "end_phase", None, {}),
        ("A", "charge", None, {"unit": "tac", "target": "inf", "distance": 3}),
    ):
        battle.execute_json({"type": kind, **fields}, seat, dice=dice)
    return battle


FIGHT = {"type": "fight", "unit": "tac", "target": "inf"}
# 5 Marines, 2 attacks each (charging): all miss; 5 Guardsmen strike back: all miss
DRAW = [1] * 10 + [1] * 5
# one Marine hit (WS4 vs WS3: 3+), wound 6 (S4 vs T3), save 1: one Guardsman falls; the 4
# left all miss; B lost by 1: morale at Ld 7 - 1, 1 + 1 passes [L1252]
LOST_BY_ONE = [6] + [1] * 9 + [6, 1] + [1] * 4 + [1, 1]


def retreat_actions(battle: PenBattle, seat: str) -> list[str]:
    return [
        a["command"]["unit"]
        for a in battle.legal_actions(seat)
        if a["command"]["type"] == "retreat"
    ]


def test_after_a_draw_either_side_may_retreat_and_nothing_is_swept() -> None:
    battle = charged()
    battle.execute_json(FIGHT, "A", dice=DRAW)
    state = battle.state
    assert state.units["inf"].locked == frozenset({"tac"})
    assert (state.units["tac"].combat_gap, state.units["inf"].combat_gap) == (0, 0)
    assert retreat_actions(battle, "A") == ["tac"]
    assert retreat_actions(battle, "B") == ["inf"]  # the opponent's choice, in A's turn
    # the casualty difference is 0: a sweep would take nothing, so no die is rolled
    envelopes = battle.execute_json({"type": "retreat", "unit": "inf"}, "B", dice=[])
    event = envelopes[-1].event
    assert isinstance(event, Retreated)
    assert (event.caught, event.models_left, event.roll.dice) == (False, 5, ())
    inf, tac = battle.state.units["inf"], battle.state.units["tac"]
    assert (inf.retreating, inf.locked, inf.models) == (True, frozenset(), 5)
    assert not tac.locked
    assert retreat_actions(battle, "A") == []  # the combat is over
    battle.execute_json({"type": "consolidate", "unit": "tac", "inches": 3}, "A")  # [L1260]
    assert PenBattle.import_log(battle.export_log()).state == battle.state


def test_a_loser_that_passed_its_test_may_retreat_and_be_swept() -> None:
    battle = charged()
    battle.execute_json(FIGHT, "A", dice=LOST_BY_ONE)
    state = battle.state
    assert state.units["inf"].models == 4
    assert state.units["inf"].locked == frozenset({"tac"})  # it passed: locked [L1252]
    assert (state.units["tac"].combat_gap, state.units["inf"].combat_gap) == (None, 1)
    assert retreat_actions(battle, "A") == []  # the winner does not break off
    with pytest.raises(Refusal) as refused:
        battle.execute_json({"type": "retreat", "unit": "tac"}, "A")
    assert refused.value.code == "cannot_retreat"
    with pytest.raises(Refusal) as refused:  # not B's squad
        battle.execute_json({"type": "retreat", "unit": "tac"}, "B")
    assert refused.value.code == "not_your_unit"
    # the sweep: 4 + I4 = 8 against 1 + I3 = 4: caught, 1 more casualty (the difference)
    battle.execute_json({"type": "retreat", "unit": "inf"}, "B", dice=[4, 1])
    inf = battle.state.units["inf"]
    assert (inf.models, inf.retreating, inf.locked) == (3, True, frozenset())
    assert battle.view("B")["units"][1]["tokens"] == ["retreating"]
    with pytest.raises(Refusal) as refused:  # once
        battle.execute_json({"type": "retreat", "unit": "inf"}, "B")
    assert refused.value.code == "cannot_retreat"
    assert PenBattle.import_log(battle.export_log()).state == battle.state


def test_a_squad_that_escapes_the_sweep_loses_nothing() -> None:
    battle = charged()
    battle.execute_json(FIGHT, "A", dice=LOST_BY_ONE)
    battle.execute_json({"type": "retreat", "unit": "inf"}, "B", dice=[1, 6])  # 5 < 9
    inf = battle.state.units["inf"]
    assert (inf.models, inf.retreating) == (4, True)


def test_they_shall_know_no_fear_is_never_caught_and_fearless_stays_locked() -> None:
    battle = charged(("Ils ne connaîtront pas la peur",))
    battle.execute_json(FIGHT, "A", dice=LOST_BY_ONE)
    battle.execute_json({"type": "retreat", "unit": "inf"}, "B", dice=[])  # [L418]
    assert (battle.state.units["inf"].models, battle.state.units["inf"].retreating) == (4, True)
    battle = charged(("Sans peur",))
    battle.execute_json(FIGHT, "A", dice=LOST_BY_ONE[:-2])  # it passes its test unrolled
    battle.execute_json({"type": "retreat", "unit": "inf"}, "B", dice=[4, 1])
    inf = battle.state.units["inf"]
    # caught, its fearless models are not destroyed and stay in the combat [L935]
    assert (inf.models, inf.retreating, inf.locked) == (4, False, frozenset({"tac"}))


def test_no_retreat_outside_the_combat_s_assault_phase() -> None:
    battle = charged()
    with pytest.raises(Refusal) as refused:  # locked by the charge, not fought yet
        battle.execute_json({"type": "retreat", "unit": "inf"}, "B")
    assert refused.value.code == "cannot_retreat"
    battle.execute_json(FIGHT, "A", dice=DRAW)
    battle.execute_json({"type": "end_phase"}, "A")  # B's turn: the choice has passed
    assert retreat_actions(battle, "B") == []
    assert battle.state.units["inf"].combat_gap is None


def test_the_difference_of_a_combat_fought_at_once_is_kept_too() -> None:
    """The same combat fought as one of several squads (an ``assign`` given, pen rulings
    B13): the loser keeps the difference of the morale test for its choice."""
    battle = charged()
    fight = FIGHT | {"assign": [{"unit": "tac", "target": "inf"}]}
    battle.execute_json(fight, "A", dice=LOST_BY_ONE)
    state = battle.state
    assert (state.units["tac"].combat_gap, state.units["inf"].combat_gap) == (None, 1)
    battle.execute_json({"type": "retreat", "unit": "inf"}, "B", dice=[4, 1])
    assert (battle.state.units["inf"].models, battle.state.units["inf"].retreating) == (3, True)
    assert PenBattle.import_log(battle.export_log()).state == battle.state
