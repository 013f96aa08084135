"""``auspex import-bsdata FILES... [--owner EMAIL]`` on a scratch database."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from app.accounts.models import User
from app.catalog.models import CatalogueRecord
from app.cli import main
from app.core import migrate
from app.core.config import get_settings
from app.core.db import Database

FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Database]:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    migrate.upgrade(url)
    monkeypatch.setenv("W40K_DATABASE_URL", url)
    get_settings.cache_clear()
    database = Database(url)
    yield database
    database.engine.dispose()
    get_settings.cache_clear()


def rows(database: Database) -> list[tuple[str, int | None, str]]:
    with database.sessions() as session:
        return [
            (r.name, r.owner_id, r.version)
            for r in session.scalars(select(CatalogueRecord).order_by(CatalogueRecord.id))
        ]


def test_import_a_directory_for_everyone(
    scratch: Database, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["import-bsdata", str(FIXTURES)]) == 0
    out = capsys.readouterr().out
    assert "imported: Test Marines" in out
    assert "imported: Test Orks" in out
    assert "warning(s)" in out
    assert rows(scratch) == [("Test Marines", None, "r12+gst-r7"), ("Test Orks", None, "r4+gst-r7")]
    # again: the same catalogues, updated in place
    assert main(["import-bsdata", *(str(p) for p in sorted(FIXTURES.iterdir()))]) == 0
    assert "updated: Test Marines" in capsys.readouterr().out
    assert len(rows(scratch)) == 2


def test_import_for_an_owner(scratch: Database, capsys: pytest.CaptureFixture[str]) -> None:
    with scratch.sessions.begin() as session:
        session.add(User(email="owner@example.com", display_name="Owner", password_hash="x"))
    assert main(["import-bsdata", str(FIXTURES), "--owner", "OWNER@example.com"]) == 0
    with scratch.sessions() as session:
        owner_id = session.scalar(select(User.id))
    assert {r[1] for r in rows(scratch)} == {owner_id}
    assert main(["import-bsdata", str(FIXTURES), "--owner", "nobody@example.com"]) == 2
    assert "no account" in capsys.readouterr().err


def test_errors_name_the_file(
    scratch: Database, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    broken = tmp_path / "broken.cat"
    broken.write_bytes(b"<catalogue")
    assert main(["import-bsdata", str(FIXTURES / "test-system.gst"), str(broken)]) == 1
    assert "broken.cat" in capsys.readouterr().err
    assert rows(scratch) == []
    assert main(["import-bsdata", str(tmp_path / "missing.cat")]) == 2
