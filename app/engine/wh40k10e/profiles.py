"""Profiles of a 10th-edition attack: weapon, target unit (with model groups), situation.

Build them directly (frozen dataclasses, validated in ``__post_init__``) or from plain JSON-like
values with :func:`request_from_dict`, which checks every field, refuses unknown ones, and
raises one :class:`~app.engine.errors.ProfileError` listing every problem with its dotted path
(``"attacks[0].weapon.skill"``).

Size limits (every request inside them is analysed well under a second; see also the work
budget in :mod:`app.engine.wh40k10e.exact`): see the ``MAX_*`` constants below.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from app.engine.dice import DiceExpr
from app.engine.errors import N_, DiceExpressionError, Message, ProfileError
from app.engine.wh40k10e.abilities import (
    Ability,
    AbilityKind,
    UnknownAbility,
    normalise_keyword,
    parse_abilities,
)

__all__ = [
    "MAX_ATTACK_ENTRIES",
    "MAX_GROUPS",
    "MAX_GROUP_MODELS",
    "MAX_MODELS_PER_ENTRY",
    "MAX_TARGET_MODELS",
    "MAX_WOUNDS",
    "SAVE_REROLLS",
    "AttackEntry",
    "CombatRequest",
    "RerollPolicy",
    "Situation",
    "Target",
    "TargetGroup",
    "Weapon",
    "WeaponKind",
    "request_from_dict",
]

MAX_ATTACK_ENTRIES = 8
MAX_MODELS_PER_ENTRY = 30
MAX_TARGET_MODELS = 60
MAX_GROUPS = 4
MAX_GROUP_MODELS = 10
MAX_WOUNDS = 30  # per model
MAX_TOTAL_WOUNDS = 200  # whole target unit
MAX_STRENGTH = 30
MAX_TOUGHNESS = 30
MAX_MODIFIER = 6
MAX_NAME = 80
MAX_KEYWORDS = 30


class WeaponKind(StrEnum):
    RANGED = "ranged"
    MELEE = "melee"


class RerollPolicy(StrEnum):
    """Which dice a re-roll applies to; each policy re-rolls a superset of the previous one."""

    NONE = "none"
    ONES = "ones"
    FAILED = "failed"
    NON_CRITICAL = "non_critical"

    @property
    def rank(self) -> int:
        return _REROLL_RANK[self]

    def combine(self, other: RerollPolicy) -> RerollPolicy:
        """The broader of two policies (a die is re-rolled at most once anyway [L666])."""
        return self if self.rank >= other.rank else other


# the re-rolls a saving throw can have (a save has no critical result to keep)
SAVE_REROLLS = frozenset({RerollPolicy.NONE, RerollPolicy.ONES, RerollPolicy.FAILED})

_REROLL_RANK = {
    RerollPolicy.NONE: 0,
    RerollPolicy.ONES: 1,
    RerollPolicy.FAILED: 2,
    RerollPolicy.NON_CRITICAL: 3,
}


def _check(
    cond: bool, field_name: str, message: str, problems: list[ProfileError], **params: object
) -> None:
    """Adds the problem ``message`` (a message id when marked with ``N_``, its ``params``
    given as keywords) unless ``cond`` holds."""
    if not cond:
        problems.append(ProfileError(field_name, message, **params))


def _raise_if(problems: list[ProfileError]) -> None:
    if problems:
        raise ProfileError.collect(problems)


def _int_in(value: object, lo: int, hi: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value <= hi


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon profile. ``skill`` is the BS/WS number before "+" (``None`` only for Torrent);
    ``ap`` is 0 or negative; ``range`` (inches) is informational."""

    name: str
    kind: WeaponKind
    attacks: DiceExpr
    skill: int | None
    strength: int
    ap: int
    damage: DiceExpr
    abilities: tuple[Ability, ...] = ()
    range: int | None = None

    def __post_init__(self) -> None:
        p: list[ProfileError] = []
        _check(isinstance(self.name, str) and len(self.name) <= MAX_NAME, "name", N_("too long"), p)
        _check(
            self.skill is None or _int_in(self.skill, 2, 6),
            "skill",
            N_("must be 2..6 (the number before '+'), or null for a Torrent weapon"),
            p,
        )
        if self.skill is None and not self.has(AbilityKind.TORRENT):
            p.append(ProfileError("skill", N_("only a Torrent weapon may have no skill")))
        _check(
            _int_in(self.strength, 1, MAX_STRENGTH),
            "strength",
            N_("must be 1..%(most)s"),
            p,
            most=MAX_STRENGTH,
        )
        _check(_int_in(self.ap, -6, 0), "ap", N_("must be 0 or negative (down to -6)"), p)
        _check(self.range is None or _int_in(self.range, 1, 120), "range", N_("must be 1..120"), p)
        kinds = [a.kind for a in self.abilities]
        for kind in set(kinds):
            if kind is not AbilityKind.ANTI and kinds.count(kind) > 1:
                p.append(
                    ProfileError("abilities", N_("%(ability)s is given twice"), ability=kind.value)
                )
        if self.kind is WeaponKind.MELEE:
            for a in self.abilities:
                if a.kind in _RANGED_ONLY:
                    p.append(
                        ProfileError(
                            "abilities", N_("%(ability)s applies to ranged weapons only"), ability=a
                        )
                    )
        elif self.has(AbilityKind.EXTRA_ATTACKS):
            p.append(ProfileError("abilities", N_("Extra Attacks applies to melee weapons only")))
        _raise_if(p)

    def has(self, kind: AbilityKind) -> bool:
        return any(a.kind is kind for a in self.abilities)

    def ability(self, kind: AbilityKind) -> Ability | None:
        for a in self.abilities:
            if a.kind is kind:
                return a
        return None

    def antis(self) -> tuple[Ability, ...]:
        return tuple(a for a in self.abilities if a.kind is AbilityKind.ANTI)


