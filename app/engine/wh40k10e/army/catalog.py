"""The catalogue: what an army can be built from (datasheets, detachments, enhancements).

A :class:`Catalogue` holds, for one rule system and one or more factions, numbers and names
only (never rules text): datasheets with their model profiles, weapons with every profile,
ability *names*, keywords, unit composition, wargear options, points by unit size, the
Bodyguard units a Leader can join, transport capacity and the Battleline / Dedicated Transport /
Epic Hero / Character flags [L2869-3145, §2.3 of wh40k-10e-core-2.md]; and the detachments with
their enhancements (points, who may take them) [L4283-4294, L4333-4341].

Catalogues are immutable values. :meth:`Catalogue.to_dict` / :meth:`Catalogue.from_dict` give
a lossless plain-JSON form carrying :data:`SCHEMA_VERSION`; the catalogue ``version`` names the
data release so that a list can remember what it was built with.

Schema versions: 2 added what a datasheet becomes in each detachment
(:class:`DetachmentVariant`) and the data's own limit on copies of a datasheet
(``Datasheet.max_in_roster``). A version 1 document still loads: its fields all exist in 2
with defaults, so it reads as a catalogue without detachment changes whose limits come from the
Battleline / Dedicated Transport / Epic Hero flags (re-import the files to get the rest).
Later fields of version 2 (datasheet ``restrictions``, ``legends``, the catalogue's ``limits``
on the units of a keyword in the army, :class:`ArmyLimit`; a wargear choice's ``keywords``,
``removed_keywords`` and ``max_in_roster``; an Enhancement's ``keywords``) have empty defaults,
so documents written before them still load.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from app.engine.errors import ProfileError
from app.engine.wh40k10e.army.codec import FormatError, Plain, from_plain, to_plain
from app.engine.wh40k10e.army.names import name_key

if TYPE_CHECKING:
    from app.engine.wh40k10e.abilities import Ability

__all__ = [
    "CATALOGUE_FORMAT",
    "SCHEMA_VERSION",
    "ArmyFacts",
    "ArmyLimit",
    "Catalogue",
    "CatalogueError",
    "Compare",
    "ConditionOp",
    "CountOf",
    "Datasheet",
    "Detachment",
    "DetachmentVariant",
    "Enhancement",
    "KeywordRule",
    "LimitStep",
    "LimitStepKind",
    "ModelProfile",
    "ModelType",
    "PointsStep",
    "PointsTier",
    "Restriction",
    "RestrictionSeverity",
    "RosterCondition",
    "UnitFacts",
    "WargearChoice",
    "WargearOption",
    "Weapon",
    "WeaponKind",
    "WeaponProfile",
    "dump_catalogues",
    "load_catalogues",
    "merge_catalogues",
    "parent_option",
    "within_counts",
]

SCHEMA_VERSION = 2
READABLE_VERSIONS = frozenset({1, 2})  # older documents read with defaults for the new fields
CATALOGUE_FORMAT = "auspex.catalogue"
CATALOGUE_SET_FORMAT = "auspex.catalogues"
RULE_SYSTEM = "wh40k-10e"

MAX_NAME = 200  # bound on every name
MAX_POINTS = 10_000  # bound on a points value
MAX_MODELS = 200  # bound on models in one unit
MAX_UNITS_OF_A_KIND = 1000  # bound on the data's limit of copies of one datasheet
MAX_CONDITION_NAMES = 50  # bound on the choices one wargear count adds up
MAX_BEARERS = 1000  # bound on the datasheets one Enhancement names
_FNP = re.compile(r"feel no pain\s*(\d)\s*\+", re.IGNORECASE)


class CatalogueError(ProfileError):
    """An invalid catalogue value (the field names where)."""


def _check_name(value: str, field_name: str, *, allow_empty: bool = False) -> None:
    if not allow_empty and not value.strip():
        raise CatalogueError(field_name, "must not be empty")
    if len(value) > MAX_NAME:
        raise CatalogueError(field_name, f"longer than {MAX_NAME} characters")


def _check_range(value: int | None, field_name: str, lo: int, hi: int) -> None:
    if value is not None and not lo <= value <= hi:
        raise CatalogueError(field_name, f"must be between {lo} and {hi}, got {value}")


class WeaponKind(StrEnum):
    RANGED = "ranged"
    MELEE = "melee"


@dataclass(frozen=True, slots=True)
class WeaponProfile:
    """One profile of a weapon, as printed [L3031-3057].

    ``range`` is in inches (``None`` for a melee weapon); ``attacks`` and ``damage`` are dice
    expressions (``"D6+1"``); ``skill`` is the BS/WS number before "+" (``None`` for "N/A", e.g.
    a Torrent weapon); ``strength`` is a number or a dice expression as printed; ``ap`` is 0 or
    negative (``None`` when the data gives no number). ``abilities`` are the weapon abilities
    the engine understands, in canonical spelling; ``unmapped_abilities`` keeps, verbatim, what
    could not be mapped (never dropped).
    """

    name: str
    kind: WeaponKind
    range: int | None
    attacks: str
    skill: int | None
    strength: str
    ap: int | None
    damage: str
    abilities: tuple[str, ...] = ()
    unmapped_abilities: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        _check_range(self.range, "range", 0, 1000)
        _check_range(self.skill, "skill", 2, 6)
        _check_range(self.ap, "ap", -10, 0)
        for fname in ("attacks", "strength", "damage"):
            value = getattr(self, fname)
            if not value or len(value) > 20:
                raise CatalogueError(fname, "must be 1 to 20 characters")

    def engine_abilities(self) -> tuple[Ability, ...]:
        """``abilities`` parsed into the engine's :class:`~app.engine.wh40k10e.abilities.Ability`
        values (they were mapped on import, so they parse)."""
        from app.engine.wh40k10e.abilities import parse_abilities

        return parse_abilities(self.abilities)

    @property
    def strength_value(self) -> int | None:
        """The strength as a number, or ``None`` when it is random or unknown."""
        return int(self.strength) if self.strength.isascii() and self.strength.isdigit() else None

    def combat_weapon(self) -> dict[str, Any] | None:
        """This profile in the shape of the combat API's ``weapon`` (to preload the calculator),
        or ``None`` when it cannot be expressed there (random strength, unknown AP)."""
        strength = self.strength_value
        if strength is None or self.ap is None:
            return None
        return {
            "name": self.name,
            "kind": self.kind.value,
            "attacks": self.attacks,
            "skill": self.skill,
            "strength": strength,
            "ap": self.ap,
            "damage": self.damage,
            "abilities": list(self.abilities),
        }


@dataclass(frozen=True, slots=True)
class Weapon:
    """A weapon and every one of its profiles (e.g. a plasma gun's standard and supercharge)."""

    name: str
    profiles: tuple[WeaponProfile, ...]

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        if not self.profiles:
            raise CatalogueError("profiles", "a weapon needs at least one profile")

    @property
    def kinds(self) -> frozenset[WeaponKind]:
        return frozenset(p.kind for p in self.profiles)


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """The characteristics of a model type [L2979-3010]: M as printed (``'6"'``, ``"-"``),
    T, Sv (``None`` for "-"), W, Ld (the number before "+"), OC and an invulnerable save."""

    name: str
    movement: str
    toughness: int
    save: int | None
    wounds: int
    leadership: int | None
    objective_control: int | None
    invulnerable_save: int | None = None

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        if len(self.movement) > 20:
            raise CatalogueError("movement", "longer than 20 characters")
        _check_range(self.toughness, "toughness", 1, 30)
        _check_range(self.save, "save", 2, 7)
        _check_range(self.wounds, "wounds", 1, 100)
        _check_range(self.leadership, "leadership", 2, 12)
        _check_range(self.objective_control, "objective_control", 0, 50)
        _check_range(self.invulnerable_save, "invulnerable_save", 2, 6)


@dataclass(frozen=True, slots=True)
class ModelType:
    """One line of the unit composition [L3067-3078]: how many models of this type
    (``min``..``max``), their profile (by name), the points each one adds on top of the unit's
    cost (usually 0) and the wargear each carries by default."""

    name: str
    min: int
    max: int
    profile: str
    points: int = 0
    default_wargear: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        _check_range(self.min, "min", 0, MAX_MODELS)
        _check_range(self.max, "max", 0, MAX_MODELS)
        if self.min > self.max:
            raise CatalogueError("min", f"min {self.min} is above max {self.max}")
        _check_range(self.points, "points", 0, MAX_POINTS)


@dataclass(frozen=True, slots=True)
class PointsTier:
    """The unit costs ``points`` when it has ``min_models``..``max_models`` models."""

    min_models: int
    max_models: int
    points: int

    def __post_init__(self) -> None:
        _check_range(self.min_models, "min_models", 1, MAX_MODELS)
        _check_range(self.max_models, "max_models", 1, MAX_MODELS)
        if self.min_models > self.max_models:
            raise CatalogueError("min_models", "above max_models")
        _check_range(self.points, "points", 0, MAX_POINTS)

    def covers(self, models: int) -> bool:
        return self.min_models <= models <= self.max_models


@dataclass(frozen=True, slots=True)
class WargearChoice:
    """One item of a wargear option: its name, the weapons it gives, the points it adds per
    selection and, when the data caps it, how many a unit may take. ``keywords``: the
    keywords the unit gains while it takes this choice (ruling D22: a vehicle made a
    Character by the "Tank Ace Character" choice); ``max_in_roster``: how many the whole army
    may take, when the data caps it (ruling D23: at most 3 Tank Aces); ``removed_keywords``:
    the keywords the unit loses while it takes this choice (ruling D24: a Chaos Space Marines
    champion on a Combat Bike is no longer Infantry)."""

    name: str
    weapons: tuple[str, ...] = ()
    points: int = 0
    max_per_unit: int | None = None
    keywords: tuple[str, ...] = ()
    max_in_roster: int | None = None
    removed_keywords: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        _check_range(self.points, "points", 0, MAX_POINTS)
        _check_range(self.max_per_unit, "max_per_unit", 0, MAX_MODELS)
        _check_range(self.max_in_roster, "max_in_roster", 0, MAX_UNITS_OF_A_KIND)
        _check_keywords(self.keywords, "keywords")
        _check_keywords(self.removed_keywords, "removed_keywords")


def _check_keywords(keywords: tuple[str, ...], what: str) -> None:
    if len(keywords) > MAX_CONDITION_NAMES:
        raise CatalogueError(what, f"at most {MAX_CONDITION_NAMES}")
    for i, k in enumerate(keywords):
        _check_name(k, f"{what}[{i}]")


@dataclass(frozen=True, slots=True)
class WargearOption:
    """A wargear option [L3080-3091]: for each model of type ``model`` (``""``: for the whole
    unit), pick ``min``..``max`` of ``choices``; ``default`` is what the model has if nothing is
    picked. ``within_option`` / ``within``: when the option sits inside a choice of another
    option (a Captain's "Pistol" inside the "Pistol and Melee Weapon" choice of its "Wargear"),
    that option's name and that choice's name (ruling D20): the option is open only to the
    models that take that choice (:func:`within_counts`)."""

    name: str
    model: str
    choices: tuple[WargearChoice, ...]
    min: int = 0
    max: int = 1
    default: str | None = None
    within_option: str = ""
    within: str = ""

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        _check_name(self.model, "model", allow_empty=True)
        _check_name(self.within_option, "within_option", allow_empty=True)
        _check_name(self.within, "within", allow_empty=True)
        if bool(self.within) != bool(self.within_option):
            raise CatalogueError("within", "within and within_option go together")
        _check_range(self.min, "min", 0, MAX_MODELS)
        _check_range(self.max, "max", 0, MAX_MODELS)
        if self.min > self.max:
            raise CatalogueError("min", f"min {self.min} is above max {self.max}")


def parent_option(options: Sequence[WargearOption], option: WargearOption) -> WargearOption | None:
    """The option holding the choice ``option`` sits in (``None``: it sits in none, or the
    data names an option it does not have)."""
    if not option.within:
        return None
    okey, ckey = name_key(option.within_option), name_key(option.within)
    return next(
        (
            o
            for o in options
            if o is not option
            and name_key(o.name) == okey
            and any(name_key(c.name) == ckey for c in o.choices)
        ),
        None,
    )


# (j, parent index or -1, the parent's choice key, whether it is the parent's default, the
# keys of the parent's other choices): what within_counts reads of a datasheet's options
_WithinPlan = tuple[tuple[int, int, str, bool, tuple[str, ...]], ...]
_WITHIN_PLANS: dict[int, tuple[Sequence[WargearOption], _WithinPlan]] = {}
_WITHIN_PLANS_MAX = 4096


def _within_plan(options: Sequence[WargearOption]) -> _WithinPlan:
    found = _WITHIN_PLANS.get(id(options))
    if found is not None and found[0] is options:
        return found[1]
    plan: list[tuple[int, int, str, bool, tuple[str, ...]]] = []
    for j, opt in enumerate(options):
        if not opt.within:
            continue
        parent = parent_option(options, opt)
        k = next((i for i, o in enumerate(options) if o is parent), -1)
        ckey = name_key(opt.within)
        if parent is None:
            plan.append((j, -1, ckey, False, ()))
            continue
        is_default = parent.default is not None and name_key(parent.default) == ckey
        others = tuple(name_key(c.name) for c in parent.choices if name_key(c.name) != ckey)
        plan.append((j, k, ckey, is_default, others))
    if len(_WITHIN_PLANS) >= _WITHIN_PLANS_MAX:
        _WITHIN_PLANS.clear()
    _WITHIN_PLANS[id(options)] = (options, tuple(plan))  # keeps ``options`` alive: ids stay
    return tuple(plan)


def within_counts(
    options: Sequence[WargearOption],
    wargear: Mapping[str, int],
    carriers: Callable[[str], int],
) -> dict[int, int]:
    """For each option sitting inside a choice (by its index in ``options``), how many times
    the unit takes that choice (ruling D20): the roster's count of it, or, for the choice
    its option gives by default, that option's picks (``max`` on each of its ``carriers``)
    less the other choices of that option the unit takes; 0 while the option holding that
    choice is itself closed. An option whose parent the data does not have counts 0 (it
    cannot be reached)."""
    plan = _within_plan(options)
    if not plan:
        return {}
    taken: dict[str, int] = {}
    for w, n in wargear.items():
        if n > 0:
            wkey = name_key(w)
            taken[wkey] = taken.get(wkey, 0) + n
    out: dict[int, int] = {}
    for j, k, ckey, is_default, others in plan:
        if k < 0:
            out[j] = 0
        elif is_default:
            parent = options[k]
            used = sum(taken.get(o, 0) for o in others)
            out[j] = max(parent.max * carriers(parent.model) - used, 0)
        else:
            out[j] = taken.get(ckey, 0)
    # a choice inside a choice inside a choice: open only while its parent is
    for _ in range(4):
        changed = False
        for j, k, _c, _d, _o in plan:
            if k >= 0 and out.get(k, 1) == 0 and out[j] > 0:
                out[j] = 0
                changed = True
        if not changed:
            break
    return out


class KeywordOp(StrEnum):
    KEYWORD = "keyword"
    ALL = "all"
    ANY = "any"
    NOT = "not"


@dataclass(frozen=True, slots=True)
class KeywordRule:
    """A condition on a unit's keywords: a keyword, or all / any / not of sub-rules.

    Used for enhancement eligibility ("Captain model only", "Terminator or Gravis").
    """

    op: KeywordOp
    keyword: str = ""
    args: tuple[KeywordRule, ...] = ()

    def __post_init__(self) -> None:
        if self.op is KeywordOp.KEYWORD:
            _check_name(self.keyword, "keyword")
            if self.args:
                raise CatalogueError("args", "a keyword rule has no sub-rules")
        elif self.op is KeywordOp.NOT and len(self.args) != 1:
            raise CatalogueError("args", "'not' takes exactly one sub-rule")
        elif self.op in (KeywordOp.ALL, KeywordOp.ANY) and not self.args:
            raise CatalogueError("args", f"'{self.op.value}' needs sub-rules")

    @classmethod
    def has(cls, keyword: str) -> KeywordRule:
        return cls(KeywordOp.KEYWORD, keyword)

    @classmethod
    def all_of(cls, *rules: KeywordRule) -> KeywordRule:
        return rules[0] if len(rules) == 1 else cls(KeywordOp.ALL, args=tuple(rules))

    @classmethod
    def any_of(cls, *rules: KeywordRule) -> KeywordRule:
        return rules[0] if len(rules) == 1 else cls(KeywordOp.ANY, args=tuple(rules))

    @classmethod
    def negate(cls, rule: KeywordRule) -> KeywordRule:
        if rule.op is KeywordOp.NOT:
            return rule.args[0]
        return cls(KeywordOp.NOT, args=(rule,))

    def matches(self, keywords: Iterable[str]) -> bool:
        """Whether a unit with ``keywords`` satisfies the rule (names compared leniently)."""
        keys = frozenset(name_key(k) for k in keywords)
        return self._eval(keys)

    def _eval(self, keys: frozenset[str]) -> bool:
        if self.op is KeywordOp.KEYWORD:
            return name_key(self.keyword) in keys
        if self.op is KeywordOp.ALL:
            return all(a._eval(keys) for a in self.args)
        if self.op is KeywordOp.ANY:
            return any(a._eval(keys) for a in self.args)
        return not self.args[0]._eval(keys)

    def __str__(self) -> str:
        if self.op is KeywordOp.KEYWORD:
            return self.keyword
        if self.op is KeywordOp.NOT:
            return f"non-{self.args[0]._nested()}"
        joiner = " and " if self.op is KeywordOp.ALL else " or "
        return joiner.join(a._nested() for a in self.args)

    def _nested(self) -> str:
        text = str(self)
        return f"({text})" if self.op in (KeywordOp.ALL, KeywordOp.ANY) else text


class CountOf(StrEnum):
    """What a :class:`RosterCondition` counts: in the unit (models, a wargear choice or model
    type by name, the unit's own keyword) or in the army (units of a datasheet, units with a
    keyword, the points of the units with a keyword, Warlords, units with an enhancement, the
    chosen detachment and the battle size (by its label, "Strike Force"): 1 or 0)."""

    MODELS = "models"
    WARGEAR = "wargear"
    UNIT_KEYWORD = "unit-keyword"
    UNITS = "units"
    KEYWORD = "keyword"
    WARLORD = "warlord"
    ENHANCEMENT = "enhancement"
    DETACHMENT = "detachment"
    KEYWORD_POINTS = "keyword-points"
    BATTLE_SIZE = "battle-size"
    # units of a datasheet marked as the Warlord (ruling D29: "Wazdakka Gutsmek is the
    # Warlord", a flag the data adds through the datasheet's own Warlord entry)
    WARLORD_UNITS = "warlord-units"


class Compare(StrEnum):
    AT_LEAST = "at-least"
    AT_MOST = "at-most"
    MORE_THAN = "more-than"
    FEWER_THAN = "fewer-than"
    EQUAL = "equal"
    NOT_EQUAL = "not-equal"

    def holds(self, count: int, value: int) -> bool:
        if self is Compare.AT_LEAST:
            return count >= value
        if self is Compare.AT_MOST:
            return count <= value
        if self is Compare.MORE_THAN:
            return count > value
        if self is Compare.FEWER_THAN:
            return count < value
        if self is Compare.EQUAL:
            return count == value
        return count != value


_COMPARE_WORDS = {
    Compare.AT_LEAST: "at least",
    Compare.AT_MOST: "at most",
    Compare.MORE_THAN: "more than",
    Compare.FEWER_THAN: "fewer than",
    Compare.EQUAL: "exactly",
    Compare.NOT_EQUAL: "other than",
}

# How a :class:`RosterCondition` is worded, in English, by key (``of``, or ``of.not`` for the
# negated form of a yes/no count): ``{compare}`` is one of :data:`_COMPARE_WORDS`, ``{count}``
# the number, ``{name}`` the data's name. A translation keeps the placeholders
# (``app/armies/messages.py`` marks the same strings; a test keeps them equal).
CONDITION_TEXTS: Mapping[str, str] = {
    "models": "{compare} {count} models in the unit",
    "wargear": "{compare} {count} × {name} in the unit",
    "unit-keyword": "the unit is {name}",
    "unit-keyword.not": "the unit is not {name}",
    "units": "{compare} {count} {name} unit(s) in the army",
    "keyword": "{compare} {count} {name} unit(s) in the army",
    "warlord": "{compare} {count} Warlord(s) in the army",
    "warlord-units": "{name} is the Warlord",
    "warlord-units.not": "{name} is not the Warlord",
    "enhancement": "{name} taken {compare} {count} time(s) in the army",
    "keyword-points": "{compare} {count} points of {name} units in the army",
    "battle-size": "the battle size is {name}",
    "battle-size.not": "the battle size is not {name}",
    "detachment": "the Detachment is {name}",
    "detachment.not": "the Detachment is not {name}",
}


def _same(text: str) -> str:
    return text


@dataclass(frozen=True, slots=True)
class UnitFacts:
    """What a :class:`RosterCondition` reads of one unit of a roster."""

    models: int
    wargear: Mapping[str, int]
    keywords: tuple[str, ...]


_NO_UNIT = UnitFacts(models=0, wargear={}, keywords=())  # for a condition on the army alone


@dataclass(frozen=True, slots=True)
class ArmyFacts:
    """What a :class:`RosterCondition` reads of the whole roster (names as ``name_key``):
    units per datasheet and per keyword, the points of the units with each keyword, Warlords,
    enhancements, the chosen detachment, the battle size (its label) and its points limit."""

    units: Mapping[str, int]
    keywords: Mapping[str, int]
    warlords: int
    enhancements: Mapping[str, int]
    detachment: str
    battle_size: str = ""
    points_limit: int = 0
    keyword_points: Mapping[str, int] = field(default_factory=dict)
    # units marked as the Warlord, per datasheet (ruling D29)
    warlord_units: Mapping[str, int] = field(default_factory=dict)


# for a condition on the unit alone (a points step, ruling D28)
_NO_ARMY = ArmyFacts(units={}, keywords={}, warlords=0, enhancements={}, detachment="")


@lru_cache(maxsize=4096)
def _name_keys(names: tuple[str, ...]) -> frozenset[str]:
    """The ``name_key`` forms of ``names`` (a wargear count's choices, read at every
    validation)."""
    return frozenset(name_key(n) for n in names)


class ConditionOp(StrEnum):
    COUNT = "count"
    ALL = "all"
    ANY = "any"


@dataclass(frozen=True, slots=True)
class RosterCondition:
    """A condition of the data on the rest of a roster, checked when validating: a count
    (``of`` / ``name`` compared with ``value``) or all / any of sub-conditions."""

    op: ConditionOp
    of: CountOf | None = None
    name: str = ""
    compare: Compare = Compare.AT_LEAST
    value: int = 0
    args: tuple[RosterCondition, ...] = ()
    # For a wargear count: every choice counted together (the items of one option); empty:
    # ``name`` alone.
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.op is ConditionOp.COUNT:
            if self.of is None or self.args:
                raise CatalogueError("of", "a count names what it counts and has no sub-rules")
            _check_name(self.name, "name", allow_empty=True)
            _check_range(self.value, "value", 0, MAX_POINTS)
            if len(self.names) > MAX_CONDITION_NAMES:
                raise CatalogueError("names", f"at most {MAX_CONDITION_NAMES}")
            for i, n in enumerate(self.names):
                _check_name(n, f"names[{i}]")
        elif not self.args:
            raise CatalogueError("args", f"'{self.op.value}' needs sub-conditions")

    @classmethod
    def count(cls, of: CountOf, compare: Compare, value: int, name: str = "") -> RosterCondition:
        return cls(ConditionOp.COUNT, of=of, name=name, compare=compare, value=value)

    def counted(self, unit: UnitFacts, army: ArmyFacts) -> int:
        key = name_key(self.name)
        if self.of is CountOf.MODELS:
            return unit.models
        if self.of is CountOf.WARGEAR:
            keys = _name_keys(self.names) if self.names else {key}
            return sum(n for w, n in unit.wargear.items() if name_key(w) in keys)
        if self.of is CountOf.UNIT_KEYWORD:
            return int(any(name_key(k) == key for k in unit.keywords))
        if self.of is CountOf.UNITS:
            return army.units.get(key, 0)
        if self.of is CountOf.KEYWORD:
            return army.keywords.get(key, 0)
        if self.of is CountOf.WARLORD:
            return army.warlords
        if self.of is CountOf.ENHANCEMENT:
            return army.enhancements.get(key, 0)
        if self.of is CountOf.KEYWORD_POINTS:
            return army.keyword_points.get(key, 0)
        if self.of is CountOf.BATTLE_SIZE:
            return int(name_key(army.battle_size) == key)
        if self.of is CountOf.WARLORD_UNITS:
            return army.warlord_units.get(key, 0)
        return int(name_key(army.detachment) == key)

    def holds(self, unit: UnitFacts, army: ArmyFacts) -> bool:
        if self.op is ConditionOp.COUNT:
            return self.compare.holds(self.counted(unit, army), self.value)
        if self.op is ConditionOp.ALL:
            return all(a.holds(unit, army) for a in self.args)
        return any(a.holds(unit, army) for a in self.args)

    def __str__(self) -> str:
        return self.describe()

    def describe(self, translate: Callable[[str], str] = _same) -> str:
        """The condition in words: English, or through ``translate`` (a gettext), which is
        given the English templates of :data:`CONDITION_TEXTS`, the compare words, the
        joiners " and " / " or " and the battle size labels; the data's names are kept."""
        if self.op is not ConditionOp.COUNT:
            joiner = translate(" and " if self.op is ConditionOp.ALL else " or ")
            return joiner.join(
                f"({a.describe(translate)})"
                if a.op is not ConditionOp.COUNT
                else a.describe(translate)
                for a in self.args
            )
        assert self.of is not None
        key = self.of.value
        name = self.name
        if self.of in (
            CountOf.UNIT_KEYWORD,
            CountOf.BATTLE_SIZE,
            CountOf.DETACHMENT,
            CountOf.WARLORD_UNITS,
        ):
            chosen = self.compare.holds(1, self.value) and not self.compare.holds(0, self.value)
            if not chosen:
                key += ".not"
            if self.of is CountOf.BATTLE_SIZE:
                name = translate(name)
        template = translate(CONDITION_TEXTS[key])
        params = {
            "compare": translate(_COMPARE_WORDS[self.compare]),
            "count": str(self.value),
            "name": name,
        }
        try:
            return template.format(**params)
        except (KeyError, IndexError, ValueError):  # a translation that lost a placeholder
            return CONDITION_TEXTS[key].format(**params)


class LimitStepKind(StrEnum):
    SET = "set"
    INCREMENT = "increment"
    DECREMENT = "decrement"


@dataclass(frozen=True, slots=True)
class LimitStep:
    """One modifier of an :class:`ArmyLimit`: when ``when`` holds (``None``: always), set the
    limit to ``amount`` or add / take ``amount`` (BattleScribe applies them in order)."""

    kind: LimitStepKind
    amount: int
    when: RosterCondition | None = None

    def __post_init__(self) -> None:
        _check_range(self.amount, "amount", -1, MAX_POINTS)


MAX_LIMIT_STEPS = 50  # bound on the modifiers of one army limit


@dataclass(frozen=True, slots=True)
class PointsStep:
    """A points modifier of a datasheet that depends on the unit's wargear (ruling D28: a
    Crucible character's third weapon costs 5 points): when ``when`` holds on the unit
    (``None``: always), add (``increment``) or take (``decrement``) ``amount`` points, times
    the unit's count of ``per`` choices divided by ``every`` (rounded down; BattleScribe's
    ``repeats``) when ``per`` is given. Steps are added to the unit's points by size, in
    order; a unit never costs less than 0."""

    kind: LimitStepKind
    amount: int
    when: RosterCondition | None = None
    per: tuple[str, ...] = ()
    every: int = 1

    def __post_init__(self) -> None:
        if self.kind is LimitStepKind.SET:
            raise CatalogueError("kind", "a points step adds or takes points")
        _check_range(self.amount, "amount", 0, MAX_POINTS)
        _check_range(self.every, "every", 1, MAX_MODELS)
        if len(self.per) > MAX_CONDITION_NAMES:
            raise CatalogueError("per", f"at most {MAX_CONDITION_NAMES}")
        for i, n in enumerate(self.per):
            _check_name(n, f"per[{i}]")

    def points(self, unit: UnitFacts) -> int:
        """The points this step adds to ``unit`` (negative: takes)."""
        if self.when is not None and not self.when.holds(unit, _NO_ARMY):
            return 0
        times = 1
        if self.per:
            keys = _name_keys(self.per)
            counted = sum(n for w, n in unit.wargear.items() if name_key(w) in keys)
            times = counted // self.every
        amount = self.amount * times
        return amount if self.kind is LimitStepKind.INCREMENT else -amount


MAX_POINTS_STEPS = 20  # bound on the wargear-dependent points modifiers of one datasheet


@dataclass(frozen=True, slots=True)
class ArmyLimit:
    """A limit the data puts on the units with ``keyword`` in the whole army (a category's own
    constraint in BattleScribe): at most that many units, or with ``points``, at most that
    many points of them. The limit is ``base`` after ``steps`` whose condition holds, applied
    in order; a negative limit means none (e.g. allies not offered in this army).
    E.g. "Cults of the Dark Gods: no points, 500 in Strike Force"."""

    keyword: str
    base: int
    steps: tuple[LimitStep, ...] = ()
    points: bool = False
    # A minimum instead (BattleScribe's ``min`` constraint of the category, ruling D17): at
    # least that many units (or points) of the keyword; 0 or negative: none required.
    minimum: bool = False

    def __post_init__(self) -> None:
        _check_name(self.keyword, "keyword")
        _check_range(self.base, "base", -1, MAX_POINTS)
        if len(self.steps) > MAX_LIMIT_STEPS:
            raise CatalogueError("steps", f"at most {MAX_LIMIT_STEPS}")

    def value(self, army: ArmyFacts) -> int | None:
        """The limit in ``army`` (``None``: no limit)."""
        value = self.base
        for step in self.steps:
            if step.when is not None and not step.when.holds(_NO_UNIT, army):
                continue
            if step.kind is LimitStepKind.SET:
                value = step.amount
            elif step.kind is LimitStepKind.INCREMENT:
                value += step.amount
            else:
                value -= step.amount
        return value if value >= 0 else None

    def counted(self, army: ArmyFacts) -> int:
        key = name_key(self.keyword)
        return (army.keyword_points if self.points else army.keywords).get(key, 0)


class RestrictionSeverity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, slots=True)
class Restriction:
    """A list error (or warning) the data raises when ``when`` holds (BattleScribe's "add
    error" modifiers): for every unit of the datasheet, or, with ``wargear``, only for a unit
    that takes that choice. Only the condition is kept, never the data's message text.
    ``unavailable``: read from a modifier that hides the datasheet when the rest of the roster
    holds something (another unit, a keyword...)."""

    when: RosterCondition
    severity: RestrictionSeverity = RestrictionSeverity.ERROR
    wargear: str = ""
    # From a "hidden" modifier: the datasheet cannot be taken when ``when`` holds.
    unavailable: bool = False
    # Read from one entry of the datasheet (a choice it hides, or whose allowance it lowers:
    # ruling D16): not certain for a choice two options offer (which one the unit took?).
    entry: bool = False
    # A requirement (BattleScribe's ``min``, ruling D20): while ``when`` holds, the unit takes
    # at least ``required`` of ``choices`` (``wargear`` names the option); 0: not one.
    required: int = 0
    choices: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.wargear, "wargear", allow_empty=True)
        _check_range(self.required, "required", 0, MAX_MODELS)
        if len(self.choices) > MAX_CONDITION_NAMES:
            raise CatalogueError("choices", f"at most {MAX_CONDITION_NAMES}")
        for i, n in enumerate(self.choices):
            _check_name(n, f"choices[{i}]")
        if self.required and not self.choices:
            raise CatalogueError("choices", "a requirement names its choices")


