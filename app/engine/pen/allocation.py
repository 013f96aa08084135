"""Even wound allocation and casualty removal (note §5.6-§5.7, [L1394-L1411]).

The defender spreads the wounds of one allocation evenly over the living models of the squad,
never giving a model more than one wound more than another, and first to the models with the
fewest wounds left [L1396]. Saves are then rolled model by model [L1407]; a model reduced to
0 W is removed [L1411] and the wounds still allocated to it are lost. Wounds of one weapon that
are saved differently (Perforant's PA2 wounds) are allocated separately, one allocation after
the other [L1290] (pen rulings: the better-saved group first).

Identical single-wound models (a squad whose profile has 1 W) roll the saves of one allocation
together and each failed save removes one model, closest to the attacker first [L1410]: no
wound is lost on a model already removed (pen rulings 14). A squad of one-wound models is the
only squad that rule names, so the engine always uses it there; the even spread above is the
rule for models with more than one wound.

The exact path works on a squad *state*: ``state[i]`` is the number of living models with
``i + 1`` wounds left. Weights are integers over a common total (no Fraction arithmetic).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from functools import lru_cache, reduce
from itertools import accumulate, chain, repeat
from math import lcm
from operator import add, mul, or_, rshift
from typing import TypeVar

from gmpy2 import mpz, pack, unpack, xmpz

from app.engine.distributions import Dist
from app.engine.pen.procedures import Dice
from app.engine.pen.profiles import MAX_MODELS
from app.engine.pen.simplex import (
    MAX_SIMPLEX,
    as_states,
    cut,
    lines_within,
    one_more_wound,
    shear,
    shift_in_place,
    simplex,
    simplex_size,
    spread,
)
from app.engine.pen.wounds import LossPlan, loss_steps

__all__ = [
    "State",
    "Weighted",
    "allocate_exact",
    "allocate_live",
    "allocation_counts",
    "damage_of",
    "initial_state",
    "mix",
    "models_of",
    "two_allocations",
]

State = tuple[int, ...]  # state[i]: living models with i + 1 W left
K = TypeVar("K")
Weighted = tuple[tuple[tuple[K, int], ...], int]  # ((key, weight), ...), total


def initial_state(models: int, wounds: int) -> State:
    return tuple(models if i == wounds - 1 else 0 for i in range(wounds))


def models_of(state: State) -> int:
    """Living models of a state."""
    return sum(state)


def damage_of(state: State, models: int, wounds: int) -> int:
    """Wounds lost by a squad of ``models`` x ``wounds`` W now in ``state``."""
    return models * wounds - sum((i + 1) * c for i, c in enumerate(state))


def allocation_counts(alive: int, wounds: int) -> list[int]:
    """Wounds received by each living model, listed fewest-W-left first [L1396].

    Even spread: every model gets ``wounds // alive``, and the remainder goes one each to the
    models with the fewest wounds left.
    """
    if alive <= 0:
        return []
    q, r = divmod(wounds, alive)
    return [q + 1] * r + [q] * (alive - r)


def mix(terms: Iterable[tuple[K, int, int]]) -> tuple[dict[K, int], int]:
    """Sum weighted terms (key, numerator, denominator) over one common denominator."""
    items = list(terms)
    factors: dict[int, int] = dict.fromkeys((d for _, _, d in items), 0)
    total = lcm(*factors) if factors else 1
    for den in factors:
        factors[den] = total // den
    out: dict[K, int] = {}
    for key, num, den in items:
        if num:
            out[key] = out.get(key, 0) + num * factors[den]
    return out, total


@lru_cache(maxsize=4096)
def _model_outcome(w: int, received: int, loss: Dist) -> tuple[tuple[tuple[int, int], ...], int]:
    """W left on a model with ``w`` W after ``received`` wounds: ((w left, weight), ...), total."""
    if received == 0:
        return ((w, 1),), 1
    left = loss.repeat(received).map(lambda s: max(0, w - s))
    return tuple(left.weights().items()), left.total


@lru_cache(maxsize=4096)
def _removed_together(alive: int, wounds: int, loss: Dist) -> Dist:
    """Models removed when ``alive`` identical one-W models roll ``wounds`` saves together:
    each wound that takes a W off removes one model, at most ``alive`` [L1410], [L1411]."""
    p_kill = 1 - loss.prob(0)
    return Dist.binomial(wounds, p_kill).map(lambda k: min(k, alive))


@lru_cache(maxsize=65536)
def allocate_exact(state: State, wounds: int, loss: Dist) -> Weighted[State]:
    """Exact distribution of the squad state after one allocation of ``wounds`` wounds.

    ``loss`` is the distribution of the W one allocated wound takes off (0 when saved), the
    same for every wound of this allocation. Returns integer weights over a total. A state of
    length 1 is a squad of one-W models: its saves are rolled together [L1410].
    """
    alive = models_of(state)
    if wounds == 0 or alive == 0:
        return ((state, 1),), 1
    if len(state) == 1:
        removed = _removed_together(alive, wounds, loss)
        return tuple(((alive - k,), w) for k, w in removed.weights().items()), removed.total
    q, r = divmod(wounds, alive)
    classes: list[tuple[int, int, int]] = []  # (W left, wounds received, models)
    extra = r
    for i, count in enumerate(state):
        if not count:
            continue
        more = min(extra, count)
        extra -= more
        if more:
            classes.append((i + 1, q + 1, more))
        if count - more:
            classes.append((i + 1, q, count - more))
    table: dict[State, int] = {(0,) * len(state): 1}
    total = 1
    for w, received, count in classes:
        outcome, t = _model_outcome(w, received, loss)
        for _ in range(count):
            nxt: dict[State, int] = {}
            for st, x in table.items():
                for left, y in outcome:
                    key = st if left == 0 else (*st[: left - 1], st[left - 1] + 1, *st[left:])
                    nxt[key] = nxt.get(key, 0) + x * y
            table = nxt
            total *= t
    return tuple(table.items()), total


def allocate_live(
    dice: Dice,
    remaining: list[int],
    wounds: Sequence[LossPlan],
    on_model: Callable[[int, int, int], None] | None = None,
    *,
    together: bool = False,
) -> int:
    """Allocate ``wounds`` over the living models of ``remaining`` (W left per model, updated).

    The same spread as :func:`allocation_counts`: models sorted by W left then by index,
    wounds dealt round-robin; each model rolls one save per wound it received [L1407].
    ``on_model(index, received, lost)`` reports each model. Returns the failed saves.

    ``together`` (a squad of identical one-W models): the saves are rolled together and each
    wound that takes a W off removes the next living model in index order (the closest to the
    attacker) [L1410]; ``on_model`` then reports each removed model with one wound.
    """
    alive = sorted((i for i, w in enumerate(remaining) if w > 0), key=lambda i: (remaining[i], i))
    if not alive or not wounds:
        return 0
    if together:
        failed = 0
        removed = 0
        for plan in wounds:
            fail, loss = loss_steps(dice, plan)
            failed += fail
            removed += loss > 0
        for i in sorted(alive)[:removed]:
            before = remaining[i]
            remaining[i] = 0
            if on_model is not None:
                on_model(i, 1, before)
        return failed
    per_model: dict[int, list[LossPlan]] = {i: [] for i in alive}
    for j, plan in enumerate(wounds):
        per_model[alive[j % len(alive)]].append(plan)
    failed = 0
    for i in alive:
        received = per_model[i]
        if not received:
            continue
        lost = 0
        for plan in received:
            fail, loss = loss_steps(dice, plan)
            failed += fail
            lost += loss
        before = remaining[i]
        remaining[i] = max(0, before - lost)
        if on_model is not None:
            on_model(i, len(received), before - remaining[i])
    return failed


# ------------------------------------------------------------------------------------------
# two save groups on multi-wound models (Rending, Perforant): two allocations, counts only
# ------------------------------------------------------------------------------------------


def _weights_of(loss: Dist) -> tuple[list[int], int]:
    """Dense integer weights of ``loss`` from 0, and their total."""
    lo, weights, total = loss.dense()
    return [0] * lo + list(weights), total


@lru_cache(maxsize=8192)
def _kept(w: int, received: int, loss: Dist) -> tuple[int, ...]:
    """W lost (capped at ``w``) by a model with ``w`` W left receiving ``received`` wounds:
    integer weights over ``loss.total ** received``, unreduced (one total per wound); each
    count from the one before (cached)."""
    if received == 0:
        return (1,) + (0,) * w
    lw, _ = _weights_of(loss)
    before = _kept(w, received - 1, loss)
    out = [0] * (w + 1)
    for i, x in enumerate(before):
        if x:
            for j, y in enumerate(lw):
                if y:
                    out[min(i + j, w)] += x * y
    return tuple(out)


def _convolve(a: Sequence[int], b: Sequence[int]) -> list[int]:
    out = [0] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        if x:
            for j, y in enumerate(b):
                out[i + j] += x * y
    return out


@lru_cache(maxsize=16384)
def _class_outcome(
    w: int, received: int, count: int, loss: Dist
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(models destroyed, W lost) of ``count`` models with ``w`` W left receiving
    ``received`` wounds each, independent given the allocation [L1407]: weights over
    ``loss.total ** (received * count)``."""
    one = _kept(w, received, loss)
    kill = one[w]
    alive = sum(one) - kill
    destroyed = tuple(
        math.comb(count, j) * kill**j * alive ** (count - j) for j in range(count + 1)
    )
    lost: list[int] = [1]
    base = list(one)
    n = count
    while n:  # binary powering of a short vector
        if n & 1:
            lost = _convolve(lost, base)
        n >>= 1
        if n:
            base = _convolve(base, base)
    return destroyed, tuple(lost)


