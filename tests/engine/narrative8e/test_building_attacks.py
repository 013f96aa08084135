"""Attacks on and by the expansions' buildings rolled by the match from the pack's profiles
(ruling 91), with dice given by hand: every die in the event, the log replays."""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.narrative8e.match import expansions
from app.engine.roller import Roller
from app.engine.wh40k10e.battle import ArmySpec, Battle, BattleOptions, MatchSetup, Seat
from app.engine.wh40k10e.battle.state import Phase
from app.engine.wh40k10e.live import resolve
from app.engine.wh40k10e.profiles import request_from_dict
from tests.engine.narrative8e.test_expansions_play import (
    MISSIONS,
    new,
    refused,
    replays,
    x_of,
)
from tests.engine.narrative8e.test_match_play_more import end_turn, to_phase
from tests.engine.wh40k10e.battle.table import unit

LASCANNON = {
    "name": "Lascannon",
    "kind": "ranged",
    "attacks": "1",
    "skill": 3,
    "strength": 12,
    "ap": -3,
    "damage": "D6+1",
    "range": 48,
    "abilities": [],
}
CHAINSWORD = {
    "name": "Chainsword",
    "kind": "melee",
    "attacks": "2",
    "skill": 3,
    "strength": 4,
    "ap": 0,
    "damage": "1",
}


def stronghold() -> Battle:
    att = ArmySpec(
        "att",
        (
            unit("a1", "Raiders", points=200, models=10),
            unit("a2", "Gunners", points=150, models=5),
        ),
    )
    bt = new("blitz", "stronghold-assault", att)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_building", "building": "bunker"}, "B")
    bt.execute_json(
        {"type": "place_building", "building": "fortress", "weapon": "heavy-bolter:2"}, "B"
    )
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # Blitz: the Attacker first
    return bt


def events(bt: Battle, kind: str) -> list[dict[str, object]]:
    return [e["event"] for e in bt.log_json("A") if e["event"]["type"] == kind]


def test_a_unit_shoots_and_fights_a_fortress_rolled_by_the_match() -> None:
    bt = stronghold()
    to_phase(bt, "A", Phase.SHOOTING)
    attack = {
        "type": "attack_building",
        "unit": "a2",
        "building": "fortress-1",
        "attacks": [{"models": 1, "weapon": LASCANNON}],
    }
    # T10 Sv3+ from the pack: hit 4 (3+), wound 5 (S12 v T10: 3+), save 2 (3+ AP-3: 6+)
    # fails, damage D6+1 = 5
    bt.execute_json(attack, "A", dice=[4, 5, 2, 4])
    assert x_of(bt).buildings[1].wounds == 25
    ev = events(bt, "expansion_building_attacked")[0]
    assert (ev["hits"], ev["wounds"], ev["demolitions"]) == (1, 5, 0)
    assert [d["value"] for d in ev["roll"]["dice"]] == [4, 5, 2, 4]  # type: ignore[index]
    # once per phase against that building; a melee weapon is for the Fight phase
    rolls = bt.state.rolls
    assert "already" in refused(bt, attack, "A", dice=[4, 5, 2, 4])
    melee = {**attack, "unit": "a1", "attacks": [{"models": 2, "weapon": CHAINSWORD}]}
    assert "ranged weapon" in refused(bt, melee, "A", dice=[6, 6, 6, 6])
    assert bt.state.rolls == rolls  # refused: nothing rolled
    to_phase(bt, "A", Phase.FIGHT)
    bt.execute_json({"type": "use_mission_stratagem", "stratagem": "sappers", "target": "a1"}, "A")
    # the Fight phase: 4 attacks hit automatically [L837]; wound rolls 6, 5, 1, 2 with
    # Sappers' +1 (S4 v T10: 6+) [L863]: two wounds, both 6+ after the +1: two Demolitions
    # mortal wounds [L809-L813]; saves 1 (failed), 3 (saved): 1 damage + 2 = 3
    bt.execute_json(melee, "A", dice=[6, 5, 1, 2, 1, 3])
    assert x_of(bt).buildings[1].wounds == 22
    ev = events(bt, "expansion_building_attacked")[1]
    assert (ev["phase"], ev["hits"], ev["wounds"], ev["demolitions"]) == ("fight", 4, 3, 2)
    replays(bt)


