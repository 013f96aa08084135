"""Lists in and out: our text and JSON exports, and imports of our JSON and of the formats
players paste (the official app's text, New Recruit's text and JSON: :mod:`app.armies.formats`,
mapped onto a catalogue by :mod:`app.armies.matching`). Flushes, never commits.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.orm import Session

from app.accounts.models import User
from app.armies import formats, listtext, matching, service
from app.armies.exceptions import InvalidArmy
from app.armies.models import Army, ArmyStatus
from app.armies.schemas import WH40K_10E
from app.armies.systems import system_for_format, systems
from app.catalog import service as catalogs
from app.catalog.models import CatalogueRecord
from app.catalog.pen_units import PenArmy, PenUnit
from app.core.i18n import gettext as _
from app.core.i18n import ngettext, pgettext
from app.engine.errors import N_, Message
from app.engine.wh40k10e.army import Catalogue, Roster, validate
from app.engine.wh40k10e.army.roster import ROSTER_FORMAT

# -- export ------------------------------------------------------------------------------------


def export_text_of(v: service.ArmyView) -> str:
    """The list as plain text: the official app's layout, with every unit's wargear."""
    if v.pen is not None:
        return pen_text(v.pen)
    assert v.roster is not None
    assert v.catalogue is not None
    assert v.result is not None
    return listtext.export_text(v.roster, v.catalogue, v.result)


def _pen_line(unit: PenUnit, units: tuple[PenUnit, ...] = ()) -> list[str]:
    """A unit as the list page's card says it, in the reader's language (the text is read, not
    imported: a PEN list goes back in through its JSON)."""
    lines = [f"{unit.name} ({_('%(points)d pts') % {'points': unit.total_points}})"]
    bullets = [ngettext("%(num)d model", "%(num)d models", unit.models) % {"num": unit.models}]
    if unit.troops:
        bullets.append(_("Troops"))
    if unit.independent_character:
        bullets.append(_("Independent character"))
    for label, ref in (
        (N_("Starts in the squad: %(unit)s"), unit.joins),
        (N_("Starts in the transport: %(unit)s"), unit.embarked_in),
    ):
        if ref is not None and 0 <= ref < len(units):
            bullets.append(_(label) % {"unit": f"{units[ref].name} (#{ref + 1})"})
    if unit.transport_capacity:
        types = ", ".join(_(t) if t else t for t in unit.carries())  # unit types' labels
        bullets.append(
            _("Carries %(num)d models: %(types)s")
            % {"num": unit.transport_capacity, "types": types}
        )
    bullets.extend(
        _("%(option)s (+%(points)d pts)") % {"option": o.name, "points": o.points}
        for o in unit.options
    )
    ch = unit.characteristics
    if unit.armour is not None:
        a = unit.armour
        hull = unit.hull_points or "-"  # a label and its values, as "WS 4" below
        bullets.append(f"{_('Armour')} {a.front}/{a.side}/{a.rear}, {hull} {_('hull points')}")
        if unit.vehicle_types:
            bullets.append(", ".join(unit.vehicle_types))
    elif unit.unit_type:
        bullets.append(_(unit.unit_type))  # a unit type's label, as the unit form
    if ch is not None:
        stats = (
            (_("WS"), ch.ws),
            (_("BS"), ch.bs),
            (_("S"), ch.strength),
            (_("T"), ch.toughness),
            (_("W"), ch.wounds),
            (_("I"), ch.initiative),
            (_("A"), ch.attacks),
            (_("Ld"), ch.leadership),
        )
        text = " ".join(f"{k} {'-' if v is None else v}" for k, v in stats)
        if unit.armour is None:
            text += f" {_('Sv')} {'-' if ch.save is None else f'{ch.save}+'}"
        if ch.invulnerable_save is not None:
            text += f" {_('Inv')} {ch.invulnerable_save}+"
        bullets.append(text)
    for w in unit.weapons:
        # the unit form's label of a weapon type; a melee weapon's name as the data names it
        parts = [pgettext("PEN weapon type", w.template or w.type)]
        if w.range is not None:
            parts.append(f'{w.range}"')
        parts.append(f"{_('S')} {_('user') if w.strength is None else w.strength}")
        parts.append(f"{_('AP')} {'-' if w.ap is None else w.ap}")
        if w.properties:
            parts.append(", ".join(w.properties))
        bullets.append(f"{w.name} ({'; '.join(parts)})")
    if unit.rules:
        bullets.append(", ".join(unit.rules))
    lines.extend(f"  \u2022 {b}" for b in bullets)
    return lines


def pen_text(army: PenArmy) -> str:
    """The list as text in the reader's language (``current_locale``): the 10th edition's stays
    in English, the official app's layout that pastes back (ruling D26)."""
    limit = f" / {army.points_limit}" if army.points_limit is not None else ""
    lines = [f"{army.name} ({army.points}{limit} {_('pts')})", "", "PEN"]
    for unit in army.units:
        lines.append("")
        lines.extend(_pen_line(unit, army.units))
    lines.append("")
    return "\n".join(lines)


