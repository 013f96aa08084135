"""Match logic: create, join, act, read, export/import. Flushes, never commits.

**Rule systems.** A match is played under one rule system (``matches.rule_system``); what is
particular to it (its battle façade, missions, armies, options, set-up) is looked up in
:mod:`app.matches.systems` (ADR 0013), and everything here works on any
:class:`~app.engine.match.game.MatchGame`.

**Event sourcing.** A match is its ``match_events`` rows; the state is their replay (the
system's battle façade), kept in a bounded in-process LRU keyed by match
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
``pg_notify`` issued inside the write's transaction reaches the other workers at commit. The
write path itself lives in :mod:`app.matches.writes`.

**Seats and invitations** (the caller's seat, the match secret, invitation codes and guest
links) live in :mod:`app.matches.invitations`.

**Secrets.** Everything a player is served goes through ``game.view(seat)`` /
``game.log_json(seat)`` (the engine leaves the other seat's secret events out, not masked)
and the full log (``export``) is served only once the viewer can see every event or the battle
is over.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import bindparam, delete, func, or_, select
from sqlalchemy.orm import Session

from app.accounts.models import User
from app.accounts.service import lock_user
from app.core.deps import autocommit_write
from app.core.i18n import gettext as _
from app.engine.combat import CombatResolution
from app.engine.errors import EngineError
from app.engine.match import Envelope, LogError, Mission, Refusal, StaleVersion
from app.engine.match.game import MatchGame
from app.engine.match.seats import Seat
from app.matches import league_games, reads, systems
from app.matches.exceptions import (
    CommandRefused,
    ExportNotYet,
    InvalidLog,
    InvitationInvalid,
    LeagueGameUnusable,
    MatchLimitReached,
    MatchNotFound,
    MatchNotStarted,
    MatchStarted,
    NoCombatInMatch,
    NotTheCreator,
    OwnMatch,
    SeatTaken,
)
from app.matches.invitations import (
    Caller,
    by_guest_token,
    by_invite_code,
    get_for,
    guest_token,
    invite_code,
    issue_invitation,
    match_secret,
    normalise_code,
    rotate_invitation,
    seat_of,
)
from app.matches.models import Match, MatchStatus, OpponentKind
from app.matches.systems import DEFAULT_RULESET, SetupInput
from app.matches.writes import (
    NOTIFY_CHANNEL,
    Publisher,
    WriteTarget,
    after_commit,
    append,
    bind_publisher,
    league_game_path,
    publisher_of,
)

__all__ = [  # the façade the pages and the API import (ADR 0013)
    "NOTIFY_CHANNEL",
    "Caller",
    "Head",
    "Outcome",
    "Publisher",
    "after_commit",
    "bind_publisher",
    "by_guest_token",
    "by_invite_code",
    "cancel",
    "command",
    "create",
    "execute",
    "export",
    "get_for",
    "guest_token",
    "import_log",
    "invite_code",
    "join",
    "join_as_guest",
    "join_by_code",
    "league_game_path",
    "legal_actions",
    "load_battle",
    "log_for",
    "match_secret",
    "may_cancel",
    "missions",
    "my_matches",
    "normalise_code",
    "player_names",
    "preview",
    "resolve",
    "rotate_invitation",
    "seat_of",
    "view",
]

log = logging.getLogger("auspex.matches")

MAX_MATCHES_LISTED = 200
# matches one user created that are not over yet (open, in set-up or in battle; imported logs
# count too): 409 past it. An ended match, or one cancelled, frees its place.
MAX_UNFINISHED = 200
UNFINISHED = (MatchStatus.OPEN, MatchStatus.SETUP, MatchStatus.BATTLE)


# -- missions ---------------------------------------------------------------------------------


def missions(ruleset: str = DEFAULT_RULESET) -> dict[str, Mission]:
    """The missions of a rule system shipped as data (``data/missions``), by id."""
    return dict(systems.playable(ruleset).missions())


def own_missions(db: Session, user_id: int, ruleset: str = DEFAULT_RULESET) -> dict[str, Mission]:
    """The missions of the packs ``user_id`` uploaded for a rule system (none for a system
    without uploads), by id: theirs to play, beside the shipped ones."""
    entry = systems.playable(ruleset)
    if entry.owned_missions is None:
        return {}
    return dict(entry.owned_missions(db, user_id))


def new_match_missions(
    db: Session, user_id: int, ruleset: str = DEFAULT_RULESET
) -> dict[str, Mission]:
    """The missions the new-match form offers ``user_id``: the shipped ones, then those of
    :func:`own_missions` a new match may be created on (``MatchSystem.creatable``)."""
    entry = systems.playable(ruleset)
    own = {k: m for k, m in own_missions(db, user_id, ruleset).items() if entry.creatable(m)}
    return missions(ruleset) | own


def mission_and_size(
    mission_id: str, battle_size: str, ruleset: str = DEFAULT_RULESET
) -> tuple[Mission, int]:
    return systems.mission_and_size(systems.playable(ruleset), mission_id, battle_size)


def fork(battle: MatchGame) -> MatchGame:
    """A copy of ``battle`` that can execute commands without touching the original (the log
    list and undo stack are copied; the state and the envelopes are immutable values)."""
    return battle.fork()


def load_battle(db: Session, match: Match) -> Any:
    """The match's battle at its current version (cached, else replayed from its rows): its
    system's :class:`MatchGame` (typed ``Any`` for the pages, which read the 10th edition's
    state until they are made neutral)."""
    if match.version == 0:
        raise MatchNotStarted()
    return reads.snapshot(db, match).battle


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


@dataclass(frozen=True, slots=True)
class Head:
    """What a refresh of ``GET /matches/{id}`` needs to answer 304: the row's fields its ETag
    digests, the players' names and the caller's seat, read by one Core select (no ORM
    instance: the refresh of an unchanged match builds nothing)."""

    id: int
    version: int
    seat: Seat
    names: dict[str, str]
    status: str
    round: int
    vp_a: int
    vp_b: int
    winner: str | None
    league_game_id: int | None
    league_reported: bool
    league_report_error: str | None
    updated_at: datetime | None


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


def _league_game(db: Session, game_id: int) -> league_games.LeagueGame:
    """The unsettled league game ``game_id``, asked of the leagues feature's port (none without
    it); 422 ``league-game-unusable`` otherwise."""
    port = league_games.league_games()
    game = None if port is None else port.game(db, game_id)
    if game is None or game.settled:
        raise LeagueGameUnusable(f"League game {game_id} does not exist or is already settled.")
    return game


def check_league_game(
    db: Session, game_id: int, user: User, *, joining: bool, rule_system: str | None = None
) -> None:
    """A league game ``user`` may play in a match (of ``rule_system``, when given): it exists,
    is not settled, ``user`` plays it, its league plays that rule system, and (unless
    ``joining``) no other unfinished match tracks it; 422 ``league-game-unusable`` otherwise."""
    game = _league_game(db, game_id)
    if rule_system is not None and game.rule_system != rule_system:
        raise LeagueGameUnusable(
            f"League game {game_id} is played under {game.rule_system}; this match is "
            f"{rule_system}."
        )
    if user.id not in game.players:
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


def unfinished_matches(db: Session, user: User) -> int:
    """How many matches ``user`` created that are not over yet."""
    found = db.scalar(
        select(func.count())
        .select_from(Match)
        .where(Match.created_by_id == user.id, Match.status.in_(UNFINISHED))
    )
    return found or 0


def room_for_one_more(db: Session, user: User) -> None:
    """409 when ``user`` created :data:`MAX_UNFINISHED` matches not over yet; the user's row is
    held until the creation commits, so that two creations at once count one after the other."""
    lock_user(db, user.id)
    if unfinished_matches(db, user) >= MAX_UNFINISHED:
        raise MatchLimitReached(
            _(
                "You have %(n)d unfinished matches, the most one account may have: finish or "
                "cancel one first."
            )
            % {"n": MAX_UNFINISHED}
        )


def create(
    db: Session,
    user: User,
    *,
    army_id: int | None,
    mission_id: str | None,
    battle_size: str | None,
    opponent: OpponentKind,
    league_game_id: int | None = None,
    options: Mapping[str, Any] | None = None,
    ruleset: str = DEFAULT_RULESET,
    mission: Mission | None = None,
) -> Match:
    """A new match of ``ruleset`` with the creator's ready list in seat A, waiting for its
    opponent (the system's default mission and size when none is named). ``mission``: the
    mission ``mission_id`` names, found by the caller where the creator's own are not (a
    Black Reach scenario of a set shared by link)."""
    system = systems.playable(ruleset)
    room_for_one_more(db, user)
    mission_id = mission_id or system.default_mission
    battle_size = battle_size or system.default_size
    owned = {mission_id: mission} if mission is not None and mission.id == mission_id else None
    mission, points = systems.mission_and_size(
        system, mission_id, battle_size, db=db, owner_id=user.id, given=owned
    )
    stored_options = system.parse_options(options)
    system.check_options(mission, stored_options)
    if league_game_id is not None:
        if opponent is OpponentKind.GUEST:
            raise LeagueGameUnusable("A league game is played between two registered players.")
        check_league_game(db, league_game_id, user, joining=False, rule_system=system.id)
    snapshot = system.seat_snapshot(db, user, army_id, mission, points, stored_options, Seat.A)
    system.check_snapshot(snapshot, Seat.A)
    match = Match(
        rule_system=system.id,
        mission_id=mission_id,
        battle_size=battle_size,
        status=MatchStatus.OPEN,
        opponent_kind=opponent,
        created_by_id=user.id,
        player_a_id=user.id,
        secret=secrets.token_hex(32),
        army_a=snapshot | {"options": stored_options},
        league_game_id=league_game_id,
        version=0,
    )
    db.add(match)
    db.flush()
    issue_invitation(match)
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
    publisher = publisher_of(db)
    after_commit(db, lambda: reads.cache.discard(cache_key))
    after_commit(db, lambda: publisher(match_id, 0))


def join(
    db: Session,
    match: Match,
    snapshot: Mapping[str, Any],
    *,
    user: User | None,
    guest_name: str = "",
) -> MatchGame:
    """Seat B takes its place: the battle is created from both snapshots (version 2)."""
    if match.version != 0:
        raise SeatTaken()
    if user is not None and match.player_a_id == user.id:
        raise OwnMatch()
    if match.league_game_id is not None:
        if user is None:
            raise LeagueGameUnusable("A league game is played between two registered players.")
        check_league_game(db, match.league_game_id, user, joining=True)
    system = systems.system(match)
    system.check_snapshot(snapshot, Seat.B)
    assert match.army_a is not None
    mission, points = systems.mission_and_size(
        system, match.mission_id, match.battle_size, db=db, owner_id=match.created_by_id
    )
    options = match.army_a.get("options") or {}
    try:
        setup = system.new_setup(
            SetupInput(
                {Seat.A: match.army_a, Seat.B: snapshot},
                mission,
                match.battle_size,
                points,
                options,
            )
        )
        battle = system.game.create(setup, actor="A", at=_now())
    except Refusal as exc:
        raise CommandRefused(exc) from None
    match.army_a = system.joined_snapshot(match.army_a)
    match.army_b = dict(snapshot)
    if user is not None:
        match.player_b_id = user.id
    else:
        match.guest_name = guest_name[:60]
    match.invite_digest = None
    db.flush()
    append(db, match, battle, list(battle.envelopes), 0)
    return battle


def join_by_code(db: Session, user: User, code: str, army_id: int | None) -> Match:
    match = by_invite_code(db, code)
    if match.opponent_kind != OpponentKind.USER:
        raise InvitationInvalid()
    if match.player_a_id == user.id:
        raise OwnMatch()
    system = systems.system(match)
    mission, points = systems.mission_and_size(
        system, match.mission_id, match.battle_size, db=db, owner_id=match.created_by_id
    )
    options = (match.army_a or {}).get("options") or {}
    snapshot = system.seat_snapshot(db, user, army_id, mission, points, options, Seat.B)
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
    system = systems.system(match)
    mission, points = systems.mission_and_size(
        system, match.mission_id, match.battle_size, db=db, owner_id=match.created_by_id
    )
    options = (match.army_a or {}).get("options") or {}
    snapshot = system.guest_snapshot(db, sample, army, mission, points, options, Seat.B)
    join(db, match, snapshot, user=None, guest_name=name.strip() or "Guest")
    return match


# -- commands ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Outcome:
    battle: Any  # the system's MatchGame after the command (Any: see load_battle)
    new: list[Envelope]


def execute(
    db: Session,
    match: Match | WriteTarget,
    seat: str,
    command: Mapping[str, Any],
    *,
    expected_version: int,
    dice: Sequence[int] | None = None,
) -> Outcome:
    """Run one command for ``seat``: validated by the engine, appended atomically. ``match`` is
    the ORM row, or a row of :data:`WRITE_ROW`'s columns (the API's hot path: no ORM
    instance is built, issue 21)."""
    if match.version == 0:
        raise MatchNotStarted()
    battle = reads.snapshot(db, match).battle
    if expected_version != match.version:
        raise CommandRefused(StaleVersion(expected_version, match.version))
    system = systems.playable(match.rule_system)
    try:
        cmd = battle.decode(command)
        system.check_command(cmd)
        work = fork(battle)
        # match_secret reads the row's id and secret only
        secret = match_secret(cast(Match, match))
        seed = None if dice is not None else work.command_seed(secret, cmd, str(seat))
        new = work.execute(
            cmd, str(seat), expected_version=expected_version, seed=seed, dice=dice, at=_now()
        )
    except Refusal as exc:
        raise CommandRefused(exc) from None
    append(db, match, work, new, expected_version)
    return Outcome(work, new)


# What a command needs of its match row, read by one Core select (built once: its cache key is
# memoised on it).
WRITE_ROW = select(
    Match.id,
    Match.secret,
    Match.rule_system,
    Match.version,
    Match.player_a_id,
    Match.player_b_id,
    Match.guest_digest,
    Match.league_game_id,
    Match.spectate_digest,
).where(Match.id == bindparam("match_id"))


def command(
    db: Session,
    match_id: int,
    caller: Caller,
    command: Mapping[str, Any],
    *,
    expected_version: int,
    dice: Sequence[int] | None = None,
) -> tuple[Outcome, Seat]:
    """:func:`execute` for ``caller`` on ``match_id`` (404 unless they play it), the match read
    by one Core select instead of loading its ORM row (the write of the API: issue 21), run on
    the session's connection (``reads.core_rows``: no ORM execution; the transaction it begins
    is the session's own, ``BEGIN IMMEDIATE`` on SQLite for a write session, as before)."""
    autocommit_write(db)  # Postgres: the read and the one-statement write, no transaction
    row: Any = reads.core_rows(db, WRITE_ROW, {"match_id": match_id}).one_or_none()
    seat = None if row is None else seat_of(row, caller)
    if row is None or seat is None:
        raise MatchNotFound()
    outcome = execute(db, row, seat, command, expected_version=expected_version, dice=dice)
    return outcome, seat


