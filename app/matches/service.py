"""Match logic: create, join, act, read, export/import. Flushes, never commits.

**Event sourcing.** A match is its ``match_events`` rows; the state is their replay
(:class:`~app.engine.wh40k10e.battle.Battle`), kept in a bounded in-process LRU keyed by match
and version (:mod:`app.matches.reads`), so a read costs one row lookup when nothing changed and
one replay per version and process otherwise.

**Optimistic concurrency.** Every write names the version it saw. A stale one is refused with
409 (``stale_version``, carrying ``current_version``) before anything else; the engine decides
on a private copy of the cached battle; the append is one transaction that advances
``matches.version`` with a compare-and-set (``UPDATE ... WHERE version = :seen``) and inserts
the new rows under the unique ``(match_id, seq)``: of two concurrent writers that saw the same
version, one commits and the other gets 409 (zero rows updated, a unique violation, or on
SQLite a busy snapshot).

**Fan-out.** After the commit the hub wakes the match's streams (``events.Hub``); on Postgres a
``pg_notify`` issued inside the write's transaction reaches the other workers at commit.

**Secrets.** Everything a player is served goes through ``Battle.view(seat)`` /
``Battle.log_json(seat)`` (the engine leaves the other seat's secret events out, not masked)
and the full log (``export``) is served only once the viewer can see every event or the battle
is over.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

from sqlalchemy import delete, func, insert, or_, select, update
from sqlalchemy import event as sa_event
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session
from sqlalchemy.orm.attributes import set_committed_value

from app.accounts.models import User
from app.core import security
from app.core.config import get_settings
from app.core.errors import AppError
from app.engine.combat import CombatResolution, to_jsonable
from app.engine.errors import EngineError, ProfileError, RollerError
from app.engine.match import (
    Envelope,
    LogError,
    Mission,
    Refusal,
    RefusalKind,
    StaleVersion,
    load_missions,
)
from app.engine.wh40k10e.battle import (
    EVENT_CODEC,
    ArmySpec,
    Battle,
    BattleOptions,
    MatchSetup,
    Seat,
    command_from_json,
    command_seed,
)
from app.engine.wh40k10e.battle.commands import Concede, ResolveAttack
from app.engine.wh40k10e.battle.eligibility import weapons_refusal
from app.engine.wh40k10e.battle.events import MatchCreated
from app.engine.wh40k10e.battle.state import BattleState, Stage
from app.matches import armies, combat, reads
from app.matches.exceptions import (
    ArmyUnusable,
    CommandRefused,
    ExportNotYet,
    InvalidAttack,
    InvalidLog,
    InvitationInvalid,
    LeagueGameUnusable,
    MatchNotFound,
    MatchNotStarted,
    MatchStarted,
    NotTheCreator,
    OwnMatch,
    SeatTaken,
    UnknownMission,
    WriteConflict,
)
from app.matches.models import Match, MatchEvent, MatchStatus, OpponentKind
from app.matches.sealing import unseal

log = logging.getLogger("auspex.matches")

RULE_SYSTEM = "wh40k-10e"
NOTIFY_CHANNEL = "auspex_matches"  # app.matches.events.CHANNEL listens to it
MAX_MATCHES_LISTED = 200


# -- missions ---------------------------------------------------------------------------------


@cache
def missions() -> dict[str, Mission]:
    """The missions shipped as data (``data/missions``), by id."""
    return {k: m for k, m in load_missions().items() if m.rule_system == RULE_SYSTEM}


def mission_and_size(mission_id: str, battle_size: str) -> tuple[Mission, int]:
    mission = missions().get(mission_id)
    if mission is None:
        raise UnknownMission(
            f"There is no mission {mission_id!r}.",
            errors=[{"field": "mission", "message": "unknown mission", "type": "unknown"}],
        )
    try:
        size = mission.battle_size(battle_size)
    except KeyError:
        sizes = ", ".join(s.id for s in mission.battle_sizes)
        raise UnknownMission(
            f"Mission {mission_id!r} has no battle size {battle_size!r} (it has: {sizes}).",
            errors=[{"field": "battle_size", "message": "unknown battle size", "type": "unknown"}],
        ) from None
    return mission, size.points


def fork(battle: Battle) -> Battle:
    """A copy of ``battle`` that can execute commands without touching the original (the log
    list and undo stack are copied; the state and the envelopes are immutable values)."""
    return battle.fork()


def load_battle(db: Session, match: Match) -> Battle:
    """The match's battle at its current version (cached, else replayed from its rows)."""
    if match.version == 0:
        raise MatchNotStarted()
    return reads.snapshot(db, match).battle


