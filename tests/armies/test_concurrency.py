"""Two edits of one list at the same time: both are kept.

The army builder sends each unit's edit as soon as it changes, so a player who types a number
and ticks a box on another unit has two requests in flight. These tests commit for real (not
inside the rolled-back test transaction), on SQLite and on Postgres, through request-scoped
write sessions as the app opens them, and delete what they created.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.armies import service
from app.armies.models import Army
from app.armies.schemas import PenArmyCreate, PenUnitIn
from tests.support.committed import committed_user, write_session


def troops(name: str, points: int) -> PenUnitIn:
    return PenUnitIn.model_validate(
        {"name": name, "points": points, "characteristics": {"toughness": 3, "wounds": 1}}
    )


pytestmark = pytest.mark.xdist_group("committed-armies")


@pytest.fixture
def committed_army(engine: Engine) -> Iterator[tuple[int, int]]:
    """A PEN list of eight units, committed; removed afterwards. (user id, army id)"""
    with committed_user(engine, "Editor") as user_id:  # the army goes with its owner
        with Session(engine) as s:
            user = s.get(User, user_id)
            assert user is not None
            units = [troops(f"Unit {i}", 10) for i in range(8)]
            v = service.create(s, user, PenArmyCreate(rule_system="pen", name="Race", units=units))
            s.commit()
            army_id = v.army.id
        yield user_id, army_id


def _rename(
    engine: Engine, ids: tuple[int, int], index: int, saved: threading.Event | None = None
) -> int:
    user_id, army_id = ids
    with write_session(engine) as s:
        user = s.get(User, user_id)
        assert user is not None
        v = service.save_pen_unit(s, user, army_id, index, troops(f"Edited {index}", 20))
        if saved is not None:
            saved.set()
            time.sleep(0.3)  # still uncommitted: a concurrent edit must wait for this one
        return v.army.revision


def _stored(engine: Engine, army_id: int) -> Army:
    with Session(engine, expire_on_commit=False) as s:
        army = s.get(Army, army_id)
        assert army is not None
        return army


def test_an_edit_made_while_another_is_uncommitted_keeps_both(
    engine: Engine, committed_army: tuple[int, int]
) -> None:
    first_done: list[int] = []
    saved = threading.Event()

    def first() -> None:
        first_done.append(_rename(engine, committed_army, 0, saved))

    thread = threading.Thread(target=first)
    thread.start()
    assert saved.wait(10)  # the first edit is applied and holds its transaction open
    second = _rename(engine, committed_army, 1)
    thread.join(10)

    army = _stored(engine, committed_army[1])
    names = [u["name"] for u in army.units]
    assert names[:2] == ["Edited 0", "Edited 1"]  # the second did not overwrite the first
    assert first_done == [2]
    assert second == 3
    assert army.revision == 3


def test_many_concurrent_edits_of_one_list_all_land(
    engine: Engine, committed_army: tuple[int, int]
) -> None:
    writers = 8
    barrier = threading.Barrier(writers)
    revisions: list[int] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def edit(index: int) -> None:
        try:
            barrier.wait(5)
            revision = _rename(engine, committed_army, index)
            with lock:
                revisions.append(revision)
        except BaseException as exc:  # reported below, with the others
            with lock:
                errors.append(exc)

    threads = [threading.Thread(target=edit, args=(i,)) for i in range(writers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)

    assert errors == []
    army = _stored(engine, committed_army[1])
    assert [u["name"] for u in army.units] == [f"Edited {i}" for i in range(writers)]
    assert sorted(revisions) == list(range(2, writers + 2))  # one revision per edit, in turn
    assert army.revision == writers + 1