# -- reading ----------------------------------------------------------------------------------


def view(db: Session, match: Match, seat: str) -> dict[str, Any] | None:
    if match.version == 0:
        return None
    battle: MatchGame = load_battle(db, match)
    return battle.view(str(seat))


def legal_actions(db: Session, match: Match, seat: str) -> list[dict[str, Any]]:
    if match.version == 0:
        return []
    battle: MatchGame = load_battle(db, match)
    return battle.legal_actions(str(seat))


def log_for(db: Session, match: Match, seat: str, since: int = 0) -> list[dict[str, Any]]:
    if match.version == 0:
        return []
    battle: MatchGame = load_battle(db, match)
    return battle.log_json(str(seat), since=since)


def export(db: Session, match: Match, seat: str) -> dict[str, Any]:
    """The whole log (and the army snapshots), for a viewer who may see every event in it."""
    battle: MatchGame = load_battle(db, match)
    hidden = battle.version - len(battle.log_for(str(seat)))
    if hidden and battle.status().stage != "ended":
        raise ExportNotYet(
            f"{hidden} event(s) of the log are your opponent's secrets until the battle ends."
        )
    data = battle.export_log()
    public = systems.system(match).export_snapshot
    data["armies"] = {
        "A": None if match.army_a is None else public(match.army_a),
        "B": None if match.army_b is None else public(match.army_b),
    }
    return data


