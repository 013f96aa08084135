"""Leagues logic: leagues, registrations, rounds, games and results, standings, Elo.

Flushes, never commits. The pure logic lives in ``pairing``, ``standings`` and ``elo``; this
module loads what they need from the database and stores what they decide.

Access rules (the full list of choices: docs/rulings/leagues-service.md):

- A private league is seen by the club's members only; a public league by anyone who may see
  the club (so a public league of a private club is still members-only). Anyone else gets 404
  (LeagueNotFound): the league's existence does not leak.
- Only the club's admins (and owner) create and edit leagues, generate rounds, replace a locked
  army snapshot and settle results (403 for a member).
- Club members register (with a "ready" army list, snapshotted); only the two players of a game
  (or an admin) report it; only a player who has not accepted the reported result confirms or
  disputes it; a result counts once both players accepted it or an admin settled it.
"""

from __future__ import annotations

import importlib
import random
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import and_, func, insert, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, aliased, defer

from app.accounts.models import User
from app.clubs import service as clubs
from app.clubs.exceptions import ClubNotFound
from app.clubs.models import Club, Membership
from app.core.db import utcnow
from app.engine import systems
from app.leagues.elo import EloConfig, EloResult, rate
from app.leagues.exceptions import (
    AlreadyRegistered,
    ArmyNotReady,
    GameNotFound,
    GameStateConflict,
    InvalidLeague,
    InvalidResult,
    LadderGameRefused,
    LeagueNotFound,
    LeagueNotRunning,
    NotAClubMember,
    NotTheOtherPlayer,
    NotYourGame,
    OwnGameSettlement,
    RegistrationClosed,
    RegistrationNotFound,
    ReportChanged,
    RoundNotAllowed,
)
from app.leagues.models import (
    Game,
    GameStatus,
    League,
    LeagueFormat,
    LeagueStatus,
    Registration,
    Round,
    Visibility,
)
from app.leagues.pairing import (
    LadderRules,
    PairingError,
    check_ladder_game,
    round_robin,
    swiss_round,
)
from app.leagues.schemas import LeagueCreate, LeagueUpdate, ResultIn
from app.leagues.standings import (
    MAX_VICTORY_POINTS,
    Bye,
    FinalOrder,
    GameResult,
    Scoring,
    Standing,
    StandingsConfig,
    TieBreaker,
    compute_standings,
)

ELO = EloConfig()
"""Every club's Elo pools use the default configuration (K = 32, initial 1500)."""

LOCKED_ONCE_RUNNING = ("format", "rule_system", "legs", "seed")
"""Settings that shape the schedule or the draws: fixed once the league has started."""


# --------------------------------------------------------------------------- the army snapshot


def ready_snapshot(db: Session, user: User, army_id: int) -> dict[str, Any]:
    """The locked copy of one of ``user``'s "ready" army lists (the armies feature's export).

    The one place the leagues feature reaches into the armies feature: it raises an AppError
    when the list is not the user's or not ready. If the armies feature is not installed, no
    list can be registered.
    """
    try:
        armies = importlib.import_module("app.armies.service")
    except ModuleNotFoundError as exc:
        if exc.name is not None and exc.name.startswith("app.armies"):
            raise ArmyNotReady("Army lists are not available on this server yet.") from None
        raise
    snapshot = armies.ready_snapshot(db, user, army_id)
    return dict(snapshot)


def ready_armies(db: Session, user: User, rule_system: str) -> list[tuple[int, str, int | None]]:
    """``user``'s ready lists in ``rule_system`` as (id, name, points), for the pages' pickers;
    empty when the armies feature is not installed."""
    try:
        armies = importlib.import_module("app.armies.service")
    except ModuleNotFoundError:
        return []
    found: list[tuple[int, str, int | None]] = []
    for seen in armies.list_armies(db, user):
        army = seen.army
        if str(army.status) == "ready" and army.rule_system == rule_system:
            found.append((int(army.id), str(army.name), int(seen.points)))
    return found


def _check_snapshot(league: League, snapshot: dict[str, Any]) -> None:
    """A registered list plays the league's rule system and fits its points limit."""
    system = snapshot.get("rule_system")
    if isinstance(system, str) and system != league.rule_system:
        raise ArmyNotReady(
            f"This list is for {system}; the league plays {league.rule_system}.",
            errors=[{"field": "army_id", "message": "wrong rule system", "type": "rule_system"}],
        )
    points = snapshot.get("points")
    if (
        league.points_limit is not None
        and isinstance(points, int)
        and not isinstance(points, bool)
        and points > league.points_limit
    ):
        raise ArmyNotReady(
            f"This list costs {points} points; the league's limit is {league.points_limit}.",
            errors=[{"field": "army_id", "message": "over the points limit", "type": "points"}],
        )


def _army_name(snapshot: dict[str, Any]) -> str:
    for key in ("name", "title"):
        value = snapshot.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()[:120]
    army = snapshot.get("army")
    if isinstance(army, dict):
        return _army_name(army)
    return ""


# --------------------------------------------------------------------------- seeing a league


