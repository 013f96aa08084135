"""The four expansions as an option of a narrative mission, played through
``Battle.execute_json`` with dice given by hand (docs/rulings/narrative-8e.md, 61-70)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from app.engine.match.errors import Refusal
from app.engine.narrative8e.match import expansions, match_missions
from app.engine.wh40k10e.battle import (
    Ability,
    ArmySpec,
    Battle,
    BattleOptions,
    MatchSetup,
    Seat,
    UnitSpec,
)
from app.engine.wh40k10e.battle.narrative_expansions import ExpansionState
from app.engine.wh40k10e.battle.state import Location, Phase, Stage
from tests.engine.wh40k10e.battle.table import unit

MISSIONS = match_missions()
AIRCRAFT = ("AIRCRAFT", "VEHICLE", "FLY")


def new(mission: str, expansion: str, att: ArmySpec | None = None, cp: int = 3) -> Battle:
    m = MISSIONS[mission]
    m = dataclasses.replace(m, options={**m.options, "expansion": expansions()[expansion]})
    att = att or ArmySpec(
        "att",
        (
            unit("a1", "Raiders", points=200),
            unit("a2", "Tank", points=150, models=1, wounds=10, keywords=("VEHICLE",)),
        ),
    )
    dfn = ArmySpec(
        "dfn",
        (unit("b1", "Guards", points=100), unit("b2", "Wardens", points=100, wounds=2)),
    )
    options = BattleOptions(starting_cp=cp, expansion=expansion, prompt_rapid_ingress=False)
    return Battle.create(MatchSetup({Seat.A: att, Seat.B: dfn}, "strike_force", m, options))


def x_of(bt: Battle) -> ExpansionState:
    n = bt.state.narrative
    assert n is not None
    assert n.expansion is not None
    return n.expansion


def replays(bt: Battle) -> None:
    assert Battle.import_log(json.loads(json.dumps(bt.export_log()))).state == bt.state


def to_blitz_bombardment(
    bt: Battle, *, attacker_units: list[str], reserves: list[str], hover: tuple[str, ...] = ()
) -> None:
    """Blitz up to its bombardment step: A attacks (350 > 200 points); ``hover``: A's
    AIRCRAFT set up as any unit (in Hover mode for the 10th edition's Battle Formations)."""
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "declare_formations", "formation": {"hover": list(hover)}}, "A")
    bt.execute_json({"type": "declare_formations", "formation": {}}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": attacker_units, "reserves": reserves}, "A")


def refused(bt: Battle, cmd: dict[str, object], seat: str, dice: list[int] | None = None) -> str:
    with pytest.raises(Refusal) as info:
        bt.execute_json(cmd, seat, dice=dice or [])
    return info.value.message


# -- Planetstrike ----------------------------------------------------------------------------


def test_planetstrike_firestorm_bastion_planetary_assault_and_garrison() -> None:
    bt = new("blitz", "planetstrike")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    assert "Attacker" not in refused(bt, {"type": "place_building", "building": "bunker"}, "B")
    assert refused(bt, {"type": "place_building", "building": "bastion"}, "A")  # Defender's
    bt.execute_json({"type": "place_building", "building": "bastion"}, "B")
    # an emplacement needs its one gun: Icarus lascannon or quad-gun [L709]
    assert "quad-gun" in refused(
        bt, {"type": "place_building", "building": "defence-emplacement"}, "B"
    )
    bt.execute_json(
        {"type": "place_building", "building": "defence-emplacement", "weapon": "quad-gun"}, "B"
    )
    bastion, emplacement = x_of(bt).buildings
    assert (bastion.id, bastion.wounds, bastion.capacity) == ("bastion-1", 20, 20)
    assert (emplacement.wounds, emplacement.capacity, emplacement.weapon) == (3, 0, "quad-gun")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    # Planetary Assault: no Attacker unit is set up [L687]
    assert "Reserve" in refused(
        bt, {"type": "deploy_forces", "units": ["a1"], "reserves": ["a2"]}, "A"
    )
    bt.execute_json({"type": "deploy_forces", "units": [], "reserves": ["a1", "a2"]}, "A")
    assert x_of(bt).placements == {"a1": "orbit", "a2": "landing_zone"}
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])  # both missed
    # the garrison: INFANTRY of the Defender, up to 20 models
    bt.execute_json({"type": "occupy_building", "building": "bastion-1", "unit": "b1"}, "B")
    assert x_of(bt).buildings[0].occupants == (("b1", 5),)
    # the first turn waits for the Firestorm Attacks
    assert "Firestorm" in refused(bt, {"type": "roll_off"}, "A")
    consolidated = {
        "type": "use_mission_stratagem",
        "stratagem": "consolidated-stronghold",
        "target": "bastion-1",
    }
    bt.execute_json(consolidated, "B")  # 2 CP: 25 wounds [L737]
    assert (x_of(bt).buildings[0].wounds, x_of(bt).buildings[0].max_wounds) == (25, 25)
    assert bt.state.players[Seat.B].cp == 1
    bt.execute_json({"type": "use_mission_stratagem", "stratagem": "scorched-skies"}, "A", dice=[2])
    assert x_of(bt).firestorm_extra == 2
    assert bt.state.players[Seat.A].cp == 1
    firestorm = {
        "type": "firestorm",
        "attacks": 1,
        "hits": {"1": ["b2"], "2": ["bastion-1"]},
        "go_to_ground": ["b2"],
    }
    assert "Attacker" in refused(bt, firestorm, "B")
    # 1 + 2 attacks: die 1 (b2 gone to ground: D3 = 2 mortal wounds), die 2 (the Bastion:
    # D6 = 5), die 4 (nothing within 3")
    bt.execute_json(firestorm, "A", dice=[1, 2, 2, 5, 4])
    assert bt.state.units["b2"].wounds == (0, 2, 2, 2, 2)
    assert bt.state.narrative is not None
    assert "b2" in bt.state.narrative.grounded
    assert x_of(bt).buildings[0].wounds == 20
    assert x_of(bt).firestorm_done
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # Blitz: the Attacker first
    assert bt.state.stage is Stage.BATTLE
    bt.execute_json({"type": "end_phase"}, "A")  # Command -> Movement
    # Rapid Drop Assault: D3 = 1 unit arrives with no roll
    bt.execute_json(
        {"type": "use_mission_stratagem", "stratagem": "rapid-drop-assault"}, "A", dice=[1]
    )
    bt.execute_json({"type": "reserve_roll", "unit": "a1"}, "A", dice=[])
    assert bt.state.units["a1"].location is Location.BATTLEFIELD
    bt.execute_json({"type": "reserve_roll", "unit": "a2"}, "A", dice=[2])  # 3+ needed
    assert bt.state.units["a2"].location is Location.RESERVES
    assert x_of(bt).orbit_arrivals == (("a1", 1),)
    assert "Defender's INFANTRY" in refused(
        bt, {"type": "occupy_building", "building": "bastion-1", "unit": "a1"}, "A"
    )
    assert "enemy" in refused(
        bt, {"type": "damage_building", "building": "bastion-1", "wounds": 3}, "B"
    )
    bt.execute_json({"type": "damage_building", "building": "bastion-1", "wounds": 20}, "A")
    b = x_of(bt).buildings[0]
    assert (b.destroyed, b.wounds, b.occupants, b.garrison_due) == (True, 0, (), (("b1", 5),))
    assert "controller" in refused(bt, {"type": "garrison_roll", "building": "bastion-1"}, "A")
    # a D6 per model: 1, 2, 3 slay three [L703]
    bt.execute_json({"type": "garrison_roll", "building": "bastion-1"}, "B", dice=[1, 2, 3, 4, 6])
    assert bt.state.units["b1"].models_alive == 2
    assert x_of(bt).buildings[0].garrison_due == ()
    view = bt.view("A")["narrative"]["expansion"]
    assert view["buildings"][0]["destroyed"] is True
    assert view["placements"] == {"a1": "orbit", "a2": "landing_zone"}
    replays(bt)


