"""Exact analysis of a PEN attack: shooting, close combat (with the combat result), vehicles.

Every per-die step comes from :mod:`app.engine.pen.attack` (the plan) and is enumerated with
:func:`~app.engine.pen.procedures.enumerate_outcomes`; counts are combined as exact
:class:`~app.engine.distributions.Dist`; wound allocation runs on squad states
(:mod:`app.engine.pen.allocation`); vehicles on :class:`~app.engine.pen.vehicles.VehicleState`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cache, lru_cache

from app.engine.combat import CombatAnalysis, ExtraValue
from app.engine.distributions import Dist
from app.engine.errors import N_, Message, ProfileError
from app.engine.pen import rolls
from app.engine.pen.allocation import (
    State,
    allocate_exact,
    damage_of,
    initial_state,
    mix,
    models_of,
    two_allocations,
)
from app.engine.pen.attack import (
    AttackPlan,
    HitPlan,
    area_procedure,
    counter_request,
    hit_procedure,
    melee_initiatives,
    plan_attack,
)
from app.engine.pen.codes import RollCode
from app.engine.pen.names import Rule
from app.engine.pen.procedures import enumerate_outcomes
from app.engine.pen.profiles import AttackRequest, Unit, Vehicle
from app.engine.pen.simplex import MAX_SIMPLEX, simplex_size
from app.engine.pen.tables import DamageResult
from app.engine.pen.vehicles import (
    Penetration,
    VehicleState,
    core_transitions,
    penetration_outcomes,
    reads_of,
)
from app.engine.pen.wounds import (
    LossPlan,
    loss_outcomes,
    save_order_key,
    wound_outcomes,
)

__all__ = ["InfantryResult", "analyze", "hits_distribution", "save_groups"]

ZERO = Fraction(0)


# ------------------------------------------------------------------------------------------
# hits
# ------------------------------------------------------------------------------------------


@cache
def _per_attack_hits(plan: HitPlan) -> Dist:
    return Dist.from_probs(enumerate_outcomes(lambda dice: hit_procedure(dice, plan)))


@cache
def _area_attacks(cap: int) -> Dist:
    return Dist.from_probs(enumerate_outcomes(lambda dice: area_procedure(dice, cap)))


def attacks_distribution(plan: HitPlan) -> Dist:
    """Shots / attacks rolled (Attaques de zone add min(D6, cap) per model [L370])."""
    attacks = Dist.constant(plan.attacks)
    if plan.area_models:
        attacks = attacks + _area_attacks(plan.area_cap).repeat(plan.area_models)
    return attacks


def hits_distribution(plan: HitPlan) -> Dist:
    per_attack = _per_attack_hits(plan)
    return attacks_distribution(plan).bind(per_attack.repeat)


def _thin(counts: Dist, p: Fraction) -> Dist:
    """Each of ``counts`` items survives independently with probability ``p``."""
    return counts.thin(p)


def _cover_pass(cover: int | None) -> Fraction:
    """P(a hit gets through the cover save) [L1365]."""
    if cover is None:
        return Fraction(1)
    return 1 - RollCode(cover).probability()


# ------------------------------------------------------------------------------------------
# infantry (and monstrous creatures)
# ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SaveGroup:
    """Wounds saved the same way: allocated together [L1290]."""

    save: RollCode | None
    probability: Fraction  # P(a hit becomes a wound of this group)
    loss: Dist  # W taken off by one allocated wound of this group


def save_groups(plan: AttackPlan) -> list[SaveGroup]:
    """The save groups of one attack, the better-saved group first (pen rulings)."""
    assert plan.wound is not None
    outcomes = wound_outcomes(plan.wound)
    by_save: dict[RollCode | None, list[tuple[Fraction, LossPlan]]] = {}
    for wound, p in outcomes.items():
        if wound is None or p == 0:
            continue
        loss_plan = plan.losses[wound]
        by_save.setdefault(loss_plan.save, []).append((p, loss_plan))
    groups: list[SaveGroup] = []
    for save, parts in by_save.items():
        total = sum((p for p, _ in parts), ZERO)
        loss = Dist.mixture((p / total, Dist.from_probs(loss_outcomes(lp))) for p, lp in parts)
        groups.append(SaveGroup(save, total, loss))
    groups.sort(key=lambda g: save_order_key(g.save))
    return groups


@dataclass(frozen=True, slots=True)
class InfantryResult:
    """Exact outcome of an attack on a squad of identical models."""

    destroyed: Dist  # models removed
    lost: Dist  # wounds lost
    stages: Mapping[str, Dist]
    models: int
    wounds: int

    def models_destroyed(self) -> Dist:
        return self.destroyed

    def damage(self) -> Dist:
        return self.lost


def _from_pairs(pairs: Iterable[tuple[int, Fraction]]) -> Dist:
    """A Dist from (value, probability) pairs, values possibly repeated."""
    merged: dict[int, Fraction] = {}
    for k, p in pairs:
        merged[k] = merged.get(k, ZERO) + p
    return Dist.from_probs(merged)


def _allocate_mixture(
    state: State, counts: Dist, loss: Dist, weight: int, total: int
) -> list[tuple[State, int, int]]:
    """Terms (state after, numerator, denominator) of allocating ``counts`` wounds."""
    terms: list[tuple[State, int, int]] = []
    for k, wk in counts.weights().items():
        after, t = allocate_exact(state, k, loss)
        for st, a in after:
            terms.append((st, weight * wk * a, total * counts.total * t))
    return terms


@lru_cache(maxsize=256)
def infantry_exact(request: AttackRequest) -> InfantryResult:
    """Exact final squad state and stage distributions of an attack on a non-vehicle squad."""
    plan = plan_attack(request)
    target = request.target
    assert isinstance(target, Unit)
    start = initial_state(target.models, target.wounds)
    attacks = attacks_distribution(plan.hit)
    hits = hits_distribution(plan.hit)
    stages: dict[str, Dist] = {"attacks": attacks, "hits": hits}
    through = _thin(hits, _cover_pass(plan.cover))
    if plan.cover is not None:
        stages["hits_after_cover"] = through
    if plan.wound is None:
        stages["wounds"] = Dist.constant(0)
        return _untouched(target, stages)
    outcomes = wound_outcomes(plan.wound)
    p_wound = sum((p for w, p in outcomes.items() if w is not None), ZERO)
    p_mortelle = sum((p for w, p in outcomes.items() if w is not None and w.mortelle), ZERO)
    stages["wounds"] = _thin(through, p_wound)
    if p_mortelle:
        stages["mortelle_wounds"] = _thin(through, p_mortelle)
    p_fail = ZERO
    p_lose = ZERO
    for wound, p in outcomes.items():
        if wound is None:
            continue
        lp = plan.losses[wound]
        fail = Fraction(1) if lp.save is None else 1 - lp.save.probability()
        p_fail += p * fail
        p_lose += p * (1 - loss_outcomes(lp).get(0, ZERO))
    stages["failed_saves"] = _thin(through, p_fail)
    if any(lp.fnp is not None for lp in plan.losses.values()):
        stages["wounds_after_feel_no_pain"] = _thin(through, p_lose)
    groups = save_groups(plan)
    if not groups:
        return _untouched(target, stages)
    if target.wounds == 1:
        # Saves rolled together, each loss removes a model [L1410] (pen rulings 14), whichever
        # allocation its wound is in [L1290]: the models removed are the losses, at most the
        # squad, so every save group together is one thinning of the hits.
        p_loss = sum((g.probability * (1 - g.loss.prob(0)) for g in groups), ZERO)
        destroyed = _thin(through, p_loss).map(lambda n: min(n, target.models))
        return InfantryResult(destroyed, destroyed, stages, target.models, target.wounds)
    if target.models == 1 and len(groups) > 1:
        # one model takes every wound of every allocation, one after the other [L1290]:
        # what it loses is the sum of each hit's loss, capped at its W
        lost = _one_model(through, groups, target.wounds)
        destroyed = lost.map(lambda w: int(w == target.wounds))
        return InfantryResult(destroyed, lost, stages, target.models, target.wounds)
    if len(groups) == 1:
        counts = _thin(through, groups[0].probability)
        _check_even_size(through, target)
        destroyed = counts.bind(
            lambda k: _one_allocation(target.models, target.wounds, k, groups[0].loss)[0]
        )
        lost = counts.bind(
            lambda k: _one_allocation(target.models, target.wounds, k, groups[0].loss)[1]
        )
        return InfantryResult(destroyed, lost, stages, target.models, target.wounds)
    if len(groups) == 2:
        # two allocations [L1290] (Rending, Perforant): counts of both groups, not states;
        # at least every attack the sequential states answered within their bound
        # by wound layers when the first group's wound takes at most one W and that is the
        # cheaper method (one model of many W: the counts are)
        layers, within = _two_group_method(through.max, target.models, target.wounds, groups)
        if not within:
            _check_size(plan, through, groups)
        first, second = ((g.probability, g.loss) for g in groups)
        destroyed, lost = two_allocations(
            target.models, target.wounds, through, first, second, layers=layers
        )
        return InfantryResult(destroyed, lost, stages, target.models, target.wounds)
    _check_size(plan, through, groups)
    final, _total = _sequential_allocations(start, through, groups)
    return InfantryResult(
        Dist.from_weights(_tally(final, lambda st: target.models - models_of(st))),
        Dist.from_weights(_tally(final, lambda st: damage_of(st, target.models, target.wounds))),
        stages,
        target.models,
        target.wounds,
    )


def _one_model(through: Dist, groups: list[SaveGroup], wounds: int) -> Dist:
    """W lost by a squad of one model when each of ``through`` hits becomes a wound of one of
    the ``groups`` (or none): the model receives every wound of every allocation [L1396],
    [L1290], so the order does not matter; the sum of the losses, capped at ``wounds``
    [L1411]. Horner's scheme over the hits on the ``wounds + 1`` values, integers over the
    hits' total times the per-hit total to the most hits."""
    rest = 1 - sum((g.probability for g in groups), ZERO)
    per_hit = Dist.mixture([(rest, Dist.constant(0)), *((g.probability, g.loss) for g in groups)])
    lo, weights, t = per_hit.dense()
    steps = [(lo + d, w) for d, w in enumerate(weights) if w]
    h_lo, h, _total = through.dense()
    n_max = h_lo + len(h) - 1
    acc = [0] * (wounds + 1)
    for n in range(n_max, -1, -1):
        if any(acc):
            nxt = [0] * (wounds + 1)
            for i, x in enumerate(acc):
                if x:
                    for d, w in steps:
                        nxt[min(wounds, i + d)] += x * w
            acc = nxt
        if n >= h_lo and h[n - h_lo]:
            acc[0] += h[n - h_lo] * t ** (n_max - n)
    return Dist.from_weights({k: x for k, x in enumerate(acc) if x})