@dataclass(frozen=True, slots=True)
class LeagueView:
    """A league as one user sees it: their role in the club and their registration."""

    league: League
    club: clubs.ClubView
    registration: Registration | None

    @property
    def manages(self) -> bool:
        return self.club.manages

    @property
    def is_member(self) -> bool:
        return self.club.role is not None

    @property
    def format(self) -> LeagueFormat:
        return LeagueFormat(self.league.format)

    @property
    def status(self) -> LeagueStatus:
        return LeagueStatus(self.league.status)


def _not_found(league_id: int) -> LeagueNotFound:
    return LeagueNotFound(f"There is no league {league_id} you can see.")


def view(db: Session, league_id: int, user: User | None) -> LeagueView:
    """The league if this user may see it, else LeagueNotFound (no leak)."""
    league = db.get(League, league_id)
    if league is None:
        raise _not_found(league_id)
    try:
        seen = clubs.view(db, league.club_id, user)
    except ClubNotFound:
        raise _not_found(league_id) from None
    if seen.role is None and league.visibility != Visibility.PUBLIC:
        raise _not_found(league_id)
    registration = None
    if user is not None:
        registration = db.scalar(
            select(Registration).where(
                Registration.league_id == league_id, Registration.user_id == user.id
            )
        )
    return LeagueView(league, seen, registration)


def require_admin(db: Session, league_id: int, user: User) -> LeagueView:
    seen = view(db, league_id, user)
    clubs.require_admin(db, seen.league.club_id, user)
    return seen


def _visible_clause(user: User | None) -> Any:
    public = and_(League.visibility == Visibility.PUBLIC, Club.is_public.is_(True))
    if user is None:
        return public
    member_of = select(Membership.club_id).where(Membership.user_id == user.id)
    return or_(public, League.club_id.in_(member_of))


def visible_leagues(db: Session, user: User | None, club_id: int | None = None) -> list[League]:
    """Every league this user may see (newest first), optionally of one club."""
    query = select(League).join(Club, Club.id == League.club_id).where(_visible_clause(user))
    if club_id is not None:
        query = query.where(League.club_id == club_id)
    return list(db.scalars(query.order_by(League.created_at.desc(), League.id.desc()).limit(500)))


def club_leagues(db: Session, club_id: int, user: User | None) -> list[League]:
    """The leagues of a club this user may see (404 if the club is not visible)."""
    seen = clubs.view(db, club_id, user)
    query = select(League).where(League.club_id == club_id)
    if seen.role is None:
        query = query.where(League.visibility == Visibility.PUBLIC)
    return list(db.scalars(query.order_by(League.created_at.desc(), League.id.desc())))


def club_names(db: Session, leagues: Iterable[League]) -> dict[int, str]:
    ids = {league.club_id for league in leagues}
    if not ids:
        return {}
    return dict(db.execute(select(Club.id, Club.name).where(Club.id.in_(ids))).tuples().all())


def player_counts(db: Session, leagues: Iterable[League]) -> dict[int, int]:
    ids = [league.id for league in leagues]
    if not ids:
        return {}
    rows = db.execute(
        select(Registration.league_id, func.count())
        .where(Registration.league_id.in_(ids))
        .group_by(Registration.league_id)
    ).tuples()
    return {league_id: int(count) for league_id, count in rows}


# --------------------------------------------------------------------------- creating, editing


def rule_system_ids() -> list[str]:
    return [system.id for system in systems.load_all()]


def _check_rule_system(rule_system: str) -> None:
    known = rule_system_ids()
    if rule_system not in known:
        raise InvalidLeague(
            f"Unknown rule system {rule_system!r}; choose one of {', '.join(known)}.",
            errors=[
                {
                    "field": "rule_system",
                    "message": f"unknown rule system; one of {', '.join(known)}",
                    "type": "unknown_rule_system",
                }
            ],
        )


def create_league(db: Session, user: User, data: LeagueCreate) -> LeagueView:
    seen = clubs.require_admin(db, data.club_id, user)
    _check_rule_system(data.rule_system)
    league = League(
        club_id=data.club_id,
        name=data.name,
        description=data.description,
        rule_system=data.rule_system,
        battle_size=data.battle_size,
        points_limit=data.points_limit,
        mission_pool=list(data.mission_pool),
        starts_on=data.starts_on,
        ends_on=data.ends_on,
        format=data.format,
        rounds_planned=data.rounds if data.format == "swiss" else None,
        legs=data.legs,
        tie_breakers=[str(t) for t in data.tie_breakers],
        visibility=data.visibility,
        status=LeagueStatus.REGISTRATION,
        seed=secrets.randbelow(2**31) if data.seed is None else data.seed,
        created_by_id=user.id,
    )
    _apply_scoring(league, data.scoring.win, data.scoring.draw, data.scoring.loss, data.scoring.bye)
    league.max_meetings = data.ladder.max_meetings
    league.max_games = data.ladder.max_games
    league.no_back_to_back = data.ladder.no_back_to_back
    db.add(league)
    db.flush()
    return LeagueView(league, seen, None)


def _apply_scoring(league: League, win: int, draw: int, loss: int, bye: int | None) -> None:
    league.win_points, league.draw_points, league.loss_points = win, draw, loss
    league.bye_points = win if bye is None else bye


