"""Our text export of a 10th-edition list: the layout of the official app's "Export list", the
one players share on forums and Discord, with every unit's wargear.

::

    Gladius spearhead (775 points)

    Adeptus Astartes
    Incursion (1000 points)
    Gladius Task Force

    CHARACTERS

    Captain (90 points)
      • Warlord
      • Enhancement: Artificer Armour (+10 points)
      • Attached to: Intercessor Squad (#3)
      • 1x Bolt pistol
      ...

    BATTLELINE

    Intercessor Squad (160 points)
      • 1x Intercessor Sergeant
        ◦ 1x Bolt pistol
        ...
      • 9x Intercessor
        ◦ 9x Bolt Rifle

The line after the Army Faction names the catalogue when its name says more than the faction
(``Space Wolves`` for "Imperium - Adeptus Astartes - Space Wolves"), as the app's sub-faction
line does: pasted back, the list lands on that catalogue (ruling D27).

Units are numbered in the order of the text (``#3`` is the third unit listed). A unit with one
model type lists its weapons directly; with several, each model type with what it carries.
Wargear choices that the weapons alone do not tell apart (an option with no weapon, or two
options giving the same weapons) are listed by name too, so that pasting the text back
(:mod:`app.armies.matching`) gives the same list: :func:`export_text` checks it unit by unit.
"""

from __future__ import annotations

from collections.abc import Mapping

from app.armies import loadout, matching
from app.armies.formats import Item, ModelGroup, PastedUnit
from app.engine.wh40k10e.army import Catalogue, Datasheet, Roster, RosterUnit, ValidationResult
from app.engine.wh40k10e.army.export import catalogue_line

SECTIONS = ("CHARACTERS", "BATTLELINE", "DEDICATED TRANSPORTS", "OTHER DATASHEETS")


def section(sheet: Datasheet | None) -> str:
    if sheet is None:
        return SECTIONS[3]
    if sheet.character:
        return SECTIONS[0]
    if sheet.battleline:
        return SECTIONS[1]
    if sheet.dedicated_transport:
        return SECTIONS[2]
    return SECTIONS[3]


def _points(value: int) -> str:
    return f"{value} point" + ("" if value == 1 else "s")


def text_order(roster: Roster, catalogue: Catalogue) -> list[int]:
    """The roster indices in the order the text lists them (by section, then as built)."""
    sheets = _sheets(roster, catalogue)
    return sorted(range(len(sheets)), key=lambda i: (SECTIONS.index(section(sheets[i])), i))


def _sheets(roster: Roster, catalogue: Catalogue) -> list[Datasheet | None]:
    """The units' datasheets as in the Detachment, with the keywords their taken choices add
    (a Tank Ace is listed with the Characters, ruling D22; not where the Detachment makes the
    choice unavailable)."""
    faction = catalogue.faction(roster.faction) or roster.faction
    det = roster.detachment or None
    out: list[Datasheet | None] = []
    for u in roster.units:
        sheet = catalogue.datasheet(u.datasheet, faction)
        if sheet is not None:
            sheet = catalogue.with_choices(catalogue.datasheet_in(sheet, det), u.wargear, det)
        out.append(sheet)
    return out


def _weapon_lines(
    sheet: Datasheet, names: Mapping[str, str], bag: Mapping[str, int]
) -> list[tuple[str, int]]:
    order = {matching.key(w.name): i for i, w in enumerate(sheet.weapons)}
    keys = sorted(bag, key=lambda k: (order.get(k, len(order)), k))
    return [(names.get(k, k), bag[k]) for k in keys if bag[k] > 0]


