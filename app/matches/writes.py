"""The write path of a match: one atomic append per accepted command (see
:mod:`app.matches.service` for the concurrency contract), its after-commit hooks (the read
cache, the streams' wake-up), and the report of a confirmed result to its league game.

Nothing here names a rule system: the battle is any :class:`MatchGame`, its events are
encoded by its system's codec and the row's status, round, VP and winner come from its
:class:`GameStatus`."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, cast

from sqlalchemy import Connection, Table, TextClause, bindparam, select, text, update
from sqlalchemy import event as sa_event
from sqlalchemy.dialects import postgresql
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from app.core.db import AFTER_COMMIT_HOOKS, DriverStatement, mark_outcome_unknown
from app.core.deps import AUTOCOMMIT_WRITE
from app.core.errors import AppError
from app.core.notify import notifier_for
from app.engine.match import Envelope, StaleVersion, TaggedCodec, visible_to
from app.engine.match.game import GameStatus, MatchGame
from app.engine.match.seats import Seat
from app.matches import events, league_games, reads, systems
from app.matches.exceptions import CommandRefused, WriteConflict
from app.matches.models import Match, MatchEvent, MatchStatus

__all__ = [
    "NOTIFY_CHANNEL",
    "Publisher",
    "WriteTarget",
    "after_commit",
    "append",
    "bind_publisher",
    "league_game_path",
    "match_status",
    "public_note",
    "publisher_of",
]

log = logging.getLogger("auspex.matches")

NOTIFY_CHANNEL = "auspex_matches"  # app.matches.events.CHANNEL listens to it

_HOOKS = AFTER_COMMIT_HOOKS  # the key app.core.db's request sessions know of


def _on_commit(session: Session) -> None:
    if session.get_nested_transaction() is not None:
        return  # a SAVEPOINT was released: the data is not committed yet
    hooks: list[Callable[[], None]] = session.info.pop(_HOOKS, [])
    for hook in hooks:
        try:
            hook()
        except Exception:  # a failed notification must not fail a committed write
            log.exception("after-commit hook failed")


def _on_rollback(session: Session, previous: Any) -> None:
    if getattr(previous, "parent", None) is None:  # the whole transaction, not a savepoint
        session.info.pop(_HOOKS, None)


# Listened to on every session, once: listening on each writing session (as before) cost
# more than the write's own ORM work (issue 21: ``event.listen`` builds the instance's own
# dispatch); a session with no hooks pays one dict lookup per commit or rollback.
sa_event.listen(Session, "after_commit", _on_commit)
sa_event.listen(Session, "after_soft_rollback", _on_rollback)


def after_commit(db: Session, hook: Callable[[], None]) -> None:
    """Run ``hook`` once the session's transaction commits (dropped if it rolls back)."""
    hooks = db.info.get(_HOOKS)
    if hooks is None:
        hooks = db.info[_HOOKS] = []
    hooks.append(hook)


Publisher = Callable[[int, int], None]