_STATUS_ORDER = (LeagueStatus.REGISTRATION, LeagueStatus.RUNNING, LeagueStatus.FINISHED)


def update_league(db: Session, league_id: int, user: User, data: LeagueUpdate) -> LeagueView:
    seen = require_admin(db, league_id, user)
    league = seen.league
    given = data.model_fields_set
    started = seen.status is not LeagueStatus.REGISTRATION
    if started:
        locked = [
            name
            for name in LOCKED_ONCE_RUNNING
            if name in given and getattr(data, name) != getattr(league, name)
        ]
        if locked:
            raise InvalidLeague(
                f"Once the league has started, these settings are fixed: {', '.join(locked)}.",
                errors=[
                    {"field": name, "message": "fixed once the league started", "type": "locked"}
                    for name in locked
                ],
            )
    for name in ("name", "format", "legs", "visibility", "seed", "rule_system"):
        if name in given and getattr(data, name) is None:
            raise InvalidLeague(
                f"{name} cannot be empty.",
                errors=[{"field": name, "message": "must not be null", "type": "missing"}],
            )
    if "rule_system" in given and data.rule_system is not None:
        _check_rule_system(data.rule_system)
    simple = (
        "name",
        "description",
        "rule_system",
        "battle_size",
        "points_limit",
        "starts_on",
        "ends_on",
        "format",
        "legs",
        "visibility",
        "seed",
    )
    for name in simple:
        if name in given:
            value = getattr(data, name)
            if value is None and name in ("description", "battle_size"):
                value = ""
            setattr(league, name, value)
    if "mission_pool" in given:
        league.mission_pool = list(data.mission_pool or [])
    if "tie_breakers" in given:
        league.tie_breakers = [str(t) for t in data.tie_breakers or []]
    if "scoring" in given and data.scoring is not None:
        s = data.scoring
        _apply_scoring(league, s.win, s.draw, s.loss, s.bye)
    if "ladder" in given and data.ladder is not None:
        league.max_meetings = data.ladder.max_meetings
        league.max_games = data.ladder.max_games
        league.no_back_to_back = data.ladder.no_back_to_back
    if "rounds" in given:
        league.rounds_planned = data.rounds
    if league.format == LeagueFormat.SWISS:
        if league.rounds_planned is None:
            raise InvalidLeague("A Swiss league needs its number of rounds.")
        done = _round_count(db, league.id)
        if league.rounds_planned < done:
            raise InvalidLeague(f"{done} rounds have already been played.")
    else:
        league.rounds_planned = None
    if league.starts_on and league.ends_on and league.ends_on < league.starts_on:
        raise InvalidLeague("The end date is before the start date.")
    if "status" in given and data.status is not None:
        _move_status(league, LeagueStatus(data.status))
    db.flush()
    return seen


def _move_status(league: League, target: LeagueStatus) -> None:
    current = LeagueStatus(league.status)
    if _STATUS_ORDER.index(target) < _STATUS_ORDER.index(current):
        raise InvalidLeague(
            f"A league moves forward only (registration, running, finished): it is {current}."
        )
    league.status = target


def set_status(db: Session, league_id: int, user: User, status: LeagueStatus) -> LeagueView:
    seen = require_admin(db, league_id, user)
    _move_status(seen.league, status)
    db.flush()
    return seen


# --------------------------------------------------------------------------- registrations


def registrations(
    db: Session, league_id: int, *, with_snapshot: bool = False
) -> list[tuple[Registration, User]]:
    """The league's registrations with their users, in registration order (the seeding).

    The army snapshots (whole list exports) are loaded only when asked for, or on access.
    """
    query = (
        select(Registration, User)
        .join(User, User.id == Registration.user_id)
        .where(Registration.league_id == league_id)
        .order_by(Registration.id)
    )
    if not with_snapshot:
        query = query.options(defer(Registration.snapshot))
    return [(r, u) for r, u in db.execute(query).tuples()]


def player_ids(db: Session, league_id: int) -> list[int]:
    """The registration ids of the league, in registration order (the seeding order)."""
    query = select(Registration.id).where(Registration.league_id == league_id)
    return list(db.scalars(query.order_by(Registration.id)))


def list_registrations(
    db: Session, league_id: int, user: User | None
) -> list[tuple[Registration, User]]:
    view(db, league_id, user)
    return registrations(db, league_id, with_snapshot=True)


def registration_open(league: League) -> bool:
    status = LeagueStatus(league.status)
    if status is LeagueStatus.REGISTRATION:
        return True
    # An open ladder takes late comers while it runs.
    return status is LeagueStatus.RUNNING and league.format == LeagueFormat.LADDER


def register(db: Session, league_id: int, user: User, army_id: int) -> Registration:
    seen = view(db, league_id, user)
    if not seen.is_member:
        raise NotAClubMember("Only the club's members may register in its leagues.")
    if not registration_open(seen.league):
        raise RegistrationClosed("Registration for this league is closed.")
    if seen.registration is not None:
        raise AlreadyRegistered("You are already registered in this league.")
    snapshot = ready_snapshot(db, user, army_id)
    _check_snapshot(seen.league, snapshot)
    registration = Registration(
        league_id=league_id,
        user_id=user.id,
        army_id=army_id,
        army_name=_army_name(snapshot),
        snapshot=snapshot,
        registered_at=utcnow(),
    )
    db.add(registration)
    try:
        with db.begin_nested():
            db.flush()
    except IntegrityError:
        raise AlreadyRegistered("You are already registered in this league.") from None
    return registration


