"""Export an army list as plain text (what players paste into chats and tournament sites) and
as our JSON; import that JSON back losslessly.

The text layout follows the one players know from the official app: a header (list name and
points, Army Faction, the catalogue's own name when it says more than the faction, as the app's
sub-faction line: ``Space Wolves``; battle size, Detachment), then the units grouped under
CHARACTERS, BATTLELINE, DEDICATED TRANSPORTS and OTHER DATASHEETS, each with its points and
bullet lines (model count, wargear, Enhancement, Warlord, Leader attachment).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from app.engine.errors import N_
from app.engine.wh40k10e.army.catalog import Catalogue, Datasheet
from app.engine.wh40k10e.army.codec import Plain
from app.engine.wh40k10e.army.names import name_key
from app.engine.wh40k10e.army.roster import Roster, RosterError
from app.engine.wh40k10e.army.validate import ValidationResult, validate

__all__ = ["MAX_JSON_BYTES", "catalogue_line", "export_json", "export_text", "import_json"]

MAX_JSON_BYTES = 1_000_000  # bound on an imported list

_SECTIONS = ("CHARACTERS", "BATTLELINE", "DEDICATED TRANSPORTS", "OTHER DATASHEETS")


def _section(sheet: Datasheet | None) -> str:
    if sheet is None:
        return _SECTIONS[3]
    if sheet.character:
        return _SECTIONS[0]
    if sheet.battleline:
        return _SECTIONS[1]
    if sheet.dedicated_transport:
        return _SECTIONS[2]
    return _SECTIONS[3]


def _points(value: int) -> str:
    return f"{value} point" + ("" if value == 1 else "s")


def catalogue_line(catalogue: Catalogue, faction: str) -> str | None:
    """The header line after the Army Faction that names the catalogue, as the official app's
    sub-faction line does (``Space Wolves`` for "Imperium - Adeptus Astartes - Space Wolves"):
    the last `` - `` part of the catalogue's name, when there is one and it is not the faction.
    A pasted list is matched to the catalogue it names (ruling D27)."""
    parts = catalogue.name.split(" - ")
    last = parts[-1].strip()
    if len(parts) < 2 or not last or name_key(last) == name_key(faction):
        return None
    return last


def export_text(
    roster: Roster, catalogue: Catalogue, result: ValidationResult | None = None
) -> str:
    """The list as plain text. ``result`` (from :func:`validate`) is computed if not given."""
    res = result if result is not None else validate(roster, catalogue)
    faction = catalogue.faction(roster.faction) or roster.faction
    lines: list[str] = []
    title = roster.name.strip() or f"{faction} army"
    lines.append(f"{title} ({_points(res.points)})")
    lines.append("")
    lines.append(faction)
    if chapter := catalogue_line(catalogue, faction):
        lines.append(chapter)
    lines.append(f"{roster.battle_size.label} ({_points(roster.points_limit)})")
    if roster.detachment:
        lines.append(roster.detachment)
    grouped: dict[str, list[int]] = {s: [] for s in _SECTIONS}
    sheets = [catalogue.datasheet(u.datasheet, faction) for u in roster.units]
    # as in the Detachment, with the keywords their taken choices add: a Tank Ace is a
    # Character (ruling D22)
    det = roster.detachment or None
    sheets = [
        catalogue.with_choices(catalogue.datasheet_in(s, det), u.wargear, det)
        if s is not None
        else None
        for s, u in zip(sheets, roster.units, strict=True)
    ]
    for i, sheet in enumerate(sheets):
        grouped[_section(sheet)].append(i)
    for section in _SECTIONS:
        if not grouped[section]:
            continue
        lines.append("")
        lines.append(section)
        for i in grouped[section]:
            unit = roster.units[i]
            sheet = sheets[i]
            ur = res.units[i]
            name = sheet.name if sheet else unit.datasheet
            label = f" [{unit.label}]" if unit.label else ""
            lines.append("")
            lines.append(f"{name}{label} ({_points(ur.points)})")
            bullets: list[str] = []
            if unit.warlord:
                bullets.append("Warlord")
            if ur.models != 1 or (sheet is not None and sheet.max_models > 1):
                bullets.append(f"{ur.models} model" + ("" if ur.models == 1 else "s"))
            for wname, count in sorted(unit.wargear.items()):
                if count:
                    bullets.append(f"{count}x {wname}")
            for ename in unit.enhancements:
                enh = catalogue.enhancements_named(ename)
                pts = f" (+{_points(enh[0].points)})" if enh else ""
                bullets.append(f"Enhancement: {enh[0].name if enh else ename}{pts}")
            if unit.attached_to is not None and unit.attached_to < len(roster.units):
                target = roster.units[unit.attached_to]
                tname = target.label or target.datasheet
                bullets.append(f"Attached to: {tname} (#{unit.attached_to + 1})")
            lines.extend(f"  \u2022 {b}" for b in bullets)
    lines.append("")
    return "\n".join(lines)


def export_json(roster: Roster, catalogue: Catalogue | None = None) -> dict[str, Plain]:
    """Our JSON form of the list; with a catalogue, plus a ``summary`` (points, limit,
    validity) for readers. :func:`import_json` ignores the summary (it is recomputed)."""
    data = roster.to_dict()
    if catalogue is not None:
        res = validate(roster, catalogue)
        data["summary"] = {
            "points": res.points,
            "points_limit": res.points_limit,
            "valid": res.valid,
            "catalogue_version": catalogue.version,
        }
    return data


def import_json(data: str | bytes | Mapping[str, object]) -> Roster:
    """Read a list written by :func:`export_json` (text, bytes or parsed JSON)."""
    if isinstance(data, str | bytes):
        if len(data) > MAX_JSON_BYTES:
            raise RosterError("(root)", N_("larger than %(limit)s bytes"), limit=MAX_JSON_BYTES)
        try:
            parsed: object = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise RosterError("(root)", N_("not valid JSON: %(reason)s"), reason=str(exc)) from None
    else:
        parsed = dict(data)
    if isinstance(parsed, dict):
        parsed = {k: v for k, v in parsed.items() if k != "summary"}
    return Roster.from_dict(parsed)
