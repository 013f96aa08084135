"""League pages: a league (standings, the round's pairings, byes), a player's games, a game with
its "report a result" form and confirm/dispute/settle buttons, the admin forms, and the leagues
and Elo section of a club's page.

Every form posts to a real action (pages work without JavaScript); htmx swaps the round when
browsing rounds and a game card when a player confirms or disputes from the league page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import ValidationError
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.accounts.deps import OptionalUser, WebUser, verify_csrf
from app.accounts.models import User
from app.clubs import service as clubs
from app.clubs.sections import ClubSection, add_club_section
from app.core.deps import DbSession
from app.core.errors import AppError, InvalidInput
from app.core.i18n import gettext as _
from app.core.i18n import lazy
from app.core.ids import parse_int
from app.leagues import service
from app.leagues.exceptions import (
    NotASpectatorManager,
    RegistrationNotFound,
    ReportChanged,
    TrackedMatchNotFound,
)
from app.leagues.models import (
    FORMAT_LABELS,
    GAME_STATUS_LABELS,
    STATUS_LABELS,
    VISIBILITY_LABELS,
    Game,
    GameStatus,
    League,
    LeagueFormat,
    LeagueStatus,
    Registration,
)
from app.leagues.schemas import DisputeIn, LeagueCreate, LeagueUpdate, ResultIn
from app.leagues.standings import DEFAULT_TIE_BREAKERS, TieBreaker
from app.matches import events, spectate
from app.matches.invitations import Caller
from app.matches.models import Match, MatchStatus
from app.rulesets.names import display_names
from app.web.forms import field_errors
from app.web.nav import NavItem, add_nav
from app.web.templating import htmx_redirect, is_htmx, render

router = APIRouter(include_in_schema=False, dependencies=[Depends(verify_csrf)])

add_nav(
    NavItem(
        href="/leagues",
        label=lazy("Leagues"),
        blurb=lazy("Your clubs' leagues: standings, pairings, results to report and confirm."),
        order=55,
    )
)

TIE_BREAKER_LABELS = {
    TieBreaker.STRENGTH_OF_SCHEDULE: lazy("strength of schedule"),
    TieBreaker.OPPONENTS_WIN_RATE: lazy("opponents' win rate"),
    TieBreaker.HEAD_TO_HEAD: lazy("head-to-head"),
    TieBreaker.VP_DIFFERENCE: lazy("victory point difference"),
    TieBreaker.VP_SCORED: lazy("victory points scored"),
}

LABELS = {
    "formats": FORMAT_LABELS,
    "statuses": STATUS_LABELS,
    "game_statuses": GAME_STATUS_LABELS,
    "visibilities": VISIBILITY_LABELS,
    "tie_breakers": TIE_BREAKER_LABELS,
}

Players = dict[int, tuple[Registration, User]]

CARD_PREFIXES = ("", "my-", "disputed-")
"""The id prefixes of game cards on the league page (a game may be shown twice)."""


def _rule_system_names() -> Mapping[str, str]:
    return display_names()


def _safe_next(target: str | None, fallback: str) -> str:
    if target and target.startswith("/leagues/") and "//" not in target and "\\" not in target:
        return target
    return fallback


# --------------------------------------------------------------------------- game cards


@dataclass(frozen=True, slots=True)
class Card:
    """A game as the page shows it: the game view plus the names and the round number."""

    gv: service.GameView
    name_a: str
    name_b: str
    round: int | None

    @property
    def game(self) -> Game:
        return self.gv.game

    @property
    def result_text(self) -> str | None:
        game = self.game
        if GameStatus(game.status) is GameStatus.SCHEDULED:
            return None
        return f"{game.vp_a or 0} – {game.vp_b or 0}"

    @property
    def winner_name(self) -> str | None:
        game = self.game
        if GameStatus(game.status) is GameStatus.SCHEDULED or game.winner_id is None:
            return None
        return self.name_a if game.winner_id == game.player_a_id else self.name_b


def _cards(
    seen: service.LeagueView,
    games: Sequence[Game],
    players: Players,
    user: User | None,
    numbers: Mapping[int, int],
) -> list[Card]:
    cards = []
    for game in games:
        a, user_a = players[game.player_a_id]
        b, user_b = players[game.player_b_id]
        side = None
        if user is not None:
            side = "a" if user_a.id == user.id else "b" if user_b.id == user.id else None
        cards.append(
            Card(
                service.GameView(seen, game, a, b, side),
                user_a.display_name,
                user_b.display_name,
                numbers.get(game.round_id) if game.round_id is not None else None,
            )
        )
    return cards


def _card(db: Session, gv: service.GameView) -> Card:
    players = service.users_by_registration(db, [gv.player_a.id, gv.player_b.id])
    numbers = service.round_numbers(db, gv.seen.league.id)
    user = None
    if gv.side is not None:
        registration = gv.player_a if gv.side == "a" else gv.player_b
        user = players[registration.id][1]
    cards = _cards(gv.seen, [gv.game], players, user, numbers)
    card = cards[0]
    return Card(gv, card.name_a, card.name_b, card.round)


# --------------------------------------------------------------------------- the league page


def _league_context(
    db: Session, seen: service.LeagueView, user: User | None, round_number: int | None = None
) -> dict[str, Any]:
    league = seen.league
    table = service.standings_for(db, seen)
    players = table.players
    rounds = service.rounds(db, league.id)
    numbers = {r.id: r.number for r in rounds}
    all_games = service.games(db, league.id)
    current = None
    if rounds:
        current = next((r for r in rounds if r.number == round_number), rounds[-1])
    cards = _cards(seen, all_games, players, user, numbers)
    mine = seen.registration.id if seen.registration else None
    my_cards = [c for c in cards if mine in (c.game.player_a_id, c.game.player_b_id)]
    round_cards = [c for c in cards if current is not None and c.game.round_id == current.id]
    ladder_cards = [c for c in cards if c.game.round_id is None]
    ladder_cards.sort(key=lambda c: c.game.id, reverse=True)
    disputed = [c for c in cards if GameStatus(c.game.status) is GameStatus.DISPUTED]
    army_choices: list[tuple[int, str, int | None]] = []
    if user is not None and seen.is_member and seen.registration is None:
        army_choices = service.ready_armies(db, user, league.rule_system)
    opponents = [(rid, u.display_name) for rid, (_r, u) in players.items() if rid != mine]
    return {
        "seen": seen,
        "league": league,
        "club": seen.club.club,
        "rows": table.rows,
        "players": players,
        "rounds": rounds,
        "current": current,
        "round_cards": round_cards,
        "my_cards": my_cards,
        "ladder_cards": ladder_cards[:30],
        "disputed": disputed,
        "bye_name": players[current.bye_id][1].display_name
        if current is not None and current.bye_id in players
        else None,
        "planned": service.planned_rounds(db, league),
        "army_choices": army_choices,
        "opponents": opponents,
        "registration_open": service.registration_open(league),
        "rule_system_names": _rule_system_names(),
        "Status": LeagueStatus,
        "Format": LeagueFormat,
        "GameStatus": GameStatus,
        **LABELS,
    }


@router.get("/leagues/{league_id}")
def league_page(
    request: Request,
    db: DbSession,
    user: OptionalUser,
    league_id: int,
    round_number: Annotated[int | None, Query(alias="round", ge=1, le=10_000)] = None,
) -> HTMLResponse:
    seen = service.view(db, league_id, user)
    context = _league_context(db, seen, user, round_number)
    return render(request, "leagues/league.html", context, block="round")


@router.get("/leagues")
def leagues_page(request: Request, db: DbSession, user: OptionalUser) -> HTMLResponse:
    leagues = service.visible_leagues(db, user)
    facts = service.league_facts(db, leagues, user)
    return render(
        request,
        "leagues/index.html",
        {"leagues": leagues, "facts": facts, "rule_system_names": _rule_system_names(), **LABELS},
    )


# --------------------------------------------------------------------------- create and edit


def _form_defaults(league: League | None = None) -> dict[str, Any]:
    if league is None:
        return {
            "format": "round_robin",
            "visibility": "private",
            "legs": "1",
            "win": "3",
            "draw": "1",
            "loss": "0",
            "bye": "",
            "tie_breakers": [str(t) for t in DEFAULT_TIE_BREAKERS],
            "rule_system": "",
            "mission_pool": "",
        }
    return {
        "name": league.name,
        "description": league.description,
        "rule_system": league.rule_system,
        "format": league.format,
        "rounds": league.rounds_planned or "",
        "legs": str(league.legs),
        "battle_size": league.battle_size,
        "points_limit": league.points_limit or "",
        "mission_pool": "\n".join(league.mission_pool),
        "starts_on": league.starts_on.isoformat() if league.starts_on else "",
        "ends_on": league.ends_on.isoformat() if league.ends_on else "",
        "win": str(league.win_points),
        "draw": str(league.draw_points),
        "loss": str(league.loss_points),
        "bye": str(league.bye_points),
        "tie_breakers": list(league.tie_breakers),
        "max_meetings": league.max_meetings or "",
        "max_games": league.max_games or "",
        "no_back_to_back": league.no_back_to_back,
        "visibility": league.visibility,
        "seed": str(league.seed),
    }


async def league_form(request: Request) -> dict[str, Any]:
    """The league form's fields as submitted (strings; the tie-breakers as an ordered list)."""
    form = await request.form()
    values: dict[str, Any] = {}
    for key in (
        "name",
        "description",
        "rule_system",
        "format",
        "rounds",
        "legs",
        "battle_size",
        "points_limit",
        "mission_pool",
        "starts_on",
        "ends_on",
        "win",
        "draw",
        "loss",
        "bye",
        "max_meetings",
        "max_games",
        "visibility",
        "seed",
    ):
        raw = form.get(key)
        values[key] = raw.strip()[:4000] if isinstance(raw, str) else ""
    values["no_back_to_back"] = form.get("no_back_to_back") == "true"
    values["tie_breakers"] = [
        str(v)
        for i in range(1, len(TieBreaker) + 1)
        if isinstance(v := form.get(f"tie_breaker_{i}"), str) and v
    ]
    return values


