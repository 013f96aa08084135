"""Migrations are reversible and match the models, on SQLite and on Postgres."""

from __future__ import annotations

import os
import sqlite3
import uuid
from collections.abc import Iterator

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, inspect, text
from sqlalchemy.engine import make_url

from app.core import migrate
from app.core.db import make_engine
from app.models import Base


@pytest.fixture
def scratch_url(tmp_path) -> Iterator[str]:
    """A throwaway database of the same kind as the suite's."""
    base = os.environ.get("W40K_TEST_DATABASE_URL")
    if not base:
        yield f"sqlite:///{tmp_path / 'migrations.db'}"
        return
    url = make_url(base)
    name = f"auspex_mig_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names()) - {"alembic_version"}
    finally:
        engine.dispose()


def test_upgrade_downgrade_upgrade(scratch_url: str) -> None:
    migrate.upgrade(scratch_url)
    assert {"users", "web_sessions", "api_tokens", "login_failures"} <= _tables(scratch_url)
    migrate.downgrade(scratch_url, "base")
    assert _tables(scratch_url) == set()
    migrate.upgrade(scratch_url)
    assert set(Base.metadata.tables) == _tables(scratch_url)


def test_every_revision_steps_down_and_up(scratch_url: str) -> None:
    config = migrate.alembic_config(scratch_url)
    revisions = list(ScriptDirectory.from_config(config).walk_revisions("base", "heads"))
    assert len(revisions) >= 1
    command.upgrade(config, "head")
    for _ in revisions:
        command.downgrade(config, "-1")
        command.upgrade(config, "+1")
        command.downgrade(config, "-1")
    assert _tables(scratch_url) == set()


def test_models_and_migrations_agree(scratch_url: str) -> None:
    migrate.upgrade(scratch_url)
    engine = make_engine(scratch_url)
    try:
        with engine.connect() as conn:
            diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
    finally:
        engine.dispose()
    assert diff == [], f"models differ from migrations: {diff}"


def test_single_head() -> None:
    heads = ScriptDirectory.from_config(migrate.alembic_config()).get_heads()
    assert len(heads) == 1, heads


def test_sqlite_migrations_refuse_to_leave_rows_pointing_at_nothing(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Migrations run with foreign keys off on SQLite; the check before commit still holds."""
    url = f"sqlite:///{tmp_path / 'dangling.db'}"
    migrate.upgrade(url)
    head = ScriptDirectory.from_config(migrate.alembic_config(url)).get_current_head()
    raw = sqlite3.connect(tmp_path / "dangling.db")  # foreign keys are off by default here
    raw.execute(
        "INSERT INTO match_events (match_id, seq, batch, actor, kind, event)"
        " VALUES (999, 1, 1, 'a', 'k', '{}')"
    )
    raw.commit()
    raw.close()
    with pytest.raises(RuntimeError, match="match_events row 1 -> matches"):
        migrate.downgrade(url, "-1")
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            assert MigrationContext.configure(conn).get_current_revision() == head  # rolled back
    finally:
        engine.dispose()
