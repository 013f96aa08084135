"""Benchmark of the PEN exact analysis against naive baselines measured in the same run.

Run: ``.venv/bin/python bench/bench_pen.py``. Each case prints our time, the baseline's time and
the ratio (baseline / ours), after checking that both give the same exact distribution.
Baselines: a naive Fraction-per-entry convolution (one dict of Fractions per step, no integer
weights, no caching) for shooting, melee and vehicles, and the brute-force enumerator of the
live path (every hand-given dice sequence) on a small case.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.errors import DiceExhausted
from app.engine.pen import analysis as pen_analysis
from app.engine.pen import attack as pen_attack
from app.engine.pen.analysis import analyze
from app.engine.pen.live import resolve
from app.engine.pen.names import parse_rules
from app.engine.pen.procedures import Dice, enumerate_outcomes
from app.engine.pen.profiles import (
    Armour,
    AttackRequest,
    Situation,
    Unit,
    Vehicle,
    VehicleType,
    Weapon,
    WeaponKind,
    WeaponType,
)
from app.engine.pen.vehicles import Penetration, VehicleState, damage_procedure
from app.engine.roller import Roller

FDict = dict[int, Fraction]
F = Fraction


def clear_caches() -> None:
    """Every run starts cold: no cached plan, enumeration or allocation."""
    for module in (pen_analysis, pen_attack):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()
    from app.engine.pen import allocation, rolls, vehicles, wounds

    for module in (allocation, rolls, vehicles, wounds):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()


def timed(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    best = math.inf
    result = None
    for _ in range(repeat):
        clear_caches()
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


# ------------------------------------------------------------------------- naive helpers
def convolve(a: FDict, b: FDict) -> FDict:
    out: FDict = {}
    for x, p in a.items():
        for y, q in b.items():
            out[x + y] = out.get(x + y, F(0)) + p * q
    return out


def binomial(n: int, p: Fraction) -> FDict:
    out: FDict = {0: F(1)}
    for _ in range(n):
        out = convolve(out, {0: 1 - p, 1: p})
    return out


def naive_casualties(attacks: int, p_wound: Fraction, fail: Fraction, models: int) -> FDict:
    """Models destroyed among ``models`` identical 1-W models: their saves are rolled together
    and each failed save removes one model, closest first [L1410] (ruling 14), so the dead are
    the failed saves, at most the models there are."""
    wounds = binomial(attacks, p_wound)
    out: FDict = {}
    for k, pk in wounds.items():
        for failed, pf in binomial(k, fail).items():
            dead = min(failed, models)
            out[dead] = out.get(dead, F(0)) + pk * pf
    return {k: v for k, v in out.items() if v}


def ld_pass(ld: int, malus: int) -> Fraction:
    ok = sum(
        1
        for a in range(1, 7)
        for b in range(1, 7)
        if (a == b == 1) or (not a == b == 6 and a + b <= ld - malus)
    )
    return F(ok, 36)


def caught(pursuer: int, fleeing: int) -> Fraction:
    return F(sum(1 for a in range(1, 7) for b in range(1, 7) if b + fleeing <= a + pursuer), 36)


# ------------------------------------------------------------------------- the cases
MARINE = Unit(
    models=10,
    ws=4,
    bs=4,
    strength=4,
    toughness=4,
    wounds=1,
    initiative=4,
    attacks=1,
    leadership=8,
    save=3,
)
GUARD = Unit(
    models=10,
    ws=3,
    bs=3,
    strength=3,
    toughness=3,
    wounds=1,
    initiative=3,
    attacks=1,
    leadership=7,
    save=5,
)


def shooting_case() -> tuple[str, Callable[[], Any], Callable[[], Any], Callable[[Any, Any], bool]]:
    # 20 bolter shots at half range (BS5: 2+) at 10 guardsmen in light cover (5+)
    request = AttackRequest(
        replace(MARINE, models=10),
        Weapon(type=WeaponType.RAPID_FIRE, strength=4, ap=5),
        replace(GUARD, models=10, cover_save=5),
        Situation(half_range=True),
    )

    def ours() -> Any:
        return dict(analyze(request).models_destroyed.items())

    def naive() -> Any:
        p = F(5, 6) * F(2, 3) * F(2, 3)  # hit 2+, cover 5+ fails, S4 vs T3 3+
        return naive_casualties(20, p, F(5, 6), 10)  # 5+ vs PA5 -> 6+ [L620]

    return "shooting: 20 bolter shots vs 10 guardsmen in cover", ours, naive, _same


def big_shooting_case() -> tuple[
    str, Callable[[], Any], Callable[[], Any], Callable[[Any, Any], bool]
]:
    # 30 boyz, 3 shots each at full BS2 (5+) vs 30 W1 models with a 6+ save (90 shots)
    shooter = Unit(models=30, bs=2)
    target = replace(GUARD, models=30, save=6, toughness=4)
    request = AttackRequest(
        shooter, Weapon(type=WeaponType.ASSAULT, shots=3, strength=4, ap=6), target, Situation()
    )

    def ours() -> Any:
        return dict(analyze(request).models_destroyed.items())

    def naive() -> Any:
        # hit 5+ (1/3), S4 vs T4 4+ (1/2), 6+ save vs PA6: ignored [L620]: always fails
        return naive_casualties(90, F(1, 3) * F(1, 2), F(1), 30)

    return "shooting: 90 shots vs 30 models", ours, naive, _same


def melee_case() -> tuple[str, Callable[[], Any], Callable[[], Any], Callable[[Any, Any], bool]]:
    # 10 marines charge 10 guardsmen, equal I? No: I4 vs I3 -> marines strike first.
    request = AttackRequest(
        MARINE,
        Weapon(kind=WeaponKind.MELEE, type=WeaponType.MELEE, ap=5),
        GUARD,
        Situation(charged=True),
    )

    def ours() -> Any:
        combat = analyze(request).extra["combat_result"]
        assert isinstance(combat, dict)
        return (
            combat["p_attacker_wins"],
            combat["p_draw"],
            combat["p_defender_wins"],
            combat["expected_sweep_casualties"],
        )

    def naive() -> Any:
        # marines: 20 attacks, WS4 vs WS3 3+ [L1349], S4 vs T3 3+, 5+ save vs PA5 -> 6+
        c_t = naive_casualties(20, F(2, 3) * F(2, 3), F(5, 6), 10)
        win = draw = lose = sweep = F(0)
        for dead_t, p in c_t.items():
            # survivors strike back: WS3 vs WS4 4+, S3 vs T4 5+, 3+ save vs PA5 kept
            c_a = naive_casualties(10 - dead_t, F(1, 2) * F(1, 3), F(1, 3), 10)
            for dead_a, q in c_a.items():
                diff = dead_t - dead_a
                if diff == 0:
                    draw += p * q
                elif diff > 0:
                    win += p * q
                    left = 10 - dead_t
                    if left:
                        sweep += p * q * (1 - ld_pass(7, diff)) * caught(4, 3) * min(diff, left)
                else:
                    lose += p * q
                    left = 10 - dead_a
                    sweep += p * q * (1 - ld_pass(8, -diff)) * caught(3, 4) * min(-diff, left)
        return win, draw, lose, sweep

    return "melee: 10 v 10 charge with the combat result", ours, naive, _same


def vehicle_case() -> tuple[str, Callable[[], Any], Callable[[], Any], Callable[[Any, Any], bool]]:
    # 6 lascannon shots at a Land Raider (AV14, tank, 4 hull points), BS4 stationary
    raider = Vehicle(
        armour=Armour(14, 14, 14), hull_points=4, weapons=3, types=frozenset({VehicleType.TANK})
    )
    request = AttackRequest(
        replace(MARINE, models=6),
        Weapon(type=WeaponType.HEAVY, strength=9, ap=2),
        raider,
        Situation(stationary=True),
    )

    def ours() -> Any:
        return analyze(request).wipe_probability

    def naive() -> Any:
        plan = pen_attack.plan_attack(request)
        ctx = plan.damage
        assert ctx is not None

        def procedure(dice: Dice, state: VehicleState, kind: Penetration) -> VehicleState:
            assert ctx is not None
            return damage_procedure(dice, state, ctx, kind)

        hits = binomial(6, F(2, 3))
        kinds = {
            Penetration.NONE: F(4, 6),
            Penetration.GLANCING: F(1, 6),
            Penetration.PENETRATING: F(1, 6),
        }  # D6 + 9 vs 14: 5 glancing, 6 more
        states: dict[VehicleState, Fraction] = {VehicleState(weapons_left=3): F(1)}
        destroyed = F(0)
        for h in range(7):
            destroyed += hits.get(h, F(0)) * sum(
                (p for s, p in states.items() if s.destroyed), F(0)
            )
            nxt: dict[VehicleState, Fraction] = {}
            for st, p in states.items():
                for kind, pk in kinds.items():
                    if kind is Penetration.NONE or st.destroyed:
                        nxt[st] = nxt.get(st, F(0)) + p * pk
                        continue
                    outcomes = enumerate_outcomes(partial(procedure, state=st, kind=kind))
                    for st2, q in outcomes.items():
                        nxt[st2] = nxt.get(st2, F(0)) + p * pk * q
            states = nxt
        return destroyed

    return "vehicle: 6 lascannon shots vs a Land Raider", ours, naive, _same


def enumerator_case() -> tuple[
    str, Callable[[], Any], Callable[[], Any], Callable[[Any, Any], bool]
]:
    # 2 rending shots at 2 marines: the live path replayed over every dice sequence
    request = AttackRequest(
        replace(MARINE, models=1, bs=5),
        Weapon(
            type=WeaponType.ASSAULT,
            shots=2,
            strength=4,
            ap=5,
            properties=parse_rules(["Perforant"]),
        ),
        replace(MARINE, models=2, save=3),
        Situation(),
    )

    def ours() -> Any:
        return dict(analyze(request).models_destroyed.items())

    def brute() -> Any:
        faces: list[int] = []
        out: FDict = {}
        while True:
            try:
                result = resolve(request, Roller.from_values(faces))
            except DiceExhausted:
                faces.append(1)
                continue
            sides = [r.sides for r in result.dice for _ in range(2 if r.original else 1)]
            value = result.totals["models_destroyed"]
            out[value] = out.get(value, F(0)) + F(1, math.prod(sides))
            j = len(faces) - 1
            while j >= 0 and faces[j] == sides[j]:
                j -= 1
            if j < 0:
                return out
            faces[j] += 1
            del faces[j + 1 :]

    return "brute force: live path over every dice sequence", ours, brute, _same


def _same(a: Any, b: Any) -> bool:
    return bool(a == b)


def main() -> None:
    cases = [shooting_case(), big_shooting_case(), melee_case(), vehicle_case(), enumerator_case()]
    print(f"{'case':52} {'ours':>10} {'baseline':>10} {'ratio':>8}")
    ok = True
    for name, ours, baseline, same in cases:
        t_ours, r_ours = timed(ours)
        t_base, r_base = timed(baseline, repeat=1)
        agree = same(r_ours, r_base)
        ok &= agree
        print(
            f"{name:52} {t_ours * 1000:8.1f}ms {t_base * 1000:8.1f}ms "
            f"{t_base / t_ours:7.1f}x {'' if agree else 'MISMATCH'}"
        )
    if not ok:
        raise SystemExit("a baseline disagrees with the exact analysis")


if __name__ == "__main__":
    main()
