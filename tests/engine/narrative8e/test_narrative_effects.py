"""Effects of the narrative rules the match applies rather than only records (issue 15):
the Dogfight's modifier in the attack's hit modifier, mission stratagems that roll their dice
(Booby Traps, Proximity Mines, Iron Discipline) and the Dawn Raid of Night Raid
(docs/rulings/narrative-8e.md, 71-)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.narrative8e.match import combat_zones, expansions, match_missions
from app.engine.wh40k10e.battle import Ability, ArmySpec, Battle, BattleOptions, MatchSetup, Seat
from app.engine.wh40k10e.battle.narrative import NarrativeState
from app.engine.wh40k10e.battle.state import Phase
from app.matches.exceptions import InvalidAttack
from app.matches.systems.wh40k10e import combat
from tests.engine.narrative8e.test_expansions_play import AIRCRAFT, next_round
from tests.engine.narrative8e.test_match_play_more import (
    end_turn,
    new,
    replays,
    shoot_down,
    small,
    to_phase,
)
from tests.engine.narrative8e.test_stratagem_timings import use
from tests.engine.wh40k10e.battle.table import unit

MISSIONS = match_missions()

LASCANNON = {
    "name": "Lascannon",
    "kind": "ranged",
    "attacks": "1",
    "skill": 3,
    "strength": 12,
    "ap": -3,
    "damage": "D6+1",
    "range": 48,
    "models": 1,
    "abilities": [],
}


def jet(uid: str, name: str) -> Any:
    return unit(
        uid, name, points=50, models=1, wounds=12, keywords=AIRCRAFT, abilities=(Ability.HOVER,)
    )


def snaps() -> dict[Seat, dict[str, Any]]:
    """Every unit of each side (a1..a9, b1..b9: index 0..8) carries one lascannon."""
    return {
        seat: {"units": [{"index": i, "weapons": [dict(LASCANNON)]} for i in range(9)]}
        for seat in (Seat.A, Seat.B)
    }


def dogfight_battle() -> Battle:
    att = ArmySpec("att", (unit("a1", "Raiders", points=200), jet("a9", "Jet")))
    dfn = ArmySpec("dfn", (unit("b1", "Guards", points=100), jet("b9", "Interceptor")))
    m = MISSIONS["blitz"]
    m = dataclasses.replace(
        m, options={**m.options, "expansion": expansions()["death-from-the-skies"]}
    )
    options = BattleOptions(
        starting_cp=3, expansion="death-from-the-skies", prompt_rapid_ingress=False
    )
    bt = Battle.create(MatchSetup({Seat.A: att, Seat.B: dfn}, "strike_force", m, options))
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "declare_formations", "formation": {"hover": ["a9"]}}, "A")
    bt.execute_json({"type": "declare_formations", "formation": {"hover": ["b9"]}}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1"}, "reserves": ["b9"]}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1"], "reserves": ["a9"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    next_round(bt)
    bt.execute_json({"type": "end_phase"}, "A")
    bt.execute_json({"type": "reserve_roll", "unit": "a9"}, "A", dice=[5])
    while bt.state.active is Seat.A:
        bt.execute_json({"type": "end_phase"}, "A", dice=[])
    bt.execute_json({"type": "end_phase"}, "B")
    bt.execute_json({"type": "reserve_roll", "unit": "b9"}, "B", dice=[6])
    bt.execute_json({"type": "end_phase"}, "B")  # Shooting: the Dogfight
    return bt


def hit_modifier(bt: Battle, attacker: str, target: str) -> int:
    built = combat.build_request(
        snaps(), bt.state, attacker, target, [{"weapon": "Lascannon", "models": 1}]
    )
    return int(built.request["situation"].get("hit_modifier", 0))


def test_the_dogfight_pick_modifies_the_hit_rolls_of_the_aircraft_at_its_target() -> None:
    bt = dogfight_battle()
    assert hit_modifier(bt, "b9", "a9") == 0  # no pick yet
    bt.execute_json({"type": "dogfight_pick", "aircraft": "b9", "target": "a9", "arc": "rear"}, "B")
    assert hit_modifier(bt, "b9", "a9") == -2  # rear arc as written (the calculator caps it)
    assert hit_modifier(bt, "a9", "b9") == 0  # A has not picked
    bt.execute_json(
        {"type": "dogfight_pick", "aircraft": "a9", "target": "b9", "arc": "front"}, "A"
    )
    assert hit_modifier(bt, "a9", "b9") == 1
    assert hit_modifier(bt, "b9", "a9") == -2
    # next turn: the picks were this turn's only
    next_round(bt)
    assert hit_modifier(bt, "b9", "a9") == 0


def n_of(bt: Battle) -> NarrativeState:
    n = bt.state.narrative
    assert n is not None
    return n


def situation(bt: Battle, attacker: str, target: str) -> dict[str, Any]:
    built = combat.build_request(
        snaps(), bt.state, attacker, target, [{"weapon": "Lascannon", "models": 1}]
    )
    return dict(built.request["situation"])


# -- mission stratagems that roll their dice -------------------------------------------------


def test_meat_grinder_booby_traps_slay_a_returned_unit_on_sixes() -> None:
    att, dfn = small()
    bt = new("meat-grinder", att, dfn, cp=6)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # 350 v 200 points: A attacks
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "go_to_ground", "units": []}, "B")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[2])  # the Attacker first
    end_turn(bt, "A")
    shoot_down(bt, "b1", "a1", [1] * 5)  # a1's five models slain
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.MOVEMENT)
    with pytest.raises(Refusal, match="set up again by sustained assault"):
        use(bt, "B", "booby-traps", target="a1")  # a1 has not come back yet
    bt.execute_json({"type": "assault_return"}, "A", dice=[2])  # 2 + 2 (INFANTRY): back
    assert n_of(bt).arrived_now == ("a1",)
    with pytest.raises(Refusal, match="set up again by sustained assault"):
        use(bt, "B", "booby-traps", target="a2")  # not a replacement unit
    cp_before = bt.state.players[Seat.B].cp
    bt.execute_json(
        {"type": "use_mission_stratagem", "stratagem": "booby-traps", "target": "a1"},
        "B",
        dice=[6, 2, 6, 1, 5],
    )
    assert bt.state.units["a1"].models_alive == 3  # two sixes: two models slain
    assert bt.state.players[Seat.B].cp == cp_before - 1
    event = bt.log_json("A")[-1]["event"]
    assert (event["type"], event["slain"]) == ("narrative_stratagem_dice", 2)
    # the Attacker's own stratagem for that arrival [L171]: accepted, the set-up is the table's
    use(bt, "A", "flank-reinforcements", target="a1")
    end_turn(bt, "A")
    replays(bt)


def test_blitz_proximity_mines_entrenchments_and_a_destruction_scored() -> None:
    att, dfn = small()
    bt = new("blitz", att, dfn, cp=6)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # A attacks
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    with pytest.raises(Refusal, match="name one of your units"):
        use(bt, "B", "entrenchments", target="a1")
    use(bt, "B", "entrenchments", target="b1")  # as b1 is set up [L393]
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "go_to_ground", "units": []}, "B")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # Blitz: the Attacker first
    to_phase(bt, "A", Phase.SHOOTING)
    # +1 to b1's saves against shooting until it moves; none for b2
    assert situation(bt, "a1", "b1").get("save_modifier") == 1
    assert "save_modifier" not in situation(bt, "a1", "b2")
    # a2 moved into the First Line: the mines, a D6 per model, each 6 slays one [L397]
    bt.execute_json(
        {"type": "use_mission_stratagem", "stratagem": "proximity-mines", "target": "a2"},
        "B",
        dice=[6, 6, 6, 6, 6],
    )
    assert not bt.state.units["a2"].alive
    assert n_of(bt).destructions == 1  # Contested Approach: the Defender's VP [L371]
    bt.execute_json(
        {"type": "use_mission_stratagem", "stratagem": "proximity-mines", "target": "a1"},
        "B",
        dice=[1, 6, 5, 2, 3],
    )
    assert bt.state.units["a1"].models_alive == 4
    assert bt.state.players[Seat.B].cp == 6 - 2 - 1 - 1 + 1  # one Command phase gained
    with pytest.raises(Refusal, match="met the mines already"):
        use(bt, "B", "proximity-mines", target="a1")
    with pytest.raises(Refusal, match="enemy unit"):
        use(bt, "B", "proximity-mines", target="b2")
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.MOVEMENT)
    bt.execute_json({"type": "move", "unit": "b1", "mode": "normal"}, "B")
    end_turn(bt, "B")
    assert n_of(bt).entrenched == frozenset()  # it moved: the entrenchment is left
    to_phase(bt, "A", Phase.SHOOTING)
    assert "save_modifier" not in situation(bt, "a1", "b1")
    replays(bt)


def test_ambush_iron_discipline_rolls_for_each_unit_gone_to_ground() -> None:
    att, dfn = small()
    bt = new("ambush", att, dfn, cp=6)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # A attacks
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "a1", "t2": "a2"}}, "A")
    bt.execute_json({"type": "deploy_forces", "units": ["b1", "b2"]}, "B")
    bt.execute_json({"type": "go_to_ground", "units": ["b1", "b2"]}, "B")
    # both hit (6), gone to ground: D3 mortal wounds each (1)
    use_dice = {"type": "use_mission_stratagem", "stratagem": "preliminary-bombardment"}
    bt.execute_json(use_dice, "A", dice=[6, 1, 6, 1])
    assert n_of(bt).grounded == frozenset({"b1", "b2"})
    # a D6 per unit gone to ground, in unit order: b1 rolls 1 (stays down), b2 rolls 2 (2+)
    iron = {"type": "use_mission_stratagem", "stratagem": "iron-discipline"}
    bt.execute_json(iron, "B", dice=[1, 2])
    assert n_of(bt).grounded == frozenset({"b1"})
    assert n_of(bt).steady == frozenset({"b2"})
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # Ambush: the Attacker first
    # A's turn: b1 may be shot at, and shoots back in A's turn (not its own turn)
    to_phase(bt, "A", Phase.SHOOTING)
    assert situation(bt, "a1", "b1")["hit_modifier"] == -1  # the dawn raid
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.MOVEMENT)
    with pytest.raises(Refusal, match="went to ground: it does not move"):
        bt.execute_json({"type": "move", "unit": "b1", "mode": "normal"}, "B")
    bt.execute_json({"type": "move", "unit": "b1", "mode": "remain_stationary"}, "B")
    bt.execute_json({"type": "move", "unit": "b2", "mode": "normal"}, "B")  # steady
    to_phase(bt, "B", Phase.SHOOTING)
    with pytest.raises(Refusal, match="went to ground: it does not shoot"):
        bt.execute_json({"type": "shoot", "unit": "b1", "targets": ["a1"]}, "B")
    with pytest.raises(InvalidAttack, match="went to ground"):
        situation(bt, "b1", "a1")
    situation(bt, "b2", "a1")  # steady: it acts normally
    end_turn(bt, "B")
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.SHOOTING)
    situation(bt, "b1", "a1")  # round 2: its first turn is over
    bt.execute_json({"type": "shoot", "unit": "b1", "targets": ["a1"]}, "B")
    replays(bt)


def test_rescue_night_raid_brings_the_dawn_raid() -> None:
    att, dfn = small()
    bt = new("rescue", att, dfn, cp=6)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "deploy_forces", "units": ["b1"], "reserves": ["b2"]}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    assert n_of(bt).dawn_raid_rounds == 0
    use(bt, "A", "night-raid")
    assert n_of(bt).dawn_raid_rounds == 1  # the Dawn Raid rule [L541]: round 1
    replays(bt)


# -- the 10th edition's own reserves in a scenario ---------------------------------------------


def night(mission: str, att: ArmySpec, dfn: ArmySpec) -> Battle:
    m = MISSIONS[mission]
    m = dataclasses.replace(m, options={**m.options, "combat_zone": combat_zones()["night-fight"]})
    options = BattleOptions(starting_cp=3, combat_zone="night-fight", prompt_rapid_ingress=False)
    return Battle.create(MatchSetup({Seat.A: att, Seat.B: dfn}, "strike_force", m, options))


def test_meat_grinder_defender_declares_no_unit_in_reserve() -> None:
    att, dfn = small()
    bt = new("meat-grinder", att, dfn)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # A attacks
    reserve = {"type": "declare_formations", "formation": {"reserves": [["b2", "strategic"]]}}
    with pytest.raises(Refusal, match=r"may not arrive later.*\[L135\]"):
        bt.execute_json(reserve, "B")
    assert not bt.state.players[Seat.B].formation_submitted
    # the Attacker may: its scenario gives it reserves
    bt.execute_json(
        {"type": "declare_formations", "formation": {"reserves": [["a2", "strategic"]]}}, "A"
    )
    bt.execute_json({"type": "declare_formations", "formation": {}}, "B")
    assert n_of(bt).step == "hidden_deployment"


def test_night_fight_fog_of_war_on_a_strategic_reserve_arrival_once() -> None:
    att, dfn = small()
    bt = night("blitz", att, dfn)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # A attacks
    bt.execute_json(
        {"type": "declare_formations", "formation": {"reserves": [["a2", "strategic"]]}}, "A"
    )
    bt.execute_json({"type": "declare_formations", "formation": {}}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1"]}, "A")
    bt.execute_json({"type": "go_to_ground", "units": []}, "B")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    next_round(bt)
    to_phase(bt, "A", Phase.MOVEMENT)
    # round 2: a2 arrives by Strategic Reserves; the fog's D6, 2: back into Reserve [L591]
    bt.execute_json({"type": "arrive", "unit": "a2"}, "A", dice=[2])
    a2 = bt.state.units["a2"]
    assert (str(a2.location), a2.must_arrive) == ("reserves", 3)
    assert n_of(bt).fog_rolled == frozenset({"a2"})
    event = bt.log_json("A")[-1]["event"]
    assert (event["type"], event["delayed"]) == ("narrative_fog_of_war", True)
    end_turn(bt, "A")
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.MOVEMENT)
    # round 3: it arrives, no second fog roll
    bt.execute_json({"type": "arrive", "unit": "a2"}, "A", dice=[])
    assert str(bt.state.units["a2"].location) == "battlefield"
    replays(bt)
