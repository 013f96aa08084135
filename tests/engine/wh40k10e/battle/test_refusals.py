"""A catalogue of refusals: each has a stable code, a kind and a clear message, and leaves the
match untouched (``Table.refused`` checks the version and the state)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.engine.match.errors import Refusal
from app.engine.match.missions import Mission
from app.engine.wh40k10e.battle import ArmySpec, Battle, Code, MatchSetup, Seat
from app.engine.wh40k10e.battle.commands import (
    CompleteCharge,
    ConfirmResult,
    Consolidate,
    DeclareFormations,
    DeployUnit,
    Disembark,
    EndPhase,
    Move,
    Pass,
    PlaceObjective,
    ResolveAttack,
    RollOff,
    ScoutMove,
    Shoot,
    UseStratagem,
)
from app.engine.wh40k10e.battle.rules import CreateMatch
from app.engine.wh40k10e.battle.state import ModelDamage, MoveMode, Stage
from tests.engine.wh40k10e.battle.table import (
    DEFAULT_FORMATIONS,
    Table,
    goto,
    marines,
    orks,
    stage,
    unit,
)


def test_codes_are_unique_snake_case() -> None:
    values = [c.value for c in Code]
    assert len(values) == len(set(values))
    assert all(v.replace("_", "").isalpha() and v == v.lower() for v in values)


def test_refusal_catalogue_in_battle(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t, {"A": DEFAULT_FORMATIONS["A"]})
    goto(t, "A", "movement", round_=1)
    t.refused("C", EndPhase(), "not_a_player")
    t.refused("A", UseStratagem("nope"), "unknown_stratagem")
    t.refused("A", Shoot("a-hell", ("b-boyz",)), "wrong_phase")
    t.refused("A", ConfirmResult(), "battle_not_over")
    t.refused("B", Pass(), "no_reaction_window")
    t.refused("A", Move("a-tac", MoveMode.NORMAL), "not_on_battlefield")  # embarked
    t.refused("A", Disembark("a-hell"), "not_embarked")
    t.refused("A", CompleteCharge("a-hell", True), "no_charge_in_progress")
    t.refused("A", Move("b-boyz", MoveMode.NORMAL), "not_your_unit")
    t.refused("A", Move("zz", MoveMode.NORMAL), "unknown_unit")
    goto(t, "A", "shooting")
    t.do("A", Shoot("a-hell", ("b-boyz",)))
    t.refused(
        "A",
        ResolveAttack("a-hell", "b-boyz", allocations=(ModelDamage("b-nobz", 0, 1),)),
        "bad_allocation",
    )
    t.refused(
        "A",
        ResolveAttack("a-hell", "b-boyz", allocations=(ModelDamage("b-boyz", 0, 1),), damage=(1,)),
        "bad_allocation",
    )
    t.refused(
        "A",
        ResolveAttack("a-hell", "b-boyz", allocations=(ModelDamage("b-boyz", 12, 1),)),
        "bad_allocation",
    )
    t.do(
        "A",
        ResolveAttack(
            "a-hell",
            "b-boyz",
            allocations=(ModelDamage("b-boyz", 0, 3), ModelDamage("b-boyz", 1, 1)),
        ),
    )
    assert t.unit("b-boyz").wounds[:3] == (0, 0, 1)  # excess damage lost
    # one attack per target and phase: a second roll with the same unit is refused
    t.refused("A", ResolveAttack("a-hell", "b-boyz", mortal_wounds=1), "already_attacked")
    t.do("A", Shoot("a-int", ("b-boyz",)))
    t.refused(
        "A",
        ResolveAttack("a-int", "b-boyz", allocations=(ModelDamage("b-boyz", 0, 1),)),
        "bad_allocation",
    )  # a destroyed model
    t.do("A", ResolveAttack("a-int", "b-boyz", mortal_wounds=50))
    goto(t, "A", "movement", round_=2)
    t.refused("A", Move("a-hell", MoveMode.FALL_BACK), "not_engaged")
    goto(t, "B", "movement", round_=2)
    t.refused("B", Move("b-boyz", MoveMode.NORMAL), "unit_destroyed")
    goto(t, "B", "fight", round_=2)
    t.refused("B", Consolidate("b-nobz"), "not_fighting")


def test_refusals_in_set_up(new_table: Callable[..., Table], only_war: Mission) -> None:
    t = new_table()
    t.refused("A", EndPhase(), "wrong_stage")
    t.refused("A", DeclareFormations(DEFAULT_FORMATIONS["A"]), "wrong_stage")
    t.do("A", RollOff(), dice=[6, 1])
    for i in range(4):
        t.do("AB"[i % 2], PlaceObjective())
    t.do("A", RollOff(), dice=[6, 1])
    t.do("A", DeclareFormations(DEFAULT_FORMATIONS["A"]))
    t.do("B", DeclareFormations(DEFAULT_FORMATIONS["B"]))
    while stage(t) is Stage.DEPLOY:
        deployer = t.state.next_seat
        assert deployer is not None
        todo = sorted(u.id for u in t.state.units_of(deployer) if u.location == "to_deploy")
        t.do(str(deployer), DeployUnit(todo[0]))
    t.do("A", RollOff(), dice=[1, 6])  # B has the first turn, and the Kommandos' Scouts move
    assert stage(t) is Stage.SCOUTS
    t.refused("B", ScoutMove("b-boyz"), "not_a_scout")
    t.refused("A", ScoutMove("a-int"), "not_your_choice")
    setup = t.state.setup
    assert setup is not None
    with pytest.raises(Refusal) as info:
        t.battle.match.execute(CreateMatch(setup), "A")
    assert info.value.code == "match_already_created"


def test_refusals_before_a_match_and_of_a_bad_setup(only_war: Mission) -> None:
    with pytest.raises(Refusal) as info:
        Battle().execute(EndPhase(), "A")
    assert info.value.code == "match_not_created"
    twice = ArmySpec("x", (unit("u", "U"), unit("u", "U")))
    with pytest.raises(Refusal) as info:
        MatchSetup({Seat.A: twice, Seat.B: orks()}, "strike_force", only_war)
    assert info.value.code == "invalid_setup"
    assert info.value.kind == "input"
    with pytest.raises(Refusal) as info:
        MatchSetup({Seat.A: marines(), Seat.B: orks()}, "apocalypse", only_war)
    assert "battle_size" in info.value.message
    with pytest.raises(Refusal) as info:
        unit("x", "X", models=0)
    assert info.value.code == "invalid_setup"
