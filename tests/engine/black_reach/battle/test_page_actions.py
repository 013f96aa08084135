"""What the legal actions give a page to play from: a move's ``paths`` (a cheapest path to
each square of ``to``), every one a legal move ending on its square, for a one-square unit and
for a two-square vehicle (its facing in each step), so that a page can send the square tapped;
and an assault's exact odds, shown before it is sent."""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import Any

import pytest

from app.engine.black_reach.battle import BlackReachBattle
from app.engine.black_reach.pipeline import assault_outcome
from tests.engine.black_reach.battle.test_battle_rules import (
    BOYZ1,
    BUGGY,
    TACTICAL,
    A,
    B,
    _buggy_first,
    _close_quarters,
    ordered,
)


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


def test_an_assault_shows_its_exact_odds_without_supporters() -> None:
    battle = _close_quarters()
    (entry,) = [
        a
        for a in battle.legal_actions(A)
        if a["command"]
        == {"type": "assault", "unit": TACTICAL, "target": BOYZ1, "path": [], "supporters": []}
    ]
    # by hand (test_a_supporter_adds_one_and_is_activated): the tactical squad rolls two dice,
    # keeps the best, + CV 2 + Assaut 1; the Boyz in the open two dice + CV 2 + Assaut 2
    counts: dict[str, int] = {}
    for a1, a2, d1, d2 in product(range(1, 7), repeat=4):
        outcome = str(assault_outcome(max(a1, a2) + 3, max(d1, d2) + 4))
        counts[outcome] = counts.get(outcome, 0) + 1
    expected = {k: str(Fraction(v, 6**4)) for k, v in counts.items()}
    assert {k: v for k, v in entry["odds"].items() if Fraction(v)} == expected
    assert sum(Fraction(v) for v in entry["odds"].values()) == 1


def test_every_assault_start_offered_is_accepted() -> None:
    battle = _close_quarters()
    assaults = [a for a in battle.legal_actions(A) if a["command"]["type"] == "assault"]
    assert assaults
    mine = next(a for a in assaults if a["command"]["unit"] == TACTICAL)
    assert mine["from"][0] == {"square": None, "path": []}  # it already touches the Boyz
    for entry in assaults:
        for start in entry["from"]:
            trial = battle.fork()
            path = [{"x": x, "y": y, "facing": f} for x, y, f in start["path"]]
            command = dict(entry["command"], path=path)
            events = trial.execute_json(command, A, dice=[6, 6, 1, 1])
            assert any(e.event.kind == "assault_resolved" for e in events)
