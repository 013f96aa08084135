"""Benchmark: exact 10th-edition attack analysis against the same computation in icepool.

Run: ``.venv/bin/python bench/bench_combat_10e.py``. For each case it times
:func:`app.engine.wh40k10e.analyze` and an icepool program that computes the same
distributions, checks that both give exactly the same distribution of wounds lost and of
models destroyed, and prints our time and the ratio (icepool time / our time), all measured
in this run.

The icepool side is built honestly with icepool's own primitives, as an icepool user would:
the hit / wound / save dice as ``icepool.d6`` maps (re-rolls included), the wounds to save as
``n @ die`` sums (or a ``Die.map`` over the random number of attacks), and the allocation as a
Markov chain ``icepool.map(step, state, repeat=n)`` over (wounds left to save, wounds lost
along the allocation order), one wound to save per step, the model at the position deciding
the save, the damage and Feel No Pain; excess damage lost at each model.
"""

from __future__ import annotations

import functools
import statistics
import sys
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import icepool

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.distributions import Dist
from app.engine.wh40k10e import analyze, request_from_dict
from app.engine.wh40k10e.profiles import CombatRequest

MISS, HIT, CRIT = 0, 1, 2


def _timed(fn: Callable[[], object], runs: int) -> tuple[float, object]:
    times = []
    out: object = None
    for _ in range(runs):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
        if sum(times) > 2.0:  # a slow baseline: a single run is enough
            break
    return statistics.median(times), out


def _die_to_dist(die: icepool.Die) -> Dist:
    return Dist.from_weights({int(k): int(v) for k, v in die.items()})


# -- icepool building blocks -----------------------------------------------------------------


def ip_test(
    threshold: int, modifier: int = 0, reroll: str = "none", crit_on: int = 6
) -> icepool.Die:
    """A hit or wound test as an icepool die over MISS/HIT/CRIT."""

    def judge(u: int) -> int:
        if u >= crit_on:
            return CRIT
        if u == 1:
            return MISS
        return HIT if u + modifier >= threshold else MISS

    def first(u: int) -> object:
        r = judge(u)
        again = (reroll == "ones" and u == 1) or (reroll == "failed" and r == MISS)
        return icepool.d6.map(judge) if again else r

    return icepool.d6.map(first)


def ip_save_fail(save: int, modifier: int, invuln: int | None) -> Fraction:
    arm = sum(1 for u in range(2, 7) if u + min(1, modifier) >= save)
    inv = sum(1 for u in range(2, 7) if u >= invuln) if invuln else 0
    return Fraction(6 - max(arm, inv), 6)


def ip_loss(p_fail: Fraction, damage: icepool.Die, fnp: int | None) -> icepool.Die:
    """Wounds lost by one model from one wound to save."""
    keep = 7 - fnp if fnp else 0
    point = icepool.Die({0: keep, 1: 6 - keep})  # one point of damage after Feel No Pain
    lost = damage.map(lambda d: d @ point)
    saved = icepool.Die({0: p_fail.denominator - p_fail.numerator, 1: p_fail.numerator})
    return saved.map(lambda failed: lost if failed else 0)


def ip_chain(
    state: icepool.Die,
    tokens_max: int,
    loss_for: Callable[[int, int], tuple[int, icepool.Die] | None],
    ends: Callable[[int, int, int], int],
) -> icepool.Die:
    """Run wounds to save through the allocation lines. ``state`` outcomes are
    (tokens left, b, c); ``loss_for(b, c)`` gives (line, loss die) of the model in line."""

    def step(st: tuple[int, int, int]) -> object:
        t, b, c = st
        if t == 0:
            return st
        target = loss_for(b, c)
        if target is None:
            return (t - 1, b, c)
        line, loss = target
        end = ends(line, b, c)
        if line == 0:
            return loss.map(lambda x: (t - 1, min(b + x, end), c))
        return loss.map(lambda x: (t - 1, b, min(c + x, end)))

    return icepool.map(step, state, repeat=tokens_max)


# -- case (a) --------------------------------------------------------------------------------

CASE_A: dict[str, Any] = {
    "attacks": [
        {
            "models": 20,
            "weapon": {
                "name": "rifle",
                "kind": "ranged",
                "attacks": "2",
                "skill": 3,
                "strength": 4,
                "ap": -1,
                "damage": "2",
                "abilities": ["Sustained Hits 1", "Lethal Hits"],
            },
        }
    ],
    "target": {"models": 20, "toughness": 4, "save": 4, "wounds": 2, "feel_no_pain": 5},
}


