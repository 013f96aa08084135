"""The seeded, recording dice roller: the only source of randomness in the engine.

``Roller(seed)`` draws dice from its own ``random.Random(seed)`` (same seed, same dice);
``Roller.from_values([...])`` replays dice rolled by hand and fails clearly when they run out.
Every die is recorded as a :class:`DieRecord`: its label (what it was for), sides, the value
used, the value before a re-roll, the modifier applied and the outcome. Rule code rolls a die,
may re-roll it once (:meth:`Roller.reroll`), then :meth:`Roller.annotate` s it with the modifier
and outcome so that the record explains the result.

A D3 is ``ceil(D6 / 2)`` (RULINGS 2): a seeded roller rolls a D6 for it and records the D6 face
as ``face``; a hand-given D3 value is taken as the D3 result itself (1..3).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable
from dataclasses import dataclass

from app.engine.errors import DiceExhausted, RollerError

__all__ = ["DieRecord", "Roller"]

_SIDES = (3, 6)


@dataclass(frozen=True, slots=True)
class DieRecord:
    """One die rolled, as the audit log shows it.

    ``value`` is the final unmodified value used by the rules (after any re-roll);
    ``original`` is the first value when the die was re-rolled (else ``None``); ``face`` is the
    physical D6 face when a D3 was rolled as ceil(D6/2) (else equal to the value);
    ``modifier`` the net modifier the rules applied; ``outcome`` a short word such as
    ``"hit"``, ``"critical hit"``, ``"miss"``, ``"saved"``.
    """

    index: int
    label: str
    sides: int
    value: int
    original: int | None = None
    face: int | None = None
    modifier: int = 0
    outcome: str = ""
    stage: str = ""

    @property
    def rerolled(self) -> bool:
        return self.original is not None

    @property
    def modified(self) -> int:
        """The value after the modifier."""
        return self.value + self.modifier

    def as_dict(self) -> dict[str, int | str | bool | None]:
        return {
            "index": self.index,
            "label": self.label,
            "sides": self.sides,
            "value": self.value,
            "original": self.original,
            "rerolled": self.rerolled,
            "face": self.face,
            "modifier": self.modifier,
            "modified": self.modified,
            "outcome": self.outcome,
            "stage": self.stage,
        }


class Roller:
    """A seeded (or hand-fed) dice roller that records every die."""

    def __init__(self, seed: int) -> None:
        self.seed: int | None = int(seed)
        self._rng: random.Random | None = random.Random(self.seed)
        self._given: tuple[int, ...] = ()
        self._next_given = 0
        self._records: list[DieRecord] = []

    @classmethod
    def from_values(cls, values: Iterable[int]) -> Roller:
        """A roller that returns exactly these dice, in order (dice rolled by hand)."""
        r = cls.__new__(cls)
        r.seed = None
        r._rng = None
        r._given = tuple(int(v) for v in values)
        r._next_given = 0
        r._records = []
        return r

    # -- reading ----------------------------------------------------------------------------

    @property
    def records(self) -> tuple[DieRecord, ...]:
        return tuple(self._records)

    @property
    def last(self) -> DieRecord:
        if not self._records:
            raise RollerError("no die has been rolled yet")
        return self._records[-1]

    @property
    def remaining_given(self) -> int:
        """How many hand-given dice are still unused (0 for a seeded roller)."""
        return len(self._given) - self._next_given

    # -- rolling ----------------------------------------------------------------------------

    def _draw(self, sides: int, label: str) -> tuple[int, int]:
        """(value, face) of one fresh die."""
        if sides not in _SIDES:
            raise RollerError(f"only D3 and D6 can be rolled, not D{sides}")
        if self._rng is not None:
            face = self._rng.randint(1, 6)
            return ((face + 1) // 2 if sides == 3 else face), face
        if self._next_given >= len(self._given):
            raise DiceExhausted(
                f"no die left for {label!r} (D{sides}): all {len(self._given)} given dice are "
                "used up"
            )
        value = self._given[self._next_given]
        if not 1 <= value <= sides:
            raise RollerError(
                f"given die #{self._next_given + 1} is {value}, but {label!r} needs a D{sides} "
                f"(1..{sides})"
            )
        self._next_given += 1
        return value, value

    def roll(self, sides: int, label: str, *, stage: str = "") -> int:
        """Roll one D``sides`` (3 or 6) for ``label`` and record it (``stage`` is an optional
        machine-readable step name such as ``"hit"``)."""
        value, face = self._draw(sides, label)
        self._records.append(
            DieRecord(
                index=len(self._records),
                label=label,
                sides=sides,
                value=value,
                face=face,
                stage=stage,
            )
        )
        return value

    def d6(self, label: str, *, stage: str = "") -> int:
        return self.roll(6, label, stage=stage)

    def d3(self, label: str, *, stage: str = "") -> int:
        return self.roll(3, label, stage=stage)

    def roll_many(self, count: int, sides: int, label: str, *, stage: str = "") -> list[int]:
        """Roll ``count`` dice, each recorded on its own."""
        return [self.roll(sides, label, stage=stage) for _ in range(count)]

    def reroll(self, index: int | None = None) -> int:
        """Re-roll a recorded die (the last one by default); a die is re-rolled at most once."""
        i = len(self._records) - 1 if index is None else index
        if not 0 <= i < len(self._records):
            raise RollerError(f"no recorded die #{i} to re-roll")
        rec = self._records[i]
        if rec.rerolled:
            raise RollerError(f"die #{i} ({rec.label}) was already re-rolled once")
        value, face = self._draw(rec.sides, rec.label + " (re-roll)")
        self._records[i] = dataclasses.replace(rec, original=rec.value, value=value, face=face)
        return value

    def annotate(
        self, index: int | None = None, *, modifier: int | None = None, outcome: str | None = None
    ) -> DieRecord:
        """Set the modifier and/or outcome of a recorded die (the last one by default)."""
        i = len(self._records) - 1 if index is None else index
        if not 0 <= i < len(self._records):
            raise RollerError(f"no recorded die #{i} to annotate")
        rec = self._records[i]
        rec = dataclasses.replace(
            rec,
            modifier=rec.modifier if modifier is None else modifier,
            outcome=rec.outcome if outcome is None else outcome,
        )
        self._records[i] = rec
        return rec