LeagueForm = Annotated[dict[str, Any], Depends(league_form)]


def _payload(values: Mapping[str, Any]) -> dict[str, Any]:
    def number(key: str) -> str | None:
        return values[key] or None

    payload: dict[str, Any] = {
        "name": values["name"],
        "description": values["description"],
        "rule_system": values["rule_system"],
        "format": values["format"],
        "rounds": number("rounds"),
        "legs": values["legs"] or 1,
        "battle_size": values["battle_size"],
        "points_limit": number("points_limit"),
        "mission_pool": [m for m in values["mission_pool"].splitlines() if m.strip()][:100],
        "starts_on": number("starts_on"),
        "ends_on": number("ends_on"),
        "scoring": {
            "win": values["win"] or 0,
            "draw": values["draw"] or 0,
            "loss": values["loss"] or 0,
            "bye": number("bye"),
        },
        "tie_breakers": values["tie_breakers"],
        "ladder": {
            "max_meetings": number("max_meetings"),
            "max_games": number("max_games"),
            "no_back_to_back": values["no_back_to_back"],
        },
        "visibility": values["visibility"] or "private",
    }
    if values["seed"]:
        payload["seed"] = values["seed"]
    return payload


def _form_page(
    request: Request,
    *,
    club: Any,
    league: League | None,
    form: Mapping[str, Any],
    errors: Mapping[str, str],
    status_code: int = 200,
) -> HTMLResponse:
    return render(
        request,
        "leagues/form.html",
        {
            "club": club,
            "league": league,
            "form": form,
            "errors": errors,
            "rule_system_names": _rule_system_names(),
            **LABELS,
        },
        status_code=status_code,
    )


