"""PEN units defined by players, grouped into an army.

PEN has no army lists (its seed gives no unit profiles or points, pen.md §6), so players define
their own units: a name, points, a model count, the PEN characteristics of §2.1 (or, for a
vehicle, armour per facing and hull points, §2.3), a unit type, weapons (§2.5-§2.7) and special
rules (§2.10). This module holds those values (pure, frozen dataclasses), checks their bounds
(characteristics 1-10, armour 1-14 [L123]) and names (unit / vehicle / weapon types and rule
names are the PEN engine's vocabulary, French or English), and turns a unit into the profiles
of the PEN combat API so the calculator can be preloaded.

- :func:`check_unit` / :func:`check_army` return the unit / army with every name in canonical
  spelling, or raise one :class:`~app.engine.errors.ProfileError` listing every problem.
- :func:`unit_problems` / :func:`army_problems` list the problems without raising.
- :func:`army_issues` lists what the list page and a battle need to know of the army as a
  whole (points over a limit, passengers, independent characters, values missing for battle),
  each a typed :class:`PenIssue`.

**The stored shape of a PEN unit** (one element of ``Army.units``, and of ``units`` in the
``auspex.pen-army`` export; every key is present when stored, older units lack the keys added
later and read them as their defaults)::

    {"name": "Tactical squad", "points": 150, "models": 10,
     "unit_type": "infantry" | null (a vehicle),   # §2.2 [L125-L188]
     "characteristics": {"ws": 4, "bs": 4, "strength": 4, "toughness": 4, "wounds": 1,
                         "initiative": 4, "attacks": 1, "leadership": 8, "save": 3,
                         "invulnerable_save": null} | null,   # 1..10, save 1..6 [L123]
     "armour": {"front": 14, "side": 14, "rear": 14} | null,  # a vehicle [L213]
     "hull_points": 4 | null,                # null: played without hull points (ruling 48)
     "vehicle_types": ["tank", "transport"], # §2.3 sub-types [L217-L268]
     "weapons": [{"name", "kind", "type", "shots", "salvo_moved", "strength", "ap",
                  "range", "template", "properties"}],
     "rules": ["Sans peur", "Précision (6)"],
     "transport_capacity": 10 | null,        # models carried [L290]
     "transport_types": ["infantry"],        # who may embark; [] = infantry only [L291-L293]
     "embarked_in": 3 | null,                # index of the transport it starts in [L270]
     "independent_character": false,         # Personnage indépendant [L438]
     "joins": 0 | null,                      # index of the squad it starts in [L438]
     "troops": false,                        # a Troops choice [L815]
     "options": [{"name": "Melta bombs", "points": 5}]}

A unit costs ``points`` plus its options' points (:attr:`PenUnit.total_points`); the army
costs the sum. The battle set-up (``app/engine/pen/battle/setup.py``) reads a unit through
:meth:`PenUnit.battle_profile` (its ``profile``, the target object of the PEN combat contract
without ``models``) and :meth:`PenUnit.battle_weapons` (its named weapon objects).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from app.engine.errors import N_, Message, ProfileError
from app.engine.pen.names import BadRuleValue, UnknownName, normalise, parse_rule, unknown_message
from app.engine.pen.profiles import (
    TEMPLATE_ALIASES,
    UNIT_TYPE_ALIASES,
    VEHICLE_TYPE_ALIASES,
    WEAPON_TYPE_ALIASES,
    UnitType,
    WeaponType,
)
from app.engine.pen.weapons import MELEE_WEAPONS, melee_weapon
from app.engine.wh40k10e.army.codec import FormatError, Plain, from_plain, to_plain

__all__ = [
    "MAX_ARMY_UNITS",
    "PEN_ARMY_FORMAT",
    "WEAPON_TYPE_CHOICES",
    "PenArmour",
    "PenArmy",
    "PenCharacteristics",
    "PenIssue",
    "PenOption",
    "PenUnit",
    "PenWeapon",
    "army_issues",
    "army_problems",
    "check_army",
    "check_unit",
    "unit_problems",
]

PEN_ARMY_FORMAT = "auspex.pen-army"
PEN_SCHEMA_VERSION = 1

MAX_NAME = 120
MAX_UNIT_POINTS = 5_000
MAX_ARMY_POINTS = 100_000
MAX_MODELS = 100
MAX_WEAPONS = 20
MAX_RULES = 30
MAX_ARMY_UNITS = 100
MAX_SHOTS = 10
MAX_RANGE = 240  # inches
MAX_HULL_POINTS = 10
MAX_TRANSPORT = 100
MAX_OPTIONS = 20
MAX_TRANSPORT_TYPES = 10
CALCULATOR = "/calculator"

# What the editor offers as a weapon's type: the types of §2.6 [L486-L513], then the
# close-combat weapons of §2.7 [L595-L615] (a melee weapon's type may name one of them).
WEAPON_TYPE_CHOICES: tuple[str, ...] = (
    *(t.value for t in WeaponType),
    *(name for name in MELEE_WEAPONS if name != "Close combat weapon"),
)


@dataclass(frozen=True, slots=True)
class PenCharacteristics:
    """WS, BS, S, T, W, I, A, Ld: 1..10, or ``None`` for a model lacking it [L123]; Sv and
    the invulnerable save as the number before "+" (2..6; 1 for a save better than 2+, played
    as "2+ re 4+" [L1412]; ``None``: no save)."""

    ws: int | None = None
    bs: int | None = None
    strength: int | None = None
    toughness: int | None = None
    wounds: int | None = 1
    initiative: int | None = None
    attacks: int | None = 1
    leadership: int | None = None
    save: int | None = None
    invulnerable_save: int | None = None


@dataclass(frozen=True, slots=True)
class PenArmour:
    """Armour values per facing, 1..14 [L123, L213]."""

    front: int
    side: int
    rear: int


@dataclass(frozen=True, slots=True)
class PenWeapon:
    """A weapon (§2.5): ``type`` (assault, rapid fire, heavy, salvo, pistol, grenade,
    artillery, sweep, or melee; a melee weapon may instead name a close-combat weapon of §2.7,
    e.g. "Power fist", whose profile then applies), ``shots`` per model, ``salvo_moved`` the
    X of "Salve X/Y",
    ``strength`` 1..10 (``None``: "-" or the user's S in melee), ``ap`` 1..6 (``None``: "-"),
    ``range`` in inches (``None``: melee, or a flame template), ``template`` (blast, large
    blast, template) and the weapon's ``properties`` by name."""

    name: str
    kind: str = "ranged"
    type: str = "assault"
    shots: int = 1
    salvo_moved: int | None = None
    strength: int | None = None
    ap: int | None = None
    range: int | None = None
    template: str | None = None
    properties: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class PenOption:
    """An option bought for a unit (a weapon upgrade, melta bombs...) and its cost."""

    name: str
    points: int = 0


@dataclass(frozen=True, slots=True)
class PenUnit:
    """A unit a player defines: a non-vehicle unit has ``characteristics`` and a
    ``unit_type``; a vehicle has ``armour``, ``hull_points`` and ``vehicle_types`` (and its
    BS, WS, I, A in ``characteristics`` if it has them). A transport carries
    ``transport_capacity`` models of the ``transport_types`` (infantry when empty); a unit
    starting the game inside one names it by index in ``embarked_in``; an independent
    character starting in a squad names it in ``joins``. The module docstring shows the
    stored shape."""

    name: str
    points: int
    models: int = 1
    unit_type: str | None = "infantry"
    characteristics: PenCharacteristics | None = None
    armour: PenArmour | None = None
    hull_points: int | None = None
    vehicle_types: tuple[str, ...] = ()
    weapons: tuple[PenWeapon, ...] = ()
    rules: tuple[str, ...] = ()
    transport_capacity: int | None = None
    transport_types: tuple[str, ...] = ()
    embarked_in: int | None = None
    independent_character: bool = False
    joins: int | None = None
    troops: bool = False
    options: tuple[PenOption, ...] = ()

    @property
    def is_vehicle(self) -> bool:
        return self.armour is not None

    @property
    def is_transport(self) -> bool:
        return self.armour is not None and bool(self.transport_capacity)

    @property
    def total_points(self) -> int:
        """The unit's cost: its own points and its options'."""
        return self.points + sum(o.points for o in self.options)

    def carries(self) -> tuple[str, ...]:
        """The unit types this transport may carry: infantry unless stated [L291-L293]."""
        return self.transport_types or (UnitType.INFANTRY.value,)

    def battle_profile(self) -> dict[str, Any]:
        """The squad's ``profile`` for the PEN battle set-up: the PEN combat contract's
        target object without ``models`` (:func:`app.engine.pen.battle.setup.profile_of`)."""
        profile = self.target()
        profile.pop("models", None)
        if self.independent_character and "Personnage indépendant" not in self.rules:
            profile["rules"] = [*profile.get("rules", []), "Personnage indépendant"]
        return profile

    def battle_weapons(self) -> list[tuple[str, dict[str, Any]]]:
        """The squad's weapons as (name, weapon object of the PEN combat contract)."""
        return [(w.name, _weapon_request(w)) for w in self.weapons]

    def to_dict(self) -> Plain:
        return to_plain(self)

    @classmethod
    def from_dict(cls, data: object) -> PenUnit:
        return from_plain(cls, data)

    def attacker(self, weapon: PenWeapon | str) -> dict[str, Any]:
        """``attacker`` and ``weapon`` of a PEN combat request (``POST /combat/analyze``).

        The attacker carries everything the engine reads of it: its unit type (Implacable,
        a monstrous creature's AP2 and penetration [L171]), and the T, W, saves and Ld the
        defender's strike back and the combat result need [L1213]. The weapon keeps its type,
        template and salvo X apart ("Lourde 1 explosion" stays heavy [L494], [L507])."""
        w = weapon if isinstance(weapon, PenWeapon) else self.weapon(weapon)
        ch = self.characteristics or PenCharacteristics()
        attacker: dict[str, Any] = {
            "models": self.models,
            "ws": ch.ws,
            "bs": ch.bs,
            "strength": ch.strength,
            "toughness": ch.toughness,
            "wounds": ch.wounds,
            "attacks": ch.attacks,
            "initiative": ch.initiative,
            "leadership": ch.leadership,
            "save": ch.save,
            "invulnerable_save": ch.invulnerable_save,
        }
        if self.unit_type is not None:
            attacker["unit_type"] = self.unit_type
        if self.rules:
            attacker["rules"] = list(self.rules)
        return {"attacker": attacker, "weapon": _weapon_request(w)}

    def target(self) -> dict[str, Any]:
        """``target`` of a PEN combat request: a unit with its type, rules and what it strikes
        back with; a vehicle with its types, rules and number of weapons."""
        ch = self.characteristics or PenCharacteristics()
        if self.armour is not None:
            vehicle: dict[str, Any] = {
                "armour": {
                    "front": self.armour.front,
                    "side": self.armour.side,
                    "rear": self.armour.rear,
                },
                "facing": "front",
                "hull_points": self.hull_points,
                "types": list(self.vehicle_types),
                "rules": list(self.rules),
            }
            if ch.ws is not None:
                vehicle["ws"] = ch.ws
            if ch.bs is not None:  # its own shots and the hit-location roll [L1420] (B27)
                vehicle["bs"] = ch.bs
            if ch.invulnerable_save is not None:
                vehicle["invulnerable_save"] = ch.invulnerable_save
            if self.weapons:
                vehicle["weapons"] = min(len(self.weapons), MAX_VEHICLE_WEAPONS)
            return vehicle
        target: dict[str, Any] = {
            "models": self.models,
            "ws": ch.ws,
            "strength": ch.strength,
            "toughness": ch.toughness,
            "wounds": ch.wounds,
            "initiative": ch.initiative,
            "attacks": ch.attacks,
            "leadership": ch.leadership,
            "save": ch.save,
            "invulnerable_save": ch.invulnerable_save,
            "cover_save": None,
            "feel_no_pain": None,
            "rules": list(self.rules),
        }
        if self.unit_type is not None:
            target["unit_type"] = self.unit_type
        return target

    def calculator_query(self, weapon: PenWeapon | str) -> list[tuple[str, str]]:
        """The query of the PEN calculator page with this unit attacking with ``weapon``
        (the calculator's fields, see ``app/combat/forms/pen.py``)."""
        w = weapon if isinstance(weapon, PenWeapon) else self.weapon(weapon)
        request = self.attacker(w)
        attacker = request["attacker"]
        query: list[tuple[str, str]] = [("system", "pen")]
        for key in (
            "models",
            "ws",
            "bs",
            "strength",
            "attacks",
            "initiative",
            "toughness",
            "wounds",
            "leadership",
        ):
            query.append((f"a.{key}", _text(attacker.get(key))))
        for key in ("save", "invulnerable_save"):
            value = attacker.get(key)
            query.append((f"a.{key}", "" if value is None else f"{value}+"))
        query.append(("a.unit_type", self.unit_type or ""))
        query.append(("a.rules", ", ".join(self.rules)))
        query.extend(
            [
                ("w.name", w.name),
                ("w.kind", w.kind),
                ("w.type", _type_text(w)),
                ("w.shots", str(w.shots)),
                ("w.strength", _text(w.strength)),
                ("w.ap", _text(w.ap)),
                ("w.properties", ", ".join(w.properties)),
            ]
        )
        return query

    def calculator_url(self, weapon: PenWeapon | str) -> str:
        return f"{CALCULATOR}?{urlencode(self.calculator_query(weapon))}"

    def weapon(self, name: str) -> PenWeapon:
        key = normalise(name)
        for w in self.weapons:
            if normalise(w.name) == key:
                return w
        raise ProfileError(
            "weapon", N_("%(unit)s has no weapon %(weapon)s"), unit=self.name, weapon=repr(name)
        )


MAX_VEHICLE_WEAPONS = 10  # the engine counts a vehicle's weapons up to 10


def _text(value: int | str | None) -> str:
    return "" if value is None else str(value)


def _special_melee(w: PenWeapon) -> bool:
    """A melee weapon whose type names a close-combat weapon of §2.7 (not plain "melee")."""
    return w.kind == "melee" and normalise(w.type) not in WEAPON_TYPE_ALIASES


def _type_text(w: PenWeapon) -> str:
    """The weapon's type as one phrase the calculator reads: "heavy blast", "salvo 2/4"."""
    text = w.type
    if w.type == WeaponType.SALVO.value and w.salvo_moved is not None:
        text = f"{text} {w.salvo_moved}/{w.shots}"
    if w.template is not None:
        text = f"{text} {w.template}"
    return text


def _weapon_request(w: PenWeapon) -> dict[str, Any]:
    """``weapon`` of a PEN combat request. A special close-combat weapon keeps its own S and
    AP when the unit leaves them empty (a power fist is AP2, ×2 S, I1 [L609])."""
    out: dict[str, Any] = {
        "name": w.name,
        "kind": w.kind,
        "type": w.type,
        "shots": w.shots,
        "properties": list(w.properties),
    }
    if w.template is not None:
        out["template"] = w.template
    if w.salvo_moved is not None:
        out["salvo_moved"] = w.salvo_moved
    for key, value in (("strength", w.strength), ("ap", w.ap)):
        if value is not None or not _special_melee(w):
            out[key] = value
    return out


@dataclass(frozen=True, slots=True)
class PenArmy:
    """PEN units grouped into an army, with an optional points limit (the players' format)."""

    name: str
    units: tuple[PenUnit, ...] = ()
    points_limit: int | None = None

    @property
    def points(self) -> int:
        return sum(u.total_points for u in self.units)

    def to_dict(self) -> dict[str, Plain]:
        body = to_plain(self)
        assert isinstance(body, dict)
        return {"format": PEN_ARMY_FORMAT, "schema_version": PEN_SCHEMA_VERSION, **body}

    @classmethod
    def from_dict(cls, data: object) -> PenArmy:
        if not isinstance(data, dict):
            raise ProfileError("(root)", N_("an army must be a JSON object"))
        body = dict(data)
        if body.pop("format", PEN_ARMY_FORMAT) != PEN_ARMY_FORMAT:
            raise ProfileError("format", N_("expected %(format)s"), format=repr(PEN_ARMY_FORMAT))
        if body.pop("schema_version", PEN_SCHEMA_VERSION) != PEN_SCHEMA_VERSION:
            raise ProfileError(
                "schema_version", N_("this is version %(version)s"), version=PEN_SCHEMA_VERSION
            )
        units = body.get("units")
        if isinstance(units, list) and len(units) > MAX_ARMY_UNITS:
            raise ProfileError("units", N_("at most %(most)s units"), most=MAX_ARMY_UNITS)
        try:
            return from_plain(cls, body)
        except FormatError as exc:
            raise ProfileError.collect([ProfileError(f, m) for f, m in exc.errors]) from None


# -- checks ------------------------------------------------------------------------------


class _Problems:
    def __init__(self) -> None:
        self.items: list[ProfileError] = []

    def add(self, field: str, message: str | Message, **params: object) -> None:
        """One problem; ``message`` a message id marked with ``N_`` (its values as keywords)
        or a :class:`Message`, that a page shows in the reader's language."""
        self.items.append(ProfileError(field, message, **params))

    def bounded(
        self, field: str, value: int | None, lo: int, hi: int, *, required: bool = False
    ) -> None:
        if value is None:
            if required:
                self.add(field, N_("is required"))
            return
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(field, N_("must be an integer, got %(value)s"), value=repr(value))
        elif not lo <= value <= hi:
            self.add(
                field,
                N_("must be between %(lo)s and %(hi)s, got %(value)s"),
                lo=lo,
                hi=hi,
                value=value,
            )

    def name(self, field: str, value: str) -> None:
        if not value.strip():
            self.add(field, N_("must not be empty"))
        elif len(value) > MAX_NAME:
            self.add(field, N_("longer than %(limit)s characters"), limit=MAX_NAME)


def _canonical(
    problems: _Problems, field: str, kind: str, value: str, aliases: dict[str, Any]
) -> str:
    found = aliases.get(normalise(value))
    if found is not None:
        return str(found.value)
    close = difflib.get_close_matches(normalise(value), list(aliases), n=1, cutoff=0.6)
    problems.add(field, unknown_message(kind, value, aliases[close[0]].value if close else None))
    return value


def _weapon_type(problems: _Problems, field: str, value: str, *, melee: bool) -> str:
    """A weapon type of §2.6 in canonical spelling, or for a melee weapon a close-combat
    weapon of §2.7 by its English name ("Gantelet énergétique" -> "Power fist") [L595-L615]."""
    if normalise(value) in WEAPON_TYPE_ALIASES:
        return str(WEAPON_TYPE_ALIASES[normalise(value)].value)
    try:
        special = melee_weapon(value)
    except UnknownName:
        special = None
    if special is not None:
        if not melee:
            problems.add(
                field,
                N_("%(weapon)s is a close-combat weapon: its kind is 'melee'"),
                weapon=repr(special.name),
            )
        return special.name
    return _canonical(problems, field, "weapon type", value, WEAPON_TYPE_ALIASES)


def _rule_names(problems: _Problems, field: str, names: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for i, text in enumerate(names):
        if len(text) > MAX_NAME:
            problems.add(f"{field}[{i}]", N_("longer than %(limit)s characters"), limit=MAX_NAME)
            continue
        try:
            out.append(str(parse_rule(text)))
        except UnknownName as exc:
            problems.add(f"{field}[{i}]", exc.template)
        except BadRuleValue as exc:
            problems.add(f"{field}[{i}]", exc.template)
        except ValueError as exc:
            problems.add(f"{field}[{i}]", str(exc))
    return tuple(out)


def _check_weapon(problems: _Problems, prefix: str, w: PenWeapon) -> PenWeapon:
    problems.name(f"{prefix}.name", w.name)
    if w.kind not in ("ranged", "melee"):
        problems.add(
            f"{prefix}.kind", N_("must be 'ranged' or 'melee', got %(value)s"), value=repr(w.kind)
        )
    melee = w.kind == "melee"
    wtype = _weapon_type(problems, f"{prefix}.type", w.type, melee=melee)
    if wtype in {t.value for t in WeaponType} and melee != (wtype == WeaponType.MELEE.value):
        problems.add(
            f"{prefix}.type", N_("a melee weapon has type 'melee' and a ranged one does not")
        )
    template = None
    if w.template is not None:
        template = _canonical(
            problems, f"{prefix}.template", "template", w.template, TEMPLATE_ALIASES
        )
        if melee:
            problems.add(f"{prefix}.template", N_("templates cannot be used in melee [L1219]"))
    problems.bounded(f"{prefix}.shots", w.shots, 1, MAX_SHOTS, required=True)
    problems.bounded(f"{prefix}.salvo_moved", w.salvo_moved, 1, MAX_SHOTS)
    if wtype == WeaponType.SALVO.value and w.salvo_moved is None:
        problems.add(f"{prefix}.salvo_moved", N_("a salvo weapon needs X of 'Salve X/Y'"))
    problems.bounded(f"{prefix}.strength", w.strength, 1, 10)
    problems.bounded(f"{prefix}.ap", w.ap, 1, 6)
    problems.bounded(f"{prefix}.range", w.range, 0, MAX_RANGE)
    if melee and w.range is not None:
        problems.add(f"{prefix}.range", N_("a melee weapon has no range"))
    if len(w.properties) > MAX_RULES:
        problems.add(f"{prefix}.properties", N_("at most %(most)s entries"), most=MAX_RULES)
    props = _rule_names(problems, f"{prefix}.properties", w.properties[:MAX_RULES])
    return replace(w, type=wtype, template=template, properties=props)


def _unit_checked(u: PenUnit, prefix: str = "") -> tuple[PenUnit, list[ProfileError]]:
    p = _Problems()

    def f(name: str) -> str:
        return f"{prefix}{name}"

    p.name(f("name"), u.name)
    p.bounded(f("points"), u.points, 0, MAX_UNIT_POINTS, required=True)
    p.bounded(f("models"), u.models, 1, MAX_MODELS, required=True)
    p.bounded(f("transport_capacity"), u.transport_capacity, 0, MAX_TRANSPORT)
    ch = u.characteristics
    if ch is not None:
        for attr in (
            "ws",
            "bs",
            "strength",
            "toughness",
            "wounds",
            "initiative",
            "attacks",
            "leadership",
        ):
            p.bounded(f(f"characteristics.{attr}"), getattr(ch, attr), 1, 10)
        # 1: a save better than 2+, played as "2+ re 4+" [L1412]
        p.bounded(f("characteristics.save"), ch.save, 1, 6)
        p.bounded(f("characteristics.invulnerable_save"), ch.invulnerable_save, 1, 6)
    unit_type = u.unit_type
    vehicle_types = u.vehicle_types
    if u.armour is not None:
        for facing in ("front", "side", "rear"):
            p.bounded(f(f"armour.{facing}"), getattr(u.armour, facing), 1, 14, required=True)
        p.bounded(f("hull_points"), u.hull_points, 1, MAX_HULL_POINTS)
        if unit_type is not None:
            p.add(f("unit_type"), N_("a vehicle has vehicle_types, not a unit_type"))
        vehicle_types = tuple(
            _canonical(p, f(f"vehicle_types[{i}]"), "vehicle type", t, VEHICLE_TYPE_ALIASES)
            for i, t in enumerate(u.vehicle_types)
        )
    else:
        if u.vehicle_types:
            p.add(f("vehicle_types"), N_("only a vehicle (with armour) has vehicle types"))
        if u.hull_points is not None:
            p.add(f("hull_points"), N_("only a vehicle (with armour) has hull points"))
        if unit_type is None:
            p.add(f("unit_type"), N_("is required (infantry, bike, monstrous creature...)"))
        else:
            unit_type = _canonical(p, f("unit_type"), "unit type", unit_type, UNIT_TYPE_ALIASES)
        if ch is None:
            p.add(
                f("characteristics"), N_("a unit that is not a vehicle needs its characteristics")
            )
        else:
            p.bounded(f("characteristics.toughness"), ch.toughness, 1, 10, required=True)
            p.bounded(f("characteristics.wounds"), ch.wounds, 1, 10, required=True)
    transport_types = u.transport_types
    if u.transport_types and u.armour is None:
        p.add(f("transport_types"), N_("only a vehicle (with armour) carries units"))
    if len(u.transport_types) > MAX_TRANSPORT_TYPES:
        p.add(f("transport_types"), N_("at most %(most)s unit types"), most=MAX_TRANSPORT_TYPES)
    else:
        transport_types = tuple(
            _canonical(p, f(f"transport_types[{i}]"), "unit type", t, UNIT_TYPE_ALIASES)
            for i, t in enumerate(u.transport_types)
        )
    p.bounded(f("embarked_in"), u.embarked_in, 0, MAX_ARMY_UNITS - 1)
    p.bounded(f("joins"), u.joins, 0, MAX_ARMY_UNITS - 1)
    if u.joins is not None and not u.independent_character:
        p.add(f("joins"), N_("only an independent character joins another squad [L438]"))
    if u.independent_character and u.armour is not None:
        p.add(f("independent_character"), N_("a vehicle is not an independent character"))
    if len(u.options) > MAX_OPTIONS:
        p.add(f("options"), N_("at most %(most)s options"), most=MAX_OPTIONS)
    for i, o in enumerate(u.options[:MAX_OPTIONS]):
        p.name(f(f"options[{i}].name"), o.name)
        p.bounded(f(f"options[{i}].points"), o.points, 0, MAX_UNIT_POINTS, required=True)
    if len(u.weapons) > MAX_WEAPONS:
        p.add(f("weapons"), N_("at most %(most)s weapons"), most=MAX_WEAPONS)
    weapons = tuple(
        _check_weapon(p, f(f"weapons[{i}]"), w) for i, w in enumerate(u.weapons[:MAX_WEAPONS])
    )
    if len(u.rules) > MAX_RULES:
        p.add(f("rules"), N_("at most %(most)s rules"), most=MAX_RULES)
    rules = _rule_names(p, f("rules"), u.rules[:MAX_RULES])
    fixed = replace(
        u,
        unit_type=unit_type,
        vehicle_types=vehicle_types,
        weapons=weapons,
        rules=rules,
        transport_types=transport_types,
    )
    return fixed, p.items


def unit_problems(unit: PenUnit) -> tuple[tuple[str, str], ...]:
    """Every problem of ``unit`` as (field, message)."""
    _, problems = _unit_checked(unit)
    return tuple(e for p in problems for e in p.errors)


def check_unit(unit: PenUnit) -> PenUnit:
    """``unit`` with canonical names; raises a ProfileError listing every problem."""
    fixed, problems = _unit_checked(unit)
    if problems:
        raise ProfileError.collect(problems)
    return fixed


@dataclass(frozen=True, slots=True)
class PenIssue:
    """Something the army as a whole breaks (``severity`` "error") or lacks for a battle
    ("warning"): a stable ``code``, the ``unit`` index it concerns (None: the army), and the
    values its message names. :attr:`message` is the English sentence; the armies feature
    words it in the reader's language from ``code`` and ``params``."""

    code: str
    severity: str
    unit: int | None
    params: tuple[tuple[str, str | int], ...] = ()

    @property
    def values(self) -> dict[str, str | int]:
        return dict(self.params)

    @property
    def message(self) -> str:
        return str(self.template)

    @property
    def template(self) -> Message:
        """The message as a :class:`Message` a page translates."""
        return Message(ISSUE_TEXT[self.code], self.values)


# English wording of each issue (the armies feature has the translated ones).
ISSUE_TEXT: dict[str, str] = {
    "points-over-limit": N_("the army costs %(points)s points, over its limit of %(limit)s"),
    "embarked-not-a-transport": N_("%(unit)s starts in %(transport)s, which is not a transport."),
    "embarked-vehicle": N_("%(unit)s is a vehicle: it cannot start inside a transport."),
    "embarked-type": N_("%(transport)s carries only %(types)s; %(unit)s is %(type)s."),
    "transport-full": N_(
        "%(transport)s carries %(carried)s models, over its capacity of %(capacity)s."
    ),
    "joins-missing": N_("%(unit)s joins squad #%(index)s, which the list does not have."),
    "joins-invalid": N_(
        "%(unit)s cannot join %(squad)s: an independent character joins a squad "
        "that is neither a vehicle nor another independent character."
    ),
    "joins-elsewhere": N_("%(unit)s joins %(squad)s but starts in another transport than it."),
    "missing-for-battle": N_("%(unit)s lacks %(fields)s for a battle."),
}

# What a battle reads of a squad that is not a vehicle: strike order (I), melee to-hit (WS),
# shooting (BS, when it has a ranged weapon) and morale (Ld). A model may lack one on
# purpose [L123]: a warning only.
BATTLE_FIELDS = (("ws", "WS"), ("bs", "BS"), ("initiative", "I"), ("leadership", "Ld"))


def army_issues(army: PenArmy, points_limit: int | None = None) -> tuple[PenIssue, ...]:
    """Every issue of the army as a whole, at once: its cost over ``points_limit`` (the
    game's; else the army's own limit), passengers in something that is not a transport, of
    a type it does not carry or over its capacity [L290-L293], independent characters joining
    what they cannot [L438], and (warnings) values a battle needs that a squad lacks."""
    out: list[PenIssue] = []
    limit = army.points_limit if points_limit is None else points_limit
    points = army.points
    if limit is not None and points > limit:
        out.append(
            PenIssue(
                "points-over-limit",
                "error",
                None,
                (("points", points), ("limit", limit), ("over", points - limit)),
            )
        )
    units = army.units
    carried: dict[int, int] = {}
    for i, u in enumerate(units):
        if u.embarked_in is not None:
            t = u.embarked_in
            transport = units[t] if 0 <= t < len(units) and t != i else None
            if u.is_vehicle:
                out.append(PenIssue("embarked-vehicle", "error", i, (("unit", u.name),)))
            elif transport is None or not transport.is_transport:
                name = transport.name if transport is not None else f"#{t + 1}"
                out.append(
                    PenIssue(
                        "embarked-not-a-transport",
                        "error",
                        i,
                        (("unit", u.name), ("transport", name)),
                    )
                )
            else:
                kinds = transport.carries()
                if u.unit_type not in kinds:
                    out.append(
                        PenIssue(
                            "embarked-type",
                            "error",
                            i,
                            (
                                ("unit", u.name),
                                ("transport", transport.name),
                                ("types", ", ".join(kinds)),
                                ("type", u.unit_type or "-"),
                            ),
                        )
                    )
                carried[t] = carried.get(t, 0) + u.models
        if u.joins is not None:
            j = u.joins
            squad = units[j] if 0 <= j < len(units) else None
            if squad is None:
                out.append(
                    PenIssue("joins-missing", "error", i, (("unit", u.name), ("index", j + 1)))
                )
            elif j == i or squad.is_vehicle or squad.independent_character:
                out.append(
                    PenIssue("joins-invalid", "error", i, (("unit", u.name), ("squad", squad.name)))
                )
            elif u.embarked_in is not None and u.embarked_in != squad.embarked_in:
                out.append(
                    PenIssue(
                        "joins-elsewhere", "error", i, (("unit", u.name), ("squad", squad.name))
                    )
                )
    for t, n in sorted(carried.items()):
        capacity = units[t].transport_capacity or 0
        if n > capacity:
            out.append(
                PenIssue(
                    "transport-full",
                    "error",
                    t,
                    (("transport", units[t].name), ("carried", n), ("capacity", capacity)),
                )
            )
    for i, u in enumerate(units):
        if u.is_vehicle:
            continue
        ch = u.characteristics or PenCharacteristics()
        shoots = any(w.kind == "ranged" for w in u.weapons)
        lacking = [
            label
            for key, label in BATTLE_FIELDS
            if getattr(ch, key) is None and (key != "bs" or shoots)
        ]
        if lacking:
            out.append(
                PenIssue(
                    "missing-for-battle",
                    "warning",
                    i,
                    (("unit", u.name), ("fields", ", ".join(lacking))),
                )
            )
    return tuple(out)


def _army_checked(army: PenArmy) -> tuple[PenArmy, list[ProfileError]]:
    p = _Problems()
    p.name("name", army.name)
    p.bounded("points_limit", army.points_limit, 1, MAX_ARMY_POINTS)
    if len(army.units) > MAX_ARMY_UNITS:
        p.add("units", N_("at most %(most)s units"), most=MAX_ARMY_UNITS)
    problems = list(p.items)
    units: list[PenUnit] = []
    for i, u in enumerate(army.units[:MAX_ARMY_UNITS]):
        fixed, found = _unit_checked(u, f"units[{i}].")
        units.append(fixed)
        problems.extend(found)
    checked = replace(army, units=tuple(units))
    for issue in army_issues(checked):
        if issue.severity == "error":
            where = "points_limit" if issue.unit is None else f"units[{issue.unit}]"
            problems.append(ProfileError(where, issue.template))
    return checked, problems


def army_problems(army: PenArmy) -> tuple[tuple[str, str], ...]:
    _, problems = _army_checked(army)
    return tuple(e for p in problems for e in p.errors)


def check_army(army: PenArmy) -> PenArmy:
    fixed, problems = _army_checked(army)
    if problems:
        raise ProfileError.collect(problems)
    return fixed