def test_planetstrike_firestorm_refusals_and_bastion_capacity() -> None:
    bt = new("blitz", "planetstrike")
    to_blitz_bombardment(bt, attacker_units=[], reserves=["a1", "a2"])
    assert "first turn" in refused(bt, {"type": "firestorm", "attacks": 1, "hits": {}}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    assert "1 to 6" in refused(bt, {"type": "firestorm", "attacks": 1, "hits": {"7": []}}, "A")
    assert "0 to 12" in refused(bt, {"type": "firestorm", "attacks": 13, "hits": {}}, "A")
    assert "INFANTRY" not in refused(
        bt, {"type": "firestorm", "attacks": 1, "hits": {}, "go_to_ground": ["a1"]}, "A"
    )
    # Consolidated Stronghold needs a Bastion
    assert "Bastion" in refused(
        bt,
        {"type": "use_mission_stratagem", "stratagem": "consolidated-stronghold", "target": "x"},
        "B",
    )
    jammers = {"type": "use_mission_stratagem", "stratagem": "targeting-jammers"}
    assert "defender" in refused(bt, jammers, "A")
    cp = bt.state.players[Seat.B].cp
    bt.execute_json(jammers, "B")  # the dice are moved at the table
    assert bt.state.players[Seat.B].cp == cp - 1
    bt.execute_json({"type": "firestorm", "attacks": 2, "hits": {"6": ["b1"]}}, "A", dice=[6, 4, 3])
    assert "Firestorm" in refused(bt, jammers, "B")
    # die 6: b1 suffers D6 = 4 mortal wounds (4 models of 1 W); die 3 hits nothing
    assert bt.state.units["b1"].models_alive == 1
    assert "before the first turn" in refused(
        bt, {"type": "firestorm", "attacks": 0, "hits": {}}, "A"
    )
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    rapid = {"type": "use_mission_stratagem", "stratagem": "rapid-drop-assault"}
    assert "Movement phase" in refused(bt, rapid, "A")  # the Command phase
    while bt.state.round == 1:
        seat = str(bt.state.active)
        for u in bt.view(seat)["pending"]["battle_shock_tests"]:  # b1, below half strength
            bt.execute_json({"type": "battle_shock_test", "unit": u}, seat, dice=[6, 6])
        bt.execute_json({"type": "end_phase"}, seat, dice=[])
    bt.execute_json({"type": "end_phase"}, "A")  # round 2: Movement
    assert "first Movement" in refused(bt, rapid, "A")
    replays(bt)


# -- Stronghold Assault ----------------------------------------------------------------------


def test_stronghold_bunker_capture_demolitions_and_escape_hatch() -> None:
    att = ArmySpec(
        "att",
        (
            unit("a1", "Raiders", points=200, models=10),
            unit("a2", "Sappers", points=150, models=5),
        ),
    )
    bt = new("blitz", "stronghold-assault", att)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_building", "building": "bunker"}, "B")
    bt.execute_json(
        {"type": "place_building", "building": "fortress", "weapon": "heavy-bolter:4"}, "B"
    )
    assert "heavy-bolter:4" in refused(
        bt, {"type": "place_building", "building": "fortress", "weapon": "heavy-bolter:5"}, "B"
    )
    bunker, fortress = x_of(bt).buildings
    assert (bunker.wounds, bunker.capacity, fortress.wounds, fortress.capacity) == (15, 20, 30, 40)
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "occupy_building", "building": "fortress-1", "unit": "b1"}, "B")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "end_phase"}, "A")  # Movement
    # the unoccupied Bunker: the Attacker occupies it and takes control [L851-L855]
    bt.execute_json({"type": "occupy_building", "building": "bunker-1", "unit": "a1"}, "A")
    bunker = x_of(bt).buildings[0]
    assert (bunker.controller, bunker.occupants) == (Seat.A, (("a1", 10),))
    # 20 models at most: 10 inside, 5 more fit
    bt.execute_json({"type": "occupy_building", "building": "bunker-1", "unit": "a2"}, "A")
    assert x_of(bt).buildings[0].models_inside == 15
    bt.execute_json({"type": "leave_building", "building": "bunker-1", "unit": "a2"}, "A")
    assert x_of(bt).buildings[0].models_inside == 10
    # the Defender's garrison holds the Fortress: no entry
    assert "held by" in refused(
        bt, {"type": "occupy_building", "building": "fortress-1", "unit": "a2"}, "A"
    )
    # Demolitions only in the Fight phase
    hit = {"type": "damage_building", "building": "fortress-1", "wounds": 10, "demolitions": 2}
    assert "Fight" in refused(bt, hit, "A")
    for _ in range(3):  # Movement -> Shooting -> Charge -> Fight
        bt.execute_json({"type": "end_phase"}, "A")
    assert bt.state.phase is Phase.FIGHT
    sappers = {"type": "use_mission_stratagem", "stratagem": "sappers", "target": "a2"}
    cp = bt.state.players[Seat.A].cp
    bt.execute_json(sappers, "A")
    assert bt.state.players[Seat.A].cp == cp - 1
    bt.execute_json(hit, "A")  # 10 wounds + 2 Demolitions mortal wounds
    assert x_of(bt).buildings[1].wounds == 18
    bt.execute_json({**hit, "wounds": 18, "demolitions": 0}, "A")
    fortress = x_of(bt).buildings[1]
    assert fortress.destroyed
    assert fortress.garrison_due == (("b1", 5),)
    # Escape Hatch [L867]: only 1s slay
    hatch = {"type": "use_mission_stratagem", "stratagem": "escape-hatch", "target": "fortress-1"}
    cp = bt.state.players[Seat.B].cp
    bt.execute_json(hatch, "B")
    assert bt.state.players[Seat.B].cp == cp - 1
    bt.execute_json({"type": "garrison_roll", "building": "fortress-1"}, "B", dice=[1, 2, 3, 1, 6])
    assert bt.state.units["b1"].models_alive == 3
    ev = [e for e in bt.log_json("A") if e["event"]["type"] == "expansion_garrison_rolled"]
    assert (ev[0]["event"]["slain_up_to"], ev[0]["event"]["slain"]) == (1, 2)
    assert "no garrison" in refused(bt, {"type": "garrison_roll", "building": "fortress-1"}, "B")
    replays(bt)