# -- after-commit hooks -----------------------------------------------------------------------

_HOOKS = "auspex.matches.after_commit"


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


def after_commit(db: Session, hook: Callable[[], None]) -> None:
    """Run ``hook`` once the session's transaction commits (dropped if it rolls back)."""
    hooks = db.info.get(_HOOKS)
    if hooks is None:
        hooks = db.info[_HOOKS] = []
        if not sa_event.contains(db, "after_commit", _on_commit):
            sa_event.listen(db, "after_commit", _on_commit)
            sa_event.listen(db, "after_soft_rollback", _on_rollback)
    hooks.append(hook)


Publisher = Callable[[int, int], None]


def _no_publish(match_id: int, version: int) -> None:
    return None


# -- who is asking ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Caller:
    """A registered user (by id), and/or the bearer of a guest seat's secret link token."""

    user_id: int | None = None
    guest_token: str | None = None

    @classmethod
    def of(cls, user: User | None, guest_token: str | None = None) -> Caller:
        return cls(user.id if user is not None else None, guest_token or None)


def match_secret(match: Match) -> str:
    """The secret codes and dice seeds derive from: ``matches.secret`` unsealed with the server
    key (ADR 0010), so that the database alone gives neither."""
    return unseal(match.secret, match.id, get_settings().secret_key)


def _mac(match: Match, purpose: str) -> bytes:
    return hmac.new(
        match_secret(match).encode(),
        f"{purpose}|{match.id}|{match.invite_nonce}".encode(),
        hashlib.sha256,
    ).digest()


def invite_code(match: Match) -> str:
    """The invitation code of an open match (derived, never stored: only its digest is)."""
    return base64.b32encode(_mac(match, "invite")).decode()[:12]


def guest_token(match: Match) -> str:
    """The secret link token of a guest seat (derived, never stored: only its digest is)."""
    return base64.urlsafe_b64encode(_mac(match, "guest")).decode().rstrip("=")[:40]


def normalise_code(code: str) -> str:
    return "".join(ch for ch in code.upper() if ch.isalnum())[:32]


def seat_of(match: Match, caller: Caller) -> Seat | None:
    """The caller's seat in ``match``, or ``None`` when they do not play it."""
    if caller.user_id is not None:
        if match.player_a_id == caller.user_id:
            return Seat.A
        if match.player_b_id == caller.user_id:
            return Seat.B
    if (
        caller.guest_token
        and match.guest_digest is not None
        and security.hmac_equal(security.digest(caller.guest_token), match.guest_digest)
    ):
        return Seat.B
    return None


def get_for(db: Session, match_id: int, caller: Caller) -> tuple[Match, Seat]:
    """The match and the caller's seat; 404 for anyone who does not play it."""
    match = db.get(Match, match_id)
    if match is None:
        raise MatchNotFound()
    seat = seat_of(match, caller)
    if seat is None:
        raise MatchNotFound()
    return match, seat


def by_guest_token(db: Session, token: str) -> Match:
    match = db.scalar(select(Match).where(Match.guest_digest == security.digest(token[:200])))
    if match is None:
        raise InvitationInvalid()
    return match


def by_invite_code(db: Session, code: str) -> Match:
    match = db.scalar(
        select(Match).where(Match.invite_digest == security.digest(normalise_code(code)))
    )
    if match is None or match.version > 0:
        raise InvitationInvalid()
    return match


# -- listing ----------------------------------------------------------------------------------


