"""Ambush, Patrol, Blitz, Rescue and the sustained assault of Meat Grinder played through
``Battle.execute_json`` with dice given by hand, each to its victory evaluation; every battle's
exported log replays to the same state."""

from __future__ import annotations

import json
from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.narrative8e.match import match_missions
from app.engine.wh40k10e.battle import ArmySpec, Battle, BattleOptions, MatchSetup, Seat
from app.engine.wh40k10e.battle.state import Location, Phase, Stage
from tests.engine.wh40k10e.battle.table import unit

MISSIONS = match_missions()


def new(mission: str, att: ArmySpec, dfn: ArmySpec, cp: int = 3) -> Battle:
    setup = MatchSetup(
        {Seat.A: att, Seat.B: dfn}, "strike_force", MISSIONS[mission], BattleOptions(starting_cp=cp)
    )
    return Battle.create(setup)


def small() -> tuple[ArmySpec, ArmySpec]:
    att = ArmySpec("att", (unit("a1", "Raiders", points=200), unit("a2", "Rangers", points=150)))
    dfn = ArmySpec("dfn", (unit("b1", "Guards", points=100), unit("b2", "Wardens", points=100)))
    return att, dfn


def to_phase(bt: Battle, seat: str, phase: Phase) -> None:
    from app.engine.wh40k10e.battle.rules import shock_tests_pending

    while bt.state.phase is not phase or bt.state.window is not None:
        assert str(bt.state.active) == seat
        if bt.state.window is not None:  # Rapid Ingress and such: passed
            bt.execute_json({"type": "pass"}, str(bt.state.window), dice=[])
            continue
        if bt.state.phase is Phase.COMMAND:
            for u in shock_tests_pending(bt.state):
                bt.execute_json({"type": "battle_shock_test", "unit": u}, seat, dice=[6, 6])
        bt.execute_json({"type": "end_phase"}, seat, dice=[])


def end_turn(bt: Battle, seat: str, dice: list[int] | None = None) -> None:
    """End phases until ``seat``'s turn is over; ``dice`` go to the command that ends it."""
    while bt.state.stage is Stage.BATTLE and str(bt.state.active) == seat:
        if bt.state.window is not None:
            bt.execute_json({"type": "pass"}, str(bt.state.window), dice=[])
            continue
        last = bt.state.phase is Phase.FIGHT
        given = (dice or []) if last else []
        if bt.state.phase is Phase.COMMAND:  # Battle-shock tests passed
            from app.engine.wh40k10e.battle.rules import shock_tests_pending

            for u in shock_tests_pending(bt.state):
                bt.execute_json({"type": "battle_shock_test", "unit": u}, seat, dice=[6, 6])
        if bt.state.coherency:  # the end-of-turn coherency check: nobody removes a model
            bt.execute_json({"type": "confirm_coherency"}, str(bt.state.coherency[0]), dice=given)
        else:
            bt.execute_json({"type": "end_phase"}, seat, dice=given)


def shoot_down(bt: Battle, shooter: str, target: str, damage: list[int]) -> None:
    seat = str(bt.state.active)
    to_phase(bt, seat, Phase.SHOOTING)
    bt.execute_json({"type": "shoot", "unit": shooter, "targets": [target]}, seat)
    bt.execute_json(
        {"type": "resolve_attack", "attacker": shooter, "target": target, "damage": damage}, seat
    )


def evaluated(bt: Battle) -> dict[str, Any]:
    found = [e["event"] for e in bt.log_json("A") if e["event"]["type"] == "narrative_evaluated"]
    assert len(found) == 1
    return found[0]


def replays(bt: Battle) -> None:
    assert Battle.import_log(json.loads(json.dumps(bt.export_log()))).state == bt.state


def play_out(bt: Battle, to_round: int, last_dice: list[int]) -> None:
    """Both players end their turns until the end of ``to_round``; the last turn's end gets
    ``last_dice`` (the game length roll, then the evaluation's)."""
    while bt.state.stage is Stage.BATTLE:
        seat = str(bt.state.active)
        last = bt.state.round == to_round and bt.state.active is not bt.state.first_player
        end_turn(bt, seat, last_dice if last else None)


# -- Meat Grinder: sustained assault and culling --------------------------------------------------