def _wargear_layout(
    sheet: Datasheet, unit: RosterUnit, models: int, named: set[str]
) -> tuple[list[ModelGroup], list[Item]]:
    """The model groups and unit-level items of a unit, with the choices in ``named`` (keys)
    listed by name as well."""
    names = {
        matching.key(n): n
        for n in (
            *(w.name for w in sheet.weapons),
            *(w for m in sheet.models for w in m.default_wargear),
        )
    }
    names.update(
        {matching.key(w): w for o in sheet.wargear_options for c in o.choices for w in c.weapons}
    )
    got = matching.carried(sheet, models, unit.wargear)
    counts = {
        matching.key(k): v for k, v in loadout.model_counts(sheet, models, unit.wargear).items()
    }
    by_type: dict[str, str] = {}
    for opt in sheet.wargear_options:
        for c in opt.choices:
            by_type.setdefault(matching.key(c.name), matching.key(opt.model) if opt.model else "")
    taken = [(k, v) for k, v in unit.wargear.items() if v > 0 and matching.key(k) in named]
    groups: list[ModelGroup] = []
    items: list[Item] = []
    single = len(sheet.models) == 1
    for m in sheet.models:
        mk = matching.key(m.name)
        n = counts.get(mk, 0)
        if n <= 0:
            continue
        lines = [Item(w, c, "") for w, c in _weapon_lines(sheet, names, got.get(mk, {}))]
        lines += [Item(k, v, "") for k, v in taken if by_type.get(matching.key(k)) == mk]
        if single:
            items.extend(lines)
        else:
            groups.append(ModelGroup(m.name, n, "", lines))
    items += [Item(w, c, "") for w, c in _weapon_lines(sheet, names, got.get("", {}))]
    items += [Item(k, v, "") for k, v in taken if by_type.get(matching.key(k), "") == ""]
    return groups, items


def unit_wargear(
    sheet: Datasheet, unit: RosterUnit, models: int
) -> tuple[list[ModelGroup], list[Item]]:
    """The wargear lines of a unit that read back as the same unit: the weapons, plus the
    choices named outright when the weapons alone do not say which were taken."""
    groups, items = _wargear_layout(sheet, unit, models, set())
    if _reads_back(sheet, unit, models, groups, items):
        return groups, items
    weapons = {matching.key(w.name) for w in sheet.weapons}
    types = {matching.key(m.name) for m in sheet.models}
    named = {matching.key(k) for k, v in unit.wargear.items() if v > 0} - weapons - types
    return _wargear_layout(sheet, unit, models, named)


def _reads_back(
    sheet: Datasheet, unit: RosterUnit, models: int, groups: list[ModelGroup], items: list[Item]
) -> bool:
    pasted = PastedUnit(sheet.name, "", groups=groups, items=items)
    if len(sheet.models) == 1:
        pasted.models_total = models
    back, problems, _enh, _warlord = matching.read_unit(pasted, sheet, {})
    return (
        back is not None
        and not problems
        and (matching.signature(sheet, back) == matching.signature(sheet, unit))
    )


def export_text(roster: Roster, catalogue: Catalogue, result: ValidationResult) -> str:
    faction = catalogue.faction(roster.faction) or roster.faction
    sheets = _sheets(roster, catalogue)
    order = text_order(roster, catalogue)
    number = {ri: n for n, ri in enumerate(order, 1)}
    title = roster.name.strip() or f"{faction} army"
    lines = [f"{title} ({_points(result.points)})", "", faction]
    if chapter := catalogue_line(catalogue, faction):
        lines.append(chapter)  # names the catalogue, as the app's sub-faction line (D27)
    lines.append(f"{roster.battle_size.label} ({_points(roster.points_limit)})")
    if roster.detachment:
        lines.append(roster.detachment)
    current = ""
    for ri in order:
        unit, sheet, ur = roster.units[ri], sheets[ri], result.units[ri]
        if section(sheet) != current:
            current = section(sheet)
            lines += ["", current]
        label = f" [{unit.label}]" if unit.label else ""
        lines += ["", f"{sheet.name if sheet else unit.datasheet}{label} ({_points(ur.points)})"]
        bullets: list[str] = []
        if unit.warlord:
            bullets.append("  • Warlord")
        for ename in unit.enhancements:
            enh = catalogue.enhancements_named(ename)
            pts = f" (+{_points(enh[0].points)})" if enh else ""
            bullets.append(f"  • Enhancement: {enh[0].name if enh else ename}{pts}")
        if unit.attached_to is not None and unit.attached_to < len(roster.units):
            target = roster.units[unit.attached_to]
            tname = target.label or target.datasheet
            bullets.append(f"  • Attached to: {tname} (#{number[unit.attached_to]})")
        if sheet is None:
            bullets += [f"  • {n}x {k}" for k, n in sorted(unit.wargear.items()) if n]
        else:
            groups, items = unit_wargear(sheet, unit, ur.models)
            if len(sheet.models) == 1 and sheet.max_models > 1:
                bullets.append(f"  • {ur.models} model" + ("" if ur.models == 1 else "s"))
            for g in groups:
                bullets.append(f"  • {g.count}x {g.name}")
                bullets += [f"    ◦ {i.count}x {i.name}" for i in g.items]
            bullets += [f"  • {i.count}x {i.name}" for i in items]
        lines += bullets
    lines.append("")
    return "\n".join(lines)
