"""The short tail of a split allocation line, in closed form (issue 18).

:class:`app.engine.wh40k10e.exact._PrefixSplitChain` splits the line of a unit at the end of
its main models. Paths leave the main models within ``S`` live attacks (every live attack
moves them on), but on the tail (a sergeant who saves better, a CHARACTER) a live attack may
change nothing, so the tail must absorb every live attack up to the most the weapon can make
(``top``, 270 for 30 models of D6+3 attacks). With ``c_t`` the weight of exactly ``t`` live
attacks, ``A`` one live attack on the tail (backward: the value of a state from the values of
the states it leads to), ``f`` the read-out and ``flux_s`` the paths that enter the tail at
the ``s``-th live attack, the answer is

    sum_s flux_s . R_s,   R_s = sum_(t >= s) c_t A**(t - s) f
  = sum_(t <= S) c_t (X_t . f)  +  X_S . (A Q(A) f),

with ``X_t = X_(t-1) A + flux_t`` (forward, small integers: at most ``S`` steps) and
``Q(z) = sum_(t > S) c_t z**(t - S - 1)`` reduced modulo a polynomial ``p`` with
``p(A) = 0``. ``A`` is triangular: a live attack moves a path along the line or adds a
pending mortal wound, except the "nothing happens on this model" weight on the diagonal
(``lambda_i``, one per tail model). Grouping the tail's cells by their longest distance from
a source (no move links two cells of one level but a cell to itself), ``A`` is block
triangular with diagonal blocks, so ``p = prod_levels prod_(distinct lambda) (z - lambda)``
annihilates it (a dozen or two factors instead of a step per live attack). Every value is an
integer: the answer is exact, over the same denominator as the step-by-step sum.

Each read-out ``X . f`` is reduced to the few output values before it meets the big
``c_t``, so the big-by-medium products are ``S x outputs``, not ``S x cells x cells``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from gmpy2 import bit_mask, mpz, pack, unpack, xmpz

__all__ = ["annihilator", "tail_sum"]

Move = tuple[int, int, int]  # (destination state, cells to shift, weight): backward


def annihilator(
    states: list[int], moves: dict[int, list[Move]], cells: dict[int, int]
) -> list[int]:
    """A monic integer polynomial (coefficients lowest first) ``p`` with ``p(A) = 0``, ``A``
    the backward operator ``V'[i][k + sh] += wt * V[dst][k]`` (``k + sh < cells[i]``)."""
    lam = {i: sum(wt for dst, sh, wt in moves[i] if dst == i and sh == 0) for i in states}
    level = {(i, k): 0 for i in states for k in range(cells[i])}
    edges = [
        ((dst, k), (i, k + sh))
        for i in states
        for dst, sh, _ in moves[i]
        if not (dst == i and sh == 0)
        for k in range(cells[dst])
        if k + sh < cells[i]
    ]
    for _ in range(len(level) + 1):  # longest paths (the move graph is acyclic)
        changed = False
        for u, v in edges:
            if level[v] <= level[u]:
                level[v] = level[u] + 1
                changed = True
        if not changed:
            break
    else:  # pragma: no cover - a cycle would mean a move back along the line
        raise AssertionError("the tail's moves are not acyclic")
    factors = sorted({(level[node], lam[node[0]]) for node in level})
    p = [1]
    for _, root in factors:  # times (z - root)
        p = [(p[j - 1] if j else 0) - root * (p[j] if j < len(p) else 0) for j in range(len(p) + 1)]
    return p


def _unpack_bits(x: int, count: int, bits: int) -> list[int]:
    """The ``count`` slots of ``bits`` bits of ``x`` (GMP integers)."""
    out: list[int] = unpack(x, bits)[:count]
    return out + [0] * (count - len(out))


def _pack_bits(values: list[int], bits: int) -> int:
    """``values`` in slots of ``bits`` bits, the first lowest, as a GMP integer (``mpz``:
    the forward values are big, and GMP's arithmetic on them is faster than CPython's)."""
    x: int = pack(values, bits) if values else mpz(0)
    return x