_RANGED_ONLY = frozenset(
    {
        AbilityKind.ASSAULT,
        AbilityKind.HEAVY,
        AbilityKind.RAPID_FIRE,
        AbilityKind.PISTOL,
        AbilityKind.BLAST,
        AbilityKind.INDIRECT_FIRE,
        AbilityKind.TORRENT,
    }
)


@dataclass(frozen=True, slots=True)
class TargetGroup:
    """Models of the target with their own profile: a sergeant, or (keyword CHARACTER) an
    attached Leader. Attacks use the main body's Toughness (RULINGS 14 [L3233–L3238])."""

    name: str
    models: int
    wounds: int
    save: int
    invulnerable_save: int | None = None
    feel_no_pain: int | None = None
    keywords: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        p: list[ProfileError] = []
        _check(
            isinstance(self.name, str) and 0 < len(self.name) <= MAX_NAME,
            "name",
            N_("must be 1..80 characters"),
            p,
        )
        _check(
            _int_in(self.models, 1, MAX_GROUP_MODELS),
            "models",
            N_("must be 1..%(most)s"),
            p,
            most=MAX_GROUP_MODELS,
        )
        _profile_checks(self, p)
        _raise_if(p)
        object.__setattr__(self, "keywords", tuple(normalise_keyword(k) for k in self.keywords))

    @property
    def is_character(self) -> bool:
        return "CHARACTER" in self.keywords


def _profile_checks(obj: Target | TargetGroup, p: list[ProfileError]) -> None:
    _check(
        _int_in(obj.wounds, 1, MAX_WOUNDS), "wounds", N_("must be 1..%(most)s"), p, most=MAX_WOUNDS
    )
    _check(_int_in(obj.save, 2, 7), "save", N_("must be 2..7 (the number before '+')"), p)
    _check(
        obj.invulnerable_save is None or _int_in(obj.invulnerable_save, 2, 6),
        "invulnerable_save",
        N_("must be 2..6 or null"),
        p,
    )
    _check(
        obj.feel_no_pain is None or _int_in(obj.feel_no_pain, 2, 6),
        "feel_no_pain",
        N_("must be 2..6 or null"),
        p,
    )
    _check(
        len(obj.keywords) <= MAX_KEYWORDS
        and all(isinstance(k, str) and 0 < len(k) <= MAX_NAME for k in obj.keywords),
        "keywords",
        N_("at most %(most)s non-empty keywords"),
        p,
        most=MAX_KEYWORDS,
    )