def test_demolitions_is_the_stronghold_attackers_and_needs_a_bunker_or_fortress() -> None:
    bt = new("blitz", "planetstrike")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_building", "building": "bastion"}, "B")
    assert "fortress" in refused(bt, {"type": "place_building", "building": "fortress"}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": [], "reserves": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "firestorm", "attacks": 0, "hits": {}}, "A")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    hit = {"type": "damage_building", "building": "bastion-1", "wounds": 1, "demolitions": 1}
    assert "Bunker or Fortress" in refused(bt, hit, "A")


# -- Death from the Skies ----------------------------------------------------------------------


def jet() -> UnitSpec:
    """The Attacker's AIRCRAFT (12 W, Hover)."""
    return unit(
        "a9", "Jet", points=150, models=1, wounds=12, keywords=AIRCRAFT, abilities=(Ability.HOVER,)
    )


def skies() -> Battle:
    """Blitz with Death from the Skies; the Attacker's Jet arrives (an AIRCRAFT starts in
    Reserve) in its Movement phase of round 2."""
    att = ArmySpec(
        "att",
        (
            unit("a1", "Raiders", points=200),
            jet(),
        ),
    )
    bt = new("blitz", "death-from-the-skies", att, cp=6)
    to_blitz_bombardment(bt, attacker_units=["a1"], reserves=["a9"], hover=("a9",))
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    next_round(bt)
    bt.execute_json({"type": "end_phase"}, "A")  # round 2: Movement
    bt.execute_json({"type": "reserve_roll", "unit": "a9"}, "A", dice=[3])
    assert bt.state.units["a9"].location is Location.BATTLEFIELD
    return bt


def next_round(bt: Battle) -> None:
    now = bt.state.round
    while bt.state.round == now:
        bt.execute_json({"type": "end_phase"}, str(bt.state.active), dice=[])


def test_death_from_the_skies_airspace_return_refuel_and_lost_aircraft() -> None:
    bt = skies()
    assert "AIRCRAFT" in refused(bt, {"type": "leave_airspace", "unit": "a1"}, "A")
    bt.execute_json({"type": "leave_airspace", "unit": "a9"}, "A")
    assert bt.state.units["a9"].location is Location.RESERVES
    assert x_of(bt).off_airspace == {"a9": 2}
    assert "next Movement" in refused(bt, {"type": "return_to_airspace", "unit": "a9"}, "A")
    next_round(bt)
    bt.execute_json({"type": "end_phase"}, "A")  # round 3: Movement
    bt.execute_json({"type": "return_to_airspace", "unit": "a9"}, "A", dice=[2])  # 1-2: delayed
    assert bt.state.units["a9"].location is Location.RESERVES
    assert "one return roll" in refused(bt, {"type": "return_to_airspace", "unit": "a9"}, "A")
    next_round(bt)
    bt.execute_json({"type": "end_phase"}, "A")  # round 4: Movement
    bt.execute_json({"type": "return_to_airspace", "unit": "a9"}, "A", dice=[3])  # 3+: back
    assert bt.state.units["a9"].location is Location.BATTLEFIELD
    assert x_of(bt).off_airspace == {}
    # it leaves again; Refuel, Rearm, Repair for 3 CP: back with no roll, D3 = 2 wounds back
    bt.execute_json({"type": "leave_airspace", "unit": "a9"}, "A")
    refuel = {
        "type": "use_mission_stratagem",
        "stratagem": "refuel-rearm-repair",
        "cp": 3,
        "target": "a9",
    }
    assert "costs" in refused(bt, {**refuel, "cp": 4}, "A")
    cp = bt.state.players[Seat.A].cp
    bt.execute_json(refuel, "A", dice=[2])
    assert x_of(bt).refuelled == {"a9": 3}
    assert bt.state.players[Seat.A].cp == cp - 3
    assert "once" in refused(bt, refuel, "A")
    next_round(bt)
    bt.execute_json({"type": "end_phase"}, "A")  # round 5: back with no roll
    bt.execute_json({"type": "return_to_airspace", "unit": "a9"}, "A", dice=[])
    assert bt.state.units["a9"].location is Location.BATTLEFIELD
    assert x_of(bt).refuelled == {}
    replays(bt)


def test_death_from_the_skies_never_returned_counts_as_destroyed() -> None:
    bt = skies()
    bt.execute_json({"type": "leave_airspace", "unit": "a9"}, "A")
    while bt.state.stage is Stage.BATTLE:
        last = bt.state.round == 5 and str(bt.state.active) == "B" and bt.state.phase is Phase.FIGHT
        bt.execute_json({"type": "end_phase"}, str(bt.state.active), dice=[1] if last else [])
    assert bt.state.stage is Stage.ENDED
    assert x_of(bt).never_returned == ("a9",)
    assert not bt.state.units["a9"].alive
    types = [e["event"]["type"] for e in bt.log_json("A")]
    assert types.index("expansion_aircraft_lost") < types.index("narrative_evaluated")
    assert bt.state.narrative is not None
    assert bt.state.narrative.destructions == 1  # Blitz: a destruction of the Attacker's
    replays(bt)


def test_dogfight_alternates_picks_with_the_arc_modifier_and_evasive_manoeuvres() -> None:
    att = ArmySpec(
        "att",
        (
            unit("a1", "Raiders", points=200),
            jet(),
            unit(
                "a8",
                "Bomber",
                points=10,
                models=1,
                wounds=12,
                keywords=AIRCRAFT,
                abilities=(Ability.HOVER,),
            ),
        ),
    )
    m = MISSIONS["blitz"]
    m = dataclasses.replace(
        m, options={**m.options, "expansion": expansions()["death-from-the-skies"]}
    )
    dfn = ArmySpec(
        "dfn",
        (
            unit("b1", "Guards", points=100),
            unit(
                "b9",
                "Interceptor",
                points=50,
                models=1,
                wounds=12,
                keywords=AIRCRAFT,
                abilities=(Ability.HOVER,),
            ),
        ),
    )
    options = BattleOptions(
        starting_cp=3, expansion="death-from-the-skies", prompt_rapid_ingress=False
    )
    bt = Battle.create(MatchSetup({Seat.A: att, Seat.B: dfn}, "strike_force", m, options))
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "declare_formations", "formation": {"hover": ["a8", "a9"]}}, "A")
    bt.execute_json({"type": "declare_formations", "formation": {"hover": ["b9"]}}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1"}, "reserves": ["b9"]}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1"], "reserves": ["a8", "a9"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    next_round(bt)
    bt.execute_json({"type": "end_phase"}, "A")  # round 2: the Attacker's aircraft arrive
    bt.execute_json({"type": "reserve_roll", "unit": "a8"}, "A", dice=[4])
    bt.execute_json({"type": "reserve_roll", "unit": "a9"}, "A", dice=[5])
    while bt.state.active is Seat.A:
        bt.execute_json({"type": "end_phase"}, "A", dice=[])
    bt.execute_json({"type": "end_phase"}, "B")  # the Defender's Movement: its Interceptor
    bt.execute_json({"type": "reserve_roll", "unit": "b9"}, "B", dice=[6])
    pick = {"type": "dogfight_pick", "aircraft": "b9", "target": "a9", "arc": "rear"}
    assert "shooting phase" in refused(bt, pick, "B")
    bt.execute_json({"type": "end_phase"}, "B")  # Shooting: the Dogfight first, B picks first
    assert "opponent's pick" in refused(
        bt, {"type": "dogfight_pick", "aircraft": "a9", "target": "b9", "arc": "front"}, "A"
    )
    bt.execute_json(pick, "B")  # the target's rear arc faces it: -2 as written (ruling 36)
    # A's Jet is picked: Evasive Manoeuvres, then it shoots at -1 more
    evasive = {"type": "use_mission_stratagem", "stratagem": "evasive-manoeuvres", "target": "a9"}
    assert "AIRCRAFT" in refused(bt, {**evasive, "target": "a8"}, "A")
    bt.execute_json(evasive, "A")
    bt.execute_json(
        {"type": "dogfight_pick", "aircraft": "a9", "target": "b9", "arc": "front"}, "A"
    )
    assert "once a phase" in refused(
        bt, {"type": "dogfight_pick", "aircraft": "b9", "target": "a8", "arc": "side"}, "B"
    )
    bt.execute_json({"type": "dogfight_pass"}, "B")
    bt.execute_json({"type": "dogfight_pick", "aircraft": "a8", "target": "b9", "arc": "side"}, "A")
    picks = [(p.aircraft, p.target, p.arc, p.modifier) for p in x_of(bt).picks]
    assert picks == [
        ("b9", "a9", "rear", -2),
        ("a9", "b9", "front", 1 - 1),
        ("a8", "b9", "side", 0),
    ]
    assert bt.view("B")["narrative"]["expansion"]["dogfight"][1]["modifier"] == 0
    bt.execute_json({"type": "dogfight_pass"}, "A")
    assert "not your pick" in refused(bt, {"type": "dogfight_pass"}, "A")
    replays(bt)


# -- Cities of Death ---------------------------------------------------------------------------


def test_cities_of_death_booby_traps_stay_secret_until_triggered() -> None:
    bt = new("blitz", "cities-of-death", cp=6)
    to_blitz_bombardment(bt, attacker_units=["a1", "a2"], reserves=[])
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    trap = {"type": "use_mission_stratagem", "stratagem": "booby-trapped-ruin"}
    assert "ruin" in refused(bt, {**trap, "target": "<script>"}, "B")
    bt.execute_json({**trap, "target": "Chapel of Saint Zyxx"}, "B")
    bt.execute_json(
        {"type": "use_mission_stratagem", "stratagem": "medical-centre", "target": "Hab 7"}, "A"
    )

    def leaks() -> bool:
        text = json.dumps([bt.view("A"), bt.log_json("A")])
        return "Zyxx" in text or "my_traps" in text

    assert not leaks()
    assert bt.view("B")["narrative"]["expansion"]["my_traps"] == ["Chapel of Saint Zyxx"]
    assert bt.view("A")["narrative"]["expansion"]["medical_centre"] == [
        {"seat": "A", "ruin": "Hab 7"}
    ]
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    assert not leaks()
    bt.execute_json({"type": "end_phase"}, "A")
    assert "enemy" in refused(bt, {"type": "trigger_trap", "unit": "b1"}, "B")
    assert "no booby" in refused(bt, {"type": "trigger_trap", "unit": "b1"}, "A")
    # a1 Advanced into the ruin: D6 = 4 mortal wounds (models of 1 W)
    bt.execute_json({"type": "trigger_trap", "unit": "a1", "advanced": True}, "B", dice=[4])
    assert bt.state.units["a1"].models_alive == 1
    assert leaks()  # public now
    assert x_of(bt).triggered == ((Seat.B, "Chapel of Saint Zyxx", "a1"),)
    assert x_of(bt).traps == ()
    assert "no booby" in refused(bt, {"type": "trigger_trap", "unit": "a2"}, "B")
    # A's Medical Centre (Hab 7): a1 lost its 4 wounds there; a D6 each, the two 6s keep two:
    # two slain models stand again (the last slain first)
    medical = {"type": "medical_roll", "unit": "a1", "wounds": 4}
    assert "no Medical Centre" in refused(bt, {**medical, "unit": "b1"}, "B")
    bt.execute_json(medical, "A", dice=[6, 2, 6, 1])
    assert bt.state.units["a1"].wounds == (0, 0, 1, 1, 1)
    replays(bt)


def test_cities_of_death_a_trap_not_advanced_is_d3() -> None:
    bt = new("blitz", "cities-of-death", cp=6)
    to_blitz_bombardment(bt, attacker_units=["a1", "a2"], reserves=[])
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json(
        {"type": "use_mission_stratagem", "stratagem": "booby-trapped-ruin", "target": "Ruin"},
        "B",
    )
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "trigger_trap", "unit": "a1"}, "B", dice=[3])
    assert bt.state.units["a1"].models_alive == 2
    ev = [e for e in bt.log_json("A") if e["event"]["type"] == "expansion_trap_triggered"]
    assert ev[0]["event"]["roll"]["dice"][0]["sides"] == 3


