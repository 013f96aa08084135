"""PEN unit and vehicle types as players read them, in the reader's language (§2.2, §2.3).

The engine keeps its types in English (``"infantry"``, ``"open-topped"``) and reads the French
names as well; a page shows each type through its label here, and fills an input a player edits
with the label too (every French label is a name the engine reads: tests/combat/
test_french_pen_names.py). Used by the PEN calculator and the army pages (the armies feature
stands above this one).
"""

from __future__ import annotations

from collections.abc import Iterable

from app.core.i18n import gettext as _
from app.core.i18n import lazy, lazy_pgettext, pgettext
from app.engine.pen.names import normalise
from app.engine.pen.profiles import UNIT_TYPE_ALIASES, VEHICLE_TYPE_ALIASES, UnitType, VehicleType

#: unit types (§2.2) [L125-L188]
UNIT_TYPE_LABELS: dict[UnitType, str] = {
    UnitType.INFANTRY: lazy("infantry"),
    UnitType.CAVALRY: lazy("cavalry"),
    UnitType.BEAST: lazy("beast"),
    UnitType.JET_PACK: lazy("jet pack"),
    UnitType.JUMP: lazy("jump infantry"),
    UnitType.BIKE: lazy("bike"),
    UnitType.JETBIKE: lazy("jetbike"),
    UnitType.MONSTROUS_CREATURE: lazy("monstrous creature"),
    UnitType.FLYING_MONSTROUS_CREATURE: lazy("flying monstrous creature"),
    UnitType.FIRING_PLATFORM: lazy("firing platform"),
}

#: vehicle types (§2.3) [L217-L268]
VEHICLE_TYPE_LABELS: dict[VehicleType, tuple[str, str]] = {
    VehicleType.TANK: lazy_pgettext("PEN vehicle type", "tank"),
    VehicleType.OPEN_TOPPED: lazy_pgettext("PEN vehicle type", "open-topped"),
    VehicleType.SKIMMER: lazy_pgettext("PEN vehicle type", "skimmer"),
    VehicleType.FAST: lazy_pgettext("PEN vehicle type", "fast"),
    VehicleType.WALKER: lazy_pgettext("PEN vehicle type", "walker"),
    VehicleType.FLYER: lazy_pgettext("PEN vehicle type", "flyer"),
    VehicleType.AIRCRAFT: lazy_pgettext("PEN vehicle type", "aircraft"),
    VehicleType.TRANSPORT: lazy_pgettext("PEN vehicle type", "transport"),
}


#: weapon types (§2.6) and blast markers; a melee weapon's name (§2.7) is shown as the data
#: names it
WEAPON_TYPE_LABELS: dict[str, tuple[str, str]] = {
    "assault": lazy_pgettext("PEN weapon type", "assault"),
    "pistol": lazy_pgettext("PEN weapon type", "pistol"),
    "rapid fire": lazy_pgettext("PEN weapon type", "rapid fire"),
    "heavy": lazy_pgettext("PEN weapon type", "heavy"),
    "artillery": lazy_pgettext("PEN weapon type", "artillery"),
    "grenade": lazy_pgettext("PEN weapon type", "grenade"),
    "salvo": lazy_pgettext("PEN weapon type", "salvo"),
    "sweep": lazy_pgettext("PEN weapon type", "sweep"),
    "blast": lazy_pgettext("PEN weapon type", "blast"),
    "large blast": lazy_pgettext("PEN weapon type", "large blast"),
    "template": lazy_pgettext("PEN weapon type", "template"),
}


#: the weapon types alone (no blast marker), whose labels the engine reads back as the type
WEAPON_TYPES = frozenset(WEAPON_TYPE_LABELS) - {"blast", "large blast", "template"}


def weapon_type_label(value: str) -> str:
    """A weapon type or blast marker (the engine's name) in the reader's language; anything
    else (a melee weapon's name, a type with its shots) as written."""
    marked = WEAPON_TYPE_LABELS.get(value)
    return pgettext(*marked) if marked else value


def unit_type_label(value: str | None) -> str:
    """A unit type (the engine's name, or any name it reads) in the reader's language; a name
    it does not know is shown as written."""
    if not value:
        return ""
    found = UNIT_TYPE_ALIASES.get(normalise(value))
    return _(UNIT_TYPE_LABELS[found]) if found is not None else value


def vehicle_type_label(value: str) -> str:
    """A vehicle type in the reader's language (as :func:`unit_type_label`)."""
    found = VEHICLE_TYPE_ALIASES.get(normalise(value))
    return pgettext(*VEHICLE_TYPE_LABELS[found]) if found is not None else value


def unit_types_text(values: Iterable[str]) -> str:
    """Unit types, comma-separated, in the reader's language."""
    return ", ".join(unit_type_label(v) for v in values)


def vehicle_types_text(values: Iterable[str]) -> str:
    """Vehicle types, comma-separated, in the reader's language (a type named twice, in both
    languages, once)."""
    return ", ".join(dict.fromkeys(vehicle_type_label(v) for v in values))


def vehicle_type_names() -> tuple[tuple[str, str], ...]:
    """The calculator's vehicle types picker: (the name to insert, in the reader's language;
    the other language's), for every vehicle type. The engine reads both."""
    out = []
    for vtype, marked in VEHICLE_TYPE_LABELS.items():
        shown = pgettext(*marked)
        out.append((shown, vtype.value if shown != vtype.value else _french(vtype)))
    return tuple(out)


def _french(vtype: VehicleType) -> str:
    """The French name the engine reads of ``vtype`` (the picker's second name for an English
    reader)."""
    return _FRENCH_NAMES[vtype]


# the French names of the seed [L217-L268], beside the English ones in the English picker
_FRENCH_NAMES: dict[VehicleType, str] = {
    VehicleType.TANK: "char d'assaut",
    VehicleType.OPEN_TOPPED: "ouvert",
    VehicleType.SKIMMER: "antigrav",
    VehicleType.FAST: "rapide",
    VehicleType.WALKER: "marcheur",
    VehicleType.FLYER: "volant",
    VehicleType.AIRCRAFT: "aéronef",
    VehicleType.TRANSPORT: "transport",
}
