"""The unit views rendered from the per-spec and per-unit-state parts (issue 21) are exactly
what the plain rendering gives, at every stage of a random battle, for every viewer; no two
views share a mutable value; a changed unit is rendered from its new state."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from app.engine.wh40k10e.battle import views
from app.engine.wh40k10e.battle.game import Battle
from app.engine.wh40k10e.battle.state import BattleState
from tests.engine.wh40k10e.battle.table import Table
from tests.engine.wh40k10e.battle.test_random_play import play


def _plain_unit_view(state: BattleState, unit_id: str) -> dict[str, Any]:
    """The unit view as it was built before the parts were kept (the oracle)."""
    u = state.units[unit_id]
    spec = state.specs[unit_id]
    used: dict[tuple[str, str], int] = {}
    for w in u.weapons_used:
        used[w.unit, w.weapon] = used.get((w.unit, w.weapon), 0) + w.models
    return {
        "id": u.id,
        "owner": str(u.owner),
        "name": spec.name,
        "datasheet": spec.datasheet,
        "keywords": sorted(spec.keywords),
        "abilities": sorted(str(a) for a in spec.abilities),
        "points": spec.points,
        "oc": spec.oc,
        "leadership": spec.leadership,
        "wounds_per_model": spec.wounds,
        "max_wounds": list(spec.max_wounds),
        "models": len(u.wounds),
        "models_alive": u.models_alive,
        "wounds": list(u.wounds),
        "destroyed": not u.alive,
        "location": str(u.location),
        "reserve": None if u.reserve is None else str(u.reserve),
        "embarked_in": u.embarked_in,
        "leader": u.leader,
        "bodyguard": u.bodyguard,
        "hover": u.hover,
        "battle_shocked": u.battle_shocked,
        "below_half_strength": u.alive and state.below_half_strength(unit_id),
        "engaged_with": list(state.engaged_units(unit_id)) if u.alive else [],
        "move": None if u.move is None else str(u.move),
        "arrived": u.arrived,
        "cannot_charge": u.cannot_charge,
        "charge_moved": u.charge_moved,
        "fights_first": u.charge_bonus,
        "shot": u.shot,
        "fought": u.fought,
        "charge_declared": u.charge_declared,
        "targets": sorted(u.targets),
        "attacked": sorted(u.attacked),
        "weapons_used": [
            {"unit": p, "weapon": w, "models": n} for (p, w), n in sorted(used.items())
        ],
        "all_weapons_used": u.all_weapons_used,
        "effects": sorted(str(e) for e in u.effects),
        "must_arrive": u.must_arrive,
        "transport_destroyed": u.transport_destroyed,
    }


def _states(battle: Battle, every: int = 7) -> list[BattleState]:
    """The states after every ``every``-th command (a command's batch is applied whole)."""
    envelopes = battle.envelopes
    ends = [
        k
        for k in range(1, len(envelopes) + 1)
        if k == len(envelopes) or envelopes[k].batch != envelopes[k - 1].batch
    ]
    return [Battle(envelopes[:k]).state for k in {*ends[::every], ends[-1]}]


def test_unit_views_are_the_plain_rendering_at_every_stage(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    battle = play(2, new_table, setup_battle, max_steps=400)
    states = _states(battle)
    assert len(states) > 10
    for state in states:
        for viewer in ("A", "B", None):
            view = views.render(state, viewer)
            units = view.get("units", [])
            assert [u["id"] for u in units] == list(state.units)
            for unit in units:
                plain = _plain_unit_view(state, unit["id"])
                assert unit == plain
                assert list(unit) == list(plain)  # the same keys in the same order (the JSON)
            # a second rendering (the parts found, not built) is the same
            assert views.render(state, viewer) == view


def test_views_share_no_mutable_value(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    battle = play(3, new_table, setup_battle, max_steps=200)
    state = battle.state
    first = views.render(state, "A")
    for unit in first["units"]:
        for key, value in unit.items():
            if isinstance(value, list):
                value.append("tampered")
                unit[key] = value
        unit["weapons_used"].append({"unit": "x", "weapon": "y", "models": 1})
    again = views.render(state, "B")
    for unit in again["units"]:
        assert unit == _plain_unit_view(state, unit["id"])


def test_a_changed_unit_is_rendered_from_its_new_state(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    battle = play(4, new_table, setup_battle, max_steps=150)
    state = battle.state
    unit_id = next(iter(state.units))
    views.render(state, "A")  # the parts of the old unit state are held
    hurt = dataclasses.replace(
        state.units[unit_id], wounds=tuple(0 for _ in state.units[unit_id].wounds)
    )
    changed = dataclasses.replace(state, units={**state.units, unit_id: hurt})
    unit = next(u for u in views.render(changed, "A")["units"] if u["id"] == unit_id)
    assert unit == _plain_unit_view(changed, unit_id)
    assert unit["destroyed"] is True
    assert unit["models_alive"] == 0


def test_the_parts_tables_are_bounded(
    new_table: Callable[..., Table], setup_battle: Callable[..., None], monkeypatch: Any
) -> None:
    monkeypatch.setattr(views, "_PARTS_MAX", 5)
    views._state_parts.clear()
    views._spec_parts.clear()
    battle = play(1, new_table, setup_battle, max_steps=120)
    for state in _states(battle, every=3):
        views.render(state, "A")
        assert len(views._state_parts) <= 5
        assert len(views._spec_parts) <= 5
