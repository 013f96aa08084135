"""The second allocation by rounds, and one model taking every allocation (issue 18).

A second save group whose wound takes one W or none (Rending's PA2 wounds into an invulnerable
save, Feel No Pain) is allocated from every squad state by rounds (Horner's scheme over the
rounds of the even spread) instead of a distribution per (state, count); a squad of one model
takes every wound of every allocation. Both against the sequential squad states (the oracle)
and the per-count method they replace, on random profiles, directly and through
:func:`analyze`; and the sizes now answered, in CPU time.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.distributions import Dist
from app.engine.pen.allocation import initial_state, two_allocations
from app.engine.pen.analysis import (
    SaveGroup,
    _cover_pass,
    _one_model,
    _sequential_allocations,
    analyze,
    hits_distribution,
    save_groups,
)
from app.engine.pen.attack import plan_attack
from app.engine.pen.names import parse_rules
from app.engine.pen.profiles import AttackRequest, Situation, Unit, Weapon, WeaponType
from tests.engine.pen.test_two_allocations import sequential
from tests.engine.pen.timing import best_cold_cpu

fractions = st.builds(Fraction, st.integers(1, 5), st.integers(6, 7))
hit_counts = st.dictionaries(st.integers(0, 12), st.integers(1, 20), min_size=1, max_size=4)
losses = st.dictionaries(st.integers(0, 3), st.integers(1, 6), min_size=1, max_size=3)
# a second-group wound that takes one W or none, both possible: the rounds' condition
saved_or_one = st.tuples(st.integers(1, 5), st.integers(1, 5))


def _saved_or_one(weights: tuple[int, int]) -> Dist:
    return Dist.from_weights({0: weights[0], 1: weights[1]})


@settings(max_examples=200, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(2, 4),
    hit_counts,
    fractions,
    fractions,
    losses,
    saved_or_one,
    st.booleans(),
)
def test_rounds_match_the_sequential_states(
    models: int,
    wounds: int,
    hits: dict[int, int],
    p1: Fraction,
    p2: Fraction,
    loss1: dict[int, int],
    loss2: tuple[int, int],
    layers: bool,
) -> None:
    p1, p2 = p1 / 2, p2 / 2  # p1 + p2 <= 1
    first = SaveGroup(None, p1, Dist.from_weights(loss1))
    second = SaveGroup(None, p2, _saved_or_one(loss2))
    through = Dist.from_weights(hits)
    got = two_allocations(
        models, wounds, through, (p1, first.loss), (p2, second.loss), layers=layers
    )
    assert got == sequential(models, wounds, through, first, second)


@settings(max_examples=25, deadline=None)
@given(
    st.integers(3, 9),
    st.integers(2, 3),
    st.integers(10, 45),
    fractions,
    fractions,
    st.tuples(st.integers(0, 4), st.integers(1, 4)),
    saved_or_one,
)
def test_rounds_match_the_per_count_method_on_larger_squads(
    models: int,
    wounds: int,
    shots: int,
    p1: Fraction,
    p2: Fraction,
    loss1: tuple[int, int],
    loss2: tuple[int, int],
) -> None:
    # beyond the oracle's reach: a distribution per (state, count), as before
    hits = Dist.binomial(shots, Fraction(1, 2))
    first = (p1 / 2, Dist.from_weights({k: w for k, w in enumerate(loss1) if w}))
    second = (p2 / 2, _saved_or_one(loss2))
    got = two_allocations(models, wounds, hits, first, second)
    assert got == two_allocations(models, wounds, hits, first, second, rounds=False)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(2, 6),
    hit_counts,
    st.lists(st.tuples(fractions, losses), min_size=2, max_size=3),
)
def test_one_model_takes_every_allocation(
    wounds: int, hits: dict[int, int], parts: list[tuple[Fraction, dict[int, int]]]
) -> None:
    # a squad of one model: the sum of every hit's loss, capped at its W, against the
    # sequential states of two or three allocations
    groups = [SaveGroup(None, p / len(parts), Dist.from_weights(loss)) for p, loss in parts]
    through = Dist.from_weights(hits)
    lost = _one_model(through, groups, wounds)
    final, _ = _sequential_allocations(initial_state(1, wounds), through, groups)
    want: dict[int, int] = {}
    for state, weight in final.items():
        lo = wounds - sum((i + 1) * n for i, n in enumerate(state))
        want[lo] = want.get(lo, 0) + weight
    assert lost == Dist.from_weights(want)


def _rending(
    attackers: int, models: int, wounds: int, invulnerable_save: int | None = 5
) -> AttackRequest:
    return AttackRequest(
        Unit(models=attackers, bs=4),
        Weapon(
            type=WeaponType.ASSAULT,
            shots=9,
            strength=5,
            ap=4,
            properties=parse_rules(["Rending"]),
        ),
        Unit(
            models=models,
            toughness=4,
            wounds=wounds,
            save=3,
            invulnerable_save=invulnerable_save,
        ),
        Situation(),
    )


def _per_count(req: AttackRequest) -> tuple[Dist, Dist]:
    """(models destroyed, wounds lost) by the per-count method (before the rounds)."""
    plan = plan_attack(req)
    target = req.target
    assert isinstance(target, Unit)
    first, second = ((g.probability, g.loss) for g in save_groups(plan))
    through = hits_distribution(plan.hit).thin(_cover_pass(plan.cover))
    return two_allocations(
        target.models, target.wounds, through, first, second, layers=False, rounds=False
    )


def test_twenty_two_wound_models_with_an_invulnerable_save_are_answered() -> None:
    # Rending's PA2 wounds into an invulnerable 5+ on 20 x W2 under 180 hits: refused
    # before (1.5 s by the per-count method), now about 0.25 s; the same distributions
    req = _rending(20, 20, 2)
    result, spent = best_cold_cpu(lambda: analyze(req))
    assert (result.models_destroyed, result.damage) == _per_count(req)
    assert result.models_destroyed.max == 20
    assert spent < 1.0  # CPU seconds: a margin of 4x for a loaded machine and -n 2


def test_one_model_of_ten_wounds_takes_270_hits_in_milliseconds() -> None:
    # one W10 model, invulnerable 5+, under 30 x 9 Rending shots: 0.26 s by the per-count
    # method, a few milliseconds as the sum of each hit's loss
    req = _rending(30, 1, 10)
    result, spent = best_cold_cpu(lambda: analyze(req))
    assert (result.models_destroyed, result.damage) == _per_count(req)
    assert result.damage.max == 10
    assert spent < 0.25
