"""The cached read path of a match: one replay per (match, version) per process (issue 21).

A match's state is the replay of its log (ADR 0004). Tournament night reads a match far more
often than it writes it: after each write the other phone refreshes it and both phones' streams
re-read it, on either worker. So each process keeps a bounded LRU of :class:`Snapshot` — one
match at one version: its battle and what was rendered from it (a seat's ``GET`` body, ...) —
and:

- a read of a version this process holds replays nothing and renders nothing again;
- a read of a newer version loads and decodes only the rows after the version it holds (the
  log is append-only: an undo appends an event) and evolves a fork of the battle it holds
  with them, never the whole log again (a log that does not go on from the battle held is
  replayed whole); once, under a per-match lock, so that the refresh and the N stream
  wake-ups that arrive together for one version share one catch-up instead of racing to
  each make their own;
- a write caches its own result (the fork it executed on) once it has committed, so the
  writer's process never replays its own write.

The battle is the match's rule system's :class:`~app.engine.match.game.MatchGame` (ADR 0013),
replayed and decoded with what :mod:`app.matches.systems` gives for ``matches.rule_system``.

Nothing here decides what a seat may see: every rendering goes through ``game.view(seat)``
and ``visible_to`` as before; the cache is keyed by seat wherever a seat is involved.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from sqlalchemy import Executable, bindparam, select
from sqlalchemy.exc import MultipleResultsFound
from sqlalchemy.orm import Session

from app.core.db import DriverStatement
from app.engine.match import CodecError, Envelope, LogError, TaggedCodec, visible_to
from app.engine.match import Match as MatchLog
from app.engine.match.game import MatchGame
from app.matches import systems
from app.matches.models import MatchEvent

T = TypeVar("T")

CACHE_SIZE = 256  # matches per process (a club night has ~100 tables)
# Of which at most this many ended battles (their result shown, rarely read again): a night's
# finished games are not kept until 256 of them fill the cache; a read of one evicted replays
# it once. Measured (the soak, issue 21): each finished match held some 50 KB of heap in each
# worker, so the workers' memory grew for as long as games ended, ~2.6 MB a minute at 50 tables.
ENDED_SIZE = 16
_STRIPES = 64
# Renderings memoised per snapshot at most: a version's renderings are a few per seat, per
# language and per spectator link, plus the spectators' SSE texts of the last few versions
# (app.matches.spectate.RECENT); beyond, a rendering is built for its caller and not kept, so
# that no request parameter can grow a snapshot for as long as it is held (issue 21).
RENDERED_MAX = 64


class Snapshot:
    """One match at one version in this process: the replayed battle, and memoised renderings
    (keyed by what they depend on: the seat, always, when the seat changes the result).

    Never mutated once built, except to add renderings: a battle is only ever read here (a
    write executes on a fork)."""

    __slots__ = ("_codec", "_lasting", "_lock", "_rendered", "battle", "version")

    def __init__(
        self, version: int, battle: MatchGame, lasting: dict[Hashable, Any] | None = None
    ) -> None:
        self.version = version
        self.battle: Any = battle  # Any: the pages read the state of the 10th edition
        self._codec: TaggedCodec | None = None
        self._lock = threading.Lock()
        self._rendered: dict[Hashable, Any] = {}
        # renderings that hold for every version of the started match, handed from one
        # snapshot of the match to the next (the armies' summaries)
        self._lasting: dict[Hashable, Any] = {} if lasting is None else lasting

    def rendered(self, key: Hashable, build: Callable[[], T]) -> T:
        """``build()`` once per ``key`` for this version (concurrent callers wait for it).
        Past :data:`RENDERED_MAX` renderings held, a new key is built and not kept."""
        found = self._rendered.get(key, _MISSING)
        if found is not _MISSING:
            return found  # type: ignore[no-any-return]
        if len(self._rendered) >= RENDERED_MAX:
            return build()
        with self._lock:
            found = self._rendered.get(key, _MISSING)
            if found is _MISSING:
                found = build()
                if len(self._rendered) < RENDERED_MAX:
                    self._rendered[key] = found
        return found  # type: ignore[no-any-return]

    def memo(self, key: Hashable, build: Callable[[], T]) -> T:
        """``build()`` for this version, without the lock of :meth:`rendered`: for what is
        cheap to build and is asked for on the event loop, which must never wait for a
        thread's rendering (a race builds the same value twice). Bounded as :meth:`rendered`."""
        found = self._rendered.get(key, _MISSING)
        if found is _MISSING:
            found = build()
            if len(self._rendered) < RENDERED_MAX:
                self._rendered[key] = found
        return found  # type: ignore[no-any-return]

    @property
    def renderings(self) -> int:
        """How many renderings this snapshot holds (at most :data:`RENDERED_MAX`)."""
        return len(self._rendered)

    def lasting(self, key: Hashable, build: Callable[[], T]) -> T:
        """``build()`` once per ``key`` for the match, whatever its version: only for what
        cannot change once the battle has started (e.g. the armies, fixed by the join)."""
        found = self._lasting.get(key, _MISSING)
        if found is _MISSING:
            found = self._lasting[key] = build()  # a race builds the same value twice
        return found  # type: ignore[no-any-return]

    def entries(self, seat: str | None, since: int) -> list[dict[str, Any]]:
        """The seat's log entries after version ``since`` (``None``: a spectator's, the public
        entries only): only the envelopes after it are looked at (``envelopes[i].seq == i + 1``)."""
        tail = self.battle.envelopes[max(0, since) :]
        codec = self.codec
        return [e.to_json(codec) for e in tail if visible_to(e, seat)]

    @property
    def codec(self) -> TaggedCodec:
        """The event codec of the battle's rule system."""
        if self._codec is None:
            self._codec = codec_of(self.battle)
        return self._codec


