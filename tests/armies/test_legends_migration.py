"""The migration that adds ``armies.include_legends`` (ruling D11): a list stored before it that
holds a Legends datasheet of its catalogue gets the setting on, every other list gets it off;
it runs down again, on SQLite and (with W40K_TEST_DATABASE_URL) on Postgres."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from alembic import command
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

from app.core import migrate
from app.core.db import make_engine
from tests.core.test_migrations import scratch_url as scratch_url  # the same scratch database

REVISION = "e4b7a9c2d610"

DOCUMENT = {
    "datasheets": [
        {"name": "Captain"},
        {"name": "Old Walker", "legends": True},
        {"name": "Ferren Areios [Legends]"},
    ]
}

# army id -> (rule system, catalogue id or None, units)
ARMIES: dict[int, tuple[str, int | None, list[dict[str, object]]]] = {
    1: ("wh40k-10e", 1, [{"datasheet": "Captain"}, {"datasheet": "old  walker"}]),
    2: ("wh40k-10e", 1, [{"datasheet": "Captain"}]),
    3: ("wh40k-10e", 1, [{"datasheet": "Ferren Areios [Legends]"}]),
    4: ("wh40k-10e", 1, []),
    5: ("pen", None, [{"name": "Old Walker"}]),
    6: ("wh40k-10e", 2, [{"datasheet": "Old Walker"}]),  # a catalogue without Legends
}


@pytest.fixture
def before(scratch_url: str) -> str:
    """A database one revision before, with a user, two catalogues and the lists above."""
    config = migrate.alembic_config(scratch_url)
    script = ScriptDirectory.from_config(config).get_revision(REVISION)
    assert script is not None
    down = script.down_revision
    assert isinstance(down, str)
    command.upgrade(config, down)
    now = datetime.now(UTC)
    engine = make_engine(scratch_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO users (id, email, display_name, password_hash,"
                    " preferred_language, is_active, created_at, updated_at)"
                    " VALUES (1, 'a@example.com', 'A', 'x', 'en', :t, :now, :now)"
                ),
                {"now": now, "t": True},
            )
            for cid, doc in ((1, DOCUMENT), (2, {"datasheets": [{"name": "Old Walker"}]})):
                conn.execute(
                    text(
                        "INSERT INTO catalogues (id, slug, source_id, rule_system, name, version,"
                        " digest, factions, datasheet_count, owner_id, document,"
                        " created_at, updated_at) VALUES (:id, :slug, :slug, 'wh40k-10e', 'C',"
                        " '1', 'd', '[]', 3, 1, :doc, :now, :now)"
                    ),
                    {"id": cid, "slug": f"c{cid}", "doc": json.dumps(doc), "now": now},
                )
            for aid, (system, cid, units) in ARMIES.items():
                conn.execute(
                    text(
                        "INSERT INTO armies (id, owner_id, name, rule_system, status,"
                        " catalogue_id, faction, detachment, units, revision, created_at,"
                        " updated_at) VALUES (:id, 1, 'L', :sys, 'draft', :cid, 'F', '',"
                        " :units, 1, :now, :now)"
                    ),
                    {"id": aid, "sys": system, "cid": cid, "units": json.dumps(units), "now": now},
                )
    finally:
        engine.dispose()
    return scratch_url


def _settings(url: str) -> dict[int, bool]:
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            rows = conn.execute(text("SELECT id, include_legends FROM armies ORDER BY id"))
            return {int(i): bool(v) for i, v in rows}
    finally:
        engine.dispose()


def _columns(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return {c["name"] for c in inspect(engine).get_columns("armies")}
    finally:
        engine.dispose()


def test_existing_lists_with_a_legends_unit_keep_it(before: str) -> None:
    config = migrate.alembic_config(before)
    command.upgrade(config, REVISION)
    assert _settings(before) == {1: True, 2: False, 3: True, 4: False, 5: False, 6: False}
    # a row written later without the column gets the default: off
    engine = make_engine(before)
    try:
        with engine.begin() as conn:
            now = datetime.now(UTC)
            conn.execute(
                text(
                    "INSERT INTO armies (id, owner_id, name, rule_system, status, faction,"
                    " detachment, units, revision, created_at, updated_at)"
                    " VALUES (7, 1, 'N', 'pen', 'draft', '', '', '[]', 1, :now, :now)"
                ),
                {"now": now},
            )
    finally:
        engine.dispose()
    assert _settings(before)[7] is False
    command.downgrade(config, "-1")
    assert "include_legends" not in _columns(before)
    command.upgrade(config, REVISION)
    assert _settings(before)[1] is True
