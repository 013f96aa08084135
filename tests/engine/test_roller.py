"""The seeded recording roller and hand-given dice."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.errors import DiceExhausted, RollerError
from app.engine.roller import Roller


@given(st.integers(0, 2**32))
def test_same_seed_same_dice(seed: int) -> None:
    a, b = Roller(seed), Roller(seed)
    assert [a.d6("x") for _ in range(20)] == [b.d6("x") for _ in range(20)]
    assert a.records == b.records


def test_records_every_die_with_label_and_stage() -> None:
    r = Roller(1)
    v = r.d6("hit roll", stage="hit")
    rec = r.last
    assert (rec.index, rec.label, rec.sides, rec.value, rec.stage) == (0, "hit roll", 6, v, "hit")
    assert not rec.rerolled


def test_d3_records_its_d6_face() -> None:
    r = Roller(7)
    for _ in range(30):
        value = r.d3("damage")
        assert r.last.face is not None
        assert value == (r.last.face + 1) // 2


def test_reroll_once_and_annotate() -> None:
    r = Roller.from_values([1, 5])
    assert r.d6("wound") == 1
    assert r.reroll() == 5
    rec = r.annotate(modifier=1, outcome="wound")
    assert (rec.original, rec.value, rec.modified, rec.outcome) == (1, 5, 6, "wound")
    assert rec.rerolled
    with pytest.raises(RollerError, match="already re-rolled"):
        r.reroll(0)


def test_hand_given_dice_run_out_clearly() -> None:
    r = Roller.from_values([3])
    assert r.seed is None
    assert r.remaining_given == 1
    r.d6("hit")
    with pytest.raises(DiceExhausted, match="all 1 given dice are used up"):
        r.d6("wound")


def test_hand_given_die_out_of_range() -> None:
    r = Roller.from_values([4])
    with pytest.raises(RollerError, match="needs a D3"):
        r.d3("damage")


def test_only_d3_and_d6() -> None:
    with pytest.raises(RollerError):
        Roller(1).roll(8, "x")


def test_as_dict() -> None:
    r = Roller.from_values([2])
    r.d6("save", stage="save")
    r.annotate(modifier=-1, outcome="failed")
    assert r.last.as_dict() == {
        "index": 0,
        "label": "save",
        "sides": 6,
        "value": 2,
        "original": None,
        "rerolled": False,
        "face": 2,
        "modifier": -1,
        "modified": 1,
        "outcome": "failed",
        "stage": "save",
    }
