"""A flamer fired during a move (issue 16, rulings 109): the flamer's template brings Tir en
Mouvement (-2) [L1223-L1224], so a unit with Lance-Flammes may fire it once during its
Movement Action (``move`` with ``flame``, the direction, after ``fire_after`` steps), each
attack at the template's CV - 2; checked where it is fired before any die, and carried
through a move that waits for the other side's En Alerte.

The board and units of test_flamer: the Orks' Shootas (flamer "F", five squares ahead) on
(5, 3) facing W, their Boyz on (2, 4); the Ultramarines' Sergeant (2, 2), Tactical (3, 3).
"""

from __future__ import annotations

import copy
from typing import Any

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.black_reach.battle.events import FlamerFired, UnitMoved, UnitShot
from tests.engine.black_reach.battle.test_flamer import (
    BOYZ1,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    order,
    ordered,
    refused,
    setup,
)

A, B = "A", "B"
DOWN = [{"x": 5, "y": 4}]


def move(**kw: Any) -> dict[str, Any]:
    return {"type": "move", "unit": SHOOTAS, "path": DOWN, **kw}


def shots(envelopes: Any) -> list[tuple[str, int, int, str]]:
    return [
        (e.event.target, e.event.modified_cv, e.event.final, e.event.outcome)
        for e in envelopes
        if isinstance(e.event, UnitShot)
    ]


def test_a_flamer_fired_at_the_end_of_a_move_takes_two_off_the_template_cv() -> None:
    battle = ordered()
    new = battle.execute_json(move(flame="W"), B, dice=[6])
    kinds = [e.event.kind for e in new]
    assert kinds[:3] == ["order_revealed", "unit_moved", "flamer_fired"]
    fired = next(e.event for e in new if isinstance(e.event, FlamerFired))
    assert fired.targets == (BOYZ1,)  # west from (5, 4): the Boyz' (2, 4), friend or foe
    # 6 + (CV 3 - 2) = 7 (9 standing)
    assert shots(new) == [(BOYZ1, 1, 7, "step")]
    assert battle.state.units[SHOOTAS].placement.anchor.y == 4  # type: ignore[union-attr]


def test_a_flamer_fired_before_the_move_and_the_rest_of_the_move_after() -> None:
    battle = ordered()
    # from (5, 3): the Sergeant, the Tactical squad and the Boyz, each at CV 3 - 2
    new = battle.execute_json(move(flame="W", fire_after=0), B, dice=[6, 1, 1])
    assert [e.event.kind for e in new][1] == "flamer_fired"
    assert [(t, f) for t, _, f, _ in shots(new)] == [(SERGEANT, 7), (TACTICAL, 2), (BOYZ1, 2)]
    moved = [e.event for e in new if isinstance(e.event, UnitMoved)]
    assert [len(m.path) for m in moved] == [1]


def test_bad_flames_on_a_move_are_refused_before_any_die() -> None:
    battle = ordered()
    both = move(flame="W", fire_at=TACTICAL)
    assert refused(battle, B, both, dice=[6, 6]).code == "fire_or_flame"
    assert refused(battle, B, move(flame="NE"), dice=[6]).code == "bad_facing"
    assert refused(battle, B, move(flame="W", fire_after=3), dice=[6]).code == "bad_fire_after"
    assert battle.state.units[SHOOTAS].placement.anchor.y == 3  # type: ignore[union-attr]
    # a unit without Lance-Flammes
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    shootas = next(c for c in catalogue["counters"] if c["id"] == "sample-ork-shootas")
    shootas["faces"][0]["abilities"] = [
        a for a in shootas["faces"][0]["abilities"] if a["id"] != "flamer"
    ]
    battle = started(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    assert refused(battle, B, move(flame="W"), dice=[6]).code == "no_flamer"


def test_a_flame_on_a_declared_move_waits_for_the_en_alerte_answer() -> None:
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    tactical = next(c for c in catalogue["counters"] if c["id"] == "sample-um-tactical")
    tactical["faces"][0]["abilities"].append({"id": "overwatch"})
    battle = started(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    new = battle.execute_json(move(flame="W"), B)
    assert [e.event.kind for e in new][-1] == "move_declared"
    assert battle.state.pending is not None
    assert battle.state.pending.flame == "W"
    new = battle.execute_json({"type": "pass_overwatch"}, A, dice=[6])
    assert shots(new) == [(BOYZ1, 1, 7, "step")]
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state


def started(made: BattleSetup) -> BlackReachBattle:
    """The tokens of test_flamer's ``ordered``: the Shootas' 1 is due."""
    battle = BlackReachBattle.create(made)
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    mine = [order(TACTICAL, 1), order(SERGEANT, 2)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    return battle