class WriteTarget(Protocol):
    """What a write needs of its match: the ORM row, or a row of those columns read by one Core
    select (``service.WRITE_ROW``: the API's hot path builds no ORM instance, issue 21)."""

    @property
    def id(self) -> int: ...
    @property
    def secret(self) -> str: ...
    @property
    def rule_system(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def player_a_id(self) -> int | None: ...
    @property
    def player_b_id(self) -> int | None: ...
    @property
    def guest_digest(self) -> str | None: ...
    @property
    def spectate_digest(self) -> str | None: ...
    @property
    def league_game_id(self) -> int | None: ...


def _no_publish(match_id: int, version: int) -> None:
    return None


# -- who is asking ----------------------------------------------------------------------------


# -- the append ---------------------------------------------------------------------------------


def match_status(status: GameStatus) -> MatchStatus:
    """The match row's status from where the battle stands."""
    if status.stage == "ended":
        return MatchStatus.CONFIRMED if status.confirmed else MatchStatus.ENDED
    if status.stage == "battle":
        return MatchStatus.BATTLE
    return MatchStatus.SETUP


# The write's statements, built once: SQLAlchemy memoises a statement's cache key on the
# statement object, so a statement built per write is keyed (and its values coerced) again each
# time. ``_CAS`` sets each column of ``_CAS_COLUMNS`` from the parameter ``new_<column>``.
_CAS_COLUMNS = ("version", "status", "round", "vp_a", "vp_b", "winner", "updated_at")
_CAS = (
    update(Match)
    .where(Match.id == bindparam("match_id"), Match.version == bindparam("seen"))
    .values({name: bindparam(f"new_{name}") for name in _CAS_COLUMNS})
)
# Run on the driver's cursor on Postgres (app.core.db.DriverStatement: SQLAlchemy's execution
# is half of a hot statement's CPU there, issue 21), through SQLAlchemy elsewhere.
_CAS_DRIVER = DriverStatement(_CAS)

# The events of a write go in as one multi-row INSERT (``VALUES (...), (...)``) rather than an
# executemany (the driver runs the statement once per row; on Postgres some 60 to 80 us of CPU a
# row, issue 21). SQLAlchemy does not cache the compiled form of ``insert().values([...])`` (a
# multi-VALUES insert has no cache key: compiled again on every write, slower than the
# executemany), so the statement is a ``text()`` of the same SQL, built once per row count and
# kept: parameter ``<column>_<i>`` for row ``i``, each typed as its column (the JSON event is
# serialised by its column's type, as before), every name quoted. Longer appends (a join's
# set-up, an imported log) go in chunks of ``_INSERT_ROWS`` rows: 8 parameters a row, far below
# SQLite's and Postgres' limits on a statement's parameters.
_EVENT_COLUMNS = ("match_id", "seq", "batch", "actor", "at", "audience", "kind", "event")
_INSERT_ROWS = 64
_INSERTS: dict[int, TextClause] = {}
_INSERTS_DRIVER: dict[int, DriverStatement] = {}


def _insert(rows: int) -> TextClause:
    """The multi-row INSERT of ``rows`` events (built on first use; a race builds it twice, the
    same statement)."""
    found = _INSERTS.get(rows)
    if found is None:
        table = cast(Table, MatchEvent.__table__)
        names = ", ".join(f'"{name}"' for name in _EVENT_COLUMNS)
        values = ", ".join(
            "(" + ", ".join(f":{name}_{i}" for name in _EVENT_COLUMNS) + ")" for i in range(rows)
        )
        sql = f'INSERT INTO "{table.name}" ({names}) VALUES {values}'  # noqa: S608 - constants
        found = text(sql).bindparams(
            *(
                bindparam(f"{name}_{i}", type_=table.c[name].type)
                for i in range(rows)
                for name in _EVENT_COLUMNS
            )
        )
        _INSERTS[rows] = found
    return found


def _insert_events(
    conn: Connection, match_id: int, new: Sequence[Envelope], codec: TaggedCodec
) -> None:
    """``new``'s rows, in order, in as few statements as :data:`_INSERT_ROWS` allows."""
    for start in range(0, len(new), _INSERT_ROWS):
        chunk = new[start : start + _INSERT_ROWS]
        params = _event_params(match_id, chunk, codec)
        driver = _INSERTS_DRIVER.get(len(chunk))
        if driver is None:
            driver = _INSERTS_DRIVER.setdefault(len(chunk), DriverStatement(_insert(len(chunk))))
        driver.rowcount(conn, params)


# On Postgres, a request session run without a transaction (``deps.autocommit_write``) writes a
# command as ONE statement that commits by itself: the compare-and-set (with its NOTIFY) as a
# data-modifying CTE, and the events inserted only if it updated the row, so that a stale
# version inserts nothing. Two round trips a write (the row's select, this) instead of five
# (BEGIN, select, compare-and-set, insert, COMMIT): under tournament load each round trip
# waits for the database's process and then for the GIL, and the write's admission slot is
# held all along (issue 21: the writes' database time was most of their p95). The values are
# cast to their columns' types (a VALUES list takes no type from the INSERT's columns). The
# NOTIFY is not in it: sent once committed, by app.core.notify (a notifying commit holds a
# cluster-wide lock through its fsync, so the writes queued on each other: issue 21).
_ONE_STATEMENT: dict[int, DriverStatement] = {}


def _one_statement(rows: int) -> DriverStatement:
    """The compare-and-set and the insert of ``rows`` events as one statement (Postgres)."""
    found = _ONE_STATEMENT.get(rows)
    if found is not None:
        return found
    dialect = postgresql.dialect()  # type: ignore[no-untyped-call]
    matches = cast(Table, Match.__table__)
    events = cast(Table, MatchEvent.__table__)
    sets = ", ".join(f'"{name}" = :new_{name}' for name in _CAS_COLUMNS)
    names = ", ".join(f'"{name}"' for name in _EVENT_COLUMNS)
    types = {name: events.c[name].type.compile(dialect=dialect) for name in _EVENT_COLUMNS}
    values = ", ".join(
        "(" + ", ".join(f"CAST(:{name}_{i} AS {types[name]})" for name in _EVENT_COLUMNS) + ")"
        for i in range(rows)
    )
    table = matches.name  # names and types below are the models' constants
    sql = (
        f'WITH cas AS (UPDATE "{table}" SET {sets} WHERE "{table}"."id" = :match_id'  # noqa: S608
        f' AND "{table}"."version" = :seen RETURNING 1)'
        f' INSERT INTO "{events.name}" ({names}) SELECT * FROM (VALUES {values}) AS new_events'
        " WHERE EXISTS (SELECT 1 FROM cas)"
    )
    statement = text(sql).bindparams(
        bindparam("match_id", type_=matches.c.id.type),
        bindparam("seen", type_=matches.c.version.type),
        *(bindparam(f"new_{name}", type_=matches.c[name].type) for name in _CAS_COLUMNS),
        *(
            bindparam(f"{name}_{i}", type_=events.c[name].type)
            for i in range(rows)
            for name in _EVENT_COLUMNS
        ),
    )
    return _ONE_STATEMENT.setdefault(rows, DriverStatement(statement))


def _event_params(match_id: int, new: Sequence[Envelope], codec: TaggedCodec) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for i, env in enumerate(new):
        params[f"match_id_{i}"] = match_id
        params[f"seq_{i}"] = env.seq
        params[f"batch_{i}"] = env.batch
        params[f"actor_{i}"] = env.actor
        params[f"at_{i}"] = env.at
        params[f"audience_{i}"] = None if env.audience is None else ",".join(env.audience)
        params[f"kind_{i}"] = env.event.kind
        params[f"event_{i}"] = codec.encode(env.event)
    return params


def public_note(
    match: Match | WriteTarget,
    battle: MatchGame,
    new: Sequence[Envelope],
    seen: int,
    game: GameStatus,
    encoded: Callable[[int], Any] | None = None,
) -> str:
    """The NOTIFY payload of the write of ``new`` (the last envelopes of ``battle``, from
    version ``seen``; ``game`` its status): its public side, the entries a spectator may see
    (``visible_to(e, None)``, never a secret) and the state a spectator is sent
    (:func:`app.matches.events.note_payload`), so that the other processes' spectators need not
    read the match (issue 21). ``encoded(i)``: the event of ``new[i]`` as already encoded for
    its row (``None``: encoded here)."""
    system = systems.playable(match.rule_system)
    codec = system.event_codec
    public = [
        {
            "seq": env.seq,
            "batch": env.batch,
            "actor": env.actor,
            "at": env.at,
            "audience": None,
            "event": codec.encode(env.event) if encoded is None else encoded(i),
        }
        for i, env in enumerate(new)
        if visible_to(env, None)
    ]
    state = events.spectator_state(
        match_status(game),
        game.round,
        int(game.scores.get("A", 0)),
        int(game.scores.get("B", 0)),
        game.winner,
        system.headline(battle),
    )
    return events.note_payload(match.id, battle.version, seen, public, state)


def _autocommitted(db: Session, conn: Connection) -> bool:
    """Whether ``db`` runs without a transaction for a write (``deps.autocommit_write``)."""
    return bool(db.info.get(AUTOCOMMIT_WRITE)) and (
        conn.get_execution_options().get("isolation_level") == "AUTOCOMMIT"
    )


def append(
    db: Session, match: Match | WriteTarget, battle: MatchGame, new: Sequence[Envelope], seen: int
) -> None:
    """Append ``new`` (the last envelopes of ``battle``) atomically, or raise 409."""
    if not new:
        return
    codec = systems.playable(match.rule_system).event_codec
    version = battle.version
    game = battle.status()
    status = match_status(game)
    values: dict[str, Any] = {
        "version": version,
        "status": status,
        "round": game.round,
        "vp_a": int(game.scores.get("A", 0)),
        "vp_b": int(game.scores.get("B", 0)),
        "winner": game.winner,
        "updated_at": datetime.now(UTC),
    }
    # The tracker's hot path: one compare-and-set and one insert, run on the connection as plain
    # Core statements built once (no ORM unit of work, no statement built and cache-keyed again
    # on every write: issue 21's profile)
    conn = db.connection()
    params = {f"new_{k}": v for k, v in values.items()}
    params.update(match_id=match.id, seen=seen)
    try:
        one = _autocommitted(db, conn)
        if one and len(new) <= _INSERT_ROWS and match.league_game_id is None:
            # one statement, committed by itself (see _ONE_STATEMENT above)
            params.update(_event_params(match.id, new, codec))
            encoded = lambda i: params[f"event_{i}"]  # noqa: E731
            try:
                updated = int(_one_statement(len(new)).rowcount(conn, params) == len(new))
            except OperationalError as exc:
                if exc.connection_invalidated:  # it may have committed: nobody can tell
                    mark_outcome_unknown(exc)
                raise
            if updated != 1:
                current = db.scalar(select(Match.version).where(Match.id == match.id))
                raise CommandRefused(StaleVersion(seen, int(current or 0)))
        else:
            if one:  # more than one statement: in a transaction, the session's
                conn.exec_driver_sql("BEGIN")
            encoded = None
            updated = _CAS_DRIVER.rowcount(conn, params)
            if updated != 1:
                current = db.scalar(select(Match.version).where(Match.id == match.id))
                raise CommandRefused(StaleVersion(seen, int(current or 0)))
            _insert_events(conn, match.id, new, codec)
    except IntegrityError:
        raise WriteConflict(
            "Another write to this match committed first: refresh and try again."
        ) from None
    except OperationalError as exc:
        if "lock" in str(exc).lower() or "busy" in str(exc).lower():
            raise WriteConflict(
                "Another write to this match committed first: refresh and try again."
            ) from None
        raise
    if isinstance(match, Match):
        for key, value in values.items():  # the row now holds these: no reload needed
            set_committed_value(match, key, value)
    cache_key = (match.id, match.secret)
    match_id = match.id
    publisher = publisher_of(db)
    row = reads.WrittenRow(
        id=match.id,
        secret=match.secret,
        rule_system=match.rule_system,
        version=version,
        status=str(status),
        round=game.round,
        player_a_id=match.player_a_id,
        player_b_id=match.player_b_id,
        guest_digest=match.guest_digest,
        spectate_digest=match.spectate_digest,
    )

    def cache() -> None:  # before the wake-up below: the woken streams find both
        reads.cache.put(cache_key, version, battle)
        reads.cache.written.put(row)

    after_commit(db, cache)
    notifier = notifier_for(conn.engine)  # Postgres: the other workers' streams
    if notifier is not None:
        note = public_note(match, battle, new, seen, game, encoded)
        after_commit(db, lambda: notifier.send(NOTIFY_CHANNEL, note))
    after_commit(db, lambda: publisher(match_id, version))
    if status is MatchStatus.CONFIRMED and match.league_game_id is not None:
        # rare (a result confirmed for a league game): the ORM row, as it stands now
        stored = match if isinstance(match, Match) else db.get(Match, match.id)
        if stored is not None:
            _report_to_league(db, stored, game)


_PUBLISHER = "auspex.matches.publisher"


def bind_publisher(db: Session, publisher: Publisher) -> None:
    """Tell this session's writes whom to wake once they commit (the app's hub)."""
    db.info[_PUBLISHER] = publisher


def publisher_of(db: Session) -> Publisher:
    found = db.info.get(_PUBLISHER)
    return found if found is not None else _no_publish


def _report_to_league(db: Session, match: Match, result: GameStatus) -> None:
    if match.league_reported or result.winner is None or match.league_game_id is None:
        return
    port = league_games.league_games()
    game = None if port is None else port.game(db, match.league_game_id)
    if port is None or game is None:
        return
    fixture_a = game.players[0]
    seat_user = {Seat.A: match.player_a_id, Seat.B: match.player_b_id}
    winner = None if result.winner == "draw" else Seat(result.winner)
    vp = {s: int(result.scores.get(str(s), 0)) for s in (Seat.A, Seat.B)}
    first = Seat.A if fixture_a == match.player_a_id else Seat.B
    second = Seat.B if first is Seat.A else Seat.A
    values: dict[str, Any]
    try:
        with db.begin_nested():
            port.report(
                db,
                match.league_game_id,
                winner_user_id=seat_user[winner] if winner is not None else None,
                vp=(vp[first], vp[second]),
                match_id=match.id,
            )
        values = {"league_reported": True, "league_report_error": None}
    except AppError as exc:
        # The match stays confirmed; the players are told (match page, JSON) to report the
        # result by hand on the league's page or to ask a club admin.
        # The reason is kept as the problem code: each page translates it (present.py).
        log.warning("match %s: the league game was not updated: %s", match.id, exc.detail)
        values = {"league_report_error": exc.code}
    db.execute(
        update(Match)
        .where(Match.id == match.id)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    for key, value in values.items():
        set_committed_value(match, key, value)


def league_game_path(db: Session, match: Match) -> str | None:
    """The page of the league game this match was created for (``None``: not a league match)."""
    port = league_games.league_games()
    if match.league_game_id is None or port is None:
        return None
    game = port.game(db, match.league_game_id)
    return None if game is None else game.path
