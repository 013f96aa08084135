"""Even wound allocation and casualty removal (note §5.6-§5.7, [L1394-L1411]).

The defender spreads the wounds of one allocation evenly over the living models of the squad,
never giving a model more than one wound more than another, and first to the models with the
fewest wounds left [L1396]. Saves are then rolled model by model [L1407]; a model reduced to
0 W is removed [L1411] and the wounds still allocated to it are lost. Wounds of one weapon that
are saved differently (Perforant's PA2 wounds) are allocated separately, one allocation after
the other [L1290] (pen rulings: the better-saved group first).

Identical single-wound models (a squad whose profile has 1 W) roll the saves of one allocation
together and each failed save removes one model, closest to the attacker first [L1410]: no
wound is lost on a model already removed (pen rulings 14). A squad of one-wound models is the
only squad that rule names, so the engine always uses it there; the even spread above is the
rule for models with more than one wound.

The exact path works on a squad *state*: ``state[i]`` is the number of living models with
``i + 1`` wounds left. Weights are integers over a common total (no Fraction arithmetic).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from math import lcm
from typing import TypeVar

from app.engine.distributions import Dist
from app.engine.pen.procedures import Dice
from app.engine.pen.wounds import LossPlan, loss_steps

__all__ = [
    "State",
    "Weighted",
    "allocate_exact",
    "allocate_live",
    "allocation_counts",
    "damage_of",
    "initial_state",
    "mix",
    "models_of",
]

State = tuple[int, ...]  # state[i]: living models with i + 1 W left
K = TypeVar("K")
Weighted = tuple[tuple[tuple[K, int], ...], int]  # ((key, weight), ...), total


def initial_state(models: int, wounds: int) -> State:
    return tuple(models if i == wounds - 1 else 0 for i in range(wounds))


def models_of(state: State) -> int:
    """Living models of a state."""
    return sum(state)


def damage_of(state: State, models: int, wounds: int) -> int:
    """Wounds lost by a squad of ``models`` x ``wounds`` W now in ``state``."""
    return models * wounds - sum((i + 1) * c for i, c in enumerate(state))


def allocation_counts(alive: int, wounds: int) -> list[int]:
    """Wounds received by each living model, listed fewest-W-left first [L1396].

    Even spread: every model gets ``wounds // alive``, and the remainder goes one each to the
    models with the fewest wounds left.
    """
    if alive <= 0:
        return []
    q, r = divmod(wounds, alive)
    return [q + 1] * r + [q] * (alive - r)


def mix(terms: Iterable[tuple[K, int, int]]) -> tuple[dict[K, int], int]:
    """Sum weighted terms (key, numerator, denominator) over one common denominator."""
    items = list(terms)
    factors: dict[int, int] = dict.fromkeys((d for _, _, d in items), 0)
    total = lcm(*factors) if factors else 1
    for den in factors:
        factors[den] = total // den
    out: dict[K, int] = {}
    for key, num, den in items:
        if num:
            out[key] = out.get(key, 0) + num * factors[den]
    return out, total


@lru_cache(maxsize=4096)
def _model_outcome(w: int, received: int, loss: Dist) -> tuple[tuple[tuple[int, int], ...], int]:
    """W left on a model with ``w`` W after ``received`` wounds: ((w left, weight), ...), total."""
    if received == 0:
        return ((w, 1),), 1
    left = loss.repeat(received).map(lambda s: max(0, w - s))
    return tuple(left.weights().items()), left.total


@lru_cache(maxsize=4096)
def _removed_together(alive: int, wounds: int, loss: Dist) -> Dist:
    """Models removed when ``alive`` identical one-W models roll ``wounds`` saves together:
    each wound that takes a W off removes one model, at most ``alive`` [L1410], [L1411]."""
    p_kill = 1 - loss.prob(0)
    return Dist.binomial(wounds, p_kill).map(lambda k: min(k, alive))


@lru_cache(maxsize=65536)
def allocate_exact(state: State, wounds: int, loss: Dist) -> Weighted[State]:
    """Exact distribution of the squad state after one allocation of ``wounds`` wounds.

    ``loss`` is the distribution of the W one allocated wound takes off (0 when saved), the
    same for every wound of this allocation. Returns integer weights over a total. A state of
    length 1 is a squad of one-W models: its saves are rolled together [L1410].
    """
    alive = models_of(state)
    if wounds == 0 or alive == 0:
        return ((state, 1),), 1
    if len(state) == 1:
        removed = _removed_together(alive, wounds, loss)
        return tuple(((alive - k,), w) for k, w in removed.weights().items()), removed.total
    q, r = divmod(wounds, alive)
    classes: list[tuple[int, int, int]] = []  # (W left, wounds received, models)
    extra = r
    for i, count in enumerate(state):
        if not count:
            continue
        more = min(extra, count)
        extra -= more
        if more:
            classes.append((i + 1, q + 1, more))
        if count - more:
            classes.append((i + 1, q, count - more))
    table: dict[State, int] = {(0,) * len(state): 1}
    total = 1
    for w, received, count in classes:
        outcome, t = _model_outcome(w, received, loss)
        for _ in range(count):
            nxt: dict[State, int] = {}
            for st, x in table.items():
                for left, y in outcome:
                    key = st if left == 0 else (*st[: left - 1], st[left - 1] + 1, *st[left:])
                    nxt[key] = nxt.get(key, 0) + x * y
            table = nxt
            total *= t
    return tuple(table.items()), total


def allocate_live(
    dice: Dice,
    remaining: list[int],
    wounds: Sequence[LossPlan],
    on_model: Callable[[int, int, int], None] | None = None,
    *,
    together: bool = False,
) -> int:
    """Allocate ``wounds`` over the living models of ``remaining`` (W left per model, updated).

    The same spread as :func:`allocation_counts`: models sorted by W left then by index,
    wounds dealt round-robin; each model rolls one save per wound it received [L1407].
    ``on_model(index, received, lost)`` reports each model. Returns the failed saves.

    ``together`` (a squad of identical one-W models): the saves are rolled together and each
    wound that takes a W off removes the next living model in index order (the closest to the
    attacker) [L1410]; ``on_model`` then reports each removed model with one wound.
    """
    alive = sorted((i for i, w in enumerate(remaining) if w > 0), key=lambda i: (remaining[i], i))
    if not alive or not wounds:
        return 0
    if together:
        failed = 0
        removed = 0
        for plan in wounds:
            fail, loss = loss_steps(dice, plan)
            failed += fail
            removed += loss > 0
        for i in sorted(alive)[:removed]:
            before = remaining[i]
            remaining[i] = 0
            if on_model is not None:
                on_model(i, 1, before)
        return failed
    per_model: dict[int, list[LossPlan]] = {i: [] for i in alive}
    for j, plan in enumerate(wounds):
        per_model[alive[j % len(alive)]].append(plan)
    failed = 0
    for i in alive:
        received = per_model[i]
        if not received:
            continue
        lost = 0
        for plan in received:
            fail, loss = loss_steps(dice, plan)
            failed += fail
            lost += loss
        before = remaining[i]
        remaining[i] = max(0, before - lost)
        if on_model is not None:
            on_model(i, len(received), before - remaining[i])
    return failed
