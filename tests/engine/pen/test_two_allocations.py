"""Two save groups on multi-wound models (Rending, Perforant) by counts (issue 18):
:func:`two_allocations` against the sequential allocation states it replaces, on random
profiles within bounds both can finish, directly and through :func:`analyze`."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from app.engine.distributions import Dist
from app.engine.errors import ProfileError
from app.engine.pen import analysis
from app.engine.pen.allocation import (
    _decoded,
    _first_states,
    allocate_exact,
    damage_of,
    initial_state,
    models_of,
    two_allocations,
)
from app.engine.pen.analysis import (
    SaveGroup,
    _cover_pass,
    _sequential_allocations,
    analyze,
    hits_distribution,
    save_groups,
)
from app.engine.pen.attack import plan_attack
from app.engine.pen.names import parse_rules
from app.engine.pen.profiles import AttackRequest, Situation, Unit, Weapon, WeaponType

fractions = st.builds(Fraction, st.integers(1, 5), st.integers(6, 7))
losses = st.dictionaries(st.integers(0, 3), st.integers(1, 6), min_size=1, max_size=3)
hit_counts = st.dictionaries(st.integers(0, 9), st.integers(1, 20), min_size=1, max_size=4)


def sequential(
    models: int, wounds: int, hits: Dist, first: SaveGroup, second: SaveGroup
) -> tuple[Dist, Dist]:
    """(models destroyed, wounds lost) from the sequential squad states (the oracle)."""
    final, _ = _sequential_allocations(initial_state(models, wounds), hits, [first, second])
    destroyed: dict[int, int] = {}
    lost: dict[int, int] = {}
    for state, weight in final.items():
        d = models - models_of(state)
        lo = damage_of(state, models, wounds)
        destroyed[d] = destroyed.get(d, 0) + weight
        lost[lo] = lost.get(lo, 0) + weight
    return Dist.from_weights(destroyed), Dist.from_weights(lost)


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 5),
    st.integers(2, 4),
    hit_counts,
    fractions,
    fractions,
    losses,
    losses,
)
def test_two_allocations_match_the_sequential_states(
    models: int,
    wounds: int,
    hits: dict[int, int],
    p1: Fraction,
    p2: Fraction,
    loss1: dict[int, int],
    loss2: dict[int, int],
) -> None:
    p1, p2 = p1 / 2, p2 / 2  # p1 + p2 <= 1
    first = SaveGroup(None, p1, Dist.from_weights(loss1))
    second = SaveGroup(None, p2, Dist.from_weights(loss2))
    through = Dist.from_weights(hits)
    got = two_allocations(models, wounds, through, (p1, first.loss), (p2, second.loss))
    assert got == sequential(models, wounds, through, first, second)


@pytest.mark.parametrize("loss2", [{1: 1}, {1: 1, 2: 1}, {0: 1, 1: 2}])
@pytest.mark.parametrize(("models", "wounds"), [(1, 2), (2, 2), (2, 3), (3, 2)])
def test_second_group_counts_past_a_sure_wipe_share_one_slot(
    models: int, wounds: int, loss2: dict[int, int]
) -> None:
    # every second-group wound takes a W: from models x W of them on, the squad is wiped
    first = SaveGroup(None, Fraction(1, 3), Dist.from_weights({0: 2, 1: 1}))
    second = SaveGroup(None, Fraction(1, 2), Dist.from_weights(loss2))
    through = Dist.from_weights({3: 1, 8: 2, 12: 1})
    got = two_allocations(
        models,
        wounds,
        through,
        (first.probability, first.loss),
        (
            second.probability,
            second.loss,
        ),
    )
    assert got == sequential(models, wounds, through, first, second)


@pytest.mark.parametrize(("models", "wounds"), [(1, 2), (3, 2), (4, 3), (2, 5)])
def test_first_states_are_the_even_allocation(models: int, wounds: int) -> None:
    # the two classes of an even spread over an unhurt squad, as allocate_exact's states
    loss = Dist.from_weights({0: 2, 1: 3, 2: 1})
    start = initial_state(models, wounds)
    for k in range(3 * models + 2):
        states, total = _first_states(models, wounds, k, loss)
        want, want_total = allocate_exact(start, k, loss)
        got = {_decoded(key, wounds): Fraction(w, total) for key, w in states.items()}
        assert got == {st: Fraction(w, want_total) for st, w in want}


@settings(max_examples=60, deadline=None)
@given(
    st.integers(1, 4),
    st.integers(2, 4),
    st.dictionaries(st.integers(0, 16), st.integers(1, 20), min_size=1, max_size=4),
    fractions,
    fractions,
    losses,
    st.integers(0, 3),
)
def test_a_sure_second_group_and_many_counts_per_model_match_the_sequential_states(
    models: int,
    wounds: int,
    hits: dict[int, int],
    p1: Fraction,
    p2: Fraction,
    loss1: dict[int, int],
    per_wound: int,
) -> None:
    # every second-group wound takes exactly ``per_wound`` W (Rending: 1), and up to 16
    # hits on at most 4 models: the first group's counts span several wounds per model,
    # each block of counts by Horner's scheme over the models
    p1, p2 = p1 / 2, p2 / 2
    first = SaveGroup(None, p1, Dist.from_weights(loss1))
    second = SaveGroup(None, p2, Dist.constant(per_wound))
    through = Dist.from_weights(hits)
    got = two_allocations(models, wounds, through, (p1, first.loss), (p2, second.loss))
    assert got == sequential(models, wounds, through, first, second)


def test_a_hand_computed_case() -> None:
    # one model of 2 W, exactly 2 hits, each a first-group wound (saved on 1/2) or a
    # second-group wound (1 W, no save) with probability 1/2 each: the model dies only when
    # both wounds take their W: P = (1/2 + 1/2 * 1/2) ** 2 = 9/16
    first = (Fraction(1, 2), Dist.from_weights({0: 1, 1: 1}))
    second = (Fraction(1, 2), Dist.constant(1))
    destroyed, lost = two_allocations(1, 2, Dist.constant(2), first, second)
    assert destroyed.prob(1) == Fraction(9, 16)
    assert lost.prob(0) == Fraction(1, 16)
    assert lost.prob(2) == Fraction(9, 16)


def _attack(rule: str, models: int, shots: int, target: Unit) -> AttackRequest:
    return AttackRequest(
        Unit(models=models, bs=4),
        Weapon(
            type=WeaponType.ASSAULT,
            shots=shots,
            strength=5,
            ap=4,
            properties=parse_rules([rule]),
        ),
        target,
        Situation(),
    )


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(["Rending", "Perforant"]),
    st.integers(1, 5),
    st.integers(1, 3),
    st.integers(2, 3),
    st.integers(2, 4),
    st.sampled_from([None, 4, 5]),
    st.sampled_from([None, 4]),
    st.booleans(),
)
def test_analyze_answers_as_the_sequential_states(
    rule: str,
    models: int,
    shots: int,
    wounds: int,
    save: int,
    invulnerable: int | None,
    cover: int | None,
    feel_no_pain: bool,
) -> None:
    target = Unit(
        models=models,
        toughness=4,
        wounds=wounds,
        save=save,
        invulnerable_save=invulnerable,
        cover_save=cover,
        rules=parse_rules(["Insensible à la douleur"]) if feel_no_pain else (),
    )
    req = _attack(rule, models, shots, target)
    plan = plan_attack(req)
    groups = save_groups(plan)
    assume(len(groups) == 2)
    through = hits_distribution(plan.hit).thin(_cover_pass(plan.cover))
    analysis.infantry_exact.cache_clear()
    result = analyze(req)
    assert (result.models_destroyed, result.damage) == sequential(models, wounds, through, *groups)


def test_fifteen_two_wound_models_against_135_rending_shots_are_answered() -> None:
    # refused before (two sequential allocations of up to 135 hits on 15 x W2)
    req = _attack("Rending", 15, 9, Unit(models=15, toughness=4, wounds=2, save=3))
    result = analyze(req)
    assert sum(p for _, p in result.models_destroyed.items()) == 1
    assert result.models_destroyed.max == 15
    assert result.damage.max == 30


def test_thirty_two_wound_models_against_270_rending_shots_with_an_invulnerable_stay_refused() -> (
    None
):
    # answered since the wound layers (test_wound_layers.py), but with an invulnerable save the
    # Rending group's wounds are not all alike: about 9 s of exact work (ADR 0005), refused
    unit = Unit(models=30, toughness=4, wounds=2, save=3, invulnerable_save=5)
    req = _attack("Rending", 30, 9, unit)
    with pytest.raises(ProfileError, match="too large for an exact analysis"):
        analyze(req)