@router.get("/clubs/{club_id}/leagues/new")
def new_league_page(request: Request, db: DbSession, user: WebUser, club_id: int) -> HTMLResponse:
    seen = clubs.require_admin(db, club_id, user)
    return _form_page(request, club=seen.club, league=None, form=_form_defaults(), errors={})


@router.post("/clubs/{club_id}/leagues")
def create_league(
    request: Request, db: DbSession, user: WebUser, club_id: int, values: LeagueForm
) -> HTMLResponse:
    seen = clubs.require_admin(db, club_id, user)
    try:
        data = LeagueCreate.model_validate({"club_id": club_id, **_payload(values)})
        created = service.create_league(db, user, data)
    except ValidationError as exc:
        return _form_page(
            request,
            club=seen.club,
            league=None,
            form=values,
            errors=field_errors(exc),
            status_code=422,
        )
    except AppError as exc:
        if exc.status != 422:
            raise
        return _form_page(
            request,
            club=seen.club,
            league=None,
            form=values,
            errors=_app_errors(exc),
            status_code=422,
        )
    return htmx_redirect(request, f"/leagues/{created.league.id}")


def _app_errors(exc: AppError) -> dict[str, str]:
    errors = {str(e.get("field") or "form"): str(e.get("message")) for e in exc.errors or []}
    return errors or {"form": exc.detail}