def _untouched(target: Unit, stages: Mapping[str, Dist]) -> InfantryResult:
    zero = Dist.constant(0)
    return InfantryResult(zero, zero, stages, target.models, target.wounds)


def _tally(final: Mapping[State, int], value: Callable[[State], int]) -> dict[int, int]:
    out: dict[int, int] = {}
    for st, w in final.items():
        k = value(st)
        out[k] = out.get(k, 0) + w
    return out


@lru_cache(maxsize=8192)
def _one_allocation(models: int, wounds: int, k: int, loss: Dist) -> tuple[Dist, Dist]:
    """(models destroyed, wounds lost) when ``k`` wounds are spread over an unhurt squad.

    Given the allocation, models are independent [L1396], [L1407]: the ``k % models`` models
    with one wound more, and the others. One-W models roll their saves together instead and
    each failed save removes a model, up to the squad [L1410] (pen rulings 14).
    """
    if wounds == 1:
        destroyed = Dist.binomial(k, 1 - loss.prob(0)).map(lambda n: min(n, models))
        return destroyed, destroyed
    q, r = divmod(k, models)
    destroyed = Dist.constant(0)
    lost = Dist.constant(0)
    for received, count in ((q + 1, r), (q, models - r)):
        if not count:
            continue
        d, lo = _models_alike(wounds, received, count, loss)
        destroyed = destroyed + d
        lost = lost + lo
    return destroyed, lost