def codec_of(battle: MatchGame) -> TaggedCodec:
    """The event codec of the system whose game ``battle`` is."""
    for entry in systems.systems().values():
        if isinstance(battle, entry.game):
            return entry.event_codec
    raise LookupError(f"no match system plays {type(battle).__name__}")


_MISSING = object()


@dataclass(frozen=True, slots=True)
class WrittenRow:
    """What a stream's read needs of a match row (``api._STREAM_ROW``'s columns), as a write
    in this process committed it at ``version``."""

    id: int
    secret: str
    rule_system: str
    version: int
    status: str
    round: int
    player_a_id: int | None
    player_b_id: int | None
    guest_digest: str | None
    # the spectator link's digest as the write read it: a spectator's stream sends the version
    # from here only to the link it names (app.matches.spectate)
    spectate_digest: str | None


class WrittenRows:
    """match id -> the :class:`WrittenRow` of the last write this process committed to it
    (bounded like the cache). A stream woken by that write takes the row from here instead
    of reading it again (issue 21: the writer's process knows what it just wrote)."""

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self.size = size
        self._rows: OrderedDict[int, WrittenRow] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, row: WrittenRow) -> None:
        with self._lock:
            current = self._rows.get(row.id)
            if current is not None and current.version > row.version:
                return
            self._rows[row.id] = row
            self._rows.move_to_end(row.id)
            while len(self._rows) > self.size:
                self._rows.popitem(last=False)

    def at(self, match_id: int, version: int | None) -> WrittenRow | None:
        """The row written at exactly ``version`` (``None``: not known here)."""
        if version is None:
            return None
        with self._lock:
            found = self._rows.get(match_id)
        return found if found is not None and found.version == version else None

    def forget(self, match_id: int) -> None:
        with self._lock:
            self._rows.pop(match_id, None)

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()