def _registration_in(db: Session, league_id: int, registration_id: int) -> Registration:
    registration = db.get(Registration, registration_id)
    if registration is None or registration.league_id != league_id:
        raise RegistrationNotFound(f"This league has no registration {registration_id}.")
    return registration


def replace_snapshot(
    db: Session, league_id: int, user: User, registration_id: int, army_id: int
) -> Registration:
    """An admin re-locks a player's registration on one of the PLAYER's ready lists."""
    seen = require_admin(db, league_id, user)
    registration = _registration_in(db, league_id, registration_id)
    player = db.get(User, registration.user_id)
    assert player is not None
    snapshot = ready_snapshot(db, player, army_id)
    _check_snapshot(seen.league, snapshot)
    registration.army_id = army_id
    registration.army_name = _army_name(snapshot)
    registration.snapshot = snapshot
    registration.snapshot_replaced_by_id = user.id
    registration.snapshot_replaced_at = utcnow()
    db.flush()
    return registration


def withdraw(db: Session, league_id: int, user: User, registration_id: int) -> None:
    """A player withdraws (or an admin removes them) before the league starts; in a running
    open ladder, a player with no game yet may still withdraw."""
    seen = view(db, league_id, user)
    registration = _registration_in(db, league_id, registration_id)
    if registration.user_id != user.id and not seen.manages:
        if not seen.is_member:
            raise NotAClubMember("Only the club's members may do this.")
        raise NotYourGame("Only the player or a club admin may withdraw a registration.")
    status = seen.status
    if status is not LeagueStatus.REGISTRATION:
        has_games = db.scalar(
            select(func.count())
            .select_from(Game)
            .where(or_(Game.player_a_id == registration.id, Game.player_b_id == registration.id))
        )
        if not (
            status is LeagueStatus.RUNNING and seen.format is LeagueFormat.LADDER and not has_games
        ):
            raise RegistrationClosed(
                "The league has started: a registration can no longer be withdrawn."
            )
    db.delete(registration)
    db.flush()


# --------------------------------------------------------------------------- results as input


def confirmed_results(db: Session, league_id: int) -> list[GameResult]:
    """The league's confirmed games, oldest result first."""
    rows = db.execute(
        select(Game.player_a_id, Game.player_b_id, Game.winner_id, Game.vp_a, Game.vp_b)
        .where(Game.league_id == league_id, Game.status == GameStatus.CONFIRMED)
        .order_by(Game.reported_at, Game.id)
    ).tuples()
    return [GameResult(a, b, winner, vp_a or 0, vp_b or 0) for a, b, winner, vp_a, vp_b in rows]


def league_byes(db: Session, league_id: int) -> list[Bye]:
    rows = db.execute(
        select(Round.bye_id, Round.number)
        .where(Round.league_id == league_id, Round.bye_id.is_not(None))
        .order_by(Round.number)
    ).tuples()
    return [Bye(int(bye_id), number) for bye_id, number in rows if bye_id is not None]


def scoring_of(league: League) -> Scoring:
    return Scoring(
        win=league.win_points,
        draw=league.draw_points,
        loss=league.loss_points,
        bye=league.bye_points,
    )


def tie_breakers_of(league: League) -> tuple[TieBreaker, ...]:
    return tuple(TieBreaker(t) for t in league.tie_breakers)


# --------------------------------------------------------------------------- rounds


def _round_count(db: Session, league_id: int) -> int:
    return int(
        db.scalar(select(func.count()).select_from(Round).where(Round.league_id == league_id)) or 0
    )


def planned_rounds(db: Session, league: League) -> int | None:
    """Rounds of the whole league: the Swiss number, or the round robin schedule's length."""
    if league.format == LeagueFormat.SWISS:
        return league.rounds_planned
    if league.format == LeagueFormat.ROUND_ROBIN:
        n = int(
            db.scalar(
                select(func.count())
                .select_from(Registration)
                .where(Registration.league_id == league.id)
            )
            or 0
        )
        if n < 2:
            return None
        return (n - 1 if n % 2 == 0 else n) * league.legs
    return None


