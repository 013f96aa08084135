"""The rules the state enforces, phase by phase, each with its seed line."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest

from app.engine.match.dice import Roll
from app.engine.match.errors import Refusal
from app.engine.wh40k10e.battle import Ability, ArmySpec, Formation, ReserveKind, Seat, UnitSpec
from app.engine.wh40k10e.battle.commands import (
    ArriveFromReserves,
    BattleShockTest,
    CompleteCharge,
    Consolidate,
    DeclareCharge,
    Disembark,
    DisembarkFromDestroyedTransport,
    EndPhase,
    Fight,
    GainCommandPoint,
    HazardousTest,
    Move,
    ReportEngagement,
    ResolveAttack,
    Shoot,
    UseStratagem,
)
from app.engine.wh40k10e.battle.events import AttackResolved, RollRerolled, UnitMoved
from app.engine.wh40k10e.battle.evolve import evolve
from app.engine.wh40k10e.battle.flow import allocate, casualty_slots
from app.engine.wh40k10e.battle.state import (
    BattleState,
    Location,
    ModelDamage,
    MoveMode,
    Step,
    UnitState,
)
from tests.engine.wh40k10e.battle.table import Table, active, events, goto, marines, orks, unit


def engage(t: Table, mine: str, theirs: str) -> None:
    t.do(str(t.unit(mine).owner), ReportEngagement(mine, (theirs,)))


# -- Below Half-strength and Battle-shock ----------------------------------------------------


@pytest.mark.parametrize(
    ("models", "wounds", "alive_wounds", "below"),
    [
        # [L856-868]: SS 5 -> below half at 2 models or fewer; SS 10 -> at 4; SS 6 -> at 2
        (5, 1, (1, 1, 1, 0, 0), False),
        (5, 1, (1, 1, 0, 0, 0), True),
        (10, 1, (1,) * 5 + (0,) * 5, False),
        (10, 1, (1,) * 4 + (0,) * 6, True),
        (6, 1, (1,) * 3 + (0,) * 3, False),
        (6, 1, (1,) * 2 + (0,) * 4, True),
        # SS 1: strictly below half its wounds: W5 with 2 left yes, 3 left no
        (1, 5, (2,), True),
        (1, 5, (3,), False),
    ],
)
def test_below_half_strength(models: Any, wounds: Any, alive_wounds: Any, below: Any) -> None:
    spec = unit("u", "U", models=models, wounds=wounds)
    state = BattleState(
        specs={"u": spec}, units={"u": UnitState(id="u", owner=Seat.A, wounds=alive_wounds)}
    )
    assert state.below_half_strength("u") is below


def test_attached_unit_strength_sums_then_reverts_when_a_part_dies() -> None:
    """[L883-889]: Captain (1) + Intercessors (5) = SS 6; when the Bodyguard dies the Captain
    is back to SS 1 and tested by wounds."""
    cap = unit("c", "Captain", models=1, wounds=5, ld=5, keywords=("CHARACTER",))
    sq = unit("s", "Squad", models=5, ld=7)
    units = {
        "c": UnitState(id="c", owner=Seat.A, wounds=(5,), bodyguard="s"),
        "s": UnitState(id="s", owner=Seat.A, wounds=(1, 1, 0, 0, 0), leader="c"),
    }
    state = BattleState(specs={"c": cap, "s": sq}, units=units)
    assert state.starting_strength("s") == 6
    assert not state.below_half_strength("s")  # 3 of 6 alive is not below half
    assert state.best_leadership("s") == 5
    units["s"] = UnitState(id="s", owner=Seat.A, wounds=(0,) * 5, leader="c")
    state = BattleState(specs={"c": cap, "s": sq}, units=units)
    assert state.group("c") == ("c",)
    assert state.starting_strength("c") == 1
    assert not state.below_half_strength("c")


def test_battle_shock_2d6_against_best_leadership_and_its_effects(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t, first="B")
    goto(t, "B", "command", round_=1)
    t.refused("B", BattleShockTest("b-boyz"), "shock_test_not_needed")
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-hell", ("b-boyz",)))
    t.do("A", ResolveAttack("a-hell", "b-boyz", damage=(1,) * 6))
    goto(t, "B", "command", round_=2)
    assert t.state.players[Seat.B].cp == 3
    # 2D6 = 6 < Ld 7 fails [L789-791]
    t.do("B", BattleShockTest("b-boyz"), dice=[3, 3])
    assert t.unit("b-boyz").battle_shocked
    # OC 0 while Battle-shocked [L796-797]
    from app.engine.wh40k10e.battle import Presence
    from app.engine.wh40k10e.battle.commands import ReportObjective
    from app.engine.wh40k10e.battle.objectives import control_levels

    t.do("B", ReportObjective("1", (Presence("b-boyz"),)))
    assert control_levels(t.state)["1"][Seat.B] == 0
    t.do("B", EndPhase())
    # its controller's Stratagems cannot affect it [L802-803]
    goto(t, "A", "shooting", round_=2)
    t.do("A", Shoot("a-hell", ("b-boyz",)))
    t.refused("B", UseStratagem("go_to_ground", unit="b-boyz"), "battle_shocked")
    # cleared at the start of its controller's next Command phase [L791-792]
    goto(t, "B", "command", round_=3)
    assert not t.unit("b-boyz").battle_shocked
    t.do("B", BattleShockTest("b-boyz"), dice=[4, 3])  # 7 >= 7 passes
    assert not t.unit("b-boyz").battle_shocked
    t.check_replay()


def test_one_extra_command_point_per_battle_round(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    t.do("B", GainCommandPoint("a relic"))
    assert t.state.players[Seat.B].cp == 2
    t.refused("B", GainCommandPoint("another"), "cp_gain_cap")
    goto(t, "B", "command", round_=1)  # the same round
    t.refused("B", GainCommandPoint("another"), "cp_gain_cap")
    goto(t, "A", "command", round_=2)
    t.do("B", GainCommandPoint("a new round"))
    assert t.state.players[Seat.B].cp == 2 + 1 + 1 + 1  # B, then A round 2, then the gain


# -- movement --------------------------------------------------------------------------------


def test_moves_by_engagement_and_desperate_escape(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "movement", round_=1)
    engage(t, "a-hell", "b-boyz")
    t.refused("A", Move("a-hell", MoveMode.NORMAL), "unit_engaged")
    t.refused("A", Move("a-hell", MoveMode.ADVANCE), "unit_engaged")
    t.refused("A", Move("a-int", MoveMode.FALL_BACK), "not_engaged")
    t.refused("A", Move("a-int", MoveMode.NORMAL, crossing=2), "bad_command")
    # Desperate Escape [L1012-1026]: 3 models cross the Boyz: 3 tests, each 1-2 kills one
    t.do("A", Move("a-hell", MoveMode.FALL_BACK, crossing=3), dice=[1, 2, 5])
    assert t.unit("a-hell").models_alive == 3
    assert not t.state.engaged("a-hell")
    assert not t.state.engaged("b-boyz")
    t.refused("A", Move("a-hell", MoveMode.NORMAL), "already_moved")
    # a unit that Fell Back cannot shoot or charge [L1009-1010]
    goto(t, "A", "shooting")
    t.refused("A", Shoot("a-hell", ("b-boyz",)), "unit_fell_back")
    goto(t, "A", "charge")
    t.refused("A", DeclareCharge("a-hell", ("b-boyz",)), "unit_fell_back")
    t.check_replay()


def test_battle_shocked_units_test_every_model_when_falling_back(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table(b=orks())
    setup_battle(t, first="B")
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-hell", ("b-nobz",)))
    t.do("A", ResolveAttack("a-hell", "b-nobz", damage=(2, 2, 2)))
    engage(t, "a-int", "b-nobz")
    goto(t, "B", "command", round_=2)
    t.do("B", BattleShockTest("b-nobz"), dice=[1, 1])
    goto(t, "B", "movement", round_=2)
    # 2 models left: both test, whatever "crossing" says [L1019-1021]
    t.do("B", Move("b-nobz", MoveMode.FALL_BACK), dice=[3, 4])
    assert t.unit("b-nobz").models_alive == 2
    moved = events(t, UnitMoved)[-1]
    assert moved.roll is not None
    assert moved.roll.values == (3, 4)


def test_advance_and_assault_weapons(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    a = marines()
    a = ArmySpec(
        a.name,
        (
            *a.units[:3],
            unit(
                "a-hell", "Hellblasters", models=5, wounds=2, abilities=(Ability.ASSAULT_WEAPONS,)
            ),
            *a.units[4:],
        ),
    )
    t = new_table(a=a)
    setup_battle(t)
    goto(t, "A", "movement", round_=1)
    t.do("A", Move("a-hell", MoveMode.ADVANCE), dice=[4])
    t.do("A", Move("a-int", MoveMode.ADVANCE), dice=[2])
    goto(t, "A", "shooting")
    t.refused("A", Shoot("a-int", ("b-boyz",)), "unit_advanced")  # [L1410]
    t.refused("A", Shoot("a-hell", ("b-boyz",)), "unit_advanced")  # must say Assault only
    t.do("A", Shoot("a-hell", ("b-boyz",), assault_only=True))  # [L2009-2018]
    goto(t, "A", "charge")
    t.refused("A", DeclareCharge("a-hell", ("b-boyz",)), "unit_advanced")  # [L2403]


def test_shooting_in_and_into_engagement(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    engage(t, "a-hell", "b-nobz")
    engage(t, "a-rhino", "b-boyz")
    # locked in combat without Pistols [L1514-1516]
    t.refused("A", Shoot("a-hell", ("b-komm",)), "not_eligible_to_shoot")
    # an enemy engaged with one of our units cannot be shot [L1518-1520] ...
    t.refused("A", Shoot("a-int", ("b-nobz",)), "bad_target")
    # ... but a VEHICLE in Engagement Range may shoot what it is engaged with [L1535-1544]
    t.do("A", Shoot("a-rhino", ("b-boyz",)))
    # and an engaged MONSTER/VEHICLE may be shot by others [L1553-1561]
    engage(t, "a-int", "b-wagon")
    t.do("A", Shoot("a-term", ("b-wagon",)))
    t.refused("A", ResolveAttack("a-term", "b-nobz", damage=(1,)), "attack_not_declared")


def test_pistols_may_only_shoot_the_unit_they_are_engaged_with(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t, {"A": Formation(embarked=(("a-int", "a-rhino"),))})
    goto(t, "A", "movement", round_=1)
    t.do("A", Move("a-rhino", MoveMode.REMAIN_STATIONARY))
    goto(t, "A", "shooting")
    # a-tac was not embarked in this set-up: it has Pistols
    engage(t, "a-tac", "b-boyz")
    t.refused("A", Shoot("a-tac", ("b-komm",)), "bad_target")
    t.do("A", Shoot("a-tac", ("b-boyz",)))


def test_transports(new_table: Callable[..., Table], setup_battle: Callable[..., None]) -> None:
    t = new_table()
    setup_battle(t)  # a-tac starts embarked in the Rhino
    goto(t, "A", "movement", round_=1)
    # Rhino Remains Stationary: the squad may act normally but cannot Remain Stationary
    t.do("A", Move("a-rhino", MoveMode.REMAIN_STATIONARY))
    t.do("A", Disembark("a-tac"))
    assert not t.unit("a-tac").cannot_charge
    t.refused("A", Move("a-tac", MoveMode.REMAIN_STATIONARY), "cannot_remain_stationary")
    t.refused("A", Move("a-tac", MoveMode.NORMAL, embark="a-rhino"), "cannot_embark")
    t.do("A", Move("a-tac", MoveMode.NORMAL))
    # the Intercessors (5) embark; the Hellblasters (5) would make 10 > 6
    t.do("A", Move("a-int", MoveMode.NORMAL, embark="a-rhino"))
    assert t.unit("a-int").location is Location.EMBARKED
    t.refused("A", Move("a-hell", MoveMode.NORMAL, embark="a-rhino"), "transport_full")
    t.refused("A", Disembark("a-int"), "cannot_disembark")  # embarked this phase
    goto(t, "A", "movement", round_=2)
    t.do("A", Move("a-rhino", MoveMode.ADVANCE), dice=[3])
    t.refused("A", Disembark("a-int"), "cannot_disembark")  # [L1268-1269]
    goto(t, "B", "shooting", round_=2)
    # the Rhino is destroyed: the Intercessors must disembark first [L1309-1341]
    t.do("B", Shoot("b-boyz", ("a-rhino",)))
    t.do("B", ResolveAttack("b-boyz", "a-rhino", mortal_wounds=10))
    assert t.unit("a-int").transport_destroyed
    t.refused("B", Shoot("b-nobz", ("a-hell",)), "forced_disembark_pending")
    t.refused("A", DisembarkFromDestroyedTransport("a-int", not_placed=1), "bad_command")
    t.do("A", DisembarkFromDestroyedTransport("a-int"), dice=[1, 1, 2, 5, 6])
    u = t.unit("a-int")
    assert u.location is Location.BATTLEFIELD
    assert u.battle_shocked
    assert u.cannot_charge
    assert u.wounds == (0, 2, 2, 2, 2)  # two mortal wounds on the 2-wound models, carried over
    t.do("B", Shoot("b-nobz", ("a-hell",)))
    t.check_replay()


def test_reserves_arrival_limits(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(
        t,
        {
            "A": Formation(
                embarked=(("a-tac", "a-rhino"),), reserves=(("a-hell", ReserveKind.STRATEGIC),)
            )
        },
    )
    goto(t, "A", "movement", round_=1)
    t.refused("A", ArriveFromReserves("a-hell"), "reserves_not_yet")  # [L3604-3605]
    t.refused("A", ArriveFromReserves("a-int"), "not_in_reserves")
    goto(t, "A", "movement", round_=2)
    t.do("A", Move("a-int", MoveMode.NORMAL))
    t.do("A", ArriveFromReserves("a-hell"))
    assert t.state.step is Step.REINFORCEMENTS
    t.refused("A", Move("a-term", MoveMode.NORMAL), "wrong_step")
    assert t.unit("a-hell").move is MoveMode.NORMAL  # counts as a Normal move [L1173-1180]
    goto(t, "A", "shooting")
    t.do("A", Shoot("a-hell", ("b-boyz",)))


def test_aircraft(new_table: Callable[..., Table], setup_battle: Callable[..., None]) -> None:
    t = new_table()
    setup_battle(t, first="B")
    goto(t, "B", "movement", round_=2)
    t.do("B", ArriveFromReserves("b-dakka"))
    goto(t, "B", "movement", round_=3)
    t.refused("B", Move("b-dakka", MoveMode.ADVANCE), "aircraft_move")
    t.refused("B", Move("b-dakka", MoveMode.REMAIN_STATIONARY), "aircraft_move")
    t.do("B", Move("b-dakka", MoveMode.NORMAL, left_battlefield=True))
    assert t.unit("b-dakka").location is Location.RESERVES
    goto(t, "B", "charge")
    t.refused("A", DeclareCharge("a-int", ("b-dakka",)), "not_your_turn")
    goto(t, "B", "movement", round_=4)
    t.refused("B", EndPhase(), "aircraft_must_arrive")  # [L4089-4091]
    t.do("B", ArriveFromReserves("b-dakka"))
    goto(t, "B", "charge")
    t.refused("B", DeclareCharge("b-dakka", ("a-int",)), "cannot_charge")  # [L2405]
    goto(t, "A", "charge", round_=5)
    t.refused("A", DeclareCharge("a-int", ("b-dakka",)), "bad_target")  # only FLY [L4159]


# -- charge and fight ------------------------------------------------------------------------


def test_charge_sequence(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "charge", round_=1)
    t.do("A", DeclareCharge("a-int", ("b-boyz", "b-nobz")), dice=[3, 3])
    t.refused("A", DeclareCharge("a-hell", ("b-boyz",)), "charge_in_progress")
    t.refused("A", EndPhase(), "charge_in_progress")
    t.refused("B", CompleteCharge("a-int", True), "not_your_unit")
    t.do("A", CompleteCharge("a-int", False))  # failed: no model moves [L2427-2429]
    assert not t.state.engaged("a-int")
    t.refused("A", DeclareCharge("a-int", ("b-boyz",)), "already_declared_charge")
    t.do("A", DeclareCharge("a-hell", ("b-boyz",)), dice=[6, 6])
    t.do("A", CompleteCharge("a-hell", True))
    assert t.unit("a-hell").charge_bonus  # Fights First until the end of the turn
    engage(t, "a-term", "b-nobz")
    t.refused("A", DeclareCharge("a-term", ("b-nobz",)), "unit_engaged")


def test_fight_alternation_fights_first_and_no_passing(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """[L2579-2621]: Fights First step, then Remaining Combats; in each step the player whose
    turn it is not selects first; a player cannot pass."""
    t = new_table()
    setup_battle(t)
    goto(t, "A", "charge", round_=1)
    t.do("A", DeclareCharge("a-hell", ("b-boyz",)), dice=[6, 6])
    t.do("A", CompleteCharge("a-hell", True))
    engage(t, "a-int", "b-nobz")
    engage(t, "a-term", "b-komm")
    t.do("A", EndPhase())
    fight = t.battle.view("A")["fight"]
    assert fight == {
        "step": "fights_first",
        "selects_next": "A",
        "current": None,
        "next_unit": None,
    }
    t.refused("A", Fight("a-int"), "not_eligible_to_fight")  # no Fights First
    t.do("A", Fight("a-hell", ("b-boyz",)))
    t.refused("B", Fight("b-boyz"), "fight_in_progress")
    t.do("A", Consolidate("a-hell"))
    assert t.battle.view("A")["fight"]["step"] == "remaining_combats"
    # B (not the active player) selects first in Remaining Combats
    t.refused("A", Fight("a-int"), "not_your_turn")
    t.do("B", Fight("b-boyz"))
    t.do("B", Consolidate("b-boyz"))
    t.do("A", Fight("a-int"))
    t.do("A", Consolidate("a-int"))
    t.do("B", Fight("b-nobz"))
    t.do("B", Consolidate("b-nobz"))
    t.refused("A", EndPhase(), "fight_units_remaining")
    t.refused("A", Fight("a-hell"), "already_fought")
    t.do("A", Fight("a-term"))
    t.do("A", Consolidate("a-term", engaged_with=()))
    # b-komm is no longer engaged with anyone: the phase may end
    assert not t.state.engaged("b-komm")
    t.do("A", EndPhase())
    assert active(t) is Seat.B
    t.check_replay()


def test_hazardous(new_table: Callable[..., Table], setup_battle: Callable[..., None]) -> None:
    t = new_table()
    setup_battle(
        t, {"A": Formation(attachments=(("a-cap", "a-int"),), embarked=(("a-tac", "a-rhino"),))}
    )
    goto(t, "A", "shooting", round_=1)
    t.refused("A", HazardousTest("a-hell"), "attack_not_declared")
    t.do("A", Shoot("a-hell", ("b-boyz",)))
    t.do("A", HazardousTest("a-hell", weapons=3), dice=[1, 4, 1])  # two bearers destroyed
    assert t.unit("a-hell").models_alive == 3
    t.do("A", Shoot("a-int", ("b-boyz",)))
    # the CHARACTER of an Attached unit takes 3 mortal wounds instead [L2287-2294]
    t.do("A", HazardousTest("a-int", weapons=1, on_unit="a-cap"), dice=[1])
    assert t.unit("a-cap").wounds == (2,)
    assert t.unit("a-int").models_alive == 5


# -- damage allocation -----------------------------------------------------------------------


def _state(wounds: dict[str, tuple[int, ...]], specs: dict[str, UnitSpec]) -> BattleState:
    units = {
        i: UnitState(
            id=i,
            owner=Seat.A,
            wounds=w,
            leader="c" if i == "s" and "c" in wounds else None,
            bodyguard="s" if i == "c" else None,
        )
        for i, w in wounds.items()
    }
    return BattleState(specs=specs, units=units)


def test_allocation_wounded_model_first_excess_lost_mortals_carry_over() -> None:
    specs = {
        "s": unit("s", "Squad", models=3, wounds=3),
        "c": unit("c", "Cap", models=1, wounds=5, keywords=("CHARACTER",)),
    }
    s = _state({"s": (3, 1, 3), "c": (5,)}, specs)
    # normal damage: the wounded model (slot 1) first, excess lost [L1704-1707], [L1788-1790]
    assert allocate(s, "s", (2, 2)) == [ModelDamage("s", 1, 1), ModelDamage("s", 0, 2)]
    # mortal wounds carry over, Bodyguard before the CHARACTER [L1816-1824], [L3238-3246]
    out = allocate(s, "c", (), mortal_wounds=9)
    assert out == [
        ModelDamage("s", 1, 1),
        ModelDamage("s", 0, 3),
        ModelDamage("s", 2, 3),
        ModelDamage("c", 0, 2),
    ]


# -- model slots with their own wounds characteristic ----------------------------------------

NOB = 9  # the Boss Nob's slot in a mob of nine Boys (W1) and a Boss Nob (W2)


def boyz_and_nob(uid: str = "b-boyz") -> UnitSpec:
    """The table's Boyz mob (nine W1 Boys), its tenth model a Boss Nob (W2)."""
    boyz = next(u for u in orks().units if u.id == "b-boyz")
    return dataclasses.replace(boyz, id=uid, model_wounds=(1,) * 9 + (2,))