@dataclass(frozen=True, slots=True)
class Enhancement:
    """An enhancement of a detachment: its points and, if restricted, which bearers may take it
    (beyond the core rule: Characters only, not Epic Heroes [L4333-4341]).
    ``characters_only`` is False for the rare detachment upgrades the data offers to other
    units (e.g. vehicle upgrades). ``keywords``: the keywords its bearer's unit gains (ruling
    D25: Touched by the Warp makes its bearer a Psyker), except on the datasheets of
    ``model_bearers`` (ids), where the data gives it to one model of the unit, whose keywords
    are not the unit's."""

    name: str
    points: int
    detachment: str
    eligibility: KeywordRule | None = None
    characters_only: bool = True
    keywords: tuple[str, ...] = ()
    model_bearers: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        _check_name(self.detachment, "detachment")
        _check_range(self.points, "points", 0, MAX_POINTS)
        _check_keywords(self.keywords, "keywords")
        if len(self.model_bearers) > MAX_BEARERS:
            raise CatalogueError("model_bearers", f"at most {MAX_BEARERS}")
        for i, k in enumerate(self.model_bearers):
            _check_name(k, f"model_bearers[{i}]")

    def keywords_for(self, sheet: Datasheet) -> tuple[str, ...]:
        """The keywords ``sheet``'s unit gains when it bears this Enhancement (ruling D25)."""
        return () if sheet.id in self.model_bearers else self.keywords


