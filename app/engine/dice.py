"""Dice expressions: ``2``, ``D3``, ``D6``, ``2D6``, ``D6+1``, ``D3+3``, ``2D3``...

Grammar (case-insensitive, spaces ignored): ``N`` | ``[K]D<S>[+N]`` with bounds that keep every
request cheap: at most :data:`MAX_DICE` dice, ``S`` in :data:`ALLOWED_SIDES` (3 or 6), constant
0..:data:`MAX_CONSTANT`. ``D3`` is ``ceil(D6/2)`` (RULINGS 2), which is uniform over 1..3.
Anything else raises :class:`~app.engine.errors.DiceExpressionError`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from app.engine.distributions import Dist
from app.engine.errors import N_, DiceExpressionError
from app.engine.roller import Roller

__all__ = ["ALLOWED_SIDES", "MAX_CONSTANT", "MAX_DICE", "DiceExpr"]

MAX_DICE = 10
ALLOWED_SIDES = (3, 6)
MAX_CONSTANT = 100
MAX_TEXT = 20

_DICE = re.compile(r"^(?P<count>\d+)?D(?P<sides>\d+)(?:\+(?P<const>\d+))?$")
_CONST = re.compile(r"^\d+$")


@cache
def _dice_dist(count: int, sides: int, constant: int) -> Dist:
    return Dist.die(sides).repeat(count) + constant if count else Dist.constant(constant)


@dataclass(frozen=True, slots=True)
class DiceExpr:
    """``count`` dice of ``sides`` sides plus ``constant`` (``count`` 0 means a plain number)."""

    count: int
    sides: int
    constant: int

    @classmethod
    def parse(cls, text: str | int) -> DiceExpr:
        if isinstance(text, bool):
            raise DiceExpressionError(str(text), N_("expected a number or dice like D6+1"))
        if isinstance(text, int):
            text = str(text)
        if not isinstance(text, str):
            raise DiceExpressionError(
                repr(text), N_("expected a string such as '2', 'D6' or 'D3+1'")
            )
        raw = text
        if len(raw) > MAX_TEXT:
            raise DiceExpressionError(raw[:MAX_TEXT] + "...", N_("too long"))
        s = "".join(raw.split()).upper()
        if not s:
            raise DiceExpressionError(raw, N_("empty"))
        if _CONST.match(s):
            value = int(s)
            if value > MAX_CONSTANT:
                raise DiceExpressionError(
                    raw, N_("a constant must be at most %(most)s"), most=MAX_CONSTANT
                )
            return cls(0, 0, value)
        m = _DICE.match(s)
        if m is None:
            raise DiceExpressionError(
                raw, N_("expected a number or [count]D(3|6)[+number], e.g. 2, D6, 2D6, D3+3")
            )
        count = int(m["count"]) if m["count"] else 1
        sides = int(m["sides"])
        const = int(m["const"]) if m["const"] else 0
        if sides not in ALLOWED_SIDES:
            raise DiceExpressionError(
                raw, N_("only D3 and D6 are allowed, not D%(sides)s"), sides=sides
            )
        if not 1 <= count <= MAX_DICE:
            raise DiceExpressionError(
                raw, N_("the number of dice must be 1..%(most)s"), most=MAX_DICE
            )
        if const > MAX_CONSTANT:
            raise DiceExpressionError(
                raw, N_("the added constant must be at most %(most)s"), most=MAX_CONSTANT
            )
        return cls(count, sides, const)

    @classmethod
    def constant_of(cls, value: int) -> DiceExpr:
        if not 0 <= value <= MAX_CONSTANT:
            raise DiceExpressionError(
                str(value), N_("a constant must be 0..%(most)s"), most=MAX_CONSTANT
            )
        return cls(0, 0, value)

    @property
    def is_constant(self) -> bool:
        return self.count == 0

    @property
    def min(self) -> int:
        return self.count + self.constant

    @property
    def max(self) -> int:
        return self.count * self.sides + self.constant

    def dist(self) -> Dist:
        return _dice_dist(self.count, self.sides, self.constant)

    def mean(self) -> float:
        return float(self.dist().mean())

    def roll(self, roller: Roller, label: str, *, stage: str = "") -> int:
        """Roll the expression (each die recorded under ``label``); a constant rolls nothing."""
        total = self.constant
        for _ in range(self.count):
            total += roller.roll(self.sides, label, stage=stage)
        return total

    def __str__(self) -> str:
        if self.count == 0:
            return str(self.constant)
        head = f"{self.count if self.count > 1 else ''}D{self.sides}"
        return f"{head}+{self.constant}" if self.constant else head
