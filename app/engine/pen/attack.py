"""From an :class:`~app.engine.pen.profiles.AttackRequest` to the plans of each dice step.

This is where the PEN rules become numbers: final BS with every §5.1 modifier, shot and attack
counts, the to-hit cell, cover, the S-T cell and its properties, saves after AP, Feel No Pain,
and for vehicles the penetration roll and the damage-table modifiers. The exact analysis and the
live resolution both read the same :class:`AttackPlan`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache

from app.engine.errors import N_, ProfileError
from app.engine.pen import tables
from app.engine.pen.codes import RollCode
from app.engine.pen.names import RULE_INFO, Rule
from app.engine.pen.procedures import Dice, roll_code
from app.engine.pen.profiles import (
    AttackRequest,
    Situation,
    Template,
    TwinLinkedMode,
    Unit,
    UnitType,
    Vehicle,
    VehicleType,
    Weapon,
    WeaponKind,
    WeaponType,
)
from app.engine.pen.vehicles import DamageContext, PenetrationMode, PenetrationPlan
from app.engine.pen.wounds import LossPlan, Wound, WoundPlan, better_ap

__all__ = [
    "AttackPlan",
    "HitPlan",
    "area_procedure",
    "hit_procedure",
    "loss_plan_for",
    "plan_attack",
]

_ASSAULT_LIKE = (WeaponType.ASSAULT, WeaponType.PISTOL, WeaponType.GRENADE, WeaponType.RAPID_FIRE)
_HEAVY_LIKE = (WeaponType.HEAVY, WeaponType.ARTILLERY, WeaponType.SWEEP)


@dataclass(frozen=True, slots=True)
class HitPlan:
    """How the attacks roll to hit.

    ``attacks``: shots or melee attacks rolled; ``area_models`` more models each add
    min(D6, ``area_cap``) attacks (Attaques de zone [L370]). ``code`` is the to-hit cell;
    ``hits_per_success``: models under a template [L538], doubled by Jumelée's "each hit counts
    double" [L671]. ``skill``: the final BS or WS (the vehicle hit-location roll adds it).
    """

    attacks: int
    code: RollCode
    skill: int
    reroll_ones: bool = False
    sustained_fire: bool = False
    hits_per_success: int = 1
    area_models: int = 0
    area_cap: int = 0
    modifiers: tuple[tuple[str, int], ...] = ()


def hit_procedure(dice: Dice, plan: HitPlan) -> int:
    """Hits scored by one shot / attack (Tirs soutenus: a 6 gives one more shot [L696])."""
    rolled = roll_code(
        dice, plan.code, "to hit", reroll_ones=plan.reroll_ones, words=("hit", "miss")
    )
    hits = 1 if rolled.success else 0
    if plan.sustained_fire and rolled.success and rolled.natural == 6:
        extra = roll_code(
            dice,
            plan.code,
            "to hit (sustained fire shot)",
            reroll_ones=plan.reroll_ones,
            words=("hit", "miss"),
        )
        hits += 1 if extra.success else 0
    return hits * plan.hits_per_success


def area_procedure(dice: Dice, cap: int) -> int:
    """Extra attacks of one model with Attaques de zone: min(1D6, cap) [L370], note §8 item 6."""
    face = dice.roll(6, "area attacks")
    return min(face, cap)


@dataclass(frozen=True, slots=True)
class AttackPlan:
    """Every dice step of one attack, ready for the exact analysis or a live resolution."""

    request: AttackRequest
    hit: HitPlan
    cover: int | None
    wound: WoundPlan | None = None
    losses: Mapping[Wound, LossPlan] = field(default_factory=dict)
    penetration: PenetrationPlan | None = None
    damage: DamageContext | None = None
    vehicle_save: RollCode | None = None
    strength: int | None = None
    initiative: int | None = None
    notes: tuple[str, ...] = ()

    @property
    def against_vehicle(self) -> bool:
        return self.penetration is not None


# ------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------


def _target_has(target: Unit | Vehicle, rule: Rule) -> bool:
    return target.has(rule)


def _attacker_has(request: AttackRequest, rule: Rule) -> bool:
    """A rule of the attacking model, or carried by the weapon (e.g. Ennemi juré, Sniper)."""
    return request.attacker.has(rule) or request.weapon.has(rule)


def _is_aircraft(request: AttackRequest) -> bool:
    t = request.target
    return request.situation.target_aircraft or (
        isinstance(t, Vehicle) and t.is_(VehicleType.AIRCRAFT)
    )


def _night_level(request: AttackRequest) -> int:
    """Stealth level from night fighting: 1 Furtif, 2 Dissimulé, 3 Invisible [L946], [L353],
    [L463]; Vision nocturne ignores night and Tapi dans l'ombre [L476], [L465]."""
    s = request.situation
    if _attacker_has(request, Rule.NIGHT_VISION):
        return 0
    lurks = _target_has(request.target, Rule.LURKS_IN_SHADOWS)
    if not s.night and not lurks:
        return 0
    distance = s.range_inches or 0
    if s.night and lurks:
        steps = (-1, 12, 24)  # always Furtif, > 12 Dissimulé, > 24 Invisible [L463]
    else:
        factor = 2 if (s.night and s.target_lit) else 1
        steps = (12 * factor, 24 * factor, 36 * factor)
    level = 0
    for i, threshold in enumerate(steps, start=1):
        if distance > threshold:
            level = i
    return level


