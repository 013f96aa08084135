"""The view parts (issue 21) live as long as their unit specs and states and no longer: a
battle dropped from every cache takes its entries with it, freed by reference counting (the
soak's memory: the tables used to hold their objects, up to 4096 units of finished matches)."""

from __future__ import annotations

import dataclasses
import gc
from collections.abc import Callable, Iterator

import pytest

from app.engine.wh40k10e.battle import views
from tests.engine.wh40k10e.battle.table import Table
from tests.engine.wh40k10e.battle.test_random_play import play
from tests.engine.wh40k10e.battle.test_view_parts import _plain_unit_view, _states


@pytest.fixture
def empty_tables() -> Iterator[None]:
    views._spec_parts.clear()
    views._state_parts.clear()
    gc.collect()
    gc.disable()  # what is freed must be freed by reference counting
    try:
        yield
    finally:
        gc.enable()


def test_the_parts_of_a_dropped_battle_leave_the_tables(
    new_table: Callable[..., Table], setup_battle: Callable[..., None], empty_tables: None
) -> None:
    battle = play(5, new_table, setup_battle, max_steps=150)
    states = _states(battle, every=5)
    for state in states:
        views.render(state, "A")
    held = len(views._state_parts)
    assert held > len(states[-1].units)  # older versions' unit states too
    assert len(views._spec_parts) > 0
    kept = states[-1]
    del battle, states, state
    # the last state's units are still alive: their parts stay and are found
    assert 0 < len(views._state_parts) <= len(kept.units) < held
    for unit in views.render(kept, "B")["units"]:
        assert unit == _plain_unit_view(kept, unit["id"])
    # a spec's part leaves with its spec (the table's specs are the fixture's too: a copy)
    specs = len(views._spec_parts)
    copy = dataclasses.replace(next(iter(kept.specs.values())))
    assert views._spec_part(copy) == views._spec_part(next(iter(kept.specs.values())))
    assert len(views._spec_parts) == specs + 1
    del copy
    assert len(views._spec_parts) == specs
    del kept, unit
    assert len(views._state_parts) == 0


def test_an_entry_is_the_part_of_its_own_object_only(
    new_table: Callable[..., Table], setup_battle: Callable[..., None], empty_tables: None
) -> None:
    """An id reused by a new object after the old one was freed finds no part (the entry
    left with the old object, and an entry is checked against its live object)."""
    parts = views._Parts()

    class Thing:
        pass

    old = Thing()
    parts.put(old, ("old",))
    assert parts.get(old) == ("old",)
    key = id(old)
    del old
    assert len(parts) == 0
    new = Thing()
    assert parts.get(new) is None or id(new) != key
    parts.put(new, ("new",))
    assert parts.get(new) == ("new",)
