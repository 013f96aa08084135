"""Run the Alembic migrations from code (the CLI, the app's start command, the tests)."""

from __future__ import annotations

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection

from app.core.config import ROOT


def alembic_config(url: str | None = None, connection: Connection | None = None) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    if url:
        config.set_main_option("sqlalchemy.url", url.replace("%", "%%"))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def upgrade(url: str | None = None, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str | None = None, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)
