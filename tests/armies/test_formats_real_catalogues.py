"""The formats players paste, on the real catalogues of ``../shared/data`` (issue 17): the official
app's text, New Recruit's WTC and roster text and its JSON, for a Blood Angels list with wargear
choices (tests/armies/pasted/real/, our own wording of the layouts), each landing on the chapter
catalogue with the same units, wargear and points; lines not understood reported with where
they are; and every datasheet of every catalogue, with its wargear choices, written in each
format (New Recruit's by the writers below, ours by our export) and read back as the same unit.

The catalogues are imported from the files once per module (skipped, saying why, only when the
files are absent); each test stores them in its own rolled-back transaction."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.armies import formats, listtext, matching, transfer
from app.armies.exceptions import InvalidArmy
from app.armies.formats import Item, ModelGroup
from app.catalog import service as catalogs
from app.catalog import starter
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Datasheet,
    Roster,
    RosterUnit,
    ValidationResult,
    validate,
)

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
FOLDERS = ("bsdata-wh40k-10e", "bsdata-wh40k-10e-more")
REAL = Path(__file__).parent / "pasted" / "real"
BLOOD_ANGELS = "Imperium - Adeptus Astartes - Blood Angels"
FILES = {
    "app": "blood-angels-app.txt",
    "wtc": "blood-angels-wtc.txt",
    "roster": "blood-angels-roster.txt",
    "json": "blood-angels-roster.json",
}
# the list of every file: (datasheet, models, wargear choices, warlord), and the points the
# files state for each unit (the catalogue's points brackets: 80, 80, and 260 for 4-6 Guard)
EXPECTED = [
    ("Captain", 1, {}, True),
    ("Intercessor Squad", 5, {}, False),
    (
        "Sanguinary Guard",
        5,
        {"Angelus Boltgun": 2, "Inferno Pistol": 3, "Encarmine Spear": 2, "Sanguinary Banner": 1},
        False,
    ),
]
POINTS = [80, 80, 260]


@pytest.fixture(scope="module")
def read() -> catalogs.ReadImport:
    if not DATA.is_dir():
        pytest.skip(f"the BSData files are not present at {DATA}")
    files = [
        (p.name, p.read_bytes())
        for folder in FOLDERS
        for p in sorted((DATA / folder).iterdir())
        if p.is_file()
    ]
    return catalogs.read_import(files)


@pytest.fixture(scope="module")
def catalogues(read: catalogs.ReadImport) -> dict[str, Catalogue]:
    return {c.name: c for c in read.catalogues}


@pytest.fixture
def user(db: Session, read: catalogs.ReadImport) -> User:
    starter.load(db)
    alice = User(email="a@example.com", display_name="A", password_hash="x")
    db.add(alice)
    db.flush()
    catalogs.store_import(db, alice, read)
    db.flush()
    return alice


def _units(roster: Roster) -> list[tuple[object, ...]]:
    return [(u.datasheet, u.models, dict(u.wargear), u.warlord) for u in roster.units]


def _text(fmt: str) -> str:
    return (REAL / FILES[fmt]).read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", list(FILES))
def test_a_blood_angels_list_in_each_format_lands_on_blood_angels(
    db: Session, user: User, fmt: str
) -> None:
    view, report = transfer.import_text(db, user, _text(fmt))
    assert report.format == fmt
    assert report.skipped == []
    assert report.catalog_detected is True
    assert view.record is not None
    assert view.record.name == BLOOD_ANGELS
    assert view.roster is not None
    assert view.result is not None
    assert view.roster.faction == "Adeptus Astartes"
    assert view.roster.detachment == "The Angelic Host"
    # the WTC text names no battle size: the smallest that holds its points (420)
    size = BattleSize.INCURSION if fmt == "wtc" else BattleSize.STRIKE_FORCE
    assert view.roster.battle_size == size
    assert _units(view.roster) == EXPECTED
    assert [u.points for u in view.result.units] == POINTS
    assert view.result.points == sum(POINTS)
    assert view.result.violations == ()
    # the points the text states agree with the catalogue's: no note says otherwise
    assert not [n for n in report.notes if "points in the text" in n.message]


def test_the_loadout_reads_as_players_wrote_it(db: Session, user: User) -> None:
    view, _report = transfer.import_text(db, user, _text("wtc"))
    text = transfer.export_text_of(view)
    guard = text[text.index("Sanguinary Guard (260 points)") :]
    for line in (
        "5 models",
        "2x Angelus Boltgun",
        "3x Inferno Pistol",
        "3x Encarmine Blade",
        "2x Encarmine Spear",
        "1x Sanguinary Banner",
    ):
        assert f"  • {line}" in guard, line


def test_our_export_of_it_round_trips(db: Session, user: User) -> None:
    view, _report = transfer.import_text(db, user, _text("json"))
    text = transfer.export_text_of(view)
    assert "Adeptus Astartes\nBlood Angels\nStrike Force (2000 points)\n" in text
    again, report = transfer.import_text(db, user, text)
    assert report.format == "app"
    assert report.skipped == []
    assert again.record is not None
    assert again.record.name == BLOOD_ANGELS
    assert again.roster is not None
    assert _units(again.roster) == EXPECTED
    assert transfer.export_text_of(again) == text


# each format with one line no catalogue reads: (format, line replaced, by, where reported)
UNKNOWN = [
    ("app", "    ◦ 1x Sanguinary Banner", "    ◦ 1x Sanguinary Bannerette", "line 36"),
    ("app", "Intercessor Squad (80 Points)", "Intercessor Squadron (80 Points)", "line 18"),
    (
        "wtc",
        "5x Sanguinary Guard (260 pts): Sanguinary Banner",
        "5x Sanguinary Guards Elite (260 pts): Sanguinary Banner",
        "line 15",
    ),
    (
        "roster",
        ". Sanguinary Guard: Encarmine Spear, Inferno Pistol",
        ". Sanguinary Guard: Encarmine Spear, Inferno Pistolet",
        "line 25",
    ),
    ("json", '"Inferno Pistol"', '"Inferno Pistolet"', "forces[0].selections[4]"),
]


@pytest.mark.parametrize(("fmt", "line", "by", "where"), UNKNOWN)
def test_a_line_no_catalogue_reads_is_reported_never_dropped(
    db: Session, user: User, fmt: str, line: str, by: str, where: str
) -> None:
    text = _text(fmt)
    assert line in text
    text = text.replace(line, by, 1)
    with pytest.raises(InvalidArmy) as refused:
        transfer.import_text(db, user, text)
    errors = refused.value.errors or []
    lines = [e for e in errors if e.get("type") == "not_understood"]
    assert lines, errors
    assert any(e["field"].startswith(where) for e in lines), lines
    # asked to leave it out: the list is built without it, and the report names it
    view, report = transfer.import_text(db, user, text, skip_unknown=True)
    assert view.record is not None
    assert view.record.name == BLOOD_ANGELS
    assert [p.where for p in report.skipped if p.where.startswith(where)], report.skipped


# -- every datasheet through every format ----------------------------------------------------------

SECTION_TITLES = {
    "CHARACTERS": "Character",
    "BATTLELINE": "Battleline",
    "DEDICATED TRANSPORTS": "Dedicated Transport",
}
SIZES = {
    BattleSize.INCURSION: "1. Incursion (1000 Point limit)",
    BattleSize.STRIKE_FORCE: "2. Strike Force (2000 Point limit)",
    BattleSize.ONSLAUGHT: "3. Onslaught (3000 Point limit)",
}
Written = tuple[Datasheet, RosterUnit, int, int, list[ModelGroup], list[Item]]


def _written(roster: Roster, catalogue: Catalogue, result: ValidationResult) -> Iterator[Written]:
    """Each unit in the text's order with the wargear lines our export would give it."""
    for i in listtext.text_order(roster, catalogue):
        unit, points, models = roster.units[i], result.units[i].points, result.units[i].models
        sheet = catalogue.datasheet(unit.datasheet, roster.faction)
        assert sheet is not None
        groups, items = listtext.unit_wargear(sheet, unit, models)
        if len(sheet.models) == 1 and models > 1 and not groups:
            # New Recruit writes the models of a one-type unit on a model line
            groups, items = [ModelGroup(sheet.models[0].name, models, "", items)], []
        yield sheet, unit, points, models, groups, items


