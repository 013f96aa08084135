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
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from math import lcm
from typing import TypeVar

from app.engine.distributions import Dist
from app.engine.pen.procedures import Dice
from app.engine.pen.profiles import MAX_MODELS
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


@lru_cache(maxsize=65536)
def _spread_sure(state: State, wounds: int, per_wound: int) -> tuple[int, int]:
    """(models destroyed, W lost) of :func:`_spread_outcome` when every wound takes exactly
    ``per_wound`` W (Rending, PA2 with no save left, no Feel No Pain): one outcome."""
    alive = models_of(state)
    q, r = divmod(wounds, alive)
    destroyed = lost = 0
    extra = r
    for i, count in enumerate(state):
        if not count:
            continue
        more = min(extra, count)
        extra -= more
        for received, n in ((q + 1, more), (q, count - more)):
            if n:
                taken = min(i + 1, received * per_wound)
                lost += n * taken
                if taken == i + 1:
                    destroyed += n
    return destroyed, lost


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


def _decoded(key: int, wounds: int) -> State:
    digits = []
    for _ in range(wounds):
        key, n = divmod(key, _BASE)
        digits.append(n)
    return tuple(digits)


def two_allocations(
    models: int,
    wounds: int,
    hits: Dist,
    first: tuple[Fraction, Dist],
    second: tuple[Fraction, Dist],
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
    # J[k1][k2] over wounds_total * c**n_max
    joint: list[list[int]] = []
    for k1 in range(n_max + 1):
        row = [0] * (n_max - k1 + 1)
        for k2 in range(len(row)):
            n = k1 + k2
            if n >= lo and dense[n - lo]:
                row[k2] = dense[n - lo] * c ** (n_max - n) * math.comb(n, k1) * a_pow[k1]
                row[k2] *= b_pow[k2]
        if len(row) > width:  # k2 >= cap: the squad is wiped, whatever k2 (see below)
            row[cap:] = [sum(row[cap:])]
        joint.append(row)
    common = lcm(*(_first_total(models, wounds, k1, loss1) for k1 in range(n_max + 1)))
    # R(s, k2) for every k2 packed into one integer per state (Kronecker substitution): one
    # big-integer operation moves every k2 at once; no slot exceeds the total.
    slot = -(-((wounds_total * c**n_max * common).bit_length() + 1) // 8) * 8
    packed: dict[int, int] = {}
    for q in range(n_max // models + 1):
        _rows_of_spread(packed, models, wounds, q, joint, loss1, common, slot)
    step = slot // 8
    rows: dict[State, list[int]] = {}
    for key, value in packed.items():
        raw = value.to_bytes(width * step, "little")
        rows[_decoded(key, wounds)] = [
            int.from_bytes(raw[i : i + step], "little") for i in range(0, len(raw), step)
        ]
    _, t2 = _weights_of(loss2)
    sure = loss2.min == loss2.max  # every second-group wound takes the same W: t2 == 1
    t2_pow = [t2**k for k in range(n_max + 1)]
    destroyed = [0] * (models + 1)
    lost = [0] * (models * wounds + 1)
    for state, row in rows.items():
        d1 = models - models_of(state)
        l1 = damage_of(state, models, wounds)
        if d1 == models:
            x = sum(row) * t2_pow[n_max]
            destroyed[d1] += x
            lost[l1] += x
            continue
        if sure:  # one outcome per count, over a total of 1
            for k2, weight in enumerate(row):
                if weight:
                    jd, jl = _spread_sure(state, k2, loss2.min)
                    destroyed[d1 + jd] += weight
                    lost[l1 + jl] += weight
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
    return (
        Dist.from_weights({k: x for k, x in enumerate(destroyed) if x}),
        Dist.from_weights({k: x for k, x in enumerate(lost) if x}),
    )