def stealth_malus(request: AttackRequest) -> tuple[int, str]:
    """The single stealth malus (they never stack, note §5.1) and its name."""
    if _attacker_has(request, Rule.EXTRA_SENSES):
        return 0, ""  # Capteurs extrasensoriels [L374]
    t, s = request.target, request.situation
    own_furtif = _target_has(t, Rule.STEALTH) or s.target_stealthy
    night = _night_level(request)
    level = max(
        3 if (_target_has(t, Rule.INVISIBLE) or s.target_invisible) else 0,
        2 if (_target_has(t, Rule.SHROUDED) or s.target_shrouded) else 0,
        1 if own_furtif else 0,
        night,
    )
    if level == 1 and own_furtif and night == 1:
        level = 2  # Furtif twice by different processes -> Dissimulé [L408]
    names = {
        0: "",
        1: "stealthy target (Furtif)",
        2: "shrouded target (Dissimulé)",
        3: "invisible target (Invisible)",
    }
    return -level, names[level]


def _moved(request: AttackRequest) -> bool:
    return not request.situation.stationary


def _relentless(request: AttackRequest) -> bool:
    return request.attacker.has(Rule.RELENTLESS)


def _snap_reasons(request: AttackRequest) -> list[str]:
    w, s, t = request.weapon, request.situation, request.target
    reasons: list[str] = []
    if s.snap_fire:
        reasons.append("snap fire")
    moved = _moved(request)
    if moved and w.type in _HEAVY_LIKE:
        if w.type is WeaponType.ARTILLERY and w.has(Rule.BARRAGE):
            reasons.append("moved artillery barrage weapon [L645]")
        elif not _relentless(request):
            reasons.append("heavy weapon after moving [L494]")
    if moved and w.type is WeaponType.SALVO and not s.half_range and not _relentless(request):
        reasons.append("salvo at full range after moving [L507]")
    if w.has(Rule.ANTI_AIR) and not _target_has(t, Rule.SKIMMER):
        reasons.append("anti-aircraft weapon against a non-skimmer [L626]")
    return reasons


def target_in_melee(s: Situation) -> bool:
    """The target is locked in combat: range and speed modifiers do not apply [L1329].

    True with either new flag or with the older ``target_locked_in_combat``, which keeps its
    first reading (both the -1 BS and the dropped modifiers) for saved requests and logs.
    """
    return s.target_in_melee or s.into_melee_malus or s.target_locked_in_combat


def into_melee_malus(s: Situation) -> bool:
    """-1 BS: the target is not twice the friendly squads in its combat [L1132], [L1319]."""
    return s.into_melee_malus or s.target_locked_in_combat


