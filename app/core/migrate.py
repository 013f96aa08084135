"""Run the Alembic migrations from code (the CLI, the app's start command, the tests).

Several replicas start at once (compose's ``REPLICAS``), each running ``auspex migrate && auspex
seed``: on Postgres both steps take one transaction-scoped advisory lock first
(:func:`hold_setup_lock`), so the second replica waits for the first to commit, then finds the
schema at head and the starter data loaded. Without it one replica failed on its first start
(``UniqueViolation`` on ``pg_type``: two ``CREATE TABLE`` of one name at once).
"""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, text

from app.core.config import ROOT


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    if url:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


# an arbitrary 63-bit key naming "the instance's set-up" among the database's advisory locks
SETUP_LOCK = 0x6175_7370_6578_0001


def hold_setup_lock(connection: Connection) -> None:
    """Wait for, then hold until the transaction ends, the lock that serialises set-up steps
    (migrations, starter data) across processes; SQLite's own write lock already does."""
    if connection.dialect.name == "postgresql":
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": SETUP_LOCK})


def upgrade(url: str | None = None, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)