def my_matches(db: Session, user: User) -> list[Match]:
    return list(
        db.scalars(
            select(Match)
            .where(or_(Match.player_a_id == user.id, Match.player_b_id == user.id))
            .order_by(Match.updated_at.desc(), Match.id.desc())
            .limit(MAX_MATCHES_LISTED)
        )
    )


def player_names(db: Session, match: Match) -> dict[str, str]:
    ids = [i for i in (match.player_a_id, match.player_b_id) if i is not None]
    rows = db.execute(select(User.id, User.display_name).where(User.id.in_(ids))).tuples()
    names: dict[int, str] = dict(rows.all())
    a = names.get(match.player_a_id, "") if match.player_a_id else ""
    b = names.get(match.player_b_id, "") if match.player_b_id is not None else match.guest_name
    return {"A": a, "B": b}


# -- creating and joining ---------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _check_league_game(db: Session, game_id: int, user: User, *, joining: bool) -> None:
    from app.leagues.models import Game, GameStatus, Registration

    game = db.get(Game, game_id)
    if game is None or GameStatus(game.status) is GameStatus.CONFIRMED:
        raise LeagueGameUnusable(f"League game {game_id} does not exist or is already settled.")
    users = set(
        db.scalars(
            select(Registration.user_id).where(
                Registration.id.in_([game.player_a_id, game.player_b_id])
            )
        )
    )
    if user.id not in users:
        raise LeagueGameUnusable("You do not play this league game.")
    if not joining:
        taken = db.scalar(
            select(Match.id).where(
                Match.league_game_id == game_id,
                Match.status != MatchStatus.CONFIRMED,
            )
        )
        if taken is not None:
            raise LeagueGameUnusable(f"Match {taken} is already tracking this league game.")


def create(
    db: Session,
    user: User,
    *,
    army_id: int,
    mission_id: str,
    battle_size: str,
    opponent: OpponentKind,
    league_game_id: int | None = None,
    options: Mapping[str, Any] | None = None,
) -> Match:
    """A new match with the creator's ready list in seat A, waiting for its opponent."""
    _mission, points = mission_and_size(mission_id, battle_size)
    battle_options = _options(options)
    if league_game_id is not None:
        if opponent is OpponentKind.GUEST:
            raise LeagueGameUnusable("A league game is played between two registered players.")
        _check_league_game(db, league_game_id, user, joining=False)
    snapshot = armies.ready_snapshot(db, user, army_id, points_limit=points)
    _spec_ok(snapshot, Seat.A)
    match = Match(
        rule_system=RULE_SYSTEM,
        mission_id=mission_id,
        battle_size=battle_size,
        status=MatchStatus.OPEN,
        opponent_kind=opponent,
        created_by_id=user.id,
        player_a_id=user.id,
        secret=secrets.token_hex(32),
        army_a=snapshot | {"options": _options_json(battle_options)},
        league_game_id=league_game_id,
        version=0,
    )
    db.add(match)
    db.flush()
    _issue_invitation(match)
    db.flush()
    return match


def _spec_ok(snapshot: Mapping[str, Any], seat: Seat) -> bool:
    """Check that a snapshot is within the engine's bounds (a Refusal becomes a 422)."""
    try:
        armies.army_spec(snapshot, seat)
    except Refusal as exc:
        raise ArmyUnusable(exc.message) from None
    return True


def _options(options: Mapping[str, Any] | None) -> BattleOptions:
    if not options:
        return BattleOptions()
    try:
        return BattleOptions(**dict(options))
    except Refusal as exc:
        raise CommandRefused(exc) from None
    except TypeError as exc:
        raise ArmyUnusable(str(exc)) from None


def _options_json(options: BattleOptions) -> dict[str, Any]:
    return {
        "starting_cp": options.starting_cp,
        "deep_strike_from_round": options.deep_strike_from_round,
        "aircraft_count_toward_reserve_cap": options.aircraft_count_toward_reserve_cap,
        "prompt_rapid_ingress": options.prompt_rapid_ingress,
        "battle_shocked_fall_back_tests_fly": options.battle_shocked_fall_back_tests_fly,
    }


def _issue_invitation(match: Match) -> None:
    match.invite_digest = security.digest(invite_code(match))
    match.guest_digest = (
        security.digest(guest_token(match)) if match.opponent_kind == OpponentKind.GUEST else None
    )


