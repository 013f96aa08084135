"""Rolls with their seed: audits and derived seeds."""

from __future__ import annotations

import dataclasses

from app.engine.match.dice import audit_roll, derive_seed, take_roll
from app.engine.roller import Roller


def test_a_seeded_roll_audits_and_a_tampered_one_does_not() -> None:
    r = Roller(1234)
    r.d6("first")
    start = len(r.records)
    r.roll(3, "a D3")
    r.d6("a D6")
    roll = take_roll(r, start)
    assert audit_roll(roll) is True  # the dice are those of seed 1234 at indexes 1 and 2
    forged = dataclasses.replace(roll, dice=(dataclasses.replace(roll.dice[0], value=4),))
    assert audit_roll(forged) is False
    hand = Roller.from_values([6, 6])
    hand.d6("x")
    assert audit_roll(take_roll(hand, 0)) is None


def test_a_rerolled_die_cannot_be_audited() -> None:
    r = Roller(7)
    r.d6("x")
    r.reroll()
    assert audit_roll(take_roll(r, 0)) is None


def test_derived_seeds_are_stable_and_distinct() -> None:
    a = derive_seed("secret", 3, "move")
    assert a == derive_seed(b"secret", 3, "move")
    assert a != derive_seed("secret", 4, "move")
    assert a != derive_seed("other", 3, "move")
    assert 0 <= a < 2**63