@lru_cache(maxsize=8192)
def _models_alike(wounds: int, received: int, count: int, loss: Dist) -> tuple[Dist, Dist]:
    """(models destroyed, wounds lost) of ``count`` unhurt models receiving ``received``
    wounds each: shared by the counts of wounds whose even spread gives the same pair."""
    after = _after_wounds(wounds, received, loss)
    return Dist.binomial(count, after.prob(wounds)), after.repeat(count)


@lru_cache(maxsize=4096)
def _after_wounds(wounds: int, received: int, loss: Dist) -> Dist:
    """Wounds one model of ``wounds`` W loses from ``received`` wounds (at most its W)."""
    return loss.repeat(received).map(lambda s: min(s, wounds))


MAX_SEQUENTIAL_WORK = 600_000
# One even allocation mixes a (models destroyed, wounds lost) pair per possible count of failed
# saves: the work grows as hits x models x wounds. With the models of one even spread shared
# between counts (_models_alike), the largest request the profile bounds allow (301 counts x
# 50 models x 10 W) takes about 0.2 s here (issue 18): the bound only guards those bounds.
MAX_EVEN_WORK = 301 * 50 * 10


def _check_even_size(through: Dist, target: Unit) -> None:
    """Refuse an even allocation too large to answer well within a second (bounded work)."""
    work = (through.max + 1) * target.models * target.wounds
    if work > MAX_EVEN_WORK:
        raise ProfileError(
            "target.models",
            N_(
                "too large for an exact analysis (%(models)s models of %(wounds)s W "
                "taking up to %(hits)s hits); analyse fewer shots or models at a time"
            ),
            models=target.models,
            wounds=target.wounds,
            hits=through.max,
        )


MAX_TWO_GROUP_WORK = 6_500_000
# Two allocations (two_allocations): every squad state left by the first allocation meets every
# pair (wounds of the first group, of the second), then every (state, wounds of the second
# group) spreads those over the models, with integers growing with the hits: up to 0.07 us
# a unit here. Measured (CPU, h6b: the first allocation by Horner's scheme over the models,
# a sure second group as one outcome per count): 15 x W2 under 135 Rending hits 0.05 s,
# 20 x W2 under 180 0.19 s, 10 x W3 under 90 0.05 s, one W5 model (invulnerable 5+) under
# 300 0.34-0.5 s; refused: 8 x W5 (invulnerable 5+) under 72 1.6 s, 30 x W2 under 270
# 1.4 s, 20 x W3 under 180 1.6 s. Since the wound layers (MAX_LAYERS_WORK below) this
# counts method only answers what it does more cheaply (one model of many W, a first group
# whose wound can take two W); 30 x W2 under 270 Rending hits goes by layers (0.2-0.3 s).
# The bound keeps every accepted request under about 0.5 s (issue 18, ADR 0005); an attack
# beyond it that the sequential states' own bound accepts (accepted before) is answered too
# (one W3 model or two under 300 hits: 0.36 s; 1.6 s by the sequential states).


MAX_LAYERS_WORK = 450_000_000
# Two allocations by wound layers (two_allocations with ``layers``, a first group whose wound
# takes at most one W): ``hits / models`` applications of "one more wound on every model" to
# every squad state, each a shear per level along lines of up to ``models`` states, on rows of
# ``width`` counts of the second group of about ``hits`` bits each; then the second allocation
# from every (state, count): one outcome when every second-group wound takes the same W,
# otherwise a distribution per pair. Units are about a nanosecond of CPU here, refitted on
# GMP integers and integer state keys (the layers' term halved; estimated / measured: 30 x W2
# under 270 Rending hits 0.15 / 0.18 s; 20 x W3 under 180 0.41 / 0.39 s, refused before;
# 22 x W2 with an invulnerable 5+ under 198 0.30 / 0.23 s; 8 x W3 invulnerable 5+ under 270
# 0.33 / 0.45 s; refused: 30 x W2 invulnerable 5+ under 270 1.08 / 0.8 s; 22 x W3 under 198,
# 0.66 / 0.51 s, answered since the refit of _sure_layers_work: 0.30 / 0.25 s), so the bound
# keeps every request it accepts under about 0.45 s (issue 18). The cheaper method by these
# estimates is used (one unit of the counts method, below, is about COUNTS_UNIT_NS
# nanoseconds here): a request the counts method's own bound accepts is never refused.
COUNTS_UNIT_NS = 25


def _first_states(hits: int, models: int, wounds: int, most: int) -> int:
    """How many squad states the first allocation of at most ``hits`` wounds can leave on an
    unhurt squad, a wound taking at most ``most`` W (an upper bound).

    ``k = q * models + r`` wounds give ``q + 1`` to ``r`` models and ``q`` to the others
    [L1396], so with ``Q, R = divmod(hits, models)`` every model has lost at most ``D(Q)``
    W (``D(m) = min(W, most * m)``), except at most ``R`` of them, which lost at most
    ``D(Q + 1)``: the squads of ``models`` damages up to ``D(Q)``, and those with ``j``
    models (1 to ``R``) past it."""
    q, r = divmod(hits, models)
    low = min(wounds, most * q)
    extra = min(wounds, most * (q + 1)) - low
    count = math.comb(models + low, low)
    if extra:
        for j in range(1, r + 1):
            count += math.comb(models - j + low, low) * math.comb(j + extra - 1, j)
    return count