def test_a_fortress_shoots_with_the_packs_profiles_and_bs() -> None:
    bt = stronghold()
    end_turn(bt, "A")
    assert "not yours" not in refused(
        bt,
        {
            "type": "building_shoots",
            "building": "fortress-1",
            "weapon": "icarus-lascannon",
            "target": "a2",
            "save": 3,
        },
        "B",
    )  # not in the Shooting phase yet
    to_phase(bt, "B", Phase.SHOOTING)
    fortress = bt.view("B")["narrative"]["expansion"]["buildings"][1]
    assert fortress["weapons"] == {"icarus-lascannon": 2, "missile-silo": 1, "heavy-bolter": 2}
    shot = {
        "type": "building_shoots",
        "building": "fortress-1",
        "weapon": "icarus-lascannon",
        "target": "a2",
        "save": 3,
        "toughness": 4,
    }
    # the datasheet data has no toughness for a2: the controller gives it
    assert "toughness" in refused(bt, {**shot, "toughness": None}, "B")
    assert "within 18" in refused(
        bt, {**shot, "weapon": "missile-silo", "within_18": True}, "B"
    )  # [L849]
    assert "carries no" in refused(bt, {**shot, "weapon": "quad-gun"}, "B")
    assert "carries no" in refused(bt, {**shot, "building": "bunker-1"}, "B")  # no weapons
    # two Icarus lascannons at BS5+: hits 5, 2; wound 3 (S9 v T4: 2+); save 4 (3+ AP-3: 6+)
    # fails; damage D6 = 5 on a 1-wound model: one slain, the excess lost
    bt.execute_json(shot, "B", dice=[5, 2, 3, 4, 5])
    assert bt.state.units["a2"].models_alive == 4
    ev = events(bt, "expansion_building_fired")[0]
    assert (ev["hits"], ev["modifier"]) == (1, 0)
    assert "fired this phase" in refused(bt, shot, "B", dice=[5, 2, 3, 4, 5])
    # the extra heavy bolters: 2 x Heavy 3 at BS5+ = 6 attacks, S5 v T4 (3+), AP-1 v 3+ (4+)
    bolters = {**shot, "weapon": "heavy-bolter", "target": "a1"}
    bt.execute_json(bolters, "B", dice=[6, 5, 1, 1, 1, 1, 3, 4, 1, 6])
    assert bt.state.units["a1"].models_alive == 9
    replays(bt)


def test_a_defence_emplacement_hits_fliers_and_orbit_arrivals_better() -> None:
    """+1 to hit against a unit that can FLY, -1 against the others [L709]."""
    flyer = ArmySpec(
        "att",
        (
            unit("a1", "Raiders", points=200),
            unit("a2", "Jet", points=150, models=1, wounds=10, keywords=("VEHICLE", "FLY")),
        ),
    )
    bt = new("blitz", "planetstrike", flyer)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json(
        {"type": "place_building", "building": "defence-emplacement", "weapon": "quad-gun"}, "B"
    )
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": [], "reserves": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "firestorm", "attacks": 0, "hits": {}}, "A")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    to_phase(bt, "A", Phase.MOVEMENT)
    for u in ("a1", "a2"):
        bt.execute_json({"type": "reserve_roll", "unit": u}, "A", dice=[6])
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.SHOOTING)
    shot = {
        "type": "building_shoots",
        "building": "defence-emplacement-1",
        "weapon": "quad-gun",
        "target": "a2",
        "save": 3,
        "toughness": 9,
    }
    # 8 shots at BS5+ with +1: 4s hit; S7 v T9 (5+); AP-1 v 3+ (4+); damage 1
    bt.execute_json(shot, "B", dice=[4, 4, 3, 3, 3, 3, 3, 3, 5, 1, 1])
    ev = events(bt, "expansion_building_fired")[0]
    assert (ev["modifier"], ev["hits"]) == (1, 2)
    assert bt.state.units["a2"].wounds == (9,)
    replays(bt)


