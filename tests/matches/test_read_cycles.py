"""The soak's memory (issue 21): what the read path keeps for a match version is freed by
reference counting once nothing holds it, never left to the cyclic collector. The workers run
that collector's older generations rarely (``app.core.runtime.GC_THRESHOLDS``: a generation 1
collection every few minutes under load, a full one hardly ever), so a snapshot caught in a
reference cycle stayed in memory, its battle and renderings with it, long after the cache had
dropped it: the workers grew ~2-3 MB a minute at 50 tables for as long as the soak ran."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from sqlalchemy import Engine

from app.matches import events, reads
from tests.matches.conftest import Game, setup_battle
from tests.matches.streams import collect, last_version, until
from tests.matches.test_reads import _readers


@pytest.fixture
def no_collector() -> Iterator[None]:
    """The cyclic collector off (what it would free is what the test looks for), garbage
    from before the test collected first."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _cyclic_snapshots() -> list[str]:
    """The snapshots (and the battles) that only the cyclic collector would free now."""
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        gc.collect()
        found = [
            type(o).__qualname__
            for o in gc.garbage
            if isinstance(o, reads.Snapshot) or type(o).__qualname__ == "Battle"
        ]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
    gc.collect()
    return found


def test_snapshots_a_stream_was_woken_for_are_freed_without_the_collector(
    new_game: Callable[..., Game], app: FastAPI, engine: Engine, no_collector: None
) -> None:
    """Streams woken by a write of their own process take its snapshot at hand (and memoise
    what they send on it); once newer versions replace it and the cache is emptied, nothing of
    it waits for the cyclic collector."""
    g = new_game(check=False)  # the streams read in other threads
    setup_battle(g)
    start = g.a.get()["version"]
    hub = events.hub_for(app)
    readers = _readers(app, g, "AB")

    async def scenario() -> None:
        got: list[list[dict[str, Any]]] = [[] for _ in readers]
        tasks = [
            asyncio.create_task(collect(events.stream(hub, g.match_id, start, r, timeout=20), o))
            for r, o in zip(readers, got, strict=True)
        ]
        try:
            await until(lambda: all(last_version(o) == start for o in got))
            if engine.dialect.name == "postgresql":
                await until(lambda: hub.listening)
                await asyncio.sleep(0.3)
            fetches = hub.fetches
            for _ in range(3):  # three versions, each woken for on the writer's snapshot
                version = g.a.version
                await asyncio.to_thread(g.a.send, {"type": "end_phase"}, version=version)
                await until(lambda: all(last_version(o) == g.a.version for o in got))
            assert hub.fetches == fetches  # taken at hand: the path that memoised a cycle
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(scenario())
    reads.cache.clear()
    assert _cyclic_snapshots() == []
