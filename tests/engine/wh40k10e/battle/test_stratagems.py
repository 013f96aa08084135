"""The 11 core Stratagems: costs, timing windows, targets, limits and effects.

[L3262-3540], note 2 §2.5 (costs 1/2/1 and 1,1,1,1,1,1,1,2 in reading order, table T6).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.engine.wh40k10e.battle import CORE_STRATAGEMS, Formation, Seat
from app.engine.wh40k10e.battle.commands import (
    CompleteCharge,
    Consolidate,
    DeclareCharge,
    EndPhase,
    Fight,
    Move,
    ReportEngagement,
    Shoot,
    StartMove,
    UseStratagem,
)
from app.engine.wh40k10e.battle.state import Effect, MoveMode, Phase
from tests.engine.wh40k10e.battle.table import Table, charge, goto, phase


def test_costs_and_timings_are_the_cards() -> None:
    table = {s.id: (s.cp, str(s.timing)) for s in CORE_STRATAGEMS}
    assert table == {
        "command_reroll": (1, "either"),
        "counter_offensive": (2, "either"),
        "epic_challenge": (1, "either"),
        "insane_bravery": (1, "your_turn"),
        "grenade": (1, "your_turn"),
        "tank_shock": (1, "your_turn"),
        "fire_overwatch": (1, "opponent_turn"),
        "rapid_ingress": (1, "opponent_turn"),
        "go_to_ground": (1, "opponent_turn"),
        "smokescreen": (1, "opponent_turn"),
        "heroic_intervention": (2, "opponent_turn"),
    }


def test_not_enough_cp_is_refused_with_the_numbers(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    assert t.state.players[Seat.A].cp == 1
    t.do("A", UseStratagem("grenade", unit="a-int", enemy="b-boyz"), dice=[4, 4, 4, 1, 1, 1])
    exc = t.refused("A", UseStratagem("command_reroll", note="hit roll"), "not_enough_cp")
    assert exc.message == "Command Re-roll costs 1 CP and you have 0 CP"
    assert exc.details == {"cost": 1, "cp": 0}


def test_grenade_six_dice_each_4_plus_is_a_mortal_wound(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    t.refused("A", UseStratagem("grenade", unit="a-hell", enemy="b-boyz"), "stratagem_bad_target")
    t.refused("B", UseStratagem("grenade", unit="b-boyz", enemy="a-int"), "stratagem_wrong_time")
    t.do("A", UseStratagem("grenade", unit="a-int", enemy="b-boyz"), dice=[4, 6, 3, 5, 1, 2])
    assert t.unit("b-boyz").models_alive == 7  # three 4+ -> 3 mortal wounds [L3398-3399]
    assert t.state.players[Seat.A].cp == 0
    t.do("A", Shoot("a-int", ("b-boyz",)))  # Grenade is not the unit's shooting (ruling)
    t.check_replay()


def test_once_per_phase_and_overwatch_once_per_turn(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t, first="B")
    goto(t, "A", "movement", round_=1)
    assert t.state.players[Seat.B].cp == 2
    t.do("A", Move("a-int", MoveMode.NORMAL))
    t.do("B", UseStratagem("fire_overwatch", unit="b-boyz", enemy="a-int"))
    assert Effect.OVERWATCH in t.unit("b-boyz").effects
    t.do("A", Move("a-hell", MoveMode.NORMAL))
    t.refused(
        "B",
        UseStratagem("fire_overwatch", unit="b-nobz", enemy="a-hell"),
        "stratagem_used_this_phase",
    )
    goto(t, "A", "charge")
    t.do("A", DeclareCharge("a-hell", ("b-nobz",)), dice=[5, 5])
    t.refused(
        "B",
        UseStratagem("fire_overwatch", unit="b-nobz", enemy="a-hell"),
        "overwatch_used_this_turn",
    )  # [L3444]


def test_fire_overwatch_needs_a_trigger_and_an_eligible_unit(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "movement", round_=1)
    t.refused(
        "B", UseStratagem("fire_overwatch", unit="b-boyz", enemy="a-int"), "stratagem_no_trigger"
    )
    t.do("A", Move("a-int", MoveMode.NORMAL))
    t.refused("B", UseStratagem("fire_overwatch", unit="b-boyz", enemy="a-hell"), "bad_target")
    t.do("B", ReportEngagement("b-boyz", ("a-term",)))
    t.refused(
        "B", UseStratagem("fire_overwatch", unit="b-boyz", enemy="a-int"), "stratagem_bad_target"
    )
    t.refused(
        "A", UseStratagem("fire_overwatch", unit="a-hell", enemy="b-boyz"), "stratagem_wrong_time"
    )


def test_go_to_ground_and_smokescreen_after_targets_are_selected(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t, {"A": Formation()})  # the Rhino is deployed empty -> destroyed
    goto(t, "B", "shooting", round_=1)
    t.do("B", Shoot("b-boyz", ("a-int",)))
    t.refused("A", UseStratagem("go_to_ground", unit="a-hell"), "stratagem_bad_target")
    t.do("A", UseStratagem("go_to_ground", unit="a-int"))
    assert Effect.GO_TO_GROUND in t.unit("a-int").effects
    t.do("B", EndPhase())
    assert Effect.GO_TO_GROUND not in t.unit("a-int").effects  # until the end of the phase


def test_command_reroll_of_a_charge_roll_and_of_a_desperate_escape_die(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "charge", round_=1)
    t.refused("A", UseStratagem("command_reroll"), "nothing_to_reroll")
    t.do("A", DeclareCharge("a-int", ("b-boyz",)), dice=[1, 2])
    t.do("A", UseStratagem("command_reroll"), dice=[6, 5])  # both dice again [L662-664]
    assert charge(t).roll == 11
    t.do("A", CompleteCharge("a-int", True, needed=9))
    goto(t, "A", "movement", round_=2)
    t.do("A", Move("a-int", MoveMode.FALL_BACK, crossing=2), dice=[1, 6])
    assert t.unit("a-int").models_alive == 4
    t.do("A", UseStratagem("command_reroll", die=0), dice=[5])  # the failed die passes now
    assert t.unit("a-int").models_alive == 5
    t.refused("A", UseStratagem("command_reroll"), "stratagem_used_this_phase")
    t.check_replay()


def test_heroic_intervention_charges_without_the_charge_bonus(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t, first="B")
    goto(t, "A", "charge", round_=1)
    assert t.state.players[Seat.B].cp == 2
    t.do("A", DeclareCharge("a-int", ("b-boyz",)), dice=[6, 6])
    t.refused(
        "B",
        UseStratagem("heroic_intervention", unit="b-nobz", enemy="a-int"),
        "stratagem_no_trigger",
    )
    t.do("A", CompleteCharge("a-int", True))
    t.refused(
        "B",
        UseStratagem("heroic_intervention", unit="b-wagon", enemy="a-int"),
        "stratagem_bad_target",
    )  # a Vehicle only if it is a Walker [L3520-3521]
    t.do("B", UseStratagem("heroic_intervention", unit="b-nobz", enemy="a-int"), dice=[4, 4])
    assert charge(t).heroic
    t.refused("A", EndPhase(), "charge_in_progress")
    t.do("B", CompleteCharge("b-nobz", True))
    assert t.unit("b-nobz").charge_moved
    assert not t.unit("b-nobz").charge_bonus  # [L3522-3524]
    assert t.state.players[Seat.B].cp == 0
    t.do("A", EndPhase())
    assert phase(t) is Phase.FIGHT
    t.do("A", Fight("a-int"))  # Fights First: only A's chargers
    t.do("A", Consolidate("a-int"))
    t.do("B", Fight("b-boyz"))


def test_counter_offensive_and_epic_challenge(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(
        t,
        {"A": Formation(attachments=(("a-cap", "a-int"),), embarked=(("a-tac", "a-rhino"),))},
        first="B",
    )
    goto(t, "A", "charge", round_=1)
    t.do("A", DeclareCharge("a-int", ("b-boyz",)), dice=[6, 6])
    t.do("A", CompleteCharge("a-int", True))
    t.do("B", ReportEngagement("b-nobz", ("a-hell",)))
    t.do("A", EndPhase())
    t.do("A", Fight("a-cap", ("b-boyz",)))
    t.refused("A", UseStratagem("epic_challenge", unit="a-cap"), "stratagem_bad_target")  # no
    # enemy Attached unit in Engagement Range
    t.do("A", Consolidate("a-cap"))
    # just after an enemy unit has fought, B's Nobz fight next (2 CP) [L3308-3323]
    t.do("B", UseStratagem("counter_offensive", unit="b-nobz"))
    t.refused("B", Fight("b-boyz"), "must_fight_next")
    t.do("B", Fight("b-nobz"))
    t.do("B", Consolidate("b-nobz"))
    # then A: Hellblasters, then B: Boyz (alternation resumes)
    t.do("A", Fight("a-hell"))


@pytest.mark.parametrize(("strength", "dice", "mortal"), [(4, [5, 6, 1, 2], 2), (6, [5] * 8, 6)])
def test_tank_shock(
    new_table: Callable[..., Table],
    setup_battle: Callable[..., None],
    strength: Any,
    dice: Any,
    mortal: Any,
) -> None:
    """[L3414-3420]: S dice (+2 if S > T), each 5+ a mortal wound, at most 6."""
    t = new_table()
    setup_battle(t)
    goto(t, "A", "charge", round_=1)
    t.do("A", DeclareCharge("a-rhino", ("b-boyz",)), dice=[6, 6])
    t.do("A", CompleteCharge("a-rhino", True))
    t.refused(
        "A", UseStratagem("tank_shock", unit="a-rhino", enemy="b-nobz", strength=6), "bad_target"
    )
    t.do(
        "A",
        UseStratagem("tank_shock", unit="a-rhino", enemy="b-boyz", strength=strength),
        dice=dice,
    )  # Boyz T5: S6 rolls 8 dice
    assert t.unit("b-boyz").models_alive == 10 - mortal


def test_fire_overwatch_when_an_enemy_unit_starts_a_move(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """[L3422-3444]: "starts or ends" a move; ``start_move`` announces the start."""
    t = new_table()
    setup_battle(t, first="B")
    goto(t, "A", "movement", round_=1)
    t.refused(
        "B", UseStratagem("fire_overwatch", unit="b-boyz", enemy="a-int"), "stratagem_no_trigger"
    )
    t.refused("B", StartMove("b-boyz", MoveMode.NORMAL), "not_your_turn")
    t.refused("A", StartMove("a-int", MoveMode.REMAIN_STATIONARY), "bad_command")
    t.do("A", StartMove("a-int", MoveMode.NORMAL))
    t.do("B", UseStratagem("fire_overwatch", unit="b-boyz", enemy="a-int"))
    assert Effect.OVERWATCH in t.unit("b-boyz").effects
    assert t.unit("a-int").move is None  # the move itself follows the shooting
    t.check_replay()