def test_refused_building_commands_roll_nothing() -> None:
    bt = stronghold()
    to_phase(bt, "A", Phase.SHOOTING)
    before, rolls = len(bt.log_json("A")), bt.state.rolls
    with pytest.raises(Refusal, match="yours"):
        bt.execute_json(
            {
                "type": "building_shoots",
                "building": "fortress-1",
                "weapon": "heavy-bolter",
                "target": "b1",
                "save": 3,
                "toughness": 3,
            },
            "A",
            dice=[6] * 6,
        )
    assert (len(bt.log_json("A")), bt.state.rolls) == (before, rolls)
    assert bt.state.units["b1"].models_alive == 5


def test_a_weapon_fired_at_a_building_is_used_for_the_phase() -> None:
    """Each weapon is used once a phase [L1401-1405], whatever it shoots (ruling 91)."""
    bt = stronghold()
    to_phase(bt, "A", Phase.SHOOTING)
    attack = {
        "type": "attack_building",
        "unit": "a2",
        "building": "fortress-1",
        "attacks": [{"models": 5, "weapon": LASCANNON}],
    }
    bt.execute_json(attack, "A", dice=[1, 1, 1, 1, 1])  # five misses
    bt.execute_json({"type": "shoot", "unit": "a2", "targets": ["b1"]}, "A")
    again = {
        "type": "resolve_attack",
        "attacker": "a2",
        "target": "b1",
        "damage": [1],
        "weapons": [{"unit": "a2", "weapon": "Lascannon", "models": 1}],
    }
    assert "Lascannon" in refused(bt, again, "A")
    bunker = {**attack, "building": "bunker-1", "attacks": [{"models": 1, "weapon": LASCANNON}]}
    assert "Lascannon" in refused(bt, bunker, "A", dice=[1])
    # a part that is not the unit's is refused before any die
    other = {**attack, "attacks": [{"models": 1, "unit": "a1", "weapon": LASCANNON}]}
    assert "not a part" in refused(bt, {**other, "building": "bunker-1"}, "A")


def test_an_attack_on_a_building_is_bounded() -> None:
    """Every input has bounds: 10 models at 10D6+100 attacks each are refused before any die."""
    bt = stronghold()
    to_phase(bt, "A", Phase.SHOOTING)
    rolls = bt.state.rolls
    huge = {**LASCANNON, "attacks": "10D6+100"}
    attack = {
        "type": "attack_building",
        "unit": "a1",
        "building": "fortress-1",
        "attacks": [{"models": 10, "weapon": huge}],
    }
    assert "at most 400 attacks" in refused(bt, attack, "A")
    assert bt.state.rolls == rolls


# -- issue 15's review: the damage constant, Sappers' scope, the profiles recorded (ruling 99)


def _uploaded_stronghold(att: ArmySpec, damage: str) -> Battle:
    """Blitz in Stronghold Assault from a pack whose Icarus lascannon does ``damage`` (an
    uploaded pack may give "D6+1": the pack check allows a dice expression), set up to the
    Attacker's first turn as :func:`stronghold`."""
    x = copy.deepcopy(expansions()["stronghold-assault"])
    weapons: Any = x["weapons"]
    for w in weapons:
        if w["id"] == "icarus-lascannon":
            w["damage"] = damage
    m = MISSIONS["blitz"]
    m = dataclasses.replace(m, options={**m.options, "expansion": x})
    dfn = ArmySpec(
        "dfn",
        (unit("b1", "Guards", points=100), unit("b2", "Wardens", points=100, wounds=2)),
    )
    options = BattleOptions(
        starting_cp=3, expansion="stronghold-assault", prompt_rapid_ingress=False
    )
    setup = MatchSetup({Seat.A: att, Seat.B: dfn}, "strike_force", m, options)
    bt = Battle.create(setup)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_building", "building": "bunker"}, "B")
    bt.execute_json({"type": "place_building", "building": "fortress"}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": [u.id for u in att.units]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    return bt


def test_a_building_shot_adds_its_damage_constant_to_each_failed_save() -> None:
    """A pack weapon's "D6+1" does the die plus 1 for each failed save (the shot used to
    lose the +1: a 3 took 3 wounds, not 4)."""
    att = ArmySpec("att", (unit("a2", "Big", points=250, models=1, wounds=12),))
    bt = _uploaded_stronghold(att, "D6+1")
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.SHOOTING)
    shot = {
        "type": "building_shoots",
        "building": "fortress-1",
        "weapon": "icarus-lascannon",
        "target": "a2",
        "save": 3,
        "toughness": 6,
    }
    # two lascannons BS5+: hits 5, 5; wounds 3, 3 (S9 v T6: 3+); saves 1, 1 (3+ AP-3: 6+)
    # fail; damage dice 3 and 2: D6+1 = 4 and 3, so 12 - 7 = 5 wounds left
    bt.execute_json(shot, "B", dice=[5, 5, 3, 3, 1, 3, 1, 2])
    assert bt.state.units["a2"].wounds == (5,)
    ev = events(bt, "expansion_building_fired")[0]
    assert [d["damage"] for d in ev["damage"]] == [4, 3]  # type: ignore[union-attr]
    replays(bt)


