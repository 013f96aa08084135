"""Double Tir and Rafale in the Black Reach battle (issue 16): two shots at two different
targets, and the modified CV split between targets of one class within 2 squares of each
other, each with its own roll, line of sight and obstacles; refused before any die when the
rules say no; their legal actions carry the odds of each shot; the log replays.

The sample heavy-weapon team is given the abilities here (the sample counters have neither).
After the Orks' first move the team at (3, 1), CV 3 against infantry, sees the Nob (3, 10),
DV 5, and the Shootas (2, 11), DV 4, one square apart, and the Weirdboy (0, 11), DV 4, three
squares from the Nob. Every shot there is at long range (-2); the line to the Nob crosses
one reducing square (-1), the line to the Shootas three (-3): the final result is the CV or
share + the die - 3 at the Nob and - 5 at the Shootas (the odds below say the same).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, sample_setup
from app.engine.black_reach.battle.rules import burst_problem
from app.engine.match.errors import Refusal

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
WEIRDBOY = "orks:tiles[1]/0:sample-ork-weirdboy"
BUGGY = "orks:tiles[0].slots[1]/0:sample-ork-buggy"
A, B = "A", "B"


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def with_abilities(setup: BattleSetup, *abilities: str) -> BattleSetup:
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    bolter = next(c for c in catalogue["counters"] if c["id"] == "sample-um-heavy-bolter")
    bolter["faces"][0]["abilities"] += [{"id": a} for a in abilities]
    return BattleSetup(setup.scenario, catalogue, setup.boards, setup.seats, setup.deployment)


def team_due(*abilities: str) -> BlackReachBattle:
    """The team's token 1 is due, after the Boyz moved 2 squares."""
    battle = BlackReachBattle.create(with_abilities(sample_setup(), *abilities))
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    battle.execute_json(
        {"type": "move", "unit": BOYZ1, "path": [{"x": 4, "y": 9}, {"x": 4, "y": 8}]}, B
    )
    return battle


def refused(battle: BlackReachBattle, command: dict[str, Any], **kw: Any) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, A, **kw)
    assert battle.version == version  # nothing rolled, nothing logged
    return info.value


def kinds(envelopes: Any) -> list[str]:
    return [e.event.kind for e in envelopes]


def faces(shot: Any) -> list[int]:
    return [d.value for d in shot.roll.dice]


def action(battle: BlackReachBattle, kind: str) -> dict[str, Any] | None:
    return next((a for a in battle.actions(A) if a["command"]["type"] == kind), None)


# -- Double Tir -----------------------------------------------------------------------------------


def test_double_tir_shoots_two_different_targets_one_roll_each() -> None:
    battle = team_due("double_shot")
    command = {"type": "double_shot", "unit": BOLTER, "targets": [NOB, SHOOTAS]}
    events = battle.execute_json(command, A, dice=[6, 6])
    assert kinds(events) == [
        "order_revealed",
        "unit_shot",
        "steps_taken",  # the Nob's Hit Point marker takes the step
        "unit_shot",
        "steps_taken",  # the Shootas flip
    ]
    at_nob, at_shootas = events[1].event, events[3].event
    assert (at_nob.target, faces(at_nob), at_nob.final, at_nob.outcome) == (NOB, [6], 6, "step")
    assert (at_shootas.target, faces(at_shootas), at_shootas.final) == (SHOOTAS, [6], 4)
    assert at_shootas.outcome == "step"
    assert events[2].event.hit_points_used == 1
    assert events[4].event.face == "reduced"
    assert battle.state.turn is not None
    assert BOLTER in battle.state.turn.revealed["ultramarines"]