def shooting_bs(request: AttackRequest) -> tuple[int, tuple[tuple[str, int], ...], list[str]]:
    """Final BS of a shot: base + every §5.1 modifier, clamped 1..10, then the caps.

    Returns (BS, modifiers applied, notes). Flat modifiers are summed [L112]; snap fire,
    Terrifiant and Aveuglant apply after them (note §8 item 7); indirect barrage is capped at
    BS2 (BS3 with a blast template) [L646-L647].
    """
    a, w, s, t = request.attacker, request.weapon, request.situation, request.target
    if a.bs is None:
        return 1, (), ["no BS: template hits on 2+"]
    mods: list[tuple[str, int]] = []
    stealth, name = stealth_malus(request)
    if stealth:
        mods.append((name, stealth))
    ignore_speed_and_range = s.indirect or target_in_melee(s)  # [L1329]
    aircraft = _is_aircraft(request)
    speed_ignored = _attacker_has(request, Rule.AUTO_TARGETING) or (
        w.has(Rule.ANTI_AIR) and _target_has(t, Rule.SKIMMER)
    )
    if not ignore_speed_and_range and not speed_ignored:
        if aircraft:
            mods.append(("aircraft target", -3))  # replaces the speed malus (note §8 item 33)
        elif s.target_moved > 18:
            mods.append(("target moved > 18 ps", -2))
        elif s.target_moved > 12:
            mods.append(("target moved > 12 ps", -1))
    if (
        not ignore_speed_and_range
        and s.half_range
        and w.template is not Template.FLAME
        and not aircraft
    ):
        mods.append(("half range", 1))  # [L1333]
    if s.flying_mc_rapid_move:
        mods.append(("flying MC after a rapid move", -1))  # [L1316], [L1059]
    if into_melee_malus(s):
        mods.append(("target locked in combat", -1))  # [L1319], [L1132]
    if s.target_gone_to_ground:
        mods.append(("target gone to ground", -1))  # [L1320], [L1138]
    if s.target_giant or _target_has(t, Rule.GIANT):
        mods.append(("giant target", 1))  # [L1321], [L410]
    if w.has(Rule.SNIPER):
        mods.append(("sniper", 1))  # [L1322], [L691]
    if s.stationary and w.type in _ASSAULT_LIKE:
        mods.append(("stationary shooter", 1))  # [L1323], [L1334]
    bs = tables.clamp_characteristic(a.bs + sum(v for _, v in mods))
    notes: list[str] = []
    if s.indirect:
        cap = 3 if w.template in (Template.BLAST, Template.LARGE_BLAST) else 2
        if bs > cap:
            notes.append(f"indirect barrage: BS capped at {cap} [L646-L647]")
            bs = cap
    snap = _snap_reasons(request)
    if snap:
        bs = tables.snap_fire_bs(bs)
        notes.append("snap fire (" + "; ".join(snap) + "): BS halved [L517]")
    if s.terrified:
        bs = max(1, bs // 2)
        notes.append("terrified: BS halved [L474]")
    if s.blinded:
        bs = 1
        notes.append("blinded: BS 1 [L636]")
    return bs, tuple(mods), notes


def shots_per_model(request: AttackRequest) -> int:
    """Shots of one model's weapon (§2.6), before Jumelée."""
    w, s, t = request.weapon, request.situation, request.target
    if w.type is WeaponType.RAPID_FIRE:
        return w.shots * (2 if s.half_range else 1)  # [L492]
    if w.type is WeaponType.SALVO:
        if not _moved(request) or _relentless(request) or not s.half_range:
            return w.shots  # Y shots [L507] (Implacable: note §8 item 35)
        return w.salvo_moved or w.shots  # X shots at half range after moving
    if w.type is WeaponType.SWEEP:
        if s.models_under_template is not None:
            return s.models_under_template  # one shot per model on the segment [L509]
        return t.models if isinstance(t, Unit) else 1
    return w.shots


def _template_hits(request: AttackRequest) -> int:
    w, s = request.weapon, request.situation
    if w.template is None:
        return 1
    return s.models_under_template or 1


def _ranged_hit_plan(request: AttackRequest) -> tuple[HitPlan, list[str]]:
    a, w, s = request.attacker, request.weapon, request.situation
    if s.indirect and not w.has(Rule.BARRAGE):
        raise ProfileError("situation.indirect", N_("only barrage weapons fire indirectly [L646]"))
    bs, mods, notes = shooting_bs(request)
    per_model = shots_per_model(request)
    shooters = 1 if w.type is WeaponType.GRENADE else a.models  # one thrower per squad [L498]
    shots = shooters * per_model
    hits_per_success = _template_hits(request)
    if w.has(Rule.TWIN_LINKED):
        if s.twin_linked == TwinLinkedMode.DOUBLE_SHOTS:
            shots *= 2
            notes.append("twin-linked: shots doubled [L671]")
        else:
            hits_per_success *= 2
            notes.append("twin-linked: each hit counts double [L671]")
    if w.template is Template.FLAME:
        code = RollCode(2)  # a flame template always hits on 2+ [L541]
        notes.append("flame template: hits on 2+ [L541]")
    else:
        code = tables.shooting_code(bs)
    if w.template is not None and s.models_under_template is None:
        notes.append("template: 1 hit per successful shot (give models_under_template)")
    plan = HitPlan(
        attacks=shots,
        code=code,
        skill=bs,
        reroll_ones=_attacker_has(request, Rule.PREFERRED_ENEMY),
        sustained_fire=w.has(Rule.SUSTAINED_FIRE),
        hits_per_success=hits_per_success,
        modifiers=mods,
    )
    return plan, notes


def _cover(request: AttackRequest, bs: int, *, uses_bs: bool) -> tuple[int | None, list[str]]:
    """Modified cover save of the target against this shot, or None (note §5.4)."""
    w, s, t = request.weapon, request.situation, request.target
    if request.melee or t.cover_save is None:
        return None, []  # never in melee [L1367]
    if w.has(Rule.IGNORES_COVER) or w.template is Template.FLAME:
        return None, ["cover ignored [L628], [L542]"]
    vehicle_or_mc = isinstance(t, Vehicle) or (isinstance(t, Unit) and t.is_monstrous)
    if isinstance(t, Unit):
        hardened = (t.save is not None and t.save <= 3) or t.effective_invulnerable is not None
    else:
        hardened = t.invulnerable_save is not None
    hidden = 0
    if s.target_hidden:
        if vehicle_or_mc:
            raise ProfileError(
                "situation.target_hidden",
                N_("vehicles and monstrous creatures cannot hide [L1108]"),
            )
        assert isinstance(t, Unit)
        hidden = 1 if t.unit_type in (UnitType.BIKE, UnitType.JETBIKE) else 2
    visible = 0
    if vehicle_or_mc:
        visible = 2 if s.target_visible_75 else 1 if s.target_visible_50 else 0
    malus = tables.bs_cover_malus(bs) if uses_bs else 0
    cover = tables.modified_cover_save(
        t.cover_save,
        hardened=hardened,
        bs_malus=malus,
        hidden_bonus=hidden,
        visible_malus=visible,
    )
    return cover, []


# ------------------------------------------------------------------------------------------
# melee
# ------------------------------------------------------------------------------------------


def melee_strength(request: AttackRequest, *, vs_vehicle: bool = False) -> int:
    """Strength of a melee attack: base x multiplier + Charge furieuse, max 10 [L112], [L609]."""
    a, w, s = request.attacker, request.weapon, request.situation
    if vs_vehicle and w.strength_vs_vehicles is not None:
        return w.strength_vs_vehicles  # Lame sorcière S9 against vehicles [L601]
    base = w.strength if w.strength is not None else (a.strength or 1)
    mult = w.strength_multiplier
    if s.smash:
        mult = 2  # Attaques smash: double S, max 10 [L372] (multipliers do not stack)
    bonus = (
        1 if (s.charged and a.has(Rule.FURIOUS_CHARGE) and not s.furious_charge_initiative) else 0
    )
    return min(10, base * mult + bonus)


def melee_attacks_per_model(request: AttackRequest) -> int:
    """Attacks of one model: A, +1 second weapon, +1 charge (+2 Rage), halved for smash."""
    a, w, s = request.attacker, request.weapon, request.situation
    if w.single_attack:
        return 1  # anti-vehicle grenades / bombs: one attack instead [L1196-L1197]
    attacks = a.attacks + (1 if a.two_weapons else 0)  # [L584]
    if s.charged:
        bonus = 2 if a.has(Rule.RAGE) else 1  # [L1234], [L451]
        if s.defensive_grenades and not s.target_already_locked:
            bonus = 0  # defensive grenades [L1195]
        attacks += bonus
    if s.smash:
        attacks //= 2  # after all modifiers, round down [L372]
    return attacks


def defender_ws(request: AttackRequest) -> int:
    t, s = request.target, request.situation
    if isinstance(t, Unit):
        assert t.ws is not None
        return t.ws
    if t.ws is not None:
        return t.ws
    return tables.ws_for_unit_without_ws(
        s.target_moved, aircraft_passing=t.is_(VehicleType.AIRCRAFT)
    )  # [L1358-L1361]


def _melee_hit_plan(request: AttackRequest) -> tuple[HitPlan, list[str]]:
    a, w, s, t = request.attacker, request.weapon, request.situation, request.target
    notes: list[str] = []
    assert a.ws is not None
    att = a.ws
    mods: list[tuple[str, int]] = []
    extra_senses = _attacker_has(request, Rule.EXTRA_SENSES)
    if s.target_giant or _target_has(t, Rule.GIANT):
        mods.append(("giant target", 1))  # [L410]
    if (s.target_invisible or _target_has(t, Rule.INVISIBLE)) and not extra_senses:
        mods.append(("invisible target", -3))  # [L430]
    att = tables.clamp_characteristic(att + sum(v for _, v in mods))
    if s.terrified:
        att = max(1, att // 2)
        notes.append("terrified: WS halved [L474]")
    if s.blinded:
        att = 1
        notes.append("blinded: WS 1 [L636]")
    dfn = defender_ws(request)
    if a.has(Rule.INVISIBLE):
        dfn = tables.clamp_characteristic(dfn - 3)  # enemies -3 WS when hit by it [L430]
        notes.append("invisible attacker: defender WS -3 [L430]")
    code = tables.ws_code(att, dfn)
    if (
        w.single_attack
        and isinstance(t, Vehicle)
        and t.is_(VehicleType.WALKER)
        and not t.immobilised
    ):
        code = RollCode(6)  # grenades and bombs hit a walker on 6s [L237]
        notes.append("grenade / bomb against a walker: hits on 6 [L237]")
    per_model = melee_attacks_per_model(request)
    area = a.has(Rule.AREA_ATTACKS) or a.has(Rule.GIANT)
    engaged = (
        s.engaged_enemies
        if s.engaged_enemies is not None
        else (t.models if isinstance(t, Unit) else 1)
    )
    area_cap = max(0, engaged - 1)
    plan = HitPlan(
        attacks=a.models * per_model,
        code=code,
        skill=att,
        reroll_ones=_attacker_has(request, Rule.PREFERRED_ENEMY),
        sustained_fire=False,
        hits_per_success=1,
        area_models=a.models if (area and area_cap > 0 and not w.single_attack) else 0,
        area_cap=area_cap,
        modifiers=tuple(mods),
    )
    return plan, notes


def melee_initiatives(request: AttackRequest) -> tuple[int, int]:
    """(attacker's I, defender's I) this assault phase.

    A power fist strikes at I1 [L609]; Charge furieuse may give +1 I [L376]; charged models in
    cover strike at I10 unless the chargers have offensive grenades (MCs and vehicles always
    do) [L1183-L1185]; I10 and a rule setting I1 cancel out: own I [L1186].
    """
    a, w, s, t = request.attacker, request.weapon, request.situation, request.target
    att_i = a.initiative or 1
    if s.charged and s.furious_charge_initiative and a.has(Rule.FURIOUS_CHARGE):
        att_i = min(10, att_i + 1)
    if w.initiative is not None:
        att_i = w.initiative
    if not isinstance(t, Unit):
        return att_i, 1
    def_i = t.initiative or 1
    counter = t.weapon
    fist = counter is not None and counter.initiative == 1
    grenades = s.offensive_grenades or a.is_monstrous
    if s.charged and s.target_in_cover and not grenades:
        def_i = def_i if fist else 10
    elif counter is not None and counter.initiative is not None:
        def_i = counter.initiative
    return att_i, def_i


# ------------------------------------------------------------------------------------------
# wounds and saves
# ------------------------------------------------------------------------------------------


def _effective_ap(request: AttackRequest) -> int | None:
    ap = request.weapon.ap
    if request.melee and request.attacker.is_monstrous:
        return 1 if ap == 1 else 2  # MC melee attacks are PA2 unless PA1 [L173]
    return ap


def _wound_code(request: AttackRequest, strength: int, toughness: int) -> tuple[RollCode, bool]:
    """(code, re-roll failures) for the to-wound roll."""
    w = request.weapon
    if w.wounds_on is not None:
        return RollCode(w.wounds_on), False  # "always wounds on 2+" [L601], [L1392]
    table = tables.wound_code(strength, toughness)
    floors = [v for r in (Rule.ANTI_TOUGHNESS, Rule.POISONED) if (v := w.value_of(r)) is not None]
    if not floors:
        return table, False
    floor = RollCode(min(floors))
    if table.probability() > floor.probability():
        return table, True  # S gives better: re-roll failed wounds [L630]
    return floor, False  # wound on X+ at worst [L630], [L665]


def loss_plan_for(request: AttackRequest, wound: Wound, strength: int) -> LossPlan:
    """Save, Feel No Pain and wounds lost for one wound of this attack on the target."""
    t = request.target
    assert isinstance(t, Unit)
    armour = tables.save_code(tables.armour_save_after_ap(t.save, wound.ap))
    invulnerable = tables.save_code(t.effective_invulnerable)
    save = armour
    if invulnerable is not None and (
        save is None or invulnerable.probability() > save.probability()
    ):
        save = invulnerable  # armour or invulnerable, never both [L1409]
    mortelle = wound.mortelle and not t.has(Rule.ETERNAL_WARRIOR)  # [L414]
    loss = (4 if t.has(Rule.VULNERABLE_TO_TEMPLATES) else 2) if mortelle else 1  # [L677]
    fnp = None
    if t.has(Rule.FEEL_NO_PAIN) and not mortelle:
        fnp = tables.feel_no_pain_target(strength, t.effective_toughness or 1)  # [L426-L428]
    return LossPlan(save, fnp, loss)


def _wound_plan(request: AttackRequest, strength: int) -> WoundPlan:
    w, t = request.weapon, request.target
    assert isinstance(t, Unit)
    toughness = t.effective_toughness or 1
    code, reroll = _wound_code(request, strength, toughness)
    template_vs_vulnerable = w.template is not None and t.has(Rule.VULNERABLE_TO_TEMPLATES)
    return WoundPlan(
        code=code,
        ap=_effective_ap(request),
        reroll_failed=reroll or w.has(Rule.WOUNDING) or w.has(Rule.SNIPER),
        reroll_ones=_attacker_has(request, Rule.PREFERRED_ENEMY),
        ignite=w.has(Rule.IGNITE),
        rend=w.has(Rule.REND) or w.has(Rule.SNIPER),
        mortelle=(
            tables.is_mortelle_by_strength(strength, toughness)
            or w.has(Rule.MORTELLE)
            or template_vs_vulnerable
        ),
    )


def _possible_wounds(plan: WoundPlan) -> list[Wound]:
    aps = {plan.ap, better_ap(plan.ap, 2) if plan.rend else plan.ap}
    flags = {plan.mortelle, plan.mortelle or plan.ignite}
    return [Wound(ap, m) for ap in aps for m in flags]


# ------------------------------------------------------------------------------------------
# vehicles
# ------------------------------------------------------------------------------------------


def _vehicle_plans(
    request: AttackRequest, strength: int, skill: int
) -> tuple[PenetrationPlan, DamageContext, RollCode | None, list[str]]:
    w, s, t = request.weapon, request.situation, request.target
    assert isinstance(t, Vehicle)
    notes: list[str] = []
    facing = t.facing
    if not request.melee and w.has(Rule.BARRAGE):
        facing = type(facing)("side")  # barrage: always side armour [L643]
        notes.append("barrage: side armour [L643]")
    if t.is_(VehicleType.AIRCRAFT):
        facing = type(facing)("side")  # aircraft: side armour only [L261]
        notes.append("aircraft: side armour [L261]")
    armour = t.armour.value(facing)
    if w.has(Rule.LANCE) and armour > 12:
        armour = 12  # [L673]
        notes.append("lance: armour counts as 12 [L673]")
    anti = w.has(Rule.ANTI_VEHICLE) or (w.has(Rule.MELTA) and s.half_range and not request.melee)
    penetrating = (
        w.has(Rule.PENETRATING)
        or w.type is WeaponType.ARTILLERY
        or (request.melee and request.attacker.is_monstrous)
    )  # [L679], [L496], [L173]
    if anti and penetrating:
        mode = PenetrationMode.DOUBLE_BEST  # [L681]
    elif anti:
        mode = PenetrationMode.SUM_TWO  # [L632]
    elif penetrating:
        mode = PenetrationMode.BEST_OF_TWO  # [L679]
    else:
        mode = PenetrationMode.ONE  # [L1403]
    emp = w.has(Rule.EMP)
    pen = PenetrationPlan(
        mode=mode,
        strength=strength,
        armour=armour,
        bonus=1 if request.attacker.has(Rule.TANK_HUNTERS) else 0,  # [L378]
        rend=w.has(Rule.REND) or w.has(Rule.SNIPER),
        emp=emp,
        off_centre=(
            w.template in (Template.BLAST, Template.LARGE_BLAST) and not s.blast_centre_on_vehicle
        ),  # [L536]
    )
    ap = _effective_ap(request)
    ap_mod = 0
    if ap == 1:
        ap_mod = 1  # [L1458]
    elif (ap is None or ap >= 5) and not emp:
        ap_mod = -1  # [L1458] ("PA -" counts as PA >= 5, pen rulings)
    glancing = -2  # [L1459]
    if not emp:
        if t.is_(VehicleType.TANK):
            glancing -= 1  # [L221]
        if t.is_(VehicleType.OPEN_TOPPED):
            glancing += 1  # [L225]
    if t.reinforced_armour:
        glancing -= 1  # [L349]
    ctx = DamageContext(
        skill=skill,
        announced=s.announced_location,
        penetrating_modifier=ap_mod,
        glancing_modifier=ap_mod + glancing,
        aircraft=t.is_(VehicleType.AIRCRAFT),
        fast_skimmer_rapid=(
            t.is_(VehicleType.FAST) and t.is_(VehicleType.SKIMMER) and s.target_rapid_move
        ),
        hull_points=t.hull_points,
    )
    return pen, ctx, tables.save_code(t.invulnerable_save), notes


# ------------------------------------------------------------------------------------------
# the plan
# ------------------------------------------------------------------------------------------


# Rules that change dice at the table but that this analysis does not model (said in notes)
_NOT_MODELLED: dict[Rule, str] = {
    Rule.SONIC: "volleys of simultaneous shots [L687]",
    Rule.WAVES: "hits on every model of a segment [L704]",
    Rule.PRECISION: "picking the model hit [L440]: the target's models are identical",
    Rule.INDEPENDENT_CHARACTER: "Précision (6) [L438]: the target's models are identical",
}


def _rule_notes(request: AttackRequest) -> list[str]:
    """Say which rules of the request leave this attack's dice unchanged or are not modelled."""
    notes: list[str] = []
    seen: set[Rule] = set()
    parts = (
        ("weapon", request.weapon.properties),
        ("attacker", request.attacker.rules),
        ("target", request.target.rules),
    )
    for owner, refs in parts:
        for ref in refs:
            if ref.rule in seen:
                continue
            seen.add(ref.rule)
            info = RULE_INFO[ref.rule]
            if ref.rule in _NOT_MODELLED:
                notes.append(f"{owner}: {info.french} not modelled ({_NOT_MODELLED[ref.rule]})")
            elif not info.changes_attack_dice:
                notes.append(f"{owner}: {info.french} does not change this attack's dice")
    return notes


MAX_HITS = 300  # bound on the hits one analysis can handle (CONVENTIONS: bounded inputs)


def _check_hits(hit: HitPlan) -> None:
    most = (hit.attacks + hit.area_models * hit.area_cap) * hit.hits_per_success
    if hit.sustained_fire:
        most *= 2
    if most > MAX_HITS:
        raise ProfileError(
            "attacker.models",
            N_(
                "up to %(hits)s hits: at most %(most)s per analysis; analyse fewer models at a time"
            ),
            hits=most,
            most=MAX_HITS,
        )


def _ranged_strength(weapon: Weapon) -> int | None:
    """The weapon's S; a sniper without one is S4 [L692]; None is "F -"."""
    if weapon.strength is None and weapon.has(Rule.SNIPER):
        return 4
    return weapon.strength


@lru_cache(maxsize=1024)
def plan_attack(request: AttackRequest) -> AttackPlan:
    """Validate ``request`` and work out every dice step of the attack (cached: pure)."""
    request.validate()
    s, w = request.situation, request.weapon
    if s.smash and not request.attacker.has(Rule.SMASH):
        raise ProfileError(
            "situation.smash", N_("only models with Attaques smash can smash [L372]")
        )
    notes: list[str] = []
    if w.type is WeaponType.GRENADE:
        notes.append("grenade: a 1 to hit on the thrower's own squad is not counted [L498]")
    if target_in_melee(s) and not request.melee:
        notes.append("shooting into melee: the 1s that hit friends are not counted [L1132]")
    if request.melee:
        hit, hit_notes = _melee_hit_plan(request)
    else:
        hit, hit_notes = _ranged_hit_plan(request)
    notes.extend(hit_notes)
    _check_hits(hit)
    uses_bs = not request.melee and request.weapon.template is not Template.FLAME
    cover, cover_notes = _cover(request, hit.skill, uses_bs=uses_bs)
    notes.extend(cover_notes)
    notes.extend(_rule_notes(request))
    t = request.target
    att_i, _def_i = melee_initiatives(request) if request.melee else (None, None)
    if isinstance(t, Vehicle):
        if request.melee:
            penetration_s = melee_strength(request, vs_vehicle=True)
        else:
            penetration_s = _ranged_strength(request.weapon) or 0  # S "-" (EMP): the die alone
        pen, ctx, save, vnotes = _vehicle_plans(request, penetration_s, hit.skill)
        notes.extend(vnotes)
        return AttackPlan(
            request=request,
            hit=hit,
            cover=cover,
            penetration=pen,
            damage=ctx,
            vehicle_save=save,
            strength=penetration_s,
            initiative=att_i,
            notes=tuple(notes),
        )
    strength = melee_strength(request) if request.melee else _ranged_strength(request.weapon)
    if strength is None:
        notes.append("no strength (F -): the hits cannot wound")
        return AttackPlan(
            request=request,
            hit=hit,
            cover=cover,
            strength=None,
            initiative=att_i,
            notes=tuple(notes),
        )
    wound = _wound_plan(request, strength)
    losses = {wd: loss_plan_for(request, wd, strength) for wd in _possible_wounds(wound)}
    return AttackPlan(
        request=request,
        hit=hit,
        cover=cover,
        wound=wound,
        losses=losses,
        strength=strength,
        initiative=att_i,
        notes=tuple(notes),
    )


def counter_request(request: AttackRequest, models: int) -> AttackRequest | None:
    """The defender's strike back in melee: its ``models`` survivors against the attacker.

    It has no charge bonus unless ``defender_charged`` says it charged too (Dynamics [L96]);
    the attacker's cover is never the defender's business (the I10 of charged squads in cover
    is worked out from the charger's side only [L1183]).
    """
    t = request.target
    if not request.melee or not isinstance(t, Unit) or models <= 0:
        return None
    a = request.attacker
    if t.ws is None or a.ws is None or a.toughness is None:
        return None
    if t.strength is None and (t.weapon is None or t.weapon.strength is None):
        return None
    weapon = t.weapon or Weapon(
        name="close combat weapon", kind=WeaponKind.MELEE, type=WeaponType.MELEE, ap=5
    )  # [L597]
    s = request.situation
    situation = replace(
        s,
        charged=s.defender_charged,
        target_in_cover=False,
        defender_charged=False,
        smash=False,
        furious_charge_initiative=False,
        defensive_grenades=False,
        target_giant=False,
        target_invisible=False,
        terrified=False,
        blinded=False,
        engaged_enemies=a.models,
    )
    return AttackRequest(
        attacker=replace(t, models=models),
        weapon=weapon,
        target=a,
        situation=situation,
    )
