"""Dice inside a match: rolls recorded with their seed, seeds derived per command, audits.

Every roll the match makes is stored in its event as a :class:`Roll`: the seed of the
:class:`~app.engine.roller.Roller` that drew it (``None`` when the players rolled by hand and
typed the dice in) and each die as the roller recorded it. Replay never rolls again: the
events carry the values. :func:`audit_roll` re-draws a seeded roll and says whether the
recorded dice are the ones that seed gives, so anybody holding the log can check it.

:func:`derive_seed` turns a server-side match secret and a few public parts (for instance the
number of rolls the match has made and the command) into a seed. A caller that seeds every
command this way makes "undo, then roll again" give the same dice, because undo restores the
roll counter.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from app.engine.roller import DieRecord, Roller

__all__ = ["Roll", "audit_roll", "derive_seed", "take_roll"]


@dataclass(frozen=True, slots=True)
class Roll:
    """Some dice drawn by one roller: its seed (``None`` by hand) and the dice."""

    seed: int | None
    dice: tuple[DieRecord, ...]

    @property
    def values(self) -> tuple[int, ...]:
        return tuple(d.value for d in self.dice)

    @property
    def total(self) -> int:
        return sum(d.value for d in self.dice)

    @property
    def by_hand(self) -> bool:
        return self.seed is None


def take_roll(roller: Roller, start: int) -> Roll:
    """The dice ``roller`` recorded from index ``start`` on, as a :class:`Roll`."""
    return Roll(seed=roller.seed, dice=roller.records[start:])


def derive_seed(secret: str | bytes, *parts: str | int) -> int:
    """A 63-bit seed from a secret and public parts (stable across runs and machines)."""
    h = hashlib.sha256(secret.encode() if isinstance(secret, str) else secret)
    for part in parts:
        h.update(b"\x1f")
        h.update(str(part).encode())
    return int.from_bytes(h.digest()[:8], "big") >> 1


def audit_roll(roll: Roll) -> bool | None:
    """``True`` if a seeded roll's dice are what its seed draws, ``False`` if not, ``None`` when
    it cannot be checked (rolled by hand, or a die re-rolled in place)."""
    if roll.seed is None or any(d.original is not None for d in roll.dice):
        return None
    if not roll.dice:
        return True
    last = max(d.index for d in roll.dice)
    check = Roller(roll.seed)
    faces: Sequence[int] = [check.d6("audit") for _ in range(last + 1)]
    for d in roll.dice:
        face = d.face if d.face is not None else d.value
        if faces[d.index] != face:
            return False
        if d.value != ((face + 1) // 2 if d.sides == 3 else face):
            return False
    return True