def test_double_tir_refusals_come_before_any_die() -> None:
    battle = team_due("double_shot")
    same = {"type": "double_shot", "unit": BOLTER, "targets": [NOB, NOB]}
    assert refused(battle, same, dice=[6, 6]).code == "same_target"
    one = {"type": "double_shot", "unit": BOLTER, "targets": [NOB]}
    assert refused(battle, one, dice=[6]).code == "two_targets"
    unseen = {"type": "double_shot", "unit": BOLTER, "targets": [NOB, BOYZ2]}
    assert refused(battle, unseen, dice=[6, 6]).code == "no_line_of_sight"
    plain = team_due()
    both = {"type": "double_shot", "unit": BOLTER, "targets": [NOB, SHOOTAS]}
    assert refused(plain, both, dice=[6, 6]).code == "no_double_shot"
    assert action(plain, "double_shot") is None


def test_double_tir_suppression_fire_needs_tir_de_suppression() -> None:
    battle = team_due("double_shot")  # the team has Tir de Suppression
    command = {
        "type": "double_shot",
        "unit": BOLTER,
        "targets": [NOB, WEIRDBOY],
        "suppression": True,
    }
    events = battle.execute_json(command, A, dice=[6, 6])
    shots = [e.event for e in events if e.event.kind == "unit_shot"]
    # 2 x 3 + 6 - 3 = 9 against DV 5 at the Nob: 1 marker; 2 x 3 + 6 - 4 = 8 against the
    # Weirdboy's DV 4 (long range and two reducing squares): 2 markers
    assert [(s.target, s.suppression, s.final, s.outcome) for s in shots] == [
        (NOB, True, 9, "suppressed_1"),
        (WEIRDBOY, True, 8, "suppressed_2"),
    ]
    assert [e.event.kind for e in events].count("suppressed_placed") == 2


def test_double_tir_is_offered_with_each_target_s_odds() -> None:
    battle = team_due("double_shot")
    entry = action(battle, "double_shot")
    assert entry is not None
    shots = {
        a["command"]["target"]: a["odds"]
        for a in battle.actions(A)
        if a["command"]["type"] == "shoot" and not a["command"]["suppression"]
    }
    assert {t["target"]: t["odds"] for t in entry["targets"]} == shots
    assert shots[NOB] == {"miss": "2/3", "step": "1/3", "coup_double": "0"}  # 3 + d - 3 >= 5


# -- Rafale ---------------------------------------------------------------------------------------


def test_a_rafale_splits_the_modified_cv_one_roll_per_target() -> None:
    battle = team_due("burst")
    command = {
        "type": "burst",
        "unit": BOLTER,
        "shares": [{"target": NOB, "cv": 2}, {"target": SHOOTAS, "cv": 1}],
    }
    events = battle.execute_json(command, A, dice=[6, 6])
    assert kinds(events) == [
        "order_revealed",
        "burst_declared",
        "unit_shot",
        "steps_taken",
        "unit_shot",
    ]
    declared = events[1].event
    assert declared.modified_cv == 3
    assert [(s.target, s.cv) for s in declared.shares] == [(NOB, 2), (SHOOTAS, 1)]
    at_nob, at_shootas = events[2].event, events[4].event
    assert (at_nob.cv, at_nob.final, at_nob.outcome) == (2, 5, "step")  # 2 + 6 - 3
    assert (at_shootas.cv, at_shootas.final, at_shootas.outcome) == (1, 2, "miss")  # 1 + 6 - 5


@pytest.mark.parametrize(
    ("shares", "code"),
    [
        ([(NOB, 3)], "burst_targets"),
        ([(NOB, 2), (NOB, 1)], "same_target"),
        ([(NOB, 3), (SHOOTAS, 0)], "burst_share"),
        ([(NOB, 2), (SHOOTAS, 2)], "burst_total"),
        ([(NOB, 1), (SHOOTAS, 1)], "burst_total"),
        ([(NOB, 2), (WEIRDBOY, 1)], "burst_spread"),  # 3 squares apart
        ([(NOB, 2), (BOYZ2, 1)], "no_line_of_sight"),
    ],
)
def test_bad_rafales_are_refused_before_any_die(shares: list[tuple[str, int]], code: str) -> None:
    battle = team_due("burst")
    command = {
        "type": "burst",
        "unit": BOLTER,
        "shares": [{"target": t, "cv": cv} for t, cv in shares],
    }
    assert refused(battle, command, dice=[6, 6]).code == code