@router.get("/leagues/{league_id}/edit")
def edit_league_page(
    request: Request, db: DbSession, user: WebUser, league_id: int
) -> HTMLResponse:
    seen = service.require_admin(db, league_id, user)
    return _form_page(
        request,
        club=seen.club.club,
        league=seen.league,
        form=_form_defaults(seen.league),
        errors={},
    )


@router.post("/leagues/{league_id}/edit")
def edit_league(
    request: Request, db: DbSession, user: WebUser, league_id: int, values: LeagueForm
) -> HTMLResponse:
    seen = service.require_admin(db, league_id, user)
    payload = _payload(values)
    if not values["seed"]:
        payload["seed"] = seen.league.seed
    try:
        data = LeagueUpdate.model_validate(payload)
        service.update_league(db, league_id, user, data)
    except ValidationError as exc:
        errors = field_errors(exc)
    except AppError as exc:
        if exc.status != 422:
            raise
        db.rollback()
        errors = _app_errors(exc)
    else:
        return htmx_redirect(request, f"/leagues/{league_id}")
    seen = service.require_admin(db, league_id, user)
    return _form_page(
        request,
        club=seen.club.club,
        league=seen.league,
        form=values,
        errors=errors,
        status_code=422,
    )


@router.post("/leagues/{league_id}/status")
def change_status(
    request: Request,
    db: DbSession,
    user: WebUser,
    league_id: int,
    status: Annotated[str, Form(pattern="^(running|finished)$")],
) -> HTMLResponse:
    service.set_status(db, league_id, user, LeagueStatus(status))
    return htmx_redirect(request, f"/leagues/{league_id}")


# --------------------------------------------------------------------------- registration


@router.post("/leagues/{league_id}/register")
def register(
    request: Request,
    db: DbSession,
    user: WebUser,
    league_id: int,
    army_id: Annotated[int, Form(ge=1, le=2**31 - 1)],
) -> HTMLResponse:
    service.register(db, league_id, user, army_id)
    return htmx_redirect(request, f"/leagues/{league_id}")


@router.post("/leagues/{league_id}/registrations/{registration_id}/withdraw")
def withdraw(
    request: Request, db: DbSession, user: WebUser, league_id: int, registration_id: int
) -> HTMLResponse:
    service.withdraw(db, league_id, user, registration_id)
    return htmx_redirect(request, f"/leagues/{league_id}")


@router.post("/leagues/{league_id}/registrations/{registration_id}/snapshot")
def replace_snapshot(
    request: Request,
    db: DbSession,
    user: WebUser,
    league_id: int,
    registration_id: int,
    army_id: Annotated[int, Form(ge=1, le=2**31 - 1)],
) -> HTMLResponse:
    service.replace_snapshot(db, league_id, user, registration_id, army_id)
    return htmx_redirect(request, f"/leagues/{league_id}/players/{registration_id}")


@router.get("/leagues/{league_id}/players/{registration_id}")
def player_page(
    request: Request, db: DbSession, user: OptionalUser, league_id: int, registration_id: int
) -> HTMLResponse:
    seen = service.view(db, league_id, user)
    table = service.standings_for(db, seen)
    if registration_id not in table.players:
        raise RegistrationNotFound(f"This league has no registration {registration_id}.")
    registration, player = table.players[registration_id]
    games = service.games(db, league_id, registration_id=registration_id)
    numbers = service.round_numbers(db, league_id)
    cards = _cards(seen, games, table.players, user, numbers)
    standing = next((row for row in table.rows if row.player == registration_id), None)
    choices: list[tuple[int, str, int | None]] = []
    if seen.manages:
        choices = service.ready_armies(db, player, seen.league.rule_system)
    return render(
        request,
        "leagues/player.html",
        {
            "seen": seen,
            "league": seen.league,
            "registration": registration,
            "player": player,
            "cards": cards,
            "standing": standing,
            "snapshot": registration.snapshot,
            "units": _snapshot_units(registration.snapshot),
            "army_choices": choices,
            "GameStatus": GameStatus,
            **LABELS,
        },
    )


