"""Fixtures of the core tests: a database of their own for the migration tests."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url


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
