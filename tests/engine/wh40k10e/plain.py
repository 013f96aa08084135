"""The plain exact engine: the attack-by-attack chain the 10th-edition analysis used before
issue 18, kept verbatim as an oracle for the tests and the heavy-case benchmark, with its
work bounds lifted (no size check, no budget). Original docstring follows.

Exact analysis of a whole 10th-edition activation (several weapons in order, one target).

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
3. After the last weapon (the normal damage of all the unit's attacks against the target
   first: RULINGS 9 [L1826–L1833]), the pending mortal wounds are applied, spilling over
   (RULINGS 11).
   When every model has the same Feel No Pain, mortal wounds are thinned by it as they are
   generated and a pending count that covers every remaining wound is folded into "destroyed"
   (exact, and much smaller); otherwise each is checked against the model it lands on.

Work is bounded: static size limits first (:func:`_check_budget`), then a budget counted
while the chain runs; beyond either, a ProfileError naming ``attacks`` (a 422), never a hang.

Stages (attacks, hits, wounds, failed_saves, mortal_wounds) are the dice of the attack
sequence as rolled, without stopping when the target is destroyed; ``failed_saves`` uses the
save of the first model in line (the first CHARACTER for Precision). See
docs/rulings/wh40k10e-combat.md.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from fractions import Fraction

from app.engine.combat import CombatAnalysis, ExtraValue
from app.engine.distributions import Dist
from app.engine.errors import ProfileError
from app.engine.wh40k10e.allocation import Layout, ModelSlot
from app.engine.wh40k10e.profiles import AttackEntry, CombatRequest, RerollPolicy, Situation
from app.engine.wh40k10e.rules import (
    FACES,
    WeaponRules,
    choose_save,
    fnp_negates,
    outcome_weights,
    weapon_rules,
)

__all__ = ["analyze"]

WORK_BUDGET = 1 << 80  # lifted: the plain engine never refuses
PRECHECK_FACTOR = 50  # requests whose a-priori bound exceeds this many budgets are refused
MAX_ATTACKS_PER_ENTRY = 10**6  # lifted (was 200): the exact engine sets the limits
MAX_HITS_PER_ENTRY = 10**6  # lifted (was 400)
MAX_TOTAL_ATTACKS = 10**6  # lifted (was 300)
MAX_TOTAL_HITS = 10**6  # lifted (was 600)

_ZERO = Dist.constant(0)
_ONE = Dist.constant(1)


def _save_fail(successes: int, reroll: RerollPolicy) -> Fraction:
    """P(a save fails), re-roll included, by closed form (independent of the engine's face
    enumeration): an unmodified 1 always fails, so re-rolling 1s turns 1/6 of the failures
    into a second roll; re-rolling failures fails twice."""
    fail = 1 - Fraction(successes, 6)
    if reroll is RerollPolicy.ONES:
        return fail - Fraction(1, 6) + Fraction(1, 6) * fail
    if reroll is RerollPolicy.FAILED:
        return fail * fail
    assert reroll is RerollPolicy.NONE
    return fail


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
        size = len(pm) * self.entry.models
        budget.spend(size * size // 2, pm.total.bit_length() * self.entry.models)
        return pm.repeat(self.entry.models)


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
        total += (n_max + 1) * states * (pending + 1) * width * shifts
    # integers grow by a few bits per wound to save: big ones cost more per operation
    return total * (1 + steps // 256)


def _too_large(detail: str) -> ProfileError:
    return ProfileError(
        "attacks",
        f"this activation is too large to analyse exactly ({detail}): use fewer attacks, "
        "fewer target models or lower damage",
    )


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
                f"up to {n_max} attacks; at most {MAX_ATTACKS_PER_ENTRY} per entry",
            )
        if n_max * per_attack > MAX_HITS_PER_ENTRY:
            raise ProfileError(
                f"attacks[{i}].weapon.abilities",
                f"up to {n_max * per_attack} hits; at most {MAX_HITS_PER_ENTRY} per entry",
            )
    if total_attacks > MAX_TOTAL_ATTACKS or total_hits > MAX_TOTAL_HITS:
        raise ProfileError(
            "attacks",
            f"up to {total_attacks} attacks and {total_hits} hits in all; at most "
            f"{MAX_TOTAL_ATTACKS} attacks and {MAX_TOTAL_HITS} hits per request",
        )
    work = estimate_work(request)
    if work > WORK_BUDGET * PRECHECK_FACTOR:
        raise _too_large(f"a bound of {work:,} steps")


class _Budget:
    """Counts the chain's work as it runs (state updates weighted by the size of the
    integers) and stops the analysis once :data:`WORK_BUDGET` is spent, so that no request
    can keep a worker busy: the caller gets a ProfileError (a 422), never a hang."""

    def __init__(self) -> None:
        self.spent = 0

    def spend(self, updates: int, bits: int) -> None:
        self.spent += updates * (1 + bits // 512)
        if self.spent > WORK_BUDGET:
            raise _too_large(f"more than {WORK_BUDGET:,} weighted steps")


class _Chain:
    """The target's state distribution: key = m * NS + b * NC + c -> integer weight."""

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
        """Weights of the wounds one wound-to-save makes ``slot`` lose (0 if saved)."""
        choice = choose_save(slot.save, slot.invulnerable_save, w.rules.weapon, situation)
        p_fail = _save_fail(choice.successes, situation.reroll_saves)
        if p_fail == 0:
            return {0: 1}, 1
        lost = _thin(w.damage, _fnp_lose(slot.feel_no_pain))
        d = Dist.mixture([(1 - p_fail, _ZERO), (p_fail, lost)]) if p_fail < 1 else lost
        return d.weights(), d.total

    def apply_weapon(
        self, w: _Weapon, situation: Situation, outcome: dict[tuple[int, int], int], total: int
    ) -> None:
        """Run every attack of one weapon: one chain step per attack, the number of attacks
        random (independent per model), state carried over. Kernel rows are built only for
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

        n_lo, n_weights, n_total = w.attacks.dense()
        n_max = n_lo + len(n_weights) - 1
        tail = [0] * (n_max + 2)  # tail[n] = weight of N >= n
        for n in range(n_max, -1, -1):
            i = n - n_lo
            tail[n] = tail[n + 1] + (n_weights[i] if 0 <= i < len(n_weights) else 0)
        q_pow = [1] * (n_max + 1)
        for i in range(1, n_max + 1):
            q_pow[i] = q_pow[i - 1] * q
        ns = self.NS
        wiped = self.wiped
        rem = self.rem
        simple = all(m == 0 for _, m in outcome)
        bits0 = self.den.bit_length() + n_total.bit_length()
        q_bits = q.bit_length()
        acc_out: dict[int, int] = defaultdict(int)
        cur = self.v
        for n in range(n_max + 1):
            if all(key == wiped for key in cur):
                weight = cur.get(wiped, 0)
                if weight:
                    acc_out[wiped] += weight * q_pow[n_max - n] * tail[n]
                break
            i = n - n_lo
            if 0 <= i < len(n_weights) and n_weights[i]:
                factor = n_weights[i] * q_pow[n_max - n]
                for key, weight in cur.items():
                    acc_out[key] += weight * factor
            if n == n_max:
                break
            nxt: dict[int, int] = defaultdict(int)
            updates = 0
            if simple and all(key < ns for key in cur):  # no mortal wound anywhere
                for idx, weight in cur.items():
                    row = attack_row(idx)
                    updates += len(row)
                    for dst, _, wt in row:
                        nxt[dst] += weight * wt
            else:
                for key, weight in cur.items():
                    m, idx = divmod(key, ns)
                    row = attack_row(idx)
                    updates += len(row)
                    for dst, m_add, wt in row:
                        nm = m + m_add
                        if nm >= rem[dst]:
                            nxt[wiped] += weight * wt
                        else:
                            nxt[nm * ns + dst] += weight * wt
            self.budget.spend(updates, bits0 + n * q_bits)
            cur = nxt
        self.v = dict(acc_out)
        self.den = self.den * q_pow[n_max] * n_total
        self._reduce()

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
        g = math.gcd(self.den, *self.v.values())
        if g > 1:
            self.v = {k: w // g for k, w in self.v.items()}
            self.den //= g

    def final(self) -> dict[tuple[int, int], int]:
        """(b, c) -> weight, once no mortal wound is pending."""
        out: dict[tuple[int, int], int] = defaultdict(int)
        for key, weight in self.v.items():
            m, idx = divmod(key, self.NS)
            assert m == 0
            out[divmod(idx, self.NC)] += weight
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
    out = _ZERO
    for d in dists:
        budget.spend(len(out) * len(d), out.total.bit_length() + d.total.bit_length())
        out = out + d
    return out


def analyze(request: CombatRequest) -> CombatAnalysis:
    """Exact distributions of damage, models destroyed and every stage of ``request``."""
    target, situation = request.target, request.situation
    layout = Layout(target)
    uniform = layout.uniform_feel_no_pain()
    fnp_all = layout.bodyguard[0].feel_no_pain
    budget = _Budget()
    chain = _Chain(layout, uniform, budget)
    weapons = [
        _Weapon(entry, weapon_rules(entry.weapon, target, situation), situation)
        for entry in request.attacks
    ]
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
        p_unsaved = _save_fail(choice.successes, situation.reroll_saves)
        p_token = p_succ + (0 if w.rules.devastating else p_crit)
        stages["failed_saves"].append(
            w.stage(Dist.bernoulli(p_token * p_unsaved), Dist.bernoulli(p_unsaved), budget)
        )
        if w.rules.hazardous:  # RULINGS 15: one test per Hazardous weapon used
            hazardous.append(Dist.binomial(w.entry.models, Fraction(1, 6)))
        # -- the chain ------------------------------------------------------------------
        if w.rules.devastating:
            any_mortal = True
            mortal = _thin(w.damage, _fnp_lose(fnp_all)) if uniform else w.damage
        else:
            mortal = _ZERO
        outcome, total = _attack_outcome(w, mortal)
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
    return CombatAnalysis(
        damage=Dist.from_weights(damage_w),
        models_destroyed=Dist.from_weights(models_w),
        wipe_probability=Fraction(wiped, den),
        stages={name: _sum(parts, budget) for name, parts in stages.items()},
        extra=extra,
    )
