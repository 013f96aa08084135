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
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlencode

from app.engine.errors import ProfileError
from app.engine.pen.names import UnknownName, normalise, parse_rule
from app.engine.pen.profiles import (
    TEMPLATE_ALIASES,
    UNIT_TYPE_ALIASES,
    VEHICLE_TYPE_ALIASES,
    WEAPON_TYPE_ALIASES,
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
    "PenUnit",
    "PenWeapon",
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
class PenUnit:
    """A unit a player defines: a non-vehicle unit has ``characteristics`` and a
    ``unit_type``; a vehicle has ``armour``, ``hull_points`` and ``vehicle_types`` (and its
    BS, WS, I, A in ``characteristics`` if it has them)."""

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

    @property
    def is_vehicle(self) -> bool:
        return self.armour is not None

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
        raise ProfileError("weapon", f"{self.name} has no weapon {name!r}")


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
        return sum(u.points for u in self.units)

    def to_dict(self) -> dict[str, Plain]:
        body = to_plain(self)
        assert isinstance(body, dict)
        return {"format": PEN_ARMY_FORMAT, "schema_version": PEN_SCHEMA_VERSION, **body}

    @classmethod
    def from_dict(cls, data: object) -> PenArmy:
        if not isinstance(data, dict):
            raise ProfileError("(root)", "an army must be a JSON object")
        body = dict(data)
        if body.pop("format", PEN_ARMY_FORMAT) != PEN_ARMY_FORMAT:
            raise ProfileError("format", f"expected {PEN_ARMY_FORMAT!r}")
        if body.pop("schema_version", PEN_SCHEMA_VERSION) != PEN_SCHEMA_VERSION:
            raise ProfileError("schema_version", f"this is version {PEN_SCHEMA_VERSION}")
        units = body.get("units")
        if isinstance(units, list) and len(units) > MAX_ARMY_UNITS:
            raise ProfileError("units", f"at most {MAX_ARMY_UNITS} units")
        try:
            return from_plain(cls, body)
        except FormatError as exc:
            raise ProfileError.collect([ProfileError(f, m) for f, m in exc.errors]) from None


# -- checks ------------------------------------------------------------------------------


class _Problems:
    def __init__(self) -> None:
        self.items: list[ProfileError] = []

    def add(self, field: str, message: str) -> None:
        self.items.append(ProfileError(field, message))

    def bounded(
        self, field: str, value: int | None, lo: int, hi: int, *, required: bool = False
    ) -> None:
        if value is None:
            if required:
                self.add(field, "is required")
            return
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(field, f"must be an integer, got {value!r}")
        elif not lo <= value <= hi:
            self.add(field, f"must be between {lo} and {hi}, got {value}")

    def name(self, field: str, value: str) -> None:
        if not value.strip():
            self.add(field, "must not be empty")
        elif len(value) > MAX_NAME:
            self.add(field, f"longer than {MAX_NAME} characters")


def _canonical(
    problems: _Problems, field: str, kind: str, value: str, aliases: dict[str, Any]
) -> str:
    found = aliases.get(normalise(value))
    if found is not None:
        return str(found.value)
    close = difflib.get_close_matches(normalise(value), list(aliases), n=1, cutoff=0.6)
    hint = f"; did you mean {aliases[close[0]].value!r}?" if close else ""
    problems.add(field, f"unknown {kind} {value!r}{hint}")
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
            problems.add(field, f"{special.name!r} is a close-combat weapon: its kind is 'melee'")
        return special.name
    return _canonical(problems, field, "weapon type", value, WEAPON_TYPE_ALIASES)


def _rule_names(problems: _Problems, field: str, names: tuple[str, ...]) -> tuple[str, ...]:
    out: list[str] = []
    for i, text in enumerate(names):
        if len(text) > MAX_NAME:
            problems.add(f"{field}[{i}]", f"longer than {MAX_NAME} characters")
            continue
        try:
            out.append(str(parse_rule(text)))
        except UnknownName as exc:
            problems.add(f"{field}[{i}]", exc.message)
        except ValueError as exc:
            problems.add(f"{field}[{i}]", str(exc))
    return tuple(out)


def _check_weapon(problems: _Problems, prefix: str, w: PenWeapon) -> PenWeapon:
    problems.name(f"{prefix}.name", w.name)
    if w.kind not in ("ranged", "melee"):
        problems.add(f"{prefix}.kind", f"must be 'ranged' or 'melee', got {w.kind!r}")
    melee = w.kind == "melee"
    wtype = _weapon_type(problems, f"{prefix}.type", w.type, melee=melee)
    if wtype in {t.value for t in WeaponType} and melee != (wtype == WeaponType.MELEE.value):
        problems.add(f"{prefix}.type", "a melee weapon has type 'melee' and a ranged one does not")
    template = None
    if w.template is not None:
        template = _canonical(
            problems, f"{prefix}.template", "template", w.template, TEMPLATE_ALIASES
        )
        if melee:
            problems.add(f"{prefix}.template", "templates cannot be used in melee [L1219]")
    problems.bounded(f"{prefix}.shots", w.shots, 1, MAX_SHOTS, required=True)
    problems.bounded(f"{prefix}.salvo_moved", w.salvo_moved, 1, MAX_SHOTS)
    if wtype == WeaponType.SALVO.value and w.salvo_moved is None:
        problems.add(f"{prefix}.salvo_moved", "a salvo weapon needs X of 'Salve X/Y'")
    problems.bounded(f"{prefix}.strength", w.strength, 1, 10)
    problems.bounded(f"{prefix}.ap", w.ap, 1, 6)
    problems.bounded(f"{prefix}.range", w.range, 0, MAX_RANGE)
    if melee and w.range is not None:
        problems.add(f"{prefix}.range", "a melee weapon has no range")
    if len(w.properties) > MAX_RULES:
        problems.add(f"{prefix}.properties", f"at most {MAX_RULES}")
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
            p.add(f("unit_type"), "a vehicle has vehicle_types, not a unit_type")
        vehicle_types = tuple(
            _canonical(p, f(f"vehicle_types[{i}]"), "vehicle type", t, VEHICLE_TYPE_ALIASES)
            for i, t in enumerate(u.vehicle_types)
        )
    else:
        if u.vehicle_types:
            p.add(f("vehicle_types"), "only a vehicle (with armour) has vehicle types")
        if u.hull_points is not None:
            p.add(f("hull_points"), "only a vehicle (with armour) has hull points")
        if unit_type is None:
            p.add(f("unit_type"), "is required (infantry, bike, monstrous creature...)")
        else:
            unit_type = _canonical(p, f("unit_type"), "unit type", unit_type, UNIT_TYPE_ALIASES)
        if ch is None:
            p.add(f("characteristics"), "a unit that is not a vehicle needs its characteristics")
        else:
            p.bounded(f("characteristics.toughness"), ch.toughness, 1, 10, required=True)
            p.bounded(f("characteristics.wounds"), ch.wounds, 1, 10, required=True)
    if len(u.weapons) > MAX_WEAPONS:
        p.add(f("weapons"), f"at most {MAX_WEAPONS} weapons")
    weapons = tuple(
        _check_weapon(p, f(f"weapons[{i}]"), w) for i, w in enumerate(u.weapons[:MAX_WEAPONS])
    )
    if len(u.rules) > MAX_RULES:
        p.add(f("rules"), f"at most {MAX_RULES} rules")
    rules = _rule_names(p, f("rules"), u.rules[:MAX_RULES])
    fixed = replace(
        u, unit_type=unit_type, vehicle_types=vehicle_types, weapons=weapons, rules=rules
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


def _army_checked(army: PenArmy) -> tuple[PenArmy, list[ProfileError]]:
    p = _Problems()
    p.name("name", army.name)
    p.bounded("points_limit", army.points_limit, 1, MAX_ARMY_POINTS)
    if len(army.units) > MAX_ARMY_UNITS:
        p.add("units", f"at most {MAX_ARMY_UNITS} units")
    problems = list(p.items)
    units: list[PenUnit] = []
    for i, u in enumerate(army.units[:MAX_ARMY_UNITS]):
        fixed, found = _unit_checked(u, f"units[{i}].")
        units.append(fixed)
        problems.extend(found)
    if army.points_limit is not None and army.points > army.points_limit:
        problems.append(
            ProfileError(
                "points_limit",
                f"the army costs {army.points} points, over its limit of {army.points_limit}",
            )
        )
    return replace(army, units=tuple(units)), problems


def army_problems(army: PenArmy) -> tuple[tuple[str, str], ...]:
    _, problems = _army_checked(army)
    return tuple(e for p in problems for e in p.errors)


def check_army(army: PenArmy) -> PenArmy:
    fixed, problems = _army_checked(army)
    if problems:
        raise ProfileError.collect(problems)
    return fixed