def rotate_invitation(db: Session, match: Match, seat: Seat) -> Match:
    """A new invitation code (and guest link) for an open match; the old ones stop working."""
    if seat is not Seat.A:
        raise NotTheCreator()
    if match.version > 0:
        raise SeatTaken()
    match.invite_nonce += 1
    _issue_invitation(match)
    db.flush()
    return match


def may_cancel(match: Match, caller: Caller) -> bool:
    """Whether ``caller`` may cancel ``match``: its creator, while nobody has joined it."""
    return (
        caller.user_id is not None
        and match.created_by_id == caller.user_id
        and match.status == MatchStatus.OPEN
        and match.version == 0
    )


def cancel(db: Session, match: Match, caller: Caller) -> None:
    """The creator withdraws a match nobody has joined yet: the row is deleted.

    An open match has no events, no army B and no result; its league game (if it was created
    for one) is linked only by ``matches.league_game_id``, so the game is free for a new match
    once the row is gone. The delete is a compare-and-set on ``version = 0``: if the opponent's
    join committed first, the match has started and the cancellation is refused (409).
    """
    if caller.user_id is None or match.created_by_id != caller.user_id:
        raise NotTheCreator()
    started = MatchStarted(f"Match {match.id} has started: it can no longer be cancelled.")
    if match.status != MatchStatus.OPEN or match.version != 0:
        raise started
    gone = (
        delete(Match)
        .where(Match.id == match.id, Match.version == 0, Match.status == MatchStatus.OPEN)
        .execution_options(synchronize_session=False)
    )
    if db.get_bind().dialect.name == "postgresql":
        # wakes the streams of the other workers at commit (they then answer "gone")
        notify = func.pg_notify(NOTIFY_CHANNEL, f"{match.id}:0")
        deleted = len(db.execute(gone.returning(notify)).all())
    else:
        deleted = db.execute(gone).rowcount  # type: ignore[attr-defined]
    if deleted != 1:
        raise started
    db.expunge(match)
    cache_key = (match.id, match.secret)
    match_id = match.id
    publisher = _publisher(db)
    after_commit(db, lambda: reads.cache.discard(cache_key))
    after_commit(db, lambda: publisher(match_id, 0))


def join(
    db: Session,
    match: Match,
    snapshot: Mapping[str, Any],
    *,
    user: User | None,
    guest_name: str = "",
) -> Battle:
    """Seat B takes its place: the battle is created from both snapshots (version 2)."""
    if match.version != 0:
        raise SeatTaken()
    if user is not None and match.player_a_id == user.id:
        raise OwnMatch()
    if match.league_game_id is not None:
        if user is None:
            raise LeagueGameUnusable("A league game is played between two registered players.")
        _check_league_game(db, match.league_game_id, user, joining=True)
    _spec_ok(snapshot, Seat.B)
    assert match.army_a is not None
    mission, _points = mission_and_size(match.mission_id, match.battle_size)
    options = _options(match.army_a.get("options"))
    try:
        setup = MatchSetup(
            {
                Seat.A: armies.army_spec(match.army_a, Seat.A),
                Seat.B: armies.army_spec(snapshot, Seat.B),
            },
            match.battle_size,
            mission,
            options,
        )
        battle = Battle.create(setup, actor="A", at=_now())
    except Refusal as exc:
        raise CommandRefused(exc) from None
    match.army_b = dict(snapshot)
    if user is not None:
        match.player_b_id = user.id
    else:
        match.guest_name = guest_name[:60]
    match.invite_digest = None
    db.flush()
    _append(db, match, battle, list(battle.envelopes), 0)
    return battle


def join_by_code(db: Session, user: User, code: str, army_id: int) -> Match:
    match = by_invite_code(db, code)
    if match.opponent_kind != OpponentKind.USER:
        raise InvitationInvalid()
    if match.player_a_id == user.id:
        raise OwnMatch()
    _mission, points = mission_and_size(match.mission_id, match.battle_size)
    snapshot = armies.ready_snapshot(db, user, army_id, points_limit=points)
    join(db, match, snapshot, user=user)
    return match


