"""The tail of a split line in closed form (:mod:`app.engine.wh40k10e.tail`, issue 18): the
annihilating polynomial is one (``p(A) = 0`` on random triangular tails), and ``tail_sum``
equals the step-by-step backward sum ``sum_s flux_s . R_s``, ``R_s = c_s f + A R_(s+1)``,
on random tails, fluxes and live-attack counts longer and shorter than the forward pass."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.wh40k10e.tail import Move, annihilator, tail_sum


@st.composite
def tails(draw: st.DrawFn) -> dict[str, Any]:
    n = draw(st.integers(1, 5))
    states = list(range(10, 10 + n))  # line order
    absolute = draw(st.booleans())  # outputs by position (bodyguard) or all at 0 (read-outs)
    end = n + draw(st.integers(1, 4))
    pos = {i: (i - 10 if absolute else 0) for i in states}
    cells = {i: (end - pos[i] if absolute else end) for i in states}
    lam = {i: draw(st.integers(0, 5)) for i in states}
    moves: dict[int, list[Move]] = {}
    for i in states:
        row: list[Move] = []
        if lam[i]:
            row.append((i, 0, lam[i]))
        for _ in range(draw(st.integers(0, 4))):
            dst = draw(st.sampled_from([j for j in states if j >= i]))
            m = draw(st.integers(0, 2))
            if dst == i and m == 0:
                m = 1
            sh = m + pos[dst] - pos[i]
            if sh < cells[i]:
                row.append((dst, sh, draw(st.integers(1, 6))))
        moves[i] = row
    readout = {
        i: [1] if absolute else draw(st.lists(st.integers(-9, 9), min_size=1, max_size=end))
        for i in states
    }
    top = draw(st.integers(1, 14))
    coef = [draw(st.integers(0, 10**6)) for _ in range(top + 1)]
    steps = draw(st.integers(1, top))
    flux: list[dict[int, list[int]]] = [{}]
    for _ in range(steps):
        flux.append(
            {
                i: draw(st.lists(st.integers(0, 50), min_size=1, max_size=cells[i]))
                for i in draw(st.lists(st.sampled_from(states), max_size=3, unique=True))
            }
        )
    return {
        "states": states,
        "moves": moves,
        "readout": readout,
        "coef": coef,
        "cells": cells,
        "pos": pos,
        "flux": flux,
    }


def _apply(
    moves: dict[int, list[Move]], cells: dict[int, int], v: dict[int, list[int]]
) -> dict[int, list[int]]:
    out = {}
    for i in cells:
        row = [0] * cells[i]
        for dst, sh, wt in moves[i]:
            for k, x in enumerate(v[dst]):
                if k + sh < cells[i]:
                    row[k + sh] += wt * x
        out[i] = row
    return out


def _naive(t: dict[str, Any]) -> list[int]:
    states, moves, cells, pos = t["states"], t["moves"], t["cells"], t["pos"]
    coef, flux = t["coef"], t["flux"]
    f = {i: (t["readout"][i] + [0] * cells[i])[: cells[i]] for i in states}
    value = {i: [0] * cells[i] for i in states}
    out = [0] * max(pos[i] + cells[i] for i in states)
    for s in range(len(coef) - 1, 0, -1):
        step = _apply(moves, cells, value)
        value = {i: [coef[s] * f[i][k] + step[i][k] for k in range(cells[i])] for i in states}
        if s < len(flux):
            for i, xs in flux[s].items():
                for k, x in enumerate(xs[: cells[i]]):
                    for j in range(cells[i] - k):
                        out[pos[i] + k + j] += x * value[i][j]
    return out


@settings(max_examples=300, deadline=None)
@given(tails())
def test_tail_sum_is_the_backward_sum(t: dict[str, Any]) -> None:
    got = tail_sum(
        t["states"],
        t["moves"],
        t["readout"],
        t["coef"],
        t["cells"],
        t["pos"],
        t["flux"],
        lambda updates, bits: None,
    )
    want = _naive(t)
    assert got + [0] * (len(want) - len(got)) == want


@settings(max_examples=300, deadline=None)
@given(tails())
def test_annihilator(t: dict[str, Any]) -> None:
    states, moves, cells = t["states"], t["moves"], t["cells"]
    p = annihilator(states, moves, cells)
    assert p[-1] == 1
    # p(A) applied to every unit vector is zero (Horner: acc = A acc + p_j v)
    for i0 in states:
        for k0 in range(cells[i0]):
            unit = {i: [int(i == i0 and k == k0) for k in range(cells[i])] for i in states}
            acc = {i: [0] * cells[i] for i in states}
            for c in reversed(p):
                step = _apply(moves, cells, acc)
                acc = {i: [step[i][k] + c * unit[i][k] for k in range(cells[i])] for i in states}
            assert all(x == 0 for row in acc.values() for x in row)
