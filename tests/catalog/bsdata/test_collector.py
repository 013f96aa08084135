"""An import runs without the cyclic garbage collector (issue 17: its scans of the import's
live trees cost a third of the import), and leaves it as it found it."""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Iterator

import pytest

from app.catalog import bsdata
from app.catalog.bsdata import IssueCode, import_files
from tests.catalog.conftest import fixture_files
from tests.catalog.hostile import element_bomb

WORK = (bsdata._read_all.__code__, bsdata._build.__code__)


@pytest.fixture
def collections() -> Iterator[list[int]]:
    """The generations collected during an import (while it reads or builds: not the one that
    may follow at once when it resumes the collector), the collector made eager (every 100
    allocations) so that an import of the fixtures would meet many."""
    seen: list[int] = []

    def callback(phase: str, info: dict[str, int]) -> None:
        if phase != "start":
            return
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code in WORK:
                seen.append(info["generation"])
                return
            frame = frame.f_back  # type: ignore[assignment]

    thresholds = gc.get_threshold()
    was_enabled = gc.isenabled()
    bsdata._pause_state.update(ended=0.0, length=0.0)  # no earlier pause to ration against
    gc.enable()
    gc.set_threshold(100, 10, 10)
    gc.callbacks.append(callback)
    try:
        yield seen
    finally:
        gc.callbacks.remove(callback)
        gc.set_threshold(*thresholds)
        if not was_enabled:
            gc.disable()


def test_no_collection_during_an_import_and_the_collector_back_after(
    collections: list[int],
) -> None:
    files = fixture_files()
    result = import_files(files)
    assert result.ok
    assert collections == []
    assert gc.isenabled()


def test_the_collector_is_back_after_an_import_stopped_by_a_limit(
    collections: list[int],
) -> None:
    bomb = element_bomb(500_000)
    result = import_files([("bomb.cat", bomb)])
    assert {e.code for e in result.report.errors} == {IssueCode.TOO_LARGE}
    assert collections == []
    assert gc.isenabled()


def test_a_collector_switched_off_stays_off(collections: list[int]) -> None:
    gc.disable()
    assert import_files(fixture_files()).ok
    assert not gc.isenabled()


def test_an_import_overlapping_a_pause_does_not_take_one(collections: list[int]) -> None:
    """One import at a time pauses the collector: another, meanwhile, runs with it on (and
    does not switch it back on under the first, nor off after it)."""
    assert bsdata._pause_lock.acquire(blocking=False)  # another thread's import is pausing
    try:
        assert import_files(fixture_files()).ok
    finally:
        bsdata._pause_lock.release()
    assert collections != []
    assert gc.isenabled()


def test_back_to_back_imports_leave_the_collector_on_a_fifth_of_the_time(
    collections: list[int],
) -> None:
    """A pause starts only once the collector has run a quarter of the last pause's length."""
    bsdata._pause_state.update(ended=time.monotonic(), length=3600.0)
    assert import_files(fixture_files()).ok
    assert collections != []  # this import could not pause: the collector ran during it
    bsdata._pause_state.update(ended=time.monotonic() - 2.0, length=6.0)
    collections.clear()
    assert import_files(fixture_files()).ok
    assert collections == []


def test_an_import_leaves_no_cyclic_garbage() -> None:
    """Everything an import read is freed by reference counting as it ends, before the
    collector resumes (whose first collection would otherwise scan every tree, a tenth of the
    import): no reference cycle holds a tree, a workspace or a builder."""
    files = fixture_files()
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        result = import_files(files)
        assert result.ok
        assert gc.collect() == 0
    finally:
        if was_enabled:
            gc.enable()