def join_as_guest(
    db: Session,
    token: str,
    *,
    name: str,
    sample: str | None = None,
    army: str | Mapping[str, Any] | None = None,
    user: User | None = None,
) -> Match:
    """The guest seat joins with a sample list or a pasted army JSON export."""
    match = by_guest_token(db, token)
    if user is not None and match.player_a_id == user.id:
        raise OwnMatch()
    if match.version > 0:
        raise SeatTaken()
    _mission, points = mission_and_size(match.mission_id, match.battle_size)
    if (sample is None) == (army is None):
        raise ArmyUnusable(
            "Choose a sample list or paste an army export (one of the two).",
            errors=[{"field": "army", "message": "one of sample or army", "type": "missing"}],
        )
    if sample is not None:
        snapshot = armies.sample_snapshot(db, sample, points_limit=points)
    else:
        assert army is not None
        snapshot = armies.pasted_snapshot(db, army, points_limit=points)
    join(db, match, snapshot, user=None, guest_name=name.strip() or "Guest")
    return match


# -- the write path ---------------------------------------------------------------------------


def _status(state: BattleState) -> MatchStatus:
    if state.stage is Stage.ENDED:
        players = state.players.values()
        if players and all(p.result == "confirmed" for p in players):
            return MatchStatus.CONFIRMED
        return MatchStatus.ENDED
    if state.stage is Stage.BATTLE:
        return MatchStatus.BATTLE
    return MatchStatus.SETUP


def _append(db: Session, match: Match, battle: Battle, new: Sequence[Envelope], seen: int) -> None:
    """Append ``new`` (the last envelopes of ``battle``) atomically, or raise 409."""
    if not new:
        return
    version = battle.version
    state = battle.state
    status = _status(state)
    values: dict[str, Any] = {
        "version": version,
        "status": status,
        "round": state.round,
        "vp_a": state.players[Seat.A].vp if state.players else 0,
        "vp_b": state.players[Seat.B].vp if state.players else 0,
        "winner": (
            (str(state.result.winner) if state.result.winner else "draw")
            if state.result is not None
            else None
        ),
        "updated_at": datetime.now(UTC),
    }
    # The tracker's hot path: one compare-and-set and one insert, run on the connection as plain
    # Core statements (no ORM bulk-update or unit-of-work machinery around them)
    conn = db.connection()
    postgres = conn.dialect.name == "postgresql"
    cas = update(Match).where(Match.id == match.id, Match.version == seen).values(values)
    try:
        if postgres:
            # the notification rides on the compare-and-set (one round trip); Postgres
            # delivers it at commit, and only if the row was updated
            notify = func.pg_notify(NOTIFY_CHANNEL, f"{match.id}:{version}")
            updated = len(conn.execute(cas.returning(notify)).all())
        else:
            updated = conn.execute(cas).rowcount
        if updated != 1:
            current = db.scalar(select(Match.version).where(Match.id == match.id))
            raise CommandRefused(StaleVersion(seen, int(current or 0)))
        conn.execute(
            insert(MatchEvent),
            [
                {
                    "match_id": match.id,
                    "seq": env.seq,
                    "batch": env.batch,
                    "actor": env.actor,
                    "at": env.at,
                    "audience": None if env.audience is None else ",".join(env.audience),
                    "kind": env.event.kind,
                    "event": EVENT_CODEC.encode(env.event),
                }
                for env in new
            ],
        )
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
    for key, value in values.items():  # the row now holds these: no reload needed
        set_committed_value(match, key, value)
    cache_key = (match.id, match.secret)
    match_id = match.id
    publisher = _publisher(db)
    after_commit(db, lambda: reads.cache.put(cache_key, version, battle))
    after_commit(db, lambda: publisher(match_id, version))
    if status is MatchStatus.CONFIRMED and match.league_game_id is not None:
        _report_to_league(db, match, state)


_PUBLISHER = "auspex.matches.publisher"


def bind_publisher(db: Session, publisher: Publisher) -> None:
    """Tell this session's writes whom to wake once they commit (the app's hub)."""
    db.info[_PUBLISHER] = publisher


