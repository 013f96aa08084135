"""Getting into a transport (and a flip at the end) is checked before any die (rulings 92): a
Tir en Mouvement shot or the other side's En Alerte would otherwise roll first, then the
refusal would tell the dice (the player choosing again) or, after an En Alerte answer, refuse
the opponent's answer itself and stall the match.

The sample battle (tests/engine/black_reach/battle/test_battle_rules.py): the transport on
(5, 1)-(5, 0), capacity 4; the tactical squad and the heavy-weapon team get in (4 places), so
the sergeant has none. Here the sergeant is given Tir en Mouvement, and the Orks' Shootas En Alerte.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, sample_setup
from app.engine.match.errors import Refusal
from tests.engine.black_reach.battle.test_battle_rules import (
    BOLTER,
    BOYZ1,
    BUGGY,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    TRANSPORT,
    order,
    path,
)

A, B = "A", "B"


def full_transport(*, overwatch: bool) -> BlackReachBattle:
    base = sample_setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    counters = {c["id"]: c for c in catalogue["counters"]}
    counters["sample-um-sergeant"]["faces"][0]["abilities"].append(
        {"id": "shoot_on_move", "param": -1}
    )
    if overwatch:
        counters["sample-ork-shootas"]["faces"][0]["abilities"].append({"id": "overwatch"})
    battle = BlackReachBattle.create(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    ork_orders = [order(BOYZ1, 1), order(BUGGY, 2), order(NOB, 3), order(SHOOTAS, 4)]
    battle.execute_json({"type": "place_orders", "orders": ork_orders}, B)
    um_orders = [order(TACTICAL, 1), order(BOLTER, 2), order(SERGEANT, 3)]
    battle.execute_json({"type": "place_orders", "orders": um_orders}, A)
    battle.execute_json({"type": "hold", "unit": BOYZ1}, B)
    for unit, steps, ork in ((TACTICAL, ((3, 2), (4, 2)), BUGGY), (BOLTER, ((4, 1),), NOB)):
        move = {"type": "move", "unit": unit, "path": path(*steps), "embark": TRANSPORT}
        battle.execute_json(move, A)
        if battle.state.pending is not None:  # the Shootas' En Alerte declined
            battle.execute_json({"type": "pass_overwatch"}, B)
        assert battle.state.units[unit].embarked_in == TRANSPORT
        battle.execute_json({"type": "hold", "unit": ork}, B)
    return battle


SERGEANT_IN: dict[str, Any] = {
    "type": "move",
    "unit": SERGEANT,
    "path": path((1, 2), (2, 3), (3, 3), (4, 2)),
    "embark": TRANSPORT,
}


def test_a_full_transport_is_refused_before_the_shot_on_the_move() -> None:
    battle = full_transport(overwatch=False)
    version = battle.version
    # no die given: refused before any is needed (not "not_enough_dice"), whatever the shot
    with pytest.raises(Refusal) as info:
        battle.execute_json({**SERGEANT_IN, "fire_at": SHOOTAS}, A, dice=[])
    assert info.value.code == "transport_full"
    assert battle.version == version
    for seed in range(1, 7):
        with pytest.raises(Refusal) as seeded:
            battle.execute(battle.decode({**SERGEANT_IN, "fire_at": SHOOTAS}), A, seed=seed)
        assert seeded.value.code == "transport_full"
    assert battle.version == version


def test_a_full_transport_is_refused_before_the_move_waits_for_an_en_alerte() -> None:
    battle = full_transport(overwatch=True)
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(SERGEANT_IN, A)
    assert info.value.code == "transport_full"
    assert (battle.version, battle.state.pending) == (version, None)
    # a move with room still waits for the answer, which then goes through
    battle.execute_json({"type": "move", "unit": SERGEANT, "path": path((1, 2), (2, 3))}, A)
    assert battle.state.pending is not None
    battle.execute_json({"type": "pass_overwatch"}, B)
    assert battle.state.pending is None
    assert battle.state.units[SERGEANT].placement.anchor == (2, 3)


def test_a_flip_at_the_end_without_changement_d_etat_is_refused_before_any_die() -> None:
    # the same for Changement d'état at the end of the move (the sergeant has none)
    battle = full_transport(overwatch=False)
    short = {"type": "move", "unit": SERGEANT, "path": path((1, 2)), "flip": "end"}
    with pytest.raises(Refusal) as info:
        battle.execute_json({**short, "fire_at": SHOOTAS}, A, dice=[])
    assert info.value.code == "no_state_change"
    watched = full_transport(overwatch=True)
    version = watched.version
    with pytest.raises(Refusal) as waiting:
        watched.execute_json({**short, "path": path((1, 2), (2, 3))}, A)
    assert waiting.value.code == "no_state_change"
    assert (watched.version, watched.state.pending) == (version, None)
