"""Rule-system-neutral results of an attack: exact analysis and live resolution.

Every rule system returns these types, and the API serialises them with :func:`to_jsonable`
(exact numbers as reduced fraction strings next to a float), so a new rule system needs no
special case in shared code.

- :class:`CombatAnalysis`: ``damage`` (wounds actually lost), ``models_destroyed``,
  ``wipe_probability``, ``stages`` (stage name -> Dist of a count: attacks, hits, wounds,
  failed_saves, mortal_wounds...), ``extra`` (named sections a system adds), and ``outcomes``
  (named results with their exact probabilities, for a system whose attack ends in one of a few
  results, e.g. black-reach's ``miss`` / ``step`` / ``coup_double``).
- :class:`CombatResolution`: one roll of the same attacks: every die, totals per stage, the
  target's state afterwards, a readable step log and ``extra`` sections.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TypeAlias

from gmpy2 import mpz

from app.engine.distributions import Dist, lowest_terms
from app.engine.roller import DieRecord

__all__ = [
    "CombatAnalysis",
    "CombatResolution",
    "ExtraValue",
    "ModelState",
    "ResolutionStep",
    "TargetState",
    "dist_to_jsonable",
    "fraction_to_jsonable",
    "fraction_to_str",
    "to_jsonable",
]

ExtraValue: TypeAlias = (
    "Dist | Fraction | int | float | str | bool | Sequence[ExtraValue] "
    "| Mapping[str, ExtraValue] | None"
)
Jsonable: TypeAlias = "dict[str, Jsonable] | list[Jsonable] | str | int | float | bool | None"


@dataclass(frozen=True, slots=True)
class CombatAnalysis:
    """Exact distributions of one attack request."""

    damage: Dist
    models_destroyed: Dist
    wipe_probability: Fraction
    stages: Mapping[str, Dist]
    extra: Mapping[str, ExtraValue] = field(default_factory=dict)
    # named outcomes of a system whose attack ends in one of a few results (a miss, a step...),
    # in the system's order; serialised as ``outcomes`` only when present
    outcomes: Mapping[str, Fraction] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ModelState:
    """One model of the target after the attacks."""

    group: str
    wounds: int  # characteristic W
    wounds_remaining: int
    keywords: tuple[str, ...] = ()

    @property
    def destroyed(self) -> bool:
        return self.wounds_remaining <= 0


@dataclass(frozen=True, slots=True)
class TargetState:
    """The target unit after a live resolution."""

    models: tuple[ModelState, ...]
    wounds_lost: int
    models_destroyed: int

    @property
    def models_remaining(self) -> int:
        return sum(1 for m in self.models if not m.destroyed)

    @property
    def wiped(self) -> bool:
        return self.models_remaining == 0


@dataclass(frozen=True, slots=True)
class ResolutionStep:
    """One readable line of a live resolution, with the indexes of the dice it used."""

    stage: str
    text: str
    dice: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class CombatResolution:
    """One live resolution: every die rolled, the totals and the target afterwards."""

    seed: int | None
    dice: tuple[DieRecord, ...]
    totals: Mapping[str, int]
    target_after: TargetState
    steps: tuple[ResolutionStep, ...] = ()
    extra: Mapping[str, ExtraValue] = field(default_factory=dict)


# -- serialisation ---------------------------------------------------------------------------


_DIRECT_BITS = 400  # about 120 digits: str() is faster below, GMP's digits() above


def _decimal(n: int) -> str:
    """``str(n)`` for an integer of any size: CPython refuses ``str()`` past 4300 digits (a
    guard against quadratic conversions of untrusted input), and an exact probability of a
    large attack can be longer. The engines bound their fractions (``MAX_EXACT_DIGITS`` in
    :mod:`app.engine.wh40k10e.exact`); this keeps serialisation total whatever the size."""
    if n.bit_length() <= _DIRECT_BITS:
        return str(n)
    text: str = mpz(n).digits()  # GMP's conversion: subquadratic, no digit limit
    return text


Denominators: TypeAlias = dict[int, str]
"""The decimal text of the denominators already written in one answer: the probabilities of
an answer share few denominators, each converted once."""


def fraction_to_str(q: Fraction, denominators: Denominators | None = None) -> str:
    """``"p/q"`` reduced, or ``"p"`` when q = 1. ``denominators``: a memo shared by the
    fractions of one answer (see :data:`Denominators`)."""
    if type(q) is not Fraction:
        q = Fraction(q)
    if q.denominator == 1:
        return _decimal(q.numerator)
    if denominators is None:
        below = _decimal(q.denominator)
    else:
        below = denominators.get(q.denominator) or denominators.setdefault(
            q.denominator, _decimal(q.denominator)
        )
    return f"{_decimal(q.numerator)}/{below}"


def fraction_to_jsonable(
    q: Fraction, digits: int = 4, denominators: Denominators | None = None
) -> dict[str, Jsonable]:
    return {"exact": fraction_to_str(q, denominators), "approx": round(float(q), digits)}


def dist_to_jsonable(
    d: Dist, digits: int = 4, denominators: Denominators | None = None
) -> dict[str, Jsonable]:
    """``{"mean": {...}, "distribution": [{"value", "exact", "approx", "at_least_exact",
    "at_least_approx"}, ...]}``. Every probability in lowest terms from the integer weights
    (:func:`~app.engine.distributions.lowest_terms`: the whole table at once), each numerator
    written by GMP, each distinct denominator once per answer; its float is
    ``round(float(Fraction), digits)`` (:func:`_approximations`)."""
    memo: Denominators = {} if denominators is None else denominators
    lo, weights, total = d.dense()
    values: list[int] = []
    xs: list[int] = []
    tails: list[int] = []
    acc = total
    for i, x in enumerate(weights):
        if x:
            values.append(lo + i)
            xs.append(x)
            tails.append(acc)
            acc -= x
    both = xs + tails
    nums, keys, dens = lowest_terms(both, total)
    below = {k: "" if den == 1 else "/" + _memo_decimal(den, memo) for k, den in dens.items()}
    texts = [n.digits() + below[k] for n, k in zip(nums, keys, strict=True)]
    floats = _approximations(both, total, digits)
    n = len(values)
    rows: list[Jsonable] = [
        {"value": v, "exact": p, "approx": f, "at_least_exact": a, "at_least_approx": g}
        for v, p, f, a, g in zip(values, texts[:n], floats[:n], texts[n:], floats[n:], strict=True)
    ]
    return {"mean": _mean_jsonable(lo, weights, total, digits, memo), "distribution": rows}


def _mean_jsonable(
    lo: int, weights: Sequence[int], total: int, digits: int, memo: Denominators
) -> dict[str, Jsonable]:
    """``fraction_to_jsonable(d.mean(), digits, memo)``, the mean ``lo + s / total`` reduced
    by :func:`~app.engine.distributions.lowest_terms` rather than by CPython's gcd of two
    numbers of thousands of digits (adding an integer keeps a fraction in lowest terms)."""
    s = sum(i * x for i, x in enumerate(weights))
    (num,), (key,), dens = lowest_terms([s], total)
    den = dens[key]
    top = lo * den + int(num)
    exact = _decimal(top) if den == 1 else f"{_decimal(top)}/{_memo_decimal(den, memo)}"
    return {"exact": exact, "approx": round((lo * total + s) / total, digits)}


def _memo_decimal(n: int, memo: Denominators) -> str:
    text = memo.get(n)
    if text is None:
        text = memo[n] = _decimal(n)
    return text


_FAST_DIGITS = 8  # the short path's error bound holds up to this many digits
_TIE_MARGIN = 1e-6  # closer than this to a half: the exact rounding instead


def _approximations(xs: Sequence[int], total: int, digits: int) -> list[float]:
    """``[round(x / total, digits) for x in xs]`` (each ``0 <= x <= total``), the same floats,
    without a true division of two numbers of thousands of bits per value (most of the cost).

    ``round(f, digits)`` is the float nearest ``k / 10**digits``, ``k`` the integer nearest
    ``f * 10**digits`` (ties to even, on the exact value of ``f = x / total`` correctly
    rounded). ``x >> s`` over ``total >> s``, both under 2**53 (a float division, correctly
    rounded), is within 2**-52 of ``x / total``; times ``10**digits`` (at most 10**8) and
    rounded, ``y`` is within 1e-7 of ``f * 10**digits``. So when ``y`` is not within
    :data:`_TIE_MARGIN` of a half, ``k = floor(y + 0.5)``, and ``k / 10**digits`` (a correctly
    rounded division of two integers) is ``round(f, digits)``; otherwise, the exact
    ``round(x / total, digits)``."""
    # Python integers: a gmpy2 ``mpz`` would divide to an ``mpfr``, which ``int()`` rounds
    # (not floors) and no JSON encoder writes.
    total = int(total)
    xs = [int(x) for x in xs]
    if not 0 <= digits <= _FAST_DIGITS:
        return [round(x / total, digits) for x in xs]
    shift = max(0, total.bit_length() - 53)
    top = total >> shift
    power = 10**digits
    scale = float(power)
    near = 0.5 - _TIE_MARGIN
    return [
        k / power
        if abs((y := (x >> shift) / top * scale) - (k := int(y + 0.5))) < near
        else round(x / total, digits)
        for x in xs
    ]


def to_jsonable(value: object, digits: int = 4) -> Jsonable:
    """Plain JSON-ready values (dicts, lists, str, numbers) for any result of this module."""
    return _jsonable(value, digits, {})


def _jsonable(value: object, digits: int, memo: Denominators) -> Jsonable:
    """:func:`to_jsonable`, every fraction of one answer sharing ``memo`` (an analysis's
    ``extra`` sections hold distributions of the same totals as its stages)."""
    if isinstance(value, Dist):
        return dist_to_jsonable(value, digits, memo)
    if isinstance(value, bool) or value is None or isinstance(value, str | int | float):
        return value
    if isinstance(value, Fraction):
        return fraction_to_jsonable(value, digits, memo)
    if isinstance(value, DieRecord):
        return dict(value.as_dict())
    if isinstance(value, CombatAnalysis):
        analysis: dict[str, Jsonable] = {
            "damage": dist_to_jsonable(value.damage, digits, memo),
            "models_destroyed": dist_to_jsonable(value.models_destroyed, digits, memo),
            "wipe_probability": fraction_to_jsonable(value.wipe_probability, digits, memo),
            "stages": {k: dist_to_jsonable(d, digits, memo) for k, d in value.stages.items()},
            "extra": {k: _jsonable(v, digits, memo) for k, v in value.extra.items()},
        }
        if value.outcomes:
            analysis["outcomes"] = [
                {"outcome": k, **fraction_to_jsonable(p, digits, memo)}
                for k, p in value.outcomes.items()
            ]
        return analysis
    if isinstance(value, ModelState):
        return {
            "group": value.group,
            "wounds": value.wounds,
            "wounds_remaining": value.wounds_remaining,
            "destroyed": value.destroyed,
            "keywords": list(value.keywords),
        }
    if isinstance(value, TargetState):
        return {
            "models": [_jsonable(m, digits, memo) for m in value.models],
            "wounds_lost": value.wounds_lost,
            "models_destroyed": value.models_destroyed,
            "models_remaining": value.models_remaining,
            "wiped": value.wiped,
        }
    if isinstance(value, ResolutionStep):
        return {"stage": value.stage, "text": value.text, "dice": list(value.dice)}
    if isinstance(value, CombatResolution):
        return {
            "seed": value.seed,
            "dice": [_jsonable(r, digits, memo) for r in value.dice],
            "totals": dict(value.totals),
            "target_after": _jsonable(value.target_after, digits, memo),
            "steps": [_jsonable(s, digits, memo) for s in value.steps],
            "extra": {k: _jsonable(v, digits, memo) for k, v in value.extra.items()},
        }
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v, digits, memo) for k, v in value.items()}
    if isinstance(value, Sequence):
        return [_jsonable(v, digits, memo) for v in value]
    raise TypeError(f"cannot serialise {type(value).__name__}")