def test_a_building_shot_with_a_fixed_or_d3_damage_plus_a_constant() -> None:
    """ "D3+2": the D3 (given by hand as its result) and 2; a plain "2" rolls no die."""
    att = ArmySpec("att", (unit("a2", "Big", points=250, models=1, wounds=12),))
    bt = _uploaded_stronghold(att, "D3+2")
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.SHOOTING)
    shot = {
        "type": "building_shoots",
        "building": "fortress-1",
        "weapon": "icarus-lascannon",
        "target": "a2",
        "save": 3,
        "toughness": 6,
    }
    # hits 5, 1; wound 3; save 1 fails; the D3 rolls 3: 3 + 2 = 5
    bt.execute_json(shot, "B", dice=[5, 1, 3, 1, 3])
    assert bt.state.units["a2"].wounds == (7,)
    fixed = _uploaded_stronghold(att, "2")
    end_turn(fixed, "A")
    to_phase(fixed, "B", Phase.SHOOTING)
    # hits 5, 5; wounds 3, 3; saves 1 (fails) and 6 (saved): 2 damage, no damage die
    fixed.execute_json(shot, "B", dice=[5, 5, 3, 3, 1, 6])
    assert fixed.state.units["a2"].wounds == (10,)


def test_a_unit_attacking_a_building_adds_its_damage_constant() -> None:
    """attack_building takes the pipeline's damage: a "D6+2" weapon does the die plus 2
    for each failed save against the building."""
    bt = stronghold()
    to_phase(bt, "A", Phase.SHOOTING)
    melta = {**LASCANNON, "name": "Meltagun", "strength": 9, "damage": "D6+2"}
    attack = {
        "type": "attack_building",
        "unit": "a2",
        "building": "fortress-1",
        "attacks": [{"models": 2, "weapon": melta}],
    }
    # hits 4, 4; wounds 5, 6 (S9 v T10: 5+); saves 2, 1 (3+ AP-3: 6+) fail; damage dice
    # 3 and 6: 5 + 8 = 13 of the Fortress's 30
    bt.execute_json(attack, "A", dice=[4, 4, 5, 6, 2, 3, 1, 6])
    assert x_of(bt).buildings[1].wounds == 17
    ev = events(bt, "expansion_building_attacked")[0]
    assert (ev["hits"], ev["wounds"]) == (2, 13)
    replays(bt)


def _melee(unit_id: str) -> dict[str, object]:
    return {
        "type": "attack_building",
        "unit": unit_id,
        "building": "fortress-1",
        "attacks": [{"models": 1, "weapon": dict(CHAINSWORD)}],
    }


def _wound_modifiers(bt: Battle, command: dict[str, object], seat: str) -> list[int]:
    """The modifiers of the wound rolls of the attack on a building ``command`` makes (a
    Chainsword's two attacks, wound rolls 3 and 3, no wound either way: S4 v T10 is 6+)."""
    envs = bt.execute_json(command, seat, dice=[3, 3])
    ev = next(e.event for e in envs if e.event.kind == "expansion_building_attacked")
    return [d.modifier for d in ev.roll.dice if d.stage == "wound"]


