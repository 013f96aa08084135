"""Issue 12 item 7, played through the engine: Heavy from the tracked state, Aircraft in the
Fight phase, Lone Operative, Firing Deck, Fire Overwatch prompts, the coherency prompt."""

from __future__ import annotations

from collections.abc import Callable

from app.engine.wh40k10e.battle import Ability, Formation, Seat
from app.engine.wh40k10e.battle.commands import (
    ArriveFromReserves,
    Consolidate,
    EndPhase,
    Fight,
    Move,
    ReportEngagement,
    ResolveAttack,
    Shoot,
    UseStratagem,
)
from app.engine.wh40k10e.battle.eligibility import fight_candidates, fight_eligible
from app.engine.wh40k10e.battle.state import MoveMode, Step, WeaponUse
from tests.engine.wh40k10e.battle.table import Table, goto, marines, orks, with_changes

# -- Heavy: a unit that did not move at all Remained Stationary [L948-950], [L2227-2233] -------


def test_a_unit_that_did_not_move_remained_stationary(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: Heavy's +1 came only after an explicit "Remain Stationary"; a unit that was
    never moved in its Movement phase Remained Stationary too. Not one that moved, nor in the
    opponent's turn (Fire Overwatch), nor before its Movement phase is over."""
    t = new_table(a=marines(), b=orks())
    setup_battle(t)
    goto(t, "A", "movement", round_=1)
    assert not t.state.remained_stationary("a-hell")  # it may still move
    t.do("A", Move("a-int", MoveMode.NORMAL))
    t.do("A", Move("a-term", MoveMode.REMAIN_STATIONARY))
    t.do("A", EndPhase())
    s = t.state
    assert s.remained_stationary("a-hell")
    assert s.remained_stationary("a-term")
    assert not s.remained_stationary("a-int")
    goto(t, "B", "movement", round_=1)
    assert not t.state.remained_stationary("a-hell")


# -- Aircraft in the Fight phase [L4155-4167] ---------------------------------------------------


def test_aircraft_fight_only_fly_units_and_only_fly_models_fight_them(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: an Aircraft is eligible to fight only within Engagement Range of a FLY unit
    and attacks only FLY units; only FLY models make melee attacks against it."""
    t = new_table(a=with_changes(marines(), a_term={"keywords": frozenset({"INFANTRY", "FLY"})}))
    setup_battle(t)
    goto(t, "B", "movement", round_=2)
    t.do("B", ArriveFromReserves("b-dakka"))
    t.do("B", ReportEngagement("b-dakka", ("a-int", "a-term")))
    goto(t, "B", "fight", round_=2)
    # Remaining Combats: A (not active) selects first; the Intercessors cannot FLY
    t.refused("A", Fight("a-int", ("b-dakka",)), "not_eligible_to_fight")
    assert "a-int" not in fight_candidates(t.state, Seat.A, Step.REMAINING_COMBATS)
    t.do("A", Fight("a-term", ("b-dakka",)))
    t.do("A", Consolidate("a-term"))
    t.refused("B", Fight("b-dakka", ("a-int",)), "bad_target")
    t.do("B", Fight("b-dakka", ("a-term",)))
    t.check_replay()


def test_an_aircraft_engaged_only_with_ground_units_does_not_fight(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "B", "movement", round_=2)
    t.do("B", ArriveFromReserves("b-dakka"))
    t.do("B", ReportEngagement("b-dakka", ("a-int",)))
    goto(t, "B", "fight", round_=2)
    assert not fight_eligible(t.state, "b-dakka")
    assert not fight_eligible(t.state, "a-int")
    t.refused("B", Fight("b-dakka", ("a-int",)), "not_eligible_to_fight")


# -- Lone Operative [L1476-1478] ------------------------------------------------------------


def test_a_lone_operative_is_shot_only_when_the_player_states_12_inches(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: Lone Operative was not checked. Unless Attached, it is the target of a
    ranged attack only from within 12": the shooter says so, else the target is refused."""
    t = new_table(b=with_changes(orks(), b_komm={"abilities": frozenset({Ability.LONE_OPERATIVE})}))
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    t.refused("A", Shoot("a-int", ("b-komm",)), "lone_operative")
    t.refused("A", Shoot("a-int", ("b-boyz", "b-komm")), "lone_operative")
    t.do("A", Shoot("a-hell", ("b-boyz",)))  # the others are targets as ever
    t.do("A", Shoot("a-int", ("b-komm",), within_12=True))
    goto(t, "B", "movement", round_=1)
    t.do("B", Move("b-komm", MoveMode.NORMAL))
    # Fire Overwatch is a ranged attack too
    t.refused("A", UseStratagem("fire_overwatch", unit="a-hell", enemy="b-komm"), "lone_operative")
    t.do("A", UseStratagem("fire_overwatch", unit="a-hell", enemy="b-komm", within_12=True))
    t.check_replay()


def test_an_attached_lone_operative_is_shot_as_ever(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table(
        a=with_changes(marines(), a_cap={"abilities": frozenset({Ability.LONE_OPERATIVE})}),
    )
    setup_battle(t, {"A": Formation(attachments=(("a-cap", "a-int"),))})
    goto(t, "B", "shooting", round_=1)
    t.do("B", Shoot("b-boyz", ("a-cap",)))


# -- Firing Deck x [L1292-1308] ---------------------------------------------------------------


def test_firing_deck_lends_up_to_x_embarked_models_weapons(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: a Transport with Firing Deck x could not use its passengers' weapons. When it
    shoots, up to x embarked models each lend it one ranged weapon (over all its attacks of the
    phase); the passengers then count as having shot. Not a Transport without it."""
    t = new_table(a=with_changes(marines(), a_rhino={"firing_deck": 2}))
    setup_battle(t)  # the Tactical Squad is embarked in the Rhino
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-rhino", ("b-boyz",)))
    bolters = WeaponUse("a-tac", "Boltgun", 3)
    t.refused(
        "A", ResolveAttack("a-rhino", "b-boyz", damage=(1,), weapons=(bolters,)), "firing_deck"
    )
    t.do(
        "A",
        ResolveAttack(
            "a-rhino",
            "b-boyz",
            damage=(1,),
            weapons=(WeaponUse("a-rhino", "Storm Bolter", 1), WeaponUse("a-tac", "Boltgun", 1)),
        ),
    )
    assert t.unit("a-tac").shot
    # a second attack of the phase may use the one model left, not two
    two = WeaponUse("a-tac", "Missile Launcher", 2)
    t.refused("A", ResolveAttack("a-rhino", "b-boyz", damage=(1,), weapons=(two,)), "firing_deck")
    one = WeaponUse("a-tac", "Missile Launcher", 1)
    t.do("A", ResolveAttack("a-rhino", "b-boyz", damage=(1,), weapons=(one,)))
    t.check_replay()


def test_no_firing_deck_no_passenger_weapons(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-rhino", ("b-boyz",)))
    lend = WeaponUse("a-tac", "Boltgun", 1)
    t.refused("A", ResolveAttack("a-rhino", "b-boyz", damage=(1,), weapons=(lend,)), "bad_weapon")
