"""The review's findings on the narrative expansions (issue 15), played through
``Battle.execute_json`` with dice given by hand (docs/rulings/narrative-8e.md, 76-80)."""

from __future__ import annotations

import dataclasses

from app.engine.narrative8e.match import expansions
from app.engine.wh40k10e.battle import ArmySpec, Battle, BattleOptions, MatchSetup, Seat
from app.engine.wh40k10e.battle.commands import GarrisonRoll
from app.engine.wh40k10e.battle.game import roll_identity
from app.engine.wh40k10e.battle.rules import shock_tests_pending
from app.engine.wh40k10e.battle.state import Location, Phase
from tests.engine.narrative8e.test_expansions_play import (
    MISSIONS,
    new,
    refused,
    replays,
    to_blitz_bombardment,
    x_of,
)
from tests.engine.wh40k10e.battle.table import unit


def stronghold(att: ArmySpec, dfn: ArmySpec) -> Battle:
    m = MISSIONS["blitz"]
    m = dataclasses.replace(
        m, options={**m.options, "expansion": expansions()["stronghold-assault"]}
    )
    options = BattleOptions(
        starting_cp=6, expansion="stronghold-assault", prompt_rapid_ingress=False
    )
    return Battle.create(MatchSetup({Seat.A: att, Seat.B: dfn}, "strike_force", m, options))


def to_battle_with_bunker(bt: Battle) -> None:
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_building", "building": "bunker"}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])


def to_movement(bt: Battle, seat: Seat) -> None:
    """End phases (passing the tests and checks on the way) up to ``seat``'s Movement phase."""
    while not (bt.state.active is seat and bt.state.phase is Phase.MOVEMENT):
        active = str(bt.state.active)
        if bt.state.window is not None:
            bt.execute_json({"type": "pass"}, str(bt.state.window), dice=[])
        elif bt.state.phase is Phase.COMMAND and shock_tests_pending(bt.state):
            for u in shock_tests_pending(bt.state):
                bt.execute_json({"type": "battle_shock_test", "unit": u}, active, dice=[6, 6])
        elif bt.state.coherency:
            bt.execute_json({"type": "confirm_coherency"}, str(bt.state.coherency[0]), dice=[])
        else:
            bt.execute_json({"type": "end_phase"}, active, dice=[])


# -- 1: digits that are not ASCII ----------------------------------------------------------------


def test_firestorm_die_numbers_and_heavy_bolters_are_ascii_digits() -> None:
    bt = new("blitz", "planetstrike")
    to_blitz_bombardment(bt, attacker_units=[], reserves=["a1", "a2"])
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    for key in ("\u00b2", "\u0663", "\uff13", "03x", ""):
        message = refused(bt, {"type": "firestorm", "attacks": 1, "hits": {key: ["b1"]}}, "A")
        assert message == "the Firestorm dice are numbered 1 to 6"
    assert not x_of(bt).firestorm_done
    att = ArmySpec("att", (unit("a1", "Raiders", points=300, models=10),))
    dfn = ArmySpec("dfn", (unit("b1", "Guards", points=100), unit("b2", "Wardens", points=100)))
    st = stronghold(att, dfn)
    st.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        st.execute_json({"type": "declare_formations", "formation": {}}, seat)
    fortress = {"type": "place_building", "building": "fortress"}
    for weapon in ("heavy-bolter:\u0663", "heavy-bolter:\u00b2", "heavy-bolter:5"):
        assert refused(st, {**fortress, "weapon": weapon}, "B") == (
            "extra weapons: heavy-bolter:0 to heavy-bolter:4"
        )
    st.execute_json({**fortress, "weapon": "heavy-bolter:3"}, "B")
    assert x_of(st).buildings[0].weapon == "heavy-bolter:3"


# -- 2a: Medical Centre ----------------------------------------------------------------------