def test_meat_grinder_sustained_assault_returns_a_unit_and_culls_at_a_quarter() -> None:
    att, dfn = small()
    att = ArmySpec("att", (*att.units, unit("a3", "Bikers", points=90, keywords=("MOUNTED",))))
    bt = new("meat-grinder", att, dfn)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # 440 v 200 points: A attacks
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2", "a3"]}, "A")
    bt.execute_json({"type": "go_to_ground", "units": []}, "B")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])  # both missed
    bt.execute_json({"type": "roll_off"}, "A", dice=[2])  # 1-3: the Attacker first
    end_turn(bt, "A")
    # B's turn 1: a1 (INFANTRY) and a3 (MOUNTED) are shot down; a2 left with one model of 5
    shoot_down(bt, "b1", "a1", [1] * 5)
    bt.execute_json({"type": "shoot", "unit": "b2", "targets": ["a3"]}, "B")
    bt.execute_json(
        {"type": "resolve_attack", "attacker": "b2", "target": "a3", "damage": [1] * 5}, "B"
    )
    assert bt.state.narrative is not None
    assert bt.state.narrative.down == ("a1", "a3")
    end_turn(bt, "B")
    # round 2, A's Movement phase: one D6 per destroyed unit, in order: a1 rolls 2 (+2 for
    # INFANTRY: 4, back), a3 rolls 3 (no bonus: stays down)
    to_phase(bt, "A", Phase.MOVEMENT)
    with pytest.raises(Refusal):  # culling is done in the Fight phase
        bt.execute_json({"type": "cull_unit", "unit": "a2"}, "A")
    bt.execute_json({"type": "assault_return"}, "A", dice=[2, 3])
    a1 = bt.state.units["a1"]
    assert (a1.location, a1.models_alive) == (Location.BATTLEFIELD, 5)
    assert bt.state.narrative.down == ("a3",)
    assert bt.state.narrative.returned == ("a1",)
    with pytest.raises(Refusal):  # once per Movement phase
        bt.execute_json({"type": "assault_return"}, "A", dice=[6])
    end_turn(bt, "A")
    # B leaves a2 with 2 of 5 models (above a quarter), then 1 (a quarter or less)
    shoot_down(bt, "b1", "a2", [1, 1, 1])
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.FIGHT)
    with pytest.raises(Refusal):  # 2 of 5 models: above a quarter
        bt.execute_json({"type": "cull_unit", "unit": "a2"}, "A")
    end_turn(bt, "A")
    shoot_down(bt, "b1", "a2", [1])
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.FIGHT)
    bt.execute_json({"type": "cull_unit", "unit": "a2"}, "A")
    assert not bt.state.units["a2"].alive
    assert bt.state.narrative.down == ("a3", "a2")
    assert bt.state.narrative.destructions == 3
    end_turn(bt, "A")
    replays(bt)
    play_out(bt, 5, [1])  # end of round 5: the first player rolls 1, the battle ends
    assert bt.state.stage is Stage.ENDED
    ev = evaluated(bt)
    assert (ev["result"], ev["winner"]) == ("major_victory", "B")  # the Defender holds on
    replays(bt)


# -- Ambush: reversed hidden deployment, Lightning Reaction, escapes ----------------------------


def test_ambush_the_defender_steals_the_first_turn_and_escapes_with_a_third() -> None:
    att, dfn = small()
    bt = new("ambush", att, dfn)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # 350 v 200: A attacks
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    # reversed: the Attacker hides its units; a2 waits in Reserve
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "a1"}, "reserves": ["a2"]}, "A")
    bt.execute_json({"type": "deploy_forces", "units": ["b1", "b2"]}, "B")
    assert bt.state.units["a1"].location is Location.BATTLEFIELD  # revealed
    bt.execute_json({"type": "use_mission_stratagem", "stratagem": "lightning-reaction"}, "B")
    bt.execute_json({"type": "roll_off"}, "A", dice=[6])  # 6: the Defender goes first
    assert bt.state.first_player is Seat.B
    assert bt.state.narrative is not None
    assert [(str(x), i, cp) for x, i, cp, _ in bt.state.narrative.spent] == [
        ("B", "lightning-reaction", 1)
    ]
    assert bt.state.players[Seat.B].cp == 3  # 3 - 1, + 1 in its Command phase
    with pytest.raises(Refusal):  # escapes are made in the Movement phase
        bt.execute_json({"type": "escape_unit", "unit": "b1"}, "B")
    to_phase(bt, "B", Phase.MOVEMENT)
    bt.execute_json({"type": "escape_unit", "unit": "b1"}, "B")
    assert bt.state.units["b1"].location is Location.ESCAPED
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.MOVEMENT)
    with pytest.raises(Refusal):  # only the Defender escapes
        bt.execute_json({"type": "escape_unit", "unit": "a1"}, "A")
    with pytest.raises(Refusal):  # reserves arrive from the Attacker's second turn
        bt.execute_json({"type": "reserve_roll", "unit": "a2"}, "A", dice=[6])
    end_turn(bt, "A")
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.MOVEMENT)
    bt.execute_json({"type": "reserve_roll", "unit": "a2"}, "A", dice=[2])  # 2: not yet
    with pytest.raises(Refusal):  # one roll per unit and phase
        bt.execute_json({"type": "reserve_roll", "unit": "a2"}, "A", dice=[6])
    end_turn(bt, "A")
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.MOVEMENT)
    bt.execute_json({"type": "reserve_roll", "unit": "a2"}, "A", dice=[3])
    assert bt.state.units["a2"].location is Location.BATTLEFIELD
    end_turn(bt, "A")
    play_out(bt, 5, [1])
    ev = evaluated(bt)
    # 100 of the Defender's 200 points escaped: at least a third
    assert (ev["result"], ev["winner"]) == ("major_victory", "B")
    assert {"side": "defender", "item": "escaped_total", "vp": 0, "detail": "100 of 200"} in ev[
        "breakdown"
    ]
    replays(bt)


