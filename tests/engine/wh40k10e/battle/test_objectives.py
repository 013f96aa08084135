"""Objective control, Take and Hold scoring, objective placement and missions as data."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.match.missions import (
    BattleLength,
    LengthExtension,
    MarkerSpec,
    Mission,
    ObjectivesSpec,
    ScoringRule,
    SetupStep,
)
from app.engine.wh40k10e.battle import Battle, MatchSetup, Presence, Seat, check_mission
from app.engine.wh40k10e.battle.commands import (
    EndPhase,
    PlaceObjective,
    ReportObjective,
    RollOff,
)
from app.engine.wh40k10e.battle.events import ExtraRoundRolled, VictoryPointsScored
from app.engine.wh40k10e.battle.objectives import control, control_levels
from app.engine.wh40k10e.battle.state import Stage
from tests.engine.wh40k10e.battle.table import Table, events, goto, marines, orks, result, stage


def test_level_of_control_sums_oc_strictly_greater_controls(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """[L4595-4609]: OC summed per player (models in range x OC); more controls, equal is
    contested, including 0-0."""
    t = new_table()
    setup_battle(t)
    t.do("A", ReportObjective("1", (Presence("a-int", 2), Presence("a-hell", 1))))  # 2x2 + 1x2
    t.do("B", ReportObjective("1", (Presence("b-boyz", 3),)))  # 3x2
    assert control_levels(t.state)["1"] == {Seat.A: 6, Seat.B: 6}
    assert control(t.state)["1"] is None  # a tie is contested
    t.do("B", ReportObjective("1", (Presence("b-boyz", 3), Presence("b-komm", 1))))
    assert control(t.state)["1"] is Seat.B
    assert control(t.state)["2"] is None  # nobody there: contested
    t.refused("A", ReportObjective("1", (Presence("b-boyz"),)), "not_your_unit")
    t.refused("A", ReportObjective("9", ()), "unknown_marker")
    t.refused("A", ReportObjective("1", (Presence("a-int", 6),)), "bad_command")


def test_control_is_recomputed_at_the_end_of_every_phase(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "movement", round_=1)
    t.do("A", ReportObjective("3", (Presence("a-hell"),)))
    assert t.state.markers["3"].controller is None  # not until the phase ends
    t.do("A", EndPhase())
    assert t.state.markers["3"].controller is Seat.A
    t.do("A", ReportObjective("3", ()))  # the Hellblasters walk away
    t.do("A", EndPhase())
    assert t.state.markers["3"].controller is None


def test_take_and_hold_scores_from_round_2_for_the_active_player_at_most_3(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """[L4705-4709]: end of your Command phase, from round 2, 1 VP per marker, max 3."""
    t = new_table()
    setup_battle(t)
    for marker, unit in zip("1234", ("a-int", "a-hell", "a-term", "a-rhino"), strict=True):
        t.do("A", ReportObjective(marker, (Presence(unit),)))
    t.do("A", EndPhase())
    assert t.state.players[Seat.A].vp == 0  # round 1 scores nothing
    assert all(m.controller is Seat.A for m in t.state.markers.values())
    goto(t, "B", "command", round_=1)
    t.do("B", EndPhase())
    assert t.state.players[Seat.A].vp == 0  # B's Command phase: only B may score
    goto(t, "A", "command", round_=2)
    t.do("A", EndPhase())
    assert t.state.players[Seat.A].vp == 3  # 4 markers, capped at 3
    scored = events(t, VictoryPointsScored)
    assert [(s.seat, s.vp, s.rule, s.markers) for s in scored] == [
        (Seat.A, 3, "take_and_hold", ("1", "2", "3", "4"))
    ]


def test_objectives_are_placed_alternately_with_distances_checked(
    new_table: Callable[..., Table],
) -> None:
    t = new_table()
    t.refused("A", PlaceObjective(), "wrong_stage")
    t.do("B", RollOff(), dice=[2, 5])  # B places first
    t.refused("A", PlaceObjective(), "not_your_choice")
    t.refused("B", PlaceObjective(x=6, y=20), "bad_position")  # not more than 6" from an edge
    t.refused("B", PlaceObjective(x=70, y=20), "bad_position")  # off a 60x44 battlefield
    t.refused("B", PlaceObjective(x=20), "bad_position")
    t.do("B", PlaceObjective(x=20, y=20))
    t.refused("A", PlaceObjective(x=29, y=20), "bad_position")  # 9" apart is not more than 9"
    t.refused("A", PlaceObjective(marker="1"), "marker_already_placed")
    t.refused("A", PlaceObjective(marker="x"), "unknown_marker")
    t.do("A", PlaceObjective(x=29.5, y=20))
    t.do("B", PlaceObjective())
    t.do("A", PlaceObjective())
    assert stage(t) is Stage.ROLL_OFF
    assert [m.placed_by for m in t.state.markers.values()] == [Seat.B, Seat.A, Seat.B, Seat.A]


def test_a_roll_off_tie_with_hand_dice_is_recorded_and_rolled_again(
    new_table: Callable[..., Table],
) -> None:
    t = new_table()
    t.do("A", RollOff(), dice=[3, 3])
    assert stage(t) is Stage.ROLL_OFF
    assert "objectives" not in t.state.roll_offs
    t.do("A", RollOff(), dice=[3, 3, 4, 1])  # a tie, then A wins, in one command
    assert t.state.roll_offs["objectives"] is Seat.A
    t.refused("A", RollOff(), "wrong_stage")


def narrative_like(only_war: Mission) -> Mission:
    """A mission with fixed markers, scoring for both players at the end of each turn and a
    random battle length (5 rounds, then a roll per round), written as data."""
    return dataclasses.replace(
        only_war,
        id="test-random-length",
        objectives=ObjectivesSpec(
            markers=(MarkerSpec("centre", 30, 22), MarkerSpec("north", 30, 10)),
            placement="fixed",
        ),
        sequence=tuple(
            s
            for s in only_war.sequence
            if s.step != "place_objectives" and s.purpose != "objectives"
        ),
        scoring=(ScoringRule("hold", "end_of_turn", "each_player", per_marker=2),),
        length=BattleLength(
            rounds=5,
            extensions=(
                LengthExtension(5, "first_player", 3),
                LengthExtension(6, "second_player", 4),
            ),
        ),
    )


def test_a_mission_written_as_data_with_random_length(only_war: Mission) -> None:
    mission = narrative_like(only_war)
    check_mission(mission)
    battle = Battle.create(MatchSetup({Seat.A: marines(), Seat.B: orks()}, "incursion", mission))
    from tests.engine.wh40k10e.battle.table import DEFAULT_FORMATIONS, Table

    t = Table(battle)
    assert stage(t) is Stage.ROLL_OFF
    assert t.state.markers["centre"].x == 30
    t.do("A", RollOff(), dice=[6, 1])
    from app.engine.wh40k10e.battle.commands import DeclareFormations, DeployUnit, EndScouts

    t.do("A", DeclareFormations(DEFAULT_FORMATIONS["A"]))
    t.do("B", DeclareFormations(DEFAULT_FORMATIONS["B"]))
    while stage(t) is Stage.DEPLOY:
        deployer = t.state.next_seat
        assert deployer is not None
        todo = sorted(u.id for u in t.state.units_of(deployer) if u.location == "to_deploy")
        t.do(str(deployer), DeployUnit(todo[0]))
    t.do("A", RollOff(), dice=[6, 1])
    while stage(t) is Stage.SCOUTS:
        t.do(str(t.state.next_seat), EndScouts())
    t.do("B", ReportObjective("centre", (Presence("b-boyz"),)))
    goto(t, "B", "command", round_=1)
    assert t.state.players[Seat.B].vp == 2  # each player, at the end of A's turn
    goto(t, "A", "fight", round_=5)
    goto(t, "B", "fight", round_=5)
    t.do("B", EndPhase(), dice=[3])  # end of round 5: A (first player) rolls 3+: go on
    assert t.state.round == 6
    goto(t, "B", "fight", round_=6)
    t.do("B", EndPhase(), dice=[3])  # end of round 6: B needs 4+: the battle ends
    assert stage(t) is Stage.ENDED
    rolls = events(t, ExtraRoundRolled)
    assert [(r.round, r.seat, r.continues) for r in rolls] == [
        (5, Seat.A, True),
        (6, Seat.B, False),
    ]
    assert result(t).winner is Seat.B
    t.check_replay()


@pytest.mark.parametrize(
    "change",
    [
        {"sequence": (SetupStep("hidden_deployment"),)},
        {"scoring": (ScoringRule("x", "end_of_battle", "active_player"),)},
        {"end_conditions": ("sudden_death",)},
    ],
)
def test_missions_using_what_the_engine_lacks_are_refused(only_war: Mission, change: Any) -> None:
    mission = dataclasses.replace(only_war, **change)
    with pytest.raises(Refusal) as info:
        check_mission(mission)
    assert info.value.code == "unsupported_mission"
    with pytest.raises(Refusal):
        Battle.create(MatchSetup({Seat.A: marines(), Seat.B: orks()}, "incursion", mission))