def test_cities_of_death_sewer_rats_arrive_with_no_roll() -> None:
    bt = new("blitz", "cities-of-death", cp=6)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    rats = {"type": "use_mission_stratagem", "stratagem": "sewer-rats", "target": "a2"}
    assert "INFANTRY" in refused(bt, rats, "A")
    bt.execute_json({**rats, "target": "a1"}, "A")
    assert bt.state.players[Seat.A].cp == 4
    assert bt.state.units["a1"].location is Location.RESERVES
    bt.execute_json({"type": "deploy_forces", "units": ["a2"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "end_phase"}, "A")
    bt.execute_json({"type": "reserve_roll", "unit": "a1"}, "A", dice=[])
    assert bt.state.units["a1"].location is Location.BATTLEFIELD
    assert x_of(bt).sewer == frozenset()
    replays(bt)


def test_an_expansion_stratagem_of_another_expansion_is_unknown() -> None:
    bt = new("blitz", "cities-of-death")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    message = refused(bt, {"type": "use_mission_stratagem", "stratagem": "scorched-skies"}, "A")
    assert "no stratagem" in message
    assert "not played with" in refused(bt, {"type": "place_building", "building": "bastion"}, "B")


def test_expansion_stratagems_need_battle_forged_armies() -> None:
    m = MISSIONS["blitz"]
    m = dataclasses.replace(m, options={**m.options, "expansion": expansions()["planetstrike"]})
    att = ArmySpec("att", (unit("a1", "Raiders", points=200),))
    dfn = ArmySpec("dfn", (unit("b1", "Guards", points=100),))
    options = BattleOptions(starting_cp=3, expansion="planetstrike", battle_forged=False)
    bt = Battle.create(MatchSetup({Seat.A: att, Seat.B: dfn}, "strike_force", m, options))
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    assert "Battle-forged" in refused(
        bt, {"type": "use_mission_stratagem", "stratagem": "scorched-skies"}, "A"
    )


def test_expansion_commands_are_undone_by_replaying_the_log() -> None:
    """Every expansion change is an event: undoing one gives back the state before it."""
    att = ArmySpec("att", (unit("a1", "Raiders", points=300, models=10),))
    bt = new("blitz", "stronghold-assault", att)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_building", "building": "bunker"}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    before = x_of(bt)
    bt.execute_json({"type": "occupy_building", "building": "bunker-1", "unit": "b1"}, "B")
    assert x_of(bt).buildings[0].occupants == (("b1", 5),)
    bt.execute_json({"type": "undo"}, "B")
    assert x_of(bt) == before
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "damage_building", "building": "bunker-1", "wounds": 15}, "A")
    assert x_of(bt).buildings[0].destroyed
    bt.execute_json({"type": "undo"}, "A")
    bunker = x_of(bt).buildings[0]
    assert (bunker.destroyed, bunker.wounds) == (False, 15)
    replays(bt)


def test_planetary_assault_in_patrol_holds_every_attacker_unit_back() -> None:
    """Patrol sets up 3 units a side; with Planetstrike the Attacker sets up none."""
    bt = new("patrol", "planetstrike")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "deploy_forces", "units": ["b1", "b2"]}, "B")
    assert "Reserve" in refused(
        bt, {"type": "deploy_forces", "units": ["a1"], "reserves": ["a2"]}, "A"
    )
    bt.execute_json({"type": "deploy_forces", "units": [], "reserves": ["a1", "a2"]}, "A")
    assert x_of(bt).placements == {"a1": "orbit", "a2": "landing_zone"}
    assert bt.state.units["a1"].location is Location.RESERVES
