"""Even wound allocation [L1394-L1411]: counts, the exact state machine against a brute-force
enumerator, and the live allocation."""

import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.distributions import Dist
from app.engine.pen.allocation import (
    allocate_exact,
    allocate_live,
    allocation_counts,
    initial_state,
)
from app.engine.pen.codes import RollCode
from app.engine.pen.wounds import LossPlan
from app.engine.roller import Roller


@pytest.mark.parametrize(
    ("alive", "wounds", "counts"),
    [
        (5, 3, [1, 1, 1, 0, 0]),
        (5, 5, [1, 1, 1, 1, 1]),
        (5, 7, [2, 2, 1, 1, 1]),  # never more than one wound more than another [L1396]
        (3, 10, [4, 3, 3]),
        (1, 4, [4]),
        (0, 4, []),
    ],
)
def test_allocation_counts(alive: int, wounds: int, counts: list[int]) -> None:
    assert allocation_counts(alive, wounds) == counts


def brute_force(
    state: tuple[int, ...], wounds: int, loss: dict[int, Fraction]
) -> dict[tuple[int, ...], Fraction]:
    """Enumerate every loss of every wound; allocate by hand: the models sorted by W left,
    the first ``wounds % n`` models get one more wound [L1396]. One-W models roll together:
    each wound that takes a W off removes one model [L1410]."""
    models = sorted(state)
    n = len(models)
    if max(state) == 1:
        out1: dict[tuple[int, ...], Fraction] = {}
        for losses in itertools.product(loss.items(), repeat=wounds):
            p = Fraction(1)
            for _, q in losses:
                p *= q
            key1 = (n - min(n, sum(1 for v, _ in losses if v > 0)),)
            out1[key1] = out1.get(key1, Fraction(0)) + p
        return out1
    per = [wounds // n + (1 if i < wounds % n else 0) for i in range(n)]
    out: dict[tuple[int, ...], Fraction] = {}
    for losses in itertools.product(loss.items(), repeat=wounds):
        p = Fraction(1)
        for _, q in losses:
            p *= q
        left = []
        k = 0
        for i, w in enumerate(models):
            taken = sum(v for v, _ in losses[k : k + per[i]])
            k += per[i]
            if w - taken > 0:
                left.append(w - taken)
        key = tuple(left.count(i + 1) for i in range(max(state)))
        out[key] = out.get(key, Fraction(0)) + p
    return out


def as_probs(state: tuple[int, ...], wounds: int, loss: Dist) -> dict[tuple[int, ...], Fraction]:
    after, total = allocate_exact(state, wounds, loss)
    return {st: Fraction(w, total) for st, w in after}


def counts(models: list[int]) -> tuple[int, ...]:
    """The state of a squad whose models have these W left."""
    return tuple(models.count(i + 1) for i in range(max(models)))


CASES = [
    ((1, 1, 1), 2, {0: Fraction(1, 2), 1: Fraction(1, 2)}),
    ((1, 1, 1), 5, {0: Fraction(1, 3), 1: Fraction(2, 3)}),
    ((2, 2), 3, {0: Fraction(1, 2), 1: Fraction(1, 2)}),
    ((2, 2), 4, {0: Fraction(1, 3), 1: Fraction(1, 3), 2: Fraction(1, 3)}),
    ((1, 2, 3), 4, {0: Fraction(1, 6), 1: Fraction(1, 2), 4: Fraction(1, 3)}),
    ((3, 3), 5, {0: Fraction(1, 2), 1: Fraction(1, 4), 2: Fraction(1, 4)}),
]


@pytest.mark.parametrize(("state", "wounds", "loss"), CASES)
def test_allocate_exact_matches_brute_force(
    state: tuple[int, ...], wounds: int, loss: dict[int, Fraction]
) -> None:
    got = as_probs(counts(list(state)), wounds, Dist.from_probs(loss))
    assert got == brute_force(state, wounds, loss)


def test_overkill_on_multi_wound_models_is_lost() -> None:
    # 2 models of 2 W, 5 wounds with no save: 3 and 2 wounds, the third is lost [L1396], [L1411]
    got = as_probs(initial_state(2, 2), 5, Dist.constant(1))
    assert got == {(0, 0): Fraction(1)}
    # 3 models of 2 W, 4 unsaved wounds: spread 2, 1, 1 [L1396]: one dead, two on 1 W
    assert as_probs(initial_state(3, 2), 4, Dist.constant(1)) == {(2, 0): Fraction(1)}


def test_identical_one_wound_models_roll_together_and_lose_no_wound() -> None:
    """[L1410]: one-W models roll their saves together and each failure removes a model.

    3 models W1, 4 wounds saved on 4+ (each fails with 1/2). Rolled together, the squad is
    gone when at least 3 of the 4 saves fail: C(4,3)/16 + 1/16 = 5/16. The even spread of
    [L1396] (2, 1, 1 wounds) would give 3/4 * 1/2 * 1/2 = 3/16: it wastes the second wound
    of a model already dead."""
    loss = Dist.from_probs({0: Fraction(1, 2), 1: Fraction(1, 2)})
    got = as_probs(initial_state(3, 1), 4, loss)
    assert got[(0,)] == Fraction(5, 16)
    assert got[(3,)] == Fraction(1, 16)  # all four saved
    assert got[(2,)] == Fraction(4, 16)  # exactly one failed
    assert got[(1,)] == Fraction(6, 16)  # exactly two failed
    # no save at all: 4 wounds on 2 models kill both, never more
    assert as_probs(initial_state(2, 1), 4, Dist.constant(1)) == {(0,): Fraction(1)}


@given(
    st.lists(st.integers(1, 3), min_size=1, max_size=3),
    st.integers(0, 4),
    st.fractions(0, 1),
)
def test_exact_allocation_sums_to_one_and_never_heals(
    state: list[int], wounds: int, p: Fraction
) -> None:
    loss = Dist.bernoulli(p)
    out = as_probs(counts(state), wounds, loss)
    assert sum(out.values()) == 1
    before = counts(state)
    for after in out:
        assert sum(after) <= sum(before)  # models never come back
        lost = sum((i + 1) * c for i, c in enumerate(before)) - sum(
            (i + 1) * c for i, c in enumerate(after)
        )
        assert 0 <= lost <= wounds


def test_live_allocation_spreads_evenly_fewest_wounds_first() -> None:
    remaining = [2, 1, 2]  # model 1 has taken a wound already
    plans = [LossPlan(None, None, 1)] * 4  # no save: every wound counts
    seen: list[tuple[int, int, int]] = []
    failed = allocate_live(
        Roller.from_values([]), remaining, plans, lambda i, got, lost: seen.append((i, got, lost))
    )
    # order by W left: model 1 (1 W), then 0 and 2; 4 wounds -> 2, 1, 1
    assert seen == [(1, 2, 1), (0, 1, 1), (2, 1, 1)]
    assert remaining == [1, 0, 1]
    assert failed == 4


def test_live_allocation_rolls_one_save_per_wound() -> None:
    roller = Roller.from_values([4, 3, 1])
    remaining = [1, 1]
    failed = allocate_live(roller, remaining, [LossPlan(RollCode(4), None, 1)] * 3)
    # model 0 gets wounds 1 and 3 and rolls its saves first: 4 saved, 3 failed;
    # model 1 gets wound 2: 1 failed [L1407]
    assert [r.label for r in roller.records] == ["save"] * 3
    assert failed == 2
    assert remaining == [0, 0]


def test_live_one_wound_models_roll_together_closest_first() -> None:
    """[L1410]: 3 identical one-W models, 4 wounds saved on 4+, dice 1, 2, 6, 3: three
    failures remove the three models, index order (closest first); no wound is wasted."""
    roller = Roller.from_values([1, 2, 6, 3])
    remaining = [1, 1, 1]
    seen: list[tuple[int, int, int]] = []
    failed = allocate_live(
        roller,
        remaining,
        [LossPlan(RollCode(4), None, 1)] * 4,
        lambda i, got, lost: seen.append((i, got, lost)),
        together=True,
    )
    assert failed == 3
    assert remaining == [0, 0, 0]
    assert seen == [(0, 1, 1), (1, 1, 1), (2, 1, 1)]
    # the model-by-model spread would give model 0 two wounds (dice 1 and 2: both fail), wasting one
    roller = Roller.from_values([1, 2, 6, 3])
    spread = [1, 1, 1]
    allocate_live(roller, spread, [LossPlan(RollCode(4), None, 1)] * 4)
    assert spread == [0, 1, 0]