def test_medical_centre_rolls_once_for_each_loss_of_a_living_unit() -> None:
    bt = new("blitz", "cities-of-death", cp=6)
    to_blitz_bombardment(bt, attacker_units=["a1", "a2"], reserves=[])
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json(
        {"type": "use_mission_stratagem", "stratagem": "medical-centre", "target": "Hab 7"}, "A"
    )
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    medical = {"type": "medical_roll", "unit": "a1", "wounds": 1}
    # nothing lost yet
    assert refused(bt, medical, "A") == "Raiders lost 0 wounds not yet rolled for"
    bt.execute_json(
        {"type": "remove_models", "unit": "a1", "models": [4, 3], "cause": "attack"}, "A"
    )
    assert bt.state.units["a1"].wounds == (1, 1, 1, 0, 0)
    # more than it lost
    assert refused(bt, {**medical, "wounds": 3}, "A") == "Raiders lost 2 wounds not yet rolled for"
    bt.execute_json({**medical, "wounds": 2}, "A", dice=[6, 3])  # one kept: slot 4 stands
    assert bt.state.units["a1"].wounds == (1, 1, 1, 0, 1)
    assert x_of(bt).medical_covered == {"a1": 1}
    # the same loss is not rolled for again
    assert refused(bt, medical, "A") == "Raiders lost 0 wounds not yet rolled for"
    # a new loss: one more roll, for it only
    bt.execute_json({"type": "remove_models", "unit": "a1", "models": [0], "cause": "attack"}, "A")
    assert refused(bt, {**medical, "wounds": 2}, "A") == "Raiders lost 1 wounds not yet rolled for"
    bt.execute_json(medical, "A", dice=[6])  # the highest slot slain stands (ruling 70)
    assert bt.state.units["a1"].wounds == (0, 1, 1, 1, 1)
    assert x_of(bt).medical_covered == {"a1": 1}
    bt.execute_json({"type": "remove_models", "unit": "a1", "models": [2], "cause": "attack"}, "A")
    bt.execute_json(medical, "A", dice=[5])
    assert bt.state.units["a1"].wounds == (0, 1, 0, 1, 1)
    assert x_of(bt).medical_covered == {"a1": 2}
    # a destroyed unit is not brought back
    bt.execute_json(
        {"type": "remove_models", "unit": "a1", "models": [1, 3, 4], "cause": "attack"}, "A"
    )
    assert not bt.state.units["a1"].alive
    assert "destroyed" in refused(bt, {**medical, "wounds": 3}, "A", dice=[6, 6, 6])
    assert bt.state.units["a1"].wounds == (0, 0, 0, 0, 0)
    replays(bt)


# -- 2b: the slain hold no building ---------------------------------------------------------------


def test_a_slain_garrison_leaves_its_building_unoccupied_and_room_inside() -> None:
    att = ArmySpec("att", (unit("a1", "Raiders", points=300, models=10),))
    dfn = ArmySpec(
        "dfn",
        (
            unit("b1", "Guards", points=100, models=15),
            unit("b2", "Wardens", points=100, models=10),
        ),
    )
    bt = stronghold(att, dfn)
    to_battle_with_bunker(bt)
    bt.execute_json({"type": "occupy_building", "building": "bunker-1", "unit": "b1"}, "B")
    assert "15 are inside" in refused(
        bt, {"type": "occupy_building", "building": "bunker-1", "unit": "b2"}, "B"
    )
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    # ten of the garrison slain: 5 inside, the 10 Wardens fit in 20
    bt.execute_json(
        {"type": "remove_models", "unit": "b1", "models": list(range(10)), "cause": "attack"}, "B"
    )
    view = bt.view("A")["narrative"]["expansion"]["buildings"][0]
    assert (view["models_inside"], view["occupants"]) == (5, ["b1"])
    to_movement(bt, Seat.B)
    bt.execute_json({"type": "occupy_building", "building": "bunker-1", "unit": "b2"}, "B")
    assert bt.view("B")["narrative"]["expansion"]["buildings"][0]["models_inside"] == 15
    bt.execute_json({"type": "leave_building", "building": "bunker-1", "unit": "b2"}, "B")
    # its last occupant slain: nobody holds it, the Attacker captures it
    bt.execute_json(
        {"type": "remove_models", "unit": "b1", "models": list(range(10, 15)), "cause": "attack"},
        "B",
    )
    view = bt.view("A")["narrative"]["expansion"]["buildings"][0]
    assert (view["models_inside"], view["occupants"], view["controller"]) == (0, [], "B")
    to_movement(bt, Seat.A)
    bt.execute_json({"type": "occupy_building", "building": "bunker-1", "unit": "a1"}, "A")
    bunker = x_of(bt).buildings[0]
    assert (bunker.controller, bunker.occupants) == (Seat.A, (("a1", 10),))
    replays(bt)


# -- 2e: no capture in set-up ------------------------------------------------------------------


