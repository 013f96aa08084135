"""A pasted list lands on the catalogue it names (ruling D27, issue 17): our text export names a
chapter catalogue as the app's sub-faction line, and among the catalogues that read a list with
no problems the import prefers the one the text names, then the one whose own datasheets the
list uses, the starter last. With the real files of ``../shared/data`` (skipped, saying why,
only when they are absent) and the starter, all visible to the user."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.armies import listtext, transfer
from app.catalog import service as catalogs
from app.catalog import starter
from app.catalog.models import CatalogueRecord
from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit, validate

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
FOLDERS = ("bsdata-wh40k-10e", "bsdata-wh40k-10e-more")
PASTED = Path(__file__).parent / "pasted"
SPACE_WOLVES = "Imperium - Adeptus Astartes - Space Wolves"
BLOOD_ANGELS = "Imperium - Adeptus Astartes - Blood Angels"
SPACE_MARINES = "Imperium - Adeptus Astartes - Space Marines"


@pytest.fixture
def user(db: Session) -> User:
    if not DATA.is_dir():
        pytest.skip(f"the BSData files are not present at {DATA}")
    starter.load(db)
    alice = User(email="a@example.com", display_name="A", password_hash="x")
    db.add(alice)
    db.flush()
    files = [
        (p.name, p.read_bytes())
        for folder in FOLDERS
        for p in sorted((DATA / folder).iterdir())
        if p.is_file()
    ]
    catalogs.import_catalogues(db, alice, files)
    db.flush()
    return alice


def record(db: Session, user: User, name: str) -> CatalogueRecord:
    return next(r for r in catalogs.visible(db, user) if r.name == name)


def landed(db: Session, user: User, text: str) -> str:
    view, report = transfer.import_text(db, user, text)
    assert report.skipped == []
    assert view.army.catalogue_id is not None
    found = catalogs.by_id(db, view.army.catalogue_id)
    assert found is not None
    return found.name


def captain_and_intercessors(detachment: str) -> Roster:
    return Roster(
        "Adeptus Astartes",
        detachment,
        BattleSize.STRIKE_FORCE,
        (RosterUnit("Captain", warlord=True), RosterUnit("Intercessor Squad", models=5)),
        name="Wolves",
    )


def test_a_space_wolves_list_exported_and_pasted_back_lands_on_space_wolves(
    db: Session, user: User
) -> None:
    wolves = catalogs.parsed(db, record(db, user, SPACE_WOLVES))
    roster = captain_and_intercessors("Gladius Task Force")
    text = listtext.export_text(roster, wolves, validate(roster, wolves))
    # the app's layout: the Army Faction, then the chapter as its sub-faction line
    assert text.splitlines()[2:5] == [
        "Adeptus Astartes",
        "Space Wolves",
        "Strike Force (2000 points)",
    ]
    # the starter, the Space Marines and every chapter read this list with no problems
    assert landed(db, user, text) == SPACE_WOLVES
    # the same list exported from the Space Marines catalogue lands there, not on a chapter
    marines = catalogs.parsed(db, record(db, user, SPACE_MARINES))
    text = listtext.export_text(roster, marines, validate(roster, marines))
    assert "Space Marines" in text.splitlines()[3]
    assert landed(db, user, text) == SPACE_MARINES


def exported(db: Session, user: User, catalogue: str, roster: Roster) -> str:
    parsed = catalogs.parsed(db, record(db, user, catalogue))
    return listtext.export_text(roster, parsed, validate(roster, parsed))


def test_a_blood_angels_list_in_the_apps_layout_lands_on_blood_angels(
    db: Session, user: User
) -> None:
    """The official app writes "Space Marines" (naming the parent catalogue too), then the
    chapter, and "Points" with a thousands separator."""
    text = exported(db, user, BLOOD_ANGELS, captain_and_intercessors("Gladius Task Force"))
    head = "Adeptus Astartes\nBlood Angels\nStrike Force (2000 points)\n"
    assert head in text
    text = text.replace(head, "Space Marines\nBlood Angels\nStrike Force (2,000 Points)\n")
    text = text.replace(" points)", " Points)")
    assert landed(db, user, text) == BLOOD_ANGELS


@pytest.mark.parametrize("name", ["Imperium - Space Wolves", SPACE_WOLVES])
def test_new_recruits_catalogue_name_chooses_the_catalogue(
    db: Session, user: User, name: str
) -> None:
    document = json.loads((PASTED / "roster.json").read_text(encoding="utf-8"))
    document["roster"]["forces"][0]["catalogueName"] = name
    assert landed(db, user, json.dumps(document)) == SPACE_WOLVES


def test_a_list_naming_no_chapter_lands_on_the_catalogue_of_its_datasheets(
    db: Session, user: User
) -> None:
    """Only the Army Faction named: the Space Marines catalogue, whose own datasheets the
    Captain and the Intercessors are (each chapter only imports them); the starter, which reads
    it too, comes last."""
    text = exported(db, user, SPACE_MARINES, captain_and_intercessors("Gladius Task Force"))
    text = text.replace("Adeptus Astartes\nSpace Marines\n", "Adeptus Astartes\n")
    assert "Space Marines" not in text
    assert landed(db, user, text) == SPACE_MARINES
    # a chapter's own datasheet: the chapter
    claws = Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.STRIKE_FORCE,
        (RosterUnit("Captain", warlord=True), RosterUnit("Blood Claws")),
    )
    text = exported(db, user, SPACE_WOLVES, claws)
    text = text.replace("Adeptus Astartes\nSpace Wolves\n", "Adeptus Astartes\n")
    assert "Space Wolves" not in text
    assert landed(db, user, text) == SPACE_WOLVES


def test_the_catalogue_asked_for_wins(db: Session, user: User) -> None:
    wolves = catalogs.parsed(db, record(db, user, SPACE_WOLVES))
    roster = captain_and_intercessors("Gladius Task Force")
    text = listtext.export_text(roster, wolves, validate(roster, wolves))
    asked = record(db, user, BLOOD_ANGELS)
    view, _report = transfer.import_text(db, user, text, asked.id)
    assert view.army.catalogue_id == asked.id