# -- Patrol: ratio roll-off, patrols, reserves from round 2, units destroyed ---------------------


def four(prefix: str) -> ArmySpec:
    return ArmySpec(
        prefix,
        tuple(unit(f"{prefix}{i}", f"Squad {prefix}{i}", points=100) for i in range(1, 5)),
    )


def test_patrol_played_to_its_units_destroyed_score() -> None:
    bt = new("patrol", four("a"), four("b"))
    with pytest.raises(Refusal):  # equal armies: a roll-off, which needs its dice
        bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "roll_off"}, "A", dice=[5, 2])  # A wins the roll-off: attacks
    assert bt.state.attacker is Seat.A
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    with pytest.raises(Refusal):  # a patrol is 3 units
        bt.execute_json(
            {"type": "deploy_forces", "units": ["b1", "b2"], "reserves": ["b3", "b4"]}, "B"
        )
    bt.execute_json({"type": "deploy_forces", "units": ["b1", "b2", "b3"], "reserves": ["b4"]}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2", "a3"], "reserves": ["a4"]}, "A")
    bt.execute_json({"type": "roll_off"}, "A", dice=[6, 1])  # A wins: A first
    assert bt.state.first_player is Seat.A
    to_phase(bt, "A", Phase.MOVEMENT)
    with pytest.raises(Refusal):  # from round 2
        bt.execute_json({"type": "reserve_roll", "unit": "a4"}, "A", dice=[6])
    end_turn(bt, "A")
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.MOVEMENT)
    bt.execute_json({"type": "reserve_roll", "unit": "a4"}, "A", dice=[3])  # the Attacker: 4+
    assert bt.state.units["a4"].location is Location.RESERVES
    shoot_down(bt, "a1", "b1", [1] * 5)
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.MOVEMENT)
    bt.execute_json({"type": "reserve_roll", "unit": "b4"}, "B", dice=[3])  # the Defender: 3+
    assert bt.state.units["b4"].location is Location.BATTLEFIELD
    end_turn(bt, "B")
    play_out(bt, 5, [1])
    ev = evaluated(bt)
    # A: b1 destroyed (1); B: a4 never arrived, so off the battlefield (1): a draw
    assert ev["vp"] == [1, 1]
    assert ev["result"] == "draw"
    replays(bt)


# -- Blitz: an Attached unit counts as one ------------------------------------------------------


def test_blitz_counts_an_attached_unit_as_one_and_scores_the_zones() -> None:
    att, dfn = small()
    captain = unit(
        "a3",
        "Captain",
        models=1,
        wounds=4,
        points=80,
        keywords=("INFANTRY", "CHARACTER"),
        leads=("Raiders",),
    )
    bt = new("blitz", ArmySpec("att", (*att.units, captain)), dfn)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json(
        {"type": "declare_formations", "formation": {"attachments": [["a3", "a1"]]}}, "A"
    )
    bt.execute_json({"type": "declare_formations", "formation": {}}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "go_to_ground", "units": []}, "B")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # the Attacker goes first
    end_turn(bt, "A")
    shoot_down(bt, "b1", "a1", [1, 1, 1, 1, 1, 4])  # the Raiders and their Captain
    assert not bt.state.units["a1"].alive
    assert not bt.state.units["a3"].alive
    assert bt.state.narrative is not None
    assert bt.state.narrative.destructions == 1  # one Attached unit
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.MOVEMENT)
    bt.execute_json({"type": "assault_return"}, "A", dice=[2])  # one die for the unit: 2+2
    assert bt.state.units["a1"].alive
    assert bt.state.units["a3"].alive
    assert bt.state.units["a3"].bodyguard == "a1"
    # the Attached unit named twice still scores once, in its better zone
    bt.execute_json(
        {"type": "report_zones", "first_line": ["a2", "a3"], "second_line": ["a1"]}, "A"
    )
    assert bt.state.narrative.second_line == ("a1",)
    assert bt.state.narrative.first_line == ("a2",)
    end_turn(bt, "A")
    play_out(bt, 5, [1])
    ev = evaluated(bt)
    assert ev["vp"] == [3, 1]  # A: 2 (second line) + 1 (first line); B: 1 destruction
    assert (ev["result"], ev["winner"]) == ("major_victory", "A")
    replays(bt)