class ReadCache:
    """A thread-safe LRU of snapshots: (match id, match secret) -> the latest :class:`Snapshot`
    this process holds. The secret is in the key so that a match id reused after a rolled-back
    transaction never finds another match's battle.

    ``replays`` counts the battles built from rows for a version (one per version and process),
    ``extends`` those of them caught up from the version held with only the new rows (the
    others replayed the whole log), ``loaded`` the events decoded from rows (for tests and
    benchmarks)."""

    def __init__(self, size: int = CACHE_SIZE, ended_size: int = ENDED_SIZE) -> None:
        self.size = size
        self.ended_size = ended_size
        self._items: OrderedDict[tuple[int, str], Snapshot] = OrderedDict()
        self._ended: OrderedDict[tuple[int, str], None] = OrderedDict()  # oldest end first
        self._lock = threading.Lock()
        self._stripes = [threading.Lock() for _ in range(_STRIPES)]
        self.hits = 0
        self.misses = 0
        self.replays = 0
        self.extends = 0  # battles caught up with only their new rows
        self.loaded = 0  # events decoded from rows
        self.written = WrittenRows(size)  # the rows of this process's last writes

    def get(self, key: tuple[int, str], version: int) -> Snapshot | None:
        with self._lock:
            found = self._items.get(key)
            if found is None or found.version != version:
                self.misses += 1
                return None
            self._items.move_to_end(key)
            self.hits += 1
            return found

    def nearest(self, key: tuple[int, str]) -> Snapshot | None:
        """The snapshot of this match at whatever version it is (for a catch-up)."""
        with self._lock:
            return self._items.get(key)

    def put(self, key: tuple[int, str], version: int, battle: MatchGame) -> None:
        """Hold ``battle`` as the match's version ``version`` (a write, once committed)."""
        self.hold(key, version, battle)

    def hold(self, key: tuple[int, str], version: int, battle: MatchGame) -> Snapshot:
        """The snapshot of ``battle`` as the match's version ``version``, held unless a newer
        one is (the same version keeps the snapshot already held, and its renderings)."""
        with self._lock:
            current = self._items.get(key)
            lasting = None if current is None else current._lasting
            if current is not None and current.version >= version:
                return current if current.version == version else Snapshot(version, battle, lasting)
            snap = self._items[key] = Snapshot(version, battle, lasting)
            self._items.move_to_end(key)
            if _ended(battle):
                self._ended[key] = None
                self._ended.move_to_end(key)
                while len(self._ended) > self.ended_size:
                    self._items.pop(self._ended.popitem(last=False)[0], None)
            else:  # an undo may take an ended battle back
                self._ended.pop(key, None)
            while len(self._items) > self.size:
                self._ended.pop(self._items.popitem(last=False)[0], None)
            return snap

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)

    def discard(self, key: tuple[int, str]) -> None:
        with self._lock:
            self._items.pop(key, None)
            self._ended.pop(key, None)
        self.written.forget(key[0])

    def clear(self) -> None:
        with self._lock:
            self._items.clear()
            self._ended.clear()
        self.written.clear()

    def count_replay(self) -> None:
        with self._lock:
            self.replays += 1

    def count_extend(self) -> None:
        with self._lock:
            self.extends += 1

    def count_loaded(self, events: int) -> None:
        with self._lock:
            self.loaded += events

    def lock_for(self, key: tuple[int, str]) -> threading.Lock:
        """The lock under which the match's next version is replayed (striped)."""
        return self._stripes[hash(key) % _STRIPES]


def _ended(battle: MatchGame) -> bool:
    return battle.status().stage == "ended"


cache = ReadCache()


# Built once: SQLAlchemy memoises a statement's cache key on the statement object.
_ROWS = (
    select(
        MatchEvent.seq,
        MatchEvent.batch,
        MatchEvent.actor,
        MatchEvent.at,
        MatchEvent.audience,
        MatchEvent.event,
    )
    .where(
        MatchEvent.match_id == bindparam("match_id"),
        MatchEvent.seq > bindparam("after"),
        MatchEvent.seq <= bindparam("upto"),
    )
    .order_by(MatchEvent.seq)
)


def _select(db: Session, statement: Executable, params: dict[str, Any]) -> Sequence[Any]:
    """``statement``'s rows as :func:`core_rows` reads them."""
    return core_rows(db, statement, params).all()


class Rows:
    """The rows of a :func:`core_rows` read (what its callers use of a ``Result``)."""

    __slots__ = ("_rows",)

    def __init__(self, rows: list[Any]) -> None:
        self._rows = rows

    def all(self) -> list[Any]:
        return self._rows

    def one_or_none(self) -> Any:
        if len(self._rows) > 1:
            raise MultipleResultsFound("Multiple rows were found when one or none was required")
        return self._rows[0] if self._rows else None


# The hot statements' driver forms, by statement (module-level statements: a few; an ad-hoc
# statement past the bound runs through SQLAlchemy rather than being kept for ever)
_DRIVER: dict[Executable, DriverStatement] = {}
_DRIVER_MAX = 64


