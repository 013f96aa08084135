"""Imports beside other writes: two imports of one catalogue at the same time give one row and
no error; another user's write does not wait while an import reads its files.

Commits for real (not inside the rolled-back test transaction), on SQLite and on Postgres, with
write sessions as the app opens them, and deletes what it created.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine, delete, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.schemas import TokenCreate
from app.accounts.service import create_token
from app.catalog import bsdata, service
from app.catalog.models import CatalogueRecord
from app.clubs.models import Club
from app.core import db as core_db
from app.engine.wh40k10e.army import Catalogue
from tests.support.committed import committed_user, write_session

pytestmark = pytest.mark.xdist_group("committed-catalogues")

SOURCE = "race-test-catalogue"


@pytest.fixture
def owner(engine: Engine) -> Iterator[int]:
    with committed_user(engine, "Importer") as user_id:
        yield user_id
        with Session(engine) as s:
            s.execute(delete(CatalogueRecord).where(CatalogueRecord.source_id == SOURCE))
            s.commit()


def _import(
    engine: Engine, owner_id: int, version: str, stored: threading.Event | None = None
) -> bool:
    with write_session(engine) as s:
        catalogue = Catalogue(id=SOURCE, name="Race", version=version, factions=())
        _record, created = service.store(s, catalogue, owner_id=owner_id)
        if stored is not None:
            stored.set()
            time.sleep(0.3)  # uncommitted: the other import runs into it
        return created


def test_an_import_while_the_same_one_is_uncommitted_becomes_its_new_version(
    engine: Engine, owner: int
) -> None:
    outcomes: dict[str, bool] = {}
    stored = threading.Event()

    def first() -> None:
        outcomes["first"] = _import(engine, owner, "1", stored)

    thread = threading.Thread(target=first)
    thread.start()
    assert stored.wait(5)
    outcomes["second"] = _import(engine, owner, "2")
    thread.join(10)

    assert outcomes == {"first": True, "second": False}
    with Session(engine) as s:
        rows = s.scalars(select(CatalogueRecord).where(CatalogueRecord.source_id == SOURCE)).all()
        assert [(r.owner_id, r.version) for r in rows] == [(owner, "2")]


def test_another_users_write_does_not_wait_while_an_import_reads_its_files(
    engine: Engine,
    app_settings: Any,
    files: list[tuple[str, bytes]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The import is held in the middle of reading its files while a club is created. Were the
    import's write lock taken (SQLite: ``BEGIN IMMEDIATE`` when a POST starts), the club would
    wait for it and fail with "database is locked" once the busy timeout ran out."""
    from app.main import create_app

    monkeypatch.setattr(core_db, "BUSY_TIMEOUT_MS", 2_000)  # a blocked writer fails in 2 s
    reading, club_created = threading.Event(), threading.Event()
    read_document = bsdata.read_document

    def held(*args: Any, **kwargs: Any) -> bsdata.Document:
        reading.set()
        club_created.wait(10)
        return read_document(*args, **kwargs)

    monkeypatch.setattr(bsdata, "read_document", held)
    app = create_app(app_settings, database=core_db.Database(app_settings.database_url))
    answers: dict[str, Any] = {}
    with committed_user(engine, "Importer") as user_id:
        with Session(engine, expire_on_commit=False) as s:
            user = s.get(User, user_id)
            assert user is not None
            secret = create_token(s, user, TokenCreate(name="import")).secret
            s.commit()
        try:
            with TestClient(app) as client:
                client.headers["Authorization"] = f"Bearer {secret}"

                def importing() -> None:
                    upload = [("files", (name, data)) for name, data in files]
                    answers["import"] = client.post("/api/v1/catalogs/import", files=upload)

                thread = threading.Thread(target=importing)
                thread.start()
                assert reading.wait(10), "the import never started to read"
                start = time.perf_counter()
                answers["club"] = client.post("/api/v1/clubs", json={"name": "Not blocked"})
                answers["club_seconds"] = time.perf_counter() - start
                club_created.set()
                thread.join(30)
                assert not thread.is_alive()
        finally:
            club_created.set()
            with Session(engine) as s:
                s.execute(delete(CatalogueRecord).where(CatalogueRecord.owner_id == user_id))
                s.execute(delete(Club).where(Club.name == "Not blocked"))
                s.commit()
            app.state.db.engine.dispose()
    assert answers["club"].status_code == 201, answers["club"].text
    assert answers["club_seconds"] < 1.5
    assert answers["import"].status_code == 201, answers["import"].text[:500]
    assert [c["name"] for c in answers["import"].json()["catalogues"]] == [
        "Test Marines",
        "Test Orks",
    ]
