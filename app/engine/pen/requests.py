"""Plain JSON-like values -> a validated :class:`~app.engine.pen.profiles.AttackRequest`.

Shape (the PEN combat contract of DESIGN.md)::

    {"attacker": {...}, "weapon": {...}, "target": {...}, "situation": {...}}

Unknown fields are refused, every problem is reported at once (one ProfileError listing each
dotted field), names of properties and types are French or English, case- and
accent-insensitive, and an unknown name comes back with the closest known one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, replace
from typing import Any, TypeVar

from app.engine.errors import N_, Message, ProfileError
from app.engine.pen.names import (
    BadRuleValue,
    RuleRef,
    UnknownName,
    normalise,
    parse_rule,
    resolve_name,
)
from app.engine.pen.profiles import (
    DAMAGE_RESULT_ALIASES,
    FACING_ALIASES,
    TEMPLATE_ALIASES,
    UNIT_TYPE_ALIASES,
    VEHICLE_TYPE_ALIASES,
    WEAPON_TYPE_ALIASES,
    Armour,
    AttackRequest,
    Facing,
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
from app.engine.pen.tables import Location
from app.engine.pen.weapons import melee_weapon

__all__ = ["request_from_dict"]

E = TypeVar("E")

MAX_NAMES = 30

UNIT_FIELDS = {
    "models",
    "ws",
    "bs",
    "strength",
    "toughness",
    "wounds",
    "initiative",
    "attacks",
    "leadership",
    "save",
    "invulnerable_save",
    "cover_save",
    "feel_no_pain",
    "unit_type",
    "rules",
    "weapon",
    "two_weapons",
}
VEHICLE_FIELDS = {
    "armour",
    "facing",
    "hull_points",
    "types",
    "ws",
    "bs",
    "weapons",
    "invulnerable_save",
    "cover_save",
    "reinforced_armour",
    "rules",
    "damage_bonus",
    "hull_points_lost",
    "weapons_damaged",
    "reduced_mobility",
    "immobilised",
    "models",
    "results_this_turn",
}
WEAPON_FIELDS = {
    "name",
    "kind",
    "type",
    "shots",
    "salvo_moved",
    "strength",
    "ap",
    "template",
    "properties",
    "strength_multiplier",
    "initiative",
    "wounds_on",
    "strength_vs_vehicles",
    "single_attack",
}
SITUATION_BOOLS = {f.name for f in fields(Situation) if f.type in ("bool", bool)}
SITUATION_INTS = {"target_moved", "range_inches", "models_under_template", "engaged_enemies"}
SITUATION_FIELDS = SITUATION_BOOLS | SITUATION_INTS | {"twin_linked", "announced_location"}


class _Builder:
    """Collects every problem instead of stopping at the first one."""

    def __init__(self) -> None:
        self.problems: list[ProfileError] = []

    def fail(self, path: str, message: str | Message, **params: object) -> None:
        self.problems.append(ProfileError(path, message, **params))

    def mapping(self, raw: object, path: str, allowed: set[str]) -> Mapping[str, Any] | None:
        if not isinstance(raw, Mapping):
            self.fail(path, N_("must be an object"))
            return None
        for key in raw:
            if key not in allowed:
                self.fail(_join(path, str(key)), N_("unknown field"))
        return raw

    def integer(self, raw: object, path: str, *, optional: bool = True) -> int | None:
        if raw is None:
            if not optional:
                self.fail(path, N_("is required"))
            return None
        if isinstance(raw, bool) or not isinstance(raw, int):
            self.fail(path, N_("must be an integer, got %(value)s"), value=repr(raw))
            return None
        return raw

    def boolean(self, raw: object, path: str) -> bool:
        if raw is None:
            return False
        if not isinstance(raw, bool):
            self.fail(path, N_("must be true or false, got %(value)s"), value=repr(raw))
            return False
        return raw

    def text(self, raw: object, path: str) -> str | None:
        if raw is None:
            return None
        if not isinstance(raw, str) or len(raw) > 80:
            self.fail(path, N_("must be a string of at most %(most)s characters"), most=80)
            return None
        return raw

    def names(self, raw: object, path: str) -> list[str]:
        if raw is None:
            return []
        if isinstance(raw, str) or not isinstance(raw, Sequence):
            self.fail(path, N_("must be a list of strings"))
            return []
        if len(raw) > MAX_NAMES:
            self.fail(path, N_("at most %(most)s entries"), most=MAX_NAMES)
            return []
        out = []
        for i, item in enumerate(raw):
            value = self.text(item, f"{path}[{i}]")
            if value is not None:
                out.append(value)
        return out

    def rules(self, raw: object, path: str) -> tuple[RuleRef, ...]:
        out: list[RuleRef] = []
        for i, name in enumerate(self.names(raw, path)):
            try:
                out.append(parse_rule(name))
            except UnknownName as err:
                self.fail(f"{path}[{i}]", err.template)
            except BadRuleValue as err:
                self.fail(f"{path}[{i}]", err.template)
            except ValueError as err:
                self.fail(f"{path}[{i}]", str(err))
        return tuple(out)

    def choice(
        self, raw: object, path: str, kind: str, aliases: Mapping[str, E], display: Mapping[E, str]
    ) -> E | None:
        text = self.text(raw, path)
        if text is None:
            return None
        try:
            return resolve_name(kind, text, aliases, display)  # type: ignore[type-var]
        except UnknownName as err:
            self.fail(path, err.template)
            return None

    def build(self, path: str, make: Callable[[], E]) -> E | None:
        try:
            return make()
        except ProfileError as err:
            self.problems.append(err.with_prefix(path))
        except (ValueError, TypeError) as err:
            self.fail(path, str(err))
        return None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _display(aliases: Mapping[str, E]) -> dict[E, str]:
    out: dict[E, str] = {}
    for key, value in aliases.items():
        out.setdefault(value, key)
    return out


_COUNT = re.compile(r"(\d+)\s*/\s*(\d+)|(\d+)")


def _weapon_type(
    b: _Builder, raw: object, path: str
) -> tuple[WeaponType | None, int | None, int | None, Template | None, bool]:
    """Parse "Lourde 1 explosion", "salvo 2/4", "rapid fire", "blast", "barrage"...

    Returns (type, shots, salvo_moved, template, barrage).
    """
    text = b.text(raw, path)
    if text is None:
        return None, None, None, None, False
    shots = salvo_moved = None
    match = _COUNT.search(text)
    rest = text
    if match:
        if match.group(1):
            salvo_moved, shots = int(match.group(1)), int(match.group(2))
        else:
            shots = int(match.group(3))
        rest = text[: match.start()] + " " + text[match.end() :]
    words = normalise(rest)
    template: Template | None = None
    for alias in sorted(TEMPLATE_ALIASES, key=len, reverse=True):
        if re.search(rf"\b{re.escape(alias)}\b", words):
            template = TEMPLATE_ALIASES[alias]
            words = re.sub(rf"\b{re.escape(alias)}\b", " ", words)
            break
    barrage = bool(re.search(r"\bbarrage\b", words))
    words = " ".join(re.sub(r"\bbarrage\b", " ", words).split())
    if not words:
        if template is None and not barrage:
            b.fail(path, N_("no weapon type in %(text)s"), text=repr(text))
            return None, shots, salvo_moved, None, False
        kind = WeaponType.HEAVY if barrage and template is None else WeaponType.ASSAULT
        return kind, shots, salvo_moved, template, barrage
    try:
        kind = resolve_name(
            "weapon type", words, WEAPON_TYPE_ALIASES, _display(WEAPON_TYPE_ALIASES)
        )
    except UnknownName as err:
        b.fail(path, err.template)
        return None, shots, salvo_moved, template, barrage
    return kind, shots, salvo_moved, template, barrage


def _weapon(b: _Builder, raw: object, path: str) -> Weapon | None:
    data = b.mapping(raw, path, WEAPON_FIELDS)
    if data is None:
        return None
    kind_text = b.text(data.get("kind"), _join(path, "kind"))
    kind = WeaponKind.RANGED
    if kind_text is not None:
        if normalise(kind_text) in ("melee", "close combat", "corps a corps", "cac"):
            kind = WeaponKind.MELEE
        elif normalise(kind_text) in ("ranged", "tir", "shooting"):
            kind = WeaponKind.RANGED
        else:
            b.fail(_join(path, "kind"), N_("must be 'ranged' or 'melee'"))
    base: Weapon | None = None
    type_raw = data.get("type")
    wtype: WeaponType | None = WeaponType.MELEE if kind is WeaponKind.MELEE else None
    shots = salvo_moved = None
    template: Template | None = None
    barrage = False
    if kind is WeaponKind.MELEE:
        type_text = b.text(type_raw, _join(path, "type"))
        if type_text is None or normalise(type_text) in ("melee", "close combat", ""):
            base = melee_weapon("close combat weapon")  # user's S, PA5 [L597]
        else:
            try:
                base = melee_weapon(type_text)
            except UnknownName as err:
                b.fail(_join(path, "type"), err.template)
    elif type_raw is None:
        b.fail(_join(path, "type"), N_("is required for a ranged weapon"))
    else:
        wtype, shots, salvo_moved, template, barrage = _weapon_type(
            b, type_raw, _join(path, "type")
        )
    explicit_shots = b.integer(data.get("shots"), _join(path, "shots"))
    if explicit_shots is not None and shots is not None and explicit_shots != shots:
        b.fail(
            _join(path, "shots"),
            N_("%(shots)s conflicts with the type %(type)s"),
            shots=explicit_shots,
            type=repr(type_raw),
        )
    if explicit_shots is not None:
        shots = explicit_shots
    explicit_salvo = b.integer(data.get("salvo_moved"), _join(path, "salvo_moved"))
    if explicit_salvo is not None:
        salvo_moved = explicit_salvo
    if "template" in data:
        template = b.choice(
            data.get("template"),
            _join(path, "template"),
            "template",
            TEMPLATE_ALIASES,
            _display(TEMPLATE_ALIASES),
        )
    properties = b.rules(data.get("properties"), _join(path, "properties"))
    if barrage:
        properties = (*properties, parse_rule("Barrage"))
    weapon = base or Weapon(
        kind=kind,
        type=WeaponType.MELEE if kind is WeaponKind.MELEE else (wtype or WeaponType.ASSAULT),
    )
    changes: dict[str, Any] = {
        "name": b.text(data.get("name"), _join(path, "name")) or weapon.name,
        "kind": kind,
        "properties": (*weapon.properties, *properties),
        "template": template,
    }
    if kind is WeaponKind.RANGED and wtype is not None:
        changes["type"] = wtype
    if shots is not None:
        changes["shots"] = shots
    if salvo_moved is not None:
        changes["salvo_moved"] = salvo_moved
    for name in (
        "strength",
        "ap",
        "strength_multiplier",
        "initiative",
        "wounds_on",
        "strength_vs_vehicles",
    ):
        if name in data:
            changes[name] = b.integer(data[name], _join(path, name))
    if "single_attack" in data:
        changes["single_attack"] = b.boolean(data["single_attack"], _join(path, "single_attack"))
    if changes.get("strength_multiplier", 1) is None:
        changes["strength_multiplier"] = 1
    return b.build(path, lambda: _validated(replace(weapon, **changes)))


def _validated(weapon: Weapon) -> Weapon:
    weapon.validate()
    return weapon


def _unit(b: _Builder, raw: object, path: str) -> Unit | None:
    data = b.mapping(raw, path, UNIT_FIELDS)
    if data is None:
        return None
    values: dict[str, Any] = {}
    for name in (
        "models",
        "ws",
        "bs",
        "strength",
        "toughness",
        "wounds",
        "initiative",
        "attacks",
        "leadership",
        "save",
        "invulnerable_save",
        "cover_save",
    ):
        if name in data:
            value = b.integer(data[name], _join(path, name))
            if value is not None:
                values[name] = value
    rules = b.rules(data.get("rules"), _join(path, "rules"))
    fnp = data.get("feel_no_pain")
    if fnp is not None:
        if isinstance(fnp, bool):
            if fnp:
                rules = (*rules, parse_rule("Insensible à la douleur"))
        else:
            b.fail(
                _join(path, "feel_no_pain"),
                N_("PEN Feel No Pain has no value (6 / 5+ / 4+ by S vs T [L426]): use true"),
            )
    values["rules"] = rules
    if "unit_type" in data:
        unit_type = b.choice(
            data["unit_type"],
            _join(path, "unit_type"),
            "unit type",
            UNIT_TYPE_ALIASES,
            _display(UNIT_TYPE_ALIASES),
        )
        if unit_type is not None:
            values["unit_type"] = unit_type
    if data.get("weapon") is not None:
        weapon = _weapon(b, data["weapon"], _join(path, "weapon"))
        if weapon is not None:
            values["weapon"] = weapon
    if "two_weapons" in data:
        values["two_weapons"] = b.boolean(data["two_weapons"], _join(path, "two_weapons"))
    return b.build(path, lambda: _checked_unit(Unit(**values)))


def _checked_unit(unit: Unit) -> Unit:
    unit.validate()
    return unit


def _vehicle(b: _Builder, raw: object, path: str) -> Vehicle | None:
    data = b.mapping(raw, path, VEHICLE_FIELDS)
    if data is None:
        return None
    armour_raw = b.mapping(data.get("armour"), _join(path, "armour"), {"front", "side", "rear"})
    armour = None
    if armour_raw is not None:
        parts = [
            b.integer(armour_raw.get(k), f"{path}.armour.{k}", optional=False)
            for k in ("front", "side", "rear")
        ]
        if all(p is not None for p in parts):
            armour = Armour(*parts)  # type: ignore[arg-type]
    values: dict[str, Any] = {}
    for name in (
        "hull_points",
        "ws",
        "bs",
        "weapons",
        "invulnerable_save",
        "cover_save",
        "damage_bonus",
        "hull_points_lost",
        "models",
    ):
        if name in data:
            value = b.integer(data[name], _join(path, name))
            if value is not None:
                values[name] = value
    for name in ("reinforced_armour", "weapons_damaged", "reduced_mobility", "immobilised"):
        if name in data:
            values[name] = b.boolean(data[name], _join(path, name))
    if "facing" in data:
        facing = b.choice(
            data["facing"],
            _join(path, "facing"),
            "facing",
            FACING_ALIASES,
            _display(FACING_ALIASES),
        )
        if facing is not None:
            values["facing"] = facing
    types: set[VehicleType] = set()
    for i, name in enumerate(b.names(data.get("types"), _join(path, "types"))):
        found = b.choice(
            name,
            f"{path}.types[{i}]",
            "vehicle type",
            VEHICLE_TYPE_ALIASES,
            _display(VEHICLE_TYPE_ALIASES),
        )
        if found is not None:
            types.add(found)
    values["types"] = frozenset(types)
    earlier = []
    for i, name in enumerate(
        b.names(data.get("results_this_turn"), _join(path, "results_this_turn"))
    ):
        found_result = b.choice(
            name,
            f"{path}.results_this_turn[{i}]",
            "damage result",
            DAMAGE_RESULT_ALIASES,
            _display(DAMAGE_RESULT_ALIASES),
        )
        if found_result is not None:
            earlier.append(found_result)
    values["results_this_turn"] = tuple(earlier)
    values["rules"] = b.rules(data.get("rules"), _join(path, "rules"))
    # without a complete armour the other fields are still checked, then nothing is built
    built = b.build(
        path, lambda: _checked_vehicle(Vehicle(armour=armour or Armour(1, 1, 1), **values))
    )
    return built if armour is not None else None


def _checked_vehicle(vehicle: Vehicle) -> Vehicle:
    vehicle.validate()
    return vehicle


def _situation(b: _Builder, raw: object, path: str) -> Situation | None:
    if raw is None:
        return Situation()
    data = b.mapping(raw, path, SITUATION_FIELDS)
    if data is None:
        return None
    values: dict[str, Any] = {}
    for name in SITUATION_BOOLS:
        if name in data:
            values[name] = b.boolean(data[name], _join(path, name))
    for name in SITUATION_INTS:
        if name in data:
            value = b.integer(data[name], _join(path, name))
            if value is not None:
                values[name] = value
    if data.get("twin_linked") is not None:
        mode = b.choice(
            data["twin_linked"],
            _join(path, "twin_linked"),
            "twin-linked mode",
            {normalise(m.value): m for m in TwinLinkedMode},
            {m: m.value for m in TwinLinkedMode},
        )
        if mode is not None:
            values["twin_linked"] = mode
    if data.get("announced_location") is not None:
        aliases = {
            "hull": Location.HULL,
            "coque": Location.HULL,
            "weapons": Location.WEAPONS,
            "armement": Location.WEAPONS,
            "mobility": Location.MOBILITY,
            "mobilite": Location.MOBILITY,
            "engines": Location.MOBILITY,
            "moteurs": Location.MOBILITY,
            "legs": Location.MOBILITY,
            "jambes": Location.MOBILITY,
        }
        loc = b.choice(
            data["announced_location"],
            _join(path, "announced_location"),
            "vehicle location",
            aliases,
            {v: v.value for v in Location},
        )
        if loc is not None:
            values["announced_location"] = loc
    return b.build(path, lambda: _checked_situation(Situation(**values)))


def _checked_situation(situation: Situation) -> Situation:
    situation.validate()
    return situation


def request_from_dict(data: Mapping[str, Any]) -> AttackRequest:
    """Build and validate an :class:`AttackRequest` from plain JSON-like values.

    Raises one :class:`ProfileError` whose ``errors`` lists every problem (dotted path,
    message); the first one is ``.field`` / ``.message``.
    """
    b = _Builder()
    top = b.mapping(data, "", {"attacker", "weapon", "target", "situation"})
    if top is None:
        raise ProfileError.collect(b.problems)
    for key in ("attacker", "weapon", "target"):
        if key not in top:
            b.fail(key, N_("is required"))
    attacker = _unit(b, top.get("attacker"), "attacker") if "attacker" in top else None
    weapon = _weapon(b, top.get("weapon"), "weapon") if "weapon" in top else None
    target: Unit | Vehicle | None = None
    raw_target = top.get("target")
    if isinstance(raw_target, Mapping) and "armour" in raw_target:
        target = _vehicle(b, raw_target, "target")
    elif "target" in top:
        target = _unit(b, raw_target, "target")
    situation = _situation(b, top.get("situation"), "situation")
    if b.problems:
        raise ProfileError.collect(b.problems)
    assert attacker is not None
    assert weapon is not None
    assert target is not None
    assert situation is not None
    request = AttackRequest(attacker=attacker, weapon=weapon, target=target, situation=situation)
    request.validate()
    return request


# Names offered to forms and API docs
WEAPON_TYPES: tuple[str, ...] = tuple(t.value for t in WeaponType)
UNIT_TYPES: tuple[str, ...] = tuple(t.value for t in UnitType)
VEHICLE_TYPES: tuple[str, ...] = tuple(t.value for t in VehicleType)
FACINGS: tuple[str, ...] = tuple(f.value for f in Facing)