@dataclass(frozen=True, slots=True)
class Detachment:
    """A set of Detachment rules [L4283-4294] (its name; rules text is never stored) and the
    enhancements it offers."""

    name: str
    faction: str
    enhancements: tuple[Enhancement, ...] = ()
    id: str = ""

    def __post_init__(self) -> None:
        _check_name(self.name, "name")
        _check_name(self.faction, "faction")


@dataclass(frozen=True, slots=True)
class DetachmentVariant:
    """What choosing ``detachment`` changes on a datasheet, from the data's modifiers: whether
    the datasheet may be taken at all, its keywords (``None``: unchanged; e.g. made
    Battleline), how many copies an army may include (``None``: unchanged) and its points by
    unit size (empty: unchanged)."""

    detachment: str
    available: bool = True
    keywords: tuple[str, ...] | None = None
    max_in_roster: int | None = None
    points: tuple[PointsTier, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.detachment, "detachment")
        _check_range(self.max_in_roster, "max_in_roster", 0, MAX_UNITS_OF_A_KIND)


# Datasheet variants made by with_keywords, by (base id, keywords added, keys removed): the
# base is held with its variant, so its id is not reused while the entry is kept; bounded.
_VARIANTS: dict[tuple[int, tuple[str, ...], frozenset[str]], tuple[Datasheet, Datasheet]] = {}
_VARIANTS_MAX = 4096


