"""The import routes read uploaded files with no transaction open.

A POST's session (:func:`app.core.deps.get_db`) takes the write lock when the request starts
(``BEGIN IMMEDIATE`` on SQLite: every other writer of the instance waits for it). Reading and
building uploaded BattleScribe files takes seconds, so an import route ends that transaction once
the user is known (committing what finding them wrote), reads the files, and only then takes the
write lock again for the short write that stores the result.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

from app.core.db import WRITE


@contextmanager
def no_transaction(db: Session) -> Iterator[None]:
    """Run the block with no transaction open on ``db``; the writes after it take the write
    lock again (``BEGIN IMMEDIATE`` on SQLite), as the request's session did at its start."""
    db.commit()
    yield
    db.connection(execution_options={WRITE: True})
