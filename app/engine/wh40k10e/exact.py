"""Exact analysis of a whole 10th-edition activation (several weapons in order, one target).

Method (integer weights over one common denominator, reduced between weapons):

1. Per weapon, the joint distribution of one attack's outcome: (``k`` wounds that must be
   saved, ``m`` mortal wounds from Devastating Wounds), built from the hit and wound rules of
   :mod:`.rules` (the same functions the live path uses), Sustained Hits, Lethal Hits and
   re-rolls included.
2. A Markov chain over the target's state ``(b, c, pending mortal wounds)``: ``b`` and ``c``
   are the wounds lost along the bodyguard and character lines (:mod:`.allocation`). One
   step is one attack: its ``k`` wounds go one at a time to the model at the head of the line
   (or to the CHARACTER, for Precision), which saves or suffers the weapon's damage, each
   point checked by Feel No Pain, excess damage lost (the ``k``-th power of the one-wound
   kernel); its ``m`` mortal wounds are added to the pending count. The state after the
   random number of attacks (per model, independent) is accumulated step by step; a
   destroyed unit ends the iteration early. State is carried from weapon to weapon.
   Only the attacks that can change something ("live") are stepped through, by Horner's
   scheme over their number: its coefficients are those of ``G_N(r0/q + z)`` (``G_N`` the
   number of attacks, ``r0/q`` the chance that an attack changes nothing), whose
   denominators are powers of the dice's. ``t`` live attacks before the end, the states
   those attacks certainly leave destroyed are dropped: a live attack takes at least one
   wound (or adds a capped pending mortal wound) until the attacks reach a model that saves
   better than the weakest, so only the pending counts short of the wounds then left are
   carried (``B - t`` of them on a line of identical models); the packed slots are as wide
   as each step's exact bound, widening as the steps go.
3. After the last weapon (the normal damage of all the unit's attacks against the target
   first: RULINGS 9 [L1826–L1833]), the pending mortal wounds are applied, spilling over
   (RULINGS 11).
   When every model has the same Feel No Pain, mortal wounds are thinned by it as they are
   generated and a pending count that covers every remaining wound is folded into "destroyed"
   (exact, and much smaller); with one Feel No Pain on the bodyguard and another on the
   CHARACTERs, two chains of counts (one per Feel No Pain) are combined by an identity of
   generating functions (:class:`_TwoFeelNoPainChain`); otherwise each is checked against
   the model it lands on.
   Into identical models (:class:`_LineChain`) the last weapon is stepped forward instead:
   ``u_t = v A'**t`` has weights of a few dozen bits per step where Horner's sums carry the
   coefficients' thousands of bits from the first step, and only ``e`` (summed over ``r``)
   is read out, so each step meets its big coefficient once per value of ``e``.
4. One weapon into a unit whose models are not all alike: the line is split at the end of
   its main models (:class:`_PrefixSplitChain`): a forward pass on them (a path leaves them
   within a few dozen live attacks), the short tail in closed form (:mod:`.tail`: the
   live attacks past those steps through a polynomial that annihilates the tail's
   operator); a line of identical models gives the counts of the paths that never leave
   them.

The packed rows and the big sums run on GMP integers (gmpy2's ``mpz``: products, additions,
gcds and decimal conversions several times faster than CPython's at these sizes); every value
that leaves the module is a Python ``int``.

Work is bounded: static size limits first (:func:`_check_budget`), then a budget counted
while the chain runs (big-by-big products and the serialisation of the answer included), and
the size of the exact fractions (:data:`MAX_EXACT_DIGITS`); beyond any of them, a ProfileError
naming ``attacks`` (a 422), never a hang or a 500. See docs/adr/0005-exact-engine.md.

Stages (attacks, hits, wounds, failed_saves, mortal_wounds) are the dice of the attack
sequence as rolled, without stopping when the target is destroyed; ``failed_saves`` uses the
save of the first model in line (the first CHARACTER for Precision). See
docs/rulings/wh40k10e-combat.md.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import NamedTuple, TypeVar

from gmpy2 import bit_mask, divexact, gcd, mpz, pack, unpack, xmpz

from app.engine.combat import CombatAnalysis, ExtraValue
from app.engine.distributions import Dist, power_weights
from app.engine.errors import N_, Message, ProfileError
from app.engine.wh40k10e.allocation import Layout, ModelSlot
from app.engine.wh40k10e.profiles import AttackEntry, CombatRequest, Situation
from app.engine.wh40k10e.rules import (
    FACES,
    WeaponRules,
    choose_save,
    fnp_negates,
    outcome_weights,
    save_fail_weights,
    weapon_rules,
)
from app.engine.wh40k10e.tail import tail_sum

__all__ = ["MAX_EXACT_DIGITS", "WORK_BUDGET", "analyze", "estimate_work"]

# Calibrated so that the heaviest request each limit lets through (tests/combat/test_limits.py)
# is answered, analysis and serialisation, in under a second (ADR 0005, addendum); raised from
# 20M with the pruned chains (issue 18): a unit spends fewer units per second of work now.
WORK_BUDGET = 40_000_000  # weighted work units of one analysis, its serialisation included
PRECHECK_FACTOR = 50  # requests whose a-priori bound exceeds this many budgets are refused
# Guards against absurd inputs, set to cover issue 18's scope with every ability: 30 models of
# D6+3 attacks, Rapid Fire 10 at half range (the largest X the datasheets use) and Blast into
# 30 models (+6): 30 x 25 attacks; Sustained Hits 3 for the hits; three such weapons in all.
# What is too heavy inside them is refused by the work budget and MAX_EXACT_DIGITS. (A cap of 300
# attacks per entry refused Rapid Fire 2 at half range, 330 attacks, and Blast into 30 models,
# 450: with SH1 LH DW and D6+1 damage into 30 x W3 FNP5+ they take about 80 and 130 ms, analysis
# and JSON: bench/bench_combat_heavy.py.)
MAX_ATTACKS_PER_ENTRY = 750  # most attacks one entry can make (models x most A, with bonuses)
MAX_HITS_PER_ENTRY = 3000  # most hits rolling to wound one entry can score (Sustained Hits 3)
MAX_TOTAL_ATTACKS = 2250  # over every entry of the request
MAX_TOTAL_HITS = 9000
# The exact probabilities are fractions over the product of every die's sides: an attack with
# thousands of dice has denominators of thousands of digits. Beyond this many digits the
# analysis is refused: CPython itself refuses to print a longer integer (its 4,300-digit
# guard), and no reader needs one; the float beside each fraction is what a player reads.
MAX_EXACT_DIGITS = 4000
_MAX_EXACT_BITS = int(MAX_EXACT_DIGITS * math.log2(10))  # fewer bits: at most that many digits

Key = TypeVar("Key")

_ZERO = Dist.constant(0)
_ONE = Dist.constant(1)


def _fnp_lose(fnp: int | None) -> Fraction:
    """P(a wound is actually lost) under Feel No Pain ``fnp`` (RULINGS 12)."""
    return Fraction(sum(1 for u in FACES if not fnp_negates(u, fnp)), 6)


def _thin(d: Dist, p: Fraction) -> Dist:
    """Each unit of ``d`` kept independently with probability ``p``."""
    if p == 1:
        return d
    if p == 0:
        return _ZERO
    return d.bind(lambda n: Dist.binomial(n, p))


class _Weapon:
    """Per-weapon distributions derived from the shared rules."""

    def __init__(self, entry: AttackEntry, wr: WeaponRules, situation: Situation) -> None:
        self.entry = entry
        self.rules = wr
        self.damage = wr.damage_dist(situation)
        wf, ws, wc, wt = outcome_weights(wr.wound)
        self.wound = (Fraction(wf, wt), Fraction(ws, wt), Fraction(wc, wt))
        if wr.hit is None:
            self.hit: tuple[Fraction, Fraction, Fraction] | None = None
        else:
            hf, hs, hc, ht = outcome_weights(wr.hit)
            self.hit = (Fraction(hf, ht), Fraction(hs, ht), Fraction(hc, ht))
        self.per_model = wr.attacks_dist()  # attacks of one model (RULINGS 2, 13)
        self.attacks = self.per_model.repeat(entry.models)

    def per_attack(self, per_roll: Dist, lethal: Dist) -> Dist:
        """A per-attack distribution from what one hit that rolls to wound contributes
        (``per_roll``) and what a Lethal Hits auto-wound contributes (``lethal``)."""
        if self.hit is None:  # Torrent: one automatic hit, never critical (RULINGS 7)
            return per_roll
        p_miss, p_hit, p_crit = self.hit
        crit = lethal if self.rules.lethal_hits else per_roll
        if self.rules.sustained is not None:  # RULINGS 6: the extra hits roll to wound
            crit = crit + self.rules.sustained.dist().compound(per_roll)
        return Dist.mixture([(p_miss, _ZERO), (p_hit, per_roll), (p_crit, crit)])

    def stage(self, per_roll: Dist, lethal: Dist, budget: _Budget) -> Dist:
        """Total over all attacks: per model (random A), then the models (independent)."""
        pa = self.per_attack(per_roll, lethal)
        budget.spend(self.per_model.max * len(pa) * self.per_model.max, pa.total.bit_length())
        pm = self.per_model.compound(pa)
        models = self.entry.models
        _check_digits(pm.total.bit_length() * models)
        size = len(pm) * models
        # Dist.repeat: Miller's recurrence (each coefficient a sum over the per-model
        # weights) for a short support and many models; otherwise one GMP power of the packed
        # polynomial (power_weights), where Dist.repeat's binary powering convolves Python
        # integers: Sustained Hits 2's mortal wounds from 30 models (127 values per model,
        # 3,800 in all) took 1.35 s that way, 54 ms as a power
        # (the dense width, as Dist.repeat judges it: len(pm) counts only the values with a
        # weight, and a support with gaps, D3+3 damage, sent a wide one to the slow powering)
        lo, weights, _ = pm.dense()
        miller = models >= 4 and len(weights) <= 4 * models
        budget.spend(size * len(pm), pm.total.bit_length() * models)
        if miller or models < 2:
            return pm.repeat(models)
        power = power_weights(weights, models)
        return Dist.from_weights({lo * models + i: x for i, x in enumerate(power) if x})


def _weapon_bounds(request: CombatRequest, entry: AttackEntry) -> tuple[int, int, int, int]:
    """(max attacks, max wounds to save per attack, max damage, max mortal wounds per attack)
    of one entry, from the profiles alone."""
    wr = weapon_rules(entry.weapon, request.target, request.situation)
    dmg_max = wr.damage.max + (wr.melta.max if wr.melta is not None else 0)
    dmg_max = max(1, dmg_max + request.situation.damage_modifier)
    per_attack = 1 + (wr.sustained.max if wr.sustained is not None else 0)
    per_model = wr.attacks.max + wr.attack_bonus + (wr.rapid_fire.max if wr.rapid_fire else 0)
    mortal = per_attack * dmg_max if wr.devastating else 0
    return per_model * entry.models, per_attack, dmg_max, mortal


def estimate_work(request: CombatRequest) -> int:
    """An upper bound of the chain's state updates in :func:`analyze` (one step per attack:
    attacks x line states x pending mortal wounds x transitions per state), weighted by the
    size of the integers involved."""
    layout = Layout(request.target)
    states = (layout.B + 1) * (layout.C + 1)
    max_w = max(s.wounds for s in layout.bodyguard + layout.characters)
    cap = layout.total_wounds if layout.uniform_feel_no_pain() else None
    # CHARACTERs of another Feel No Pain (_TwoFeelNoPainChain): the pending counts followed
    # one by one stop at the bodyguard's wounds; past it, C more counts per state
    soft = cap is None and _TwoFeelNoPainChain.applies(layout)
    if soft:
        cap = layout.B
    total = 0
    pending = 0
    steps = 0
    for entry in request.attacks:
        n_max, per_attack, dmg_max, mortal = _weapon_bounds(request, entry)
        if mortal:
            pending += n_max * mortal
            if cap is not None:
                pending = min(pending, cap)
        steps += n_max * per_attack
        width = per_attack * min(dmg_max, max_w) + 1
        shifts = min(mortal, cap if cap is not None else mortal) + 1
        total += (n_max + 1) * states * (pending + 1 + (layout.C if soft else 0)) * width * shifts
    # integers grow by a few bits per wound to save: big ones cost more per operation
    return total * (1 + steps // 256)


_SPLIT = Message(
    N_("split it into smaller attacks (fewer models per line, or one weapon at a time)")
)
_MIXED_FNP = Message(
    N_(
        "Devastating Wounds against models whose Feel No Pain differs within the bodyguard or "
        "between its CHARACTERs: too many outcomes to follow in about a second"
    )
)
_MIXED_FNP_ADVICE = Message(
    N_("analyse the models of each Feel No Pain separately, or fewer attacks at a time")
)
_TOO_MANY_OUTCOMES = Message(N_("too many outcomes to follow in about a second"))


def _too_large(detail: Message, advice: Message = _SPLIT) -> ProfileError:
    return ProfileError(
        "attacks",
        N_("this attack is too large to analyse exactly (%(detail)s): %(advice)s"),
        detail=detail,
        advice=advice,
    )


def _too_long() -> ProfileError:
    return _too_large(
        Message(
            N_("its exact odds would be fractions of more than %(digits)s digits"),
            {"digits": f"{MAX_EXACT_DIGITS:,}"},
        )
    )


def _check_digits(bits: int) -> None:
    """Refuse a result whose common denominator has ``bits`` bits (:data:`MAX_EXACT_DIGITS`)."""
    if bits > _MAX_EXACT_BITS:
        raise _too_long()


def _mul_units(a_bits: int, b_bits: int) -> int:
    """Work units of one product of integers of ``a_bits`` and ``b_bits`` bits (one unit is
    a state update on 256-bit integers): schoolbook below CPython's Karatsuba cut-off,
    Karatsuba (``n ** 1.585``, per chunk of the shorter factor) above. Measured on CPython 3.11
    within about 25% from 256 to 4,000,000 bits."""
    lo, hi = sorted((a_bits, b_bits))
    school = 2 * (1 + lo // 256) * (1 + hi // 256)
    karatsuba = 7 * (hi // max(lo, 1) + 1) * int((1 + lo / 256) ** 1.585)
    return min(school, karatsuba)


def _render_units(d: Dist) -> int:
    """Work units of serialising ``d`` (two reduced fractions per value: a gcd and two decimal
    conversions each, quadratic in the size of the total in CPython's integers). The answer
    is reduced and written by GMP now (``Dist.reduced_rows``, ``mpz.digits``): measured at
    2-7 ns per unit of the CPython model on issue 18's answers (bench_combat_heavy, load 12),
    a third of it is charged, the chains' 10-25 ns per unit."""
    return _rows_units(len(d), d.total.bit_length())


def _rows_units(values: int, bits: int) -> int:
    """Work units of serialising ``values`` probabilities over a total of ``bits`` bits."""
    return values * (400 + 12 * _mul_units(bits, bits)) // 3


def _answer_units(layout: Layout, parts: Iterable[Dist]) -> int:
    """Work units of serialising the answer, counted before the chain runs so that a request
    whose answer alone would pass the budget is refused before the work: ``parts`` (the
    stages, already known) exactly, the chain's distributions (damage, models destroyed, per
    group) at the longest denominator :data:`MAX_EXACT_DIGITS` lets through."""
    values = layout.total_wounds + 1 + layout.total_models + 1
    values += sum(n + 1 for n in layout.group_sizes().values())
    return sum(_render_units(d) for d in parts) + _rows_units(values, _MAX_EXACT_BITS)


def _check_budget(request: CombatRequest) -> None:
    """Refuse, before any work, what is certainly too large."""
    total_attacks = 0
    total_hits = 0
    for i, entry in enumerate(request.attacks):
        n_max, per_attack, _, _ = _weapon_bounds(request, entry)
        total_attacks += n_max
        total_hits += n_max * per_attack
        if n_max > MAX_ATTACKS_PER_ENTRY:
            raise ProfileError(
                f"attacks[{i}].models",
                N_("up to %(attacks)s attacks; at most %(most)s per entry"),
                attacks=n_max,
                most=MAX_ATTACKS_PER_ENTRY,
            )
        if n_max * per_attack > MAX_HITS_PER_ENTRY:
            raise ProfileError(
                f"attacks[{i}].weapon.abilities",
                N_("up to %(hits)s hits; at most %(most)s per entry"),
                hits=n_max * per_attack,
                most=MAX_HITS_PER_ENTRY,
            )
    if total_attacks > MAX_TOTAL_ATTACKS or total_hits > MAX_TOTAL_HITS:
        raise ProfileError(
            "attacks",
            N_(
                "up to %(attacks)s attacks and %(hits)s hits in all; at most "
                "%(most_attacks)s attacks and %(most_hits)s hits per request"
            ),
            attacks=total_attacks,
            hits=total_hits,
            most_attacks=MAX_TOTAL_ATTACKS,
            most_hits=MAX_TOTAL_HITS,
        )
    layout = Layout(request.target)
    if not _LineChain.applies(layout) and _PrefixSplitChain.applies(layout, request):
        return  # it checks its own cost from the kernel (_PrefixSplitChain._forward_cost)
    if _LineChain.applies(layout) and len(request.attacks) == 1:
        return  # one weapon into identical models: the forward pass checks its own cost first
    work = estimate_work(request)
    if work > WORK_BUDGET * PRECHECK_FACTOR:
        raise _too_large(Message(N_("far too many outcomes to follow in about a second")))


def _live_counts(
    per_model: Dist, r0: int, q: int, models: int, limit: int | None
) -> tuple[list[int], int, int]:
    """The Horner coefficients of the live attacks, over small denominators.

    Each attack is "nothing happens" with weight ``r0`` out of ``q`` and live otherwise; with
    ``A`` the live rows' integer weights (over ``q``) and ``T`` the number of live attacks,
    the chain after all attacks is ``sum_t P(T = t) (A / (q - r0))**t``. Written
    ``sum_t d_t (A / q)**t`` with ``d_t = P(T = t) (q / (q - r0))**t``, the generating
    function of ``d`` is ``G_N(r0 / q + z)`` (``G_N`` that of the number of attacks): its
    denominators are powers of ``q / g`` (``g = gcd(q, r0)``), not of ``q - r0``, which is
    coprime to the dice and cancels only at the very end. Returns ``(h, den, g)`` with
    ``sum_t h[t] A**t / (den * g**t)`` the chain's operator: ``h`` the ``models``-th power
    of the per-model polynomial ``sum_j z**j sum_a w_a C(a, j) r0'**(a - j) q'**(amax - a)``
    (``r0' = r0 / g``, ``q' = q / g``), truncated after ``limit`` live attacks, and
    ``den = (per_model.total * q'**amax) ** models``."""
    g = math.gcd(q, r0)
    qr, rr = q // g, r0 // g
    amax = per_model.max
    poly = [0] * (amax + 1)
    for a, wa in per_model.weights().items():
        scale = wa * qr ** (amax - a)
        for j in range(a + 1):
            poly[j] += scale * math.comb(a, j) * rr ** (a - j)
    full = amax * models + 1
    cut = full if limit is None else min(full, limit + 1)
    if cut == full and models > 1:
        # every coefficient: Miller's recurrence (power_weights with a cut) for all but the
        # last, the leading coefficient's power for the last (poly[amax] > 0): 3x faster
        # than power_weights' one GMP power of the packed polynomial at these sizes (ten
        # coefficients of 250-350 bits, 30 models: 2-3 ms instead of 6-8)
        h = [*power_weights(poly, models, full - 1), poly[amax] ** models]
    else:
        h = power_weights(poly, models, cut)
    while len(h) > 1 and h[-1] == 0:
        h.pop()
    den: int = (per_model.total * qr**amax) ** models
    return h, den, g


def _horner_coefficients(h: list[int], c_up: int, g_up: int) -> tuple[list[int], int]:
    """``coef[t] = h[t] * c_up**t * g_up**(top - t)`` (``top = len(h) - 1``) and
    ``g_up**top``: the Horner coefficients of the live attacks over the divided rows. The
    powers are built once, incrementally, on GMP integers (a power per ``t`` of Python
    integers cost several milliseconds for the 270 live attacks of issue 18's heavy cases);
    Python integers out."""
    top = len(h) - 1
    cu, gu = mpz(c_up), mpz(g_up)
    ups = [mpz(1)]
    for _ in range(top):
        ups.append(ups[-1] * cu)
    coef = [0] * (top + 1)
    scale = mpz(1)
    for t in range(top, -1, -1):
        if h[t]:
            coef[t] = int(h[t] * ups[t] * scale)
        if t:
            scale *= gu
    return coef, int(scale)


def _horner_bounds(coef: list[int], qq: int) -> list[int]:
    """``u[t] = sum_{s >= t} coef[s] qq**(s - t)``: with live rows of sum at most ``qq``,
    the weights of the Horner sum at step ``t`` are at most ``u[t]`` times those of the
    start (the slot widths)."""
    u = [0] * len(coef)
    acc = 0
    for t in range(len(coef) - 1, -1, -1):
        acc = acc * qq + coef[t]
        u[t] = acc
    return u


def _bits(n: int) -> int:
    """Bits of ``n`` (typed: big products are ``Any`` to mypy)."""
    return n.bit_length()


def _slots(packed: int, step: int) -> int:
    """Slots of ``step`` bytes that ``packed`` occupies."""
    return (packed.bit_length() + step * 8 - 1) // (step * 8)


def _kept_units(rem: int, gap: int, scale: list[int], simple: bool) -> int:
    """Sum over the steps ``t = 0 .. len(scale) - 1`` of the pending counts a state carries
    (see ``kept`` in :meth:`_Chain.apply_weapon`): ``rem - min(t, gap)``, at most 1 when
    ``simple``, none when not positive; each step weighted by ``scale[t]``, the work of one
    count then."""
    top = len(scale) - 1
    total = 0
    for t in range(min(top + 1, gap, rem)):
        total += (1 if simple else rem - t) * scale[t]
    if rem > gap and gap <= top:
        total += (1 if simple else rem - gap) * sum(scale[gap:])
    return total


def _by_shift(
    entries: list[tuple[int, int, int]], skip: int
) -> list[tuple[int, list[tuple[int, int]]]]:
    """(shift, [(destination, weight), ...]) of a row's transitions, grouped by the pending
    mortal wounds they add (one shift of the packed weights for each), fewest first; the
    destination ``skip`` (destroyed: not carried) left out."""
    grouped: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for dst, m_add, wt in entries:
        if dst != skip:
            grouped[m_add].append((dst, wt))
    return sorted(grouped.items())


def _pack(values: list[int], step: int) -> int:
    """One integer holding ``values`` in slots of ``step`` bytes, the first lowest: a GMP
    integer (``mpz``), as every packed row of the chains is, for GMP's faster arithmetic on
    big integers; the values read back (:func:`_unpack`) are Python integers."""
    packed: int = mpz.from_bytes(b"".join(x.to_bytes(step, "little") for x in values), "little")
    return packed


def _unpack(packed: int, count: int, step: int) -> list[int]:
    """The ``count`` slots of ``step`` bytes of ``packed``."""
    raw = packed.to_bytes(count * step, "little")
    return [int.from_bytes(raw[i : i + step], "little") for i in range(0, count * step, step)]


def _unpack_mpz(packed: int, count: int, step: int) -> list[int]:
    """:func:`_unpack` as GMP integers (``gmpy2.unpack``: no conversion to Python integers,
    for values that stay inside the chains)."""
    out: list[int] = unpack(packed, step * 8)[:count]
    return out + [0] * (count - len(out))


def _repack(packed: int, count: int, old: int, new: int) -> int:
    """``packed`` (``count`` slots of ``old`` bytes) in slots of ``new`` >= ``old`` bytes
    (``gmpy2``'s unpack and pack: several times faster than slicing the bytes in Python)."""
    out: int = pack(unpack(packed, old * 8)[:count], new * 8)
    return out


def _mask(bits: int) -> int:
    """``2**bits - 1`` as a GMP integer (the packed rows' masks)."""
    mask: int = bit_mask(bits)
    return mask


def _lowest_terms(den: int, weights: dict[Key, int]) -> tuple[int, dict[Key, int]]:
    """``den`` and ``weights`` divided by their gcd, by GMP (its gcd and exact divisions are
    subquadratic, CPython's are not: the weights are thousands of digits long); Python
    integers out."""
    g = gcd(den, *weights.values())
    return int(divexact(den, g)), {k: int(divexact(x, g)) for k, x in weights.items()}


class _Budget:
    """Counts the chain's work as it runs (state updates weighted by the size of the
    integers) and stops the analysis once :data:`WORK_BUDGET` is spent, so that no request
    can keep a worker busy: the caller gets a ProfileError (a 422), never a hang."""

    def __init__(self) -> None:
        self.spent = 0
        # why the refusal, said to the player (set by :func:`analyze` for a known cause)
        self.detail = _TOO_MANY_OUTCOMES
        self.advice = _SPLIT

    def refuse(self) -> ProfileError:
        return _too_large(self.detail, self.advice)

    def spend(self, updates: int, bits: int) -> None:
        self.spent += updates * (1 + bits // 256)
        if self.spent > WORK_BUDGET:
            raise self.refuse()


def _wound_loss(slot: ModelSlot, w: _Weapon, situation: Situation) -> tuple[dict[int, int], int]:
    """Weights of the wounds one wound-to-save makes ``slot`` lose (0 if saved), uncapped."""
    choice = choose_save(slot.save, slot.invulnerable_save, w.rules.weapon, situation)
    p_fail = Fraction(*save_fail_weights(choice, situation.reroll_saves))
    if p_fail == 0:
        return {0: 1}, 1
    lost = _thin(w.damage, _fnp_lose(slot.feel_no_pain))
    d = Dist.mixture([(1 - p_fail, _ZERO), (p_fail, lost)]) if p_fail < 1 else lost
    return d.weights(), d.total


class _Kernel(NamedTuple):
    """One attack of a weapon on the general chain (:meth:`_Chain._kernel`): per model
    profile the wounds one wound-to-save makes it lose (over ``q1``), ``q`` the total of an
    attack's weights, ``r0`` the weight of "nothing happens" (the same from every line state,
    the least favourable save), ``qq = q - r0``, the "nothing" weight of each profile, their
    least, and the live transitions ``(next state, mortal wounds added, weight)`` of a line
    state."""

    losses: dict[tuple[int, int | None, int | None], tuple[dict[int, int], int]]
    q1: int
    q: int
    r0: int
    qq: int
    null_w: list[int]
    s_min: int
    live_row: Callable[[int], list[tuple[int, int, int]]]


class _Chain:
    """The target's state distribution: key = m * NS + b * NC + c -> integer weight."""

    # drop the pending counts that guaranteed progress makes certain to destroy the unit
    # (only where a count past :meth:`remaining` means "destroyed")
    pruned = True
    # ... for Precision too, along its line (CHARACTERs first): sound where :meth:`remaining`
    # counts the wounds of both lines, so that a step along either brings it down
    precision_pruned = True

    def __init__(self, layout: Layout, uniform_fnp: bool, budget: _Budget) -> None:
        self.layout = layout
        self.NC = layout.C + 1
        self.NS = (layout.B + 1) * self.NC
        self.wiped = layout.B * self.NC + layout.C
        self.total_wounds = layout.total_wounds
        self.uniform_fnp = uniform_fnp
        self.v: dict[int, int] = {0: 1}
        self.den = 1
        self.budget = budget
        self.rem = self.remaining()

    def remaining(self) -> list[int]:
        """Per line state, the pending mortal wounds from which the unit is certainly
        destroyed (0 once destroyed; unbounded unless Feel No Pain is uniform)."""
        out = []
        for idx in range(self.NS):
            b, c = divmod(idx, self.NC)
            if idx == self.wiped:
                out.append(0)
            elif self.uniform_fnp:
                out.append(self.total_wounds - b - c)
            else:
                out.append(1 << 62)
        return out

    def _loss(
        self, slot: ModelSlot, w: _Weapon, situation: Situation
    ) -> tuple[dict[int, int], int]:
        return _wound_loss(slot, w, situation)

    def _kernel(
        self, w: _Weapon, situation: Situation, outcome: dict[tuple[int, int], int], total: int
    ) -> _Kernel:
        """One attack of ``w`` from any line state, over ``q``: the rows built lazily, for
        the line states actually reached."""
        layout = self.layout
        nc = self.NC
        # one wound to save: wounds lost by each distinct model profile, common denominator
        losses: dict[tuple[int, int | None, int | None], tuple[dict[int, int], int]] = {}
        for slot in layout.bodyguard + layout.characters:
            prof = (slot.save, slot.invulnerable_save, slot.feel_no_pain)
            if prof not in losses:
                losses[prof] = self._loss(slot, w, situation)
        q1 = 1
        for _, tot in losses.values():
            q1 = q1 * tot // math.gcd(q1, tot)
        save_rows: dict[int, dict[int, int]] = {}

        def save_row(idx: int) -> dict[int, int]:
            row = save_rows.get(idx)
            if row is not None:
                return row
            b, c = divmod(idx, nc)
            target = layout.slot_for_attack(b, c, w.rules.precision)
            if target is None:
                row = {idx: q1}
            else:
                line, slot = target
                weights, tot = losses[(slot.save, slot.invulnerable_save, slot.feel_no_pain)]
                scale = q1 // tot
                merged: dict[int, int] = defaultdict(int)
                for loss, weight in weights.items():
                    nb, ncc = layout.after_damage(b, c, line, loss)
                    merged[nb * nc + ncc] += weight * scale
                row = dict(merged)
            save_rows[idx] = row
            return row

        k_max = max(k for k, _ in outcome)
        q = total * q1**k_max
        rows: dict[int, list[tuple[int, int, int]]] = {}

        def attack_row(idx: int) -> list[tuple[int, int, int]]:
            """(next state, mortal wounds added, weight) of one attack, over ``q``."""
            row = rows.get(idx)
            if row is not None:
                return row
            powers = [{idx: 1}]  # K^k from idx, over q1^k
            for _ in range(k_max):
                acc: dict[int, int] = defaultdict(int)
                for mid, wt in powers[-1].items():
                    for dst, wt2 in save_row(mid).items():
                        acc[dst] += wt * wt2
                powers.append(acc)
            merged: dict[tuple[int, int], int] = defaultdict(int)
            for (k, m), pw in outcome.items():
                scale = pw * q1 ** (k_max - k)
                for dst, wt in powers[k].items():
                    merged[(dst, m)] += wt * scale
            row = [(dst, m, wt) for (dst, m), wt in merged.items()]
            rows[idx] = row
            return row

        # An attack whose wounds are all saved (or all their damage negated) at whichever
        # model they reach, and that makes no mortal wound, changes nothing: the chain is
        # ``r0 I + (q - r0) A'`` over ``q``. Only the attacks that can change something
        # ("live" attacks) are stepped through; their number is the number of attacks
        # thinned by ``(q - r0) / q`` (convolved per model, not enumerated).
        null_w = [weights.get(0, 0) * (q1 // tot) for weights, tot in losses.values()]
        s_min = min(null_w)
        r0 = sum(pw * s_min**k * q1 ** (k_max - k) for (k, m), pw in outcome.items() if m == 0)
        qq = q - r0

        def live_row(idx: int) -> list[tuple[int, int, int]]:
            row = attack_row(idx)
            out = []
            for dst, m_add, wt in row:
                if dst == idx and m_add == 0:
                    wt -= r0
                    if wt == 0:
                        continue
                out.append((dst, m_add, wt))
            return out

        return _Kernel(losses, q1, q, r0, qq, null_w, s_min, live_row)

    def apply_weapon(
        self,
        w: _Weapon,
        situation: Situation,
        outcome: dict[tuple[int, int], int],
        total: int,
        kernel: _Kernel | None = None,
    ) -> None:
        """Run every attack of one weapon: one chain step per attack, the number of attacks
        random (independent per model), state carried over. Kernel rows are built only for
        the line states actually reached (``kernel``: one already built, its rows shared)."""
        if kernel is None:
            kernel = self._kernel(w, situation, outcome, total)
        layout = self.layout
        nc = self.NC
        losses, q1, q, r0 = kernel.losses, kernel.q1, kernel.q, kernel.r0
        null_w, s_min, live_row = kernel.null_w, kernel.s_min, kernel.live_row
        qq = q - r0
        if qq == 0:  # nothing this weapon does can harm the target
            return
        # When every model saves alike and mortal wounds are capped, a live attack always
        # takes at least one wound (or adds a pending mortal wound): after ``total_wounds``
        # live attacks the unit is certainly destroyed, whatever the number that follow.
        bounded = len(set(null_w)) == 1 and (self.uniform_fnp or all(m == 0 for _, m in outcome))
        limit = self.total_wounds if bounded else None
        h, h_den, g = _live_counts(w.per_model, r0, q, w.entry.models, limit)
        top = len(h) - 1
        ns = self.NS
        wiped = self.wiped
        rem = self.rem
        simple = all(m == 0 for _, m in outcome)

        shift_rows: dict[int, list[tuple[int, list[tuple[int, int]]]]] = {}
        start = self.v
        den_v = self.den
        # Pending mortal wounds do not change where the next wound goes: for each line state
        # the weights of m = 0, 1, 2... are packed into one integer (slots of ``step`` bytes),
        # so one operation moves every pending count. The weights of the Horner sum at step
        # t are at most den_v * u[t] (:func:`_horner_bounds`): the slots start narrow and widen.
        capped = self.uniform_fnp and not simple

        def width_for(t: int) -> int:
            return widths[max(t - 8, 0)]

        # Pruning (no Precision; pending mortal wounds capped or none): from a line state,
        # every live attack takes at least one wound or adds a pending mortal wound until the
        # attacks reach a model that saves better than the weakest (where a live attack may
        # change nothing). With ``t`` live attacks to come, a state ``d`` wounds before such a
        # model ends at least ``min(t, d)`` further along: the pending counts that would then
        # cover every remaining wound are destroyed already, and are not carried.
        precision = w.rules.precision
        prune = self.pruned and (capped or simple) and (self.precision_pruned or not precision)
        stall_gap = self._stall_gaps(losses, q1, s_min, precision) if prune else []
        # the states the attacks walk through from the first: with Precision the CHARACTERs'
        # line first, then the bodyguard's
        if precision and layout.C:
            line_states = list(range(layout.C))
            line_states += [b * nc + layout.C for b in range(layout.B + 1)]
        else:
            line_states = [b * nc for b in range(layout.B + 1)]
            line_states += [layout.B * nc + c for c in range(1, layout.C + 1)]

        def kept(idx: int, t: int) -> int | None:
            """Pending counts carried for ``idx`` at step ``t`` (0: the state is dropped;
            ``None``: every count, those of earlier weapons not being capped)."""
            left = rem[idx] - min(t, stall_gap[idx]) if prune else rem[idx]
            if left <= 0:
                return 0
            return left if capped else None

        packed_rows: dict[int, list[int]] = defaultdict(list)
        for key, weight in start.items():
            m, idx = divmod(key, ns)
            if idx != wiped:
                counts = packed_rows[idx]
                counts.extend([0] * (m + 1 - len(counts)))
                counts[m] = weight
        # From states on the line (``line_states``) the attacks reach only states on the
        # line: their rows are all there is, and the factor ``common`` their weights share
        # with ``q`` is divided out (steps over ``q / common``; of ``g**t`` only
        # ``(g / gcd(common, g))**t`` is left in the denominators), as in the line chain.
        common = 1
        if prune and set(packed_rows) <= set(line_states):
            common = q
            for idx in line_states:
                if idx != wiped:
                    shift_rows[idx] = rows_idx = _by_shift(live_row(idx), wiped)
                    for _, targets in rows_idx:
                        for _, wt in targets:
                            common = math.gcd(common, wt)
            if common > 1:
                for idx, rows_idx in shift_rows.items():
                    shift_rows[idx] = [
                        (m_add, [(dst, wt // common) for dst, wt in targets])
                        for m_add, targets in rows_idx
                    ]
        c2 = math.gcd(common, g)
        c_up, g_up = common // c2, g // c2
        coef, g_top = _horner_coefficients(h, c_up, g_up)
        final_den = den_v * h_den * g_top
        widths = [(_bits(den_v * u) + 8) // 8 for u in _horner_bounds(coef, -(-qq // common))]
        step = width_for(top)
        packed_start = {idx: _pack(counts, step) for idx, counts in packed_rows.items()}
        # Refuse at once what the budget would stop later: line states x pending counts x
        # live attacks x transitions, weighted like the budget.
        width = len(live_row(0)) if wiped else 1
        v_bits = max((x.bit_length() for x in packed_start.values()), default=0)
        inject = len(packed_start) * _mul_units(v_bits, max(c.bit_length() for c in coef))
        if prune:
            # per state its own transitions, per step the slots' width then (one width for
            # all, the widest, and the first state's transitions counted 58M units for
            # Precision from 30 x D6 into 28 W3 + sgt + Captain, which spends 34.6M; 35.4M now)
            states = set(line_states) | set(packed_start)  # along the line
            scale = [1 + widths[max(t - 8, 0)] // 32 for t in range(top + 1)]
            ahead = top * inject + sum(
                len(live_row(i)) * _kept_units(rem[i], stall_gap[i], scale, not capped)
                for i in states
                if i != wiped
            )
        else:
            # capped: at most the counts kept per state (all of a unit's wounds, half on average)
            cells = min(self.total_wounds // 2 + 1, max(rem))
            pending = cells if capped else 1 if simple else top * 4 + 1
            ahead = top * (ns * pending * width * (1 + final_den.bit_length() // 256) // 2 + inject)
            # a quarter of it: measured 6-7 times what the chain then spends (Precision into
            # 18 W3 + sgt + Captain, 5 to 20 x D6: 12 / 42 / 156M estimated, 1.7 / 6.5 / 25M
            # spent), which refused a 50 ms answer; the running budget still stops the rest
            ahead //= 4
        if self.budget.spent + ahead > WORK_BUDGET:
            raise self.budget.refuse()
        # Horner: acc = sum_t coef[t] * v A'^t, over den_v * h_den * g**top; the destroyed
        # state is not carried: its weight is what the others leave of ``final_den``.
        masks: dict[tuple[int, int], int] = {}
        acc: dict[int, int] = {}
        for t in range(top, -1, -1):
            if widths[t] > step:
                new = width_for(t)
                acc = {i: _repack(x, _slots(x, step), step, new) for i, x in acc.items()}
                packed_start = {
                    i: _repack(x, _slots(x, step), step, new) for i, x in packed_start.items()
                }
                step = new
            bits = step * 8
            # mutable GMP integers: the sums grow in place (each is masked, or converted,
            # into an mpz below), as in _PrefixSplitChain._forward
            nxt: dict[int, int] = defaultdict(xmpz)
            updates = 0
            for idx, packed in acc.items():
                groups = shift_rows.get(idx)
                if groups is None:
                    groups = _by_shift(live_row(idx), wiped)
                    if common > 1:  # every row is computed above then: never met
                        assert all(wt % common == 0 for _, ts in groups for _, wt in ts)
                        groups = [
                            (m_add, [(d, wt // common) for d, wt in ts]) for m_add, ts in groups
                        ]
                    shift_rows[idx] = groups
                for m_add, targets in groups:
                    shifted = packed << (m_add * bits) if m_add else packed
                    for dst, wt in targets:
                        nxt[dst] += shifted * wt
                    updates += len(targets) * (packed.bit_length() // bits + 1)
            c = coef[t]
            if c:
                for idx, packed in packed_start.items():
                    nxt[idx] += packed * c
                updates += len(packed_start)
                self.budget.spend(len(packed_start) * _mul_units(v_bits, c.bit_length()), 0)
            if capped or prune:  # pending counts that leave the unit destroyed: not carried
                acc = {}
                for dst, x in nxt.items():
                    n = kept(dst, t)
                    if n is None:
                        acc[dst] = mpz(x)
                    elif n > 0 and x:
                        cut = masks.get((n, step))
                        if cut is None:
                            cut = masks[(n, step)] = _mask(n * bits)
                        acc[dst] = x & cut
            else:
                acc = {dst: mpz(x) for dst, x in nxt.items()}
            self.budget.spend(updates, bits)
        out: dict[int, int] = {}
        kept_weight = 0
        for idx, packed in acc.items():
            for m, weight in enumerate(_unpack(packed, _slots(packed, step), step)):
                if weight:
                    out[m * ns + idx] = weight
                    kept_weight += weight
        if final_den > kept_weight:
            out[wiped] = final_den - kept_weight
        self.v = out
        self.den = final_den
        self._reduce()

    def _stall_gaps(
        self,
        losses: dict[tuple[int, int | None, int | None], tuple[dict[int, int], int]],
        q1: int,
        s_min: int,
        precision: bool = False,
    ) -> list[int]:
        """Per line state, the wounds before the first model (from the one at the head on)
        that saves better than the weakest, along the bodyguard line then the character
        line (with Precision the character line first); past the end when there is none."""
        layout = self.layout

        def stalls(b: int, c: int) -> bool:
            target = layout.slot_for_attack(b, c, False)
            assert target is not None
            s = target[1]
            weights, tot = losses[(s.save, s.invulnerable_save, s.feel_no_pain)]
            return weights.get(0, 0) * (q1 // tot) > s_min

        big, cap = layout.B, layout.C
        zb = [big] * (big + 1)
        for b in range(big - 1, -1, -1):
            zb[b] = b if stalls(b, 0) else zb[b + 1]
        zc = [cap] * (cap + 1)
        for c in range(cap - 1, -1, -1):
            zc[c] = c if stalls(big, c) else zc[c + 1]
        gaps = []
        for idx in range(self.NS):
            b, c = divmod(idx, self.NC)
            if precision and cap:  # the CHARACTERs (the same models as zc's) first
                gaps.append(zc[c] - c if zc[c] < cap else cap - c + zb[b] - b)
            elif zb[b] < big:
                gaps.append(zb[b] - b)
            else:
                gaps.append(big - b + zc[c] - c)
        return gaps

    def apply_mortal_wounds(self) -> None:
        """Apply the pending mortal wounds (after all normal damage: RULINGS 9)."""
        layout = self.layout
        ns = self.NS
        by_m: dict[int, dict[int, int]] = defaultdict(dict)
        for key, weight in self.v.items():
            m, idx = divmod(key, ns)
            by_m[m][idx] = by_m[m].get(idx, 0) + weight
        if set(by_m) <= {0}:
            return
        if self.uniform_fnp:  # already thinned: they simply spill over
            out: dict[int, int] = defaultdict(int)
            for m, vec in by_m.items():
                for idx, weight in vec.items():
                    b, c = divmod(idx, self.NC)
                    nb, nc = layout.after_mortal(b, c, m)
                    out[nb * self.NC + nc] += weight
            self.v = dict(out)
            return
        # Each mortal wound checked by the Feel No Pain of the model it lands on (Horner).
        m_max = max(by_m)
        mw_rows: list[list[tuple[int, int]]] = []
        for idx in range(ns):
            b, c = divmod(idx, self.NC)
            target = layout.slot_for_mortal(b, c)
            if target is None:
                mw_rows.append([(idx, 6)])
                continue
            _, slot = target
            lose = sum(1 for u in FACES if not fnp_negates(u, slot.feel_no_pain))
            nb, nc = layout.after_mortal(b, c, 1)
            row = [(nb * self.NC + nc, lose)]
            if lose < 6:
                row.append((idx, 6 - lose))
            mw_rows.append(row)
        acc: dict[int, int] = dict(by_m.get(m_max, {}))
        scale = 1
        for m in range(m_max - 1, -1, -1):
            nxt: dict[int, int] = defaultdict(int)
            for idx, weight in acc.items():
                for nidx, tw in mw_rows[idx]:
                    nxt[nidx] += weight * tw
            scale *= 6
            self.budget.spend(2 * len(acc), self.den.bit_length() + 3 * (m_max - m))
            for idx, weight in by_m.get(m, {}).items():
                nxt[idx] += weight * scale
            acc = nxt
        self.v = dict(acc)
        self.den *= scale
        self._reduce()

    def _reduce(self) -> None:
        self.v = {k: w for k, w in self.v.items() if w}
        self.den, self.v = _lowest_terms(self.den, self.v)
        # The common denominator of the answer: reduced, it is often much shorter than the
        # one the steps work over (whose cost the budget counts), so it is checked here.
        _check_digits(self.den.bit_length())

    def final(self) -> dict[tuple[int, int], int]:
        """(b, c) -> weight, once no mortal wound is pending."""
        out: dict[tuple[int, int], int] = defaultdict(int)
        for key, weight in self.v.items():
            m, idx = divmod(key, self.NS)
            assert m == 0
            out[divmod(idx, self.NC)] += weight
        return dict(out)


def _comb_up(r: int, i: int) -> int:
    """``C(r + i - 1, i)``, the coefficient of ``x**i`` in ``(1 - x)**-r`` (1, 0, 0... for
    ``r = 0``)."""
    return math.comb(r + i - 1, i) if r else int(i == 0)


class _HardChain(_Chain):
    """The general chain for :class:`_TwoFeelNoPainChain`: mortal wounds thinned by the
    bodyguard's Feel No Pain as they are made, and only the pending counts that stay on the
    bodyguard line (``m < B - b``) carried; the others are followed by :class:`_CountChain`."""

    # a step along the CHARACTERs' line leaves the bodyguard's wounds as they are
    precision_pruned = False

    def __init__(self, layout: Layout, budget: _Budget) -> None:
        super().__init__(layout, True, budget)

    def remaining(self) -> list[int]:
        """Per line state, the bodyguard's remaining wounds (0 once it is destroyed)."""
        big = self.layout.B
        return [max(big - idx // self.NC, 0) for idx in range(self.NS)]


class _CountChain(_Chain):
    """For :class:`_TwoFeelNoPainChain`: the pending mortal wounds thinned by the CHARACTERs'
    Feel No Pain as they are made, their counts followed modulo ``y**C`` (from ``C`` on they
    are dropped, not folded into "destroyed"): per line state ``s`` the first ``C``
    coefficients of their generating function ``G_s(y)``, which is all the CHARACTERs' share
    of the answer needs. Nothing is pruned (a count says nothing about the bodyguard)."""

    pruned = False

    def __init__(self, layout: Layout, budget: _Budget) -> None:
        super().__init__(layout, True, budget)

    def remaining(self) -> list[int]:
        """``C`` counts per line state (none once the unit is destroyed)."""
        cap = self.layout.C
        return [0 if idx == self.wiped else cap for idx in range(self.NS)]

    def coefficients(self) -> dict[int, list[int]]:
        """Line state -> the ``C`` coefficients of ``G_s(y)``, over :attr:`den`."""
        out: dict[int, list[int]] = {}
        cap = self.layout.C
        for key, weight in self.v.items():
            m, idx = divmod(key, self.NS)
            if idx != self.wiped and m < cap and weight:
                out.setdefault(idx, [0] * cap)[m] += weight
        return out


class _TwoFeelNoPainChain:
    """A unit whose CHARACTER line has another Feel No Pain than its bodyguard line (every
    bodyguard model with one Feel No Pain, every CHARACTER with another, better or worse),
    with Devastating Wounds. The pending mortal wounds go to the bodyguard first, spilling
    over (RULINGS 9, 11), then to the CHARACTERs; they cannot be capped, since a Feel No Pain
    may negate any number of them.

    A raw mortal wound is lost with probability ``p_b`` on the bodyguard, ``p_c`` on a
    CHARACTER. From a line state ``s`` with ``R`` bodyguard wounds left and ``H_s(z)`` the
    generating function of the raw pending count, the bodyguard takes ``min(m, R)`` of the
    ``m`` wounds left after its own Feel No Pain, and the CHARACTERs' share has the
    generating function (in ``y``, one wound lost per power)
    ``w**-R (G_s(w) - sum_{m < R} P_s(m) w**m)``, with ``G_s(x) = H_s(1 - p_b + p_b x)``
    (``P_s`` its coefficients: the counts thinned by the bodyguard's Feel No Pain),
    ``w = 1 - q + q y`` and ``q = p_c / p_b``. This is an identity of polynomials (the
    residues of ``H_s`` at ``1 - p_b`` and ``1 - p_c``, where the mortal wounds' walk
    changes Feel No Pain), valid for ``q`` below or above 1, and
    ``G_s(w) = H_s(1 - p_c + p_c y)`` is the generating function of the counts thinned by
    the CHARACTERs' Feel No Pain. So:

    - the counts ``m < R`` thinned by ``p_b`` are followed exactly by :class:`_HardChain`;
    - the first ``C`` coefficients of ``G_s(w)`` by :class:`_CountChain` (counts thinned by
      ``p_c`` as they are made, modulo ``y**C``).
    Both are exact; the answer is their combination (:meth:`final`), in integers (``1 - q``
    is negative when the CHARACTERs' Feel No Pain is the worse one: signed, not packed)."""

    def __init__(self, layout: Layout, budget: _Budget) -> None:
        self.layout = layout
        self.low = _HardChain(layout, budget)
        self.high = _CountChain(layout, budget)
        self.p_b = _fnp_lose(layout.bodyguard[0].feel_no_pain)
        self.p_c = _fnp_lose(layout.characters[0].feel_no_pain)
        q = self.p_c / self.p_b
        self.a = q.denominator - q.numerator  # w = (a + b y) / d; a < 0 when q > 1
        self.b = q.numerator
        self.d = q.denominator
        self.den = 1

    @staticmethod
    def applies(layout: Layout) -> bool:
        """Bodyguard and CHARACTERs each of one Feel No Pain, the two different."""
        if not layout.characters or not layout.bodyguard:
            return False
        body = {s.feel_no_pain for s in layout.bodyguard}
        chars = {s.feel_no_pain for s in layout.characters}
        if len(body) != 1 or len(chars) != 1:
            return False
        return _fnp_lose(chars.pop()) != _fnp_lose(body.pop())

    def apply_weapon(
        self, w: _Weapon, situation: Situation, outcome: dict[tuple[int, int], int], total: int
    ) -> None:
        """``outcome``: one attack with its mortal wounds thinned by the bodyguard's Feel No
        Pain (the hard chain's); the count chain's are thinned by the CHARACTERs'."""
        kernel = self.low._kernel(w, situation, outcome, total)
        if w.rules.devastating:
            outcome_c, total_c = _attack_outcome(w, _thin(w.damage, self.p_c))
            kernel_c = self.high._kernel(w, situation, outcome_c, total_c)
        else:  # no mortal wound: both chains step through the same rows
            outcome_c, total_c, kernel_c = outcome, total, kernel
        self.high.apply_weapon(w, situation, outcome_c, total_c, kernel_c)
        self.low.apply_weapon(w, situation, outcome, total, kernel)

    def apply_mortal_wounds(self) -> None:
        """Nothing to do here: :meth:`final` places them."""

    def final(self) -> dict[tuple[int, int], int]:
        """(b, c) -> weight over :attr:`den`: the pending wounds kept on the bodyguard
        (exact counts), then those past it read from the count chain's coefficients."""
        layout, low, high = self.layout, self.low, self.high
        nc, ns = low.NC, low.NS
        big, cap = layout.B, layout.C
        by_state: dict[int, dict[int, int]] = defaultdict(dict)
        for key, weight in low.v.items():
            m, idx = divmod(key, ns)
            # only the counts that stay on the bodyguard (``m < R``): a chain step that adds
            # no mortal wound does not drop the others (they are the count chain's)
            if weight and m < big - idx // nc:
                by_state[idx][m] = weight
        g_high = high.coefficients()
        a, b, d = self.a, self.b, self.d
        exact_w: dict[tuple[int, int], int] = defaultdict(int)  # over low.den
        for idx, counts in by_state.items():
            sb, sc = divmod(idx, nc)
            for m, weight in counts.items():  # m < R: the bodyguard takes them all
                exact_w[(sb + m, sc)] += weight
        # Every weight over one denominator ``den = high.den * low.den * d**(B-1) *
        # a**(B+C-1)``: a state's tail is over ``high.den * low.den * d**(R-1) * a**(R+k-1)``
        # (``k`` the CHARACTERs' wounds left), a factor of it.
        d_top, a_top = max(big - 1, 0), big + cap - 1
        den = high.den * low.den * d**d_top * a**a_top
        weights: dict[tuple[int, int], int] = defaultdict(int)
        up = high.den * d**d_top * a**a_top
        for pos, weight in exact_w.items():
            weights[pos] += weight * up
        for idx in set(by_state) | set(g_high):
            sb, sc = divmod(idx, nc)
            if sc >= cap:
                continue
            keep = cap - sc  # the CHARACTERs' wounds left: y**keep and beyond destroy them
            rem = max(big - sb, 0)
            counts = by_state.get(idx, {})
            # sum_{m < R} P(s, m) (a + b y)**m d**(R - 1 - m), by Horner, truncated
            poly = [0] * keep
            for m in range(rem - 1, -1, -1):
                poly = [poly[j] * a + (poly[j - 1] * b if j else 0) for j in range(keep)]
                poly[0] += counts.get(m, 0) * d ** (rem - 1 - m)
            d_pow = max(rem - 1, 0)
            low_den = low.den * d**d_pow
            g_s = g_high.get(idx, [0] * cap)
            # the difference over high.den * low_den
            diff = [g_s[j] * low_den - (poly[j] * high.den if rem else 0) for j in range(keep)]
            # times w**-R = d**R (a + b y)**-R = d**R a**-R sum_i C(R + i - 1, i) (-b / a)**i y**i,
            # over a**(R + keep - 1): integer coefficients
            top_a = rem + keep - 1
            inv = [
                d**rem * _comb_up(rem, i) * (-b) ** i * a ** (top_a - rem - i) for i in range(keep)
            ]
            lift = d ** (d_top - d_pow) * a ** (a_top - top_a)  # to ``den``
            for j in range(keep):
                num = sum(inv[i] * diff[j - i] for i in range(j + 1))
                if num:
                    weights[(big, sc + j)] += num * lift
        if den < 0:  # a < 0 to an odd power: the same fractions, signs moved
            den = -den
            weights = defaultdict(int, {k: -x for k, x in weights.items()})
        kept = sum(weights.values())
        wiped = (big, cap)
        weights[wiped] += den - kept
        weights = {k: x for k, x in weights.items() if x}
        assert all(x > 0 for x in weights.values())
        self.den, weights = _lowest_terms(den, weights)
        _check_digits(self.den.bit_length())
        return weights


def _virtual_rows(
    w: _Weapon,
    situation: Situation,
    model: ModelSlot,
    q1: int,
    outcome: dict[tuple[int, int], int],
    r0: int,
    pos: int,
) -> list[tuple[int, int, int]]:
    """The live transitions ``(next position, mortal wounds added, weight)`` of one attack
    from position ``pos`` of a line of models like ``model`` (a model ends every ``W``
    wounds), over ``total * q1**k_max`` as :meth:`_Chain._kernel`'s rows (``q1`` a multiple
    of the model's own total; ``r0``, the weight of "nothing happens", left out)."""
    weights, tot = _wound_loss(model, w, situation)
    scale = q1 // tot
    size = model.wounds
    k_max = max(k for k, _ in outcome)
    powers: list[dict[int, int]] = [{pos: 1}]
    for _ in range(k_max):
        acc: dict[int, int] = defaultdict(int)
        for at, wt in powers[-1].items():
            end = (at // size + 1) * size
            for loss, wl in weights.items():
                acc[min(at + loss, end)] += wt * wl * scale
        powers.append(acc)
    merged: dict[tuple[int, int], int] = defaultdict(int)
    for (k, m), pw in outcome.items():
        pad = pw * q1 ** (k_max - k)
        for at, wt in powers[k].items():
            merged[(at, m)] += wt * pad
    merged[(pos, 0)] -= r0
    return [(at, m, wt) for (at, m), wt in merged.items() if wt]


def _cells(packed: int, step: int) -> list[int]:
    """Every slot of ``step`` bytes that ``packed`` occupies (GMP integers)."""
    return _unpack_mpz(packed, _slots(packed, step), step)


class _PrefixSplitChain:
    """One weapon (no Precision) into a unit of two Feel No Pains, answered by
    :class:`_TwoFeelNoPainChain`'s identity, with the line split: the bodyguard starts with
    its main models (all alike: the *prefix*, ``P`` wounds), then a short *tail* (the other
    bodyguard groups, the CHARACTERs). The general chains step every line state through
    every live attack (about 120 for issue 18's mixed unit); but on the prefix every live
    attack takes a wound or adds a pending one, so a path leaves the prefix (or stops
    mattering: its counts are followed modulo ``K``) within ``P + K`` live attacks, and only
    the tail needs every step:

    - *forward* on the prefix: the paths after exactly ``s`` live attacks from the first
      model, ``s <= P + K``, and the flux into the tail at each ``s``;
    - on the tail, ``sum_s flux_s . R_s`` with ``R_s = sum_(t >= s) c_t A**(t - s) f`` the
      value of a tail state entered at the ``s``-th live attack (``c_t`` the weight of
      exactly ``t`` live attacks in all, ``f`` the read-out), by :func:`.tail.tail_sum`: a
      forward pass over the first ``P + K`` steps, the rest (up to every live attack the
      weapon can make) in closed form through a polynomial that annihilates ``A``; plus
      the paths that end on the prefix, read out on the way.

    The bodyguard's counts (thinned by its Feel No Pain, ``e = b + m < B``): the paths that
    end on the prefix are those of a line of identical models (:class:`_LineChain`, exact
    for ``e < B``) less the same line's paths that reach position ``P``; both reach it
    through the same prefix, so one forward pass gives both fluxes (the real rows and the
    line's from the last two models). Only paths with fewer than ``B - P`` pending wounds
    can end on the bodyguard past ``P``: ``K = B - P``. The CHARACTERs' counts (thinned by
    theirs, modulo ``y**C``: ``K = C``): the prefix's own read-out is accumulated on the
    way. The read-outs are :class:`_TwoFeelNoPainChain`'s (``w**(b - B)`` on the bodyguard,
    ``y**c`` on a CHARACTER), in integers over ``a**(B + C - 1)``."""

    def __init__(self, layout: Layout, main_wounds: int, budget: _Budget) -> None:
        self.layout = layout
        uniform = layout.uniform_feel_no_pain()
        # one Feel No Pain: the general chain (its kernel; and the answer when it must);
        # two: the two chains of :class:`_TwoFeelNoPainChain` likewise
        self.two: _TwoFeelNoPainChain | None = None
        self.general: _Chain
        if uniform:
            self.general = _Chain(layout, True, budget)
        else:
            self.two = _TwoFeelNoPainChain(layout, budget)
            self.general = self.two.low
        self.delegate = False
        self.budget = budget
        self.P = main_wounds
        self.main = layout.bodyguard[0]
        self.den = 1
        self.weights: dict[tuple[int, int], int] = {}
        self.reserve = 0  # work units still to come after the chain (the answer's rendering)

    @staticmethod
    def applies(layout: Layout, request: CombatRequest) -> bool:
        """One weapon with Devastating Wounds and without Precision, into a unit of one Feel
        No Pain (not all alike: :class:`_LineChain` otherwise) or of two (bodyguard,
        CHARACTERs)."""
        if len(request.attacks) != 1 or _LineChain.applies(layout):
            return False
        wr = weapon_rules(request.attacks[0].weapon, request.target, request.situation)
        if wr.precision or not wr.devastating:
            return False
        return layout.uniform_feel_no_pain() or _TwoFeelNoPainChain.applies(layout)

    def _forward(
        self,
        rows: Callable[[int], list[tuple[int, int, int]]],
        cells: int,
        qq: int,
        steps: int,
        last: int,
        reach: int = 0,
        coef: list[int] | None = None,
        readout: Callable[[int], list[int]] | None = None,
        side_rows: Callable[[int], list[tuple[int, int, int]]] | None = None,
    ) -> tuple[list[dict[int, int]], list[dict[int, int]], list[int], list[int]]:
        """Paths on the prefix after ``s = 1 .. steps`` live attacks from the first model,
        their pending counts below ``cells``, ``last`` the most live attacks; a path's
        weights after ``s`` of them are at most ``qq**s``, so its slots widen as the steps
        go. Returns per ``s`` the flux into the tail (line states), the flux past ``P`` of
        ``side_rows`` (a line of identical models, from the prefix's last ``reach`` models,
        those one attack can take past ``P``: positions), with ``coef``
        ``sum_s coef[s] * (paths_s . readout)`` (each path's cells times the read-out of its
        state, truncated after ``cells``: reduced to ``cells`` values before the big
        ``coef[s]`` multiplies them), and the
        slot width (bytes) of each step's fluxes."""
        nc, big_p = self.layout.C + 1, self.P
        edge = big_p - reach * self.main.wounds  # where one attack can pass ``P`` from
        phi: dict[int, int] = {0: 1}
        flux: list[dict[int, int]] = [{}]
        side: list[dict[int, int]] = [{}]
        wid = [1]
        acc = [0] * cells
        reads: dict[int, list[tuple[int, int]]] = {}

        def read(idx: int) -> list[tuple[int, int]]:
            """The state's read-out as (j, value) pairs, its zeros left out (j increasing)."""
            got = reads.get(idx)
            if got is None:
                assert readout is not None
                got = reads[idx] = [(j, v) for j, v in enumerate(readout(idx)[:cells]) if v]
            return got

        if coef is not None:
            coef = [mpz(c) for c in coef]  # GMP integers: big-by-medium products below
            for j, v in read(0):
                acc[j] = coef[0] * v
        # per state: its transitions grouped by the pending wounds they add, split into
        # those that stay on the prefix and those that leave it
        grouped: dict[int, list[tuple[int, list[tuple[int, int]], list[tuple[int, int]]]]] = {}
        counts: dict[int, int] = {}  # per state: its transitions (the budget's updates)

        def moves(idx: int) -> list[tuple[int, list[tuple[int, int]], list[tuple[int, int]]]]:
            got = grouped.get(idx)
            if got is None:
                by_m: dict[int, tuple[list[tuple[int, int]], list[tuple[int, int]]]] = {}
                for dst, m_add, wt in rows(idx):
                    if m_add < cells:
                        stay, leave = by_m.setdefault(m_add, ([], []))
                        (stay if dst // nc < big_p else leave).append((dst, wt))
                got = grouped[idx] = [(m, st, lv) for m, (st, lv) in sorted(by_m.items())]
                counts[idx] = sum(len(st) + len(lv) for _, st, lv in got)
            return got

        step = 0
        bits = mask = 0
        for s in range(1, steps + 1):
            if not phi:
                break
            # slots for the next eight steps' weights
            need = (_bits(qq ** min(steps, (s + 7) // 8 * 8)) + 16) // 8
            if need > step:
                phi = {i: _repack(x, cells, step, need) for i, x in phi.items()} if step else phi
                step, bits = need, need * 8
                mask = _mask(cells * bits)
            # mutable GMP integers: the sums grow in place (each is masked into an mpz below)
            nxt: dict[int, int] = defaultdict(xmpz)
            out: dict[int, int] = defaultdict(xmpz)
            out_side: dict[int, int] = defaultdict(xmpz)
            updates = 0
            for idx, x in phi.items():
                state_moves = grouped.get(idx)
                if state_moves is None:
                    state_moves = moves(idx)
                for m_add, stay, leave in state_moves:
                    y = x << (m_add * bits) if m_add else x
                    for dst, wt in stay:
                        nxt[dst] += y * wt
                    for dst, wt in leave:
                        out[dst] += y * wt
                updates += counts[idx]
            if side_rows is not None:
                for idx, x in phi.items():
                    if idx // nc >= edge:
                        for pos, m_add, wt in side_rows(idx // nc):
                            if pos >= big_p and m_add < cells:
                                out_side[pos] += (x << (m_add * bits)) * wt
            phi = {i: v for i, x in nxt.items() if (v := x & mask)}
            flux.append({i: v for i, x in out.items() if (v := x & mask)})
            side.append({i: v for i, x in out_side.items() if (v := x & mask)})
            wid.append(step)
            if coef is not None and coef[s]:
                red = [0] * cells
                for i, x in phi.items():
                    f = read(i)
                    for k, v in enumerate(unpack(x, bits)[:cells]):
                        if v:
                            for j, fj in f:
                                if j >= cells - k:
                                    break
                                red[k + j] += v * fj
                c = coef[s]
                for j, v in enumerate(red):
                    if v:
                        acc[j] += c * v
            self.budget.spend(updates, cells * bits)
        # every live attack on the prefix moves a path on: none is left unless the attacks
        # ran out first (those end on the prefix, read out above or by the line chain)
        assert not phi or steps == last
        return flux, side, [int(v) for v in acc], wid

    def _divided(
        self,
        kernel: _Kernel,
        h: list[int],
        g: int,
        extra: Iterable[list[tuple[int, int, int]]] = (),
    ) -> tuple[int, Callable[[int], list[tuple[int, int, int]]], list[int], int]:
        """The live rows along the line divided by the factor they all share with ``q``
        (``extra`` rows too: the side line's), as in :meth:`_Chain.apply_weapon`: a path's
        weights grow by ``qq / common`` per step instead of ``qq``. Returns ``common``, the
        divided rows, the Horner coefficients ``coef[t]`` of ``t`` live attacks over those
        rows and their denominator (``h``, ``g`` from :func:`_live_counts`)."""
        nc = self.layout.C + 1
        big, cap = self.layout.B, self.layout.C
        common = kernel.q
        for idx in [b * nc for b in range(big)] + [big * nc + c for c in range(cap)]:
            for _, _, wt in kernel.live_row(idx):
                common = math.gcd(common, wt)
        for row in extra:
            for _, _, wt in row:
                common = math.gcd(common, wt)
        cache: dict[int, list[tuple[int, int, int]]] = {}

        def rows(idx: int) -> list[tuple[int, int, int]]:
            got = cache.get(idx)
            if got is None:
                got = cache[idx] = [(d, m, wt // common) for d, m, wt in kernel.live_row(idx)]
                assert all(wt % common == 0 for _, _, wt in kernel.live_row(idx))
            return got

        c2 = math.gcd(common, g)
        c_up, g_up = common // c2, g // c2
        coef, g_top = _horner_coefficients(h, c_up, g_up)
        return common, rows, coef, g_top

    def _forward_cost(
        self, rows: Callable[[int], list[tuple[int, int, int]]], cells: int, qq: int, steps: int
    ) -> int:
        """Work units :meth:`_forward` may spend (the budget's measure), an upper bound: after
        ``s`` live attacks a path is between ``s`` and ``s * reach`` wounds down the line
        (``reach`` the most one live attack takes), each state with the first model's
        transitions, in slots that widen as the steps go. Checked before the pass, so that
        an attack too large for it is refused at once."""
        row = rows(0)
        width = max(len(row), 1)
        nc = self.layout.C + 1
        reach = max((dst // nc + dst % nc for dst, _, _ in row), default=1) or 1
        qq_bits = qq.bit_length()
        total = 0
        for s in range(1, steps + 1):
            active = min(self.P, s * reach) - s + 1
            if active <= 0:
                break
            bits = qq_bits * min(steps, (s + 7) // 8 * 8) + 16
            total += active * width * (1 + cells * bits // 256)
        return total

    def _check_ahead(self, units: int) -> None:
        if self.budget.spent + units + self.reserve > WORK_BUDGET:
            raise self.budget.refuse()

    def _line_counts(
        self,
        w: _Weapon,
        situation: Situation,
        outcome: dict[tuple[int, int], int],
        total: int,
        kernel: _Kernel,
        end: int,
        ahead: int = 0,
    ) -> tuple[dict[int, int], int]:
        """P(the unit ends ``e`` wounds down the line, pending mortal wounds (thinned as they
        are made) included) for ``e < end``, as integer weights over one denominator: a line
        of identical models, corrected by the paths that reach position ``P`` (the real
        tail's less the line's). ``ahead``: work units still to come after this (checked
        with the forward pass's before any work)."""
        nc, big_p = self.layout.C + 1, self.P
        if end <= big_p or not kernel.qq:
            line = _LineChain.virtual(self.main, end, self.budget)
            line.apply_weapon(w, situation, outcome, total, last=True)
            return {e: x for (e, _), x in line.final().items() if e < end}, line.den
        h, h_den, g = _live_counts(w.per_model, kernel.r0, kernel.q, w.entry.models, None)
        top = len(h) - 1
        cells = end - big_p
        steps = min(top, big_p + cells)
        k_max = max(k for k, _ in outcome)  # wounds to save of one attack
        side_raw = {
            pos: _virtual_rows(w, situation, self.main, kernel.q1, outcome, kernel.r0, pos)
            for pos in range(max(big_p - k_max * self.main.wounds, 0), end)
        }
        common, live_row, coef, g_top = self._divided(kernel, h, g, side_raw.values())
        side_cache = {p: [(q, m, wt // common) for q, m, wt in r] for p, r in side_raw.items()}
        qq = -(-kernel.qq // common)

        def side_rows(pos: int) -> list[tuple[int, int, int]]:
            return side_cache[pos]

        def at(idx: int) -> int:  # wounds down the line (no Precision: b < B or c = 0)
            return idx // nc + idx % nc

        forward_cost = self._forward_cost(live_row, cells, qq, steps)
        self._check_ahead(forward_cost + ahead)  # before the line chain: refused at once
        line = _LineChain.virtual(self.main, end, self.budget)
        # the line refuses what they leave no room for
        line.reserve = forward_cost + ahead + self.reserve
        line.apply_weapon(w, situation, outcome, total, last=True)
        out = {e: x for (e, _), x in line.final().items() if e < end}
        self._check_ahead(forward_cost + ahead)
        flux, side, _, wid = self._forward(
            live_row,
            cells,
            qq,
            steps,
            top,
            reach=k_max,
            side_rows=side_rows,
        )
        # past P: a move adds the wounds it takes plus the pending ones
        big = self.layout.B
        real_states = [p * nc if p < big else big * nc + p - big for p in range(big_p, end)]
        real_moves = {
            i: [
                (dst, at(dst) - at(i) + m, wt)
                for dst, m, wt in live_row(i)
                if at(dst) - at(i) + m < end - at(i)
            ]
            for i in real_states
        }
        line_states = list(range(big_p, end))
        line_moves = {
            p: [(q, q - p + m, wt) for q, m, wt in side_rows(p) if q - p + m < end - p]
            for p in line_states
        }
        spend = self.budget.spend
        real_cells = {i: end - at(i) for i in real_states}
        hit = tail_sum(
            real_states,
            real_moves,
            {i: [1] for i in real_states},
            coef,
            real_cells,
            {i: at(i) for i in real_states},
            [
                {i: _cells(x, wid[s]) for i, x in fl.items() if i in real_cells}
                for s, fl in enumerate(flux)
            ],
            spend,
        )
        line_cells = {p: end - p for p in line_states}
        virt = tail_sum(
            line_states,
            line_moves,
            {p: [1] for p in line_states},
            coef,
            line_cells,
            {p: p for p in line_states},
            [
                {p: _cells(x, wid[s]) for p, x in fl.items() if p in line_cells}
                for s, fl in enumerate(side)
            ],
            spend,
        )
        for e, v in enumerate(virt):
            hit[e] -= v
        # over one denominator: line.den * hit_den / their gcd
        hit_den = h_den * g_top
        common = math.gcd(line.den, hit_den)
        up_line, up_hit = hit_den // common, line.den // common
        merged = {e: x * up_line for e, x in out.items()}
        for e, x in enumerate(hit):
            if x:
                merged[e] = merged.get(e, 0) + x * up_hit
        return merged, line.den * up_line

    def _settle(self, raw: dict[tuple[int, int], int], den: int) -> None:
        """The answer's weights (``raw`` over ``den``) reduced, "destroyed" what the rest
        leave."""
        layout = self.layout
        sign = -1 if den < 0 else 1  # a negative read-out denominator (``a < 0``)
        weights = {k: x * sign for k, x in raw.items() if x}
        den *= sign
        den, weights = _lowest_terms(den, weights)
        _check_digits(den.bit_length())
        rest = den - sum(weights.values())
        if rest:
            weights[(layout.B, layout.C)] = rest
        assert all(x > 0 for x in weights.values())
        self.weights, self.den = weights, den

    def apply_weapon(
        self, w: _Weapon, situation: Situation, outcome: dict[tuple[int, int], int], total: int
    ) -> None:
        layout = self.layout
        big, cap, nc = layout.B, layout.C, layout.C + 1
        big_p = self.P
        kernel = self.general._kernel(w, situation, outcome, total)
        main_null = kernel.null_w[list(kernel.losses).index(self._main_profile())]
        if main_null != kernel.s_min:  # a worse save in the tail: prefix paths may stall
            self.delegate = True
            if self.two is None:
                self.general.apply_weapon(w, situation, outcome, total, kernel)
            else:
                self.two.apply_weapon(w, situation, outcome, total)
            return
        if self.two is None:  # one Feel No Pain: the line's counts are the answer
            counts, den = self._line_counts(w, situation, outcome, total, kernel, big + cap)
            self._settle({(min(e, big), max(e - big, 0)): x for e, x in counts.items()}, den)
            return
        two = self.two
        a, b, d = two.a, two.b, two.d
        # the CHARACTERs' pass's kernel first: its cost is checked with the bodyguard's
        if w.rules.devastating:
            outcome_c, total_c = _attack_outcome(w, _thin(w.damage, two.p_c))
        else:
            outcome_c, total_c = outcome, total
        kernel_c = two.high._kernel(w, situation, outcome_c, total_c)
        char_cost = 0
        if kernel_c.qq:
            h, h_den, g = _live_counts(w.per_model, kernel_c.r0, kernel_c.q, w.entry.models, None)
            top = len(h) - 1
            common, live_c, coef, g_top = self._divided(kernel_c, h, g)
            qq = -(-kernel_c.qq // common)
            steps = min(top, big_p + cap)
            char_cost = self._forward_cost(live_c, cap, qq, steps)
        # -- the bodyguard's counts (thinned by its Feel No Pain) -------------------------
        out_b, den_b = self._line_counts(w, situation, outcome, total, kernel, big, char_cost)
        # -- the CHARACTERs' counts (thinned by theirs), read out --------------------------
        f_den = a ** (big + cap - 1)

        def readout(idx: int) -> list[int]:
            """``w**(b - B)`` on the bodyguard, ``y**c`` on a CHARACTER, times ``f_den``."""
            pos, c = divmod(idx, nc)
            if pos < big:
                n = big - pos
                return [
                    d**n * a**pos * _comb_up(n, i) * (-b) ** i * a ** (cap - 1 - i)
                    for i in range(cap)
                ]
            return [f_den if j == c else 0 for j in range(cap)]

        sums = [0] * cap  # the whole read-out, over ``den_y * f_den``
        den_y = 1
        if kernel_c.qq:
            # the paths that end on the prefix are read out on the way (``acc``)
            self._check_ahead(char_cost)
            flux, _, acc, wid = self._forward(
                live_c, cap, qq, steps, top, coef=coef, readout=readout
            )
            tail = [p * nc for p in range(big_p, big)] + [big * nc + c for c in range(cap)]
            outs = {i: readout(i) for i in tail}
            tail_set = set(tail)
            moves = {
                i: [(dst, m, wt) for dst, m, wt in live_c(i) if dst in tail_set and m < cap]
                for i in tail
            }
            sums = (
                tail_sum(
                    tail,
                    moves,
                    outs,
                    coef,
                    dict.fromkeys(tail, cap),
                    dict.fromkeys(tail, 0),
                    [
                        {i: _cells(x, wid[s]) for i, x in fl.items() if i in tail_set}
                        for s, fl in enumerate(flux)
                    ],
                    self.budget.spend,
                )
                or [0] * cap
            )
            for j, v in enumerate(acc):  # the paths that end on the prefix
                sums[j] += v
            den_y = h_den * g_top
        # the CHARACTERs' share: the whole read-out less the bodyguard's counts, read alike,
        # in integers over ``den_y * f_den * den_b``
        body = [0] * cap
        for e, x in out_b.items():
            for j, v in enumerate(readout(e * nc)):
                if v:
                    body[j] += x * v
        raw: dict[tuple[int, int], int] = {(e, 0): x * den_y * f_den for e, x in out_b.items()}
        for j in range(cap):
            raw[(big, j)] = sums[j] * den_b - body[j] * den_y
        self._settle(raw, den_y * f_den * den_b)

    def _main_profile(self) -> tuple[int, int | None, int | None]:
        s = self.main
        return (s.save, s.invulnerable_save, s.feel_no_pain)

    def apply_mortal_wounds(self) -> None:
        """Nothing to do here (:meth:`apply_weapon` places them) unless the general chain
        answers."""
        if self.delegate and self.two is None:
            self.general.apply_mortal_wounds()

    def final(self) -> dict[tuple[int, int], int]:
        """(b, c) -> weight over :attr:`den`."""
        if self.delegate:
            chain = self.general if self.two is None else self.two
            out = chain.final()
            self.den = chain.den
            return out
        return self.weights


def _grouped_by_wounds(
    live: dict[int, list[tuple[int, int, int]]],
) -> dict[int, list[tuple[int, list[tuple[int, int]]]]]:
    """Per ``r``: its live transitions (next r, e added, weight) grouped by the wounds they
    add, fewest first (:func:`_by_shift`, no destination left out: each is an ``r >= 0``)."""
    return {r: _by_shift(entries, -1) for r, entries in live.items()}


class _LineChain:
    """The state of a target whose models are all alike (one line, no CHARACTER): ``(r, e)``,
    ``r`` the wounds lost by the model at the head of the line, ``e`` the wounds lost along
    the line plus the pending mortal wounds. Where the next wound goes depends on ``r``
    alone, and pending mortal wounds spill over once the normal damage is done (RULINGS 9),
    so the unit's final position is ``min(e, B)``: the number of models already destroyed
    is not part of the state (it is in ``e``), and ``e >= B`` is "destroyed". A unit of one
    model needs no ``r`` at all: its only cap (the end of the model) is the unit's.

    For each ``r`` the weights of ``e = 0 .. B-1`` are packed into one integer, so one
    big-integer operation moves every ``e`` at once: the work per attack is ``W`` packed
    rows instead of every (position, pending) pair of :class:`_Chain`."""

    def __init__(self, layout: Layout, budget: _Budget) -> None:
        self.layout = layout
        self.model = layout.bodyguard[0]
        self.W = self.model.wounds
        self.B = layout.B
        self.single = len(layout.bodyguard) == 1
        self.R = 1 if self.single else self.W
        self.v: dict[int, int] = {0: 1}  # r * B + e -> weight; "destroyed": den - the rest
        self.den = 1
        self.budget = budget
        self.reserve = 0  # work units still to come after this chain (checked with its own)
        self.summed = False  # the state is ``e`` alone, summed over ``r`` (the last weapon)

    @classmethod
    def virtual(cls, model: ModelSlot, length: int, budget: _Budget) -> _LineChain:
        """A line of models like ``model``, ``length`` wounds long (at least two models' worth
        is meant: a bodyguard continued with its first models' profile, exact for positions
        below ``length``; :class:`_PrefixSplitChain`)."""
        chain = cls.__new__(cls)
        chain.model = model
        chain.W = model.wounds
        chain.B = length
        chain.single = False
        chain.R = chain.W
        chain.v = {0: 1}
        chain.den = 1
        chain.budget = budget
        chain.reserve = 0
        chain.summed = False
        return chain

    @staticmethod
    def applies(layout: Layout) -> bool:
        """True for a target of identical models and no CHARACTER line."""
        models = layout.bodyguard
        return (
            not layout.characters
            and bool(models)
            and len({(s.wounds, s.save, s.invulnerable_save, s.feel_no_pain) for s in models}) == 1
        )

    def _rows(
        self, weights: dict[int, int], tot: int, outcome: dict[tuple[int, int], int]
    ) -> dict[int, dict[tuple[int, int], int]]:
        """Per ``r``: (next r, e added) -> weight of one attack, over ``total * tot**k_max``;
        an ``e`` added of ``B`` or more stands for "destroyed"."""
        w_, r_n, b_n = self.W, self.R, self.B
        one: list[dict[tuple[int, int], int]] = []
        for r in range(r_n):
            row: dict[tuple[int, int], int] = defaultdict(int)
            for loss, wt in weights.items():
                if self.single:  # the model's end is the unit's: nothing to cap
                    row[(0, min(loss, b_n))] += wt
                elif r + loss < w_:
                    row[(r + loss, loss)] += wt
                else:  # the model is destroyed, excess damage lost [L1788-L1796]
                    row[(0, w_ - r)] += wt
            one.append(row)
        k_max = max(k for k, _ in outcome)
        rows: dict[int, dict[tuple[int, int], int]] = {}
        for r in range(r_n):
            powers: list[dict[tuple[int, int], int]] = [{(r, 0): 1}]
            for _ in range(k_max):
                acc: dict[tuple[int, int], int] = defaultdict(int)
                for (mid, e0), wt in powers[-1].items():
                    if e0 >= b_n:  # destroyed already: stays so
                        acc[(0, b_n)] += wt * tot
                        continue
                    for (dst, e1), wt2 in one[mid].items():
                        acc[(dst, min(e0 + e1, b_n))] += wt * wt2
                powers.append(acc)
            merged: dict[tuple[int, int], int] = defaultdict(int)
            for (k, m), pw in outcome.items():
                scale = pw * tot ** (k_max - k)
                for (dst, e), wt in powers[k].items():
                    merged[(dst, min(e + m, b_n))] += wt * scale
            rows[r] = merged
        return rows

    def apply_weapon(
        self,
        w: _Weapon,
        situation: Situation,
        outcome: dict[tuple[int, int], int],
        total: int,
        last: bool = False,
    ) -> None:
        """Every attack of one weapon, as :meth:`_Chain.apply_weapon` (live attacks counted,
        Horner's scheme over their number), over the packed ``(r, e)`` state. ``last``: no
        weapon follows, only :meth:`final` reads the state (its ``e``, summed over ``r``):
        the live attacks are then stepped forward instead (:meth:`_forward_summed`)."""
        assert not self.summed, "the state was summed over r: no weapon can follow"
        b_n = self.B
        weights, tot = _wound_loss(self.model, w, situation)
        k_max = max(k for k, _ in outcome)
        q = total * tot**k_max
        # nothing happens: every wound saved or negated, no mortal wound (the same from every r)
        w0 = weights.get(0, 0)
        r0 = sum(pw * w0**k * tot ** (k_max - k) for (k, m), pw in outcome.items() if m == 0)
        qq = q - r0
        if qq == 0:
            return
        rows = self._rows(weights, tot, outcome)
        live: dict[int, list[tuple[int, int, int]]] = {}
        for r, row in rows.items():
            entries = []
            for (dst, e_add), wt in row.items():
                if e_add == 0:  # nothing happened: the ``r0`` outcome, factored out
                    continue
                if e_add < b_n:
                    entries.append((dst, e_add, wt))
            live[r] = entries
        # every live attack adds at least one to ``e``: after B of them the unit is destroyed
        h, h_den, g = _live_counts(w.per_model, r0, q, w.entry.models, b_n)
        top = len(h) - 1
        # The live weights share a factor ``common`` with ``q``: steps over ``q / common``,
        # and of ``g**t`` only ``(g / gcd(common, g))**t`` is left in the denominators.
        common = q
        for entries in live.values():
            for _, _, wt in entries:
                common = math.gcd(common, wt)
        if common > 1:
            live = {
                r: [(d, e, wt // common) for d, e, wt in entries] for r, entries in live.items()
            }
        c2 = math.gcd(common, g)
        c_up, g_up = common // c2, g // c2
        coef, g_top = _horner_coefficients(h, c_up, g_up)
        if last:
            self._forward_summed(live, coef, -(-qq // common), h_den * g_top)
            return
        # Horner: acc_t = acc_{t+1} A' + coef[t] v, over den * h_den * g_up**top at the end.
        # acc_t is multiplied by A' t more times and every live attack adds at least one to
        # ``e``: its entries at e >= B - t end destroyed, so only B - t slots are kept (half
        # the work of keeping B). Its weights are at most den * u[t] (_horner_bounds): the
        # slots start narrow and widen as the steps go (repacked every few steps).
        final_den = self.den * h_den * g_top
        widths = [(_bits(self.den * u) + 8) // 8 for u in _horner_bounds(coef, -(-qq // common))]

        def width_for(t: int) -> int:
            """Bytes per slot enough for the weights of acc_t (and every later step's
            until t - 8)."""
            return widths[max(t - 8, 0)]

        start_rows: dict[int, list[int]] = defaultdict(lambda: [0] * b_n)
        for key, weight in self.v.items():
            r, e = divmod(key, b_n)
            start_rows[r][e] = weight
        step = width_for(top)
        start = {r: _pack(row, step) for r, row in start_rows.items()}
        v_bits = max((x.bit_length() for x in start.values()), default=0)
        width = sum(len(x) for x in live.values())
        kept_slots = sum(b_n - t for t in range(top + 1) if t < b_n)
        inject = len(start) * _mul_units(v_bits, max(c.bit_length() for c in coef))
        ahead = width * kept_slots * (1 + final_den.bit_length() // 256) + top * inject
        if self.budget.spent + ahead + self.reserve > WORK_BUDGET:
            raise self.budget.refuse()
        by_shift = _grouped_by_wounds(live)
        acc: dict[int, int] = {}
        for t in range(top, -1, -1):
            keep = b_n - t
            if keep <= 0:  # t live attacks to come: destroyed whatever the state
                continue
            if widths[t] > step:
                new = width_for(t)
                acc = {r: _repack(x, b_n, step, new) for r, x in acc.items()}
                start = {r: _repack(x, b_n, step, new) for r, x in start.items()}
                step = new
            slot = step * 8
            nxt: dict[int, int] = defaultdict(xmpz)  # summed in place, masked into an mpz
            updates = 0
            for r, packed in acc.items():
                for e_add, targets in by_shift[r]:
                    if e_add >= keep:
                        break
                    shifted = packed << (e_add * slot)  # once for every target of that shift
                    for dst, wt in targets:
                        nxt[dst] += shifted * wt
                    updates += len(targets)
            c = coef[t]
            if c:
                for r, x in start.items():
                    nxt[r] += x * c
                self.budget.spend(len(start) * _mul_units(v_bits, c.bit_length()), 0)
            mask = _mask(keep * slot)  # e >= B - t: destroyed (what the rest leave)
            acc = {r: x & mask for r, x in nxt.items()}
            self.budget.spend(updates * keep, slot)
        out: dict[int, int] = {}
        for r, packed in acc.items():
            for e, weight in enumerate(_unpack(packed, b_n, step)):
                if weight:
                    out[r * b_n + e] = weight
        self.v = out
        self.den = final_den
        self._reduce()

    def _forward_summed(
        self, live: dict[int, list[tuple[int, int, int]]], coef: list[int], qq: int, scale: int
    ) -> None:
        """The last weapon's ``sum_t coef[t] v A'**t`` summed over ``r`` (what :meth:`final`
        reads), stepped forward: ``u_t = v A'**t`` has weights of at most ``den * qq**t``
        (a few dozen bits per step) where Horner's sums carry every coefficient's thousands
        of bits from the first step on; each ``u_t``, summed over ``r`` (narrow additions),
        meets ``coef[t]`` once per value of ``e``. Every live attack adds at least one to
        ``e``, so ``u_t`` is kept from ``e = t`` (slot ``j`` holds ``e = t + j``), the
        ``B - t`` values short of "destroyed". The same integers as Horner's sum over ``r``
        (``live``: per ``r`` its (next r, e added, weight) rows, divided; ``scale``: the
        coefficients' denominator)."""
        b_n = self.B
        top = len(coef) - 1
        by_shift = _grouped_by_wounds(live)
        start_rows: dict[int, list[int]] = defaultdict(lambda: [0] * b_n)
        for key, weight in self.v.items():
            r, e = divmod(key, b_n)
            start_rows[r][e] = weight
        den_bits = _bits(self.den)

        def width_for(t: int) -> int:
            """Bytes per slot for ``u_t`` and the next steps' up to a multiple of eight."""
            return (den_bits + _bits(qq ** min(top, (t + 8) // 8 * 8)) + 16) // 8

        per_step = sum(len(entries) for entries in live.values())
        ahead = sum(
            per_step * (b_n - t - 1) * (1 + width_for(t + 1) * 8 // 256)
            + (b_n - t) * (1 + _bits(coef[t]) // 256)
            for t in range(min(top + 1, b_n))
        )
        if self.budget.spent + ahead + self.reserve > WORK_BUDGET:  # before the work
            raise self.budget.refuse()
        step = width_for(0)
        u = {r: _pack(row, step) for r, row in start_rows.items()}
        sums = [mpz(0)] * b_n  # over e: sum_t coef[t] sum_r u_t[r][e]
        for t in range(top + 1):
            keep = b_n - t  # slots of u_t: e = t .. B - 1
            if keep <= 0 or not u:
                break
            c = coef[t]
            if c:
                summed = sum(u.values()) if len(u) > 1 else next(iter(u.values()))
                for j, x in enumerate(unpack(summed, step * 8)[:keep]):
                    if x:
                        sums[t + j] += c * x
                self.budget.spend(keep, _bits(c))
            if t == top or keep == 1:
                break
            new = width_for(t + 1)
            if new > step:
                u = {r: _repack(x, keep, step, new) for r, x in u.items()}
                step = new
            slot = step * 8
            nxt: dict[int, int] = defaultdict(xmpz)  # summed in place, masked into an mpz
            for r, packed in u.items():
                for e_add, targets in by_shift[r]:
                    if e_add >= keep:  # past "destroyed" from every kept e
                        break
                    # one step on: slot j now holds e = t + 1 + j
                    shifted = packed << ((e_add - 1) * slot) if e_add > 1 else packed
                    for dst, wt in targets:
                        nxt[dst] += shifted * wt
            mask = _mask((keep - 1) * slot)
            u = {r: v for r, x in nxt.items() if (v := x & mask)}
            self.budget.spend(per_step * (keep - 1), slot)
        self.v = {e: int(x) for e, x in enumerate(sums) if x}  # r = 0: final() reads e
        self.summed = True
        self.den = self.den * scale
        self._reduce()

    def apply_mortal_wounds(self) -> None:
        """Nothing to do: the pending mortal wounds are already part of ``e``."""

    def _reduce(self) -> None:
        self.den, self.v = _lowest_terms(self.den, self.v)
        _check_digits(self.den.bit_length())

    def final(self) -> dict[tuple[int, int], int]:
        """(b, c) -> weight: the line's final position is ``min(e, B)``."""
        out: dict[tuple[int, int], int] = defaultdict(int)
        kept = 0
        for key, weight in self.v.items():
            out[(key % self.B, 0)] += weight
            kept += weight
        if self.den > kept:
            out[(self.B, 0)] += self.den - kept
        return dict(out)


def _attack_outcome(w: _Weapon, mortal: Dist) -> tuple[dict[tuple[int, int], int], int]:
    """One attack's joint (wounds to save, mortal wounds) -> weight, and the total."""
    p_fail, p_succ, p_crit = w.wound
    stride = (1 + (w.rules.sustained.max if w.rules.sustained else 0)) * max(mortal.max, 1) + 1
    token = Dist.constant(stride)
    # RULINGS 9: with Devastating Wounds a critical wound becomes mortal wounds, no save
    crit = mortal if w.rules.devastating else token
    per_roll = Dist.mixture([(p_fail, _ZERO), (p_succ, token), (p_crit, crit)])
    joint = w.per_attack(per_roll, token)  # RULINGS 5: a Lethal auto-wound is no crit
    out: dict[tuple[int, int], int] = {}
    for code, weight in joint.weights().items():
        out[divmod(code, stride)] = weight
    return out, joint.total


def _first_slot(layout: Layout, precision: bool) -> ModelSlot:
    target = layout.slot_for_attack(0, 0, precision)
    assert target is not None
    return target[1]


def _sum(dists: Iterable[Dist], budget: _Budget) -> Dist:
    """The sum of independent counts, the shortest first (a balanced order of products)."""
    pending = sorted(dists, key=len)
    if not pending:
        return _ZERO
    while len(pending) > 1:
        a, b = pending.pop(0), pending.pop(0)
        bits = a.total.bit_length() + b.total.bit_length()
        _check_digits(bits)
        # one product of the two packed weight vectors (Kronecker substitution)
        budget.spend(len(a) + len(b) + _mul_units(len(a) * bits, len(b) * bits), 0)
        out = a + b
        pending.insert(
            next((i for i, d in enumerate(pending) if len(d) >= len(out)), len(pending)), out
        )
    return pending[0]


def analyze(request: CombatRequest) -> CombatAnalysis:
    """Exact distributions of damage, models destroyed and every stage of ``request``."""
    _check_budget(request)
    target, situation = request.target, request.situation
    layout = Layout(target)
    uniform = layout.uniform_feel_no_pain()
    fnp_all = layout.bodyguard[0].feel_no_pain
    budget = _Budget()
    weapons = [
        _Weapon(entry, weapon_rules(entry.weapon, target, situation), situation)
        for entry in request.attacks
    ]
    chain: _Chain | _LineChain | _TwoFeelNoPainChain | _PrefixSplitChain
    soft = not uniform and any(w.rules.devastating for w in weapons)
    if _LineChain.applies(layout):
        chain = _LineChain(layout, budget)
    elif _PrefixSplitChain.applies(layout, request):
        chain = _PrefixSplitChain(layout, target.models * target.wounds, budget)
    elif soft and _TwoFeelNoPainChain.applies(layout):
        chain = _TwoFeelNoPainChain(layout, budget)
    else:
        chain = _Chain(layout, uniform, budget)
        if soft:  # every pending count carried: the player is told why it may be refused
            budget.detail, budget.advice = _MIXED_FNP, _MIXED_FNP_ADVICE
        soft = False
    stages: dict[str, list[Dist]] = {
        "attacks": [],
        "hits": [],
        "wounds": [],
        "failed_saves": [],
        "mortal_wounds": [],
    }
    hazardous: list[Dist] = []
    any_mortal = False
    for w in weapons:
        _, p_succ, p_crit = w.wound
        p_wound = p_succ + p_crit
        # -- the stages (dice as rolled) ------------------------------------------------
        stages["attacks"].append(w.attacks)
        stages["hits"].append(w.stage(_ONE, _ONE, budget))
        stages["wounds"].append(w.stage(Dist.bernoulli(p_wound), _ONE, budget))
        mortal_raw = w.damage if w.rules.devastating else _ZERO
        stages["mortal_wounds"].append(
            w.stage(Dist.mixture([(1 - p_crit, _ZERO), (p_crit, mortal_raw)]), _ZERO, budget)
        )
        first = _first_slot(layout, w.rules.precision)
        choice = choose_save(first.save, first.invulnerable_save, w.rules.weapon, situation)
        p_unsaved = Fraction(*save_fail_weights(choice, situation.reroll_saves))
        p_token = p_succ + (0 if w.rules.devastating else p_crit)
        stages["failed_saves"].append(
            w.stage(Dist.bernoulli(p_token * p_unsaved), Dist.bernoulli(p_unsaved), budget)
        )
        if w.rules.hazardous:  # RULINGS 15: one test per Hazardous weapon used
            hazardous.append(Dist.binomial(w.entry.models, Fraction(1, 6)))
        # -- the chain ------------------------------------------------------------------
        if w.rules.devastating:
            any_mortal = True
            # uniform or soft: thinned by the (bodyguard's) Feel No Pain as they are made
            mortal = _thin(w.damage, _fnp_lose(fnp_all)) if uniform or soft else w.damage
        else:
            mortal = _ZERO
        outcome, total = _attack_outcome(w, mortal)
        if isinstance(chain, (_LineChain, _PrefixSplitChain)):
            # the answer's rendering, checked with the chain's own estimates before its work
            chain.reserve = _answer_units(layout, [d for ds in stages.values() for d in ds])
        if isinstance(chain, _LineChain):  # the last weapon's state is only read out
            chain.apply_weapon(w, situation, outcome, total, last=w is weapons[-1])
        else:
            chain.apply_weapon(w, situation, outcome, total)
    if any_mortal:
        chain.apply_mortal_wounds()
    final = chain.final()
    den = chain.den
    damage_w: dict[int, int] = defaultdict(int)
    models_w: dict[int, int] = defaultdict(int)
    group_w: dict[str, dict[int, int]] = {g: defaultdict(int) for g in layout.groups}
    wiped = 0
    for (b, c), weight in final.items():
        damage_w[b + c] += weight
        models_w[layout.models_destroyed(b, c)] += weight
        for g, n in layout.destroyed_by_group(b, c).items():
            group_w[g][n] += weight
        if layout.wiped(b, c):
            wiped += weight
    sizes = layout.group_sizes()
    groups_extra: list[ExtraValue] = []
    for g in layout.groups:
        dist = Dist.from_weights(group_w[g])
        groups_extra.append(
            {
                "name": g,
                "models": sizes[g],
                "character": any(s.group == g for s in layout.characters),
                "models_destroyed": dist,
                "all_destroyed": dist.prob(sizes[g]),
            }
        )
    extra: dict[str, ExtraValue] = {
        "groups": groups_extra,
        "total_wounds": layout.total_wounds,
        "total_models": layout.total_models,
    }
    if hazardous:
        extra["hazardous_failures"] = _sum(hazardous, budget)
    damage = Dist.from_weights(damage_w)
    models = Dist.from_weights(models_w)
    stage_dists = {name: _sum(parts, budget) for name, parts in stages.items()}
    # The caller prints every probability as an exact fraction: that is work too, and it
    # grows with the square of the fractions' size, so it is counted against the same budget.
    shown = [damage, models, *stage_dists.values()]
    shown += [g["models_destroyed"] for g in groups_extra if isinstance(g, dict)]
    budget.spend(sum(_render_units(d) for d in shown if isinstance(d, Dist)), 0)
    return CombatAnalysis(
        damage=damage,
        models_destroyed=models,
        wipe_probability=Fraction(wiped, den),
        stages=stage_dists,
        extra=extra,
    )
