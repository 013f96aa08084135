"""The 16-packs cap holds under simultaneous uploads (app.matches.packs): real, committed
transactions on SQLite and on Postgres (``scripts/with_postgres.py``), as in
tests/matches/test_concurrency.py. Without the lock on the uploader's row, every upload read
the same 15 packs on Postgres and all of them were kept."""

from __future__ import annotations

import json
import secrets
import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.core.db import WRITE
from app.matches import packs
from app.matches.models import MissionPack
from tests.matches.test_narrative_match import club_pack


def _pack(n: int) -> bytes:
    return json.dumps(club_pack(f"pack-{n}", f"bridge-{n}")).encode()


@pytest.fixture
def owner_with_15_packs(engine: Engine) -> Iterator[int]:
    """A committed user with 15 packs, one short of the cap; deleted afterwards (its packs
    with it)."""
    with Session(engine) as s:
        user = User(
            email=f"packs-{secrets.token_hex(4)}@example.com",
            display_name="Uploader",
            password_hash="x",
        )
        s.add(user)
        s.flush()
        for n in range(packs.MAX_PACKS_PER_USER - 1):
            packs.upload(s, user.id, _pack(n))
        s.commit()
        user_id = user.id
    try:
        yield user_id
    finally:
        with Session(engine) as s:
            s.query(MissionPack).filter(MissionPack.owner_id == user_id).delete()
            s.query(User).filter(User.id == user_id).delete()
            s.commit()


def _count(engine: Engine, owner_id: int) -> int:
    with Session(engine) as s:
        return (
            s.scalar(
                select(func.count())
                .select_from(MissionPack)
                .where(MissionPack.owner_id == owner_id)
            )
            or 0
        )


def test_simultaneous_uploads_never_pass_the_cap(engine: Engine, owner_with_15_packs: int) -> None:
    owner = owner_with_15_packs
    writers = 4
    barrier = threading.Barrier(writers)
    outcomes: list[str] = []
    lock = threading.Lock()
    # a request that writes: BEGIN IMMEDIATE on SQLite (app.core.db), nothing on Postgres
    writing = engine.execution_options(**{WRITE: True})

    def write(n: int) -> None:
        data = _pack(100 + n)
        barrier.wait(5)
        with Session(writing) as s:
            try:
                _row, new = packs.upload(s, owner, data)
                s.commit()
                outcome = "new" if new else "replaced"
            except packs.PackRefused as exc:
                s.rollback()
                outcome = "refused: " + exc.errors[0]["message"]
            except Exception as exc:  # recorded: the test names it
                s.rollback()
                outcome = f"error: {type(exc).__name__}: {exc}"
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == [
        "new",
        *["refused: at most 16 packs each: delete one first"] * (writers - 1),
    ]
    assert _count(engine, owner) == packs.MAX_PACKS_PER_USER
