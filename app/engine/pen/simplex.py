"""The squad states of one squad as a fixed, indexed simplex (issue 18).

A state of ``models`` models of ``wounds`` W is a composition: ``n[0]`` models removed,
``n[w]`` with ``w`` W left, summing to ``models``; there are ``C(models + wounds, wounds)``
of them. The wound layers (:func:`app.engine.pen.allocation._rows_by_wound_layers`) apply
"one more wound on every model" to a table of packed rows over these states, one level at
a time: each level is a shear along the *lines* of two adjacent levels (the states whose
other digits are equal), which maps every line onto itself.

Indexing the simplex once per squad size lets each shear read and write its line in place
(a list of GMP ``xmpz`` integers, each owned by one slot of the table): no state is keyed,
split into digits or re-inserted into a new dictionary at every level of every layer, and
no weight is copied into a new integer (the dictionary path copied every row twice per
level). The second allocation's rounds (:func:`app.engine.pen.allocation.
_second_by_rounds_on_simplex`) hit each level of the same lines in place. The integers are
those of the dictionary path, operation for operation; the dictionary path stays for squads
past ``MAX_SIMPLEX`` states (few hits on many models of many W reach only a few of them).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from gmpy2 import mpz, xmpz

__all__ = [
    "MAX_SIMPLEX",
    "Simplex",
    "as_states",
    "cut",
    "lines_within",
    "one_more_wound",
    "shear",
    "shift_in_place",
    "simplex",
    "simplex_size",
    "spread",
]

# States of the largest indexed simplex: 30 x W3 has 5,456, 20 x W4 10,626; a larger squad
# (or one that few wounds reach) keeps the dictionary path, which only visits the states
# the wounds reach.
MAX_SIMPLEX = 12_000


@dataclass(frozen=True, slots=True)
class Simplex:
    """Every composition of ``models`` into ``wounds + 1`` levels, indexed.

    ``digits[i]``: the composition of index ``i`` (``digits[i][0]`` models removed);
    ``index``: the inverse; ``lines[level - 1]``: the lines of levels ``level - 1`` and
    ``level``, each the indices of its states by the count at ``level`` (0, 1, ...);
    ``floors[level - 1]``: the fewest living models of a state of each of those lines (the
    lines are in that order); ``place[level - 1][i]``: the line of state ``i`` at that level
    and its position there.
    """

    models: int
    wounds: int
    digits: tuple[tuple[int, ...], ...]
    index: dict[tuple[int, ...], int]
    lines: tuple[tuple[tuple[int, ...], ...], ...]
    floors: tuple[tuple[int, ...], ...]
    place: tuple[tuple[tuple[tuple[int, ...], int], ...], ...]


def _compositions(models: int, parts: int) -> list[tuple[int, ...]]:
    if parts == 1:
        return [(models,)]
    return [
        (first, *rest)
        for first in range(models + 1)
        for rest in _compositions(models - first, parts - 1)
    ]


def simplex_size(models: int, wounds: int) -> int:
    """States of the simplex of ``models`` x ``wounds`` W: ``C(models + wounds, wounds)``."""
    return math.comb(models + wounds, wounds)


@lru_cache(maxsize=32)
def simplex(models: int, wounds: int) -> Simplex:
    """The indexed simplex of ``models`` x ``wounds`` W (cached per squad size)."""
    digits = tuple(_compositions(models, wounds + 1))
    index = {d: i for i, d in enumerate(digits)}
    lines: list[tuple[tuple[int, ...], ...]] = []
    floors: list[tuple[int, ...]] = []
    for level in range(1, wounds + 1):
        by_line: dict[tuple[int, ...], list[int]] = {}
        for i, d in enumerate(digits):
            fixed = (*d[: level - 1], *d[level + 1 :])
            line = by_line.get(fixed)
            if line is None:
                line = by_line[fixed] = [0] * (d[level - 1] + d[level] + 1)
            line[d[level]] = i
        # by the fewest living models on the line (its lowest place), so that a table whose
        # states have at most so many living models reads a prefix of the lines
        ordered = sorted(by_line.values(), key=lambda line: models - digits[line[0]][0])
        lines.append(tuple(tuple(line) for line in ordered))
        floors.append(tuple(models - digits[line[0]][0] for line in ordered))
    place: list[tuple[tuple[tuple[int, ...], int], ...]] = []
    for level_lines in lines:
        where: list[tuple[tuple[int, ...], int]] = [((), 0)] * len(digits)
        for indices in level_lines:
            for position, i in enumerate(indices):
                where[i] = (indices, position)
        place.append(tuple(where))
    return Simplex(models, wounds, digits, index, tuple(lines), tuple(floors), tuple(place))


def lines_within(space: Simplex, level: int, alive: int) -> Sequence[tuple[int, ...]]:
    """The lines of ``level`` that hold a state of at most ``alive`` living models."""
    return space.lines[level - 1][: bisect_right(space.floors[level - 1], alive)]


def shear(
    vals: list[xmpz | int],
    line: Sequence[int],
    lower: int,
    w0: int,
    w1: int,
    powers: tuple[list[int], list[int], list[int]],
) -> None:
    """:func:`app.engine.pen.allocation._shear_line` on the line ``line`` of ``vals``, in
    place: the same integers (scaled, a Taylor shift by additions, then ``w1^j`` divided
    out and ``w0^j`` multiplied in), each slot's ``xmpz`` changed where it is."""
    size = len(line) - 1
    top = size
    while top >= 0 and not vals[line[top]]:
        top -= 1
    if top < 0:
        return
    lo_pow, w0_pow, _ = powers
    d: list[xmpz] = []
    for a in range(top + 1):
        x = vals[line[a]]
        if type(x) is not xmpz:
            x = vals[line[a]] = xmpz(x)
        d.append(x)
    if w1 == 0:  # nothing drops: each state keeps its place, scaled
        for j in range(top + 1):
            factor = lo_pow[size - j] * w0_pow[j]
            if factor != 1 and d[j]:
                d[j] *= factor
        return
    shift_in_place(d, size, w0, w1, powers)