@dataclass(frozen=True, slots=True)
class Datasheet:
    """A datasheet [L2869-3145]: everything the army builder and the calculator need.

    ``points`` are the unit's points by size, for its default composition (per-model costs of
    the model types included). ``leader_of`` names the Bodyguard units a Leader can join
    [L3215-3219]; ``leader_of_conditional`` those it can join only with some wargear (a footnote
    in the data); ``extra_leader`` means it may join a Bodyguard unit that already has a Leader
    (a datasheet permission overriding the one-Leader rule [L3227]); ``two_leaders_from``: as a
    Bodyguard unit of at least that many models it may take two Leaders.
    ``max_in_roster`` is the data's limit on copies of the datasheet in an army (``None``: not
    given; the Battleline / Dedicated Transport / Epic Hero flags decide); ``variants`` say what
    a detachment changes (:meth:`in_detachment`).
    """

    id: str
    name: str
    faction_keywords: tuple[str, ...]
    keywords: tuple[str, ...]
    profiles: tuple[ModelProfile, ...]
    models: tuple[ModelType, ...]
    min_models: int
    max_models: int
    points: tuple[PointsTier, ...]
    weapons: tuple[Weapon, ...] = ()
    abilities: tuple[str, ...] = ()
    wargear_options: tuple[WargearOption, ...] = ()
    leader_of: tuple[str, ...] = ()
    leader_of_conditional: tuple[str, ...] = ()
    extra_leader: bool = False
    two_leaders_from: int | None = None
    transport_capacity: int | None = None
    character: bool = False
    epic_hero: bool = False
    battleline: bool = False
    dedicated_transport: bool = False
    legends: bool = False
    source: str = ""
    max_in_roster: int | None = None
    variants: tuple[DetachmentVariant, ...] = ()
    restrictions: tuple[Restriction, ...] = ()
    # The data does not offer this datasheet as the Warlord in this catalogue's armies (its
    # Warlord entry is hidden when its own catalogue is not the primary one: a library's
    # allies, ruling D19).
    no_warlord: bool = False
    # Points modifiers that depend on the unit's wargear (ruling D28), added to ``points``.
    points_steps: tuple[PointsStep, ...] = ()

    def __post_init__(self) -> None:
        _check_name(self.id, "id")
        _check_name(self.name, "name")
        _check_range(self.min_models, "min_models", 1, MAX_MODELS)
        _check_range(self.max_models, "max_models", 1, MAX_MODELS)
        if self.min_models > self.max_models:
            raise CatalogueError("min_models", "above max_models")
        _check_range(self.transport_capacity, "transport_capacity", 0, 1000)
        _check_range(self.two_leaders_from, "two_leaders_from", 1, MAX_MODELS)
        profile_names = {p.name for p in self.profiles}
        for i, m in enumerate(self.models):
            if m.profile and m.profile not in profile_names:
                raise CatalogueError(f"models[{i}].profile", f"no profile named {m.profile!r}")
        if not set(self.leader_of_conditional) <= set(self.leader_of):
            raise CatalogueError("leader_of_conditional", "must be a subset of leader_of")
        _check_range(self.max_in_roster, "max_in_roster", 0, MAX_UNITS_OF_A_KIND)
        if len(self.points_steps) > MAX_POINTS_STEPS:
            raise CatalogueError("points_steps", f"at most {MAX_POINTS_STEPS}")
        seen: set[str] = set()
        for i, v in enumerate(self.variants):
            if name_key(v.detachment) in seen:
                raise CatalogueError(f"variants[{i}].detachment", "duplicate detachment")
            seen.add(name_key(v.detachment))

    @property
    def is_leader(self) -> bool:
        return bool(self.leader_of)

    @property
    def max_in_army(self) -> int:
        """How many units of this datasheet an army may include [L4324-4331, L4343-4344]: the
        data's own limit when it gives one, else the core rule from the keywords."""
        if self.max_in_roster is not None:
            return self.max_in_roster
        if self.epic_hero:
            return 1
        return 6 if self.battleline or self.dedicated_transport else 3

    def variant(self, detachment: str | None) -> DetachmentVariant | None:
        if detachment is None or not self.variants:
            return None
        key = name_key(detachment)
        return next((v for v in self.variants if name_key(v.detachment) == key), None)

    def available_in(self, detachment: str | None) -> bool:
        found = self.variant(detachment)
        return found is None or found.available

    def in_detachment(self, detachment: str | None) -> Datasheet:
        """This datasheet as it is in an army of ``detachment``: its keywords (and the
        Battleline / Dedicated Transport flags they carry), limit and points after the
        detachment's modifiers. Unchanged when the detachment changes nothing."""
        found = self.variant(detachment)
        if found is None:
            return self
        changes: dict[str, Any] = {"variants": ()}
        if found.keywords is not None:
            keys = {name_key(k) for k in found.keywords}
            changes["keywords"] = found.keywords
            changes["battleline"] = "battleline" in keys
            changes["dedicated_transport"] = "dedicated transport" in keys
        if found.max_in_roster is not None:
            changes["max_in_roster"] = found.max_in_roster
        if found.points:
            changes["points"] = found.points
        return replace(self, **changes)

    def all_keywords(self) -> tuple[str, ...]:
        return self.keywords + self.faction_keywords

    def choice_keywords(self) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
        """The choices (``name_key`` forms) that add keywords to the unit or remove some from
        it, with those keywords: (added, removed) (rulings D22, D24)."""
        out: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
        for o in self.wargear_options:
            for c in o.choices:
                if c.keywords or c.removed_keywords:
                    key = name_key(c.name)
                    added, removed = out.get(key, ((), ()))
                    out[key] = (
                        tuple(dict.fromkeys((*added, *c.keywords))),
                        tuple(dict.fromkeys((*removed, *c.removed_keywords))),
                    )
        return out

    def roster_caps(self) -> dict[str, tuple[str, int]]:
        """The choices (``name_key`` forms) the whole army may take only so many times, with
        their name and that number (the lowest when several options offer one, ruling D23)."""
        out: dict[str, tuple[str, int]] = {}
        for o in self.wargear_options:
            for c in o.choices:
                if c.max_in_roster is not None:
                    key = name_key(c.name)
                    prev = out.get(key)
                    if prev is None or c.max_in_roster < prev[1]:
                        out[key] = (c.name, c.max_in_roster)
        return out

    def with_keywords(self, added: Iterable[str], removed: Iterable[str] = ()) -> Datasheet:
        """This datasheet with ``added`` keywords (those a taken choice or an Enhancement
        gives, rulings D22, D25) and without ``removed`` ones (those a taken choice takes
        away, D24: a keyword both added and removed is removed), and the Character /
        Battleline / Dedicated Transport / Epic Hero flags they carry. Faction keywords are
        not changed. Unchanged when nothing changes."""
        gone = {name_key(k) for k in removed}
        have = {name_key(k) for k in self.keywords}
        new = [k for k in dict.fromkeys(added) if name_key(k) not in have | gone]
        if not new and not have & gone:
            return self
        # the same variant object each time (the validator's per-datasheet readings are kept
        # by identity: a new copy per validation made a new reading each time, review of
        # issue 17), the base held beside it so that its id is not reused while kept
        memo_key = (id(self), tuple(new), frozenset(have & gone))
        held = _VARIANTS.get(memo_key)
        if held is not None and held[0] is self:
            return held[1]
        variant = self._with_keywords(new, gone)
        if len(_VARIANTS) >= _VARIANTS_MAX:
            _VARIANTS.clear()
        _VARIANTS[memo_key] = (self, variant)
        return variant

    def _with_keywords(self, new: list[str], gone: set[str]) -> Datasheet:
        keywords = (*(k for k in self.keywords if name_key(k) not in gone), *new)
        keys = {name_key(k) for k in keywords}

        def flag(was: bool, key: str) -> bool:
            return key in keys or (was and key not in gone)

        return replace(
            self,
            keywords=keywords,
            character=flag(self.character, "character"),
            epic_hero=flag(self.epic_hero, "epic hero"),
            battleline=flag(self.battleline, "battleline"),
            dedicated_transport=flag(self.dedicated_transport, "dedicated transport"),
        )

    def points_for(self, models: int) -> int | None:
        """The unit's points with ``models`` models, or ``None`` if no tier covers that size."""
        for tier in self.points:
            if tier.covers(models):
                return tier.points
        return None

    def step_points(self, base: int, unit: UnitFacts) -> int:
        """The points the wargear-dependent modifiers (ruling D28) add to a unit of ``base``
        points by size (negative: take; never below 0 in all)."""
        if not self.points_steps:
            return 0
        delta = sum(step.points(unit) for step in self.points_steps)
        return max(base + delta, 0) - base

    def profile(self, name: str) -> ModelProfile | None:
        return next((p for p in self.profiles if p.name == name), None)

    @property
    def feel_no_pain(self) -> int | None:
        """X of a "Feel No Pain X+" ability, if the datasheet has one."""
        for ability in self.abilities:
            m = _FNP.search(ability)
            if m:
                return int(m.group(1))
        return None

    def combat_target(self, models: int | None = None) -> dict[str, Any] | None:
        """This unit in the shape of the combat API's ``target`` (to preload the calculator):
        the profile of its most numerous model type, ``models`` models (default: the minimum
        size). ``None`` if it has no profile."""
        main = max(self.models, key=lambda m: m.max, default=None)
        profile = (self.profile(main.profile) if main else None) or (
            self.profiles[0] if self.profiles else None
        )
        if profile is None:
            return None
        return {
            "models": models if models is not None else self.min_models,
            "toughness": profile.toughness,
            "save": profile.save if profile.save is not None else 7,
            "wounds": profile.wounds,
            "invulnerable_save": profile.invulnerable_save,
            "feel_no_pain": self.feel_no_pain,
            "keywords": [k.upper() for k in self.all_keywords()],
        }

    def weapon(self, name: str) -> Weapon | None:
        key = name_key(name)
        return next((w for w in self.weapons if name_key(w.name) == key), None)


