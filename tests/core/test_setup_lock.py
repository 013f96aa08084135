"""Replicas starting at once (compose's REPLICAS) migrate and seed one at a time on Postgres.

Two ``auspex migrate && auspex seed`` at once on an empty database made one fail
(``UniqueViolation`` on ``pg_type``); each step now holds a transaction-scoped advisory lock.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from app.core import migrate


@pytest.fixture
def empty_postgres(database_url: str) -> Iterator[str]:
    if not database_url.startswith("postgresql"):
        pytest.skip("Postgres only: SQLite's own write lock serialises the set-up")
    parsed = make_url(database_url)
    name = f"auspex_setup_{uuid.uuid4().hex[:10]}"
    admin = create_engine(parsed.set(database="postgres"), isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield parsed.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def _start(url: str) -> subprocess.Popen[str]:
    """One replica's start-up command, as the Dockerfile runs it."""
    env = {**os.environ, "W40K_DATABASE_URL": url}
    script = "from app.cli import main; raise SystemExit(main(['migrate']) or main(['seed']))"
    return subprocess.Popen(
        [sys.executable, "-c", script],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def test_replicas_starting_at_once_all_succeed(empty_postgres: str) -> None:
    replicas = [_start(empty_postgres) for _ in range(3)]
    outputs = [r.communicate(timeout=240)[0] for r in replicas]
    assert [r.returncode for r in replicas] == [0, 0, 0], outputs
    heads, catalogues = _census(empty_postgres)
    assert heads == [migrate_head()]
    assert catalogues > 0
    # a later start finds everything in place and loads nothing twice
    again = _start(empty_postgres)
    assert again.wait(timeout=240) == 0
    assert _census(empty_postgres) == (heads, catalogues)


def migrate_head() -> str:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(migrate.alembic_config()).get_current_head() or ""


def _census(url: str) -> tuple[list[str], int]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            heads = conn.execute(text("SELECT version_num FROM alembic_version")).scalars().all()
            catalogues = conn.execute(text("SELECT count(*) FROM catalogues")).scalar_one()
    finally:
        engine.dispose()
    return list(heads), catalogues


def test_the_lock_is_a_no_op_on_sqlite(tmp_path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'lock.db'}")
    try:
        with engine.begin() as conn:
            migrate.hold_setup_lock(conn)  # nothing to wait for: SQLite locks the file itself
            assert conn.execute(text("SELECT 1")).scalar_one() == 1
    finally:
        engine.dispose()
