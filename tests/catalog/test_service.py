"""Catalogue storage: the starter loader, versions, the parsed-catalogue cache, visibility."""

from __future__ import annotations

from dataclasses import replace

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.catalog import service, starter
from app.catalog.bsdata import import_files
from app.catalog.exceptions import CatalogueNotFound, FactionNotFound, ImportFailed
from app.catalog.models import CatalogueRecord
from app.engine.wh40k10e.army import Catalogue


def user(db: Session, email: str) -> User:
    u = User(email=email, display_name=email.split("@")[0], password_hash="x")
    db.add(u)
    db.flush()
    return u


def test_starter_load_is_idempotent(db: Session) -> None:
    first = starter.load(db)
    assert first.startswith("starter catalogue loaded (starter-wh40k10e version 1+")
    assert "62 datasheets" in first
    second = starter.load(db)
    assert second.startswith("starter catalogue up to date")
    count = db.scalar(
        select(func.count())
        .select_from(CatalogueRecord)
        .where(CatalogueRecord.slug == "starter-wh40k10e")
    )
    assert count == 1
    record = service.starter(db)
    assert record.owner_id is None
    assert record.is_public
    assert service.parsed(db, record) == starter.starter_catalogue()


def test_a_new_starter_version_replaces_the_document(
    db: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    starter.load(db)
    record = service.starter(db)
    old_id, old_version = record.id, record.version
    shipped = starter.starter_catalogue()
    newer = replace(shipped, version=shipped.version + "+next", datasheets=shipped.datasheets[:-1])
    monkeypatch.setattr(starter, "starter_catalogue", lambda: newer)
    line = starter.load(db)
    assert line.startswith("starter catalogue updated")
    db.refresh(record)
    assert record.id == old_id
    assert record.version == old_version + "+next"
    assert record.datasheet_count == 61
    assert len(service.parsed(db, record).datasheets) == 61


def test_parsed_catalogues_are_cached_by_id_version_and_digest(db: Session) -> None:
    starter.load(db)
    record = service.starter(db)
    service.cache.clear()
    hits = service.cache.hits
    first = service.parsed(db, record)
    second = service.parsed(db, record)
    assert first is second
    assert service.cache.hits == hits + 1


def test_cache_is_bounded() -> None:
    cache = service._Cache(2)
    cats = [Catalogue(id=f"c{i}", name="c", version="1", factions=()) for i in range(3)]
    for i, cat in enumerate(cats):
        cache.put((i, "1", "d"), cat)
    assert cache.get((0, "1", "d")) is None
    assert cache.get((2, "1", "d")) is cats[2]
    cache.drop(2)
    assert cache.get((2, "1", "d")) is None


def test_store_upserts_per_owner(db: Session, files: list) -> None:
    alice, bob = user(db, "a@example.com"), user(db, "b@example.com")
    (marines, _orks) = import_files(files).catalogues
    a1, created = service.store(db, marines, owner_id=alice.id)
    assert created
    a2, created = service.store(db, marines, owner_id=alice.id)
    assert not created
    assert a2.id == a1.id
    b1, created = service.store(db, marines, owner_id=bob.id)
    assert created
    assert b1.id != a1.id
    assert b1.slug != a1.slug
    public, created = service.store(db, marines, owner_id=None)
    assert created
    assert public.slug == "test-marines"
    again, created = service.store(db, marines, owner_id=None)
    assert not created
    assert again.id == public.id


def test_visibility(db: Session, files: list) -> None:
    starter.load(db)
    alice, bob = user(db, "a@example.com"), user(db, "b@example.com")
    outcome = service.import_catalogues(db, alice, files)
    slug = outcome.records[0].slug
    assert [r.slug for r in service.visible(db, None)] == ["starter-wh40k10e"]
    assert [r.slug for r in service.visible(db, bob)] == ["starter-wh40k10e"]
    assert slug in [r.slug for r in service.visible(db, alice)]
    assert service.resolve(db, alice, slug).id == outcome.records[0].id
    assert service.resolve(db, alice, str(outcome.records[0].id)).slug == slug
    with pytest.raises(CatalogueNotFound):
        service.resolve(db, bob, slug)
    with pytest.raises(CatalogueNotFound):
        service.resolve(db, None, outcome.records[0].id)


def test_import_errors_name_the_file(db: Session, files: list) -> None:
    with pytest.raises(ImportFailed) as caught:
        service.import_catalogues(db, None, [*files, ("junk.cat", b"not xml")])
    err = caught.value
    assert err.status == 422
    assert "junk.cat" in err.detail
    assert err.errors == [
        {
            "field": "files",
            "file": "junk.cat",
            "code": "file-unreadable",
            "message": err.errors[0]["message"],
            "type": "import_error",
        }
    ]
    assert err.extra["report"]["errors"]
    with pytest.raises(ImportFailed):
        service.import_catalogues(db, None, [])


def test_search_ranks_name_matches_first() -> None:
    cat = starter.starter_catalogue()
    found = service.search(cat, "Orks", "nob")
    in_name = ["nob" in d.name.casefold() for d in found]
    assert in_name == sorted(in_name, reverse=True)  # name matches first
    assert {"Nobz", "Meganobz"} <= {d.name for d in found}
    assert all("Orks" in d.faction_keywords for d in found)
    bosses = [d.name for d in service.search(cat, "Orks", "boss")]
    assert {"Warboss", "Beastboss", "Boss Snikrot"} <= set(bosses)
    assert service.search(cat, "Orks", "INFANTRY  mob")  # keywords, case and spaces ignored
    assert [d.name for d in service.search(cat, None, "rhino")] == ["Rhino"]
    assert service.role(cat.datasheet("Rhino")) == "transport"  # type: ignore[arg-type]


def test_faction_lookup() -> None:
    cat = starter.starter_catalogue()
    assert service.faction(cat, "orks") == "Orks"
    with pytest.raises(FactionNotFound):
        service.faction(cat, "Necrons")