def orks_with_a_nob() -> ArmySpec:
    army = orks()
    units = tuple(boyz_and_nob() if u.id == "b-boyz" else u for u in army.units)
    return ArmySpec(army.name, units, army.faction)


def test_a_unit_spec_keeps_each_slots_wounds_characteristic() -> None:
    mob = boyz_and_nob()
    assert mob.wounds == 1  # the unit's W, for display
    assert (mob.wounds_of(0), mob.wounds_of(8), mob.wounds_of(NOB)) == (1, 1, 2)
    assert mob.max_wounds == (1,) * 9 + (2,)
    # without per-slot wounds (and when they are all the unit's W) every model has W
    plain = unit("p", "Nobz", models=3, wounds=2, model_wounds=(2, 2, 2))
    assert plain.model_wounds == ()
    assert plain.max_wounds == (2, 2, 2)
    assert plain.wounds_of(2) == 2
    for bad in ((1, 2), (1, 0, 2), (1, 101, 2)):
        with pytest.raises(Refusal) as info:
            unit("x", "X", models=3, wounds=1, model_wounds=bad)
        assert info.value.code == "invalid_setup"
        assert info.value.details["field"] == "unit 'x'"


def test_a_mob_starts_with_each_slots_wounds_and_takes_damage_per_slot(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table(b=orks_with_a_nob())
    assert t.unit("b-boyz").wounds == (1,) * 9 + (2,)
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-hell", ("b-boyz",)))
    # ten 1-damage attacks: the nine Boys die one by one, the tenth wounds the Boss Nob
    t.do("A", ResolveAttack("a-hell", "b-boyz", damage=(1,) * 10))
    assert t.unit("b-boyz").wounds == (0,) * 9 + (1,)
    resolved = events(t, AttackResolved)[-1]
    assert resolved.damage == tuple(ModelDamage("b-boyz", i, 1) for i in range(10))
    assert (resolved.wounds_lost, resolved.models_destroyed) == (10, 9)
    view = next(u for u in t.battle.view("B")["units"] if u["id"] == "b-boyz")
    assert view["wounds"] == [0] * 9 + [1]
    assert view["max_wounds"] == [1] * 9 + [2]
    assert view["wounds_per_model"] == 1
    assert view["models_alive"] == 1
    t.check_replay()


def test_a_wounded_boss_nob_takes_the_next_attack(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """[L1704-1707]: a model that has lost wounds (1 of its own W2 left) takes the next attack,
    although its wounds left equal a Boy's W."""
    t = new_table(b=orks_with_a_nob())
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-hell", ("b-boyz",)))
    t.do("A", ResolveAttack("a-hell", "b-boyz", allocations=(ModelDamage("b-boyz", NOB, 1),)))
    assert t.unit("b-boyz").wounds == (1,) * 10
    t.do("A", Shoot("a-int", ("b-boyz",)))
    t.do("A", ResolveAttack("a-int", "b-boyz", damage=(1,)))
    assert t.unit("b-boyz").wounds == (1,) * 9 + (0,)
    assert events(t, AttackResolved)[-1].damage == (ModelDamage("b-boyz", NOB, 1),)
    t.check_replay()


def test_allocation_and_casualties_compare_each_slot_with_its_own_wounds() -> None:
    specs = {"s": unit("s", "Boyz", models=3, wounds=1, model_wounds=(1, 1, 2))}
    fresh = _state({"s": (1, 1, 2)}, specs)
    # nobody wounded: the first living slot; excess damage on a Boy is lost [L1788-1790]
    assert allocate(fresh, "s", (2,)) == [ModelDamage("s", 0, 1)]
    # mortal wounds carry over, the Nob taking both of its wounds [L1816-1824]
    assert allocate(fresh, "s", (), mortal_wounds=4) == [
        ModelDamage("s", 0, 1),
        ModelDamage("s", 1, 1),
        ModelDamage("s", 2, 2),
    ]
    hurt = _state({"s": (1, 1, 1)}, specs)
    assert allocate(hurt, "s", (1, 1)) == [ModelDamage("s", 2, 1), ModelDamage("s", 0, 1)]
    # a casualty by default: fewest wounds left, a wounded model before an unharmed one
    assert casualty_slots(hurt, "s", 1) == [ModelDamage("s", 2, 1)]
    assert casualty_slots(fresh, "s", 1) == [ModelDamage("s", 0, 1)]


def test_restored_wounds_never_exceed_the_slots_own_wounds() -> None:
    specs = {"s": unit("s", "Boyz", models=3, wounds=1, model_wounds=(1, 1, 2))}
    state = _state({"s": (0, 1, 0)}, specs)
    restored = (ModelDamage("s", 0, 5), ModelDamage("s", 2, 5))
    after = evolve(state, RollRerolled("s", "desperate_escape", Roll(None, ()), restored))
    assert after.units["s"].wounds == (1, 1, 2)
    once = (ModelDamage("s", 2, 1),)
    after = evolve(state, RollRerolled("s", "desperate_escape", Roll(None, ()), once))
    assert after.units["s"].wounds == (0, 1, 1)


@pytest.mark.parametrize(("left", "below"), [(2, True), (3, False), (6, False)])
def test_a_one_model_unit_is_below_half_strength_by_its_own_slots_wounds(
    left: int, below: bool
) -> None:
    """[L856-868]: strictly below half of the model's own W (6 here, though the unit's W
    given for display is 2)."""
    spec = unit("u", "Mek", models=1, wounds=2, model_wounds=(6,))
    state = BattleState(
        specs={"u": spec}, units={"u": UnitState(id="u", owner=Seat.A, wounds=(left,))}
    )
    assert state.below_half_strength("u") is below