@dataclass(frozen=True, slots=True)
class Target:
    """The target unit: ``models`` identical models (the Bodyguard, or the whole unit) plus
    optional ``groups``. The defender allocates to the main models first, then to the groups in
    the order given; CHARACTER groups come last (RULINGS 14; docs/rulings/wh40k10e-combat.md)."""

    models: int
    toughness: int
    save: int
    wounds: int
    invulnerable_save: int | None = None
    feel_no_pain: int | None = None
    keywords: tuple[str, ...] = ()
    groups: tuple[TargetGroup, ...] = ()

    def __post_init__(self) -> None:
        p: list[ProfileError] = []
        _check(
            _int_in(self.models, 1, MAX_TARGET_MODELS),
            "models",
            N_("must be 1..%(most)s"),
            p,
            most=MAX_TARGET_MODELS,
        )
        _check(
            _int_in(self.toughness, 1, MAX_TOUGHNESS),
            "toughness",
            N_("must be 1..%(most)s"),
            p,
            most=MAX_TOUGHNESS,
        )
        _profile_checks(self, p)
        _check(
            len(self.groups) <= MAX_GROUPS,
            "groups",
            N_("at most %(most)s groups"),
            p,
            most=MAX_GROUPS,
        )
        names = [g.name for g in self.groups]
        _check(
            len(set(names)) == len(names) and "main" not in names,
            "groups",
            N_("group names must be unique and not 'main' (the name of the main models)"),
            p,
        )
        if not p:
            total = self.models * self.wounds + sum(g.models * g.wounds for g in self.groups)
            _check(
                total <= MAX_TOTAL_WOUNDS,
                "wounds",
                N_("the unit has %(total)s wounds in all; at most %(most)s"),
                p,
                total=total,
                most=MAX_TOTAL_WOUNDS,
            )
        _raise_if(p)
        object.__setattr__(self, "keywords", tuple(normalise_keyword(k) for k in self.keywords))

    @property
    def total_models(self) -> int:
        return self.models + sum(g.models for g in self.groups)

    @property
    def all_keywords(self) -> frozenset[str]:
        """Keywords of the unit: its own plus every group's (an Attached unit is one unit)."""
        out = set(self.keywords)
        for g in self.groups:
            out.update(g.keywords)
        return frozenset(out)


@dataclass(frozen=True, slots=True)
class Situation:
    """Everything about the moment of the attack. Defaults: nothing applies."""

    half_range: bool = False
    remained_stationary: bool = False
    charged: bool = False
    cover: bool = False
    target_not_visible: bool = False
    stealth: bool = False
    hit_modifier: int = 0
    wound_modifier: int = 0
    save_modifier: int = 0
    damage_modifier: int = 0
    damage_reduction: int = 0
    reroll_hits: RerollPolicy = RerollPolicy.NONE
    reroll_wounds: RerollPolicy = RerollPolicy.NONE
    twin_linked_reroll: RerollPolicy = RerollPolicy.FAILED
    # saving throws re-rolled: 1s (Scatter field) or failed ones (Evasive Manoeuvres)
    reroll_saves: RerollPolicy = RerollPolicy.NONE
    overwatch: bool = False
    go_to_ground: bool = False
    smokescreen: bool = False
    big_guns_never_tire: bool = False

    def __post_init__(self) -> None:
        p: list[ProfileError] = []
        for name in ("hit_modifier", "wound_modifier", "save_modifier", "damage_modifier"):
            _check(
                _int_in(getattr(self, name), -MAX_MODIFIER, MAX_MODIFIER),
                name,
                N_("must be -%(most)s..%(most)s"),
                p,
                most=MAX_MODIFIER,
            )
        _check(
            _int_in(self.damage_reduction, 0, MAX_MODIFIER),
            "damage_reduction",
            N_("must be 0..6"),
            p,
        )
        _check(
            self.twin_linked_reroll in (RerollPolicy.FAILED, RerollPolicy.NON_CRITICAL),
            "twin_linked_reroll",
            N_("must be 'failed' or 'non_critical'"),
            p,
        )
        _check(
            self.reroll_saves in SAVE_REROLLS,
            "reroll_saves",
            N_("must be 'none', 'ones' or 'failed' (a save has no critical result)"),
            p,
        )
        _raise_if(p)


