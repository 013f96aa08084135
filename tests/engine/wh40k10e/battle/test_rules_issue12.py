"""Issue 12's rules the engine got wrong or lacked, each played through the engine."""

from __future__ import annotations

from collections.abc import Callable

from app.engine.wh40k10e.battle import Formation
from app.engine.wh40k10e.battle.commands import ReportEngagement, Shoot
from tests.engine.wh40k10e.battle.table import Table, goto


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
