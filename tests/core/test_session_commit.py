"""The end of a request's session (``Database.session``) and the after-commit hooks of the
match writes (issue 21): a session whose transaction has already ended is not committed again
(an empty transaction begun only to be committed), unless hooks still wait for a commit; the
hooks run once on commit, never on rollback, with no listener added per session."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import event, text
from sqlalchemy.orm import Session

from app.core.db import AFTER_COMMIT_HOOKS, Database
from app.core.deps import end_transaction
from app.matches.writes import after_commit


@pytest.fixture
def database(tmp_path: Path) -> Iterator[Database]:
    db = Database(f"sqlite:///{tmp_path / 'commit.db'}")
    with db.engine.begin() as conn:
        conn.execute(text("CREATE TABLE notes (body TEXT NOT NULL)"))
    yield db
    db.engine.dispose()


@contextmanager
def _commits() -> Iterator[list[Session]]:
    seen: list[Session] = []

    def count(session: Session) -> None:
        seen.append(session)

    event.listen(Session, "after_commit", count)
    try:
        yield seen
    finally:
        event.remove(Session, "after_commit", count)


def _count(database: Database) -> int:
    with database.engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM notes")).scalar_one())


def test_a_session_ended_by_the_endpoint_is_not_committed_again(database: Database) -> None:
    with _commits() as seen, contextmanager(database.session)(write=True) as db:
        db.execute(text("INSERT INTO notes (body) VALUES ('x')"))
        end_transaction(db)  # as the hot routes do
        assert len(seen) == 1
    assert len(seen) == 1  # no second, empty transaction begun and committed
    assert _count(database) == 1


def test_a_session_in_a_transaction_is_committed_at_the_end(database: Database) -> None:
    with _commits() as seen, contextmanager(database.session)(write=True) as db:
        db.execute(text("INSERT INTO notes (body) VALUES ('x')"))
    assert len(seen) == 1
    assert _count(database) == 1


def test_hooks_waiting_without_a_transaction_still_get_their_commit(database: Database) -> None:
    ran: list[str] = []
    with contextmanager(database.session)() as db:
        after_commit(db, lambda: ran.append("hook"))
        assert not db.in_transaction()
        assert db.info[AFTER_COMMIT_HOOKS]
    assert ran == ["hook"]


def test_hooks_run_once_on_commit_and_never_after_a_rollback(database: Database) -> None:
    ran: list[str] = []
    with contextmanager(database.session)(write=True) as db:
        db.execute(text("INSERT INTO notes (body) VALUES ('x')"))
        after_commit(db, lambda: ran.append("first"))
        db.rollback()
        assert AFTER_COMMIT_HOOKS not in db.info
        db.execute(text("INSERT INTO notes (body) VALUES ('y')"))
        after_commit(db, lambda: ran.append("second"))
        db.commit()
        assert ran == ["second"]
        db.execute(text("INSERT INTO notes (body) VALUES ('z')"))
    assert ran == ["second"]  # the hooks ran once, with their commit
    assert _count(database) == 2


def test_a_failed_request_rolls_back_and_runs_no_hook(database: Database) -> None:
    ran: list[str] = []

    def endpoint() -> None:
        with contextmanager(database.session)(write=True) as db:
            db.execute(text("INSERT INTO notes (body) VALUES ('x')"))
            after_commit(db, lambda: ran.append("hook"))
            raise RuntimeError("the endpoint failed")

    with pytest.raises(RuntimeError, match="the endpoint failed"):
        endpoint()
    assert ran == []
    assert _count(database) == 0