def generate_round(db: Session, league_id: int, user: User) -> Round:
    """The next round (admins): the round robin schedule's next round, or the next Swiss
    round drawn with ``random.Random(f"{seed}:{number}")``. Starts the league."""
    seen = require_admin(db, league_id, user)
    league = seen.league
    if seen.format is LeagueFormat.LADDER:
        raise RoundNotAllowed("An open ladder has no rounds: players create their games.")
    if seen.status is LeagueStatus.FINISHED:
        raise RoundNotAllowed("The league is finished.")
    players = player_ids(db, league_id)
    if len(players) < 2:
        raise RoundNotAllowed("At least two players must be registered.")
    done = _round_count(db, league_id)
    number = done + 1
    if seen.format is LeagueFormat.ROUND_ROBIN:
        schedule = round_robin(players, legs=league.legs)
        if done >= len(schedule):
            raise RoundNotAllowed("Every round of the round robin has been generated.")
        scheduled = schedule[done]
        pairs = [(p.table, p.player_a, p.player_b) for p in scheduled.pairings]
        bye, rematches = scheduled.bye, 0
    else:
        if league.rounds_planned is not None and done >= league.rounds_planned:
            raise RoundNotAllowed(f"All {league.rounds_planned} rounds have been generated.")
        pending = db.scalar(
            select(func.count())
            .select_from(Game)
            .where(Game.league_id == league_id, Game.status != GameStatus.CONFIRMED)
        )
        if pending:
            raise RoundNotAllowed(
                f"Round {done} still has {pending} game(s) without a confirmed result: "
                "the next Swiss round is paired on confirmed results."
            )
        rng = random.Random(f"{league.seed}:{number}")
        try:
            drawn = swiss_round(
                players,
                confirmed_results(db, league_id),
                league_byes(db, league_id),
                rng,
                scoring=scoring_of(league),
            )
        except PairingError as exc:  # pragma: no cover - inputs are checked above
            raise RoundNotAllowed(str(exc)) from None
        pairs = [(p.table, p.player_a, p.player_b) for p in drawn.pairings]
        bye, rematches = drawn.bye, drawn.rematches
    new_round = Round(league_id=league_id, number=number, bye_id=bye, rematches=rematches)
    try:
        with db.begin_nested():
            db.add(new_round)
            db.flush()
    except IntegrityError:
        raise RoundNotAllowed("Another round was generated at the same time: reload.") from None
    if pairs:
        db.execute(
            insert(Game),
            [
                {
                    "league_id": league_id,
                    "round_id": new_round.id,
                    "table_number": table,
                    "player_a_id": a,
                    "player_b_id": b,
                    "status": GameStatus.SCHEDULED,
                }
                for table, a, b in pairs
            ],
        )
    if seen.status is LeagueStatus.REGISTRATION:
        league.status = LeagueStatus.RUNNING
    db.flush()
    return new_round


def rounds(db: Session, league_id: int) -> list[Round]:
    query = select(Round).where(Round.league_id == league_id).order_by(Round.number)
    return list(db.scalars(query))


def games(
    db: Session,
    league_id: int,
    *,
    registration_id: int | None = None,
    round_id: int | None = None,
    status: GameStatus | None = None,
) -> list[Game]:
    query = select(Game).where(Game.league_id == league_id)
    if registration_id is not None:
        query = query.where(
            or_(Game.player_a_id == registration_id, Game.player_b_id == registration_id)
        )
    if round_id is not None:
        query = query.where(Game.round_id == round_id)
    if status is not None:
        query = query.where(Game.status == status)
    return list(db.scalars(query.order_by(Game.round_id, Game.table_number, Game.id)))


# --------------------------------------------------------------------------- ladder games


def create_ladder_game(
    db: Session, league_id: int, user: User, player_a: int | None, player_b: int
) -> Game:
    """An open-ladder game between two registered players (one of them, or an admin, asks)."""
    seen = view(db, league_id, user)
    league = seen.league
    if seen.format is not LeagueFormat.LADDER:
        raise RoundNotAllowed("Only an open ladder takes games outside rounds.")
    if not seen.is_member:
        raise NotAClubMember("Only the club's members may create games.")
    if seen.status is not LeagueStatus.RUNNING:
        raise LeagueNotRunning("Games can be created while the league is running only.")
    if player_a is None:
        if seen.registration is None:
            raise NotYourGame("You are not registered in this league.")
        player_a = seen.registration.id
    mine = seen.registration.id if seen.registration else None
    if mine not in (player_a, player_b) and not seen.manages:
        raise NotYourGame("You may create your own games only (admins create any game).")
    players = player_ids(db, league_id)
    booked = [
        GameResult(g.player_a_id, g.player_b_id, None)
        for g in db.scalars(
            select(Game).where(Game.league_id == league_id).order_by(Game.created_at, Game.id)
        )
    ]
    problems = check_ladder_game(
        player_a,
        player_b,
        players=players,
        games=booked,
        rules=LadderRules(
            max_meetings=league.max_meetings,
            max_games=league.max_games,
            no_back_to_back=league.no_back_to_back,
        ),
    )
    if problems:
        raise LadderGameRefused(
            "; ".join(p.message for p in problems) + ".",
            errors=[
                {"field": None, "code": str(p.code), "message": p.message, "player": p.player}
                for p in problems
            ],
        )
    game = Game(
        league_id=league_id,
        player_a_id=player_a,
        player_b_id=player_b,
        status=GameStatus.SCHEDULED,
    )
    db.add(game)
    db.flush()
    return game


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class GameView:
    """A game with its league as one user sees it, and which side the user plays."""

    seen: LeagueView
    game: Game
    player_a: Registration
    player_b: Registration
    side: str | None  # "a", "b" or None (not a player)

    @property
    def accepted(self) -> bool:
        """The user (a player) has already accepted the reported result."""
        if self.side == "a":
            return self.game.accepted_a
        if self.side == "b":
            return self.game.accepted_b
        return False

    @property
    def can_report(self) -> bool:
        status = GameStatus(self.game.status)
        if status is GameStatus.CONFIRMED or self.seen.status is not LeagueStatus.RUNNING:
            return False
        if self.side is None:
            return self.seen.manages
        if status is GameStatus.REPORTED:
            return self.accepted  # the reporter corrects their own report
        return True

    @property
    def can_confirm(self) -> bool:
        return (
            self.side is not None
            and GameStatus(self.game.status) is GameStatus.REPORTED
            and not self.accepted
        )

    @property
    def can_settle(self) -> bool:
        return self.seen.manages and self.side is None


def game_view(
    db: Session, league_id: int, game_id: int, user: User | None, *, for_change: bool = False
) -> GameView:
    """The game as ``user`` sees it (GameNotFound if the league has no such game).

    ``for_change``: the game is read afresh and locked until the transaction ends (a Postgres
    row lock; SQLite writers are already serialised by BEGIN IMMEDIATE), so that a report, a
    correction, a confirmation, a dispute and a settlement of one game apply one after the
    other, each seeing what the previous one wrote.
    """
    seen = view(db, league_id, user)
    game = _game_for_change(db, game_id) if for_change else db.get(Game, game_id)
    if game is None or game.league_id != league_id:
        raise GameNotFound(f"This league has no game {game_id}.")
    a = db.get(Registration, game.player_a_id)
    b = db.get(Registration, game.player_b_id)
    assert a is not None
    assert b is not None
    side = None
    if user is not None:
        side = "a" if a.user_id == user.id else "b" if b.user_id == user.id else None
    return GameView(seen, game, a, b, side)


def _game_for_change(db: Session, game_id: int) -> Game | None:
    return db.get(Game, game_id, with_for_update=True, populate_existing=True)


def _winner(gv: GameView, result: str) -> int | None:
    if result == "player_a":
        return gv.player_a.id
    if result == "player_b":
        return gv.player_b.id
    return None


def _set_result(game: Game, winner: int | None, vp_a: int, vp_b: int) -> None:
    for vp in (vp_a, vp_b):
        if not 0 <= vp <= MAX_VICTORY_POINTS:
            raise InvalidResult(f"Victory points must be 0..{MAX_VICTORY_POINTS}.")
    game.winner_id = winner
    game.vp_a, game.vp_b = vp_a, vp_b
    game.reported_at = utcnow()
    game.report_version += 1  # answers to an earlier report are refused (ReportChanged)


def report(db: Session, league_id: int, game_id: int, user: User, data: ResultIn) -> Game:
    """A player (or an admin) enters the result by hand; the other player then confirms.

    The reporter's report is their acceptance; an admin who does not play reports for both
    players to confirm (or settles instead).
    """
    gv = game_view(db, league_id, game_id, user, for_change=True)
    game = gv.game
    if gv.side is None and not gv.seen.manages:
        raise NotYourGame("Only the two players or a club admin may report this game.")
    if gv.seen.status is not LeagueStatus.RUNNING:
        raise LeagueNotRunning("Results are reported while the league is running.")
    status = GameStatus(game.status)
    if status is GameStatus.CONFIRMED:
        raise GameStateConflict("This result is confirmed: only a club admin can correct it.")
    if status is GameStatus.REPORTED and gv.side is not None and not gv.accepted:
        raise GameStateConflict(
            "Your opponent has already reported this game: confirm or dispute their result."
        )
    _set_result(game, _winner(gv, data.result), data.vp_a, data.vp_b)
    game.status = GameStatus.REPORTED
    game.reported_by_id = user.id
    game.accepted_a = gv.side == "a"
    game.accepted_b = gv.side == "b"
    game.confirmed_by_id = None
    game.confirmed_at = None
    db.flush()
    return game


def result_text(game: Game, name_a: str, name_b: str) -> str:
    """The recorded result in words ("Alice won 90–10", "Draw 50–50", "no result yet")."""
    if GameStatus(game.status) is GameStatus.SCHEDULED:
        return "no result yet"
    score = f"{game.vp_a or 0}–{game.vp_b or 0}"
    if game.winner_id is None:
        return f"Draw {score}"
    winner = name_a if game.winner_id == game.player_a_id else name_b
    return f"{winner} won {score}"


def _check_report_version(db: Session, gv: GameView, seen_version: int | None) -> None:
    """The answer names the report it answers: a changed report refuses it (409).

    ``seen_version`` is ``None`` when the caller did not say (a page from before versions):
    refused the same way, so that the player is shown the result they would answer.
    """
    game = gv.game
    if seen_version is not None and seen_version == game.report_version:
        return
    names = dict(
        db.execute(
            select(User.id, User.display_name).where(
                User.id.in_([gv.player_a.user_id, gv.player_b.user_id])
            )
        )
        .tuples()
        .all()
    )
    now = result_text(
        game, names.get(gv.player_a.user_id, "A"), names.get(gv.player_b.user_id, "B")
    )
    raise ReportChanged(
        f"The result was changed after you saw it (report {seen_version}, now "
        f"{game.report_version}): it is now {now} ({game.status}). Nothing was recorded: "
        "check the current result and answer it again.",
        report_version=game.report_version,
        seen_version=seen_version,
    )