# -- Rescue: searching, the beacon scan, the alarm, the Defender's reserves ----------------------


def test_rescue_the_beacon_scan_finds_the_spy_and_the_alarm_brings_the_reserves() -> None:
    att, dfn = small()
    bt = new("rescue", att, dfn)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "deploy_forces", "units": ["b1"], "reserves": ["b2"]}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    assert bt.state.narrative is not None
    assert bt.state.narrative.places == ("1", "2", "3", "4", "5", "6")
    bt.execute_json({"type": "search_hiding_place", "unit": "a1", "place": "1"}, "A", dice=[5])
    assert bt.state.narrative.spy_found_at is None
    with pytest.raises(Refusal):  # searched already
        bt.execute_json({"type": "search_hiding_place", "unit": "a2", "place": "1"}, "A", dice=[6])
    scan = {"type": "use_mission_stratagem", "stratagem": "beacon-scan", "target": "4"}
    with pytest.raises(Refusal, match="Movement phase"):  # at the end of it [L545]
        bt.execute_json(scan, "A", dice=[6])
    to_phase(bt, "A", Phase.MOVEMENT)
    bt.execute_json(scan, "A", dice=[6])
    assert bt.state.narrative.spy_found_at == "4"
    assert bt.state.narrative.alarm.state.value == "pending"  # raised as the turn ends
    with pytest.raises(Refusal):
        bt.execute_json({"type": "search_hiding_place", "unit": "a2", "place": "2"}, "A", dice=[6])
    end_turn(bt, "A")
    assert bt.state.narrative.alarm.raised
    to_phase(bt, "B", Phase.MOVEMENT)
    bt.execute_json({"type": "reserve_roll", "unit": "b2"}, "B", dice=[4])  # 4+ after the alarm
    assert bt.state.units["b2"].location is Location.BATTLEFIELD
    end_turn(bt, "B")
    play_out(bt, 5, [1])
    ev = evaluated(bt)
    assert (ev["result"], ev["winner"]) == ("victory", "A")  # found and alive
    replays(bt)


# -- Sabotage: the alarm raised in the Defender's own turn ----------------------------------------


def test_alarm_in_the_defenders_turn_gives_it_a_whole_new_turn_at_once() -> None:
    att, dfn = small()
    bt = new("sabotage", att, dfn)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "deploy_forces", "units": ["b1"], "reserves": ["b2"]}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # the Attacker goes first
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.MOVEMENT)
    cp = bt.state.players[Seat.B].cp
    # a sentry spots an Attacker model at the end of the Defender's Movement phase
    bt.execute_json({"type": "raise_alarm", "cause": "detected"}, "B")
    assert bt.state.narrative is not None
    assert bt.state.narrative.alarm.raised
    # the rest of B's turn is given up; B starts a whole new turn, still in round 1
    assert (bt.state.round, bt.state.active, bt.state.phase) == (1, Seat.B, Phase.COMMAND)
    assert bt.state.players[Seat.B].cp == cp + 1  # its new Command phase
    assert bt.state.narrative.alarm.defender_turns_since == 1  # its first turn after the alarm
    to_phase(bt, "B", Phase.MOVEMENT)
    bt.execute_json({"type": "reserve_roll", "unit": "b2"}, "B", dice=[3])  # 3+: arrives
    assert bt.state.units["b2"].location is Location.BATTLEFIELD
    end_turn(bt, "B")
    # then play resumes in order: round 2, the Attacker
    assert (bt.state.round, bt.state.active) == (2, Seat.A)
    replays(bt)
    end_turn(bt, "A")
    end_turn(bt, "B")
    assert (bt.state.round, bt.state.active) == (3, Seat.A)  # no second extra turn
