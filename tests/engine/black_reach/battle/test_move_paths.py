"""The paths a move's legal action proposes (``paths``: a cheapest path to each square of
``to``): every one is a legal move that ends on its square, for a one-square unit and for a
two-square vehicle (its facing in each step), so that a page can send the square tapped."""

from __future__ import annotations

from typing import Any

import pytest

from app.engine.black_reach.battle import BlackReachBattle
from tests.engine.black_reach.battle.test_battle_rules import BOYZ1, BUGGY, B, _buggy_first, ordered


def _move_entries(battle: BlackReachBattle, seat: str) -> list[dict[str, Any]]:
    return [a for a in battle.legal_actions(seat) if a["command"]["type"] == "move"]


@pytest.mark.parametrize(("make", "unit"), [(ordered, BOYZ1), (_buggy_first, BUGGY)])
def test_every_square_a_move_may_end_on_has_a_legal_path(make: Any, unit: str) -> None:
    battle = make()
    (entry,) = [a for a in _move_entries(battle, B) if a["command"]["unit"] == unit]
    assert entry["to"], "the unit can move somewhere"
    assert sorted(entry["paths"]) == sorted(f"{x},{y}" for x, y in entry["to"])
    for key, steps in entry["paths"].items():
        x, y = (int(v) for v in key.split(","))
        assert steps[-1][:2] == [x, y]
        trial = battle.fork()
        path = [{"x": sx, "y": sy, "facing": f} for sx, sy, f in steps]
        trial.execute_json({"type": "move", "unit": unit, "path": path}, B)
        moved = next(u for u in trial.view(B)["units"] if u["id"] == unit)
        assert (moved["at"]["x"], moved["at"]["y"]) == (x, y)


def test_a_path_is_never_longer_than_the_units_movement() -> None:
    battle = ordered()
    (entry,) = [a for a in _move_entries(battle, B) if a["command"]["unit"] == BOYZ1]
    mv = next(u for u in battle.view(B)["units"] if u["id"] == BOYZ1)["mv"]
    assert max(len(steps) for steps in entry["paths"].values()) <= mv
