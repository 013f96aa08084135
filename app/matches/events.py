"""Live updates: server-sent events of each player's own log entries, fanned out to devices.

**The hub.** A committed write calls :meth:`Hub.publish` (match id, version) once its
transaction has committed. Publishing only *wakes* the streams of that match: a woken stream
reads the match again from the database, through the per-process snapshot cache
(``app.matches.reads``), and sends what is new for its viewer: the streams of one match woken
together share one read and one replay (:meth:`Hub.fetch`), and each sends only the entries
after the last version it sent. A duplicate or a lost wake-up costs at most a read (streams
also re-read every :data:`KEEPALIVE` seconds, from the database itself, whatever this process
wrote, announced or heard: a lost notification delays a version by a keep-alive at most).

**Notes.** A write's NOTIFY also carries its *public* side (:func:`note_payload`): the entries
a spectator may see (those with no audience, the same ``visible_to(e, None)`` as a read) and
the state a spectator is sent with the version, while the payload stays under Postgres' limit.
The hub keeps the last :data:`NOTES_KEPT` notes of each watched match as an unbroken chain of
versions, so that a spectator's stream (:mod:`app.matches.spectate`) sends a new version with
no database read and no trip to the thread pool (issue 21); a gap in the chain (a payload too
big, a lost connection), a wake-up that names no version (a revoked link, a cancelled match)
or a stream that fell behind the chain reads the match as before. A notification never carries
a secret entry, so it can never leak one; a wake-up that names no version moves the match's
*epoch* (:meth:`Hub.epoch`), so that a stream which took notes since its last read checks its
link again by reading.

- One process (SQLite, or one worker): the hub wakes the asyncio waiters of the process
  directly (``call_soon_threadsafe``: writes run in the thread pool, streams on the loop).
- Several workers on Postgres: the write also runs ``pg_notify('auspex_matches', 'id:version')``
  inside its transaction, so the notification is delivered only if and when the write commits;
  each worker holds one ``LISTEN auspex_matches`` connection (psycopg 3, async) while it has
  streams open, and wakes its own waiters from it.

**The stream.** :func:`stream` yields the SSE text of one viewer: ``entry`` events (one per
log envelope the viewer may see, ``id`` = its sequence number) followed by a ``version`` event
(``id`` = the match version), so ``Last-Event-ID`` is always the version the client has seen
everything up to. It never holds a database session while it waits: each read opens and closes
a short session in the thread pool.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import anyio
import orjson
from fastapi import FastAPI
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as SQLAlchemyTimeoutError

from app.core import fastjson

log = logging.getLogger("auspex.matches")

F = TypeVar("F")

CHANNEL = "auspex_matches"  # app.matches.service.NOTIFY_CHANNEL notifies it
KEEPALIVE = 15.0  # seconds between keep-alive comments (and database re-checks)
RETRY_MS = 3000  # the reconnection delay a browser's EventSource uses
BUSY_RETRY_MS = 5000  # the delay asked for when a read failed on a saturated database
MAX_STREAM_SECONDS = 600.0
NOTE_MAX = 7999  # bytes: Postgres refuses a NOTIFY payload of 8000 bytes or more
NOTES_KEPT = 8  # notes held per watched match: a stream this many versions behind still catches up
NOTE_TEXTS = 16  # renderings memoised per note (one per ``since`` asked for)


@dataclass(frozen=True, slots=True)
class Note:
    """The public side of one write, as its notification told it: the match went from version
    ``prev`` to ``version``, ``entries`` are the new entries a spectator may see (JSON, in
    order), ``state`` what a spectator is sent with the version (:func:`spectator_state`)."""

    prev: int
    version: int
    entries: tuple[dict[str, Any], ...]
    state: dict[str, Any]
    # renderings of the chain ending with this note, by the ``since`` they start after
    texts: dict[int, str] = field(default_factory=dict, compare=False, repr=False)

    @property
    def announce(self) -> str:
        """The ``version`` event of this note's version (rendered once)."""
        found = self.texts.get(-1)
        if found is None:
            found = self.texts[-1] = announce(self.version, self.state)
        return found