def shift_in_place(
    d: list[xmpz], size: int, w0: int, w1: int, powers: tuple[list[int], list[int], list[int]]
) -> None:
    """The shear of a line of ``size + 1`` places whose weights ``d`` (its non-zero head,
    ``xmpz``) are changed where they are: scaled by ``lower^(size - a) w1^a``, a Taylor shift
    by suffix sums, then ``w1^j`` divided out and ``w0^j`` multiplied in (``powers``: the
    powers of lower, ``w0`` and ``w1``). Shared by the keyed lines of
    :mod:`app.engine.pen.allocation` and the indexed simplex."""
    top = len(d) - 1
    lo_pow, w0_pow, w1_pow = powers
    for a in range(top + 1):
        factor = lo_pow[size - a] * w1_pow[a]
        if factor != 1 and d[a]:
            d[a] *= factor
    for i in range(top):  # pass i: d[i:] becomes its suffix sums, in place
        for j in range(top - 1, i - 1, -1):
            d[j] += d[j + 1]
    if w1 != 1:
        for j in range(1, top + 1):
            d[j] //= w1_pow[j]
    if w0 != 1:
        for j in range(1, top + 1):
            d[j] *= w0_pow[j]


def spread(
    vals: list[xmpz | int], lines: Sequence[Sequence[int]], coef: Sequence[Sequence[int]]
) -> None:
    """Every model at the higher level of each line receives one wound, in place:
    ``coef[a][e]`` weighs ``e`` of the line's ``a`` models there dropping one level (the
    products, for a drop weight too large to scale a line by: a kill weight). Each new
    weight reads the old ones at and above its place only, so the line is rewritten from
    its lowest place up."""
    for line in lines:
        top = len(line) - 1
        while top >= 0 and not vals[line[top]]:
            top -= 1
        if top <= 0:
            continue
        c = [vals[line[a]] for a in range(top + 1)]
        for p in range(top + 1):
            acc: xmpz | int = 0
            for a in range(p, top + 1):
                x = c[a]
                if x:
                    acc += x * coef[a][a - p]
            vals[line[p]] = acc


def one_more_wound(
    vals: list[xmpz | int],
    space: Simplex,
    w0: int,
    w1: int,
    keep: Callable[[int], int] | None = None,
) -> None:
    """Every living model of every state of ``vals`` (weights by index of ``space``)
    receives one more wound that takes one W with weight ``w1`` and none with ``w0``, in
    place: :func:`app.engine.pen.allocation._one_more_wound_keyed` on the indexed simplex,
    one level at a time from the lowest (level 1 scales the removed models by ``t = w0 +
    w1`` each). ``keep(alive)``: the bits of a row still needed by a state with ``alive``
    living models, applied once the lowest level is done (only it removes models)."""
    models = space.models
    t = w0 + w1
    # GMP powers: a Python int multiplied into an mpz is converted every time
    w0_pow = [mpz(w0) ** i for i in range(models + 1)]
    w1_pow = [mpz(w1) ** i for i in range(models + 1)]
    ones = [mpz(1)] * (models + 1)
    for level, lines in enumerate(space.lines, start=1):
        lo_pow = [mpz(t) ** i for i in range(models + 1)] if level == 1 else ones
        powers = (lo_pow, w0_pow, w1_pow)
        for line in lines:
            shear(vals, line, t if level == 1 else 1, w0, w1, powers)
        if level == 1 and keep is not None:
            cut(vals, space, keep)


def cut(vals: list[xmpz | int], space: Simplex, keep: Callable[[int], int]) -> None:
    """Each row of ``vals`` cut to ``keep(alive)`` bits, in place."""
    masks: dict[int, int] = {}
    models = space.models
    for i, x in enumerate(vals):
        if not x:
            continue
        bits = keep(models - space.digits[i][0])
        if x.bit_length() > bits:
            mask = masks.get(bits)
            if mask is None:
                mask = masks[bits] = (mpz(1) << bits) - 1  # GMP: no conversion per row
            if type(x) is xmpz:
                x &= mask
            else:
                vals[i] = x & mask


def as_states(vals: Sequence[xmpz | int], space: Simplex) -> dict[tuple[int, ...], xmpz | int]:
    """The non-zero rows of ``vals`` by squad state (``state[i]``: models with ``i + 1`` W
    left), not copied: the caller only reads them (``gmpy2.unpack``); copying every row into
    an immutable ``mpz`` cost as much as a level of the layers."""
    return {space.digits[i][1:]: x for i, x in enumerate(vals) if x}
