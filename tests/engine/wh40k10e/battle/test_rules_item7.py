"""Issue 12 item 7, played through the engine: Heavy from the tracked state, Aircraft in the
Fight phase, Lone Operative, Firing Deck, Fire Overwatch prompts, the coherency prompt."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from app.engine.wh40k10e.battle import ArmySpec
from app.engine.wh40k10e.battle.commands import EndPhase, Move
from app.engine.wh40k10e.battle.state import MoveMode
from tests.engine.wh40k10e.battle.table import Table, goto, marines, orks


def _with(army: ArmySpec, **changes: dict[str, object]) -> ArmySpec:
    """``army`` with some units' fields changed (``unit_id={"field": value}``)."""
    units = tuple(
        dataclasses.replace(u, **changes[u.id.replace("-", "_")])  # type: ignore[arg-type]
        if u.id.replace("-", "_") in changes
        else u
        for u in army.units
    )
    return ArmySpec(army.name, units, army.faction)


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
