"""What the legal actions offer for a Tir en Mouvement and a flamer aboard a transport of
several squares (issue 16, rulings 136 and 137): the move of a unit with Tir en Mouvement
lists the enemy units it may aim at (``fire_targets``, rulings 123; a heavy vehicle's Tir en
Mouvement weapons too), and a unit aboard a two-square transport
gets one flame per square of the transport and direction, each with its ``x``, ``y``.

The battles are those of test_battle_rules (the sample relay: the Orks' buggy with Tir en
Mouvement -1) and test_flamer_aboard (the Tactical squad with a flamer aboard a transport on
(4, 3) and (4, 2)).
"""

from __future__ import annotations

from typing import Any

from app.engine.black_reach.battle.offers import moving_fire_targets
from tests.engine.black_reach.battle import test_battle_rules as rules
from tests.engine.black_reach.battle import test_flamer_aboard as aboard
from tests.engine.black_reach.battle import test_heavy_vehicles as heavy


def entry(actions: list[dict[str, Any]], kind: str, unit: str) -> dict[str, Any]:
    return next(
        a for a in actions if a["command"]["type"] == kind and a["command"].get("unit") == unit
    )


def test_the_move_of_a_unit_with_tir_en_mouvement_lists_its_targets() -> None:
    battle = rules._buggy_first()
    actions = battle.actions(rules.B)
    move = entry(actions, "move", rules.BUGGY)
    # every Ultramarines unit on the battlefield: the buggy has a CV against each class
    enemies = sorted(
        u.uid for u in battle.state.on_board() if u.side == "ultramarines" and not u.wreck
    )
    assert move["fire_targets"] == enemies
    assert rules.TRANSPORT in move["fire_targets"]
    # the Boyz have no Tir en Mouvement: their move would offer none
    assert moving_fire_targets(battle.state, battle.state.units[rules.BOYZ1]) == []
    assert "6,8" in move["paths"]
    # offered, it is played as before: from (6, 8), 5 + (2 - 1) = 6 against the transport
    chosen = {
        "type": "move",
        "unit": rules.BUGGY,
        "path": rules.path((6, 10), (6, 9), (6, 8)),
        "fire_at": rules.TRANSPORT,
    }
    new = battle.execute_json(chosen, rules.B, dice=[5])
    assert [e.event.kind for e in new][-2:] == ["unit_shot", "steps_taken"]


def test_a_wreck_or_a_class_it_has_no_cv_against_is_not_offered() -> None:
    battle = rules._buggy_first()
    buggy = battle.state.units[rules.BUGGY]
    battle.execute_json(
        {
            "type": "move",
            "unit": rules.BUGGY,
            "path": rules.path((6, 10), (6, 9), (6, 8)),
            "fire_at": rules.TRANSPORT,
        },
        rules.B,
        dice=[5],
    )
    assert battle.state.units[rules.TRANSPORT].wreck
    assert rules.TRANSPORT not in moving_fire_targets(battle.state, buggy)
    # a unit without Tir en Mouvement, aboard or not: nothing to offer
    flamed = aboard.aboard()
    tactical = flamed.state.units[aboard.TACTICAL]
    assert tactical.embarked_in is not None
    assert moving_fire_targets(flamed.state, tactical) == []


def test_a_heavy_vehicle_with_a_tir_en_mouvement_weapon_is_offered_its_targets() -> None:
    battle = heavy.ordered()
    battle.execute_json({"type": "hold", "unit": heavy.SHOOTAS}, heavy.B)
    move = entry(battle.actions(heavy.A), "move", heavy.TANK)
    # its secondary weapon has Tir en Mouvement and a CV against every class; no Double Tir
    # nor Rafale on the move for a vehicle firing its weapons (rulings 123)
    assert heavy.SHOOTAS in move["fire_targets"]
    assert heavy.NOB in move["fire_targets"]
    assert (move["double_shot"], move["burst"]) == (False, False)
    chosen = {
        "type": "move",
        "unit": heavy.TANK,
        "path": [{"x": 2, "y": 2, "facing": "N"}],
        "fire_at": heavy.SHOOTAS,
    }
    new = battle.execute_json(chosen, heavy.A, dice=[4])
    assert [e.event.kind for e in new][-2:] == ["unit_shot", "steps_taken"]


def test_a_flamer_aboard_a_two_square_transport_is_offered_from_each_square() -> None:
    battle = aboard.aboard()
    flames = [a for a in battle.actions(aboard.A) if a["command"]["type"] == "flame"]
    squares = {(a["command"]["x"], a["command"]["y"]) for a in flames}
    assert squares == {(4, 2), (4, 3)}
    east = next(
        a
        for a in flames
        if (a["command"]["x"], a["command"]["y"], a["command"]["facing"]) == (4, 3, "E")
    )
    assert east["targets"] == [aboard.SHOOTAS]
    # the transport's own squares are never in the flame
    assert all([4, 2] not in a["reached"] and [4, 3] not in a["reached"] for a in flames)
    # one entry per square and direction the rules let it fire, each a command played as is
    keys = [(a["command"]["x"], a["command"]["y"], a["command"]["facing"]) for a in flames]
    assert len(keys) == len(set(keys))
    new = battle.execute_json(east["command"], aboard.A, dice=[4])
    assert any(e.event.kind == "flamer_fired" for e in new)


def test_a_flamer_on_the_board_names_no_square() -> None:
    battle = aboard.aboard()
    battle.execute_json({"type": "hold", "unit": aboard.TACTICAL}, aboard.A)
    flames = [a for a in battle.actions(aboard.B) if a["command"]["type"] == "flame"]
    assert flames
    assert all(a["command"].get("x") is None for a in flames)
