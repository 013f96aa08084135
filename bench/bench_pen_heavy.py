"""Benchmark: PEN attacks at the sizes of issue 18 (30 models, 270 shots) against the plain
computation they replaced, measured in the same run.

Run: ``.venv/bin/python bench/bench_pen_heavy.py``. For each case it times
:func:`app.engine.pen.analysis.analyze` (median of three cold runs) and the serialisation of
its answer, and the plain computation (a binomial per count of hits for every thinning, then
the even allocation per count of wounds to save, as before issue 18; for two save groups the
counts method the wound layers replaced, a Horner scheme over the models for every count,
then a distribution of the second allocation per (state, count) instead of the rounds, with
its bound lifted: the sequential squad states take minutes at these sizes, and
tests/engine/pen/test_wound_layers.py and test_second_by_rounds.py check both against them
on smaller squads) with its
check that the distributions of models destroyed and wounds lost are identical (the plain
one computes no stage distributions: the ratio flatters it). A refused case is also timed
with the work bounds lifted, against the plain computation (unbounded too) in the same run,
with the same check. Times are CPU seconds. Exits non-zero when a case (analysis +
serialisation) takes more than ``TARGET`` seconds, is refused, or differs.

Both the analysis and the plain two-group computation run on GMP integers (gmpy2) inside
:func:`two_allocations`; the "plain" column is therefore the older method, not the older
arithmetic (the bench prints the gmpy2 version it ran with).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.combat import to_jsonable
from app.engine.distributions import Dist
from app.engine.errors import ProfileError
from app.engine.pen import analysis as pen_analysis
from app.engine.pen.allocation import damage_of, initial_state, models_of, two_allocations
from app.engine.pen.attack import plan_attack
from app.engine.pen.names import parse_rules
from app.engine.pen.profiles import AttackRequest, Situation, Unit, Weapon, WeaponType

TARGET = 0.25
RENDING = parse_rules(["Rending"])


def shooting(wounds: int, save: int = 4, **target: int) -> AttackRequest:
    """30 models with 9 shots each (270 shots) into 30 models of ``wounds`` W."""
    return AttackRequest(
        Unit(models=30, bs=4),
        Weapon(type=WeaponType.ASSAULT, shots=9, strength=5, ap=5),
        Unit(models=30, toughness=4, wounds=wounds, save=save, **target),
        Situation(),
    )


def rending(
    attackers: int, models: int, wounds: int, invulnerable: int | None = None
) -> AttackRequest:
    """``attackers`` models with 9 Rending shots each into ``models`` of ``wounds`` W, Sv3."""
    return AttackRequest(
        Unit(models=attackers, bs=4),
        Weapon(type=WeaponType.ASSAULT, shots=9, strength=5, ap=4, properties=RENDING),
        Unit(models=models, toughness=4, wounds=wounds, save=3, invulnerable_save=invulnerable),
        Situation(),
    )


CASES = {
    "30 x 9 shots vs 30 x W1 Sv4": shooting(1),
    "30 x 9 shots vs 30 x W2 Sv4": shooting(2),
    "30 x 9 shots vs 30 x W3 Sv3 inv5 cover4": shooting(3, 3, invulnerable_save=5, cover_save=4),
    "30 x 9 shots vs 30 x W5 Sv4": shooting(5),
    "30 x 9 shots vs 30 x W10 Sv4 (refused before)": shooting(10),
    # Rending: two save groups, allocated one after the other [L1290]
    "30 x 9 rending shots vs 30 x W1 Sv3 (refused before)": AttackRequest(
        Unit(models=30, bs=4),
        Weapon(type=WeaponType.ASSAULT, shots=9, strength=5, ap=4, properties=RENDING),
        Unit(models=30, toughness=4, wounds=1, save=3),
        Situation(),
    ),
    "20 x 9 rending shots vs 20 x W2 Sv3 (refused before)": AttackRequest(
        Unit(models=20, bs=4),
        Weapon(type=WeaponType.ASSAULT, shots=9, strength=5, ap=4, properties=RENDING),
        Unit(models=20, toughness=4, wounds=2, save=3),
        Situation(),
    ),
    "30 x 9 rending shots vs 30 x W2 Sv3 (refused before)": AttackRequest(
        Unit(models=30, bs=4),
        Weapon(type=WeaponType.ASSAULT, shots=9, strength=5, ap=4, properties=RENDING),
        Unit(models=30, toughness=4, wounds=2, save=3),
        Situation(),
    ),
    "30 x 9 rending shots vs 10 x W3 Sv3 (refused before)": AttackRequest(
        Unit(models=30, bs=4),
        Weapon(type=WeaponType.ASSAULT, shots=9, strength=5, ap=4, properties=RENDING),
        Unit(models=10, toughness=4, wounds=3, save=3),
        Situation(),
    ),
    "30 x 9 rending shots vs one W10 model Sv3": rending(30, 1, 10),
    # Rending's PA2 wounds into an invulnerable save: a second group whose wound may be saved
    "30 x 9 rending shots vs one W10 model Sv3 inv5": rending(30, 1, 10, 5),
    "30 x 9 rending shots vs 10 x W3 Sv3 inv5": rending(30, 10, 3, 5),
    "20 x 9 rending shots vs 20 x W2 Sv3 inv5 (refused before)": rending(20, 20, 2, 5),
    "30 x 9 rending shots vs 30 x W2 Sv3 inv5": rending(30, 30, 2, 5),
    "20 x 9 rending shots vs 20 x W3 Sv3 (refused before)": rending(20, 20, 3),
    # answered since the wound layers run on the indexed simplex (app.engine.pen.simplex)
    "30 x 9 rending shots vs 20 x W3 Sv3 (refused before)": rending(30, 20, 3),
    # few hits on many multi-wound models: only the squads the first allocation can leave
    # are counted (pen rulings 43), not every squad of 30 models of 10 W
    "5 x 9 rending shots vs 30 x W5 Sv3 inv5 (refused before)": rending(5, 30, 5, 5),
    "5 x 9 rending shots vs 30 x W10 Sv3 inv5 (refused before)": rending(5, 30, 10, 5),
    # issue 18's full PEN scope, refused (30 x W3) or answered (10 x W4, since the refit of
    # analysis._sure_layers_work; about halved by the indexed simplex): the squad states the
    # two allocations follow grow as C(models + W, W) (5,456 for 30 x W3, 1,001 for 10 x W4);
    # the layers' additions on rows of about 90 x 1,160 bits (about 10^9 limb additions for
    # 30 x W3) are what remains, not Python's steps. The state is the
    # multiset of W left, not (models destroyed, W on the current model): after an even first
    # allocation several models are wounded at once, and the second allocation's extra wounds
    # go to the fewest W left first [L1396] (tests/engine/pen/test_heavy_exact.py); every
    # squad state meets every count of the second group's wounds, each an exact weight of
    # about 1,160 bits here
    "30 x 9 rending shots vs 30 x W3 Sv3": rending(30, 30, 3),
    "30 x 9 rending shots vs 10 x W4 Sv3": rending(30, 10, 4),
}


def clear_caches() -> None:
    from app.engine.pen import allocation, attack, rolls, vehicles, wounds

    for module in (pen_analysis, attack, allocation, rolls, vehicles, wounds):
        for value in vars(module).values():
            if hasattr(value, "cache_clear"):
                value.cache_clear()


def _old_allocation(models: int, wounds: int, k: int, loss: Dist) -> tuple[Dist, Dist]:
    """(models destroyed, wounds lost) when ``k`` wounds are spread evenly over an unhurt
    squad, computed from scratch for every ``k`` (as before issue 18)."""
    if wounds == 1:
        destroyed = Dist.binomial(k, 1 - loss.prob(0)).map(lambda n: min(n, models))
        return destroyed, destroyed
    q, r = divmod(k, models)
    destroyed = lost = Dist.constant(0)
    for received, count in ((q + 1, r), (q, models - r)):
        if count:
            after = loss.repeat(received).map(lambda s: min(s, wounds))
            destroyed = destroyed + Dist.binomial(count, after.prob(wounds))
            lost = lost + after.repeat(count)
    return destroyed, lost


def _per_count(d: Dist, p: Fraction) -> Dist:
    return d if p == 1 else d.bind(lambda n: Dist.binomial(n, p))


def plain(req: AttackRequest) -> tuple[Dist, Dist]:
    """(models destroyed, wounds lost): a binomial per count, an even allocation per count."""
    plan = plan_attack(req)
    target = req.target
    assert isinstance(target, Unit)
    hits = pen_analysis.hits_distribution(plan.hit)
    through = _per_count(hits, pen_analysis._cover_pass(plan.cover))
    groups = pen_analysis.save_groups(plan)
    if len(groups) == 2 and target.wounds > 1:  # the counts method, bound lifted
        first, second = ((g.probability, g.loss) for g in groups)
        return two_allocations(
            target.models, target.wounds, through, first, second, layers=False, rounds=False
        )
    if len(groups) > 1:  # the sequential allocations, bound lifted (as before issue 18)
        final, _ = pen_analysis._sequential_allocations(
            initial_state(target.models, target.wounds), through, groups
        )
        destroyed: dict[int, int] = {}
        lost: dict[int, int] = {}
        for state, weight in final.items():
            d = target.models - models_of(state)
            w = damage_of(state, target.models, target.wounds)
            destroyed[d] = destroyed.get(d, 0) + weight
            lost[w] = lost.get(w, 0) + weight
        return Dist.from_weights(destroyed), Dist.from_weights(lost)
    (group,) = groups
    saves = _per_count(through, group.probability)
    return (
        saves.bind(lambda k: _old_allocation(target.models, target.wounds, k, group.loss)[0]),
        saves.bind(lambda k: _old_allocation(target.models, target.wounds, k, group.loss)[1]),
    )


def _unbounded(req: AttackRequest) -> tuple[float, tuple[Dist, Dist]]:
    """CPU seconds and (models destroyed, wounds lost) of the exact analysis of a refused
    case with the work bounds lifted."""
    bounds = pen_analysis.MAX_TWO_GROUP_WORK, pen_analysis.MAX_SEQUENTIAL_WORK
    pen_analysis.MAX_TWO_GROUP_WORK = pen_analysis.MAX_SEQUENTIAL_WORK = 10**18
    layers = pen_analysis.MAX_LAYERS_WORK
    pen_analysis.MAX_LAYERS_WORK = 10**18
    try:
        clear_caches()
        start = time.process_time()
        result = pen_analysis.analyze(req)
        return time.process_time() - start, (result.models_destroyed, result.damage)
    finally:
        pen_analysis.MAX_TWO_GROUP_WORK, pen_analysis.MAX_SEQUENTIAL_WORK = bounds
        pen_analysis.MAX_LAYERS_WORK = layers
        clear_caches()


def main() -> int:
    import gmpy2

    print(f"gmpy2 {gmpy2.version()}, {gmpy2.mp_version()}")
    print("load average (1, 5, 15 min) at the start: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    print(f"{'case':<52} {'ours':>8} {'+ json':>8} {'plain':>10} {'ratio':>8}")
    bad = False
    for name, req in CASES.items():
        times = []
        try:
            for _ in range(3):
                clear_caches()
                start = time.process_time()
                ours = pen_analysis.analyze(req)
                times.append(time.process_time() - start)
        except ProfileError as err:
            # refused: the exact analysis with the bound lifted, against the plain computation
            # (also unbounded) in the same run, so the honest limit is measured, not assumed
            print(f"{name:<52} {'refused':>8}  ({err.message[:70]}...)")
            lifted, answer = _unbounded(req)
            clear_caches()
            start = time.process_time()
            old = plain(req)
            base = time.process_time() - start
            same = "" if old == answer else "  DISTRIBUTIONS DIFFER"
            print(
                f"{'  bound lifted: exact / plain':<52} {lifted * 1000:5.0f} ms {'':>8} "
                f"{base * 1000:7.0f} ms {base / lifted:7.1f}x{same}"
            )
            bad = True
            continue
        mine = statistics.median(times)
        start = time.process_time()
        to_jsonable(ours)
        json = time.process_time() - start
        clear_caches()
        start = time.process_time()
        old = plain(req)
        base = time.process_time() - start
        if old != (ours.models_destroyed, ours.damage):
            print(f"{name}: DISTRIBUTIONS DIFFER")
            bad = True
        over = mine + json > TARGET
        bad = bad or over
        flag = f"  over {TARGET * 1000:.0f} ms" if over else ""
        print(
            f"{name:<52} {mine * 1000:5.0f} ms {json * 1000:5.0f} ms {base * 1000:7.0f} ms "
            f"{base / mine:7.1f}x{flag}"
        )
    print("load average (1, 5, 15 min) at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