def _layers_work(hits: int, models: int, wounds: int, second: Dist) -> int:
    """Work units (about a nanosecond each) of :func:`two_allocations` by wound layers (a
    first-group wound takes at most one W).

    The squad states are those the first allocation can leave (:func:`_first_states`): far
    fewer than every squad when the hits are few for the models' W (measured, CPU, with the
    bound lifted: 30 x W5 under 45 Rending hits 7 ms, with an invulnerable save 35 ms; 20 x
    W4 under 45 hits 15 / 80 ms; 10 x W5 under 45 hits 37 / 173 ms; 30 x W4 under 90 hits
    153 ms, refused by this estimate (0.96 s), answered by :func:`_sure_layers_work`, which
    every second group whose wound takes exactly one W uses on the squads it was fitted on)."""
    states = _first_states(hits, models, wounds, 1)
    width = min(hits, models * wounds) + 1 if second.min >= 1 else hits + 1
    if second.min == second.max == 1 and models >= SURE_FIT_MODELS and wounds <= SURE_FIT_W:
        return _sure_layers_work(hits, models, wounds, states, width)
    layers = (hits // models) * wounds * states * (1500 + (models // 3 + 1) * width * hits // 16)
    if second.min == second.max:  # the second allocation: one outcome per (state, count)
        return layers + states * width * 1000
    return layers + _rounds_work(hits, models, wounds, second, states)


# The shapes the estimate below was fitted on (pen-heavy, issue 18): squads of 5 to 30 models
# of 2 to 4 W; elsewhere the older estimate stands.
SURE_FIT_MODELS = 5
SURE_FIT_W = 4


def _sure_layers_work(hits: int, models: int, wounds: int, states: int, width: int) -> int:
    """Nanoseconds (about, here) of :func:`two_allocations` by wound layers when every
    second-group wound takes exactly one W (Rending or PA2 wounds with no save left, no Feel
    No Pain): ``hits // models`` applications of "one more wound on every model", each
    ``wounds`` shears over every squad state (a Python step per state and level, then
    additions along lines of about ``models / (wounds + 1)`` states, on rows of ``width``
    counts of about ``hits`` bits each), then one outcome per (state, count), and the joint
    counts (``hits ** 2``).

    Fitted (least squares on the relative error, then scaled so that no case measured at
    100 ms or more is estimated below 1.15 times its time) on 64 Rending attacks into Sv3
    squads of 5 to 30 models of 2 to 4 W under 45 to 270 hits, CPU with the bound lifted
    under a load of 13 to 19 on 2 cores: estimated / measured 1.15 to 1.9 from 150 ms on (the
    older estimate: up to 7.5, 30 x W4 under 90 hits 0.96 s for 0.13 s, and 0.14 for small
    squads). Answered now within the same line (MAX_LAYERS_WORK): 30 x W3 under 90 hits
    (0.13 s), 30 x W4 under 90 (0.13 s), 15 x W4 under 90 (0.18 s), 10 x W4 under 270
    (0.35 s); still refused: 30 x W3 under 135 hits (0.34 s measured, estimated 0.49 s) and
    more."""
    steps = (hits // models) * wounds * states
    adds = steps * (models + wounds + 1) * width * hits * 560 // ((wounds + 1) * 10_000)
    layers = steps * 1700 + adds
    if hits >= SIMPLEX_LAYERS * models and simplex_size(models, wounds) <= MAX_SIMPLEX:
        layers = layers * 3 // 4  # the indexed simplex (see SIMPLEX_LAYERS)
    return layers + 700 * (hits + 1) ** 2


# The wound layers on the indexed simplex (app.engine.pen.simplex: shears in place, GMP
# masks and powers) took 0.50 to 0.73 of the dictionary path's CPU on every sure attack of
# SIMPLEX_LAYERS layers or more measured in the same minutes (30 x 9 Rending shots into
# 30 x W3 0.59, into 20 x W3 0.55, into 10 x W4 0.50, into 15 x W3 0.58; 20 x 9 into 30 x
# W3 0.73, into 25 x W3 0.71, into 15 x W4 0.62; load 18 to 24 on 2 cores), so their
# estimate is three quarters of the fit above: still at least 1.15 times the time. Fewer
# layers gain less (90 hits into 20 x W4: 0.95; the simplex is built once per squad size).
SIMPLEX_LAYERS = 6


def _by_rounds(second: Dist) -> bool:
    """Whether :func:`two_allocations` allocates this second group by rounds
    (:func:`~app.engine.pen.allocation._second_by_rounds`): its wound takes one W or none."""
    return second.min == 0 and second.max == 1


def _rounds_work(hits: int, models: int, wounds: int, second: Dist, states: int) -> int:
    """Nanoseconds (about, here) of the second allocation of :func:`two_allocations` from every
    (state, count): by rounds when :func:`_by_rounds`, otherwise a distribution per pair.

    By rounds: the partial rounds of every state and count (their work grows with the models
    of the state), and Horner's steps over the rounds on every state (fitted, CPU, on 30 x W2
    under 270 Rending hits into an invulnerable save: 0.8 s estimated, 0.5 s measured; 15 x W3
    under 135: 0.5 / 0.4 s; 20 x W2 under 180: 0.19 / 0.12 s; one W10 model under 270: 0.02 /
    0.02 s; 5 x W4 under 270: 0.13 / 0.17 s). ``states``: the squad states the first
    allocation leaves, as its method counts them."""
    if _by_rounds(second):
        partial = 150 * states * (hits + 1) * min(models, hits + 1)
        steps = 800 * states * (hits // max(1, models // 2) + 1) * wounds
        return partial + steps
    width = min(hits, models * wounds) + 1 if second.min >= 1 else hits + 1
    return states * width * (hits + 1) * wounds * 120


def _two_group_work(hits: int, models: int, wounds: int, second: Dist) -> int:
    """Work units of :func:`two_allocations`; the states are those the first allocation can
    reach (at most ``hits`` models touched), and when every wound of the second group takes
    a W its counts from ``models x W`` on are one (a wipe). The second allocation by rounds
    is counted from :func:`_rounds_work` (``COUNTS_UNIT_NS`` nanoseconds a unit)."""
    states = math.comb(min(models, hits) + wounds, wounds)
    width = min(hits, models * wounds) + 1 if second.min >= 1 else hits + 1
    pairs = states * (hits + 1) * width
    if _by_rounds(second):
        rounds = _rounds_work(hits, models, wounds, second, states)
        return pairs * (hits + 1) // 100 + rounds // COUNTS_UNIT_NS
    return pairs * (hits + 1) // 100 + pairs * wounds * (hits + 1) // 200


def _two_group_method(
    hits: int, models: int, wounds: int, groups: Sequence[SaveGroup]
) -> tuple[bool, bool]:
    """(by wound layers, within that method's bound) for two save groups: the layers when
    the first group's wound takes at most one W and they are the cheaper method by the
    estimates (one model of many W: the counts are)."""
    first, second = groups
    counts_work = _two_group_work(hits, models, wounds, second.loss)
    by_layers = _layers_work(hits, models, wounds, second.loss)
    layers = first.loss.max <= 1 and by_layers < counts_work * COUNTS_UNIT_NS
    if layers:
        return True, by_layers <= MAX_LAYERS_WORK
    return False, counts_work <= MAX_TWO_GROUP_WORK


def _sequential_within(hits: int, models: int, wounds: int, groups: int) -> bool:
    """Whether the sequential squad states of ``groups`` allocations stay within their bound."""
    states = math.comb(models + wounds, wounds)
    work: int = states * (hits // 2 + 1) ** (groups - 1) * (hits + 1)
    return work <= MAX_SEQUENTIAL_WORK


def _accepted(hits: int, models: int, wounds: int, groups: Sequence[SaveGroup]) -> bool:
    """Whether :func:`infantry_exact` answers ``hits`` hits allocated in ``groups`` on
    ``models`` x ``wounds`` W: the method two groups use within its bound, or the sequential
    states within theirs."""
    if len(groups) == 2 and _two_group_method(hits, models, wounds, groups)[1]:
        return True
    return _sequential_within(hits, models, wounds, len(groups))


def _check_size(plan: AttackPlan, through: Dist, groups: Sequence[SaveGroup]) -> None:
    """Refuse the rare attacks too large for an exact analysis in several allocations (bounded
    work), saying what the exact analysis does answer: the most hits (as a number of the
    attacking models, whose hits add up) and the largest target squad (pen rulings 42)."""
    target = plan.request.target
    assert isinstance(target, Unit)
    hits, models, wounds = through.max, target.models, target.wounds
    if _accepted(hits, models, wounds, groups):
        return
    raise ProfileError("target.models", _too_large(plan, hits, groups))


def _too_large(plan: AttackPlan, hits: int, groups: Sequence[SaveGroup]) -> Message:
    """The refusal of :func:`_check_size`, with the largest attack answered exactly."""
    target = plan.request.target
    assert isinstance(target, Unit)
    models, wounds = target.models, target.wounds
    size_of = {"models": models, "wounds": wounds, "hits": hits, "groups": len(groups)}
    advice: list[Message] = []
    attackers = plan.request.attacker.models
    per_model = -(-hits // attackers)  # the hits of one attacking model (they add up)
    size = (models, wounds, groups)
    answered = (k for k in range(attackers - 1, 0, -1) if _accepted(k * per_model, *size))
    most = next(answered, 0)
    if most:
        advice.append(
            Message(
                N_("at most %(most)s of the %(attackers)s attacking models at a time"),
                {"most": most, "attackers": attackers},
            )
        )
    fewer = next((m for m in range(models - 1, 1, -1) if _accepted(hits, m, *size[1:])), 0)
    if fewer:
        advice.append(Message(N_("a target of at most %(fewer)s models"), {"fewer": fewer}))
    if not advice:
        return Message(
            N_(
                "too large for an exact analysis (%(models)s models of %(wounds)s W taking up "
                "to %(hits)s hits in %(groups)s separate allocations: wounds saved differently, "
                "such as Rending's AP2 ones, are allocated one after the other); analyse fewer "
                "shots or models at a time"
            ),
            size_of,
        )
    if len(advice) == 2:
        answer = Message(N_("%(first)s or %(second)s"), {"first": advice[0], "second": advice[1]})
    else:
        answer = advice[0]
    return Message(
        N_(
            "too large for an exact analysis (%(models)s models of %(wounds)s W taking up "
            "to %(hits)s hits in %(groups)s separate allocations: wounds saved differently, "
            "such as Rending's AP2 ones, are allocated one after the other); it is answered "
            "exactly with %(answer)s"
        ),
        {**size_of, "answer": answer},
    )


def _sequential_allocations(
    start: State, through: Dist, groups: list[SaveGroup]
) -> tuple[dict[State, int], int]:
    """Final squad states when the save groups are allocated one after the other [L1290]."""
    # (state, hits not yet used) -> weight, over ``total``; all groups but the last
    table: dict[tuple[State, int], int] = {(start, h): w for h, w in through.weights().items()}
    total = through.total
    remaining = Fraction(1)
    for group in groups[:-1]:
        q = group.probability / remaining
        terms: list[tuple[tuple[State, int], int, int]] = []
        for (state, m), w in table.items():
            split = _binomial(m, q)
            for k, bk in split.weights().items():
                after, t = allocate_exact(state, k, group.loss)
                for st, a in after:
                    terms.append(((st, m - k), w * bk * a, total * split.total * t))
        table, total = mix(terms)
        remaining -= group.probability
    # the last group: per state, the number of its wounds is a mixture of binomials
    last = groups[-1]
    q = last.probability / remaining
    by_state: dict[State, dict[int, int]] = {}
    for (state, m), w in table.items():
        by_state.setdefault(state, {})[m] = w
    final_terms: list[tuple[State, int, int]] = []
    for state, weights in by_state.items():
        left = Dist.from_weights(weights)
        state_weight = sum(weights.values())
        counts = left.bind(lambda m: _binomial(m, q))
        final_terms.extend(_allocate_mixture(state, counts, last.loss, state_weight, total))
    return mix(final_terms)


@lru_cache(maxsize=4096)
def _binomial(n: int, q: Fraction) -> Dist:
    if q >= 1:
        return Dist.constant(n)
    return Dist.binomial(n, q)


# ------------------------------------------------------------------------------------------
# close combat: strike order, combat result, sweeping advance (§4.4)
# ------------------------------------------------------------------------------------------


def _with_models(request: AttackRequest, models: int) -> AttackRequest:
    return replace(request, attacker=replace(request.attacker, models=models))


def _unharmed(request: AttackRequest) -> InfantryResult:
    target = request.target
    assert isinstance(target, Unit)
    zero = Dist.constant(0)
    return _untouched(target, {"attacks": zero, "hits": zero})


def _strike(request: AttackRequest, models: int) -> InfantryResult:
    if models <= 0:
        return _unharmed(request)
    return infantry_exact(_with_models(request, models))


def _counter_attack_bonus(request: AttackRequest) -> Fraction:
    """P(the charged squad gets +1 A from Contre-attaque: a passed Ld test) [L382-L384].

    Zero when it already has the charge bonus (``defender_charged``, pen rulings B26): the
    bonus is "as if it charged too", so it adds nothing on top."""
    t, s = request.target, request.situation
    if not (isinstance(t, Unit) and s.charged and t.has(Rule.COUNTER_ATTACK)):
        return ZERO
    if s.target_already_locked or s.defender_charged:
        return ZERO
    return rolls.ld_test(t.leadership)


def _counter_casualties(request: AttackRequest, strikers: int) -> InfantryResult | None:
    """The defender's ``strikers`` models striking back (None if it cannot be worked out)."""
    counter = counter_request(request, strikers)
    if counter is None:
        return None
    bonus = _counter_attack_bonus(request)
    base = infantry_exact(counter)
    if bonus == 0:
        return base
    boosted = infantry_exact(
        replace(counter, attacker=replace(counter.attacker, attacks=counter.attacker.attacks + 1))
    )
    return _mix_results([(1 - bonus, base), (bonus, boosted)])


def _can_strike_back(request: AttackRequest) -> bool:
    t = request.target
    return (
        request.melee
        and isinstance(t, Unit)
        and counter_request(request, t.models) is not None
        and t.attacks > 0
    )


def _mix_results(parts: list[tuple[Fraction, InfantryResult]]) -> InfantryResult:
    """The mixture of several results with weights summing to 1."""
    live = [(w, res) for w, res in parts if w]
    keys: list[str] = []
    for _w, res in live:
        keys.extend(k for k in res.stages if k not in keys)
    stages = {
        k: Dist.mixture((w, res.stages.get(k, Dist.constant(0))) for w, res in live) for k in keys
    }
    first = parts[0][1]
    return InfantryResult(
        Dist.mixture((w, res.destroyed) for w, res in live),
        Dist.mixture((w, res.lost) for w, res in live),
        stages,
        first.models,
        first.wounds,
    )


def melee_round(request: AttackRequest) -> tuple[InfantryResult, dict[str, ExtraValue]]:
    """The attacker's result in the strike order of the round, and the combat result.

    Models strike in Initiative order, casualties removed at the end of each step, equal I
    simultaneously [L1237-L1240]. The side that inflicted more casualties (models removed,
    note §8 item 53) wins [L1213]; the loser tests morale with the difference as a malus
    [L1252]; on a failure it retreats and the winner's sweeping advance (1D6 + I each, caught
    on <=) inflicts the difference again as extra casualties [L1258].
    """
    a, t = request.attacker, request.target
    assert isinstance(t, Unit)
    if not _can_strike_back(request):
        alone = infantry_exact(request)
        lonely = {(k, 0): p for k, p in alone.models_destroyed().items()}
        return alone, _combat_result(request, lonely, None, None, counter_known=False)
    att_i, def_i = melee_initiatives(request)
    joint: dict[tuple[int, int], Fraction] = {}
    if att_i > def_i:
        attack = infantry_exact(request)
        for lost, p in attack.models_destroyed().items():
            counter = _counter_casualties(request, t.models - lost)
            for c_a, q in _destroyed(counter):
                key = (lost, c_a)
                joint[key] = joint.get(key, ZERO) + p * q
        result = attack
    elif att_i < def_i:
        counter = _counter_casualties(request, t.models)
        parts: list[tuple[Fraction, InfantryResult]] = []
        for c_a, q in _destroyed(counter):
            strike = _strike(request, a.models - c_a)
            parts.append((q, strike))
            for lost, p in strike.models_destroyed().items():
                joint[(lost, c_a)] = joint.get((lost, c_a), ZERO) + p * q
        result = _mix_results(parts)
    else:
        attack = infantry_exact(request)
        counter = _counter_casualties(request, t.models)
        for lost, p in attack.models_destroyed().items():
            for c_a, q in _destroyed(counter):
                joint[(lost, c_a)] = joint.get((lost, c_a), ZERO) + p * q
        result = attack
    return result, _combat_result(request, joint, att_i, def_i, counter_known=True)


def _destroyed(result: InfantryResult | None) -> list[tuple[int, Fraction]]:
    if result is None:
        return [(0, Fraction(1))]
    return result.models_destroyed().items()


def _combat_result(
    request: AttackRequest,
    joint: Mapping[tuple[int, int], Fraction],
    att_i: int | None,
    def_i: int | None,
    *,
    counter_known: bool,
) -> dict[str, ExtraValue]:
    a, t = request.attacker, request.target
    assert isinstance(t, Unit)
    win = draw = lose = ZERO
    breaks = ZERO
    sweep: dict[int, Fraction] = {}
    sweep_defender: dict[int, Fraction] = {}
    sweep_attacker: dict[int, Fraction] = {}
    a_i = a.initiative or 1
    t_i = t.initiative or 1
    for (c_t, c_a), p in joint.items():
        diff = c_t - c_a
        extra = 0
        if diff == 0:
            draw += p
            sweep[0] = sweep.get(0, ZERO) + p
            sweep_defender[0] = sweep_defender.get(0, ZERO) + p
            sweep_attacker[0] = sweep_attacker.get(0, ZERO) + p
            continue
        if diff > 0:
            win += p
            loser, survivors, winner_i, loser_i = t, t.models - c_t, a_i, t_i
            winner_slow = a.has(Rule.SLOW_AND_PURPOSEFUL)
        else:
            lose += p
            loser, survivors, winner_i, loser_i = a, a.models - c_a, t_i, a_i
            winner_slow = t.has(Rule.SLOW_AND_PURPOSEFUL)
        gap = abs(diff)
        outcomes: dict[int, Fraction] = {0: Fraction(1)}
        if survivors > 0:
            passed = rolls.morale_test(
                loser.leadership,
                gap,
                fearless=loser.has(Rule.FEARLESS),
                stubborn=loser.has(Rule.STUBBORN),
            )
            breaks += p * (1 - passed)
            if not winner_slow and not loser.has(Rule.ATSKNF):
                caught = rolls.sweep_caught(winner_i, loser_i)
                extra = min(gap, survivors)
                swept = (1 - passed) * caught
                outcomes = {0: 1 - swept, extra: swept} if extra else {0: Fraction(1)}
        for k, q in outcomes.items():
            sweep[k] = sweep.get(k, ZERO) + p * q
            side = sweep_defender if diff > 0 else sweep_attacker
            other = sweep_attacker if diff > 0 else sweep_defender
            side[k] = side.get(k, ZERO) + p * q
            other[0] = other.get(0, ZERO) + p * q
    defender_casualties = _from_pairs((k[0], p) for k, p in joint.items())
    attacker_casualties = _from_pairs((k[1], p) for k, p in joint.items())
    sweep_dist = _from_pairs(sweep.items())
    section: dict[str, ExtraValue] = {
        "p_attacker_wins": win,
        "p_draw": draw,
        "p_defender_wins": lose,
        "p_loser_breaks": breaks,
        "defender_casualties": defender_casualties,
        "attacker_casualties": attacker_casualties,
        "sweep_casualties": sweep_dist,
        "sweep_casualties_on_defender": _from_pairs(sweep_defender.items()),
        "sweep_casualties_on_attacker": _from_pairs(sweep_attacker.items()),
        "expected_sweep_casualties": sweep_dist.mean(),
        "strike_back_modelled": counter_known,
    }
    if att_i is not None and def_i is not None:
        section["attacker_initiative"] = att_i
        section["defender_initiative"] = def_i
    return section


# ------------------------------------------------------------------------------------------
# vehicles (§5.8-§5.9)
# ------------------------------------------------------------------------------------------


def vehicle_initial_state(vehicle: Vehicle) -> VehicleState:
    return VehicleState(
        hull_points_lost=vehicle.hull_points_lost,
        damage_bonus=vehicle.damage_bonus,
        weapons_left=vehicle.weapons,
        weapons_damaged=vehicle.weapons_damaged,
        reduced_mobility=vehicle.reduced_mobility,
        immobilised=vehicle.immobilised,
        reads=reads_of(vehicle.results_this_turn),
    )


def damage_kind_probabilities(plan: AttackPlan) -> dict[Penetration, Fraction]:
    """P(no effect / glancing / penetrating) of one hit after the vehicle's invulnerable save."""
    assert plan.penetration is not None
    out = dict(penetration_outcomes(plan.penetration))
    if plan.vehicle_save is not None:
        saved = plan.vehicle_save.probability()  # "cancels the damage" [L1407]
        for kind in (Penetration.GLANCING, Penetration.PENETRATING):
            p = out.get(kind, ZERO)
            out[kind] = p * (1 - saved)
            out[Penetration.NONE] = out.get(Penetration.NONE, ZERO) + p * saved
    return out


MAX_VEHICLE_STATES = 20_000  # bounded work per request (CONVENTIONS: bounded inputs)
MAX_MASKED_STATES = 4_000  # P(at least once) of every result: only when this stays small
MAX_STATES_BEFORE_MASKS = 400

# (vehicle state without tally, mask of the results inflicted) -> integer weight
_Layer = dict[tuple[VehicleState, int], int]


@lru_cache(maxsize=4096)
def _mask(delta: tuple[int, ...]) -> int:
    return sum(1 << i for i, c in enumerate(delta) if c)


class _TooManyStates(Exception):
    pass


def _vehicle_layers(
    plan: AttackPlan, through: Dist, *, masks: bool, budget: int
) -> tuple[list[tuple[_Layer, int]], dict[Penetration, Fraction]]:
    """The vehicle after 0, 1, ... hits getting through: integer weights over a total.

    The key is (state, mask of the damage results inflicted so far: bit i for the i-th
    :class:`DamageResult`, or 0 without ``masks``). Transitions come from
    :func:`core_transitions` (the dice of one damage result, enumerated once per state).
    Raises :class:`_TooManyStates` past ``budget`` keys in one layer.
    """
    assert plan.damage is not None
    ctx = plan.damage
    vehicle = plan.request.target
    assert isinstance(vehicle, Vehicle)
    kinds = damage_kind_probabilities(plan)
    live_kinds = [(k, p) for k, p in kinds.items() if p and k is not Penetration.NONE]
    p_none = kinds.get(Penetration.NONE, ZERO)
    start = vehicle_initial_state(vehicle)
    layer: _Layer = {(start, 0): 1}
    total = 1
    layers = [(layer, total)]
    for h in range(through.max):
        terms: list[tuple[tuple[VehicleState, int], int, int]] = []
        for key, w in layer.items():
            core, count = key
            if core.destroyed:
                terms.append((key, w, total))
                continue
            if p_none:
                terms.append((key, w * p_none.numerator, total * p_none.denominator))
            for kind, pk in live_kinds:
                for core2, delta, num, den in core_transitions(core, ctx, kind):
                    seen = count | _mask(delta) if masks else 0
                    terms.append(
                        ((core2, seen), w * pk.numerator * num, total * pk.denominator * den)
                    )
        layer, total = mix(terms)
        if len(layer) > budget:
            raise _TooManyStates(h + 1)
        layers.append((layer, total))
    return layers, kinds


def _expected_results(
    plan: AttackPlan,
    layers: list[tuple[_Layer, int]],
    kinds: Mapping[Penetration, Fraction],
    through: Dist,
) -> list[Fraction]:
    """Expected number of each damage result (linearity: the (h+1)-th hit exists with
    probability P(hits > h), and the vehicle is then in the h-th layer)."""
    assert plan.damage is not None
    size = len(DamageResult)
    terms: list[tuple[int, int, int]] = []
    for h, (layer, total) in enumerate(layers[:-1]):
        beyond = through.p_more_than(h)
        if not beyond:
            continue
        for (core, _m), w in layer.items():
            if core.destroyed:
                continue
            for kind, pk in kinds.items():
                if kind is Penetration.NONE or not pk:
                    continue
                scale = beyond * pk
                for _core2, delta, num, den in core_transitions(core, plan.damage, kind):
                    for i, c in enumerate(delta):
                        if c:
                            terms.append(
                                (i, w * num * c * scale.numerator, total * den * scale.denominator)
                            )
    weights, total_all = mix(terms)
    return [Fraction(weights.get(i, 0), total_all) for i in range(size)]


def _mixed(
    layers: list[tuple[_Layer, int]], through: Dist, value: Callable[[VehicleState, int], int]
) -> Dist:
    """Distribution of ``value`` after a number of hits drawn from ``through``."""
    terms: list[tuple[int, int, int]] = []
    for h, wh in through.weights().items():
        layer, total = layers[h]
        for (core, count), w in layer.items():
            terms.append((value(core, count), wh * w, through.total * total))
    weights, _total = mix(terms)
    return Dist.from_weights(weights)


def _analyze_vehicle(plan: AttackPlan) -> CombatAnalysis:
    vehicle = plan.request.target
    assert isinstance(vehicle, Vehicle)
    attacks = attacks_distribution(plan.hit)
    hits = hits_distribution(plan.hit)
    through = _thin(hits, _cover_pass(plan.cover))
    stages: dict[str, Dist] = {"attacks": attacks, "hits": hits}
    if plan.cover is not None:
        stages["hits_after_cover"] = through
    try:
        layers, kinds = _vehicle_layers(plan, through, masks=False, budget=MAX_VEHICLE_STATES)
    except _TooManyStates as err:
        raise ProfileError(
            "attacker.models",
            N_(
                "too many possible vehicle states after %(hits)s hits for an exact "
                "analysis; analyse fewer shots at a time"
            ),
            hits=err.args[0],
        ) from None
    masked = False
    if max(len(layer) for layer, _t in layers) <= MAX_STATES_BEFORE_MASKS:
        try:
            layers, kinds = _vehicle_layers(plan, through, masks=True, budget=MAX_MASKED_STATES)
            masked = True
        except _TooManyStates:
            pass
    stages["glancing_hits"] = _thin(through, kinds.get(Penetration.GLANCING, ZERO))
    stages["penetrating_hits"] = _thin(through, kinds.get(Penetration.PENETRATING, ZERO))
    start = vehicle_initial_state(vehicle)
    hp_lost = _mixed(layers, through, lambda s, _m: s.hull_points_lost - start.hull_points_lost)
    destroyed = _mixed(layers, through, lambda s, _m: int(s.destroyed))
    immobilised = _mixed(layers, through, lambda s, _m: int(s.immobilised))
    weapon_lost = _mixed(layers, through, lambda s, _m: int(s.weapons_left < start.weapons_left))
    p_destroyed = destroyed.prob(1)
    expected = _expected_results(plan, layers, kinds, through)
    results: dict[str, ExtraValue] = {}
    for i, result in enumerate(DamageResult):
        if result is DamageResult.NO_EFFECT:
            continue
        entry: dict[str, ExtraValue] = {"expected": expected[i], "p_at_least_once": None}
        if masked:
            seen = _mixed(layers, through, lambda _s, m, i=i: (m >> i) & 1)  # type: ignore[misc]
            entry["p_at_least_once"] = seen.prob(1)
        results[result.value] = entry
    vehicle_section: dict[str, ExtraValue] = {
        "p_destroyed": p_destroyed,
        "p_exploded": _mixed(layers, through, lambda s, _m: int(s.exploded)).prob(1),
        "p_weapon_lost": weapon_lost.prob(1),
        "hull_points_lost": hp_lost,
        "results": results,
        "p_glancing_per_hit": kinds.get(Penetration.GLANCING, ZERO),
        "p_penetrating_per_hit": kinds.get(Penetration.PENETRATING, ZERO),
        "p_immobilised_after": immobilised.prob(1),
    }
    return CombatAnalysis(
        damage=hp_lost,
        models_destroyed=destroyed,
        wipe_probability=p_destroyed,
        stages=stages,
        extra={"vehicle": vehicle_section, "plan": plan_section(plan)},
    )


# ------------------------------------------------------------------------------------------
# entry point
# ------------------------------------------------------------------------------------------


def plan_section(plan: AttackPlan) -> dict[str, ExtraValue]:
    """What the rules made of the request: final skill, cells, modifiers, notes."""
    section: dict[str, ExtraValue] = {
        "skill": plan.hit.skill,
        "to_hit": str(plan.hit.code),
        "modifiers": [{"name": n, "value": v} for n, v in plan.hit.modifiers],
        "cover_save": plan.cover,
        "strength": plan.strength,
        "notes": list(plan.notes),
    }
    if plan.wound is not None:
        section["to_wound"] = str(plan.wound.code)
        section["mortelle"] = plan.wound.mortelle
        saves = {str(w): (str(lp.save) if lp.save else None) for w, lp in plan.losses.items()}
        section["saves"] = saves
    if plan.penetration is not None:
        section["armour"] = plan.penetration.armour
        section["penetration"] = plan.penetration.mode.value
    return section


def analyze(request: AttackRequest) -> CombatAnalysis:
    """Exact distributions of one PEN attack (raises ProfileError on an invalid request)."""
    plan = plan_attack(request)
    if isinstance(request.target, Vehicle):
        return _analyze_vehicle(plan)
    extra: dict[str, ExtraValue] = {"plan": plan_section(plan)}
    if request.melee:
        result, combat = melee_round(request)
        extra["combat_result"] = combat
    else:
        result = infantry_exact(request)
    models_destroyed = result.models_destroyed()
    return CombatAnalysis(
        damage=result.damage(),
        models_destroyed=models_destroyed,
        wipe_probability=models_destroyed.prob(result.models),
        stages=dict(result.stages),
        extra=extra,
    )
