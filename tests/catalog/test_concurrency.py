"""Two imports of one catalogue at the same time: one row, no error.

Commits for real (not inside the rolled-back test transaction), on SQLite and on Postgres, with
write sessions as the app opens them, and deletes what it created.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, delete, select
from sqlalchemy.orm import Session

from app.catalog import service
from app.catalog.models import CatalogueRecord
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