def tail_sum(
    states: list[int],
    moves: dict[int, list[Move]],
    readout: dict[int, list[int]],
    coef: list[int],
    cells: dict[int, int],
    pos: dict[int, int],
    flux: list[dict[int, list[int]]],
    spend: Callable[[int, int], None],
) -> list[int]:
    """``sum_s flux_s . R_s`` (module docstring) as output values: a path that ends in cell
    ``k`` of state ``i`` with read-out ``f_i`` adds ``(y**k f_i)[j]`` to output
    ``pos[i] + j`` for ``j < cells[i]``. ``moves`` are backward (``R[i] += (R[dst] << sh)
    wt``); ``flux[s]``: state -> its cells (non-negative, ``s = 1 .. S``); ``coef[t]`` the
    weight of ``t`` live attacks (``t = 0 .. top``)."""
    if not states:
        return []
    top = len(coef) - 1
    steps = len(flux) - 1
    n_out = max(pos[i] + cells[i] for i in states)
    fwd: dict[int, list[Move]] = {i: [] for i in states}
    row_max = 0
    for i in states:
        for dst, sh, wt in moves[i]:
            shift = sh - pos[dst] + pos[i]
            assert shift >= 0
            if shift < cells[dst]:
                fwd[i].append((dst, shift, wt))
        row_max = max(row_max, sum(wt for _, _, wt in moves[i]))
    # slots wide enough for the forward values: their total mass grows by at most the
    # largest row sum per step, plus the flux
    bound = most = 0
    for s in range(1, steps + 1):
        bound = bound * row_max + sum(sum(v) for v in flux[s].values())
        most = max(most, bound)
    bits = most.bit_length() + 1
    masks = {i: bit_mask(cells[i] * bits) for i in states}
    per_step = sum(len(m) for m in fwd.values())
    out = [0] * n_out
    x_now: dict[int, int] = {}
    for t in range(1, steps + 1):
        nxt: dict[int, int] = defaultdict(xmpz)  # summed in place, masked into an mpz
        for i, x in x_now.items():
            for dst, shift, wt in fwd[i]:
                nxt[dst] += (x << (shift * bits) if shift else x) * wt
        for i, vals in flux[t].items():
            if i in masks:
                nxt[i] += _pack_bits(vals[: cells[i]], bits)
        x_now = {i: v for i, x in nxt.items() if (v := x & masks[i])}
        spend(per_step, max(cells.values()) * bits)
        c = coef[t]
        if c:
            red = [0] * n_out
            for i, x in x_now.items():
                _read(red, _unpack_bits(x, cells[i], bits), readout[i], pos[i], cells[i])
            for e, v in enumerate(red):
                if v:
                    out[e] += c * v
    if top > steps and x_now:
        tail = _closed_form(states, moves, readout, coef, cells, steps, spend)
        red = [0] * n_out
        for i, x in x_now.items():
            _read(red, _unpack_bits(x, cells[i], bits), tail[i], pos[i], cells[i])
        for e, v in enumerate(red):
            out[e] += v
    return [int(v) for v in out]  # Python integers out of GMP's


def _read(out: list[int], xs: list[int], f: list[int], at: int, n: int) -> None:
    """``out[at + j] += (xs * f)[j]`` for ``j < n``."""
    for k, v in enumerate(xs):
        if v:
            for j in range(min(len(f), n - k)):
                if f[j]:
                    out[at + k + j] += v * f[j]


def _closed_form(
    states: list[int],
    moves: dict[int, list[Move]],
    readout: dict[int, list[int]],
    coef: list[int],
    cells: dict[int, int],
    steps: int,
    spend: Callable[[int, int], None],
) -> dict[int, list[int]]:
    """``sum_(t > steps) c_t A**(t - steps) f`` per state (its cells), through the
    annihilating polynomial of ``A``."""
    p = annihilator(states, moves, cells)
    d = len(p) - 1
    q = [0] * d
    for t in range(len(coef) - 1, steps, -1):  # q = q z + c_t  (mod p)
        lead = q[-1]
        q = [(q[j - 1] if j else 0) - lead * p[j] for j in range(d)]
        q[0] += coef[t]
    spend(len(coef) * d, max(abs(x) for x in q).bit_length())
    value = {i: (readout[i] + [0] * cells[i])[: cells[i]] for i in states}
    total = {i: [0] * cells[i] for i in states}
    for j in range(d):
        nxt = {}
        for i in states:  # one backward step: V'[i][k + sh] += wt V[dst][k]
            row = [0] * cells[i]
            for dst, sh, wt in moves[i]:
                src = value[dst]
                for k in range(min(len(src), cells[i] - sh)):
                    if src[k]:
                        row[k + sh] += wt * src[k]
            nxt[i] = row
        value = nxt
        qj = q[j]
        if qj:
            for i in states:
                acc = total[i]
                for k, v in enumerate(value[i]):
                    if v:
                        acc[k] += qj * v
        spend(sum(len(m) for m in moves.values()) * 4, qj.bit_length())
    return total