def _check_other_player(gv: GameView) -> None:
    if gv.side is None:
        if gv.seen.manages:
            raise NotTheOtherPlayer(
                "Only a player confirms or disputes a result; an admin settles it instead."
            )
        raise NotYourGame("Only the two players of this game may confirm or dispute it.")


def _check_answerable(gv: GameView) -> None:
    if GameStatus(gv.game.status) is not GameStatus.REPORTED:
        raise GameStateConflict(
            f"There is no reported result to answer (the game is {gv.game.status})."
        )
    if gv.accepted:
        raise NotTheOtherPlayer("You have accepted this result: your opponent confirms it.")


def _answerable(
    db: Session, league_id: int, game_id: int, user: User, report_version: int | None
) -> GameView:
    """The game, locked, if ``user`` may answer the report ``report_version`` now."""
    gv = game_view(db, league_id, game_id, user, for_change=True)
    _check_other_player(gv)
    _check_report_version(db, gv, report_version)
    _check_answerable(gv)
    return gv


def confirm(
    db: Session, league_id: int, game_id: int, user: User, report_version: int | None
) -> Game:
    """The other player accepts the report they saw (``report_version``); a report changed
    since is not confirmed (ReportChanged)."""
    gv = _answerable(db, league_id, game_id, user, report_version)
    game = gv.game
    if gv.side == "a":
        game.accepted_a = True
    else:
        game.accepted_b = True
    if game.accepted_a and game.accepted_b:
        game.status = GameStatus.CONFIRMED
        game.confirmed_by_id = user.id
        game.confirmed_at = utcnow()
    db.flush()
    return game


def dispute(
    db: Session, league_id: int, game_id: int, user: User, note: str, report_version: int | None
) -> Game:
    """The other player refuses the report they saw (``report_version``), with a note."""
    gv = _answerable(db, league_id, game_id, user, report_version)
    game = gv.game
    game.status = GameStatus.DISPUTED
    game.disputed_by_id = user.id
    game.dispute_note = note[:500]
    game.accepted_a = game.accepted_b = False
    db.flush()
    return game


def settle(db: Session, league_id: int, game_id: int, user: User, data: ResultIn) -> Game:
    """A club admin who does not play the game decides its result: it is confirmed at once
    (also a correction of a confirmed result, or a forfeit of a game never reported)."""
    require_admin(db, league_id, user)
    gv = game_view(db, league_id, game_id, user, for_change=True)
    if gv.side is not None:
        raise OwnGameSettlement("You play in this game: another admin of the club settles it.")
    game = gv.game
    _set_result(game, _winner(gv, data.result), data.vp_a, data.vp_b)
    now = utcnow()
    if game.reported_by_id is None and game.match_id is None:
        game.reported_by_id = user.id
    game.status = GameStatus.CONFIRMED
    game.settled_by_id = user.id
    game.settled_at = now
    game.confirmed_by_id = user.id
    game.confirmed_at = now
    db.flush()
    return game


def report_from_match(
    db: Session,
    game_id: int,
    *,
    winner_user_id: int | None,
    vp: tuple[int, int],
    match_id: int,
    confirmed_by_both: bool = False,
) -> Game:
    """The match tracker reports a tracked match's result to the fixture it was created from.

    ``winner_user_id`` is the winner's user id (``None``: a draw); ``vp`` is (player A's,
    player B's) victory points, in the FIXTURE's order. The result still needs both players'
    confirmation, unless ``confirmed_by_both`` says they already confirmed it in the tracker.
    A confirmed fixture is not overwritten (GameStateConflict).
    """
    game = _game_for_change(db, game_id)
    if game is None:
        raise GameNotFound(f"There is no league game {game_id}.")
    if GameStatus(game.status) is GameStatus.CONFIRMED:
        raise GameStateConflict("This fixture already has a confirmed result.")
    a = db.get(Registration, game.player_a_id)
    b = db.get(Registration, game.player_b_id)
    assert a is not None
    assert b is not None
    if winner_user_id is None:
        winner = None
    elif winner_user_id == a.user_id:
        winner = a.id
    elif winner_user_id == b.user_id:
        winner = b.id
    else:
        raise InvalidResult(f"User {winner_user_id} does not play this fixture.")
    if len(vp) != 2:
        raise InvalidResult("Victory points are a pair: (player A's, player B's).")
    _set_result(game, winner, int(vp[0]), int(vp[1]))
    game.match_id = match_id
    game.reported_by_id = None
    game.accepted_a = game.accepted_b = confirmed_by_both
    if confirmed_by_both:
        game.status = GameStatus.CONFIRMED
        game.confirmed_by_id = None
        game.confirmed_at = utcnow()
    else:
        game.status = GameStatus.REPORTED
        game.confirmed_by_id = None
        game.confirmed_at = None
    db.flush()
    return game


# --------------------------------------------------------------------------- standings


@dataclass(frozen=True, slots=True)
class StandingsView:
    seen: LeagueView
    rows: tuple[Standing, ...]
    players: dict[int, tuple[Registration, User]]


