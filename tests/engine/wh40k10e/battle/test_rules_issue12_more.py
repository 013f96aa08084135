"""Issue 12, the rules the tracker lacked (Feel No Pain, Deadly Demise, Fights First mid-phase,
Lone Operative, Firing Deck, Plunging Fire, Aircraft in the Fight phase, Overwatch prompts,
Stealth and Heavy from the state, the coherency prompt), each played through the engine."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from app.engine.wh40k10e.battle import ArmySpec, Formation
from app.engine.wh40k10e.battle.commands import (
    CompleteCharge,
    DeclareCharge,
    DisembarkFromDestroyedTransport,
    HazardousTest,
    ResolveAttack,
    Shoot,
    UseStratagem,
)
from app.engine.wh40k10e.battle.events import HazardousTested, MortalWoundsInflicted
from tests.engine.wh40k10e.battle.table import Table, events, goto, marines, orks


def _with(army: ArmySpec, **changes: dict[str, object]) -> ArmySpec:
    """``army`` with some units' fields changed (``unit_id={"field": value}``)."""
    units = tuple(
        dataclasses.replace(u, **changes[u.id.replace("-", "_")])  # type: ignore[arg-type]
        if u.id.replace("-", "_") in changes
        else u
        for u in army.units
    )
    return ArmySpec(army.name, units, army.faction)


# -- Feel No Pain against the mortal wounds the match resolves [L1857-1869] -------------------


def test_feel_no_pain_against_a_grenade(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: Feel No Pain was never rolled for a Grenade's mortal wounds. Three mortal
    wounds on Boyz with Feel No Pain 6+: one die per wound, a 6 keeps the model."""
    t = new_table(b=_with(orks(), b_boyz={"feel_no_pain": 6}))
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    t.do(
        "A", UseStratagem("grenade", unit="a-int", enemy="b-boyz"), dice=[4, 4, 4, 1, 1, 1, 6, 2, 6]
    )
    assert t.unit("b-boyz").models_alive == 9
    (e,) = events(t, MortalWoundsInflicted)
    assert e.mortal_wounds == 3
    assert e.fnp is not None
    assert e.fnp.values == (6, 2, 6)
    t.check_replay()


def test_feel_no_pain_against_tank_shock(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table(b=_with(orks(), b_boyz={"feel_no_pain": 5}))
    setup_battle(t)
    goto(t, "A", "charge", round_=1)
    t.do("A", DeclareCharge("a-rhino", ("b-boyz",)), dice=[6, 6])
    t.do("A", CompleteCharge("a-rhino", True))
    # S5 against T5: five dice, three 5+ = 3 mortal wounds; Feel No Pain 5+ ignores two
    dice = [5, 5, 6, 1, 1, 5, 6, 1]
    t.do("A", UseStratagem("tank_shock", unit="a-rhino", enemy="b-boyz", strength=5), dice=dice)
    assert t.unit("b-boyz").models_alive == 9
    t.check_replay()


def test_feel_no_pain_against_hazardous(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """The CHARACTER of an Attached unit takes 3 mortal wounds on a failed Hazardous test
    [L2287-2294]; its Feel No Pain 5+ is rolled for each."""
    t = new_table(a=_with(marines(), a_cap={"feel_no_pain": 5}))
    setup_battle(
        t, {"A": Formation(attachments=(("a-cap", "a-int"),), embarked=(("a-tac", "a-rhino"),))}
    )
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-int", ("b-boyz",)))
    t.do("A", HazardousTest("a-int", weapons=1, on_unit="a-cap"), dice=[1, 5, 2, 6])
    assert t.unit("a-cap").wounds == (4,)
    (e,) = events(t, HazardousTested)
    assert e.fnp is not None
    assert e.fnp.values == (5, 2, 6)
    t.check_replay()


def test_feel_no_pain_against_a_destroyed_transport(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """[L1318-1320]: each 1 is a mortal wound on the disembarking unit; Feel No Pain 6+."""
    t = new_table(a=_with(marines(), a_tac={"feel_no_pain": 6}))
    setup_battle(t)  # a-tac starts embarked in the Rhino
    goto(t, "B", "shooting", round_=1)
    t.do("B", Shoot("b-boyz", ("a-rhino",)))
    t.do("B", ResolveAttack("b-boyz", "a-rhino", mortal_wounds=10))
    t.do("A", DisembarkFromDestroyedTransport("a-tac"), dice=[1, 1, 2, 5, 6, 6, 3])
    assert t.unit("a-tac").wounds == (1, 2, 2, 2, 2)
    t.check_replay()
