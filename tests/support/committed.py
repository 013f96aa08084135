"""Helpers for tests that commit for real (concurrency), outside the rolled-back transaction."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Engine, delete
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core.db import WRITE


@contextmanager
def committed_user(engine: Engine, name: str) -> Iterator[int]:
    """A user committed to the database for the block, deleted afterwards (with what cascades
    from them); yields the user's id."""
    with Session(engine) as s:
        user = User(
            email=f"{name.lower()}-{secrets.token_hex(4)}@example.com",
            display_name=name,
            password_hash="x",
        )
        s.add(user)
        s.commit()
        user_id = user.id
    try:
        yield user_id
    finally:
        with Session(engine) as s:
            s.execute(delete(User).where(User.id == user_id))
            s.commit()


@contextmanager
def write_session(engine: Engine) -> Iterator[Session]:
    """A session as a POST gets one (`app.core.deps.get_db`): the write lock from the start,
    committed at the end of the block, rolled back if it raises."""
    with Session(engine, expire_on_commit=False) as session:
        session.connection(execution_options={WRITE: True})
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise
