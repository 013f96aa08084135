"""JSON API of leagues: /api/v1/leagues, and a club's leagues and Elo under /api/v1/clubs."""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Annotated, Any

from fastapi import APIRouter, Query, status

from app.accounts.deps import CurrentUser, OptionalUser
from app.accounts.models import User
from app.clubs.models import Role
from app.core.deps import DbSession
from app.core.errors import PROBLEM_JSON
from app.core.ids import MAX_ID
from app.leagues import service
from app.leagues.exceptions import ReportChanged
from app.leagues.models import Game, GameStatus, League, Registration, Round
from app.leagues.schemas import (
    ConfirmIn,
    DisputeIn,
    EloOut,
    ExactOut,
    GameOut,
    LadderGameCreate,
    LadderOut,
    LeagueCreate,
    LeagueOut,
    LeagueUpdate,
    PlayerRef,
    RatingOut,
    RegistrationCreate,
    RegistrationOut,
    ResultIn,
    RoundOut,
    ScoringOut,
    SnapshotReplace,
    StandingOut,
    StandingsOut,
    YouOut,
)
from app.leagues.standings import TieBreaker

router = APIRouter(tags=["leagues"])

Players = dict[int, tuple[Registration, User]]


def exact(value: Fraction) -> ExactOut:
    return ExactOut(exact=str(value), approx=float(value))


def decimal_text(value: Decimal) -> str:
    """A decimal without exponent or trailing zeros ("1516", "1515.26...")."""
    text = format(value, "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def league_out(
    league: League, facts: service.LeagueFacts, rounds_planned: int | None = None
) -> LeagueOut:
    role = facts.roles.get(league.club_id)
    return LeagueOut(
        id=league.id,
        club_id=league.club_id,
        club_name=facts.club_names.get(league.club_id, ""),
        name=league.name,
        description=league.description,
        rule_system=league.rule_system,
        battle_size=league.battle_size,
        points_limit=league.points_limit,
        mission_pool=list(league.mission_pool),
        starts_on=league.starts_on,
        ends_on=league.ends_on,
        format=league.format,
        rounds=league.rounds_planned if rounds_planned is None else rounds_planned,
        rounds_generated=facts.round_counts.get(league.id, 0),
        legs=league.legs,
        scoring=scoring_out(league),
        tie_breakers=[TieBreaker(t) for t in league.tie_breakers],
        ladder=LadderOut(
            max_meetings=league.max_meetings,
            max_games=league.max_games,
            no_back_to_back=league.no_back_to_back,
        ),
        visibility=league.visibility,
        status=league.status,
        seed=league.seed,
        player_count=facts.player_counts.get(league.id, 0),
        created_at=league.created_at,
        you=YouOut(
            is_admin=role is not None and Role(role).manages,
            is_member=role is not None,
            registration_id=facts.registrations.get(league.id),
        ),
    )


def scoring_out(league: League) -> ScoringOut:
    return ScoringOut(
        win=league.win_points,
        draw=league.draw_points,
        loss=league.loss_points,
        bye=league.bye_points,
    )


def one_league(db: DbSession, seen: service.LeagueView, user: User | None) -> LeagueOut:
    facts = service.league_facts(db, [seen.league], user)
    return league_out(seen.league, facts, service.planned_rounds(db, seen.league))


def player_ref(registration: Registration, user: User) -> PlayerRef:
    return PlayerRef(
        registration_id=registration.id, user_id=user.id, display_name=user.display_name
    )


def registration_out(registration: Registration, user: User) -> RegistrationOut:
    return RegistrationOut(
        registration_id=registration.id,
        user_id=user.id,
        display_name=user.display_name,
        league_id=registration.league_id,
        army_id=registration.army_id,
        army_name=registration.army_name,
        registered_at=registration.registered_at,
        snapshot=registration.snapshot,
        snapshot_replaced_by_id=registration.snapshot_replaced_by_id,
        snapshot_replaced_at=registration.snapshot_replaced_at,
    )