def import_document(
    db: Session, user: User, document: Mapping[str, Any], catalog: str | int | None = None
) -> service.ArmyView:
    """Create a list from our JSON export (``auspex.army`` or ``auspex.pen-army``).

    The 10th-edition catalogue is ``catalog`` if given, else the one the document names (if you
    may use it), else the starter; the version the list was built with is kept as written.
    """
    fmt = document.get("format", ROSTER_FORMAT)
    body = {k: v for k, v in document.items() if k != "summary"}
    system = system_for_format(fmt)
    if system is None:
        known = " or ".join(repr(s.export_format) for s in systems())
        raise service.invalid(
            [service.field_error("format", f"expected {known}, got {fmt!r}", "format")]
        )
    service.room_for_one_more(db, user)
    return system.import_document(db, user, body, catalog)


# -- the formats players paste ------------------------------------------------------------------


@dataclass
class ImportReport:
    """What an import of pasted text understood and what it did not: ``skipped`` are the
    lines not understood (the list was built without them, at the user's request), ``notes``
    what was assumed or differs (points of another data version), ``ignored`` the lines that
    carry nothing of the list (an app's version footer); ``catalog_detected`` is true when
    the catalogue was not asked for but found from the list (ruling D27)."""

    format: str
    skipped: list[formats.Problem] = field(default_factory=list)
    notes: list[formats.Problem] = field(default_factory=list)
    ignored: list[tuple[str, str]] = field(default_factory=list)
    catalog_detected: bool = False

    def as_json(self) -> dict[str, Any]:
        def line(p: formats.Problem) -> dict[str, str]:
            return {"where": p.where, "text": p.text, "message": p.message}

        return {
            "format": self.format,
            "skipped": [line(p) for p in self.skipped],
            "notes": [line(p) for p in self.notes],
            "ignored": [{"where": w, "text": t} for w, t in self.ignored],
            "catalog_detected": self.catalog_detected,
        }


def problem_errors(problems: list[formats.Problem]) -> list[dict[str, Any]]:
    """Problems as the API's ``errors``: ``field`` is where (``line 12``), ``text`` the line."""
    return [
        {"field": p.where, "message": p.message, "type": "not_understood", "text": p.text}
        for p in problems
    ]


def _refused(message: str | Message) -> InvalidArmy:
    """The 422 of a text that is not a list we read: ``message`` (a message id, or a
    :class:`Message`) in English in the API, translated on the page."""
    template = message if isinstance(message, Message) else Message(message)
    return service.invalid([service.field_error("text", str(template), "format")], [template])