@dataclass(frozen=True, slots=True)
class _Index:
    datasheets: Mapping[str, tuple[Datasheet, ...]]
    detachments: Mapping[str, tuple[Detachment, ...]]
    enhancements: Mapping[str, tuple[Enhancement, ...]]
    factions: Mapping[str, str]
    # datasheets as they are in a detachment, made on first use: (id, detachment key) -> sheet
    in_detachment: dict[tuple[str, str], Datasheet] = field(default_factory=dict)
    # keywords the data admits as allies in an army of a faction, made on first use:
    # faction key -> keys (ruling D18)
    allies: dict[str, frozenset[str]] = field(default_factory=dict)
    # the options a unit must fill (ruling D20), with their choices' keys, made on first use:
    # datasheet id -> options
    required: dict[str, tuple[tuple[WargearOption, frozenset[str]], ...]] = field(
        default_factory=dict
    )
    # the choices that add keywords to a unit or remove some (rulings D22, D24), made on
    # first use: datasheet id -> choice key -> (added, removed)
    choice_keywords: dict[str, dict[str, tuple[tuple[str, ...], tuple[str, ...]]]] = field(
        default_factory=dict
    )
    # the choices an army may take only so many times (ruling D23), made on first use:
    # datasheet id -> choice key -> (name, limit)
    roster_caps: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)