def game_out(game: Game, players: Players, numbers: dict[int, int]) -> GameOut:
    a, b = players[game.player_a_id], players[game.player_b_id]
    result = None
    winner_user = None
    if GameStatus(game.status) is not GameStatus.SCHEDULED:
        if game.winner_id is None:
            result = "draw"
        elif game.winner_id == game.player_a_id:
            result, winner_user = "player_a", a[1].id
        else:
            result, winner_user = "player_b", b[1].id
    return GameOut(
        id=game.id,
        league_id=game.league_id,
        round=numbers.get(game.round_id) if game.round_id is not None else None,
        table=game.table_number,
        player_a=player_ref(*a),
        player_b=player_ref(*b),
        status=game.status,
        result=result,
        winner_registration_id=game.winner_id if result is not None else None,
        winner_user_id=winner_user,
        vp_a=game.vp_a,
        vp_b=game.vp_b,
        accepted_a=game.accepted_a,
        accepted_b=game.accepted_b,
        reported_by_id=game.reported_by_id,
        reported_at=game.reported_at,
        confirmed_by_id=game.confirmed_by_id,
        confirmed_at=game.confirmed_at,
        disputed_by_id=game.disputed_by_id,
        dispute_note=game.dispute_note,
        settled_by_id=game.settled_by_id,
        settled_at=game.settled_at,
        match_id=game.match_id,
        report_version=game.report_version,
    )


def games_out(db: DbSession, league_id: int, games: list[Game]) -> list[GameOut]:
    ids = [g.player_a_id for g in games] + [g.player_b_id for g in games]
    players = service.users_by_registration(db, ids)
    numbers = service.round_numbers(db, league_id)
    return [game_out(g, players, numbers) for g in games]


def one_game(db: DbSession, game: Game) -> GameOut:
    return games_out(db, game.league_id, [game])[0]


def round_out(db: DbSession, league_id: int, round_: Round, games: list[Game]) -> RoundOut:
    players = service.users_by_registration(
        db,
        [g.player_a_id for g in games]
        + [g.player_b_id for g in games]
        + ([round_.bye_id] if round_.bye_id else []),
    )
    numbers = {round_.id: round_.number}
    bye = players.get(round_.bye_id) if round_.bye_id is not None else None
    return RoundOut(
        number=round_.number,
        bye=player_ref(*bye) if bye else None,
        rematches=round_.rematches,
        created_at=round_.created_at,
        games=[game_out(g, players, numbers) for g in games],
    )


# --------------------------------------------------------------------------- leagues


@router.get("/leagues", response_model=list[LeagueOut], summary="The leagues you may see")
def list_leagues(
    user: OptionalUser,
    db: DbSession,
    club_id: Annotated[
        int | None, Query(ge=1, le=MAX_ID, description="Only this club's leagues")
    ] = None,
) -> list[LeagueOut]:
    leagues = service.visible_leagues(db, user, club_id)
    facts = service.league_facts(db, leagues, user)
    return [league_out(league, facts) for league in leagues]


@router.post(
    "/leagues",
    response_model=LeagueOut,
    status_code=status.HTTP_201_CREATED,
    summary="Create a league (club admins)",
)
def create_league(data: LeagueCreate, user: CurrentUser, db: DbSession) -> LeagueOut:
    seen = service.create_league(db, user, data)
    return one_league(db, seen, user)


@router.get("/leagues/{league_id}", response_model=LeagueOut, summary="A league")
def get_league(league_id: int, user: OptionalUser, db: DbSession) -> LeagueOut:
    return one_league(db, service.view(db, league_id, user), user)


@router.patch(
    "/leagues/{league_id}",
    response_model=LeagueOut,
    summary="Edit a league, or move its status forward (club admins)",
)
def update_league(
    league_id: int, data: LeagueUpdate, user: CurrentUser, db: DbSession
) -> LeagueOut:
    return one_league(db, service.update_league(db, league_id, user, data), user)


@router.get("/clubs/{club_id}/leagues", response_model=list[LeagueOut], summary="A club's leagues")
def list_club_leagues(club_id: int, user: OptionalUser, db: DbSession) -> list[LeagueOut]:
    leagues = service.club_leagues(db, club_id, user)
    facts = service.league_facts(db, leagues, user)
    return [league_out(league, facts) for league in leagues]


# --------------------------------------------------------------------------- registrations


@router.get(
    "/leagues/{league_id}/registrations",
    response_model=list[RegistrationOut],
    summary="The registered players and their locked army lists",
)
def list_registrations(league_id: int, user: OptionalUser, db: DbSession) -> list[RegistrationOut]:
    return [registration_out(r, u) for r, u in service.list_registrations(db, league_id, user)]


@router.post(
    "/leagues/{league_id}/registrations",
    response_model=RegistrationOut,
    status_code=status.HTTP_201_CREATED,
    summary="Register with one of your ready army lists (club members; the list is locked)",
)
def register(
    league_id: int, data: RegistrationCreate, user: CurrentUser, db: DbSession
) -> RegistrationOut:
    registration = service.register(db, league_id, user, data.army_id)
    return registration_out(registration, user)