def test_rafale_targets_are_of_one_type() -> None:
    state = team_due("burst").state
    shootas, buggy, nob = state.units[SHOOTAS], state.units[BUGGY], state.units[NOB]
    assert burst_problem(state, [shootas, buggy]) == "burst_classes"
    assert burst_problem(state, [shootas, nob]) is None
    assert burst_problem(state, [nob, state.units[WEIRDBOY]]) == "burst_spread"


def test_a_unit_without_rafale_cannot_split() -> None:
    battle = team_due()
    command = {
        "type": "burst",
        "unit": BOLTER,
        "shares": [{"target": NOB, "cv": 2}, {"target": SHOOTAS, "cv": 1}],
    }
    assert refused(battle, command, dice=[6, 6]).code == "no_burst"
    assert action(battle, "burst") is None


def test_a_rafale_is_offered_with_the_odds_of_each_share() -> None:
    entry = action(team_due("burst"), "burst")
    assert entry is not None
    assert entry["cv"] == 3
    odds = {t["target"]: t["odds"] for t in entry["targets"]}
    # every target the team sees has another within 2 squares (Nob-Shootas 1, Shootas-Weirdboy 2)
    assert set(odds) == {NOB, SHOOTAS, WEIRDBOY}
    assert odds[NOB]["2"] == {"miss": "5/6", "step": "1/6", "coup_double": "0"}  # 2 + 6 - 3 = 5
    assert odds[NOB]["1"] == {"miss": "1", "step": "0", "coup_double": "0"}
    assert odds[SHOOTAS]["2"]["step"] == "0"  # 2 + 6 - 5 = 3 < 4
    assert {t["class"] for t in entry["targets"]} == {"infantry"}


def test_a_log_with_double_tir_and_rafale_replays() -> None:
    battle = team_due("burst", "double_shot")
    battle.execute_json(
        {
            "type": "burst",
            "unit": BOLTER,
            "shares": [{"target": NOB, "cv": 1}, {"target": SHOOTAS, "cv": 2}],
        },
        A,
        dice=[3, 5],
    )
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state
    assert again.view(A) == battle.view(A)


# -- Tir Effrayant --------------------------------------------------------------------------------


def test_tir_effrayant_suppresses_the_target_of_a_failed_shot() -> None:
    battle = team_due("terrifying_fire")
    shot = {"type": "shoot", "unit": BOLTER, "target": NOB}
    events = battle.execute_json(shot, A, dice=[1])  # 3 + 1 - 3 = 1 < 5: a miss
    assert kinds(events) == ["order_revealed", "unit_shot", "suppressed_placed"]
    assert (events[1].event.outcome, events[2].event.count) == ("miss", 1)
    assert battle.state.units[NOB].suppressed == 1


def test_tir_effrayant_adds_nothing_to_a_hit() -> None:
    battle = team_due("terrifying_fire")
    shot = {"type": "shoot", "unit": BOLTER, "target": NOB}
    events = battle.execute_json(shot, A, dice=[6])  # 3 + 6 - 3 = 6 >= 5: a step
    assert kinds(events) == ["order_revealed", "unit_shot", "steps_taken"]
    assert battle.state.units[NOB].suppressed == 0


def test_tir_effrayant_is_not_used_with_rafale() -> None:
    battle = team_due("terrifying_fire", "burst")
    command = {
        "type": "burst",
        "unit": BOLTER,
        "shares": [{"target": NOB, "cv": 2}, {"target": SHOOTAS, "cv": 1}],
    }
    events = battle.execute_json(command, A, dice=[1, 1])  # both miss
    assert "suppressed_placed" not in kinds(events)