def _build_index(cat: Catalogue) -> _Index:
    sheets: dict[str, list[Datasheet]] = {}
    for d in cat.datasheets:
        sheets.setdefault(name_key(d.name), []).append(d)
    dets: dict[str, list[Detachment]] = {}
    enh: dict[str, list[Enhancement]] = {}
    for det in cat.detachments:
        dets.setdefault(name_key(det.name), []).append(det)
        for e in det.enhancements:
            enh.setdefault(name_key(e.name), []).append(e)
    return _Index(
        datasheets={k: tuple(v) for k, v in sheets.items()},
        detachments={k: tuple(v) for k, v in dets.items()},
        enhancements={k: tuple(v) for k, v in enh.items()},
        factions={name_key(f): f for f in cat.factions},
    )


@dataclass(frozen=True, slots=True, weakref_slot=True)
class Catalogue:
    """Datasheets and detachments for one rule system and one or more factions.

    ``version`` identifies the data release (a list records it); ``source`` says where the
    numbers came from. Lookups by name are lenient (case, spaces, apostrophes) and indexed.
    (Weakly referable: the validator keeps its readings of a catalogue while it lives.)
    """

    id: str
    name: str
    version: str
    factions: tuple[str, ...]
    datasheets: tuple[Datasheet, ...] = ()
    detachments: tuple[Detachment, ...] = ()
    rule_system: str = RULE_SYSTEM
    source: str = ""
    limits: tuple[ArmyLimit, ...] = ()
    # The wargear options' ``min`` are the data's requirements as ruling D20 reads them (what
    # the player must pick); a document imported before that reading has raw minimums, which
    # are not checked until its files are imported again.
    required_options: bool = False
    _index: _Index | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_name(self.id, "id")
        _check_name(self.name, "name")
        _check_name(self.version, "version")
        ids: set[str] = set()
        for i, d in enumerate(self.datasheets):
            if d.id in ids:
                raise CatalogueError(f"datasheets[{i}].id", f"duplicate datasheet id {d.id!r}")
            ids.add(d.id)
        object.__setattr__(self, "_index", _build_index(self))

    @property
    def index(self) -> _Index:
        assert self._index is not None
        return self._index

    # -- lookups --------------------------------------------------------------------------

    def faction(self, name: str) -> str | None:
        """The catalogue's spelling of faction ``name``, or ``None``."""
        return self.index.factions.get(name_key(name))

    def datasheets_named(self, name: str) -> tuple[Datasheet, ...]:
        return self.index.datasheets.get(name_key(name), ())

    def datasheet(self, name: str, faction: str | None = None) -> Datasheet | None:
        """The datasheet called ``name``; with several of that name, the one of ``faction``."""
        found = self.datasheets_named(name)
        if not found:
            return None
        if faction is not None and len(found) > 1:
            key = name_key(faction)
            for d in found:
                if any(name_key(k) == key for k in d.faction_keywords):
                    return d
        return found[0]

    def datasheet_in(self, sheet: Datasheet, detachment: str | None) -> Datasheet:
        """``sheet`` as it is in an army of ``detachment`` (:meth:`Datasheet.in_detachment`),
        made once per catalogue."""
        if detachment is None or not sheet.variants:
            return sheet
        key = (sheet.id, name_key(detachment))
        found = self.index.in_detachment.get(key)
        if found is None:
            found = sheet.in_detachment(detachment)
            self.index.in_detachment[key] = found
        return found

    def with_choices(
        self, sheet: Datasheet, wargear: Mapping[str, int], detachment: str | None = None
    ) -> Datasheet:
        """``sheet`` (as it is in the roster's Detachment) for a unit that takes ``wargear``:
        with the keywords its taken choices add (ruling D22) and without those they remove
        (D24: a Combat Bike's champion is no longer Infantry). A choice the data hides on this
        unit in ``detachment`` (:func:`~.offer.unavailable_choices`: "Tank Ace Character" outside
        Headhunter Task Force) changes nothing: the validator refuses it, and the unit is
        judged without it. Unchanged when it takes none."""
        if not wargear:
            return sheet
        adding = self.index.choice_keywords.get(sheet.id)
        if adding is None:
            adding = sheet.choice_keywords()
            self.index.choice_keywords[sheet.id] = adding
        if not adding:
            return sheet
        taken = [
            key
            for key in dict.fromkeys(name_key(n) for n, count in wargear.items() if count > 0)
            if key in adding
        ]
        if not taken:
            return sheet
        from app.engine.wh40k10e.army.offer import unavailable_choices  # offer imports us

        hidden = unavailable_choices(sheet, detachment)
        kept = [adding[key] for key in taken if key not in hidden]
        added = [k for a, _ in kept for k in a]
        removed = [k for _, r in kept for k in r]
        return sheet.with_keywords(added, removed) if added or removed else sheet

    def with_enhancements(
        self, sheet: Datasheet, enhancements: Iterable[str], detachment: str | None
    ) -> Datasheet:
        """``sheet`` with the keywords the named Enhancements give their bearer (ruling D25:
        Touched by the Warp makes it a Psyker); only the Enhancements of ``detachment`` (one
        of another Detachment is refused by the validator and gives nothing). Unchanged when
        none gives any."""
        if detachment is None:
            return sheet
        det = name_key(detachment)
        added = [
            k
            for name in enhancements
            for e in self.enhancements_named(name)
            if e.keywords and name_key(e.detachment) == det
            for k in e.keywords_for(sheet)
        ]
        return sheet.with_keywords(added) if added else sheet

    def roster_caps_of(self, sheet: Datasheet) -> dict[str, tuple[str, int]]:
        """:meth:`Datasheet.roster_caps`, made once per datasheet."""
        found = self.index.roster_caps.get(sheet.id)
        if found is None:
            found = sheet.roster_caps()
            self.index.roster_caps[sheet.id] = found
        return found

    def required_of(self, sheet: Datasheet) -> tuple[tuple[WargearOption, frozenset[str]], ...]:
        """The options of ``sheet`` a unit must fill, with the keys of their choices (none
        unless :attr:`required_options`; ruling D20), made once per datasheet."""
        if not self.required_options:
            return ()
        found = self.index.required.get(sheet.id)
        if found is None:
            found = tuple(
                (o, frozenset(name_key(c.name) for c in o.choices))
                for o in sheet.wargear_options
                if o.min > 0 and o.default is None
            )
            self.index.required[sheet.id] = found
        return found

    def datasheet_by_id(self, datasheet_id: str) -> Datasheet | None:
        return next((d for d in self.datasheets if d.id == datasheet_id), None)

    def detachments_of(self, faction: str) -> tuple[Detachment, ...]:
        key = name_key(faction)
        return tuple(d for d in self.detachments if name_key(d.faction) == key)

    def detachment(self, name: str, faction: str | None = None) -> Detachment | None:
        found = self.index.detachments.get(name_key(name), ())
        if faction is not None:
            key = name_key(faction)
            found = tuple(d for d in found if name_key(d.faction) == key)
        return found[0] if found else None

    def enhancements_named(self, name: str) -> tuple[Enhancement, ...]:
        return self.index.enhancements.get(name_key(name), ())

    def ally_keywords(self, faction: str) -> frozenset[str]:
        """The keywords (as :func:`name_key` keys) of the data's caps on the army (the
        ``max`` :class:`ArmyLimit` values) that no datasheet of ``faction`` carries: units
        with one of them are the allies the data admits in an army of ``faction`` within that
        cap ("Assigned Agents", "Imperial Knights"...), ruling D18. Made once per faction."""
        key = name_key(faction)
        found = self.index.allies.get(key)
        if found is None:
            capped = {name_key(lim.keyword) for lim in self.limits if not lim.minimum}
            if capped:
                for d in self.datasheets_of(faction):
                    capped -= {name_key(k) for k in d.all_keywords()}
                    if not capped:
                        break
            found = frozenset(capped)
            self.index.allies[key] = found
        return found

    def datasheets_of(self, faction: str) -> tuple[Datasheet, ...]:
        key = name_key(faction)
        return tuple(
            d for d in self.datasheets if any(name_key(k) == key for k in d.faction_keywords)
        )

    # -- serialisation --------------------------------------------------------------------

    def to_dict(self) -> dict[str, Plain]:
        body = to_plain(self)
        assert isinstance(body, dict)
        return {"format": CATALOGUE_FORMAT, "schema_version": SCHEMA_VERSION, **body}

    @classmethod
    def from_dict(cls, data: object) -> Catalogue:
        if not isinstance(data, dict):
            raise CatalogueError("(root)", "a catalogue must be a JSON object")
        body = dict(data)
        fmt = body.pop("format", CATALOGUE_FORMAT)
        if fmt != CATALOGUE_FORMAT:
            raise CatalogueError("format", f"expected {CATALOGUE_FORMAT!r}, got {fmt!r}")
        version = body.pop("schema_version", None)
        if version not in READABLE_VERSIONS:
            raise CatalogueError(
                "schema_version",
                f"unsupported schema version {version!r} (this is {SCHEMA_VERSION})",
            )
        try:
            return from_plain(cls, body)
        except FormatError as exc:
            raise CatalogueError(exc.field, exc.message) from None


