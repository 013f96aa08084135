"""The calculator's unit source: units of the user's army lists and catalogue datasheets, put in
the calculator in one tap (registered with :mod:`app.combat.units`).

The calculator sits below the army builder and the catalogue (ADR 0012, feature layers), so it
cannot read lists itself: this module, in the upper room, contributes them through the hook.
It uses the builder's public functions: :mod:`app.armies.loadout` for what a unit carries (and
the calculator link of its weapons), :mod:`app.armies.service` for the user's own lists (another
user's list does not exist here either) and :mod:`app.catalog.service` for the catalogues the
user may use. A unit as the attacker fills the weapon rows with one attack of its loadout (its
ranged weapons, or with ``mode=melee`` its melee ones; one profile per weapon, the first unless
``pick.<loadout index>=<profile index>`` names another), on the models that carry each; as the
target it
fills the target with its most numerous model type and adds one model group per other profile
(a sergeant, a leader's bodyguard...).

References (the ``unit`` query parameter of ``/calculator``, with ``as=attacker|target``):
``army:<army id>:<unit index>``, ``sheet:<catalogue id>:<datasheet id>``, or for a PEN list
``pen:<army id>:<unit index>`` (as the attacker with one weapon: ``weapon=<its index>``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.armies import loadout
from app.armies import service as armies
from app.armies.exceptions import ArmyNotFound
from app.catalog import calculator as calc
from app.catalog import service as catalogs
from app.catalog.exceptions import CatalogueNotFound, DatasheetNotFound
from app.catalog.pen_units import PenUnit
from app.combat import units
from app.combat.exceptions import UnitNotFound
from app.combat.units import ArmyUnits, UnitChoice
from app.core.i18n import gettext as _
from app.core.ids import parse_int
from app.engine.wh40k10e import profiles as p
from app.engine.wh40k10e.army import Datasheet, Weapon

SYSTEM_ID = "wh40k-10e"  # the army lists and catalogues units come from
PEN_SYSTEM_ID = "pen"  # and the PEN lists
MAX_UNITS_LISTED = 200
MAX_SHEETS_LISTED = 30


@dataclass(frozen=True, slots=True)
class _Unit:
    sheet: Datasheet
    models: int
    wargear: Mapping[str, int]
    name: str


def _plus(value: int | None) -> str:
    return "" if value is None else f"{value}+"


MAX_PICKS = 40  # profile choices read from a query (a loadout has fewer weapons)


def _options(options: Mapping[str, str]) -> tuple[str, dict[int, int]]:
    """The attack the player chose: ``mode`` (``ranged``, the default, or ``melee``) and
    ``pick.<loadout index>=<profile index>`` for the weapons with several profiles."""
    mode = options.get("mode", "ranged")
    picks: dict[int, int] = {}
    for key, value in list(options.items())[:MAX_PICKS]:
        if key.startswith("pick."):
            index, profile = parse_int(key[5:], 0, 999), parse_int(value, 0, 99)
            if index is not None and profile is not None:
                picks[index] = profile
    return (mode if mode in calc.KINDS else "ranged"), picks


def _weapon_pairs(unit: _Unit, options: Mapping[str, str]) -> list[tuple[str, str]]:
    """One attack of the unit: its ranged (or melee) weapons, one profile each, on the models
    that carry them."""
    mode, picks = _options(options)
    carried = loadout.loadout(unit.sheet, unit.models, unit.wargear)
    return calc.unit_query(carried, mode, picks)


def _choices(carried: list[tuple[Weapon, int]]) -> dict[str, Any]:
    """What the picker offers for one attack: the kinds of attack (``kinds``) and each
    weapon's profiles when it has several (``profiles``)."""
    return {
        "kinds": tuple(calc.unit_kinds(carried)),
        "profiles": tuple(
            (i, w.name, tuple(calc.profile_label(w, prof) for prof in w.profiles))
            for i, w in calc.profile_choices(carried)
        ),
    }


def _target_pairs(unit: _Unit) -> list[tuple[str, str]]:
    counts = loadout.model_counts(unit.sheet, unit.models, unit.wargear)
    by_profile: dict[str, int] = {}
    for m in unit.sheet.models:
        n = counts.get(m.name, 0)
        if n > 0:
            name = m.profile or (unit.sheet.profiles[0].name if unit.sheet.profiles else "")
            by_profile[name] = by_profile.get(name, 0) + n
    if not by_profile and unit.sheet.profiles:
        by_profile[unit.sheet.profiles[0].name] = unit.models
    ordered = sorted(by_profile.items(), key=lambda kv: -kv[1])
    main_name, main_models = ordered[0] if ordered else ("", unit.models)
    first = unit.sheet.profiles[0] if unit.sheet.profiles else None
    main = unit.sheet.profile(main_name) or first
    keywords = ", ".join(k.upper() for k in unit.sheet.keywords)
    pairs = [
        ("t.name", unit.name[:80]),
        ("t.models", str(main_models)),
        ("t.toughness", str(main.toughness) if main else ""),
        ("t.save", _plus(main.save) if main and main.save else "-"),
        ("t.wounds", str(main.wounds) if main else "1"),
        ("t.invulnerable_save", _plus(main.invulnerable_save) if main else ""),
        ("t.feel_no_pain", ""),
        ("t.keywords", keywords),
    ]
    groups = 0
    for name, models in ordered[1:]:
        other = unit.sheet.profile(name)
        if other is None or groups >= p.MAX_GROUPS:
            continue
        g = f"g{groups}."
        pairs += [
            (g + "name", name[:80]),
            (g + "models", str(models)),
            (g + "wounds", str(other.wounds)),
            (g + "save", _plus(other.save) if other.save else "-"),
            (g + "invulnerable_save", _plus(other.invulnerable_save)),
            (g + "feel_no_pain", ""),
            (g + "keywords", ""),
        ]
        groups += 1
    return pairs


