"""An attack inside a match: the request built from the match, the target laid out in
allocation order (wounded models first), and the resolution mapped back to model slots."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from app.catalog.starter import starter_catalogue
from app.engine.combat import CombatResolution, ModelState, TargetState
from app.engine.wh40k10e.battle import Battle, BattleOptions, MatchSetup, Seat
from app.engine.wh40k10e.battle.state import BattleState, Effect, ModelDamage, MoveMode
from app.matches import armies, combat, service
from app.matches.exceptions import InvalidAttack
from tests.matches.conftest import marines, orks


def snapshots() -> dict[Seat, dict[str, Any]]:
    cat = starter_catalogue()
    kw = {"source": "t", "army_id": None, "catalogue_id": None, "points_limit": 2000}
    return {
        Seat.A: armies.snapshot_from_roster(cat, marines(), **kw),
        Seat.B: armies.snapshot_from_roster(cat, orks(), **kw),
    }


def state_with(snaps: dict[Seat, dict[str, Any]], **units: dict[str, Any]) -> BattleState:
    setup = MatchSetup(
        {seat: armies.army_spec(snaps[seat], seat) for seat in (Seat.A, Seat.B)},
        "strike_force",
        service.missions()["only-war"],
        BattleOptions(),
    )
    state = Battle.create(setup).state
    changed = dict(state.units)
    for uid, fields in units.items():
        changed[uid] = replace(changed[uid], **fields)
    return replace(state, units=changed)


def test_the_request_uses_the_snapshot_weapons_and_the_target_state() -> None:
    snaps = snapshots()
    state = state_with(
        snaps,
        a2={"move": MoveMode.REMAIN_STATIONARY},
        b2={"effects": frozenset({Effect.GO_TO_GROUND})},
    )
    built = combat.build_request(
        snaps, state, "a2", "b2", [{"weapon": "Bolt Rifle", "models": 5}], {"half_range": True}
    )
    req = built.request
    assert req["attacks"] == [
        {
            "models": 5,
            "weapon": {
                "name": "Bolt Rifle",
                "kind": "ranged",
                "attacks": "2",
                "skill": 3,
                "strength": 4,
                "ap": -1,
                "damage": "1",
                "range": 24,
                "abilities": ["Assault", "Heavy"],
            },
        }
    ]
    assert (req["target"]["models"], req["target"]["wounds"]) == (9, 1)  # the Boys
    # the Boss Nob (W2) is a group of its own, after the Boys
    assert [(g["models"], g["wounds"]) for g in req["target"]["groups"]] == [(1, 2)]
    assert req["target"]["toughness"] == 5
    assert req["target"]["save"] == 5  # the Boyz' main profile (Sv 5+)
    assert req["situation"] == {
        "remained_stationary": True,
        "go_to_ground": True,
        "half_range": True,
    }
    assert built.slots == tuple(("b2", i) for i in range(10))
    analysis = combat.analyze(req)
    assert analysis.damage.mean() > 0


def test_wounded_models_come_first_and_a_leader_is_a_character_group() -> None:
    snaps = snapshots()
    # the Captain leads the Intercessors; one Intercessor has 1 wound left, one is dead
    state = state_with(
        snaps,
        a1={"bodyguard": "a2"},
        a2={"leader": "a1", "wounds": (2, 0, 2, 1, 2)},
    )
    built = combat.build_request(
        snaps, state, "b2", "a2", [{"weapon": "Slugga", "models": 10}], None
    )
    target = built.request["target"]
    assert (target["models"], target["wounds"]) == (1, 1)  # the wounded model takes the next attack
    groups = target["groups"]
    assert [(g["models"], g["wounds"]) for g in groups] == [(3, 2), (1, 5)]
    assert "CHARACTER" not in groups[0]["keywords"]
    assert "CHARACTER" in groups[1]["keywords"]
    assert groups[1]["invulnerable_save"] == 4
    assert built.slots == (("a2", 3), ("a2", 0), ("a2", 2), ("a2", 4), ("a1", 0))
    # the engine's models, in allocation order, map back to those slots
    after = TargetState(
        models=(
            ModelState("main", 1, 0),
            ModelState("g", 2, 0),
            ModelState("g", 2, 1),
            ModelState("g", 2, 2),
            ModelState("c", 5, 5),
        ),
        wounds_lost=4,
        models_destroyed=2,
    )
    resolution = CombatResolution(seed=1, dice=(), totals={}, target_after=after)
    assert [(a.unit, a.model, a.damage) for a in combat.allocations(built, resolution)] == [
        ("a2", 3, 1),
        ("a2", 0, 2),
        ("a2", 2, 1),
    ]


def test_a_boss_nob_is_laid_out_with_its_own_wounds() -> None:
    """Boyz (b2): nine Boys at W1 and the Boss Nob (slot 9) at W2."""
    snaps = snapshots()
    state = state_with(snaps)
    assert state.units["b2"].wounds == (1,) * 9 + (2,)
    weapons = [{"weapon": "Bolt Rifle", "models": 5}]
    built = combat.build_request(snaps, state, "a2", "b2", weapons, None)
    target = built.request["target"]
    assert (target["models"], target["wounds"]) == (9, 1)
    assert [(g["name"], g["models"], g["wounds"]) for g in target["groups"]] == [("Boyz #1", 1, 2)]
    assert "CHARACTER" not in target["groups"][0]["keywords"]
    assert built.slots == tuple(("b2", i) for i in range(10))
    # the Nob on 1 of its 2 wounds has lost wounds: it takes the next attack [L1704-1707]
    state = state_with(snaps, b2={"wounds": (1, 1, 1) + (0,) * 6 + (1,)})
    built = combat.build_request(snaps, state, "a2", "b2", weapons, None)
    target = built.request["target"]
    assert (target["models"], target["wounds"], target.get("groups")) == (4, 1, None)
    assert built.slots == (("b2", 9), ("b2", 0), ("b2", 1), ("b2", 2))
    after = TargetState(
        models=(
            ModelState("main", 1, 0),
            ModelState("main", 1, 1),
            ModelState("main", 1, 1),
            ModelState("main", 1, 1),
        ),
        wounds_lost=1,
        models_destroyed=1,
    )
    resolution = CombatResolution(seed=1, dice=(), totals={}, target_after=after)
    assert combat.allocations(built, resolution) == (ModelDamage("b2", 9, 1),)


def test_a_live_roll_by_hand_is_mapped_onto_the_right_models() -> None:
    snaps = snapshots()
    state = state_with(snaps, a2={"wounds": (2, 1, 2, 2, 2)})
    built = combat.build_request(
        snaps, state, "b1", "a2", [{"weapon": "Twin slugga", "models": 1}], None
    )
    # Twin slugga: 2 attacks; hits 6, 6; wounds 6, 6; saves 1, 1 (3+ fails)
    roller = combat.BoundedRoller.from_values([6, 6, 6, 6, 1, 1])
    resolution = combat.resolve(built.request, roller)
    assert resolution.totals["failed_saves"] == 2
    damage = [(a.unit, a.model, a.damage) for a in combat.allocations(built, resolution)]
    assert damage[0] == ("a2", 1, 1)  # the wounded model first, excess lost
    assert damage[1][0] == "a2"
    assert sum(d for _u, _m, d in damage) == resolution.totals["damage"]


def test_bad_attacks_are_refused_with_the_field() -> None:
    snaps = snapshots()
    state = state_with(snaps)
    with pytest.raises(InvalidAttack) as info:
        combat.build_request(
            snaps, state, "a2", "b2", [{"weapon": "Bolt Rifle", "models": 6}], None
        )
    assert info.value.errors[0]["field"] == "weapons[0].models"
    with pytest.raises(InvalidAttack):
        combat.build_request(
            snaps, state, "a2", "a3", [{"weapon": "Bolt Rifle", "models": 1}], None
        )
    with pytest.raises(InvalidAttack):
        combat.build_request(snaps, state, "a2", "b2", [], None)
    many = [{"weapon": "Bolt Rifle", "models": 1}] * 9
    with pytest.raises(InvalidAttack):
        combat.build_request(snaps, state, "a2", "b2", many, None)