def _snapshot_units(snapshot: Mapping[str, Any]) -> list[str]:
    """Unit names of a locked list, as far as the export says (for display only)."""
    export = snapshot.get("export")
    source = export if isinstance(export, Mapping) else snapshot
    units = source.get("units")
    names: list[str] = []
    if isinstance(units, list):
        for unit in units[:200]:
            if isinstance(unit, Mapping):
                name = unit.get("name") or unit.get("datasheet") or unit.get("unit")
                if isinstance(name, str):
                    names.append(name[:120])
    return names


# --------------------------------------------------------------------------- rounds and games


@router.post("/leagues/{league_id}/rounds")
def generate_round(request: Request, db: DbSession, user: WebUser, league_id: int) -> HTMLResponse:
    created = service.generate_round(db, league_id, user)
    return htmx_redirect(request, f"/leagues/{league_id}?round={created.number}")


@router.post("/leagues/{league_id}/games")
def create_game(
    request: Request,
    db: DbSession,
    user: WebUser,
    league_id: int,
    player_b: Annotated[int, Form(ge=1, le=2**31 - 1)],
) -> HTMLResponse:
    game = service.create_ladder_game(db, league_id, user, None, player_b)
    return htmx_redirect(request, f"/leagues/{league_id}/games/{game.id}")


def _game_page(
    request: Request,
    db: Session,
    gv: service.GameView,
    *,
    error: str | None = None,
    errors: Mapping[str, str] | None = None,
    form: Mapping[str, Any] | None = None,
    status_code: int = 200,
    viewer: User | None = None,
) -> HTMLResponse:
    card = _card(db, gv)
    block = None
    card_target: str | None = "#game-page"
    card_prefix = ""
    if is_htmx(request):
        target = request.headers.get("hx-target", "")
        suffix = f"game-{gv.game.id}"
        if target.endswith(suffix) and target[: -len(suffix)] in CARD_PREFIXES:
            block, card_target, card_prefix = "game_card", None, target[: -len(suffix)]
        else:
            block = "game_page"
    game = gv.game
    return render(
        request,
        "leagues/game.html",
        {
            "seen": gv.seen,
            "league": gv.seen.league,
            "card": card,
            "c": card,
            "error": error,
            "errors": errors or {},
            "card_target": card_target,
            "card_prefix": card_prefix,
            "form": form
            or {
                "result": _result_name(game),
                "vp_a": game.vp_a if game.vp_a is not None else "",
                "vp_b": game.vp_b if game.vp_b is not None else "",
            },
            "GameStatus": GameStatus,
            "spectators": spectator_panel(request, db, gv.game, viewer),
            **LABELS,
        },
        block=block,
        status_code=status_code,
    )


def _result_name(game: Game) -> str:
    """The recorded result as the form's choice ("" before any report)."""
    if GameStatus(game.status) is GameStatus.SCHEDULED:
        return ""
    if game.winner_id is None:
        return "draw"
    return "player_a" if game.winner_id == game.player_a_id else "player_b"


@router.get("/leagues/{league_id}/games/{game_id}")
def game_page(
    request: Request, db: DbSession, user: OptionalUser, league_id: int, game_id: int
) -> HTMLResponse:
    return _game_page(request, db, service.game_view(db, league_id, game_id, user), viewer=user)


def _after_action(
    request: Request,
    db: Session,
    league_id: int,
    game_id: int,
    user: User,
    next_url: str | None,
) -> HTMLResponse:
    if is_htmx(request):
        gv = service.game_view(db, league_id, game_id, user)
        return _game_page(request, db, gv, viewer=user)
    target = _safe_next(next_url, f"/leagues/{league_id}/games/{game_id}")
    return htmx_redirect(request, target)


def _refused(
    request: Request, db: Session, league_id: int, game_id: int, user: User, exc: AppError
) -> HTMLResponse:
    """An htmx action that was refused: the card again, with the reason (htmx swaps 200s only);
    without htmx the error page explains it.

    An answer to a report that changed meanwhile shows the game again, with the new result and
    fresh confirm/dispute forms, htmx or not (409 without htmx)."""
    if isinstance(exc, ReportChanged):
        db.rollback()
        return _game_page(
            request,
            db,
            service.game_view(db, league_id, game_id, user),
            error=_(
                "The result was changed after you opened this page, so nothing was recorded. "
                "Here is the result as it stands now: confirm or dispute this one."
            ),
            status_code=200 if is_htmx(request) else 409,
            viewer=user,
        )
    if not is_htmx(request):
        raise exc
    db.rollback()
    return _game_page(
        request, db, service.game_view(db, league_id, game_id, user), error=exc.detail, viewer=user
    )