def announce(version: int, state: dict[str, Any]) -> str:
    """The ``version`` event a stream sends after the entries of ``version``."""
    return sse("version", {"version": version, **state}, id=version)


def spectator_state(
    status: str, round_: int, vp_a: int, vp_b: int, winner: str | None, headline: dict[str, Any]
) -> dict[str, Any]:
    """What a spectator's stream sends with each version: the row's shown fields and the
    rule system's headline (public: the players' streams send it too)."""
    return {
        "status": str(status),
        "round": round_,
        "vp": {"A": vp_a, "B": vp_b},
        "winner": winner,
        **headline,
    }


def note_payload(
    match_id: int,
    version: int,
    prev: int,
    entries: list[dict[str, Any]],
    state: dict[str, Any],
) -> str:
    """The NOTIFY payload of a write: ``id:version:prev:{"entries": [...], "state": {...}}``,
    or ``id:version`` alone when that would reach :data:`NOTE_MAX` bytes (the streams then read
    the match). ``entries`` must be the public entries only (no audience).

    Written by orjson itself, not :func:`app.core.fastjson.dumps`: an integer beyond 64 bits
    (a client's number copied into an event), which that writes through the standard library,
    would come back from :func:`parse_note`'s ``orjson.loads`` as a float, while a read serves
    it exactly; such a note is the head alone, so that its spectators read the match."""
    head = f"{match_id}:{version}"
    try:
        body = orjson.dumps({"entries": entries, "state": state}, option=orjson.OPT_NON_STR_KEYS)
    except orjson.JSONEncodeError:
        return head
    tail = f":{prev}:".encode()
    if len(head) + len(tail) + len(body) > NOTE_MAX:
        return head
    return head + tail.decode() + body.decode()


def parse_note(
    payload: str, wanted: Callable[[int], bool] | None = None
) -> tuple[int, int | None, Note | None] | None:
    """``(match id, version or None, note or None)`` of a notification (``None``: not ours).
    A payload of another form than :func:`note_payload`'s (``id:0``, an older server's
    ``id:version``) gives no note; a note that does not parse is dropped (the streams read).
    ``wanted(match id)`` false: the note's JSON is not parsed (no stream here keeps it)."""
    parts = payload.split(":", 3)
    if not parts[0].isdigit():
        return None
    match_id = int(parts[0])
    version = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
    if version is None or len(parts) != 4 or not parts[2].isdigit():
        return match_id, version, None
    if wanted is not None and not wanted(match_id):
        return match_id, version, None
    try:
        data = orjson.loads(parts[3])
        entries = data["entries"]
        state = data["state"]
        prev = int(parts[2])
        if (
            not isinstance(entries, list)
            or not isinstance(state, dict)
            or not prev < version
            or not all(
                isinstance(e, dict) and type(e.get("seq")) is int and e.get("audience") is None
                for e in entries
            )
        ):
            return match_id, version, None
    except (orjson.JSONDecodeError, KeyError, TypeError):
        return match_id, version, None
    return match_id, version, Note(prev, version, tuple(entries), state)


@dataclass(frozen=True, slots=True)
class _Waiter:
    loop: asyncio.AbstractEventLoop
    event: asyncio.Event


@dataclass(slots=True)
class _Flight:
    """One shared read of a match: joinable until it starts reading."""

    future: asyncio.Future[Any]
    started: bool = False
    task: asyncio.Task[None] | None = None  # the read (held so that it is not collected)