@dataclass(frozen=True, slots=True)
class AttackEntry:
    """``models`` models of the attacking unit each using ``weapon``."""

    models: int
    weapon: Weapon

    def __post_init__(self) -> None:
        if not _int_in(self.models, 1, MAX_MODELS_PER_ENTRY):
            raise ProfileError("models", N_("must be 1..%(most)s"), most=MAX_MODELS_PER_ENTRY)


@dataclass(frozen=True, slots=True)
class CombatRequest:
    """One activation: ``attacks`` resolved in order against ``target``."""

    attacks: tuple[AttackEntry, ...]
    target: Target
    situation: Situation = field(default_factory=Situation)

    def __post_init__(self) -> None:
        p: list[ProfileError] = []
        _check(
            1 <= len(self.attacks) <= MAX_ATTACK_ENTRIES,
            "attacks",
            N_("give 1..%(most)s attack entries"),
            p,
            most=MAX_ATTACK_ENTRIES,
        )
        if self.situation.target_not_visible:
            for i, entry in enumerate(self.attacks):
                if not entry.weapon.has(AbilityKind.INDIRECT_FIRE):
                    p.append(
                        ProfileError(
                            f"attacks[{i}].weapon.abilities",
                            N_(
                                "the target is not visible: only an Indirect Fire weapon can "
                                "attack it [L2122–L2127]"
                            ),
                        )
                    )
        _raise_if(p)


# -- construction from plain values ----------------------------------------------------------

T = TypeVar("T")

_WEAPON_FIELDS = {
    "name",
    "kind",
    "attacks",
    "skill",
    "strength",
    "ap",
    "damage",
    "abilities",
    "range",
}
_TARGET_FIELDS = {
    "models",
    "toughness",
    "save",
    "wounds",
    "invulnerable_save",
    "feel_no_pain",
    "keywords",
    "groups",
}
_GROUP_FIELDS = {
    "name",
    "models",
    "wounds",
    "save",
    "invulnerable_save",
    "feel_no_pain",
    "keywords",
}
_SITUATION_BOOLS = (
    "half_range",
    "remained_stationary",
    "charged",
    "cover",
    "target_not_visible",
    "stealth",
    "overwatch",
    "go_to_ground",
    "smokescreen",
    "big_guns_never_tire",
)
_SITUATION_INTS = (
    "hit_modifier",
    "wound_modifier",
    "save_modifier",
    "damage_modifier",
    "damage_reduction",
)
_SITUATION_POLICIES = ("reroll_hits", "reroll_wounds", "twin_linked_reroll", "reroll_saves")
SITUATION_FIELDS = frozenset(_SITUATION_BOOLS + _SITUATION_INTS + _SITUATION_POLICIES)
REQUEST_FIELDS = frozenset({"attacks", "target", "situation"})