def _result_form(result: str, vp_a: str, vp_b: str) -> tuple[ResultIn | None, dict[str, str]]:
    try:
        return ResultIn.model_validate({"result": result, "vp_a": vp_a or 0, "vp_b": vp_b or 0}), {}
    except ValidationError as exc:
        return None, field_errors(exc)


ResultField = Annotated[str, Form(max_length=20)]
VpField = Annotated[str, Form(max_length=10)]
NextField = Annotated[str | None, Form(alias="next", max_length=300)]
VersionField = Annotated[str, Form(max_length=20)]
"""The report version the confirm/dispute form was drawn with (missing or odd: refused as a
changed report, and the page shows the current result)."""


def _submit_result(
    request: Request,
    db: DbSession,
    user: WebUser,
    league_id: int,
    game_id: int,
    fields: tuple[str, str, str],
    next_url: str | None,
    action: Callable[..., object],
) -> HTMLResponse:
    """Report or settle a result from the form: field errors re-render the game card."""
    result, vp_a, vp_b = fields
    data, errors = _result_form(result, vp_a, vp_b)
    if data is None:
        gv = service.game_view(db, league_id, game_id, user)
        form = {"result": result, "vp_a": vp_a, "vp_b": vp_b}
        return _game_page(
            request,
            db,
            gv,
            errors=errors,
            form=form,
            status_code=200 if is_htmx(request) else 422,
            viewer=user,
        )
    try:
        action(db, league_id, game_id, user, data)
    except AppError as exc:
        return _refused(request, db, league_id, game_id, user, exc)
    return _after_action(request, db, league_id, game_id, user, next_url)


@router.post("/leagues/{league_id}/games/{game_id}/report")
def report(
    request: Request,
    db: DbSession,
    user: WebUser,
    league_id: int,
    game_id: int,
    result: ResultField = "",
    vp_a: VpField = "",
    vp_b: VpField = "",
    next_url: NextField = None,
) -> HTMLResponse:
    return _submit_result(
        request, db, user, league_id, game_id, (result, vp_a, vp_b), next_url, service.report
    )


@router.post("/leagues/{league_id}/games/{game_id}/settle")
def settle(
    request: Request,
    db: DbSession,
    user: WebUser,
    league_id: int,
    game_id: int,
    result: ResultField = "",
    vp_a: VpField = "",
    vp_b: VpField = "",
    next_url: NextField = None,
) -> HTMLResponse:
    return _submit_result(
        request, db, user, league_id, game_id, (result, vp_a, vp_b), next_url, service.settle
    )


@router.post("/leagues/{league_id}/games/{game_id}/confirm")
def confirm(
    request: Request,
    db: DbSession,
    user: WebUser,
    league_id: int,
    game_id: int,
    report_version: VersionField = "",
    next_url: NextField = None,
) -> HTMLResponse:
    try:
        service.confirm(db, league_id, game_id, user, parse_int(report_version))
    except AppError as exc:
        return _refused(request, db, league_id, game_id, user, exc)
    return _after_action(request, db, league_id, game_id, user, next_url)


@router.post("/leagues/{league_id}/games/{game_id}/dispute")
def dispute(
    request: Request,
    db: DbSession,
    user: WebUser,
    league_id: int,
    game_id: int,
    note: Annotated[str, Form(max_length=2000)] = "",
    report_version: VersionField = "",
    next_url: NextField = None,
) -> HTMLResponse:
    try:  # the note as the API cleans it; the version is checked by the service
        data = DisputeIn(note=note[:500], report_version=0)
    except ValidationError:
        gv = service.game_view(db, league_id, game_id, user)
        return _game_page(
            request,
            db,
            gv,
            errors={"note": "Say what is wrong with the result."},
            status_code=200 if is_htmx(request) else 422,
            viewer=user,
        )
    try:
        service.dispute(db, league_id, game_id, user, data.note, parse_int(report_version))
    except AppError as exc:
        return _refused(request, db, league_id, game_id, user, exc)
    return _after_action(request, db, league_id, game_id, user, next_url)