def dump_catalogues(catalogues: Iterable[Catalogue]) -> dict[str, Plain]:
    """Several catalogues as one plain-JSON document (the starter catalogue file)."""
    items: list[Plain] = [c.to_dict() for c in catalogues]
    return {"format": CATALOGUE_SET_FORMAT, "schema_version": SCHEMA_VERSION, "catalogues": items}


def load_catalogues(data: object) -> tuple[Catalogue, ...]:
    """Read a document written by :func:`dump_catalogues` (or a single catalogue)."""
    if isinstance(data, dict) and data.get("format") == CATALOGUE_FORMAT:
        return (Catalogue.from_dict(data),)
    if not isinstance(data, dict) or data.get("format") != CATALOGUE_SET_FORMAT:
        raise CatalogueError("format", f"expected {CATALOGUE_SET_FORMAT!r}")
    if data.get("schema_version") not in READABLE_VERSIONS:
        raise CatalogueError(
            "schema_version", f"unsupported schema version (this is {SCHEMA_VERSION})"
        )
    items = data.get("catalogues")
    if not isinstance(items, list):
        raise CatalogueError("catalogues", "expected a list")
    out: list[Catalogue] = []
    for i, item in enumerate(items):
        try:
            out.append(Catalogue.from_dict(item))
        except ProfileError as exc:
            raise exc.with_prefix(f"catalogues[{i}]") from None
    return tuple(out)