def _publisher(db: Session) -> Publisher:
    found = db.info.get(_PUBLISHER)
    return found if found is not None else _no_publish


def _report_to_league(db: Session, match: Match, state: BattleState) -> None:
    from app.leagues import service as leagues
    from app.leagues.models import Game, Registration

    if match.league_reported or state.result is None or match.league_game_id is None:
        return
    game = db.get(Game, match.league_game_id)
    if game is None:
        return
    fixture_a = db.scalar(select(Registration.user_id).where(Registration.id == game.player_a_id))
    seat_user = {Seat.A: match.player_a_id, Seat.B: match.player_b_id}
    winner = state.result.winner
    vp = {s: state.players[s].vp for s in (Seat.A, Seat.B)}
    first = Seat.A if fixture_a == match.player_a_id else Seat.B
    second = Seat.B if first is Seat.A else Seat.A
    values: dict[str, Any]
    try:
        with db.begin_nested():
            leagues.report_from_match(
                db,
                match.league_game_id,
                winner_user_id=seat_user[winner] if winner is not None else None,
                vp=(vp[first], vp[second]),
                match_id=match.id,
                confirmed_by_both=True,
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
    from app.leagues.models import Game

    if match.league_game_id is None:
        return None
    league_id = db.scalar(select(Game.league_id).where(Game.id == match.league_game_id))
    return None if league_id is None else f"/leagues/{league_id}/games/{match.league_game_id}"


@dataclass(frozen=True, slots=True)
class Outcome:
    battle: Battle
    new: list[Envelope]


def unconfirmed_concession() -> Refusal:
    """Conceding ends the battle and cannot be undone: the command must say it is confirmed."""
    return Refusal(
        "confirmation_required",
        "Conceding ends the battle and cannot be undone: "
        'send {"type": "concede", "confirm": true}.',
        kind=RefusalKind.INPUT,
        details={"field": "command.confirm"},
    )


def execute(
    db: Session,
    match: Match,
    seat: Seat,
    command: Mapping[str, Any],
    *,
    expected_version: int,
    dice: Sequence[int] | None = None,
) -> Outcome:
    """Run one command for ``seat``: validated by the engine, appended atomically."""
    battle = load_battle(db, match)
    if expected_version != match.version:
        raise CommandRefused(StaleVersion(expected_version, match.version))
    try:
        cmd = command_from_json(command)
        if isinstance(cmd, Concede) and not cmd.confirm:
            raise unconfirmed_concession()
        work = fork(battle)
        seed = (
            None
            if dice is not None
            else command_seed(match_secret(match), work.state, cmd, str(seat))
        )
        new = work.execute(
            cmd, str(seat), expected_version=expected_version, seed=seed, dice=dice, at=_now()
        )
    except Refusal as exc:
        raise CommandRefused(exc) from None
    _append(db, match, work, new, expected_version)
    return Outcome(work, new)


# -- reading ----------------------------------------------------------------------------------


def view(db: Session, match: Match, seat: Seat) -> dict[str, Any] | None:
    if match.version == 0:
        return None
    return load_battle(db, match).view(str(seat))


def legal_actions(db: Session, match: Match, seat: Seat) -> list[dict[str, Any]]:
    if match.version == 0:
        return []
    return load_battle(db, match).legal_actions(str(seat))


def log_for(db: Session, match: Match, seat: Seat, since: int = 0) -> list[dict[str, Any]]:
    if match.version == 0:
        return []
    return load_battle(db, match).log_json(str(seat), since=since)


def export(db: Session, match: Match, seat: Seat) -> dict[str, Any]:
    """The whole log (and the army snapshots), for a viewer who may see every event in it."""
    battle = load_battle(db, match)
    hidden = battle.version - len(battle.log_for(str(seat)))
    if hidden and battle.state.stage is not Stage.ENDED:
        raise ExportNotYet(
            f"{hidden} event(s) of the log are your opponent's secrets until the battle ends."
        )
    data = battle.export_log()
    data["armies"] = {"A": _public_snapshot(match.army_a), "B": _public_snapshot(match.army_b)}
    return data


def _public_snapshot(snapshot: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if snapshot is None:
        return None
    return {k: v for k, v in snapshot.items() if k not in {"army_id", "catalogue_id"}}


def audit(db: Session, match: Match) -> list[dict[str, Any]]:
    return load_battle(db, match).audit()


def import_log(db: Session, user: User, data: Mapping[str, Any]) -> Match:
    """A new match replayed from an exported log: the importer takes seat A, seat B is a
    guest seat (its link lets anybody continue the match as B)."""
    if not isinstance(data, Mapping):
        raise InvalidLog("A match log is a JSON object.")
    try:
        battle = Battle.import_log(dict(data))
    except (LogError, EngineError) as exc:
        raise InvalidLog(str(exc)) from None
    first = battle.envelopes[0].event if battle.envelopes else None
    if not isinstance(first, MatchCreated):
        raise InvalidLog("The log does not start with the creation of the match.")
    setup = first.setup
    snapshots = data.get("armies") if isinstance(data.get("armies"), Mapping) else {}
    assert isinstance(snapshots, Mapping)
    match = Match(
        rule_system=RULE_SYSTEM,
        mission_id=setup.mission.id,
        battle_size=setup.battle_size,
        status=MatchStatus.SETUP,
        opponent_kind=OpponentKind.GUEST,
        created_by_id=user.id,
        player_a_id=user.id,
        guest_name="Guest",
        secret=secrets.token_hex(32),
        army_a=_imported_snapshot(snapshots.get("A"), setup.armies[Seat.A]),
        army_b=_imported_snapshot(snapshots.get("B"), setup.armies[Seat.B]),
        version=0,
    )
    db.add(match)
    db.flush()
    _issue_invitation(match)
    match.invite_digest = None
    db.flush()
    _append(db, match, battle, list(battle.envelopes), 0)
    return match


def _imported_snapshot(given: object, spec: ArmySpec) -> dict[str, Any]:
    """The snapshot an export carried if it matches the log's army, else one rebuilt from the
    log (without weapon data: the odds of an attack then cannot be computed)."""
    rebuilt = {
        "format": armies.SNAPSHOT_FORMAT,
        "source": "import",
        "army_id": None,
        "name": spec.name,
        "faction": spec.faction,
        "points": sum(u.points for u in spec.units),
        "units": [
            {
                "index": i,
                "name": u.name,
                "datasheet": u.datasheet,
                "models": u.models,
                "wounds": u.wounds,
                "model_wounds": list(u.max_wounds),
                "oc": u.oc,
                "leadership": u.leadership,
                "points": u.points,
                "keywords": sorted(u.keywords),
                "abilities": sorted(str(a) for a in u.abilities),
                "scouts": u.scouts,
                "leads": list(u.leads),
                "transport_capacity": u.transport_capacity,
                "toughness": u.toughness,
                "profile": {"toughness": u.toughness, "save": 7, "wounds": u.wounds},
                "weapons": [],
                "attached_to": None,
            }
            for i, u in enumerate(spec.units)
        ],
    }
    if not isinstance(given, Mapping):
        return rebuilt
    try:
        from app.matches.schemas import SnapshotIn

        checked = SnapshotIn.model_validate(given).model_dump(exclude_unset=True)
        seat = Seat.A if spec.units[0].id.startswith("a") else Seat.B
        if armies.army_spec(checked, seat) != spec:
            return rebuilt
        return checked
    except (ValueError, KeyError, TypeError, EngineError):
        return rebuilt


# -- combat inside the match ------------------------------------------------------------------


def _snapshots(match: Match) -> dict[Seat, Mapping[str, Any] | None]:
    return {Seat.A: match.army_a, Seat.B: match.army_b}


def build_attack(
    db: Session,
    match: Match,
    seat: Seat,
    attacker: str,
    target: str,
    weapons: Sequence[Mapping[str, Any]],
    situation: Mapping[str, Any] | None,
) -> tuple[Battle, combat.BuiltAttack]:
    battle = load_battle(db, match)
    state = battle.state
    if attacker not in state.units or state.units[attacker].owner is not seat:
        raise InvalidAttack(
            "Pick one of your own units to attack with.",
            errors=[{"field": "attacker", "message": "not your unit", "type": "forbidden"}],
        )
    if target not in state.units:
        raise InvalidAttack(
            "Unknown target unit.",
            errors=[{"field": "target", "message": "unknown unit", "type": "unknown"}],
        )
    built = combat.build_request(_snapshots(match), state, attacker, target, weapons, situation)
    # a weapon is used once per phase: refused (409) before any odds or dice
    refusal = weapons_refusal(state, attacker, built.uses)
    if refusal is not None:
        raise CommandRefused(refusal)
    return battle, built


def _profile_error(exc: ProfileError) -> InvalidAttack:
    return InvalidAttack(
        str(exc),
        errors=[{"field": f, "message": m, "type": "invalid_profile"} for f, m in exc.errors],
    )


def preview(
    db: Session,
    match: Match,
    seat: Seat,
    attacker: str,
    target: str,
    weapons: Sequence[Mapping[str, Any]],
    situation: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The exact odds of an attack between two units of the match (nothing is written)."""
    _battle, built = build_attack(db, match, seat, attacker, target, weapons, situation)
    try:
        analysis = combat.analyze(built.request)
    except ProfileError as exc:
        raise _profile_error(exc) from None
    except EngineError as exc:
        raise InvalidAttack(str(exc)) from None
    return {"request": built.request, "analysis": to_jsonable(analysis)}


def resolve(
    db: Session,
    match: Match,
    seat: Seat,
    attacker: str,
    target: str,
    weapons: Sequence[Mapping[str, Any]],
    situation: Mapping[str, Any] | None = None,
    *,
    expected_version: int,
    dice: Sequence[int] | None = None,
) -> tuple[Outcome, CombatResolution]:
    """Roll an attack live (seeded by the match secret, or the dice rolled by hand) and apply
    it to the target's models with a ``resolve_attack`` command."""
    battle, built = build_attack(db, match, seat, attacker, target, weapons, situation)
    if expected_version != match.version:
        raise CommandRefused(StaleVersion(expected_version, match.version))
    weapon = ", ".join(built.weapon_names)[:200]
    probe = ResolveAttack(
        attacker, target, weapon=weapon, request=built.request, weapons=built.uses
    )
    roller: combat.BoundedRoller
    if dice is not None:
        roller = combat.BoundedRoller.from_values(dice)  # type: ignore[assignment]
    else:
        roller = combat.BoundedRoller(
            command_seed(match_secret(match), battle.state, probe, str(seat))
        )
    try:
        resolution = combat.resolve(built.request, roller)
    except ProfileError as exc:
        raise _profile_error(exc) from None
    except RollerError as exc:
        raise InvalidAttack(
            str(exc), errors=[{"field": "dice", "message": str(exc), "type": "dice"}]
        ) from None
    if dice is not None and roller.remaining_given:
        raise InvalidAttack(
            f"{roller.remaining_given} of the dice given were not needed by this attack.",
            errors=[{"field": "dice", "message": "too many dice", "type": "dice"}],
        )
    command = {
        "type": "resolve_attack",
        "attacker": attacker,
        "target": target,
        "allocations": [
            {"unit": a.unit, "model": a.model, "damage": a.damage}
            for a in combat.allocations(built, resolution)
        ],
        "weapon": weapon,
        "seed": resolution.seed,
        "dice": [_die(d) for d in resolution.dice],
        "request": built.request,
        "weapons": [
            {"unit": u.unit, "weapon": u.weapon, "models": u.models, "profile": u.profile}
            for u in built.uses
        ],
    }
    outcome = execute(db, match, seat, command, expected_version=expected_version)
    return outcome, resolution


def _die(d: Any) -> dict[str, Any]:
    return {
        "index": d.index,
        "label": d.label,
        "sides": d.sides,
        "value": d.value,
        "original": d.original,
        "face": d.face,
        "modifier": d.modifier,
        "outcome": d.outcome,
        "stage": d.stage,
    }
