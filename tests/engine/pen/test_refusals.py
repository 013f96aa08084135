"""What a refused PEN attack says (pen rulings 42): an attack whose wounds need two separate
allocations on a large squad of multi-wound models is refused beyond the engine's work bound,
and the refusal names the largest attack the exact analysis does answer: the most attacking
models (their hits add up) and the largest target squad. Each suggestion is checked: the
attack it names is answered, one model more is refused again. The work estimate counts the
squad states the first allocation can leave, not every squad (pen rulings 43): checked
against the states the allocation reaches, and a request it lifts against the plain exact
implementation."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.engine.distributions import Dist
from app.engine.errors import ProfileError
from app.engine.pen import analysis
from app.engine.pen.allocation import allocate_exact, initial_state, two_allocations
from app.engine.pen.analysis import analyze
from app.engine.pen.attack import plan_attack
from app.engine.pen.names import parse_rules
from app.engine.pen.profiles import AttackRequest, Situation, Unit, Weapon, WeaponType

RENDING = parse_rules(["Rending"])


def rending(attackers: int, models: int, wounds: int, invulnerable: int | None) -> AttackRequest:
    """``attackers`` models with 9 Rending shots each into ``models`` of ``wounds`` W, Sv3."""
    return AttackRequest(
        Unit(models=attackers, bs=4),
        Weapon(type=WeaponType.ASSAULT, shots=9, strength=5, ap=4, properties=RENDING),
        Unit(models=models, toughness=4, wounds=wounds, save=3, invulnerable_save=invulnerable),
        Situation(),
    )


def refusal(request: AttackRequest) -> ProfileError:
    with pytest.raises(ProfileError, match="too large for an exact analysis") as caught:
        analyze(request)
    return caught.value


def test_a_refusal_names_the_most_attacking_models_answered() -> None:
    request = rending(30, 30, 2, 5)
    err = refusal(request)
    assert err.field == "target.models"
    assert "2 separate allocations" in err.message
    found = re.search(r"at most (\d+) of the 30 attacking models", err.message)
    assert found is not None, err.message
    most = int(found.group(1))
    assert 1 <= most < 30
    answered = analyze(replace(request, attacker=replace(request.attacker, models=most)))
    assert answered.models_destroyed.max == 30
    refusal(replace(request, attacker=replace(request.attacker, models=most + 1)))


def test_a_refusal_names_the_largest_target_answered() -> None:
    request = rending(30, 30, 2, 5)
    found = re.search(r"a target of at most (\d+) models", refusal(request).message)
    assert found is not None
    fewer = int(found.group(1))
    assert 2 <= fewer < 30
    answered = analyze(replace(request, target=replace(request.target, models=fewer)))
    assert answered.models_destroyed.max == fewer
    refusal(replace(request, target=replace(request.target, models=fewer + 1)))


def test_without_a_smaller_attack_to_name_the_refusal_says_to_split_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # with every bound at nothing, no smaller attack (fewer attacking models, a squad of two
    # models or more) is answered: the refusal only says to split the attack
    for bound in ("MAX_LAYERS_WORK", "MAX_TWO_GROUP_WORK", "MAX_SEQUENTIAL_WORK"):
        monkeypatch.setattr(analysis, bound, 0)
    err = refusal(rending(30, 30, 10, 5))
    assert err.message.endswith("analyse fewer shots or models at a time")
    assert "attacking models" not in err.message


def test_few_hits_on_many_wounds_are_answered_exactly() -> None:
    # 5 x 9 Rending shots (45 hits) into 30 x W5 with an invulnerable save: refused before
    # (every squad of 30 models of 5 W counted: 324,632), answered now that only the squads
    # the first allocation can leave are counted (376); identical to the counts method (the
    # plain exact implementation: a distribution per count, no layers, no rounds)
    request = rending(5, 30, 5, 5)
    assert analysis._first_states(45, 30, 5, 1) == 376
    got = analyze(request)
    plan = plan_attack(request)
    through = analysis._thin(analysis.hits_distribution(plan.hit), analysis._cover_pass(plan.cover))
    first, second = ((g.probability, g.loss) for g in analysis.save_groups(plan))
    plain = two_allocations(30, 5, through, first, second, layers=False, rounds=False)
    assert (got.models_destroyed, got.damage) == plain


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 60), st.integers(1, 30), st.integers(2, 10), st.integers(1, 2))
def test_first_states_bound_the_squads_the_first_allocation_leaves(
    hits: int, models: int, wounds: int, most: int
) -> None:
    # every state allocate_exact reaches from 0 to ``hits`` wounds is counted (exactly, when a
    # wound takes one W or none)
    if math.comb(models + wounds, wounds) > 3000:
        models = min(models, 8)
    loss = Dist.from_weights({0: 1, most: 1})
    start = initial_state(models, wounds)
    seen = set()
    for k in range(hits + 1):
        states, _ = allocate_exact(start, k, loss)
        seen.update(state for state, _ in states)
    counted = analysis._first_states(hits, models, wounds, most)
    assert len(seen) <= counted
    if most == 1:
        assert len(seen) == counted