def _items(items: list[Item]) -> str:
    return ", ".join(i.name if i.count == 1 else f"{i.count}x {i.name}" for i in items)


def wtc_text(roster: Roster, catalogue: Catalogue, result: ValidationResult) -> str:
    """New Recruit's WTC layout."""
    head = [
        "+" * 47,
        f"+ FACTION KEYWORD: {catalogue.name}",
        f"+ DETACHMENT: {roster.detachment}",
        f"+ TOTAL ARMY POINTS: {result.points}pts",
        "+",
    ]
    body: list[str] = []
    chars = 0
    for sheet, unit, points, models, groups, items in _written(roster, catalogue, result):
        line = f"{models}x {sheet.name} ({points} pts)"
        if sheet.character:
            chars += 1
            line = f"Char{chars}: {line}"
            if unit.warlord:
                head.append(f"+ WARLORD: Char{chars}: {sheet.name}")
        listed = _items(items) if not groups or items else ""
        body.append(f"{line}: {listed}" if listed else f"{line}:")
        for g in groups:
            if g.count > 1 and all(i.count == g.count for i in g.items):
                listed = f"{g.count} with " + ", ".join(i.name for i in g.items)
            else:
                listed = _items(g.items)
            body.append(f" • {g.count}x {g.name}: {listed}")
    head += [f"+ NUMBER OF UNITS: {len(roster.units)}", "+" * 47, ""]
    return "\n".join(head + body) + "\n"