@dataclass(frozen=True, slots=True)
class Shared(Generic[F]):
    """A stream's read split in two: ``fetch()`` reads what every viewer of the match needs
    (one database read, in the thread pool, shared by all the streams of the match that asked
    for it before it started), ``present(fetched, since)`` makes one viewer's :class:`Update`
    of it (on the event loop: cheap, no I/O)."""

    fetch: Callable[[], F]
    present: Callable[[F, int], Update]
    # Which reads may be shared: the streams of one match share a fetch only with streams of
    # the same kind (the players' streams and the spectators' read different columns).
    kind: str = ""
    # What ``fetch()`` would answer when this process already holds it (e.g. the version it
    # just wrote), found on the event loop with no I/O; ``None``: ask ``fetch()``. It saves the
    # trip to the thread pool, which is a good part of a stream read's cost (issue 21).
    at_hand: Callable[[], F | None] | None = None
    # One viewer's :class:`Update` after ``since`` when it can be made with no I/O at all (from
    # the hub's notes, or this process's own write), else ``None``: then ``at_hand``/``fetch``.
    cached: Callable[[int], Update | None] | None = None
    # The database read itself, never what this process holds (``None``: ``fetch`` is one
    # already). A keep-alive's turn reads through it: ``at_hand`` and a ``fetch`` that tries it
    # trust the last version announced here, which a lost notification leaves behind the match
    # (another worker killed between its commit and its NOTIFY, a dropped batch), so a stream
    # that trusted them on every turn would stay at that version for good.
    fresh: Callable[[], F] | None = None