def _army_unit(db: Session, user: User, army_id: int, index: int) -> _Unit:
    view = armies.get(db, user, army_id)
    if view.catalogue is None or view.roster is None or view.result is None:
        raise UnitNotFound(_("Only 10th-edition lists have units the calculator can take."))
    if not 0 <= index < len(view.roster.units):
        raise UnitNotFound(_("The list has no unit %(n)d.") % {"n": index + 1})
    faction = view.catalogue.faction(view.army.faction) or view.army.faction
    unit = view.roster.units[index]
    sheet = view.catalogue.datasheet(unit.datasheet, faction)
    if sheet is None:
        message = _("The catalogue has no datasheet “%(name)s”.")
        raise UnitNotFound(message % {"name": unit.datasheet})
    label = str(view.army.units[index].get("label") or "")
    return _Unit(sheet, view.result.units[index].models, dict(unit.wargear), label or sheet.name)


def _sheet_unit(db: Session, user: User | None, catalogue_id: str, sheet_id: str) -> _Unit:
    record = catalogs.resolve(db, user, catalogue_id)
    sheet = catalogs.datasheet(catalogs.parsed(db, record), sheet_id)
    return _Unit(sheet, sheet.min_models, {}, sheet.name)


def _pen_unit(db: Session, user: User, army_id: int, index: int) -> PenUnit:
    view = armies.get(db, user, army_id)
    if view.pen is None or not 0 <= index < len(view.pen.units):
        raise ArmyNotFound(str(army_id))
    return view.pen.units[index]


def _plus_text(value: int | None) -> str:
    return "" if value is None else f"{value}+"


def _pen_target_pairs(unit: PenUnit) -> list[tuple[str, str]]:
    """The PEN calculator's target: the unit (its profile, type and rules) or the vehicle (its
    armour, hull points, types and rules)."""
    target = unit.target()
    if "armour" in target:
        armour = target["armour"]
        return [
            ("t.kind", "vehicle"),
            ("t.name", unit.name[:80]),
            ("v.front", str(armour["front"])),
            ("v.side", str(armour["side"])),
            ("v.rear", str(armour["rear"])),
            ("v.hull_points", "" if target["hull_points"] is None else str(target["hull_points"])),
            ("v.types", ", ".join(target["types"])),
            ("v.rules", ", ".join(target["rules"])),
        ]
    pairs = [("t.kind", "unit"), ("t.name", unit.name[:80])]
    for key in ("models", "ws", "toughness", "wounds", "strength", "attacks", "leadership"):
        value = target.get(key)
        pairs.append((f"t.{key}", "" if value is None else str(value)))
    pairs.append(
        ("t.initiative", "" if target.get("initiative") is None else str(target["initiative"]))
    )
    pairs += [
        ("t.save", _plus_text(target.get("save"))),
        ("t.invulnerable_save", _plus_text(target.get("invulnerable_save"))),
        ("t.unit_type", str(target.get("unit_type") or "")),
        ("t.rules", ", ".join(target.get("rules") or [])),
    ]
    return pairs


def _pen_pairs(
    db: Session, user: User | None, rest: str, side: str, options: Mapping[str, str]
) -> list[tuple[str, str]]:
    """A unit of the user's PEN list: as the attacker with one of its weapons (``weapon``,
    the first by default), or as the target."""
    army_id, _sep, index = rest.partition(":")
    number, position = parse_int(army_id, 1), parse_int(index, 0, 999)
    if user is None or number is None or position is None:
        raise ArmyNotFound(rest)
    unit = _pen_unit(db, user, number, position)
    if side != "attacker":
        return _pen_target_pairs(unit)
    if not unit.weapons:
        raise UnitNotFound(
            _("“%(name)s” carries no weapon the calculator can use.") % {"name": unit.name}
        )
    chosen = parse_int(options.get("weapon", "0"), 0, len(unit.weapons) - 1)
    return unit.calculator_query(unit.weapons[chosen or 0])