def standings(db: Session, league_id: int, user: User | None) -> StandingsView:
    seen = view(db, league_id, user)
    return standings_for(db, seen)


def standings_for(db: Session, seen: LeagueView) -> StandingsView:
    league = seen.league
    regs = registrations(db, league.id)
    players = {r.id: (r, u) for r, u in regs}
    rows = compute_standings(
        list(players),
        confirmed_results(db, league.id),
        league_byes(db, league.id),
        StandingsConfig(
            scoring=scoring_of(league),
            tie_breakers=tie_breakers_of(league),
            final_order=FinalOrder.NAME,
        ),
        names={rid: u.display_name for rid, (_r, u) in players.items()},
    )
    return StandingsView(seen, rows, players)


# --------------------------------------------------------------------------- Elo


@dataclass(frozen=True, slots=True)
class EloView:
    club: clubs.ClubView
    rule_system: str
    public_only: bool
    result: EloResult
    names: dict[int, str]


def club_elo(db: Session, club_id: int, user: User | None, rule_system: str) -> EloView:
    """Elo of the club's players in one rule system, from every confirmed result of the club's
    leagues in that system, oldest first. A visitor who is not a member (public club) gets the
    ratings from the public leagues only, so private results never leak."""
    seen = clubs.view(db, club_id, user)
    _check_rule_system(rule_system)
    public_only = seen.role is None
    ra, rb = aliased(Registration), aliased(Registration)
    query = (
        select(ra.user_id, rb.user_id, Game.winner_id, ra.id, Game.vp_a, Game.vp_b)
        .join(League, League.id == Game.league_id)
        .join(ra, ra.id == Game.player_a_id)
        .join(rb, rb.id == Game.player_b_id)
        .where(
            League.club_id == club_id,
            League.rule_system == rule_system,
            Game.status == GameStatus.CONFIRMED,
        )
        .order_by(Game.reported_at, Game.id)
    )
    if public_only:
        query = query.where(League.visibility == Visibility.PUBLIC)
    results = []
    for user_a, user_b, winner, reg_a, vp_a, vp_b in db.execute(query).tuples():
        if user_a == user_b:  # pragma: no cover - a registration pair is two users
            continue
        winner_user = None if winner is None else (user_a if winner == reg_a else user_b)
        results.append(GameResult(user_a, user_b, winner_user, vp_a or 0, vp_b or 0))
    result = rate(results, ELO)
    ids = [r.player for r in result.ratings]
    names: dict[int, str] = {}
    if ids:
        names = dict(
            db.execute(select(User.id, User.display_name).where(User.id.in_(ids))).tuples().all()
        )
    return EloView(seen, rule_system, public_only, result, names)


def club_rule_systems(db: Session, club_id: int, user: User | None) -> list[str]:
    """The rule systems of the club's leagues this user may see (for the club page's Elo)."""
    leagues = club_leagues(db, club_id, user)
    known = rule_system_ids()
    used = {league.rule_system for league in leagues}
    return [rs for rs in known if rs in used]


# --------------------------------------------------------------------------- pages' helpers


def users_by_registration(
    db: Session, registration_ids: Sequence[int]
) -> dict[int, tuple[Registration, User]]:
    if not registration_ids:
        return {}
    rows = db.execute(
        select(Registration, User)
        .join(User, User.id == Registration.user_id)
        .where(Registration.id.in_(set(registration_ids)))
    ).all()
    return {r.id: (r, u) for r, u in rows}


@dataclass(frozen=True, slots=True)
class LeagueFacts:
    """What a listing shows of each league beyond its row (batched: no N+1)."""

    club_names: dict[int, str]
    player_counts: dict[int, int]
    round_counts: dict[int, int]
    roles: dict[int, str]  # club id -> the viewer's role
    registrations: dict[int, int]  # league id -> the viewer's registration id


def league_facts(db: Session, leagues: Sequence[League], user: User | None) -> LeagueFacts:
    ids = [league.id for league in leagues]
    club_ids = {league.club_id for league in leagues}
    rounds_: dict[int, int] = {}
    roles: dict[int, str] = {}
    mine: dict[int, int] = {}
    if ids:
        rounds_ = {
            league_id: int(count)
            for league_id, count in db.execute(
                select(Round.league_id, func.count())
                .where(Round.league_id.in_(ids))
                .group_by(Round.league_id)
            ).tuples()
        }
        if user is not None:
            roles = dict(
                db.execute(
                    select(Membership.club_id, Membership.role).where(
                        Membership.user_id == user.id, Membership.club_id.in_(club_ids)
                    )
                )
                .tuples()
                .all()
            )
            mine = dict(
                db.execute(
                    select(Registration.league_id, Registration.id).where(
                        Registration.user_id == user.id, Registration.league_id.in_(ids)
                    )
                )
                .tuples()
                .all()
            )
    return LeagueFacts(club_names(db, leagues), player_counts(db, leagues), rounds_, roles, mine)


def round_numbers(db: Session, league_id: int) -> dict[int, int]:
    return dict(
        db.execute(select(Round.id, Round.number).where(Round.league_id == league_id))
        .tuples()
        .all()
    )