def test_the_attacker_enters_no_defender_building_before_the_battle() -> None:
    att = ArmySpec("att", (unit("a1", "Raiders", points=300, models=10),))
    dfn = ArmySpec("dfn", (unit("b1", "Guards", points=100), unit("b2", "Wardens", points=100)))
    bt = stronghold(att, dfn)
    to_battle_with_bunker(bt)
    occupy = {"type": "occupy_building", "building": "bunker-1", "unit": "a1"}
    assert refused(bt, occupy, "A") == "bunker-1 is your opponent's until the battle begins"
    assert x_of(bt).buildings[0].occupants == ()
    # the Attacker has deployed: no building is set up now
    assert refused(bt, {"type": "place_building", "building": "fortress"}, "B") == (
        "buildings are set up before the armies deploy"
    )
    assert len(x_of(bt).buildings) == 1
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "end_phase"}, "A")  # Movement: the empty Bunker is captured
    bt.execute_json(occupy, "A")
    assert x_of(bt).buildings[0].controller is Seat.A


# -- 2c, 2d, 2f: Planetstrike stratagems -----------------------------------------------------------


def planetstrike_first_movement(att: ArmySpec, cp: int = 6) -> Battle:
    bt = new("blitz", "planetstrike", att, cp=cp)
    to_blitz_bombardment(bt, attacker_units=[], reserves=[u.id for u in att.units])
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    scorched = {"type": "use_mission_stratagem", "stratagem": "scorched-skies"}
    bt.execute_json(scorched, "A", dice=[2])
    assert refused(bt, scorched, "A", dice=[3]) == (
        "scorched-skies is used once, before the Firestorm"
    )
    assert x_of(bt).firestorm_extra == 2
    jammers = {"type": "use_mission_stratagem", "stratagem": "targeting-jammers"}
    bt.execute_json(jammers, "B")
    assert refused(bt, jammers, "B") == "targeting-jammers is used once, before the Firestorm"
    bt.execute_json({"type": "firestorm", "attacks": 0, "hits": {}}, "A", dice=[5, 5])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "end_phase"}, "A")  # Movement
    return bt


ATT = ArmySpec(
    "att",
    (
        unit("a1", "Raiders", points=100),
        unit("a2", "Scouts", points=100),
        unit("a3", "Hunters", points=100),
    ),
)


def test_rapid_drop_assault_before_the_rolls_and_in_round_one_only() -> None:
    bt = planetstrike_first_movement(ATT, cp=8)
    rapid = {"type": "use_mission_stratagem", "stratagem": "rapid-drop-assault"}
    bt.execute_json(rapid, "A", dice=[3])  # 3 units, one used
    bt.execute_json({"type": "reserve_roll", "unit": "a1"}, "A", dice=[])
    assert bt.state.units["a1"].location is Location.BATTLEFIELD
    assert bt.view("A")["narrative"]["expansion"]["rapid_drop_left"] == 2
    while bt.state.round == 1:
        bt.execute_json({"type": "end_phase"}, str(bt.state.active), dice=[])
    bt.execute_json({"type": "end_phase"}, "A")  # round 2: Movement
    assert bt.view("A")["narrative"]["expansion"]["rapid_drop_left"] == 0
    # the leftover brings no unit in round 2: the 3+ roll is made (a 2 fails)
    bt.execute_json({"type": "reserve_roll", "unit": "a2"}, "A", dice=[2])
    assert bt.state.units["a2"].location is Location.RESERVES
    replays(bt)


def test_rapid_drop_assault_is_refused_after_a_reserve_roll() -> None:
    bt = planetstrike_first_movement(ATT)
    bt.execute_json({"type": "reserve_roll", "unit": "a1"}, "A", dice=[1])
    cp = bt.state.players[Seat.A].cp
    rapid = {"type": "use_mission_stratagem", "stratagem": "rapid-drop-assault"}
    assert refused(bt, rapid, "A", dice=[3]) == (
        "rapid-drop-assault is used before your reserve rolls (ruling 78)"
    )
    assert bt.state.players[Seat.A].cp == cp
    bt.execute_json({"type": "reserve_roll", "unit": "a2"}, "A", dice=[3])
    assert bt.state.units["a2"].location is Location.BATTLEFIELD


# -- 3a: two garrisons in one phase draw their own dice ------------------------------------------


def test_garrison_rolls_of_two_buildings_have_their_own_identity() -> None:
    att = ArmySpec("att", (unit("a1", "Raiders", points=300, models=10),))
    dfn = ArmySpec("dfn", (unit("b1", "Guards", points=100), unit("b2", "Wardens", points=100)))
    bt = stronghold(att, dfn)
    to_battle_with_bunker(bt)
    one = roll_identity(bt.state, GarrisonRoll("bunker-1"), "B")
    two = roll_identity(bt.state, GarrisonRoll("bunker-2"), "B")
    assert one != two
    assert one[-2:] == ("building:bunker-1", 0)
    assert two[-2:] == ("building:bunker-2", 0)
    assert roll_identity(bt.state, GarrisonRoll("bunker-1", ("b1",)), "B") == one