def test_sappers_is_for_the_unit_it_names_in_the_fight_phase_it_is_used() -> None:
    """+1 to wound for that unit against a Bunker or Fortress "this phase" [L861-L863]: not
    in the opponent's Fight phase of the same round, nor for another round's use on another
    unit (it used to be "used this round" and "this unit was ever named")."""
    bt = stronghold()
    to_phase(bt, "A", Phase.FIGHT)
    sappers = {"type": "use_mission_stratagem", "stratagem": "sappers", "target": "a1"}
    bt.execute_json(sappers, "A")
    assert _wound_modifiers(bt, _melee("a1"), "A") == [1, 1]
    assert _wound_modifiers(bt, _melee("a2"), "A") == [0, 0]  # not the unit named
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.FIGHT)  # round 1, B's turn: a1 fights again, no new Sappers
    assert _wound_modifiers(bt, _melee("a1"), "A") == [0, 0]
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.FIGHT)
    assert bt.state.round == 2
    bt.execute_json({**sappers, "target": "a2"}, "A")
    assert _wound_modifiers(bt, _melee("a1"), "A") == [0, 0]  # named in round 1 only
    assert _wound_modifiers(bt, _melee("a2"), "A") == [1, 1]
    x = x_of(bt)
    assert [(r, str(a), p, u) for r, a, p, u in x.sappers] == [
        (1, "A", "fight", "a1"),
        (2, "A", "fight", "a2"),
    ]
    replays(bt)


def test_sappers_used_in_the_opponents_fight_phase_counts_there_only() -> None:
    bt = stronghold()
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.FIGHT)
    bt.execute_json({"type": "use_mission_stratagem", "stratagem": "sappers", "target": "a1"}, "A")
    assert _wound_modifiers(bt, _melee("a1"), "A") == [1, 1]
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.FIGHT)  # round 2, A's own Fight phase
    assert _wound_modifiers(bt, _melee("a1"), "A") == [0, 0]


def test_an_attack_on_a_building_logs_the_profiles_it_rolled() -> None:
    """The event holds the request rolled (each weapon's A, BS, S, AP, D and abilities, the
    building's T, Sv and wounds, Sappers' +1), so the opponent can roll it again with the
    event's dice and find the same wounds; a log recorded before it replays."""
    bt = stronghold()
    to_phase(bt, "A", Phase.SHOOTING)
    attack = {
        "type": "attack_building",
        "unit": "a2",
        "building": "fortress-1",
        "attacks": [{"models": 1, "weapon": LASCANNON}],
    }
    bt.execute_json(attack, "A", dice=[4, 5, 2, 4])
    to_phase(bt, "A", Phase.FIGHT)
    bt.execute_json({"type": "use_mission_stratagem", "stratagem": "sappers", "target": "a1"}, "A")
    melee = {**attack, "unit": "a1", "attacks": [{"models": 2, "weapon": CHAINSWORD}]}
    bt.execute_json(melee, "A", dice=[6, 5, 1, 2, 1, 3])
    shot, fight = events(bt, "expansion_building_attacked")
    request: Any = shot["request"]
    assert request["attacks"] == [{"models": 1, "weapon": LASCANNON}]
    assert request["target"] == {
        "models": 1,
        "toughness": 10,
        "save": 3,
        "wounds": 30,
        "keywords": ["BUILDING", "FORTIFICATION"],
    }
    request = fight["request"]
    weapon = request["attacks"][0]["weapon"]
    # melee hits automatically [L701]: rolled as Torrent with no hit roll, the rest its own
    assert (weapon["attacks"], weapon["strength"], weapon["ap"], weapon["damage"]) == (
        "2",
        4,
        0,
        "1",
    )
    assert (weapon["abilities"], weapon["skill"]) == (["Torrent"], None)
    assert request["situation"] == {"wound_modifier": 1}
    assert request["target"]["wounds"] == 25
    for ev in (shot, fight):  # the opponent's check: the same request, the same dice
        dice: Any = ev["roll"]
        again = resolve(
            request_from_dict(ev["request"]),  # type: ignore[arg-type]
            Roller.from_values(d["value"] for d in dice["dice"]),
        )
        assert again.target_after.wounds_lost + ev["demolitions"] == ev["wounds"]  # type: ignore[operator]
    # a log recorded before the field was added replays (no request: None)
    log = json.loads(json.dumps(bt.export_log()))
    for e in log["events"]:
        if e["event"]["type"] == "expansion_building_attacked":
            del e["event"]["request"]
    old = Battle.import_log(log)
    assert old.state == bt.state
