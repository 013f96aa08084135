"""PEN roll codes: the cells of the to-hit, to-wound and save tables.

A cell of the PEN tables is one of ([L1299-L1309], [L1344-L1355], [L1376-L1390], [L1412]):

* ``"N+"``      roll one D6, succeed on N or more ("6" is written without the plus);
* ``"2+ re"``   succeed on 2+, a failed roll is re-rolled once ([L1326], [L1390], RULINGS "pen");
* ``"6/4+"``    roll a 6, then a second roll of 4+ ([L1390], RULINGS "pen");
* ``"2+ re 4+"`` the best possible save: 2+, a failure is re-rolled and the re-roll succeeds
  on 4+ ([L1412], note §8 item 9).

A natural 1 always fails a to-hit, to-wound or save roll ([L1288]); every code here has a
target of 2 or more, so the rule holds by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

__all__ = ["RollCode", "p_at_least"]

_CODE_RE = re.compile(
    r"^\s*(?P<target>[2-6])\+?(?:\s*/\s*(?P<then>[2-6])\+?)?"
    r"(?:\s+re(?:\s+(?P<reroll>[2-6])\+?)?)?\s*$",
    re.IGNORECASE,
)


def p_at_least(target: int) -> Fraction:
    """P(D6 >= target) for a target of 2..6 (a natural 1 always fails, [L1288])."""
    if not 2 <= target <= 6:
        raise ValueError(f"a D6 target must be 2..6, got {target}")
    return Fraction(7 - target, 6)


@dataclass(frozen=True, slots=True, order=True)
class RollCode:
    """One table cell: ``target`` on a D6, optional re-roll of a failure, optional confirm roll.

    ``reroll``: a failed first roll is re-rolled once and the re-roll succeeds on ``reroll``+
    (``reroll == target`` for "2+ re"; 4 for the "2+ re 4+" save cap).
    ``then``: a success must be confirmed by a second D6 of ``then``+ ("6/4+").
    """

    target: int
    reroll: int | None = None
    then: int | None = None

    def __post_init__(self) -> None:
        for name, value in (("target", self.target), ("reroll", self.reroll), ("then", self.then)):
            if value is not None and not 2 <= value <= 6:
                raise ValueError(f"roll code {name} must be 2..6, got {value}")

    @classmethod
    def parse(cls, text: str) -> RollCode:
        """Parse a table cell as printed in the seed: "6", "4+", "2+ re", "6/4+", "2+ re 4+"."""
        match = _CODE_RE.match(text)
        if match is None:
            raise ValueError(f"not a PEN roll code: {text!r}")
        target = int(match["target"])
        then = int(match["then"]) if match["then"] else None
        reroll: int | None = None
        if re.search(r"\bre\b", text, re.IGNORECASE):
            reroll = int(match["reroll"]) if match["reroll"] else target
        return cls(target, reroll, then)

    def probability(self) -> Fraction:
        """Exact probability of success, e.g. "2+ re" = 35/36, "6/4+" = 1/12 (note §5.1)."""
        first = p_at_least(self.target)
        if self.reroll is not None:
            first += (1 - first) * p_at_least(self.reroll)
        if self.then is not None:
            first *= p_at_least(self.then)
        return first

    def with_reroll(self) -> RollCode:
        """The same code with a failed roll re-rolled once at the same target (Blessant...)."""
        if self.reroll is not None:
            return self
        return RollCode(self.target, self.target, self.then)

    def __str__(self) -> str:
        text = "6" if self.target == 6 and self.then is None else f"{self.target}+"
        if self.then is not None:
            text = f"{self.target}/{self.then}+"
        if self.reroll is not None:
            text += " re" if self.reroll == self.target else f" re {self.reroll}+"
        return text
