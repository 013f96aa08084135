"""Two saves of one set made on the same version at the same time: the first is kept, the
second is refused as stale (409) instead of erasing it. Committed for real (not inside the
rolled-back test transaction), on SQLite and on Postgres, through write sessions as the app
opens them; what was created is removed with its owner."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.blackreach import service
from app.blackreach.exceptions import StaleContent
from app.blackreach.models import ContentSet
from app.blackreach.schemas import ContentCreate, ContentUpdate
from tests.support.committed import committed_user, write_session

pytestmark = pytest.mark.xdist_group("committed-blackreach")


@pytest.fixture
def committed_set(engine: Engine) -> Iterator[tuple[int, int]]:
    """(user id, set id) of a committed set, removed afterwards with its owner."""
    with committed_user(engine, "Editor") as user_id:
        with Session(engine) as s:
            user = s.get(User, user_id)
            assert user is not None
            row = service.create(s, user, ContentCreate(name="Race"))
            s.commit()
            set_id = row.id
        yield user_id, set_id


def _rename(
    engine: Engine, ids: tuple[int, int], name: str, saved: threading.Event | None = None
) -> None:
    user_id, set_id = ids
    with write_session(engine) as s:
        user = s.get(User, user_id)
        assert user is not None
        service.update(s, user, set_id, ContentUpdate(version=1, name=name))
        if saved is not None:
            saved.set()
            time.sleep(0.3)  # still uncommitted: the other save must wait for this one


def test_a_save_on_the_same_version_while_another_is_uncommitted_is_stale(
    engine: Engine, committed_set: tuple[int, int]
) -> None:
    saved = threading.Event()
    thread = threading.Thread(target=_rename, args=(engine, committed_set, "First", saved))
    thread.start()
    assert saved.wait(5)
    with pytest.raises(StaleContent):
        _rename(engine, committed_set, "Second")
    thread.join()
    with Session(engine) as s:
        row = s.get(ContentSet, committed_set[1])
        assert row is not None
        assert (row.name, row.version) == ("First", 2)
