"""Narrative scenarios played through ``Battle.execute_json`` with dice given by hand."""

from __future__ import annotations

import json

import pytest

from app.engine.match.errors import Refusal
from app.engine.narrative8e.match import match_missions
from app.engine.wh40k10e.battle import ArmySpec, Battle, BattleOptions, MatchSetup, Seat
from app.engine.wh40k10e.battle.state import Location, Stage
from tests.engine.wh40k10e.battle.table import unit

MISSIONS = match_missions()


def armies() -> dict[Seat, ArmySpec]:
    att = ArmySpec("att", (unit("a1", "Raiders", points=200), unit("a2", "Rangers", points=150)))
    dfn = ArmySpec("dfn", (unit("b1", "Guards", points=100), unit("b2", "Wardens", points=100)))
    return {Seat.A: att, Seat.B: dfn}


def new(mission: str) -> Battle:
    setup = MatchSetup(armies(), "strike_force", MISSIONS[mission], BattleOptions(starting_cp=3))
    return Battle.create(setup)


def end_turn(bt: Battle, seat: str) -> None:
    while bt.state.stage is Stage.BATTLE and str(bt.state.active) == seat:
        bt.execute_json({"type": "end_phase"}, seat, dice=[])


def test_the_six_scenarios_are_listed_with_both_names() -> None:
    assert sorted(MISSIONS) == ["ambush", "blitz", "meat-grinder", "patrol", "rescue", "sabotage"]
    assert MISSIONS["rescue"].name == {"en": "Rescue", "fr": "Sauvetage"}
    assert [s.id for s in MISSIONS["blitz"].battle_sizes] == [
        "incursion",
        "strike_force",
        "onslaught",
    ]


def test_sabotage_alarm_truncates_the_turn_then_defender_reserves_and_the_final_roll() -> None:
    bt = new("sabotage")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # 350 > 200 points: A attacks
    assert bt.state.attacker is Seat.A
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    with pytest.raises(Refusal):  # a sentry unit is at most 199 points; both is too many
        bt.execute_json({"type": "deploy_forces", "units": ["b1", "b2"]}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["b1"], "reserves": ["b2"]}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # the Attacker goes first
    assert bt.state.stage is Stage.BATTLE
    assert bt.state.active is Seat.A
    end_turn(bt, "A")
    bt.execute_json({"type": "end_phase"}, "B")  # command phase
    with pytest.raises(Refusal):  # the Defender's reserves wait for the alarm
        bt.execute_json({"type": "reserve_roll", "unit": "b2"}, "B", dice=[6])
    assert Battle.import_log(bt.export_log()).state == bt.state
    # round 1, the Defender's movement phase: no alarm yet
    assert bt.state.narrative is not None
    assert not bt.state.narrative.alarm.raised
    end_turn(bt, "B")
    # round 2: the Attacker is detected in its Movement phase: the alarm ends its turn
    bt.execute_json({"type": "end_phase"}, "A")
    bt.execute_json({"type": "raise_alarm", "cause": "detected"}, "A")
    assert bt.state.narrative.alarm.raised
    assert bt.state.active is Seat.B  # truncated
    bt.execute_json({"type": "end_phase"}, "B")  # command -> movement
    bt.execute_json({"type": "reserve_roll", "unit": "b2"}, "B", dice=[3])  # 3+: arrives
    assert bt.state.units["b2"].location is Location.BATTLEFIELD
    end_turn(bt, "B")
    for rnd in range(3, 6):
        bt.execute_json({"type": "end_phase"}, "A")
        bt.execute_json({"type": "end_phase"}, "A")
        bt.execute_json({"type": "end_phase"}, "A")
        bt.execute_json({"type": "end_phase"}, "A")
        if rnd == 3:
            bt.execute_json({"type": "attempt_sabotage", "unit": "a1"}, "A")
            with pytest.raises(Refusal):  # once per battle
                bt.execute_json({"type": "attempt_sabotage", "unit": "a1"}, "A")
        if rnd == 4:
            bt.execute_json({"type": "attempt_sabotage", "unit": "a2"}, "A")
        end_turn(bt, "A")
        if rnd == 5:  # end of round 5: the first player rolls 1 (battle ends), then D6 = 5
            for _ in range(4):
                bt.execute_json({"type": "end_phase"}, "B", dice=[])
            bt.execute_json({"type": "end_phase"}, "B", dice=[1, 5])
        else:
            end_turn(bt, "B")
    assert bt.state.stage is Stage.ENDED
    res = bt.state.result
    assert res is not None
    assert res.winner is Seat.A
    ev = [e for e in bt.log_json("B") if e["event"]["type"] == "narrative_evaluated"]
    assert ev[0]["event"]["result"] == "major_victory"
    replay = Battle.import_log(json.loads(json.dumps(bt.export_log())))
    assert replay.state == bt.state


def test_meat_grinder_hidden_deployment_is_secret_until_revealed() -> None:
    bt = new("meat-grinder")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "use_mission_stratagem", "stratagem": "decoys"}, "B")
    tokens = {"t1": "b2", "t2": None, "t3": "b1"}
    with pytest.raises(Refusal):  # the defender may not hold units back here
        bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b2"}, "reserves": ["b1"]}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": tokens}, "B")

    def leaks() -> bool:
        text = json.dumps([bt.view("A"), bt.log_json("A")])
        return '"t1": "b2"' in text or "my_tokens" in text or '"unit": "b2"' in text

    assert not leaks()
    assert bt.view("B")["narrative"]["my_tokens"] == tokens
    bt.execute_json({"type": "use_mission_stratagem", "stratagem": "spies", "target": "t3"}, "A")
    assert bt.state.units["b1"].location is Location.BATTLEFIELD
    assert not leaks()
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    # revealed: every token is public now
    assert bt.view("A")["narrative"]["tokens"][0] == {"token": "t1", "revealed": True, "unit": "b2"}
    bt.execute_json({"type": "go_to_ground", "units": ["b1"]}, "B")
    bt.execute_json({"type": "bombard"}, "A", dice=[6, 2, 1])  # b1 hit, D3 = 2; b2 missed
    assert bt.state.units["b1"].models_alive == 3
    assert "b1" in bt.state.narrative.grounded
    bt.execute_json({"type": "roll_off"}, "A", dice=[2])  # 1-3: the Attacker first
    assert bt.state.first_player is Seat.A