@lru_cache(maxsize=65536)
def _spread_outcome(state: State, wounds: int, loss: Dist) -> tuple[tuple[int, ...], ...]:
    """(models destroyed, W lost) weight vectors when ``wounds`` wounds of one allocation are
    spread evenly over ``state`` (fewest W left first [L1396]), over
    ``loss.total ** wounds``: the same classes as :func:`allocate_exact`, counts only."""
    alive = models_of(state)
    q, r = divmod(wounds, alive)
    destroyed: list[int] = [1]
    lost: list[int] = [1]
    extra = r
    for i, count in enumerate(state):
        if not count:
            continue
        more = min(extra, count)
        extra -= more
        for received, n in ((q + 1, more), (q, count - more)):
            if n:
                d, lo = _class_outcome(i + 1, received, n, loss)
                destroyed = _convolve(destroyed, d)
                lost = _convolve(lost, lo)
    return tuple(destroyed), tuple(lost)


def _sure_outcomes(state: State, counts: int, per_wound: int) -> list[tuple[int, int]]:
    """(models destroyed, W lost) of :func:`_spread_outcome` for ``0 .. counts - 1`` wounds
    when every wound takes exactly ``per_wound`` W (Rending, PA2 with no save left, no Feel No
    Pain): one outcome per count. The ``k``-th wound of an even spread goes to the
    ``k % alive``-th living model, fewest W left first [L1396] (its ``k // alive + 1``-th
    wound), so each count is the one before plus one wound."""
    order = [i + 1 for i, n in enumerate(state) for _ in range(n)]  # W left, fewest first
    alive = len(order)
    out: list[tuple[int, int]] = []
    destroyed = lost = 0
    for k in range(counts):
        out.append((destroyed, lost))
        w = order[k % alive]
        before = per_wound * (k // alive)  # W this wound's model took before it
        if before < w:
            if before + per_wound >= w:
                lost += w - before
                destroyed += 1
            else:
                lost += per_wound
    return out


def _sure_into(
    state: State,
    row: Sequence[int],
    per_wound: int,
    start: tuple[int, int],
    destroyed: list[int],
    lost: list[int],
) -> None:
    """Add ``row[k]`` at the outcome of :func:`_sure_outcomes` for each count ``k`` (offset
    by ``start``: the models destroyed and W lost before), by runs instead of one count at a
    time: in each round every living model takes one wound, fewest W left first [L1396], so
    the models of one level are consecutive counts that each add the same (a model already
    dead: nothing; one killed: its W left, one destroyed; one hurt: ``per_wound`` W). A run
    whose outcome does not change is summed into one place, the others added slot by slot
    (slices, in C). The same integers as :func:`_sure_outcomes`, count by count."""
    levels = [(i + 1, n) for i, n in enumerate(state) if n]
    highest = max(w for w, _ in levels)
    d, w_lost = start
    k = 0
    size = len(row)
    rnd = 0
    while k < size:
        before = per_wound * rnd  # W each model of this round took before it
        for w, n in levels:
            if k >= size:
                break
            end = min(k + n, size)
            run = row[k:end]
            if before >= w:  # dead: this run's wounds change nothing
                dd, dl = 0, 0
            elif before + per_wound >= w:
                dd, dl = 1, w - before
            else:
                dd, dl = 0, per_wound
            if dd:
                destroyed[d : d + len(run)] = map(add, destroyed[d : d + len(run)], run)
            else:
                destroyed[d] += sum(run)
            if dl:
                stop = w_lost + dl * len(run)
                lost[w_lost:stop:dl] = map(add, lost[w_lost:stop:dl], run)
            else:
                lost[w_lost] += sum(run)
            d += dd * n
            w_lost += dl * n
            k = end
        rnd += 1
        if rnd * per_wound >= highest and k < size:
            # every model dead: the remaining counts change nothing
            destroyed[d] += sum(row[k:])
            lost[w_lost] += sum(row[k:])
            break


_BASE = MAX_MODELS + 1  # a digit per W left: more than the models of any squad


@lru_cache(maxsize=4096)
def _class_states(w: int, received: int, count: int, loss: Dist) -> tuple[dict[int, int], int]:
    """Squad states of ``count`` unhurt models of ``w`` W receiving ``received`` wounds each
    (independent [L1407]), each state as an integer key ``sum(n[i] * base ** i)`` (``n[i]``:
    models with ``i + 1`` W left): weights, total. Built from
    ``count - 1`` (cached), so every class of an even spread is shared between counts."""
    if count == 0:
        return {0: 1}, 1
    before, total = _class_states(w, received, count - 1, loss)
    outcome, t = _model_outcome(w, received, loss)
    out: dict[int, int] = {}
    for left, y in outcome:
        step = _BASE ** (left - 1) if left else 0
        for key, x in before.items():
            k = key + step
            out[k] = out.get(k, 0) + x * y
    return out, total * t


def _first_states(models: int, wounds: int, k: int, loss: Dist) -> tuple[dict[int, int], int]:
    """:func:`allocate_exact` of ``k`` wounds over an unhurt squad of models of more than one
    W, keyed as :func:`_class_states`: the ``k % models`` models receiving one wound more and
    the others are two independent classes."""
    q, r = divmod(k, models)
    more, t1 = _class_states(wounds, q + 1, r, loss)
    rest, t2 = _class_states(wounds, q, models - r, loss)
    out: dict[int, int] = {}
    for ka, wa in more.items():
        for kb, wb in rest.items():
            key = ka + kb
            out[key] = out.get(key, 0) + wa * wb
    return out, t1 * t2


def _first_total(models: int, wounds: int, k: int, loss: Dist) -> int:
    """The total of :func:`_first_states` (``t(q + 1) ** r * t(q) ** (models - r)``)."""
    q, r = divmod(k, models)
    more: int = _model_outcome(wounds, q + 1, loss)[1]
    rest: int = _model_outcome(wounds, q, loss)[1]
    return int(more**r * rest ** (models - r))


def _rows_of_spread(
    packed: dict[int, int],
    models: int,
    wounds: int,
    q: int,
    joint: Sequence[Sequence[int]],
    loss: Dist,
    common: int,
    slot: int,
) -> None:
    """Add ``sum_r P(s | k1) * acc(k1)`` to ``packed[s]`` for the counts ``k1 = q * models +
    r`` of the first group (``acc(k1)``: the row ``J(k1, .)`` packed, over ``common``).

    The first ``r`` models receive ``q + 1`` wounds, the others ``q`` (even spread over an
    unhurt squad, models independent [L1407]): ``P(. | k1) = A^r B^(models - r)`` with ``A``
    and ``B`` one model's outcomes. Horner's scheme over the models, ``V_i = V_(i-1) B +
    acc(q * models + i) A^i``, gives every ``r`` at once: each step multiplies the packed
    integers by one model's small weights instead of every state's weight per count
    (:func:`_first_states`), with the same integers.
    """
    t_more = _model_outcome(wounds, q + 1, loss)[1]
    rest, t_rest = _model_outcome(wounds, q, loss)
    steps = [(_BASE ** (left - 1) if left else 0, y) for left, y in rest]
    acc_rows: list[int] = []
    for r in range(models):
        k1 = q * models + r
        jrow = joint[k1] if k1 < len(joint) else ()
        if not any(jrow):
            acc_rows.append(0)
            continue
        acc = 0
        for x in reversed(jrow):
            acc = (acc << slot) | x
        acc_rows.append(acc * (common // (t_more**r * t_rest ** (models - r))))
    if not any(acc_rows):
        return
    table: dict[int, int] = {}
    for i in range(models + 1):
        if i and table:
            nxt: dict[int, int] = {}
            get = nxt.get
            for shift, y in steps:
                for key, value in table.items():
                    k = key + shift
                    nxt[k] = get(k, 0) + value * y
            table = nxt
        if i < models and acc_rows[i]:
            acc = acc_rows[i]
            powers, _ = _class_states(wounds, q + 1, i, loss)
            for key, weight in powers.items():
                table[key] = table.get(key, 0) + weight * acc
    for key, value in table.items():
        packed[key] = packed.get(key, 0) + value


def _shear_line(c: list[int], lower: int, w0: int, w1: int, powers: _Powers) -> list[int]:
    """One line of :func:`_one_more_wound`: ``c[a]`` weighs ``a`` models at the higher level
    and ``len(c) - 1 - a`` at the lower one; each model at the higher level drops one level
    with weight ``w1`` (stays: ``w0``), and the lower level is scaled by ``lower`` per model.

    ``b[j] = sum_(a >= j) c[a] lower^(L - a) C(a, j) w0^j w1^(a - j)``: the weights scaled by
    ``lower^(L - a) w1^a``, a Taylor shift by one (additions only), then ``w0^j / w1^j``.
    """
    size = len(c) - 1
    top = size
    while top >= 0 and not c[top]:
        top -= 1
    if top < 0:
        return c
    lo_pow, w0_pow, w1_pow = powers
    if w1 == 0:
        return [c[j] * (lo_pow[size - j] * w0_pow[j]) if c[j] else 0 for j in range(size + 1)]
    d = c[: top + 1]
    for a in range(top + 1):
        factor = lo_pow[size - a] * w1_pow[a]
        if factor != 1 and d[a]:
            d[a] *= factor
    # the Taylor shift: pass i makes d[i:] its suffix sums (d[j] += d[j + 1] downwards), on
    # the reversed list a prefix sum, run by accumulate in C
    rev = d[::-1]
    for i in range(top):
        end = top + 1 - i
        rev[:end] = accumulate(rev[:end])
    d = rev[::-1]
    if w1 != 1:
        d = [x // w1_pow[j] if x else 0 for j, x in enumerate(d)]
    if w0 != 1:
        d = [x * w0_pow[j] if x else 0 for j, x in enumerate(d)]
    return d + [0] * (size - top)


_Powers = tuple[list[int], list[int], list[int]]


def _shear_in_place(c: list[int], lower: int, w0: int, w1: int, powers: _Powers) -> list[int]:
    """:func:`_shear_line` with the Taylor shift's additions made in place (gmpy2 ``xmpz``
    copies of the weights): no new integer for each of its ``top * (top + 1) / 2``
    additions, about a sixth less CPU on the lines of the wound layers (issue 18). The same
    integers, as ``xmpz`` (mutable: the caller makes them ``mpz`` before they leave it);
    the weights of ``c`` are read, never changed."""
    size = len(c) - 1
    top = size
    while top >= 0 and not c[top]:
        top -= 1
    if top <= 0 or w1 == 0:
        return _shear_line(c, lower, w0, w1, powers)
    d = [xmpz(x) for x in c[: top + 1]]
    shift_in_place(d, size, w0, w1, powers)
    return [*d, *([0] * (size - top))]


def _one_more_wound(
    table: dict[State, int],
    models: int,
    wounds: int,
    w0: int,
    w1: int,
    keep: Callable[[int], int] | None = None,
) -> dict[State, int]:
    """Every living model of every state of ``table`` receives one more wound of a group
    whose wound takes one W with weight ``w1`` and none with ``w0`` (total ``t = w0 + w1``):
    the substitution ``x_0 -> t x_0``, ``x_w -> w0 x_w + w1 x_(w-1)`` of the states'
    generating function (models independent [L1407]), done one level at a time from the
    lowest (each a shear along the lines of two adjacent levels). Weights over ``t^models``
    times the table's. Worked on integer keys (:func:`_one_more_wound_keyed`).

    ``keep(alive)``: the bits of a packed row still needed by a state with ``alive`` living
    models (the higher ones are dropped once the lowest level is done: only it removes
    models)."""
    keyed = {_keyed(state, models): value for state, value in table.items()}
    after = _one_more_wound_keyed(keyed, models, wounds, w0, w1, keep)
    return {_decoded(key // _BASE, wounds): value for key, value in after.items()}


def _keyed(state: State, models: int) -> int:
    """A squad state as the integer key of :func:`_one_more_wound_keyed`: digit 0 (base
    ``_BASE``) the models removed, digit ``w`` the models with ``w`` W left."""
    key = models - sum(state)
    for i, n in enumerate(state):
        key += n * _BASE ** (i + 1)
    return key


def _one_more_wound_keyed(
    table: dict[int, int],
    models: int,
    wounds: int,
    w0: int,
    w1: int,
    keep: Callable[[int], int] | None = None,
) -> dict[int, int]:
    """:func:`_one_more_wound` on integer keys (:func:`_keyed`): the removed models are a
    digit, so every level's lines are two adjacent digits (the key with both zeroed names the
    line, the digits always summing to ``models``), read and written with integer arithmetic
    instead of tuples. The same integers."""
    t = w0 + w1
    for level in range(1, wounds + 1):
        lower = t if level == 1 else 1
        powers = (
            [lower**i for i in range(models + 1)],
            [w0**i for i in range(models + 1)],
            [w1**i for i in range(models + 1)],
        )
        low_unit = _BASE ** (level - 1)
        high_unit = low_unit * _BASE
        lines: dict[int, list[int]] = {}
        for key, value in table.items():
            high, rest = divmod(key // low_unit, _BASE)
            high, n_high = divmod(high, _BASE)
            n_low = rest
            fixed = key - n_low * low_unit - n_high * high_unit
            line = lines.get(fixed)
            if line is None:
                line = lines[fixed] = [0] * (n_low + n_high + 1)
            line[n_high] = value  # one state per (line, n_high): no sum, no copy
        out: dict[int, int] = {}
        for fixed, line in lines.items():
            size = len(line) - 1
            shifted = _shear_in_place(line, lower, w0, w1, powers)
            base = fixed + size * low_unit
            step = high_unit - low_unit
            for a, value in enumerate(shifted):
                if value:
                    out[base + a * step] = value
        table = out
        if level == 1 and keep is not None:
            kept: dict[int, int] = {}
            masks: dict[int, int] = {}
            for key, value in table.items():
                bits = keep(models - key % _BASE)
                if value.bit_length() > bits:
                    mask = masks.get(bits)
                    if mask is None:
                        mask = masks[bits] = (mpz(1) << bits) - 1  # GMP: no conversion per row
                    value &= mask
                if value:
                    kept[key] = value
            table = kept
    # the lines' weights are xmpz (_shear_in_place): immutable again before they leave
    return {key: mpz(value) if type(value) is xmpz else value for key, value in table.items()}


def _kept_rows(table: dict[State, int], keep: Callable[[int], int]) -> dict[State, int]:
    """The rows of ``table`` cut to ``keep(alive)`` bits (empty rows left out)."""
    out: dict[State, int] = {}
    masks: dict[int, int] = {}
    for state, value in table.items():
        bits = keep(sum(state))
        if value.bit_length() > bits:
            mask = masks.get(bits)
            if mask is None:
                mask = masks[bits] = (mpz(1) << bits) - 1  # GMP: no conversion per row
            value &= mask
        if value:
            out[state] = value
    return out


def _rows_by_wound_layers(
    models: int,
    wounds: int,
    joint: Sequence[Sequence[int]],
    loss: Dist,
    slot: int,
    sure_wipe: int | None,
) -> dict[State, int]:
    """``R(s, .)`` of :func:`two_allocations` (the rows ``J(k1, .)`` summed over the first
    group's counts ``k1`` into the squad states ``s`` they leave), for a first group whose
    wound takes at most one W: packed rows over ``J``'s total times
    ``t ** (models * (k1_max // models + 1))``.

    ``k1 = q * models + r`` wounds spread evenly over the unhurt squad give ``q + 1`` wounds to
    ``r`` models and ``q`` to the others: the squad after ``r`` wounds (``P_r``: each of ``r``
    models received one) with one more wound on every model, ``q`` times (``T``,
    :func:`_one_more_wound`, linear in the state distribution). So ``sum_(q, r) J(q, r) T^q
    P_r = U_0 + T(U_1 + T(U_2 + ...))`` with ``U_q = sum_r J(q, r) P_r`` (states of one
    line): ``k1_max / models`` applications of ``T`` instead of a Horner scheme over the
    models for every ``q``.

    ``sure_wipe``: when every second-group wound takes at least one W, a state with ``a``
    living models is wiped by ``a * sure_wipe`` second-group wounds or more, whatever
    happens to it later (``T`` never brings a model back): those slots are dropped as soon as
    they appear (the wipe's weight is what the rows miss of the total).
    """
    lw, t = _weights_of(loss)
    w0 = lw[0]
    w1 = lw[1] if len(lw) > 1 else 0
    n_max = len(joint) - 1
    top = n_max // models
    keep = None if sure_wipe is None else (lambda alive: alive * sure_wipe * slot)
    if simplex_size(models, wounds) <= MAX_SIMPLEX:
        return _rows_on_simplex(models, wounds, joint, w0, w1, slot, keep)
    table: dict[int, int] = {}  # states as keys of _keyed
    t_pow = [t**i for i in range(models + 1)]
    coef = [
        [math.comb(r, j) * w1**j * w0 ** (r - j) * t_pow[models - r] for j in range(r + 1)]
        for r in range(models)
    ]
    for q in range(top, -1, -1):
        if table:
            table = _one_more_wound_keyed(table, models, wounds, w0, w1, keep)
        line = _layer_line(q, models, n_max, joint, coef, slot)
        scale = t_pow[models] ** (top - q)
        for j, value in enumerate(line):
            if value:
                key = _keyed(
                    tuple(
                        j if i == wounds - 2 else models - j if i == wounds - 1 else 0
                        for i in range(wounds)
                    ),
                    models,
                )
                table[key] = table.get(key, 0) + value * scale
    states = {_decoded(key // _BASE, wounds): value for key, value in table.items()}
    return states if keep is None else _kept_rows(states, keep)


def _layer_line(
    q: int,
    models: int,
    n_max: int,
    joint: Sequence[Sequence[int]],
    coef: Sequence[Sequence[int]],
    slot: int,
) -> list[int]:
    """Layer ``q``'s entry line of the Horner scheme over the wound layers: for each ``j``, the
    packed rows of ``joint`` of the counts ``q * models + r`` weighted by ``coef[r][j]``
    (:func:`_line_coefficients`). Shared by the keyed and the indexed-simplex paths."""
    line = [0] * (models + 1)
    for r in range(models):
        k1 = q * models + r
        if k1 > n_max:
            break
        jrow = joint[k1]
        if not any(jrow):
            continue
        acc = pack(jrow, slot)
        for j, weight in enumerate(coef[r]):
            if weight:
                line[j] += acc * weight
    return line


def _line_coefficients(models: int, w0: int, w1: int) -> list[list[int]]:
    """``coef[r][j] = C(r, j) w1^j w0^(r - j) t^(models - r)``: the squad after ``r``
    single wounds (one each on ``r`` unhurt models), ``j`` of them having lost a W."""
    t = w0 + w1
    return [
        [mpz(math.comb(r, j) * w1**j * w0 ** (r - j) * t ** (models - r)) for j in range(r + 1)]
        for r in range(models)
    ]


def _rows_on_simplex(
    models: int,
    wounds: int,
    joint: Sequence[Sequence[int]],
    w0: int,
    w1: int,
    slot: int,
    keep: Callable[[int], int] | None,
) -> dict[State, int]:
    """:func:`_rows_by_wound_layers` on the indexed simplex of the squad
    (:mod:`app.engine.pen.simplex`): the same Horner scheme over the layers, every level's
    shear made in place on its lines; the same integers."""
    space = simplex(models, wounds)
    n_max = len(joint) - 1
    top = n_max // models
    t_models = (w0 + w1) ** models
    coef = _line_coefficients(models, w0, w1)
    # U_q's line: j models with wounds - 1 W left, the others unhurt
    entry = [space.index[(0,) * (wounds - 1) + (j, models - j)] for j in range(models + 1)]
    vals: list[xmpz | int] = [0] * len(space.digits)
    started = False
    for q in range(top, -1, -1):
        if started:
            one_more_wound(vals, space, w0, w1, keep)
        line = _layer_line(q, models, n_max, joint, coef, slot)
        scale = t_models ** (top - q)
        for j, value in enumerate(line):
            if value:
                i = entry[j]
                x = vals[i]
                if type(x) is xmpz:
                    x += value * scale
                else:
                    vals[i] = xmpz(x + value * scale)
                started = True
    if keep is not None:
        cut(vals, space, keep)
    return as_states(vals, space)


def _decoded(key: int, wounds: int) -> State:
    digits = []
    for _ in range(wounds):
        key, n = divmod(key, _BASE)
        digits.append(n)
    return tuple(digits)


def _first_counts(h: Sequence[int], a: int, b: int) -> list[int]:
    """``sum_n h[n] C(n, k) a^k b^(n - k)`` for every ``k``: the weights of the first
    group's count (every ``J(k, .)`` summed), by Horner's scheme over ``n`` on one packed
    integer (``sum_n h[n] (b + a z)^n``); no coefficient exceeds ``sum_n h[n] (a + b)^n``."""
    slot = sum(x * (a + b) ** n for n, x in enumerate(h)).bit_length() + 1
    acc = 0
    for x in reversed(h):
        acc = acc * b + ((acc * a) << slot) + x
    mask = (1 << slot) - 1
    out = []
    for _ in range(len(h)):
        out.append(acc & mask)
        acc >>= slot
    return out


# ------------------------------------------------------------------------------------------
# the second allocation by rounds (a second group whose wound takes at most one W)
# ------------------------------------------------------------------------------------------


def _binomial_rows(n: int, stay: int, drop: int) -> list[list[int]]:
    """``rows[m][e] = C(m, e) stay^(m - e) drop^e`` for ``m <= n``."""
    out: list[list[int]] = []
    for m in range(n + 1):
        out.append([mpz(math.comb(m, e) * stay ** (m - e) * drop**e) for e in range(m + 1)])
    return out


def _hit_level(
    table: dict[int, int], index: int, stay: int, drop: int, coef: list[list[int]]
) -> dict[int, int]:
    """Every model of ``table``'s states (keys of :func:`_keyed`) with ``index + 1`` W left
    receives one wound: it stays (weight ``stay``) or loses one W (``drop``; from one W left:
    removed)."""
    out: dict[int, int] = {}
    get = out.get
    unit = _BASE ** (index + 1)
    move = unit - unit // _BASE  # one model a level down
    for key, value in table.items():
        n = key // unit % _BASE
        if not n:
            out[key] = get(key, 0) + value
            continue
        for e, c in enumerate(coef[n]):
            k = key - e * move
            out[k] = get(k, 0) + value * c
    return out


_SHORT_LINE = 4  # lines of the partial rounds up to this long: the products, not the shear


def _second_by_rounds(
    rows: Mapping[State, Sequence[int]],
    models: int,
    wounds: int,
    loss: Dist,
    n_max: int,
    destroyed: list[int],
    lost: list[int],
) -> None:
    """Add to ``destroyed`` / ``lost`` the second allocation of :func:`two_allocations` from
    every (state, count) of ``rows`` (``R(s, k2)``, weighed by ``t ** (n_max - k2)``), for a
    group whose wound takes one W or none (``t``: its total).

    ``k2 = Q * a + rho`` wounds spread evenly over the ``a`` living models, fewest W left
    first [L1396]: one wound to each of the ``rho`` models with the fewest W left (a
    partial round), then ``Q`` wounds to every one of the ``a`` (``Q`` rounds). The rounds are
    summed by Horner's scheme over ``Q``, ``sum_Q T^Q D(Q)``, on squad states: ``T`` gives
    one wound to every living model, so only the state matters, not the count. A model
    removed with ``Q`` rounds still to come would receive ``Q`` more wounds that change
    nothing: their weight, ``t ** Q``, is put on its removal, so removed models need no
    place in the state. ``D(Q)``: the partial rounds of every state and ``rho`` with
    ``Q * a <= k2 < (Q + 1) * a``, grouped by the level of the last model hit (the models of
    the levels below all receive one wound, ``j`` of that level's): the weights of every
    ``j`` are packed into one integer per state, the lower levels' wounds given to the staged
    states together (states reaching the same one share them), then each staged state's
    ``j`` models hit once. Every weight is an integer over ``t ** n_max`` times the rows'
    total; no distribution per (state, count) is built.
    """
    lw, t = _weights_of(loss)
    stay = lw[0]
    drop = lw[1] if len(lw) > 1 else 0
    t_pow = [t**i for i in range(n_max + 1)]
    t_rev = t_pow[::-1]  # t ** (n_max - k)
    live = [(state, row, models_of(state)) for state, row in rows.items() if any(row)]
    live = [(state, row, a) for state, row, a in live if a]
    top = max(((len(row) - 1) // a for _, row, a in live), default=-1)
    plain = _binomial_rows(models, stay, drop)
    # a slot holds any weight of the staged rows: at most the rows' total times t ** n_max
    total = sum(sum(row) for _, row, _ in live)
    slot = (total * t_pow[n_max]).bit_length() + 1
    # each state's rows weighed once, and listed under the rounds q and levels where its
    # partial round has a count (q * a + the models of the levels below < the row's length)
    parts: list[list[list[tuple[int, list[int], int, int]]]] = [
        [[] for _ in range(wounds)] for _ in range(top + 1)
    ]
    for state, row, a in live:
        scaled = list(map(mul, row, t_rev))
        key = _keyed(state, models)
        below = 0
        for index, n in enumerate(state):
            if n:
                for q in range((len(row) - 1 - below) // a + 1):
                    first = q * a + below
                    parts[q][index].append((key, scaled, first, min(first + n, len(row))))
            below += n
    acc: dict[int, int] = {}  # squad states as keys of _keyed
    ones = [1] * (models + 1)
    stay_pow = [stay**i for i in range(models + 1)]
    shear_powers: dict[int, _Powers] = {}  # by round (level 0: the kill weight), -1 above
    for q in range(top, -1, -1):
        kill = drop * t_pow[q]  # removed with q rounds to come: their wounds' weight
        killing = _binomial_rows(min(models, n_max // q) if q else models, stay, kill)
        if acc:
            for index in range(wounds):  # fewest W left first: each model hit once
                acc = _hit_level(
                    acc, index, stay, kill if index == 0 else drop, killing if index == 0 else plain
                )
        # D(q) grouped by the level of the last model of the partial round (index): the
        # rows' weights of its j = 0, 1, ... models hit, packed (one slot per j) and staged
        # per state, so the models of the levels below, which all receive one wound, are hit
        # once for every state reaching the same one, not once per (state, j)
        for index in range(wounds):
            hit = kill if index == 0 else drop
            coef = killing if index == 0 else plain
            staged: Iterable[tuple[int, list[int]]]
            if index == 0:  # no level below: one entry per state, its weights as they are
                staged = [(key, scaled[first:end]) for key, scaled, first, end in parts[q][0]]
            else:
                stage: dict[int, int] = {}
                for key, scaled, first, end in parts[q][index]:
                    packed = pack(scaled[first:end], slot)
                    if packed:
                        stage[key] = stage.get(key, 0) + packed
                for lower in range(index):  # fewest W left first: each model one wound
                    stage = _hit_level(
                        stage,
                        lower,
                        stay,
                        kill if lower == 0 else drop,
                        killing if lower == 0 else plain,
                    )
                staged = [(st, unpack(packed, slot)) for st, packed in stage.items()]
            # dropped[e] = sum_j x[j] C(j, e) stay^(j - e) hit^e: a shear of the j models hit
            # (additions only, :func:`_shear_line`) on long lines, the products on short ones
            powers = shear_powers.get(q if index == 0 else -1)
            if powers is None:  # a state staged at q has at most n_max // q living models
                size = min(models, n_max // q) if q and index == 0 else models
                powers = shear_powers[q if index == 0 else -1] = (
                    ones,
                    [hit**i for i in range(size + 1)],
                    stay_pow,
                )
            get = acc.get
            unit = _BASE ** (index + 1)
            move = unit - unit // _BASE
            for st, xs in staged:
                if len(xs) > _SHORT_LINE:
                    dropped = _shear_in_place(xs, 1, hit, stay, powers)
                else:
                    dropped = [0] * len(xs)
                    for j, x in enumerate(xs):
                        if x:
                            for e, c in enumerate(coef[j]):
                                dropped[e] += x * c
                for e, x in enumerate(dropped):
                    if x:
                        key = st - e * move
                        acc[key] = get(key, 0) + x
    for key, value in acc.items():
        state = _decoded(key // _BASE, wounds)
        destroyed[key % _BASE] += value
        lost[damage_of(state, models, wounds)] += value


def _partial_rounds(
    staged: Sequence[tuple[int, list[int]]], hit: int, stay: int, slot: int
) -> list[tuple[int, list[int]]]:
    """``dropped[e] = sum_j x[j] C(j, e) stay^(j - e) hit^e`` for every staged ``(state,
    x)`` of :func:`_second_by_rounds` (``j`` models of a level hit, ``e`` of them dropping):
    the staged states with ``x`` of one length packed side by side (``slot`` bits each, room
    for the shear's scaled values) and sheared together, one Taylor shift of additions per
    length instead of one per state. The same integers."""
    by_length: dict[int, list[tuple[int, list[int]]]] = {}
    for st, xs in staged:
        by_length.setdefault(len(xs), []).append((st, xs))
    out: list[tuple[int, list[int]]] = []
    for size, group in by_length.items():
        if size == 1:
            out.extend(group)  # no model hit: nothing drops
            continue
        stay_pow = [mpz(stay) ** j for j in range(size)]
        hit_pow = [mpz(hit) ** j for j in range(size)]
        d = [xmpz(pack([xs[j] for _, xs in group], slot)) for j in range(size)]
        if stay != 1:
            for a in range(1, size):
                d[a] *= stay_pow[a]
        top = size - 1
        for i in range(top):  # pass i: d[i:] becomes its suffix sums, in place
            for j in range(top - 1, i - 1, -1):
                d[j] += d[j + 1]
        for j in range(1, size):
            if stay != 1:
                d[j] //= stay_pow[j]
            if hit != 1:
                d[j] *= hit_pow[j]
        columns = [unpack(x, slot) for x in d]
        for c, (st, _) in enumerate(group):
            out.append((st, [column[c] if c < len(column) else 0 for column in columns]))
    return out


def _second_by_rounds_on_simplex(
    rows: Mapping[State, Sequence[int]],
    models: int,
    wounds: int,
    loss: Dist,
    n_max: int,
    destroyed: list[int],
    lost: list[int],
) -> None:
    """:func:`_second_by_rounds` on the indexed simplex of the squad
    (:mod:`app.engine.pen.simplex`): the squad states of the rounds a list by index, each
    round's hits made in place along the lines of each level (a shear of additions where a
    model drops a level, the products where it is removed), and the partial rounds of every
    staged state of one length sheared together (:func:`_partial_rounds`). The same
    integers."""
    space = simplex(models, wounds)
    lw, t = _weights_of(loss)
    stay = lw[0]
    drop = lw[1] if len(lw) > 1 else 0
    t_pow = [mpz(t) ** i for i in range(n_max + 1)]  # GMP: no conversion per product
    t_rev = t_pow[::-1]  # t ** (n_max - k)
    live = [(state, row, models_of(state)) for state, row in rows.items() if any(row)]
    live = [(state, row, a) for state, row, a in live if a]
    top = max(((len(row) - 1) // a for _, row, a in live), default=-1)
    plain = _binomial_rows(models, stay, drop)
    total = sum(sum(row) for _, row, _ in live)
    slot = (total * t_pow[n_max]).bit_length() + 1
    # the partial rounds' shear scales a line by stay^j before dividing it out again
    wide = slot + models * (stay.bit_length() + 1) + 1
    parts: list[list[list[tuple[int, list[int], int, int]]]] = [
        [[] for _ in range(wounds)] for _ in range(top + 1)
    ]
    most_at = [0] * (top + 1)  # the most living models of a state staged at round q
    for state, row, a in live:
        scaled = list(map(mul, row, t_rev))
        i = space.index[(models - a, *state)]
        below = 0
        for index, n in enumerate(state):
            if n:
                for q in range((len(row) - 1 - below) // a + 1):
                    first = q * a + below
                    parts[q][index].append((i, scaled, first, min(first + n, len(row))))
                    most_at[q] = max(most_at[q], a)
            below += n
    most = 0
    vals: list[xmpz | int] = [0] * len(space.digits)
    ones = [mpz(1)] * (models + 1)
    plain_powers = (
        ones,
        [mpz(stay) ** i for i in range(models + 1)],
        [mpz(drop) ** i for i in range(models + 1)],
    )
    started = False
    for q in range(top, -1, -1):
        kill = drop * t_pow[q]  # removed with q rounds to come: their wounds' weight
        killing = _binomial_rows(min(models, n_max // q) if q else models, stay, kill)
        # no state of the table has more living models than the most of a state staged
        # so far (a hit never brings a model back): the lines above it are empty
        most = max(most, most_at[q])
        if started:
            for index in range(wounds):  # fewest W left first: each model hit once
                if index == 0:
                    spread(vals, lines_within(space, 1, most), killing)
                else:
                    for line in lines_within(space, index + 1, most):
                        shear(vals, line, 1, stay, drop, plain_powers)
        for index in range(wounds):
            hit = kill if index == 0 else drop
            staged: list[tuple[int, list[int]]]
            if index == 0:
                staged = [(i, scaled[first:end]) for i, scaled, first, end in parts[q][0]]
            else:
                stage: dict[int, int] = {}
                for i, scaled, first, end in parts[q][index]:
                    packed = pack(scaled[first:end], slot)
                    if packed:
                        stage[i] = stage.get(i, 0) + packed
                for lower in range(index):  # fewest W left first: each model one wound
                    stage = _hit_placed(stage, space.place[lower], killing if lower == 0 else plain)
                staged = [(i, unpack(packed, slot)) for i, packed in stage.items()]
            where = space.place[index]
            for i, dropped in _partial_rounds(staged, hit, stay, wide):
                line, position = where[i]
                for e, x in enumerate(dropped):
                    if x:
                        target = line[position - e]
                        value = vals[target]
                        if type(value) is xmpz:
                            value += x
                        else:
                            vals[target] = value + x
                        started = True
    for i, value in enumerate(vals):
        if value:
            digits = space.digits[i]
            destroyed[digits[0]] += value
            lost[models * wounds - sum(w * n for w, n in enumerate(digits))] += value


def _hit_placed(
    table: dict[int, int],
    place: Sequence[tuple[Sequence[int], int]],
    coef: Sequence[Sequence[int]],
) -> dict[int, int]:
    """:func:`_hit_level` on states by index of the simplex (``place``: each state's line
    and position at the level hit)."""
    out: dict[int, int] = {}
    get = out.get
    for i, value in table.items():
        line, position = place[i]
        for e, c in enumerate(coef[position]):
            target = line[position - e]
            out[target] = get(target, 0) + value * c
    return out


def two_allocations(
    models: int,
    wounds: int,
    hits: Dist,
    first: tuple[Fraction, Dist],
    second: tuple[Fraction, Dist],
    *,
    layers: bool = True,
    rounds: bool = True,
) -> tuple[Dist, Dist]:
    """(models destroyed, wounds lost) when each of ``hits`` becomes a wound of the first
    group (probability, W lost per wound), of the second, or nothing, and the first group is
    allocated evenly over the unhurt squad, then the second over what is left [L1290]. For
    models of more than one W (one-W squads roll their saves together, pen rulings 14).

    Counts, not sequences: the wounds of both groups are one thinning of the hits, split
    binomially (``J(k1, k2)``); the first allocation of ``k1`` wounds gives the squad states
    ``s`` (:func:`allocate_exact`); for each state the weights of ``k2`` are summed over
    ``k1`` (``R(s, k2)``), and the second allocation from ``s`` is needed only as counts
    (models destroyed and W lost, :func:`_spread_outcome`), never as states. Every weight
    is an integer over one common total.

    ``R`` is summed by wound layers (:func:`_rows_by_wound_layers`: "one more wound on every
    model" applied ``k1_max / models`` times) when a first-group wound takes at most one W
    and ``layers`` is true; otherwise by a Horner scheme over the models for every
    ``k1 // models`` (:func:`_rows_of_spread`, the counts method: cheaper for a single model
    of many W, and the oracle of the layers in the tests).
    """
    (p1, loss1), (p2, loss2) = first, second
    p = p1 + p2
    total_wounds = hits.thin(p)
    lo, dense, wounds_total = total_wounds.dense()
    n_max = lo + len(dense) - 1
    split = p1 / p
    a, c = split.numerator, split.denominator
    b = c - a
    a_pow = [a**k for k in range(n_max + 1)]
    b_pow = [b**k for k in range(n_max + 1)]
    # When every second-group wound takes a W (Rending or PA2 wounds with no save left, no
    # Feel No Pain), ``models * wounds`` of them or more give every living model at least its
    # W (even spread): a wipe, whatever their number. Those counts share one slot, ``cap``.
    cap = models * wounds if loss2.min >= 1 else n_max + 1
    width = min(n_max, cap) + 1
    # J[k1][k2] over wounds_total * c**n_max: h(n) C(n, k1) a^k1 b^k2 with n = k1 + k2
    h = [dense[n - lo] * c ** (n_max - n) if n >= lo else 0 for n in range(n_max + 1)]
    marginal = _first_counts(h, a, b) if n_max >= cap else []
    joint: list[list[int]] = []
    binomials = [1] * (n_max + 1)  # C(n, k1) for every n, the column of k1 (from k1 = 0)
    for k1 in range(n_max + 1):
        if k1:  # C(n, k1) = sum_(m < n) C(m, k1 - 1): one prefix sum per column, in C
            binomials = [0, *accumulate(binomials[:-1])]
        size = min(n_max - k1 + 1, width)
        end = k1 + min(size, cap)
        # h(n) C(n, k1) b^k2 a^k1 for k2 < cap (n = k1 + k2), products run by map in C
        row = list(map(mul, h[k1:end], binomials[k1:end]))
        if b != 1:
            row = list(map(mul, row, b_pow))
        if a_pow[k1] != 1:
            row = list(map(mul, row, repeat(a_pow[k1])))
        row += [0] * (size - len(row))
        if n_max - k1 >= cap:  # k2 >= cap: the squad is wiped, whatever k2 (see below)
            row[cap] = marginal[k1] - sum(row[:cap])
        joint.append(row)
    # a power of two common to every weight (the split's denominator and the wounds' total
    # often share one): dropped, so every slot below is that much narrower
    every = reduce(or_, chain.from_iterable(joint), 0)
    zeros = (every & -every).bit_length() - 1 if every else 0
    # GMP integers from here on (their sums and products of thousands of bits and more are
    # several times faster than CPython's); back to int in the answer
    joint = [list(map(rshift, map(mpz, row), repeat(zeros))) for row in joint]
    joint_total = (wounds_total * c**n_max) >> zeros  # the weights' sum, exactly
    # R(s, k2) for every k2 packed into one integer per state (Kronecker substitution): one
    # big-integer operation moves every k2 at once; no slot exceeds the total.
    _, t2 = _weights_of(loss2)
    t2_pow = [mpz(t2) ** k for k in range(n_max + 1)]
    destroyed = [0] * (models + 1)
    lost = [0] * (models * wounds + 1)
    if layers and loss1.max <= 1:  # a first-group wound takes at most one W: wound layers
        _, t1 = _weights_of(loss1)
        final = joint_total * t1 ** (models * (n_max // models + 1))
        slot = -(-(final.bit_length() + 1) // 8) * 8
        sure_wipe = -(-wounds // loss2.min) if loss2.min >= 1 else None
        by_state = _rows_by_wound_layers(models, wounds, joint, loss1, slot, sure_wipe)
        wiped = final  # what the rows miss of the total: the sure wipes they dropped
    else:
        common = lcm(*(_first_total(models, wounds, k1, loss1) for k1 in range(n_max + 1)))
        slot = -(-((joint_total * common).bit_length() + 1) // 8) * 8
        packed: dict[int, int] = {}
        for q in range(n_max // models + 1):
            _rows_of_spread(packed, models, wounds, q, joint, loss1, common, slot)
        by_state = {_decoded(key, wounds): value for key, value in packed.items()}
        wiped = 0
    rows: dict[State, list[int]] = {}
    for state, value in by_state.items():
        rows[state] = unpack(value, slot)
        if wiped:
            wiped -= sum(rows[state])
    if wiped:
        destroyed[models] += wiped * t2_pow[n_max]
        lost[models * wounds] += wiped * t2_pow[n_max]
    sure = loss2.min == loss2.max  # every second-group wound takes the same W: t2 == 1
    by_rounds = rounds and not sure and loss2.max <= 1
    for state, row in rows.items():
        d1 = models - models_of(state)
        l1 = damage_of(state, models, wounds)
        if d1 == models:
            x = sum(row) * t2_pow[n_max]
            destroyed[d1] += x
            lost[l1] += x
            continue
        if by_rounds:
            continue
        if sure:  # one outcome per count, over a total of 1, by runs of counts
            _sure_into(state, row, loss2.min, (d1, l1), destroyed, lost)
            continue
        for k2, weight in enumerate(row):
            if not weight:
                continue
            x = weight * t2_pow[n_max - k2]  # for the slot ``cap``: a wipe over t2 ** cap
            gd, gl = _spread_outcome(state, k2, loss2)
            for j, v in enumerate(gd):
                if v:
                    destroyed[d1 + j] += x * v
            for j, v in enumerate(gl):
                if v:
                    lost[l1 + j] += x * v
    if by_rounds:
        if simplex_size(models, wounds) <= MAX_SIMPLEX:
            _second_by_rounds_on_simplex(rows, models, wounds, loss2, n_max, destroyed, lost)
        else:
            _second_by_rounds(rows, models, wounds, loss2, n_max, destroyed, lost)
    return (
        Dist.from_weights({k: int(x) for k, x in enumerate(destroyed) if x}),
        Dist.from_weights({k: int(x) for k, x in enumerate(lost) if x}),
    )