def roster_text(roster: Roster, catalogue: Catalogue, result: ValidationResult) -> str:
    """New Recruit's (and BattleScribe's) "++ Army Roster ++" layout."""
    out = [
        f"++ Army Roster ({catalogue.name}) [{result.points}pts] ++",
        "",
        "+ Configuration +",
        "",
        f"Battle Size: {SIZES[roster.battle_size]}",
        f"Detachment: {roster.detachment}",
    ]
    current = ""
    for sheet, unit, points, _models, groups, items in _written(roster, catalogue, result):
        title = SECTION_TITLES.get(listtext.section(sheet), "Other Datasheets")
        if title != current:
            current = title
            out += ["", f"+ {title} +"]
        tail = ", ".join(x for x in (_items(items), "Warlord" if unit.warlord else "") if x)
        out += ["", f"{sheet.name} [{points}pts]:" + (f" {tail}" if tail else "")]
        out += [
            f". {f'{g.count}x ' if g.count > 1 else ''}{g.name}: {_items(g.items)}" for g in groups
        ]
    out += ["", f"++ Total: [{result.points}pts] ++", "", "Created with New Recruit", ""]
    return "\n".join(out)


def roster_json(roster: Roster, catalogue: Catalogue, result: ValidationResult) -> str:
    """New Recruit's JSON (a BattleScribe roster)."""

    def configuration(name: str, value: str) -> dict[str, Any]:
        category = [{"name": "Configuration", "primary": True}]
        return {
            "name": name,
            "type": "upgrade",
            "categories": category,
            "selections": [{"name": value, "type": "upgrade"}],
        }

    def upgrade(name: str, number: int) -> dict[str, Any]:
        return {"name": name, "type": "upgrade", "number": number}

    selections = [
        configuration("Battle Size", SIZES[roster.battle_size]),
        configuration("Detachment", roster.detachment),
    ]
    for sheet, unit, points, models, groups, items in _written(roster, catalogue, result):
        children = [upgrade("Warlord", 1)] if unit.warlord else []
        children += [upgrade(i.name, i.count) for i in items]
        children += [
            {
                "name": g.name,
                "type": "model",
                "number": g.count,
                "selections": [upgrade(i.name, i.count) for i in g.items],
            }
            for g in groups
        ]
        title = SECTION_TITLES.get(listtext.section(sheet), "Other Datasheets")
        selections.append(
            {
                "name": sheet.name,
                "type": "model" if models == 1 else "unit",
                "number": 1,
                "costs": [{"name": "pts", "value": points}],
                "categories": [{"name": title, "primary": True}],
                "selections": children,
            }
        )
    force = {"name": "Army Roster", "catalogueName": catalogue.name, "selections": selections}
    roster_doc = {
        "name": roster.name,
        "costs": [{"name": "pts", "value": result.points}],
        "costLimits": [{"name": "pts", "value": roster.points_limit}],
        "forces": [force],
    }
    return json.dumps({"roster": roster_doc})


WRITERS: dict[str, Callable[[Roster, Catalogue, ValidationResult], str]] = {
    "app": listtext.export_text,
    "wtc": wtc_text,
    "roster": roster_text,
    "json": roster_json,
}


def _variants(sheet: Datasheet) -> list[dict[str, int]]:
    """The datasheet's defaults, then each of its first choices taken once."""
    out: list[dict[str, int]] = [{}]
    for option in sheet.wargear_options:
        out += [{c.name: 1} for c in option.choices if c.name != option.default]
    return out[:4]


@pytest.mark.parametrize("fmt", list(WRITERS))
def test_every_datasheet_reads_back_through_each_format(
    catalogues: dict[str, Catalogue], fmt: str
) -> None:
    write = WRITERS[fmt]
    tried = 0
    failed: list[tuple[str, str, dict[str, int], object]] = []
    for name, catalogue in catalogues.items():
        for faction in catalogue.factions:
            detachments = catalogue.detachments_of(faction)
            detachment = detachments[0].name if detachments else ""
            for sheet in catalogue.datasheets_of(faction):
                if sheet.legends:
                    continue
                for wargear in _variants(sheet):
                    unit = RosterUnit(
                        sheet.name,
                        models=sheet.max_models,
                        wargear=wargear,
                        warlord=sheet.character and not sheet.no_warlord,
                    )
                    roster = Roster(faction, detachment, BattleSize.STRIKE_FORCE, (unit,))
                    result = validate(roster, catalogue)
                    if any(v.code.value.startswith("wargear") for v in result.violations):
                        continue  # a choice the data does not allow alone
                    tried += 1
                    pasted = formats.parse(write(roster, catalogue, result))
                    assert pasted.format == fmt
                    found = matching.match(pasted, catalogue)
                    if found.roster is None or found.problems:
                        failed.append((name, sheet.name, wargear, found.problems[:2]))
                        continue
                    back = found.roster.units[0]
                    same = (
                        back.models == unit.models
                        and back.warlord == unit.warlord
                        and matching.carried(sheet, sheet.max_models, back.wargear)
                        == matching.carried(sheet, sheet.max_models, unit.wargear)
                    )
                    if not same:
                        failed.append((name, sheet.name, wargear, dict(back.wargear)))
    assert tried > 1000  # every catalogue's datasheets, not a handful
    assert failed == []