class _Builder:
    """Collects every problem of a plain request instead of stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[ProfileError] = []

    def fail(self, path: str, message: str | Message, **params: object) -> None:
        self.problems.append(ProfileError(path, message, **params))

    def mapping(
        self, value: object, path: str, allowed: set[str] | frozenset[str]
    ) -> Mapping[str, Any] | None:
        if not isinstance(value, Mapping):
            self.fail(path, N_("must be an object"))
            return None
        for key in value:
            if key not in allowed:
                self.fail(f"{path}.{key}" if path else str(key), N_("unknown field"))
        return value

    def required(self, data: Mapping[str, Any], key: str, path: str) -> Any:
        if key not in data or (data[key] is None and key not in ("skill",)):
            self.fail(_join(path, key), N_("is required"))
            return None
        return data[key]

    def integer(self, value: object, path: str, *, optional: bool = False) -> int | None:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(
                path, N_("must be an integer or null") if optional else N_("must be an integer")
            )
            return None
        return value

    def boolean(self, value: object, path: str) -> bool | None:
        if not isinstance(value, bool):
            self.fail(path, N_("must be true or false"))
            return None
        return value

    def text(self, value: object, path: str) -> str | None:
        if not isinstance(value, str):
            self.fail(path, N_("must be a string"))
            return None
        return value

    def dice(self, value: object, path: str) -> DiceExpr | None:
        if isinstance(value, bool) or not isinstance(value, str | int):
            self.fail(path, N_("must be a dice expression such as '2', 'D6' or 'D3+1'"))
            return None
        try:
            return DiceExpr.parse(value)
        except DiceExpressionError as exc:
            self.fail(path, exc.template)
            return None

    def keywords(self, value: object, path: str) -> tuple[str, ...] | None:
        if value is None:
            return ()
        if not isinstance(value, list | tuple) or not all(isinstance(k, str) for k in value):
            self.fail(path, N_("must be a list of strings"))
            return None
        return tuple(value)

    def build(self, path: str, factory: Callable[[], T]) -> T | None:
        try:
            return factory()
        except ProfileError as exc:
            self.problems.append(exc.with_prefix(path))
            return None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _weapon(b: _Builder, raw: object, path: str) -> Weapon | None:
    data = b.mapping(raw, path, _WEAPON_FIELDS)
    if data is None:
        return None
    before = len(b.problems)
    name = b.text(data.get("name", "weapon"), _join(path, "name"))
    kind_raw = b.required(data, "kind", path)
    kind: WeaponKind | None = None
    if kind_raw is not None:
        try:
            kind = WeaponKind(kind_raw)
        except ValueError:
            b.fail(_join(path, "kind"), N_("must be 'ranged' or 'melee'"))
    attacks = b.dice(b.required(data, "attacks", path), _join(path, "attacks"))
    if "skill" not in data:
        b.fail(_join(path, "skill"), N_("is required (null for a Torrent weapon)"))
    skill = b.integer(data.get("skill"), _join(path, "skill"), optional=True)
    strength = b.integer(b.required(data, "strength", path), _join(path, "strength"))
    ap = b.integer(data.get("ap", 0), _join(path, "ap"))
    damage = b.dice(b.required(data, "damage", path), _join(path, "damage"))
    rng = b.integer(data.get("range"), _join(path, "range"), optional=True)
    abilities_raw = data.get("abilities", [])
    abilities: tuple[Ability, ...] | None = ()
    if not isinstance(abilities_raw, list | tuple) or not all(
        isinstance(a, str) for a in abilities_raw
    ):
        b.fail(_join(path, "abilities"), N_("must be a list of strings"))
        abilities = None
    else:
        try:
            abilities = parse_abilities(abilities_raw)
        except UnknownAbility as exc:
            b.problems.append(exc.with_prefix(path))
            abilities = None
    if len(b.problems) > before:
        return None
    assert name is not None
    assert kind is not None
    assert attacks is not None
    assert damage is not None
    assert strength is not None
    assert ap is not None
    assert abilities is not None
    return b.build(
        path,
        lambda: Weapon(
            name=name,
            kind=kind,
            attacks=attacks,
            skill=skill,
            strength=strength,
            ap=ap,
            damage=damage,
            abilities=abilities,
            range=rng,
        ),
    )


def _profile_values(
    b: _Builder, data: Mapping[str, Any], path: str
) -> tuple[int | None, int | None, int | None, int | None, tuple[str, ...] | None]:
    wounds = b.integer(b.required(data, "wounds", path), _join(path, "wounds"))
    save = b.integer(b.required(data, "save", path), _join(path, "save"))
    inv = b.integer(data.get("invulnerable_save"), _join(path, "invulnerable_save"), optional=True)
    fnp = b.integer(data.get("feel_no_pain"), _join(path, "feel_no_pain"), optional=True)
    kws = b.keywords(data.get("keywords", []), _join(path, "keywords"))
    return wounds, save, inv, fnp, kws


def _group(b: _Builder, raw: object, path: str) -> TargetGroup | None:
    data = b.mapping(raw, path, _GROUP_FIELDS)
    if data is None:
        return None
    before = len(b.problems)
    name = b.text(b.required(data, "name", path), _join(path, "name"))
    models = b.integer(b.required(data, "models", path), _join(path, "models"))
    wounds, save, inv, fnp, kws = _profile_values(b, data, path)
    if len(b.problems) > before:
        return None
    assert name is not None
    assert models is not None
    assert wounds is not None
    assert save is not None
    assert kws is not None
    return b.build(
        path,
        lambda: TargetGroup(
            name=name,
            models=models,
            wounds=wounds,
            save=save,
            invulnerable_save=inv,
            feel_no_pain=fnp,
            keywords=kws,
        ),
    )


def _target(b: _Builder, raw: object, path: str) -> Target | None:
    data = b.mapping(raw, path, _TARGET_FIELDS)
    if data is None:
        return None
    before = len(b.problems)
    models = b.integer(b.required(data, "models", path), _join(path, "models"))
    toughness = b.integer(b.required(data, "toughness", path), _join(path, "toughness"))
    wounds, save, inv, fnp, kws = _profile_values(b, data, path)
    groups_raw = data.get("groups") or []
    groups: list[TargetGroup] = []
    if not isinstance(groups_raw, list | tuple):
        b.fail(_join(path, "groups"), N_("must be a list"))
    elif len(groups_raw) > MAX_GROUPS:
        b.fail(_join(path, "groups"), N_("at most %(most)s groups"), most=MAX_GROUPS)
    else:
        for i, g in enumerate(groups_raw):
            built = _group(b, g, f"{_join(path, 'groups')}[{i}]")
            if built is not None:
                groups.append(built)
    if len(b.problems) > before:
        return None
    assert models is not None
    assert toughness is not None
    assert wounds is not None
    assert save is not None
    assert kws is not None
    return b.build(
        path,
        lambda: Target(
            models=models,
            toughness=toughness,
            save=save,
            wounds=wounds,
            invulnerable_save=inv,
            feel_no_pain=fnp,
            keywords=kws,
            groups=tuple(groups),
        ),
    )


def _situation(b: _Builder, raw: object, path: str) -> Situation | None:
    if raw is None:
        return Situation()
    data = b.mapping(raw, path, SITUATION_FIELDS)
    if data is None:
        return None
    before = len(b.problems)
    values: dict[str, Any] = {}
    for name in _SITUATION_BOOLS:
        if name in data:
            values[name] = b.boolean(data[name], _join(path, name))
    for name in _SITUATION_INTS:
        if name in data:
            values[name] = b.integer(data[name], _join(path, name))
    for name in _SITUATION_POLICIES:
        if name in data:
            try:
                values[name] = RerollPolicy(data[name])
            except ValueError:
                b.fail(_join(path, name), N_("must be 'none', 'ones', 'failed' or 'non_critical'"))
    if len(b.problems) > before:
        return None
    return b.build(path, lambda: Situation(**values))


def request_from_dict(data: Mapping[str, Any]) -> CombatRequest:
    """Build and validate a :class:`CombatRequest` from plain JSON-like values.

    Shape: ``{"attacks": [{"models": int, "weapon": {...}}], "target": {...},
    "situation": {...}}`` (see DESIGN.md, "The 10th-edition combat contract"). Raises one
    ProfileError whose ``errors`` lists every problem as (dotted path, message).
    """
    b = _Builder()
    top = b.mapping(data, "", REQUEST_FIELDS)
    if top is None:
        _raise_if(b.problems)
        raise ProfileError("", "must be an object")
    entries: list[AttackEntry] = []
    attacks_raw = top.get("attacks")
    if not isinstance(attacks_raw, Sequence) or isinstance(attacks_raw, str) or not attacks_raw:
        b.fail("attacks", N_("must be a non-empty list"))
    elif len(attacks_raw) > MAX_ATTACK_ENTRIES:
        b.fail("attacks", N_("at most %(most)s attack entries"), most=MAX_ATTACK_ENTRIES)
    else:
        for i, raw in enumerate(attacks_raw):
            path = f"attacks[{i}]"
            entry = b.mapping(raw, path, {"models", "weapon"})
            if entry is None:
                continue
            models = b.integer(b.required(entry, "models", path), f"{path}.models")
            weapon = _weapon(b, b.required(entry, "weapon", path), f"{path}.weapon")
            if models is not None and weapon is not None:
                built = b.build(path, functools.partial(AttackEntry, models=models, weapon=weapon))
                if built is not None:
                    entries.append(built)
    target = _target(b, b.required(top, "target", ""), "target")
    situation = _situation(b, top.get("situation"), "situation")
    _raise_if(b.problems)
    assert target is not None
    assert situation is not None
    req = b.build(
        "", lambda: CombatRequest(attacks=tuple(entries), target=target, situation=situation)
    )
    _raise_if(b.problems)
    assert req is not None
    return req