class Hub:
    """Wakes the streams of a match when its version moves (see the module docstring)."""

    def __init__(self, database_url: str | None = None, *, reads: int = 2) -> None:
        self._lock = threading.Lock()
        self._reads = reads
        self._read_slots: dict[asyncio.AbstractEventLoop, asyncio.Semaphore] = {}
        self._flights: dict[tuple[asyncio.AbstractEventLoop, int, str], _Flight] = {}
        self._announced: dict[int, int] = {}  # match id -> the latest version woken for
        self.fetches = 0  # shared reads run (for tests and benchmarks)
        self._waiters: dict[int, set[_Waiter]] = {}
        self._notes: dict[int, list[Note]] = {}  # match id -> its last notes, an unbroken chain
        self._epochs: dict[int, int] = {}  # match id -> its epoch (see epoch())
        self._epoch_seq = 0
        self._pg_url = _listen_url(database_url)
        self._listeners: dict[asyncio.AbstractEventLoop, tuple[asyncio.Task[None], int]] = {}
        self.listening = False  # True while a LISTEN connection is up (for tests and health)
        self.notifications = 0  # notifications received through LISTEN

    # -- publishing (any thread) --------------------------------------------------------------

    def publish(self, match_id: int, version: int) -> None:
        """Wake the local streams of ``match_id`` (call after the write committed). Version 0
        says that something else than the log changed (the match was cancelled, its spectator
        link revoked): it always wakes them."""
        self._wake(match_id, version)

    def _wake(self, match_id: int, version: int | None = None) -> None:
        if version is not None and version <= 0:
            version = None  # not a version of the log: wake the streams whatever they saw
        with self._lock:
            waiters = list(self._waiters.get(match_id, ()))
            if not waiters:
                # nobody to wake here: forget what was announced, so that the next stream's
                # first read cannot take an older version for the latest (see announced())
                self._forget(match_id)
                return
            if version is not None:
                # On Postgres the writer's process hears of its write twice (its own publish,
                # then the NOTIFY): a version already announced has already woken these
                # streams, and a stream subscribed since then read it when it started.
                if self._announced.get(match_id, 0) >= version:
                    return
                self._announced[match_id] = version
            else:  # not a new version: whatever a read assumed of the latest one is unsure
                self._announced.pop(match_id, None)
                self._notes.pop(match_id, None)
                self._epoch_seq += 1
                self._epochs[match_id] = self._epoch_seq
        by_loop: dict[asyncio.AbstractEventLoop, list[asyncio.Event]] = {}
        for w in waiters:
            by_loop.setdefault(w.loop, []).append(w.event)
        for loop, woken in by_loop.items():
            # one callback per loop sets them all in the same iteration, so that their reads
            # find each other (Hub.fetch) instead of trickling in one by one
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(_set_all, woken)

    def _forget(self, match_id: int) -> None:
        """Drop what the hub held for a match nobody here watches (under ``_lock``)."""
        self._announced.pop(match_id, None)
        self._notes.pop(match_id, None)
        self._epochs.pop(match_id, None)

    def heard(self, payload: str) -> None:
        """A notification's payload (the LISTEN connection's, or a test's): keep its note for
        the match's streams, then wake them."""
        parsed = parse_note(payload, self._watched)
        if parsed is None:
            return
        match_id, version, note = parsed
        if version is not None and version > 0:
            self._keep(match_id, version, note)
        self._wake(match_id, version)

    def _watched(self, match_id: int) -> bool:
        """Whether a stream of this process waits on ``match_id`` (only its notes are kept)."""
        with self._lock:
            return match_id in self._waiters

    def _keep(self, match_id: int, version: int, note: Note | None) -> None:
        with self._lock:
            if match_id not in self._waiters:
                return
            chain = self._notes.get(match_id)
            if chain and version <= chain[-1].version:
                return  # heard already (or older): the chain stands
            if note is None:  # a payload too big: the chain breaks here
                self._notes.pop(match_id, None)
                return
            if not chain or chain[-1].version != note.prev:  # a gap: it starts again here
                chain = self._notes[match_id] = []
            chain.append(note)
            del chain[:-NOTES_KEPT]

    def notes(self, match_id: int) -> tuple[Note, ...]:
        """The last notes heard for ``match_id``, oldest first, each going on from the one
        before (``prev`` = the previous one's ``version``)."""
        with self._lock:
            return tuple(self._notes.get(match_id, ()))

    def epoch(self, match_id: int) -> int:
        """A number that changes whenever the streams of ``match_id`` are woken for anything
        but a new version (a revoked link, a cancelled match, the LISTEN connection back): a
        stream that checked its viewer's access at one epoch may go on from notes while the
        epoch stays, and reads the match again once it moves."""
        with self._lock:
            return self._epochs.get(match_id, 0)

    def announced(self, match_id: int) -> int | None:
        """The latest version that woke the streams of ``match_id`` in this process, if the
        last wake-up this process heard of for it named it (``None`` after a wake-up that named
        no version, e.g. the LISTEN connection coming back, or one with no stream to wake): a
        stream read may then take that version for the match's latest, since any later one
        wakes its streams again."""
        with self._lock:
            return self._announced.get(match_id)

    def _wake_all(self) -> None:
        with self._lock:
            ids = list(self._waiters)
        for match_id in ids:
            self._wake(match_id)

    # -- subscribing (on the event loop) ------------------------------------------------------

    @contextlib.asynccontextmanager
    async def subscribe(self, match_id: int) -> AsyncIterator[asyncio.Event]:
        loop = asyncio.get_running_loop()
        waiter = _Waiter(loop, asyncio.Event())
        with self._lock:
            self._waiters.setdefault(match_id, set()).add(waiter)
        self._listener_acquire(loop)
        try:
            yield waiter.event
        finally:
            with self._lock:
                bucket = self._waiters.get(match_id)
                if bucket is not None:
                    bucket.discard(waiter)
                    if not bucket:
                        del self._waiters[match_id]
                        self._forget(match_id)
            self._listener_release(loop)

    async def read(self, read: Callable[[int], Update], since: int) -> Update:
        """Run a stream's ``read(since)`` in the thread pool, at most ``reads`` at once per
        process (``W40K_STREAM_READS``): when a write wakes many streams, their reads queue
        here, on the event loop, holding neither a thread nor a pool connection (ADR 0009)."""
        async with self._slots(asyncio.get_running_loop()):
            return await anyio.to_thread.run_sync(read, since)

    async def fetch(self, match_id: int, fetch: Callable[[], F], kind: str = "") -> F:
        """``fetch()`` in the thread pool, shared: every caller for ``match_id`` that arrives
        before the pending read has *started* gets its result, so the N streams woken by one
        write cost one read (a caller arriving once it has started waits for the next one, which
        therefore sees every write committed before the caller asked). Only callers of the
        same ``kind`` share a read (they expect the same result type). Bounded like
        :meth:`read`; a failed read fails each of its callers."""
        loop = asyncio.get_running_loop()
        key = (loop, match_id, kind)
        with self._lock:
            flight = self._flights.get(key)
            if flight is None or flight.started:
                flight = self._flights[key] = _Flight(loop.create_future())
                flight.future.add_done_callback(_retrieved)
                flight.task = loop.create_task(self._fly(key, flight, fetch))
        result: F = await asyncio.shield(flight.future)
        return result

    async def _fly(
        self,
        key: tuple[asyncio.AbstractEventLoop, int, str],
        flight: _Flight,
        fetch: Callable[[], F],
    ) -> None:
        try:
            await asyncio.sleep(0)  # the streams woken with the first one join it first
            async with self._slots(key[0]):
                with self._lock:
                    flight.started = True
                    if self._flights.get(key) is flight:
                        del self._flights[key]
                self.fetches += 1
                result = await anyio.to_thread.run_sync(fetch)
        except BaseException as exc:
            with self._lock:
                if self._flights.get(key) is flight:
                    del self._flights[key]
            if not flight.future.done():
                flight.future.set_exception(
                    exc if isinstance(exc, Exception) else RuntimeError("read cancelled")
                )
            if not isinstance(exc, Exception):
                raise
        else:
            if not flight.future.done():
                flight.future.set_result(result)

    def _slots(self, loop: asyncio.AbstractEventLoop) -> asyncio.Semaphore:
        with self._lock:
            slots = self._read_slots.get(loop)
            if slots is None:
                slots = self._read_slots[loop] = asyncio.Semaphore(self._reads)
        return slots

    def subscribers(self, match_id: int) -> int:
        with self._lock:
            return len(self._waiters.get(match_id, ()))

    # -- the Postgres listener (one per event loop, while streams are open) --------------------

    def _listener_acquire(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._pg_url is None:
            return
        with self._lock:
            task, count = self._listeners.get(loop, (None, 0))
            if task is None or task.done():
                task = loop.create_task(self._listen(self._pg_url))
            self._listeners[loop] = (task, count + 1)

    def _listener_release(self, loop: asyncio.AbstractEventLoop) -> None:
        if self._pg_url is None:
            return
        with self._lock:
            task, count = self._listeners.get(loop, (None, 0))
            if task is None:
                return
            if count <= 1:
                del self._listeners[loop]
                task.cancel()
            else:
                self._listeners[loop] = (task, count - 1)

    async def _listen(self, url: str) -> None:
        import psycopg

        backoff = 0.25
        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
                try:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.listening = True
                    backoff = 0.25
                    self._wake_all()  # anything committed while we were not listening
                    async for note in conn.notifies():
                        self.notifications += 1
                        self.heard(note.payload)
                finally:
                    self.listening = False
                    with contextlib.suppress(Exception):
                        await conn.close()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("match notifications: LISTEN connection lost (%s); retrying", exc)
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 10.0)


