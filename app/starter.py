"""Starter data: what a fresh instance loads so a newcomer can use it at once.

Each feature may have a ``starter`` module with ``load(session) -> str`` (a one-line summary).
Loaders are idempotent (they upsert by natural key), so ``auspex seed`` is safe at every start.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.core.migrate import hold_setup_lock
from app.features import starter_modules


def load_all(session: Session) -> list[str]:
    # replicas seeding at once: the second waits, then finds every row and upserts nothing new
    hold_setup_lock(session.connection())
    lines = []
    for module in starter_modules():
        feature = module.__name__.split(".")[1]
        lines.append(f"{feature}: {module.load(session)}")
    return lines