# --------------------------------------------------------------------------- the spectator link


@dataclass(frozen=True, slots=True)
class SpectatorPanel:
    """The game page's spectator link of the match that plays the game (issue 21)."""

    match_id: int
    enabled: bool
    url: str | None  # the spectators' page while the link is enabled
    # while off (ruling S19): the viewer agreed and waits for the opponent, or the opponent
    # agreed and waits for the viewer; an organiser (no seat) turns it on alone
    waiting: bool = False
    asked: bool = False
    organiser: bool = False


def tracked_match(db: Session, game_id: int) -> Match | None:
    """The match that plays league game ``game_id``: the unfinished one, else the latest."""
    return db.scalar(
        select(Match)
        .where(Match.league_game_id == game_id)
        .order_by((Match.status == MatchStatus.CONFIRMED).asc(), Match.id.desc())
        .limit(1)
    )


def spectator_panel(
    request: Request, db: Session, game: Game, viewer: User | None
) -> SpectatorPanel | None:
    """The panel for a viewer who may manage the link (the match's players, its creator, the
    league's organisers: ``spectate.may_manage``); ``None`` for anyone else or no match."""
    if viewer is None:
        return None
    match = tracked_match(db, game.id)
    if match is None or not spectate.may_manage(db, match, Caller.of(viewer)):
        return None
    if match.spectate_digest is None:
        consent = spectate.consent_of(match, Caller.of(viewer))
        return SpectatorPanel(
            match.id,
            False,
            None,
            waiting=consent.waiting,
            asked=consent.asked,
            organiser=consent.organiser,
        )
    url = str(request.url_for("spectate_page", token=spectate.spectate_token(match)))
    return SpectatorPanel(match.id, True, url)


SPECTATOR_ACTIONS = ("enable", "rotate", "disable")


@router.post("/leagues/{league_id}/games/{game_id}/spectators")
def manage_spectators(
    request: Request,
    db: DbSession,
    user: WebUser,
    league_id: int,
    game_id: int,
    action: Annotated[str, Form(max_length=10)] = "",
) -> HTMLResponse:
    """Enable (a player: agree, ruling S19), rotate or disable the spectator link of the match
    that plays the game: 404 for a
    game one may not see or that no match plays, 403 for anyone ``spectate.may_manage`` refuses
    (a club member who neither plays it nor organises the league)."""
    service.game_view(db, league_id, game_id, user)  # 404 unless the viewer sees the game
    match = tracked_match(db, game_id)
    if match is None:
        raise TrackedMatchNotFound(f"No match plays game {game_id}.")
    if not spectate.may_manage(db, match, Caller.of(user)):
        raise NotASpectatorManager()
    if action not in SPECTATOR_ACTIONS:
        raise InvalidInput(_("Choose enable, rotate or disable."))
    hub = events.hub_for(request.app)
    caller = Caller.of(user)
    if action == "enable":
        spectate.agree(db, match, caller)  # an organiser turns it on; a player agrees (S19)
    elif action == "rotate":
        if match.spectate_digest is None:
            raise spectate.SpectateLinkOff()
        spectate.rotate(db, hub, match)
    else:
        spectate.withdraw(db, hub, match, caller)
    return _after_action(request, db, league_id, game_id, user, None)


# --------------------------------------------------------------------------- the club page


def club_page_context(db: Session, club_id: int, user: User | None) -> dict[str, Any]:
    """The club page's leagues and Elo tables: its section (app/clubs/sections.py)."""
    leagues = service.club_leagues(db, club_id, user)
    facts = service.league_facts(db, leagues, user)
    names = _rule_system_names()
    elo = [
        (
            rule_system,
            names.get(rule_system, rule_system),
            service.club_elo(db, club_id, user, rule_system),
        )
        for rule_system in service.club_rule_systems(db, club_id, user)
    ]
    return {
        "leagues": leagues,
        "league_facts": facts,
        "elo_tables": elo,
        "rule_system_names": names,
        "league_form": _form_defaults(),
        "league_errors": {},
        **LABELS,
    }


add_club_section(
    ClubSection(name="leagues", template="leagues/club_section.html", context=club_page_context)
)