def _unit_pairs(
    db: Session, user: User | None, ref: str, side: str, options: Mapping[str, str]
) -> list[tuple[str, str]]:
    """The calculator parameters of one side (``attacker``: weapon rows; ``target``: the target
    and its model groups) for the unit ``ref``; UnitNotFound (404) for a unit the user cannot
    reach or that carries no weapon the calculator takes."""
    kind, _sep, rest = ref.partition(":")
    try:
        if kind == "pen":
            pen = _pen_pairs(db, user, rest, side, options)
            return [("system", PEN_SYSTEM_ID), *((k, v) for k, v in pen if k != "system")]
        if kind == "army" and user is not None:
            army_id, _sep, index = rest.partition(":")
            number, position = parse_int(army_id, 1), parse_int(index, 0, 999)
            if number is None or position is None:
                raise ArmyNotFound(ref)
            unit = _army_unit(db, user, number, position)
        elif kind == "sheet":
            catalogue_id, _sep, sheet_id = rest.partition(":")
            unit = _sheet_unit(db, user, catalogue_id, sheet_id)
        else:
            raise ArmyNotFound(ref)
    except (ArmyNotFound, CatalogueNotFound, DatasheetNotFound):
        raise UnitNotFound(_("There is no such unit you can use.")) from None
    pairs = _weapon_pairs(unit, options) if side == "attacker" else _target_pairs(unit)
    if not pairs:
        raise UnitNotFound(
            _("“%(name)s” carries no weapon the calculator can use.") % {"name": unit.name}
        )
    return [("system", SYSTEM_ID), *pairs]


# -- what the picker lists --------------------------------------------------------------------


def _army_units(db: Session, user: User) -> list[ArmyUnits]:
    """The user's 10th-edition and PEN lists and their units (newest list first)."""
    out: list[ArmyUnits] = []
    listed = 0
    for view in armies.list_armies(db, user):
        if view.pen is not None:
            pen_units = [
                UnitChoice(
                    ref=f"pen:{view.army.id}:{i}",
                    name=unit.name,
                    detail=", ".join(w.name for w in unit.weapons),
                    can_attack=bool(unit.weapons),
                    weapons=tuple(w.name for w in unit.weapons),
                )
                for i, unit in enumerate(view.pen.units[: max(0, MAX_UNITS_LISTED - listed)])
            ]
            listed += len(pen_units)
            out.append(ArmyUnits(view.army.id, view.army.name, pen_units))
            continue
        if view.catalogue is None or view.roster is None or view.result is None:
            continue
        faction = view.catalogue.faction(view.army.faction) or view.army.faction
        units = []
        for i, unit in enumerate(view.roster.units):
            if listed >= MAX_UNITS_LISTED:
                break
            sheet = view.catalogue.datasheet(unit.datasheet, faction)
            if sheet is None:
                continue
            label = str(view.army.units[i].get("label") or "")
            models = view.result.units[i].models
            carried = loadout.loadout(sheet, models, dict(unit.wargear))
            units.append(
                UnitChoice(
                    ref=f"army:{view.army.id}:{i}",
                    name=f"{sheet.name} — {label}" if label else sheet.name,
                    detail=", ".join(f"{n}× {w.name}" for w, n in carried),
                    can_attack=bool(carried),
                    **_choices(carried),
                )
            )
            listed += 1
        out.append(ArmyUnits(view.army.id, view.army.name, units))
    return out


def _catalogue_units(db: Session, user: User | None, query: str) -> list[UnitChoice]:
    """Datasheets of the catalogues the user may use whose name or keywords match ``query``."""
    found: list[UnitChoice] = []
    for record in catalogs.visible(db, user):
        if record.rule_system != SYSTEM_ID:
            continue
        catalogue = catalogs.parsed(db, record)
        for sheet in catalogs.search(catalogue, None, query, MAX_SHEETS_LISTED - len(found)):
            carried = loadout.loadout(sheet, sheet.min_models, {})
            found.append(
                UnitChoice(
                    ref=f"sheet:{record.id}:{sheet.id}",
                    name=sheet.name,
                    detail=f"{record.name} · {', '.join(sheet.faction_keywords)}",
                    can_attack=bool(sheet.weapons),
                    **_choices(carried),
                )
            )
        if len(found) >= MAX_SHEETS_LISTED:
            break
    return found


class ArmiesUnitSource:
    """What the calculator's hook asks for, answered from army lists and catalogues."""

    def army_units(self, db: Session, user: User) -> list[ArmyUnits]:
        return _army_units(db, user)

    def catalogue_units(self, db: Session, user: User | None, query: str) -> list[UnitChoice]:
        return _catalogue_units(db, user, query)

    def unit_pairs(
        self,
        db: Session,
        user: User | None,
        ref: str,
        side: str,
        options: Mapping[str, str] | None = None,
    ) -> list[tuple[str, str]]:
        return _unit_pairs(db, user, ref, side, options or {})


units.register(ArmiesUnitSource())
