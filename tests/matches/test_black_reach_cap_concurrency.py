"""The cap of open content-set matches (``content.MAX_OPEN``, 20 per user) holds under
simultaneous creations: real, committed transactions through write sessions as the app opens
them, on SQLite and on Postgres (``scripts/with_postgres.py``), as for the mission packs'
cap (test_packs_concurrency.py). Without the lock on the creator's row, every creation on
Postgres counted the same 19 open matches and all of them were kept."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, delete, func, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.blackreach import service as sets
from app.blackreach.models import ContentSet
from app.engine.black_reach import SYSTEM_ID
from app.matches import service
from app.matches.models import Match, OpponentKind
from app.matches.systems.black_reach import content
from tests.support.committed import committed_user, write_session

pytestmark = pytest.mark.xdist_group("committed-black-reach-cap")

WRITERS = 4


def _create(s: Session, user_id: int, mission_id: str) -> Match:
    user = s.get(User, user_id)
    assert user is not None
    return service.create(
        s,
        user,
        army_id=None,
        mission_id=mission_id,
        battle_size=content.SIZE,
        opponent=OpponentKind.USER,
        ruleset=SYSTEM_ID,
    )


@pytest.fixture
def one_short_of_the_cap(engine: Engine) -> Iterator[tuple[int, str]]:
    """(user id, mission id): a committed user with a content set and 19 open matches on it;
    everything removed afterwards."""
    with committed_user(engine, "Creator") as user_id:
        try:
            with Session(engine) as s:
                user = s.get(User, user_id)
                assert user is not None
                sets.copy_sample(s, user, "Raids")
                s.flush()
                (mission_id,) = content.owned_missions(s, user_id)
                for _ in range(content.MAX_OPEN - 1):
                    _create(s, user_id, mission_id)
                s.commit()
            yield user_id, mission_id
        finally:
            with Session(engine) as s:
                s.execute(delete(Match).where(Match.created_by_id == user_id))
                s.execute(delete(ContentSet).where(ContentSet.owner_id == user_id))
                s.commit()


def _open(engine: Engine, user_id: int) -> int:
    with Session(engine) as s:
        return int(
            s.scalar(select(func.count(Match.id)).where(Match.created_by_id == user_id)) or 0
        )


def test_simultaneous_creations_never_pass_the_cap(
    engine: Engine, one_short_of_the_cap: tuple[int, str]
) -> None:
    user_id, mission_id = one_short_of_the_cap
    assert _open(engine, user_id) == content.MAX_OPEN - 1
    barrier = threading.Barrier(WRITERS)
    outcomes: list[str] = []
    lock = threading.Lock()

    def write() -> None:
        barrier.wait(5)
        try:
            with write_session(engine) as s:
                _create(s, user_id, mission_id)
            outcome = "new"
        except Exception as exc:  # recorded: the test names it
            errors = getattr(exc, "errors", None) or [{}]
            outcome = f"{type(exc).__name__}: {errors[0].get('message', exc)}"
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=write) for _ in range(WRITERS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == [
        *["InvalidInput: at most 20 open content-set matches"] * (WRITERS - 1),
        "new",
    ]
    assert _open(engine, user_id) == content.MAX_OPEN