def audit(db: Session, match: Match) -> list[dict[str, Any]]:
    battle: MatchGame = load_battle(db, match)
    return battle.audit()


def import_log(db: Session, user: User, data: Mapping[str, Any]) -> Match:
    """A new match replayed from an exported log: the importer takes seat A, seat B is a
    guest seat (its link lets anybody continue the match as B)."""
    if not isinstance(data, Mapping):
        raise InvalidLog("A match log is a JSON object.")
    ruleset = data.get("rule_system")
    if not isinstance(ruleset, str):
        raise InvalidLog("The log names no rule system (its field rule_system).")
    system = systems.playable(ruleset)
    try:
        battle = system.game.import_log(dict(data))
    except (LogError, EngineError) as exc:
        raise InvalidLog(str(exc)) from None
    snapshots = data.get("armies") if isinstance(data.get("armies"), Mapping) else {}
    assert isinstance(snapshots, Mapping)
    found = system.imported(battle, snapshots)
    room_for_one_more(db, user)
    match = Match(
        rule_system=system.id,
        mission_id=found.mission_id,
        battle_size=found.battle_size,
        status=MatchStatus.SETUP,
        opponent_kind=OpponentKind.GUEST,
        created_by_id=user.id,
        player_a_id=user.id,
        guest_name="Guest",
        secret=secrets.token_hex(32),
        army_a=found.army_a,
        army_b=found.army_b,
        version=0,
    )
    db.add(match)
    db.flush()
    issue_invitation(match)
    match.invite_digest = None
    db.flush()
    append(db, match, battle, list(battle.envelopes), 0)
    return match


# -- combat inside the match (systems that offer it) ------------------------------------------


def _combat(match: Match) -> systems.CombatHooks:
    hooks = systems.system(match).combat
    if hooks is None:
        raise NoCombatInMatch(
            "This rule system resolves its attacks through the battle's own commands."
        )
    return hooks


def preview(
    db: Session,
    match: Match,
    seat: str,
    attacker: str,
    target: str,
    weapons: Sequence[Mapping[str, Any]],
    situation: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The exact odds of an attack between two units of the match (nothing is written)."""
    return _combat(match).preview(db, match, seat, attacker, target, weapons, situation)


def resolve(
    db: Session,
    match: Match,
    seat: str,
    attacker: str,
    target: str,
    weapons: Sequence[Mapping[str, Any]],
    situation: Mapping[str, Any] | None = None,
    *,
    expected_version: int,
    dice: Sequence[int] | None = None,
) -> tuple[Outcome, CombatResolution]:
    """Roll an attack live and apply it with the system's command (see its hooks)."""
    return _combat(match).resolve(
        db,
        match,
        seat,
        attacker,
        target,
        weapons,
        situation,
        expected_version=expected_version,
        dice=dice,
    )
