"""Issue 12's rules the engine got wrong or lacked, each played through the engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from app.engine.wh40k10e.battle import ArmySpec, Formation, Seat
from app.engine.wh40k10e.battle.commands import (
    DeclareFormations,
    Move,
    PlaceObjective,
    ReportEngagement,
    ReportObjective,
    RollOff,
    Shoot,
)
from app.engine.wh40k10e.battle.objectives import control, control_levels
from app.engine.wh40k10e.battle.state import MoveMode, Presence
from tests.engine.wh40k10e.battle.table import Table, goto, marines, unit


def engage(t: Table, mine: str, *theirs: str) -> None:
    t.do(str(t.unit(mine).owner), ReportEngagement(mine, theirs))


# -- Pistols within Engagement Range [L2060-2072] ----------------------------------------------


def test_pistols_shoot_only_a_unit_the_shooter_is_engaged_with_and_only_one(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: a unit engaged with Boyz shot a Battlewagon engaged only with another friendly
    unit, and targeted two engaged units at once."""
    t = new_table()
    setup_battle(t, {"A": Formation()})
    goto(t, "A", "shooting", round_=1)
    engage(t, "a-tac", "b-boyz", "b-nobz")
    engage(t, "a-int", "b-wagon")
    # the Battlewagon is a VEHICLE engaged with the Intercessors, not with the Tactical Squad
    t.refused("A", Shoot("a-tac", ("b-wagon",)), "bad_target")
    # engaged with the Boyz and the Nobz: its Pistols pick one of them
    t.refused("A", Shoot("a-tac", ("b-boyz", "b-nobz")), "bad_target")
    t.do("A", Shoot("a-tac", ("b-nobz",)))
    t.check_replay()


def test_a_vehicle_in_engagement_range_still_shoots_what_it_is_engaged_with(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Big Guns Never Tire [L1539-1544]: a VEHICLE may shoot the unit it is engaged with even
    if other friendly units are engaged with it too, and several targets."""
    t = new_table()
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    engage(t, "a-rhino", "b-boyz")
    engage(t, "a-int", "b-boyz")
    t.do("A", Shoot("a-rhino", ("b-boyz", "b-komm")))


# -- Transports [L1208-1212] -----------------------------------------------------------------


def _with_predator() -> ArmySpec:
    a = marines()
    predator = unit(
        "a-pred", "Predator Destructor", models=1, wounds=11, keywords=("VEHICLE",), toughness=10
    )
    bikes = unit("a-bikes", "Outriders", models=3, wounds=4, keywords=("MOUNTED",))
    raider = unit(
        "a-raider",
        "Land Raider",
        models=1,
        wounds=16,
        keywords=("VEHICLE", "TRANSPORT"),
        transport_capacity=12,
        toughness=12,
    )
    return ArmySpec(a.name, (*a.units, predator, bikes, raider), a.faction)


def test_a_predator_does_not_embark_in_a_land_raider(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: a Predator was accepted as embarked in a Land Raider. A transport capacity
    takes the models its datasheet names; no MONSTER or VEHICLE ever; where the data cannot
    tell (MOUNTED here), the player confirms."""
    t = new_table(a=_with_predator())
    setup_battle(t)
    goto(t, "A", "movement", round_=1)
    t.refused("A", Move("a-pred", MoveMode.NORMAL, embark="a-raider"), "transport_refuses_unit")
    asked = t.refused(
        "A", Move("a-bikes", MoveMode.NORMAL, embark="a-raider"), "transport_fit_unknown"
    )
    assert asked.details["transport"] == "a-raider"
    t.do("A", Move("a-bikes", MoveMode.NORMAL, embark="a-raider", fits=True))
    assert t.unit("a-bikes").embarked_in == "a-raider"
    t.do("A", Move("a-int", MoveMode.NORMAL, embark="a-raider"))  # INFANTRY: no question
    t.check_replay()


def test_the_transport_keywords_of_the_data_decide(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    a = _with_predator()
    raider = dataclasses.replace(a.units[-1], transport_keywords=("infantry",))
    a = ArmySpec(a.name, (*a.units[:-1], raider), a.faction)
    t = new_table(a=a)
    setup_battle(t)
    goto(t, "A", "movement", round_=1)
    t.refused(
        "A",
        Move("a-bikes", MoveMode.NORMAL, embark="a-raider", fits=True),
        "transport_refuses_unit",
    )
    t.do("A", Move("a-int", MoveMode.NORMAL, embark="a-raider"))


def test_a_vehicle_cannot_start_embarked(new_table: Callable[..., Table]) -> None:
    t = new_table(a=_with_predator())
    t.do("A", RollOff(), dice=[6, 1])
    for i in range(4):
        t.do("A" if i % 2 == 0 else "B", PlaceObjective())
    t.do("A", RollOff(), dice=[6, 1])
    refusal = t.refused(
        "A", DeclareFormations(Formation(embarked=(("a-pred", "a-raider"),))), "invalid_formation"
    )
    assert "transport_refuses_unit" in str(refusal.details)


# -- Objective control of an Attached unit ---------------------------------------------------


def test_an_attached_unit_controls_an_objective_as_one_unit(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: only the part ticked counted. The Intercessors (5 x OC2) with their Captain
    (OC1), reported in range as a unit, have 11 against 5 Boyz x OC2 = 10 [L4589-4602]."""
    t = new_table()
    setup_battle(t, {"A": Formation(attachments=(("a-cap", "a-int"),))})
    goto(t, "A", "command", round_=1)
    t.do("A", ReportObjective("1", (Presence("a-int"),)))
    t.do("B", ReportObjective("1", (Presence("b-boyz", 5),)))
    assert control_levels(t.state)["1"] == {Seat.A: 11, Seat.B: 10}
    # naming the Leader counts the whole unit too, once
    t.do("A", ReportObjective("1", (Presence("a-cap"), Presence("a-int"))))
    assert control_levels(t.state)["1"][Seat.A] == 11
    assert control(t.state)["1"] is Seat.A