def _set_all(woken: list[asyncio.Event]) -> None:
    for event in woken:
        event.set()


def _retrieved(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()  # a failure is handled by its callers, or by nobody if they left


def _listen_url(database_url: str | None) -> str | None:
    if not database_url:
        return None
    url = make_url(database_url)
    if url.get_backend_name() != "postgresql":
        return None
    return url.set(drivername="postgresql").render_as_string(hide_password=False)


_hub_lock = threading.Lock()


def hub_for(app: FastAPI) -> Hub:
    """The application's hub (created on first use)."""
    hub: Hub | None = getattr(app.state, "match_hub", None)
    if hub is None:
        with _hub_lock:
            hub = getattr(app.state, "match_hub", None)
            if hub is None:
                settings = app.state.settings
                hub = Hub(settings.database_url, reads=settings.stream_reads)
                app.state.match_hub = hub
    return hub


# -- the SSE stream ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Update:
    """What a read found: the match version and the viewer's entries after ``since``."""

    version: int
    entries: list[dict[str, Any]]
    state: dict[str, Any]
    gone: bool = False  # the match no longer exists for this viewer
    # The entries' SSE text, already rendered and shared by every viewer of the version (the
    # spectators); when set, ``entries`` is not rendered again.
    rendered: str = ""
    # The ``version`` event of ``version`` with ``state``, rendered once for every viewer of
    # the version (the spectators); ``""``: rendered by each stream.
    announce: str = ""


def sse(event: str, data: object, id: int | None = None) -> str:
    body = fastjson.dumps_text(data)
    head = f"id: {id}\n" if id is not None else ""
    return f"{head}event: {event}\ndata: {body}\n\n"


async def stream(
    hub: Hub,
    match_id: int,
    since: int,
    read: Callable[[int], Update] | Shared[Any],
    *,
    timeout: float = 300.0,
    keepalive: float = KEEPALIVE,
) -> AsyncIterator[str]:
    """The SSE text of one viewer's stream of ``match_id`` from version ``since``.

    ``read(since)`` runs in the thread pool with a short database session of its own (through
    :meth:`Hub.read`, which bounds how many run at once); a :class:`Shared` read fetches once
    for all the streams of the match woken together (:meth:`Hub.fetch`) and presents it to
    each viewer. The stream ends after ``timeout``
    seconds (the client reconnects with ``Last-Event-ID``), or with a ``retry:`` asking for a
    later reconnect when the database cannot serve the read.
    """
    deadline = time.monotonic() + max(0.0, min(timeout, MAX_STREAM_SECONDS))
    yield f"retry: {RETRY_MS}\n\n"
    first = True
    recheck = False  # a keep-alive's turn: read the database, whatever notes or memory say
    async with hub.subscribe(match_id) as woken:
        while True:
            woken.clear()
            try:
                if isinstance(read, Shared):
                    cached = None
                    if read.cached is not None and not recheck:
                        cached = read.cached(since)
                    if cached is not None:
                        update = cached
                    elif recheck:  # the database, whatever this process holds or heard
                        fresh = read.fresh or read.fetch
                        kind = read.kind if read.fresh is None else f"{read.kind}:fresh"
                        update = read.present(await hub.fetch(match_id, fresh, kind), since)
                    else:
                        fetched = read.at_hand() if read.at_hand is not None else None
                        if fetched is None:
                            fetched = await hub.fetch(match_id, read.fetch, read.kind)
                        update = read.present(fetched, since)
                else:
                    update = await hub.read(read, since)
            except (SQLAlchemyTimeoutError, OperationalError) as exc:
                # The database is saturated (or away): end the stream with a later reconnect
                # (from ``since``: nothing is lost) instead of breaking it with an error.
                log.warning("match %s stream: read failed (%s); told to retry", match_id, exc)
                yield f"retry: {BUSY_RETRY_MS}\n: busy\n\n"
                return
            if update.gone:
                yield sse("gone", {"match": match_id})
                return
            # one chunk per wake-up (one write to the connection): the entries, the version
            text = update.rendered or "".join(
                sse("entry", entry, id=int(entry["seq"])) for entry in update.entries
            )
            if update.version > since or first:
                if update.announce and since <= update.version:
                    text += update.announce
                    since = update.version
                else:
                    since = max(since, update.version)
                    text += sse("version", {"version": since, **update.state}, id=since)
            if text:
                yield text
            first = recheck = False
            left = deadline - time.monotonic()
            if left <= 0:
                return
            try:
                # asyncio.timeout, not wait_for: no extra task per idle stream (memory, CPU)
                async with asyncio.timeout(min(keepalive, left)):
                    await woken.wait()
            except TimeoutError:
                if deadline - time.monotonic() <= 0:
                    return
                recheck = True
                yield ": keepalive\n\n"