_SLUG = re.compile(r"[^a-z0-9]+")


def slug(text: str) -> str:
    """A lower-case, dash-separated identifier made of ``text``."""
    return _SLUG.sub("-", name_key(text)).strip("-") or "catalogue"


def merge_catalogues(
    catalogues: Iterable[Catalogue], *, id: str, name: str, version: str, source: str = ""
) -> Catalogue:
    """One catalogue holding every faction, datasheet and detachment of ``catalogues``
    (a datasheet present in several, e.g. an allied unit, is kept once, by id)."""
    factions: list[str] = []
    sheets: dict[str, Datasheet] = {}
    dets: list[Detachment] = []
    seen_dets: set[tuple[str, str]] = set()
    limits: list[ArmyLimit] = []
    cats = list(catalogues)
    for c in cats:
        limits.extend(x for x in c.limits if x not in limits)
        for f in c.factions:
            if f not in factions:
                factions.append(f)
        for d in c.datasheets:
            sheets.setdefault(d.id, d)
        for det in c.detachments:
            key = (name_key(det.faction), name_key(det.name))
            if key not in seen_dets:
                seen_dets.add(key)
                dets.append(det)
    return Catalogue(
        id=id,
        name=name,
        version=version,
        factions=tuple(factions),
        datasheets=tuple(sheets.values()),
        detachments=tuple(dets),
        source=source,
        limits=tuple(limits),
        required_options=all(c.required_options for c in cats),
    )
