"""Dice procedures shared by the exact analysis and the live resolution.

Every PEN step that rolls dice (a to-hit roll with its re-roll, a penetration roll, a vehicle
damage roll...) is written ONCE, as a function that takes a :class:`Dice` source and returns an
outcome. The live resolution runs it with the seeded recording
:class:`~app.engine.roller.Roller`; the exact analysis runs the very same function under
:func:`enumerate_outcomes`, which replays it over every possible sequence of die faces and
weighs each outcome by its exact probability. The two paths therefore cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, TypeVar

from app.engine.pen.codes import RollCode

__all__ = ["CodeRoll", "Dice", "enumerate_outcomes", "roll_code"]

T = TypeVar("T", bound=Hashable)


class Dice(Protocol):
    """What a procedure may do with dice: the subset of the core Roller's interface it uses."""

    def roll(self, sides: int, label: str) -> int: ...

    def reroll(self, index: int | None = None) -> int: ...

    def annotate(
        self, index: int | None = None, *, modifier: int | None = None, outcome: str | None = None
    ) -> object: ...


class _ScriptedDice:
    """Replays a prefix of die faces, then answers 1 for every new die (odometer enumeration)."""

    __slots__ = ("faces", "position", "sides")

    def __init__(self, faces: list[int], sides: list[int]) -> None:
        self.faces = faces
        self.sides = sides
        self.position = 0

    def roll(self, sides: int, label: str) -> int:
        i = self.position
        if i < len(self.faces):
            if self.sides[i] != sides:  # pragma: no cover - a procedure must be deterministic
                raise RuntimeError(f"non-deterministic procedure at die {i} ({label})")
        else:
            self.faces.append(1)
            self.sides.append(sides)
        self.position += 1
        return self.faces[i]

    def reroll(self, index: int | None = None) -> int:
        if index is not None:  # pragma: no cover - procedures only re-roll the last die
            raise RuntimeError("procedures re-roll the last die only")
        return self.roll(self.sides[self.position - 1], "re-roll")

    def annotate(
        self, index: int | None = None, *, modifier: int | None = None, outcome: str | None = None
    ) -> None:
        return None


def enumerate_outcomes(
    procedure: Callable[[Dice], T], max_paths: int = 200_000
) -> dict[T, Fraction]:
    """Exact distribution of ``procedure``'s outcome over every sequence of die faces.

    The procedure must be deterministic given its dice. Each complete path of n dice with
    ``s_1..s_n`` sides has probability 1/(s_1 x ... x s_n); paths are counted per
    (outcome, denominator) in integers and turned into fractions once at the end.
    """
    faces: list[int] = []
    sides: list[int] = []
    counts: dict[tuple[T, int], int] = {}
    paths = 0
    while True:
        dice = _ScriptedDice(faces, sides)
        outcome = procedure(dice)
        used = dice.position
        del faces[used:]
        del sides[used:]
        den = 1
        for s in sides:
            den *= s
        key = (outcome, den)
        counts[key] = counts.get(key, 0) + 1
        paths += 1
        if paths > max_paths:  # pragma: no cover - guards the bounded inputs
            raise RuntimeError("too many dice paths to enumerate")
        # advance the odometer: bump the last die that can still go up, drop those after it
        j = used - 1
        while j >= 0 and faces[j] == sides[j]:
            j -= 1
        if j < 0:
            break
        faces[j] += 1
        del faces[j + 1 :]
        del sides[j + 1 :]
    out: dict[T, Fraction] = {}
    for (outcome, den), count in counts.items():
        out[outcome] = out.get(outcome, Fraction(0)) + Fraction(count, den)
    return out


@dataclass(frozen=True, slots=True)
class CodeRoll:
    """Result of one roll of a table code: success, and the final face of the first die."""

    success: bool
    natural: int


def roll_code(
    dice: Dice,
    code: RollCode,
    label: str,
    *,
    reroll_failed: bool = False,
    reroll_ones: bool = False,
    first_hook: Callable[[int], bool | None] | None = None,
    words: tuple[str, str] = ("success", "fail"),
) -> CodeRoll:
    """Roll a table code: D6 >= target, its own re-roll ("2+ re"), then the confirm roll ("6/4+").

    ``reroll_failed`` (Blessant [L649], Anti-endurance [L630]) re-rolls a failed die once;
    ``reroll_ones`` (Ennemi juré [L400]) re-rolls a 1 once. A die is re-rolled at most once
    (RULINGS "pen": "2+ re" re-rolls a failure once; pen rulings: one re-roll per die).
    ``first_hook`` sees the final face of the first die and may decide the roll outright
    (True / False) before any confirm roll, e.g. Perforant's 6 wounds automatically [L683].
    """
    face = dice.roll(6, label)
    success = face >= code.target
    if not success:
        if code.reroll is not None:
            face = dice.reroll()
            success = face >= code.reroll
        elif reroll_failed or (reroll_ones and face == 1):
            face = dice.reroll()
            success = face >= code.target
    if first_hook is not None:
        decided = first_hook(face)
        if decided is not None:
            dice.annotate(outcome=words[0] if decided else words[1])
            return CodeRoll(decided, face)
    dice.annotate(
        outcome=(words[0] if code.then is None else "first roll ok") if success else words[1]
    )
    if success and code.then is not None:
        second = dice.roll(6, label + " (second roll)")
        ok = second >= code.then
        if not ok and (reroll_failed or (reroll_ones and second == 1)):
            second = dice.reroll()
            ok = second >= code.then
        dice.annotate(outcome=words[0] if ok else words[1])
        success = ok
    return CodeRoll(success, face)