def core_rows(db: Session, statement: Executable, params: dict[str, Any]) -> Rows:
    """``db.execute(statement, params)`` for a select of plain columns, run on the session's
    connection without the ORM's execution (its compile state, its result loading: 290 ->
    170 us of CPU for the refresh's select on Postgres) and, on Postgres, without SQLAlchemy's
    execution either (:class:`app.core.db.DriverStatement`: 100 -> 23 us; issue 21). Rows
    have the columns' values as attributes, as Core rows do. Pending ORM changes are flushed
    first, as ``Session.execute`` would."""
    if db.autoflush:
        db.flush()
    driver = _DRIVER.get(statement)
    if driver is None:
        if len(_DRIVER) >= _DRIVER_MAX:
            return Rows(list(db.connection().execute(statement, params).all()))
        driver = _DRIVER.setdefault(statement, DriverStatement(statement))
    return Rows(driver.rows(db.connection(), params))


def _rows(db: Session, match_id: int, after: int, upto: int, codec: TaggedCodec) -> list[Envelope]:
    rows = _select(db, _ROWS, {"match_id": match_id, "after": after, "upto": upto})
    return [Envelope.from_json(envelope_json(r), codec) for r in rows]


def envelope_json(row: Any) -> dict[str, Any]:
    """The JSON of an envelope from a ``match_events`` row (or a row of its columns)."""
    return {
        "seq": row.seq,
        "batch": row.batch,
        "actor": row.actor,
        "at": row.at,
        "audience": None if row.audience is None else row.audience.split(","),
        "event": row.event,
    }


class MatchRow(Protocol):
    """What :func:`snapshot` needs of a match (its ORM row, or a row of those columns)."""

    @property
    def id(self) -> int: ...
    @property
    def secret(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def rule_system(self) -> str: ...


def snapshot(db: Session, match: MatchRow) -> Snapshot:
    """The match at its current version (``match.version`` > 0): from this process's cache,
    else caught up from the version it holds, else replayed once (see the module docstring)."""
    key = (match.id, match.secret)
    version = match.version
    found = cache.get(key, version)
    if found is not None:
        return found
    with cache.lock_for(key):
        found = cache.get(key, version)  # replayed by another thread while we waited
        if found is not None:
            return found
        system = systems.playable(match.rule_system)
        near = cache.nearest(key)
        battle = None
        if near is not None and 0 < near.version < version:
            battle = _caught_up(db, match, near.battle, version, system.event_codec)
        if battle is None:
            # the log is append-only: a cached battle at a later version holds this one's log
            known = list(near.battle.envelopes[:version]) if near is not None else []
            if len(known) != version:
                known = []  # read it all again rather than trust a battle that did not line up
            envelopes = known + _rows(db, match.id, len(known), version, system.event_codec)
            cache.count_loaded(version - len(known))
            battle = system.restore(envelopes)
        cache.count_replay()
        if battle.version != version:
            raise LogError(f"match {match.id}: {battle.version} events stored, version {version}")
        return cache.hold(key, version, battle)


def _caught_up(
    db: Session, match: MatchRow, held: MatchGame, version: int, codec: TaggedCodec
) -> MatchGame | None:
    """``held`` (version N, read by others: never touched) forked and evolved with the rows
    N+1..``version`` only (issue 21: the other worker's reads no longer replay the whole log
    for each new version); ``None`` when it cannot be, and the caller replays the whole log.

    The row N is read again and must be the envelope N held (a log rewritten under the same
    match id and secret is read in full, never extended); the rows must go on from it whole
    batches at a time (:meth:`~app.engine.match.log.Match.extend` checks it, with the undos:
    an undo appends an event, and undoing a batch held already replays the state in memory)."""
    start = held.version
    clone = held.fork()
    log = _log_of(clone)
    if log is None or log is _log_of(held):
        return None  # a façade this does not know how to extend without touching ``held``
    rows = _select(db, _ROWS, {"match_id": match.id, "after": start - 1, "upto": version})
    if len(rows) != version - start + 1:
        return None
    if envelope_json(rows[0]) != log.envelope(start - 1).to_json(codec):
        return None  # the row N is not the envelope N held: the log was rewritten
    try:
        new = [Envelope.from_json(envelope_json(r), codec) for r in rows[1:]]
        log.extend(new)
    except (LogError, CodecError):
        return None
    cache.count_loaded(len(new))
    cache.count_extend()
    return clone


def _log_of(battle: Any) -> MatchLog[Any] | None:
    """The :class:`~app.engine.match.log.Match` a system's façade replays (a ``BattleGame``'s
    ``match``, or that of the engine a ``PenMatch`` hands everything to)."""
    for holder in (battle, getattr(battle, "inner", None)):
        log = getattr(holder, "match", None)
        if isinstance(log, MatchLog):
            return log
    return None