@router.put(
    "/leagues/{league_id}/registrations/{registration_id}/snapshot",
    response_model=RegistrationOut,
    summary="Replace a player's locked army list with another of their ready lists (admins)",
)
def replace_snapshot(
    league_id: int,
    registration_id: int,
    data: SnapshotReplace,
    user: CurrentUser,
    db: DbSession,
) -> RegistrationOut:
    registration = service.replace_snapshot(db, league_id, user, registration_id, data.army_id)
    player = db.get(User, registration.user_id)
    assert player is not None
    return registration_out(registration, player)


@router.delete(
    "/leagues/{league_id}/registrations/{registration_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Withdraw before the league starts (the player, or an admin)",
)
def withdraw(league_id: int, registration_id: int, user: CurrentUser, db: DbSession) -> None:
    service.withdraw(db, league_id, user, registration_id)


# --------------------------------------------------------------------------- rounds and games


@router.get("/leagues/{league_id}/rounds", response_model=list[RoundOut], summary="The rounds")
def list_rounds(league_id: int, user: OptionalUser, db: DbSession) -> list[RoundOut]:
    service.view(db, league_id, user)
    all_games = service.games(db, league_id)
    by_round: dict[int | None, list[Game]] = {}
    for game in all_games:
        by_round.setdefault(game.round_id, []).append(game)
    players = service.users_by_registration(
        db,
        [g.player_a_id for g in all_games]
        + [g.player_b_id for g in all_games]
        + [r.bye_id for r in service.rounds(db, league_id) if r.bye_id is not None],
    )
    out = []
    for round_ in service.rounds(db, league_id):
        bye = players.get(round_.bye_id) if round_.bye_id is not None else None
        numbers = {round_.id: round_.number}
        out.append(
            RoundOut(
                number=round_.number,
                bye=player_ref(*bye) if bye else None,
                rematches=round_.rematches,
                created_at=round_.created_at,
                games=[game_out(g, players, numbers) for g in by_round.get(round_.id, [])],
            )
        )
    return out


@router.post(
    "/leagues/{league_id}/rounds",
    response_model=RoundOut,
    status_code=status.HTTP_201_CREATED,
    summary="Generate the next round (admins; round robin or Swiss)",
)
def generate_round(league_id: int, user: CurrentUser, db: DbSession) -> RoundOut:
    round_ = service.generate_round(db, league_id, user)
    return round_out(db, league_id, round_, service.games(db, league_id, round_id=round_.id))


@router.get(
    "/leagues/{league_id}/games", response_model=list[GameOut], summary="The league's games"
)
def list_games(
    league_id: int,
    user: OptionalUser,
    db: DbSession,
    registration_id: Annotated[
        int | None, Query(ge=1, le=MAX_ID, description="One player's games")
    ] = None,
    game_status: Annotated[GameStatus | None, Query(alias="status")] = None,
) -> list[GameOut]:
    service.view(db, league_id, user)
    found = service.games(db, league_id, registration_id=registration_id, status=game_status)
    return games_out(db, league_id, found)


@router.post(
    "/leagues/{league_id}/games",
    response_model=GameOut,
    status_code=status.HTTP_201_CREATED,
    summary="Create an open-ladder game (one of the two players, or an admin)",
)
def create_game(
    league_id: int, data: LadderGameCreate, user: CurrentUser, db: DbSession
) -> GameOut:
    game = service.create_ladder_game(db, league_id, user, data.player_a, data.player_b)
    return one_game(db, game)


@router.get("/leagues/{league_id}/games/{game_id}", response_model=GameOut, summary="A game")
def get_game(league_id: int, game_id: int, user: OptionalUser, db: DbSession) -> GameOut:
    return one_game(db, service.game_view(db, league_id, game_id, user).game)


@router.post(
    "/leagues/{league_id}/games/{game_id}/report",
    response_model=GameOut,
    summary="Report the result by hand (either player, or an admin); the other player confirms",
)
def report(
    league_id: int, game_id: int, data: ResultIn, user: CurrentUser, db: DbSession
) -> GameOut:
    return one_game(db, service.report(db, league_id, game_id, user, data))