def _best_match(
    db: Session, user: User, pasted: formats.PastedList, catalog: str | int | None, skip: bool
) -> tuple[CatalogueRecord, matching.Matched]:
    """The catalogue asked for, else, of those the user may use that read the list with the
    fewest problems (none, for a list that imports): the one the text names (a chapter named
    over the parent it imports from: the app writes "Space Marines" then "Space Wolves"), then
    the one whose own datasheets the list uses most, the starter last among equals, then the
    usual order (ruling D27)."""
    if catalog is not None:
        record = service.catalogue_for(db, user, catalog)
        return record, matching.match(pasted, catalogs.parsed(db, record), skip=skip)
    read: list[tuple[CatalogueRecord, Catalogue, matching.Matched]] = []
    for record in catalogs.visible(db, user):
        if record.rule_system != WH40K_10E:
            continue
        catalogue = catalogs.parsed(db, record)
        read.append((record, catalogue, matching.match(pasted, catalogue, skip=skip)))
    if not read:
        raise _refused(N_("there is no 10th-edition catalogue to read the list with"))
    fewest = min(len(found.problems) for _r, _c, found in read)
    best = [r for r in read if len(r[2].problems) == fewest]
    named = [r for r in best if matching.names_catalogue(pasted, r[1])]
    named = [
        r for r in named if not any(matching.imports_from(o[1], r[1]) for o in named if o is not r)
    ]
    pool = named or best

    def rank(r: tuple[CatalogueRecord, Catalogue, matching.Matched]) -> tuple[int, bool]:
        roster = r[2].roster
        own = matching.own_datasheets(roster, r[1]) if roster is not None else 0
        return -own, r[0].slug == catalogs.STARTER_SLUG

    record, _catalogue, found = min(pool, key=rank)  # min keeps the first among equals
    return record, found


def import_text(
    db: Session,
    user: User,
    text: str,
    catalog: str | int | None = None,
    *,
    skip_unknown: bool = False,
) -> tuple[service.ArmyView, ImportReport]:
    """Create a list from pasted text or JSON: our JSON export, the official app's text (and our
    own text export), New Recruit's WTC or roster text, or New Recruit's JSON.

    Every line not understood refuses the import (422, ``errors`` names each line), unless
    ``skip_unknown``: then the list is built without them and the report lists them."""
    stripped = text.strip()
    if not stripped:
        raise _refused(N_("the list is empty"))
    if stripped.startswith("{"):
        import json

        try:
            document = json.loads(stripped)
        except (ValueError, RecursionError):
            raise _refused(N_("not valid JSON")) from None
        if isinstance(document, dict) and not formats.is_roster_json(document):
            seen = import_document(db, user, document, catalog)
            return seen, ImportReport("auspex-json", catalog_detected=catalog is None)
    try:
        pasted = formats.parse(stripped)
    except formats.FormatRefused as exc:
        raise _refused(str(exc)) from None
    if not pasted.units:
        nothing = N_("no unit found: is this an army list in a format we read?")
        raise service.invalid(
            [
                service.field_error("text", nothing, "format"),
                *problem_errors(pasted.problems[:20]),
            ],
            [Message(nothing), *(p.template for p in pasted.problems[:20])],
        )
    record, found = _best_match(db, user, pasted, catalog, skip_unknown)
    if found.roster is None:
        raise service.invalid(problem_errors(found.problems), [p.template for p in found.problems])
    roster: Roster = found.roster
    catalogue = catalogs.parsed(db, record)
    result = validate(roster, catalogue)
    notes = list(found.notes)
    for index, stated in found.stated_points.items():
        if index < len(result.units) and result.units[index].points != stated:
            notes.append(
                formats.Problem(
                    f"unit {index + 1}",
                    roster.units[index].datasheet,
                    f"{stated} points in the text, {result.units[index].points} in {record.name}",
                )
            )
    service.room_for_one_more(db, user)
    army = Army(
        owner_id=user.id,
        name=roster.name.strip()[: service.MAX_NAME] or _("Imported list"),
        rule_system=WH40K_10E,
        status=ArmyStatus.DRAFT,
        catalogue_id=record.id,
        catalogue_version=record.version,
        faction=roster.faction,
        detachment=roster.detachment,
        battle_size=roster.battle_size.value,
        include_legends=roster.include_legends,
        units=[service.unit_dict(u) for u in roster.units],
    )
    db.add(army)
    db.flush()
    report = ImportReport(
        pasted.format, found.problems, notes, pasted.ignored, catalog_detected=catalog is None
    )
    return service.view(db, army), report


def read_upload(raw: bytes, limit: int) -> str:
    """An uploaded list file as text (UTF-8, a BOM allowed)."""
    if len(raw) > limit:
        raise _refused(
            Message(N_("the file is larger than %(limit)s kB"), {"limit": limit // 1000})
        )
    return raw.decode("utf-8-sig", errors="replace")


__all__ = [
    "ImportReport",
    "export_text_of",
    "import_document",
    "import_text",
    "pen_text",
    "problem_errors",
    "read_upload",
]
