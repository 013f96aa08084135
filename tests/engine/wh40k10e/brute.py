"""A naive, independent oracle for the 10th-edition attack sequence.

It re-implements the rules from the notes (wh40k-10e-core-1.md §4.4, RULINGS.md) without
using the engine's rule functions, and enumerates **every die** of the attack sequence, one
attack at a time (each attack goes hit -> wound -> allocate -> save -> damage -> Feel No Pain
before the next one: the rules' default order, not the engine's batched one). Identical
intermediate states are merged (memoisation), which keeps small cases fast without changing
what is enumerated. Only for small requests (a few attacks, few wounds).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeAlias

from app.engine.wh40k10e.abilities import AbilityKind
from app.engine.wh40k10e.profiles import CombatRequest, RerollPolicy, Weapon, WeaponKind

# (tasks, wounds left per model, pending mortal wounds, (attacks, hits, wounds, mortal wounds))
State: TypeAlias = tuple[
    tuple[tuple[str, int], ...], tuple[int, ...], int, tuple[int, int, int, int]
]


@dataclass(frozen=True)
class OracleResult:
    damage: dict[int, Fraction]
    models_destroyed: dict[int, Fraction]
    wipe: Fraction
    attacks: dict[int, Fraction]
    hits: dict[int, Fraction]
    wounds: dict[int, Fraction]
    mortal_wounds: dict[int, Fraction]
    group_destroyed: dict[str, dict[int, Fraction]]


def _faces(sides: int) -> Iterator[tuple[int, Fraction]]:
    for f in range(1, sides + 1):
        yield f, Fraction(1, sides)


def _table(s: int, t: int) -> int:
    if s >= 2 * t:
        return 2
    if s > t:
        return 3
    if s == t:
        return 4
    if s * 2 <= t:
        return 6
    return 5


def _dice_outcomes(expr: object) -> list[tuple[int, Fraction]]:
    """Every total of a dice expression with its probability, enumerating each die."""
    count, sides, const = expr.count, expr.sides, expr.constant  # type: ignore[attr-defined]
    outs: dict[int, Fraction] = {const: Fraction(1)}
    for _ in range(count):
        nxt: dict[int, Fraction] = defaultdict(Fraction)
        for total, p in outs.items():
            for f, q in _faces(6):
                value = (f + 1) // 2 if sides == 3 else f  # D3 = ceil(D6 / 2)
                nxt[total + value] += p * q
        outs = nxt
    return list(outs.items())


class _W:
    """What the oracle needs of one weapon, derived straight from the profile."""

    def __init__(self, w: Weapon, req: CombatRequest) -> None:
        sit = req.situation
        tgt = req.target
        has = w.has
        ranged = w.kind is WeaponKind.RANGED
        self.name = w.name
        self.torrent = has(AbilityKind.TORRENT)
        self.skill = w.skill
        mod = sit.hit_modifier
        if has(AbilityKind.HEAVY) and sit.remained_stationary:
            mod += 1
        if ranged and (sit.stealth or sit.smokescreen):
            mod -= 1
        if ranged and sit.big_guns_never_tire and not has(AbilityKind.PISTOL):
            mod -= 1
        if has(AbilityKind.INDIRECT_FIRE) and sit.target_not_visible:
            mod -= 1
        self.hit_mod = max(-1, min(1, mod))
        self.overwatch = sit.overwatch and ranged
        self.reroll_hits = sit.reroll_hits
        wmod = sit.wound_modifier + (1 if has(AbilityKind.LANCE) and sit.charged else 0)
        self.wound_mod = max(-1, min(1, wmod))
        self.wound_need = _table(w.strength, tgt.toughness)
        kws = set(tgt.keywords)
        for g in tgt.groups:
            kws.update(g.keywords)
        self.crit_wound = 6
        for a in w.abilities:
            if a.kind is AbilityKind.ANTI and a.keyword in kws:
                self.crit_wound = min(self.crit_wound, a.threshold or 6)
        rw = sit.reroll_wounds
        if has(AbilityKind.TWIN_LINKED):
            order = ["none", "ones", "failed", "non_critical"]
            tl = sit.twin_linked_reroll
            rw = rw if order.index(rw.value) >= order.index(tl.value) else tl
        self.reroll_wounds = rw
        self.lethal = has(AbilityKind.LETHAL_HITS)
        sh = w.ability(AbilityKind.SUSTAINED_HITS)
        self.sustained = sh.x if sh else None
        self.dev = has(AbilityKind.DEVASTATING_WOUNDS)
        self.precision = has(AbilityKind.PRECISION)
        self.attacks = w.attacks
        rf = w.ability(AbilityKind.RAPID_FIRE)
        self.rapid = rf.x if (rf and sit.half_range and ranged) else None
        self.blast = (
            (tgt.models + sum(g.models for g in tgt.groups)) // 5 if has(AbilityKind.BLAST) else 0
        )
        melta = w.ability(AbilityKind.MELTA)
        self.melta = melta.x if (melta and sit.half_range and ranged) else None
        self.damage = w.damage
        self.ap = w.ap
        self.ranged = ranged
        self.ignores_cover = has(AbilityKind.IGNORES_COVER)
        self.indirect_hidden = has(AbilityKind.INDIRECT_FIRE) and sit.target_not_visible
        self.sit = sit

    def hit_result(self, u: int) -> str:
        if u == 6:
            return "crit"
        if u == 1 or self.overwatch:
            return "miss"
        return "hit" if u + self.hit_mod >= (self.skill or 7) else "miss"

    def wound_result(self, u: int) -> str:
        if u >= self.crit_wound:
            return "crit"
        if u == 1:
            return "fail"
        return "wound" if u + self.wound_mod >= self.wound_need else "fail"

    def p_save(self, save: int, invuln: int | None) -> Fraction:
        sit = self.sit
        cover = (
            self.ranged
            and not self.ignores_cover
            and (sit.cover or sit.go_to_ground or sit.smokescreen or self.indirect_hidden)
            and not (save <= 3 and self.ap == 0)
        )
        arm_mod = min(1, self.ap + sit.save_modifier + (1 if cover else 0))
        arm = sum(1 for u in range(2, 7) if u + arm_mod >= save)
        inv = invuln
        if sit.go_to_ground:
            inv = 6 if inv is None else min(inv, 6)
        best = arm
        if inv is not None:
            best = max(best, sum(1 for u in range(2, 7) if u + min(1, sit.save_modifier) >= inv))
        single = Fraction(best, 6)
        # a saving throw's re-roll, die by die: the first die, then (when re-rolled) a second
        if sit.reroll_saves is RerollPolicy.ONES:  # a 1 never saves: it is rolled again
            return single + Fraction(1, 6) * single
        if sit.reroll_saves is RerollPolicy.FAILED:  # a failure is rolled again
            return single + (1 - single) * single
        return single

    def damage_outcomes(self) -> list[tuple[int, Fraction]]:
        base = _dice_outcomes(self.damage)
        if self.melta is not None:
            extra = _dice_outcomes(self.melta)
            base = [(a + b, p * q) for a, p in base for b, q in extra]
        out: dict[int, Fraction] = defaultdict(Fraction)
        for d, p in base:
            out[max(1, d + self.sit.damage_modifier - self.sit.damage_reduction)] += p
        return list(out.items())


def _reroll(policy: RerollPolicy, result: str, u: int) -> bool:
    if policy is RerollPolicy.NONE:
        return False
    if policy is RerollPolicy.ONES:
        return u == 1
    if policy is RerollPolicy.FAILED:
        return result in ("miss", "fail")
    return result != "crit"


def enumerate_request(req: CombatRequest) -> OracleResult:
    """Exact outcome distributions by enumerating every die."""
    weapons = [_W(e.weapon, req) for e in req.attacks]
    tgt = req.target
    # Models: (group, wounds, save, invuln, fnp, is_character); defender order: main models,
    # non-character groups as listed, then characters.
    profiles: list[tuple[str, int, int, int | None, int | None, bool]] = []
    profiles += [
        ("main", tgt.wounds, tgt.save, tgt.invulnerable_save, tgt.feel_no_pain, False)
    ] * tgt.models
    for g in tgt.groups:
        if "CHARACTER" not in g.keywords:
            profiles += [
                (g.name, g.wounds, g.save, g.invulnerable_save, g.feel_no_pain, False)
            ] * g.models
    for g in tgt.groups:
        if "CHARACTER" in g.keywords:
            profiles += [
                (g.name, g.wounds, g.save, g.invulnerable_save, g.feel_no_pain, True)
            ] * g.models
    n_models = len(profiles)

    def pick(left: tuple[int, ...], precision: bool) -> int | None:
        """The model the next attack must go to (RULINGS 14, [L1704–L1707])."""
        body = [i for i in range(n_models) if not profiles[i][5] and left[i] > 0]
        chars = [i for i in range(n_models) if profiles[i][5] and left[i] > 0]

        def first(cands: list[int]) -> int:
            wounded = [i for i in cands if left[i] < profiles[i][1]]
            return wounded[0] if wounded else cands[0]

        if body and not (precision and chars):
            return first(body)
        if chars:
            return first(chars)
        return None

    # Task list: ("model", w) rolls a model's attacks; ("attack", w); ("hit", w) rolls to
    # wound; ("save", w); then mortal wounds at the end.
    start_tasks: list[tuple[str, int]] = []
    for wi, e in enumerate(req.attacks):
        start_tasks += [("model", wi)] * e.models

    def step(state: State, stage_pass: bool) -> list[tuple[State, Fraction]]:
        """Every outcome of the next task's dice, with its probability."""
        tasks, left, pending, counts = state
        (kind, wi), rest = tasks[0], tasks[1:]
        w = weapons[wi]
        a, h, wo, mw = counts
        out: list[tuple[State, Fraction]] = []
        if kind == "model":
            for n, p in _dice_outcomes(w.attacks):
                extra = [(0, Fraction(1))] if w.rapid is None else _dice_outcomes(w.rapid)
                for r, q in extra:
                    total = n + r + w.blast
                    tasks1 = (("attack", wi),) * total + rest
                    out.append(((tasks1, left, pending, (a + total, h, wo, mw)), p * q))
            return out
        if kind == "attack":
            if w.torrent:
                state1 = ((("hit", wi), *rest), left, pending, (a, h + 1, wo, mw))
                return [(state1, Fraction(1))]
            for u1, p1 in _faces(6):
                r1 = w.hit_result(u1)
                finals = [(r1, p1)]
                if _reroll(w.reroll_hits, r1, u1):
                    finals = [(w.hit_result(u2), p1 * p2) for u2, p2 in _faces(6)]
                for res_, p in finals:
                    if res_ == "miss":
                        out.append(((rest, left, pending, counts), p))
                    elif res_ == "hit":
                        state1 = ((("hit", wi), *rest), left, pending, (a, h + 1, wo, mw))
                        out.append((state1, p))
                    else:
                        first_task = ("auto", wi) if w.lethal else ("hit", wi)
                        sus = (
                            [(0, Fraction(1))]
                            if w.sustained is None
                            else _dice_outcomes(w.sustained)
                        )
                        for x, q in sus:
                            new = (first_task,) + (("hit", wi),) * x
                            out.append(((new + rest, left, pending, (a, h + 1 + x, wo, mw)), p * q))
            return out
        if kind == "auto":  # Lethal Hits: wounds automatically, not a critical wound
            state1 = ((("save", wi), *rest), left, pending, (a, h, wo + 1, mw))
            return [(state1, Fraction(1))]
        if kind == "hit":
            for u1, p1 in _faces(6):
                r1 = w.wound_result(u1)
                finals = [(r1, p1)]
                if _reroll(w.reroll_wounds, r1, u1):
                    finals = [(w.wound_result(u2), p1 * p2) for u2, p2 in _faces(6)]
                for res_, p in finals:
                    if res_ == "fail":
                        out.append(((rest, left, pending, counts), p))
                    elif res_ == "crit" and w.dev:
                        for d, q in w.damage_outcomes():
                            out.append(((rest, left, pending + d, (a, h, wo + 1, mw + d)), p * q))
                    else:
                        state1 = ((("save", wi), *rest), left, pending, (a, h, wo + 1, mw))
                        out.append((state1, p))
            return out
        assert kind == "save"
        target = None if stage_pass else pick(left, w.precision)
        if target is None:  # unit destroyed (or stage pass): nothing to allocate
            return [((rest, left, pending, counts), Fraction(1))]
        _, _, sv, inv, fnp, _ = profiles[target]
        ps = w.p_save(sv, inv)
        if ps:
            out.append(((rest, left, pending, counts), ps))
        if ps < 1:
            for d, q in w.damage_outcomes():
                # each point of damage: one Feel No Pain roll; stop when the model dies
                states: dict[int, Fraction] = {left[target]: Fraction(1)}
                for _ in range(d):
                    after: dict[int, Fraction] = defaultdict(Fraction)
                    for wl, pr in states.items():
                        if wl == 0:
                            after[0] += pr
                            continue
                        for u, pu in _faces(6):
                            negated = fnp is not None and u >= fnp
                            after[wl if negated else wl - 1] += pr * pu
                    states = after
                for wl, pr in states.items():
                    new_left = (*left[:target], wl, *left[target + 1 :])
                    out.append(((rest, new_left, pending, counts), (1 - ps) * q * pr))
        return out

    def mortal(left: tuple[int, ...], pending: int) -> dict[tuple[int, ...], Fraction]:
        """Mortal wounds, one at a time, spilling over, each with Feel No Pain."""
        dist: dict[tuple[int, ...], Fraction] = {left: Fraction(1)}
        for _ in range(pending):
            nxt: dict[tuple[int, ...], Fraction] = defaultdict(Fraction)
            for lf, p in dist.items():
                target = pick(lf, False)
                if target is None:
                    nxt[lf] += p
                    continue
                fnp = profiles[target][4]
                p_neg = Fraction(sum(1 for u in range(1, 7) if fnp is not None and u >= fnp), 6)
                lost = (*lf[:target], lf[target] - 1, *lf[target + 1 :])
                nxt[lost] += p * (1 - p_neg)
                if p_neg:
                    nxt[lf] += p * p_neg
            dist = nxt
        return dist

    def run_all(
        stage_pass: bool,
    ) -> dict[tuple[tuple[int, ...], tuple[int, int, int, int]], Fraction]:
        start: State = (tuple(start_tasks), full, 0, (0, 0, 0, 0))
        frontier: dict[State, Fraction] = {start: Fraction(1)}
        finals: dict[tuple[tuple[int, ...], tuple[int, int, int, int]], Fraction] = defaultdict(
            Fraction
        )
        while frontier:
            nxt: dict[State, Fraction] = defaultdict(Fraction)
            for state, p in frontier.items():
                tasks, left, pending, counts = state
                if not stage_pass:
                    counts = (0, 0, 0, 0)  # the damage pass ignores the counters
                    state = (tasks, left, pending, counts)
                if not tasks:
                    if stage_pass:
                        finals[(left, counts)] += p
                    else:
                        for lf, q in mortal(left, pending).items():
                            finals[(lf, counts)] += p * q
                    continue
                for new, q in step(state, stage_pass):
                    nxt[new] += p * q
            frontier = nxt
        return finals

    full = tuple(p[1] for p in profiles)
    final = run_all(False)
    stage_final = run_all(True)
    res = OracleResult(
        damage=defaultdict(Fraction),
        models_destroyed=defaultdict(Fraction),
        wipe=Fraction(0),
        attacks=defaultdict(Fraction),
        hits=defaultdict(Fraction),
        wounds=defaultdict(Fraction),
        mortal_wounds=defaultdict(Fraction),
        group_destroyed=defaultdict(lambda: defaultdict(Fraction)),
    )
    wipe = Fraction(0)
    group_names = list(dict.fromkeys(p[0] for p in profiles))
    for (_, (a, h, wo, mw)), p in stage_final.items():
        res.attacks[a] += p
        res.hits[h] += p
        res.wounds[wo] += p
        res.mortal_wounds[mw] += p
    for (left, _), p in final.items():
        res.damage[sum(full) - sum(left)] += p
        dead = sum(1 for x in left if x == 0)
        res.models_destroyed[dead] += p
        if dead == n_models:
            wipe += p
        for name in group_names:
            res.group_destroyed[name][
                sum(1 for i, x in enumerate(left) if x == 0 and profiles[i][0] == name)
            ] += p
    return OracleResult(
        damage=dict(res.damage),
        models_destroyed=dict(res.models_destroyed),
        wipe=wipe,
        attacks=dict(res.attacks),
        hits=dict(res.hits),
        wounds=dict(res.wounds),
        mortal_wounds=dict(res.mortal_wounds),
        group_destroyed={g: dict(v) for g, v in res.group_destroyed.items()},
    )
