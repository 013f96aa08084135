"""Issue 12, the rules the tracker lacked (Feel No Pain, Deadly Demise, Fights First mid-phase,
Lone Operative, Firing Deck, Plunging Fire, Aircraft in the Fight phase, Overwatch prompts,
Stealth and Heavy from the state, the coherency prompt), each played through the engine."""

from __future__ import annotations

from collections.abc import Callable

from app.engine.wh40k10e.battle import Ability, Formation
from app.engine.wh40k10e.battle.commands import (
    CompleteCharge,
    Consolidate,
    DeadlyDemise,
    DeclareCharge,
    DisembarkFromDestroyedTransport,
    EndPhase,
    Fight,
    HazardousTest,
    RemoveModels,
    ReportEngagement,
    ResolveAttack,
    Shoot,
    UseStratagem,
)
from app.engine.wh40k10e.battle.events import (
    DeadlyDemiseRolled,
    HazardousTested,
    MortalWoundsInflicted,
)
from app.engine.wh40k10e.battle.state import Step
from tests.engine.wh40k10e.battle.table import Table, events, goto, marines, orks, with_changes

# -- Feel No Pain against the mortal wounds the match resolves [L1857-1869] -------------------


def test_feel_no_pain_against_a_grenade(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: Feel No Pain was never rolled for a Grenade's mortal wounds. Three mortal
    wounds on Boyz with Feel No Pain 6+: one die per wound, a 6 keeps the model."""
    t = new_table(b=with_changes(orks(), b_boyz={"feel_no_pain": 6}))
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
    t = new_table(b=with_changes(orks(), b_boyz={"feel_no_pain": 5}))
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
    t = new_table(a=with_changes(marines(), a_cap={"feel_no_pain": 5}))
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
    t = new_table(a=with_changes(marines(), a_tac={"feel_no_pain": 6}))
    setup_battle(t)  # a-tac starts embarked in the Rhino
    goto(t, "B", "shooting", round_=1)
    t.do("B", Shoot("b-boyz", ("a-rhino",)))
    t.do("B", ResolveAttack("b-boyz", "a-rhino", mortal_wounds=10))
    t.do("A", DisembarkFromDestroyedTransport("a-tac"), dice=[1, 1, 2, 5, 6, 6, 3])
    assert t.unit("a-tac").wounds == (1, 2, 2, 2, 2)
    t.check_replay()


# -- Deadly Demise [L1876-1893] ----------------------------------------------------------------


def test_deadly_demise_rolls_before_the_passengers_disembark_and_hits_the_units_named(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: Deadly Demise could not be played. The Rhino (Deadly Demise D3) is destroyed
    with the Tactical Squad inside: its D6 is rolled at once; on a 6 nothing else happens until
    A names the units within 6" (the passengers are not affected); each suffers D3 mortal
    wounds, Feel No Pain applies; then the passengers disembark."""
    t = new_table(
        a=with_changes(marines(), a_rhino={"deadly_demise": "D3"}),
        b=with_changes(orks(), b_nobz={"feel_no_pain": 6}),
    )
    setup_battle(t)  # a-tac starts embarked in the Rhino
    goto(t, "B", "shooting", round_=1)
    t.do("B", Shoot("b-boyz", ("a-rhino",)))
    t.do("B", ResolveAttack("b-boyz", "a-rhino", mortal_wounds=10), dice=[6])
    (rolled,) = events(t, DeadlyDemiseRolled)
    assert rolled.unit == "a-rhino"
    assert rolled.explodes == 1
    assert t.state.demises == ("a-rhino",)
    # before the passengers disembark, and before anything else
    t.refused("A", DisembarkFromDestroyedTransport("a-tac"), "deadly_demise_pending")
    t.refused("B", Shoot("b-nobz", ("a-hell",)), "deadly_demise_pending")
    t.refused("B", DeadlyDemise("a-rhino", ("b-nobz",)), "not_your_unit")
    t.refused("A", DeadlyDemise("a-tac", ("b-nobz",)), "no_deadly_demise")
    t.refused("A", DeadlyDemise("a-rhino", ("a-tac",)), "bad_target")  # still embarked
    # the Nobz (Feel No Pain 6+) and the Intercessors (friendly fire: "each unit")
    t.do("A", DeadlyDemise("a-rhino", ("b-nobz", "a-int")), dice=[2, 6, 1, 1])
    # Nobz: D3 = 2, Feel No Pain 6 then 1 -> one wound lost; Intercessors: D3 = 1
    assert t.unit("b-nobz").wounds == (1, 2, 2, 2, 2)
    assert t.unit("a-int").wounds == (1, 2, 2, 2, 2)
    assert t.state.demises == ()
    t.do("A", DisembarkFromDestroyedTransport("a-tac"), dice=[6, 6, 6, 6, 6])
    assert t.unit("a-tac").wounds == (2, 2, 2, 2, 2)  # not hit by the Deadly Demise
    t.check_replay()


def test_deadly_demise_without_a_six_and_never_for_models_removed(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """A roll below 6: nothing waits. Models removed (coherency) never trigger it [L454-456]."""
    t = new_table(
        b=with_changes(orks(), b_wagon={"deadly_demise": "D6"}, b_nobz={"deadly_demise": "1"})
    )
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-hell", ("b-wagon",)))
    t.do("A", ResolveAttack("a-hell", "b-wagon", mortal_wounds=16), dice=[5])
    assert t.state.demises == ()
    t.do("B", RemoveModels("b-nobz", (0, 1)))
    assert events(t, DeadlyDemiseRolled)[-1].unit == "b-wagon"
    # two Nobz slain by an attack: one D6 each; one 6, one unit named, 1 mortal wound
    t.do("A", Shoot("a-int", ("b-nobz",)))
    t.do("A", ResolveAttack("a-int", "b-nobz", damage=(2, 2)), dice=[6, 4])
    assert t.state.demises == ("b-nobz",)
    t.do("B", DeadlyDemise("b-nobz", ("a-int",)))
    assert t.unit("a-int").wounds == (1, 2, 2, 2, 2)
    t.check_replay()


# -- Fights First: eligible at the start of the phase [L2611-2621] ------------------------------


def test_a_fights_first_unit_eligible_mid_phase_fights_in_remaining_combats(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: a Fights First unit that becomes eligible mid-phase could be picked in the
    Fights First step; it belongs to Remaining Combats."""
    t = new_table(
        a=with_changes(marines(), a_term={"abilities": frozenset({Ability.FIGHTS_FIRST})})
    )
    setup_battle(t)
    goto(t, "A", "charge", round_=1)
    t.do("A", DeclareCharge("a-hell", ("b-boyz",)), dice=[6, 6])
    t.do("A", CompleteCharge("a-hell", True))
    t.do("A", EndPhase())
    assert t.state.fight is not None
    assert t.state.fight.step is Step.FIGHTS_FIRST
    # the Terminators (Fights First) are found in Engagement Range of the Nobz only now
    t.do("A", ReportEngagement("a-term", ("b-nobz",)))
    t.refused("A", Fight("a-term"), "not_eligible_to_fight")
    t.do("A", Fight("a-hell", ("b-boyz",)))
    t.do("A", Consolidate("a-hell"))
    # Remaining Combats: the player who is not active selects first
    t.refused("A", Fight("a-term"), "not_your_turn")
    t.do("B", Fight("b-boyz"))
    t.do("B", Consolidate("b-boyz"))
    t.do("A", Fight("a-term", ("b-nobz",)))
    assert t.state.fight is not None
    assert t.state.fight.step is Step.REMAINING_COMBATS
    t.check_replay()
