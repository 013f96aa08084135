"""En Alerte against an assault's move (issue 16, rulings 122) [L1202-L1212], [L1501-L1506]:
an assault along a path that an enemy unit with En Alerte could shoot waits for that side's
answer; the assault is resolved after the move, unless the shot destroyed the attacker.

The board of ``test_transport_assaults``: the tactical squad on (1, 3) assaults the shootas
on (4, 3) by (2, 2) and (3, 2); the nob, on (6, 1), has En Alerte.
"""

from __future__ import annotations

from typing import Any

from app.engine.black_reach.battle import BlackReachBattle
from tests.engine.black_reach.battle.test_transport_assaults import (
    NOB,
    SHOOTAS,
    TACTICAL,
    TRANSPORT,
    order,
    setup,
)

A, B = "A", "B"
ASSAULT: dict[str, Any] = {
    "type": "assault",
    "unit": TACTICAL,
    "target": SHOOTAS,
    "path": [{"x": 2, "y": 2}, {"x": 3, "y": 2}],
}


def watched() -> BlackReachBattle:
    battle = BlackReachBattle.create(setup({NOB: (6, 1, "W")}, overwatch="sample-ork-nob"))
    mine = [order(TACTICAL, 1), order(TRANSPORT, 2)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    return battle


def test_an_assaults_move_waits_for_en_alerte_then_the_assault_is_made() -> None:
    battle = watched()
    new = battle.execute_json(ASSAULT, A, dice=[])  # no die yet: the move waits
    assert [e.event.kind for e in new] == ["order_revealed", "move_declared"]
    assert battle.state.pending is not None
    assert battle.state.pending.assault == SHOOTAS
    assert battle.render(B)["declared_move"]["assault"] == SHOOTAS
    answers = [a for a in battle.actions(B) if a["command"]["type"] == "overwatch"]
    assert {a["command"]["unit"] for a in answers} == {NOB}
    # the nob fires after the first square: 1 + 3 = 4 against DV 5, a miss; then the assault:
    # the squad's best of 6 and 1 + CV 2 + Assaut 1 = 9 against 1 + 2 = 3
    new = battle.execute_json(
        {"type": "overwatch", "unit": NOB, "after": 1}, B, dice=[1, 6, 1, 1, 1]
    )
    kinds = [e.event.kind for e in new]
    assert kinds.index("unit_shot") < kinds.index("assault_resolved")
    resolved = next(e.event for e in new if e.event.kind == "assault_resolved")
    assert (resolved.start.x, resolved.start.y, resolved.outcome) == (3, 2, "attacker_wins")
    assert battle.state.pending is None
    assert NOB in battle.state.activated


def test_no_en_alerte_and_the_assault_is_made_at_once() -> None:
    battle = watched()
    battle.execute_json(ASSAULT, A, dice=[])
    new = battle.execute_json({"type": "pass_overwatch"}, B, dice=[6, 1, 1, 1])
    kinds = [e.event.kind for e in new]
    assert kinds[:3] == ["overwatch_answered", "unit_moved", "assault_resolved"]


def test_an_attacker_that_loses_its_assaut_to_en_alerte_makes_no_assault() -> None:
    battle = watched()
    battle.execute_json(ASSAULT, A, dice=[])
    # 6 + 3 = 9 against DV 5: one step; the squad's reduced face has no Assaut, so the
    # assault is dropped and no die is rolled for it [L1517-L1525]
    new = battle.execute_json({"type": "overwatch", "unit": NOB, "after": 1}, B, dice=[6])
    kinds = [e.event.kind for e in new]
    assert "assault_resolved" not in kinds
    assert str(battle.state.units[TACTICAL].status.face) == "reduced"
    p = battle.state.units[TACTICAL].placement
    assert p is not None
    assert (p.anchor.x, p.anchor.y) == (3, 2)  # it made its move