def icepool_a() -> tuple[Dist, Dist]:
    hit = ip_test(3)
    wound = ip_test(4).map(lambda r: 1 if r else 0)
    per_attack = hit.map(lambda r: 0 if r == MISS else (wound if r == HIT else 1 + wound))
    tokens = 40 @ per_attack
    loss = ip_loss(ip_save_fail(4, -1, None), icepool.Die([2]), 5)
    state = tokens.map(lambda t: (t, 0, 0))
    final = ip_chain(
        state,
        80,
        lambda b, c: (0, loss) if b < 40 else None,
        lambda line, b, c: (b // 2 + 1) * 2,
    )
    dmg = final.map(lambda st: st[1])
    models = final.map(lambda st: st[1] // 2)
    return _die_to_dist(dmg), _die_to_dist(models)


# -- case (b) --------------------------------------------------------------------------------

CASE_B: dict[str, Any] = {
    "attacks": [
        {
            "models": 10,
            "weapon": {
                "name": "flamer",
                "kind": "ranged",
                "attacks": "D6",
                "skill": None,
                "strength": 4,
                "ap": 0,
                "damage": "1",
                "abilities": ["Torrent"],
            },
        }
    ],
    "target": {"models": 30, "toughness": 3, "save": 5, "wounds": 1},
}


def icepool_b() -> tuple[Dist, Dist]:
    attacks = 10 @ icepool.d6
    wound = ip_test(3).map(lambda r: 1 if r else 0)
    tokens = attacks.map(lambda n: n @ wound)
    loss = ip_loss(ip_save_fail(5, 0, None), icepool.Die([1]), None)
    state = tokens.map(lambda t: (t, 0, 0))
    final = ip_chain(
        state, 60, lambda b, c: (0, loss) if b < 30 else None, lambda line, b, c: b + 1
    )
    dmg = final.map(lambda st: st[1])
    return _die_to_dist(dmg), _die_to_dist(dmg)


# -- case (c) --------------------------------------------------------------------------------

CASE_C: dict[str, Any] = {
    "attacks": [
        {
            "models": 7,
            "weapon": {
                "name": "bolt rifle",
                "kind": "ranged",
                "attacks": "2",
                "skill": 3,
                "strength": 4,
                "ap": -1,
                "damage": "1",
                "abilities": ["Heavy"],
            },
        },
        {
            "models": 1,
            "weapon": {
                "name": "heavy bolter",
                "kind": "ranged",
                "attacks": "3",
                "skill": 4,
                "strength": 5,
                "ap": -1,
                "damage": "2",
                "abilities": ["Sustained Hits 1", "Heavy"],
            },
        },
        {
            "models": 1,
            "weapon": {
                "name": "plasma",
                "kind": "ranged",
                "attacks": "2",
                "skill": 3,
                "strength": 8,
                "ap": -3,
                "damage": "D3",
                "abilities": ["Hazardous"],
            },
        },
        {
            "models": 1,
            "weapon": {
                "name": "marksman rifle",
                "kind": "ranged",
                "attacks": "2",
                "skill": 2,
                "strength": 5,
                "ap": -2,
                "damage": "2",
                "abilities": ["Precision", "Lethal Hits"],
            },
        },
    ],
    "target": {
        "models": 9,
        "toughness": 4,
        "save": 3,
        "wounds": 2,
        "keywords": ["Infantry"],
        "groups": [
            {"name": "Sergeant", "models": 1, "wounds": 2, "save": 3},
            {
                "name": "Captain",
                "models": 1,
                "wounds": 5,
                "save": 3,
                "invulnerable_save": 4,
                "feel_no_pain": 5,
                "keywords": ["Character", "Infantry"],
            },
        ],
    },
    "situation": {"remained_stationary": True, "reroll_hits": "ones"},
}


def _per_attack(wound: icepool.Die, sus: int, lethal: bool) -> Callable[[int], object]:
    def per(r: int) -> object:
        if r == MISS:
            return 0
        if r == HIT:
            return wound
        return (1 if lethal else wound) + (sus @ wound if sus else 0)

    return per


def _loss_for(
    precision: bool, body: icepool.Die, char: icepool.Die, b_total: int, c_total: int
) -> Callable[[int, int], tuple[int, icepool.Die] | None]:
    def loss_for(b: int, c: int) -> tuple[int, icepool.Die] | None:
        if b < b_total and not (precision and c < c_total):
            return 0, body
        if c < c_total:
            return 1, char
        return None

    return loss_for


def _with_tokens(tokens: icepool.Die) -> Callable[[tuple[int, int, int]], object]:
    def start(st: tuple[int, int, int]) -> object:
        return tokens.map(lambda t: (t, st[1], st[2]))

    return start


def icepool_c() -> tuple[Dist, Dist]:
    b_total, c_total = 20, 5

    def ends(line: int, b: int, c: int) -> int:
        return (b // 2 + 1) * 2 if line == 0 else c_total

    state = icepool.Die([(0, 0, 0)])
    weapons = [
        # (models, A, BS, S, AP, damage die, sustained, lethal, precision, heavy)
        (7, 2, 3, 4, -1, icepool.Die([1]), 0, False, False, True),
        (1, 3, 4, 5, -1, icepool.Die([2]), 1, False, False, True),
        (1, 2, 3, 8, -3, icepool.d6.map(lambda u: (u + 1) // 2), 0, False, False, False),
        (1, 2, 2, 5, -2, icepool.Die([2]), 0, True, True, False),
    ]
    for models, a, bs, s, ap, dmg, sus, lethal, precision, heavy in weapons:
        hit = ip_test(bs, 1 if heavy else 0, "ones")
        need = 2 if s >= 8 else (3 if s > 4 else 4)
        wound = ip_test(need).map(lambda r: 1 if r else 0)

        tokens = (models * a) @ hit.map(_per_attack(wound, sus, lethal))
        body_loss = ip_loss(ip_save_fail(3, ap, None), dmg, None)
        char_loss = ip_loss(ip_save_fail(3, ap, 4), dmg, 5)
        loss_for = _loss_for(precision, body_loss, char_loss, b_total, c_total)
        t_max = max(tokens.outcomes())
        start = state.map(_with_tokens(tokens))
        state = ip_chain(start, t_max, loss_for, ends)
    dmg_die = state.map(lambda st: st[1] + st[2])
    models_die = state.map(lambda st: st[1] // 2 + (1 if st[2] >= c_total else 0))
    return _die_to_dist(dmg_die), _die_to_dist(models_die)


CASES: list[tuple[str, dict[str, Any], Callable[[], tuple[Dist, Dist]], str]] = [
    (
        "a) 20 models x 2 attacks, Sustained Hits 1 + Lethal Hits, D2 -> 20 x W2, FNP 5+",
        CASE_A,
        icepool_a,
        "distribution of wounds lost and of models destroyed",
    ),
    (
        "b) 10 models x D6 Torrent attacks -> 30 x W1",
        CASE_B,
        icepool_b,
        "distribution of wounds lost (= models destroyed, W1)",
    ),
    (
        "c) 4 weapons (Heavy, Sustained, D3 Hazardous, Precision + Lethal) -> 9 + sergeant "
        "+ attached Captain (4++, FNP 5+)",
        CASE_C,
        icepool_c,
        "distribution of wounds lost and of models destroyed (bodyguard + character lines)",
    ),
]


def main() -> int:
    print("Exact 10th-edition attack analysis: Auspex vs icepool", icepool.__version__)
    print("(median of several runs each, measured now; ratio = icepool time / Auspex time)\n")
    worst = float("inf")
    ok = True
    for title, raw, ice, compared in CASES:
        req: CombatRequest = request_from_dict(raw)
        ours_t, ours = _timed(functools.partial(analyze, req), 15)
        ice_t, ice_out = _timed(ice, 3)
        assert isinstance(ice_out, tuple)
        ice_dmg, ice_models = ice_out
        same = ours.damage == ice_dmg and ours.models_destroyed == ice_models  # type: ignore[attr-defined]
        ok = ok and same
        ratio = ice_t / ours_t
        worst = min(worst, ratio)
        mean = float(ours.damage.mean())  # type: ignore[attr-defined]
        print(title)
        print(f"  compared: {compared}; identical: {'yes' if same else 'NO'}")
        print(
            f"  auspex {ours_t * 1000:7.2f} ms   icepool {ice_t * 1000:8.1f} ms   "
            f"ratio {ratio:6.1f}x   (mean wounds lost {mean:.3f})\n"
        )
    print(f"smallest ratio: {worst:.1f}x; all identical: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
