"""PEN at the issue's sizes (issue 18): binomial thinning by one packed Horner scheme
(:meth:`Dist.thin`) and the one-wound squad's saves rolled together as one thinning, against
the binomial-per-count computations they replace."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.distributions import Dist
from app.engine.pen.allocation import initial_state, models_of
from app.engine.pen.analysis import (
    _cover_pass,
    _sequential_allocations,
    analyze,
    hits_distribution,
    save_groups,
)
from app.engine.pen.attack import plan_attack
from app.engine.pen.names import parse_rules
from app.engine.pen.profiles import AttackRequest, Situation, Unit, Weapon, WeaponType
from tests.engine.pen.timing import best_cold_cpu

counts = st.dictionaries(st.integers(0, 40), st.integers(1, 50), min_size=1, max_size=8)
probabilities = st.sampled_from(
    [Fraction(0), Fraction(1), Fraction(1, 6), Fraction(1, 2), Fraction(5, 6), Fraction(2, 7)]
)


@settings(max_examples=200, deadline=None)
@given(counts, probabilities)
def test_thin_is_a_binomial_per_count(weights: dict[int, int], p: Fraction) -> None:
    d = Dist.from_weights(weights)
    want = d.bind(lambda n: Dist.binomial(n, p)) if 0 < p < 1 else d.map(lambda n: n * int(p))
    assert d.thin(p) == want


def test_thin_refuses_what_is_not_a_count_or_a_probability() -> None:
    with pytest.raises(ValueError, match="count"):
        Dist.from_weights({-1: 1, 2: 1}).thin(Fraction(1, 2))
    with pytest.raises(ValueError, match="probability"):
        Dist.constant(3).thin(Fraction(3, 2))


def _shooting(models: int, shots: int, wounds: int, save: int = 4) -> AttackRequest:
    return AttackRequest(
        Unit(models=models, bs=4),
        Weapon(type=WeaponType.ASSAULT, shots=shots, strength=5, ap=5),
        Unit(models=models, toughness=4, wounds=wounds, save=save),
        Situation(),
    )


def _old_allocation(models: int, wounds: int, k: int, loss: Dist) -> Dist:
    """Models destroyed when ``k`` wounds are spread evenly over an unhurt squad, computed
    from scratch for every ``k`` (as before issue 18)."""
    if wounds == 1:
        return Dist.binomial(k, 1 - loss.prob(0)).map(lambda n: min(n, models))
    q, r = divmod(k, models)
    destroyed = Dist.constant(0)
    for received, count in ((q + 1, r), (q, models - r)):
        if count:
            after = loss.repeat(received).map(lambda s: min(s, wounds))
            destroyed = destroyed + Dist.binomial(count, after.prob(wounds))
    return destroyed


def _binomial_per_count(d: Dist, p: Fraction) -> Dist:
    return d if p == 1 else d.bind(lambda n: Dist.binomial(n, p))


def _allocation_per_count(req: AttackRequest) -> Dist:
    """Models destroyed as before issue 18: a binomial per count of hits, then the even
    allocation (:func:`_one_allocation`) per count of wounds that must be saved."""
    plan = plan_attack(req)
    target = req.target
    assert isinstance(target, Unit)
    through = _binomial_per_count(hits_distribution(plan.hit), _cover_pass(plan.cover))
    (group,) = save_groups(plan)
    saves = _binomial_per_count(through, group.probability)
    return saves.bind(lambda k: _old_allocation(target.models, target.wounds, k, group.loss))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.integers(1, 4), st.integers(1, 3), st.integers(2, 6))
def test_squads_match_the_allocation_per_count(
    models: int, shots: int, wounds: int, save: int
) -> None:
    req = _shooting(models, shots, wounds, save)
    assert analyze(req).models_destroyed == _allocation_per_count(req)


def test_thirty_models_nine_shots_each_well_under_the_target() -> None:
    # 270 shots: the saves of 30 one-wound models, and 30 models of 5 wounds (even spread)
    for wounds in (1, 5):
        result, spent = best_cold_cpu(lambda w=wounds: analyze(_shooting(30, 9, w)))
        assert sum(p for _, p in result.models_destroyed.items()) == 1
        assert result.models_destroyed.max <= 30
        assert spent < 2.0  # generous for a loaded machine; the bench measures it


def test_the_largest_even_allocation_the_bounds_allow_is_answered() -> None:
    # 50 models of 10 W taking up to 300 hits: refused before issue 18 (a fixed work bound)
    req = AttackRequest(
        Unit(models=50, bs=4),
        Weapon(type=WeaponType.ASSAULT, shots=6, strength=5, ap=5),
        Unit(models=50, toughness=4, wounds=10, save=4),
        Situation(),
    )
    result, spent = best_cold_cpu(lambda: analyze(req))
    assert spent < 2.0  # about 0.2 s here; the bench measures it
    assert sum(p for _, p in result.damage.items()) == 1
    assert result.damage.max <= 300


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 8), st.integers(1, 3), st.integers(2, 3))
def test_one_wound_squads_with_two_save_groups_match_the_sequential_allocations(
    models: int, shots: int, save: int
) -> None:
    # Rending splits the wounds into two allocations [L1290]; for one-W models every loss
    # removes a model whichever allocation it is in: one thinning, as the sequential states
    req = AttackRequest(
        Unit(models=models, bs=4),
        Weapon(
            type=WeaponType.ASSAULT,
            shots=shots,
            strength=5,
            ap=4,
            properties=parse_rules(["Rending"]),
        ),
        Unit(models=models, toughness=4, wounds=1, save=save),
        Situation(),
    )
    plan = plan_attack(req)
    groups = save_groups(plan)
    assert len(groups) == 2
    through = _binomial_per_count(hits_distribution(plan.hit), _cover_pass(plan.cover))
    final, _ = _sequential_allocations(initial_state(models, 1), through, groups)
    oracle: dict[int, int] = {}
    for state, weight in final.items():
        oracle[models - models_of(state)] = oracle.get(models - models_of(state), 0) + weight
    assert analyze(req).models_destroyed == Dist.from_weights(oracle)


def test_thirty_one_wound_models_against_270_rending_shots() -> None:
    # refused before issue 18 (two sequential allocations of up to 270 hits)
    req = AttackRequest(
        Unit(models=30, bs=4),
        Weapon(
            type=WeaponType.ASSAULT, shots=9, strength=5, ap=4, properties=parse_rules(["Rending"])
        ),
        Unit(models=30, toughness=4, wounds=1, save=3),
        Situation(),
    )
    result = analyze(req)
    assert sum(p for _, p in result.models_destroyed.items()) == 1
    assert result.models_destroyed.max == 30