_PROBLEM: dict[str, Any] = {"content": {PROBLEM_JSON: {}}}
ANSWER_RESPONSES: dict[int | str, dict[str, Any]] = {
    403: {
        "description": "Not a player of this game, or the player who has already accepted it "
        "(`not-your-game`, `not-the-other-player`)",
        **_PROBLEM,
    },
    409: {
        "description": "The result changed since the version you name (`report-changed`: "
        "nothing was recorded; `report_version` and `game` in the body are the current "
        "report), or there is no reported result to answer (`game-state-conflict`)",
        **_PROBLEM,
    },
    422: {"description": "Missing or invalid body (`report_version` is required)", **_PROBLEM},
}


def answer(
    db: DbSession, league_id: int, game_id: int, user: User, act: Callable[[], Game]
) -> GameOut:
    """A confirm or dispute; a refusal because the report changed carries the current game."""
    try:
        game = act()
    except ReportChanged as exc:
        current = service.game_view(db, league_id, game_id, user).game
        exc.extra["game"] = one_game(db, current).model_dump(mode="json")
        raise
    return one_game(db, game)


@router.post(
    "/leagues/{league_id}/games/{game_id}/confirm",
    response_model=GameOut,
    summary="Confirm the reported result you saw (the player who has not accepted it yet)",
    description="Name the report you confirm with its `report_version` (from the game's JSON): "
    "if the result was changed since, nothing is confirmed and the answer is 409 "
    "`report-changed` with the current game.",
    responses=ANSWER_RESPONSES,
)
def confirm(
    league_id: int, game_id: int, data: ConfirmIn, user: CurrentUser, db: DbSession
) -> GameOut:
    return answer(
        db,
        league_id,
        game_id,
        user,
        lambda: service.confirm(db, league_id, game_id, user, data.report_version),
    )


@router.post(
    "/leagues/{league_id}/games/{game_id}/dispute",
    response_model=GameOut,
    summary="Dispute the reported result you saw (the player who has not accepted it); "
    "an admin settles",
    description="Name the report you dispute with its `report_version`, as for a confirmation.",
    responses=ANSWER_RESPONSES,
)
def dispute(
    league_id: int, game_id: int, data: DisputeIn, user: CurrentUser, db: DbSession
) -> GameOut:
    return answer(
        db,
        league_id,
        game_id,
        user,
        lambda: service.dispute(db, league_id, game_id, user, data.note, data.report_version),
    )


@router.post(
    "/leagues/{league_id}/games/{game_id}/settle",
    response_model=GameOut,
    summary="Settle the result (a club admin who does not play it): confirmed at once",
)
def settle(
    league_id: int, game_id: int, data: ResultIn, user: CurrentUser, db: DbSession
) -> GameOut:
    return one_game(db, service.settle(db, league_id, game_id, user, data))


# --------------------------------------------------------------------------- standings and Elo


@router.get(
    "/leagues/{league_id}/standings",
    response_model=StandingsOut,
    summary="Standings from confirmed results and byes, with the league's tie-breakers",
)
def standings(league_id: int, user: OptionalUser, db: DbSession) -> StandingsOut:
    table = service.standings(db, league_id, user)
    league = table.seen.league
    return StandingsOut(
        league_id=league.id,
        scoring=scoring_out(league),
        tie_breakers=list(service.tie_breakers_of(league)),
        rows=[
            StandingOut(
                rank=row.rank,
                tied=row.tied,
                player=player_ref(*table.players[row.player]),
                points=exact(row.points),
                games=row.games,
                wins=row.wins,
                draws=row.draws,
                losses=row.losses,
                byes=row.byes,
                vp_for=row.vp_for,
                vp_against=row.vp_against,
                vp_difference=row.vp_difference,
                strength_of_schedule=exact(row.strength_of_schedule),
                opponents_win_rate=exact(row.opponents_win_rate),
                decided_by=row.decided_by,
            )
            for row in table.rows
        ],
    )


@router.get(
    "/clubs/{club_id}/elo",
    response_model=EloOut,
    summary="Elo ratings of the club's players in one rule system (confirmed results)",
)
def club_elo(
    club_id: int,
    user: OptionalUser,
    db: DbSession,
    rule_system: Annotated[str, Query(min_length=1, max_length=40)],
) -> EloOut:
    elo = service.club_elo(db, club_id, user, rule_system)
    return EloOut(
        club_id=club_id,
        rule_system=rule_system,
        scope="public" if elo.public_only else "all",
        initial=service.ELO.initial,
        k=service.ELO.k,
        ratings=[
            RatingOut(
                user_id=r.player,
                display_name=elo.names.get(r.player, ""),
                rating=r.display,
                exact=decimal_text(r.value),
                games=r.games,
            )
            for r in elo.result.ratings
        ],
    )
