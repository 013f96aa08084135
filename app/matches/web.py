"""The tracker pages: my matches, a new match, joining (registered player or guest seat), and
the match screen made for a phone at the table.

The match screen's dynamic part is the ``state`` block of ``matches/match.html``: every action
form posts with htmx (and works as a plain form), and the answer is that block again. The page
listens to its server-sent events (htmx sse extension) and re-fetches the block when the
version moves; a stale write answers with the fresh state and a notice. A guest seat is
recognised by a cookie set when its secret link is opened (scoped to that match's pages).
The spectator link's panel (``matches/_spectators.html``, every rule system) stands outside
that block, so that a new version does not fold it while a player copies the link.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, Request, Response, UploadFile
from fastapi.responses import HTMLResponse, JSONResponse, StreamingResponse
from sqlalchemy import select
from sqlalchemy.orm import Session
from starlette.datastructures import FormData

from app.accounts.deps import LoginRequired, OptionalUser, WebUser, verify_csrf
from app.accounts.models import User
from app.core.deps import AppSettings, DbSession
from app.core.errors import AppError
from app.core.i18n import current_locale, lazy
from app.core.i18n import gettext as _
from app.core.ids import MAX_ID, parse_int
from app.engine.match import Mission, Refusal, RefusalKind
from app.engine.match.seats import Seat
from app.matches import api as match_api
from app.matches import events, league_link, pages, present, service, spectate, systems
from app.matches import league_games as league_games_port
from app.matches.exceptions import (
    CommandRefused,
    InvitationInvalid,
    LeagueGameUnusable,
    MatchNotFound,
)
from app.matches.models import STATUS_LABELS, Match, MatchStatus, OpponentKind
from app.matches.pages import Confirmation
from app.web.nav import NavItem, add_nav
from app.web.templating import htmx_redirect, is_htmx, render

router = APIRouter(include_in_schema=False, dependencies=[Depends(verify_csrf)])

add_nav(
    NavItem(
        href="/matches",
        label=lazy("Matches"),
        blurb=lazy("Track a battle on two phones: turns, CP, VP, every die, live."),
        order=30,
    )
)

MAX_FORM_DICE = 200


def guest_cookie(match_id: int) -> str:
    return f"auspex_guest_{match_id}"


async def web_db(request: Request, db: DbSession) -> Session:
    service.bind_publisher(db, events.hub_for(request.app).publish)
    return db


WebDb = Annotated[Session, Depends(web_db)]


async def form_data(request: Request) -> FormData:
    """The posted form (parsed once; verify_csrf may have parsed it already)."""
    return await request.form(max_files=1, max_fields=400)


FormDep = Annotated[FormData, Depends(form_data)]


def _caller(request: Request, user: Any, match_id: int) -> service.Caller:
    return service.Caller.of(user, request.cookies.get(guest_cookie(match_id)))


def _get(request: Request, db: Session, user: Any, match_id: int) -> tuple[Match, str]:
    current_locale.set(getattr(request.state, "locale", "en"))
    try:
        return service.get_for(db, match_id, _caller(request, user, match_id))
    except MatchNotFound:
        if user is None:
            target = request.url.path
            raise LoginRequired(headers={"Location": f"/login?next={target}"}) from None
        raise


def _int(value: object, default: int | None = None) -> int | None:
    number = parse_int(value, -99_999_999, 99_999_999)
    return default if number is None else number


def parse_dice(text: object) -> list[int] | None:
    """Dice typed by hand ("4 2", "4,2"); ``None`` when the field is empty."""
    if not isinstance(text, str) or not text.strip():
        return None
    parts = text.replace(",", " ").replace(";", " ").split()
    if len(parts) > MAX_FORM_DICE or not all(p in {"1", "2", "3", "4", "5", "6"} for p in parts):
        raise CommandRefused(
            Refusal(
                "bad_dice",
                _("Dice are numbers from 1 to 6 separated by spaces."),
                kind=RefusalKind.INPUT,
                details={"field": "dice"},
            )
        )
    return [int(p) for p in parts]


# -- my matches, a new match ------------------------------------------------------------------


def _index(
    request: Request,
    db: Session,
    user: Any,
    *,
    errors: Mapping[str, str] | None = None,
    form: Mapping[str, Any] | None = None,
    cancelled: int | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    current_locale.set(getattr(request.state, "locale", "en"))
    matches = service.my_matches(db, user)
    rows = []
    looked = 0
    for m in matches:
        names = service.player_names(db, m)
        seat = "A" if m.player_a_id == user.id else "B"
        waiting = None
        if m.status in LIVE_STATUSES and m.version > 0 and looked < MAX_WAITING_LOOKUPS:
            looked += 1  # the newest live matches (the list is newest first)
            battle = service.load_battle(db, m)
            page = pages.page_for(m.rule_system, battle)
            waiting = page.waiting_on(battle.view(seat), battle.legal_actions(seat))
        rows.append(
            {
                "match": m,
                "seat": seat,
                "opponent": names["B" if seat == "A" else "A"] or "-",
                "status": _(STATUS_LABELS[MatchStatus(m.status)]),
                "mission": present.mission_label(
                    m.mission_id, m.battle_size, m.rule_system, present.seat_a_snapshot(m)
                ),
                "system": pages.system_label(m.rule_system),
                "waiting": waiting,
            }
        )
    lists = pages.ready_lists(db, user)
    ruleset = _form_ruleset(form, lists)
    # the shipped missions, then those of the packs this user uploaded (ids never clash)
    missions = service.new_match_missions(db, user.id, ruleset)
    entry = systems.playable(ruleset)
    chosen = (form or {}).get("mission")
    mission = missions.get(str(chosen)) or missions.get(entry.default_mission)
    return render(
        request,
        "matches/index.html",
        {
            "rows": rows,
            "ruleset": ruleset,
            "rulesets": [(rid, pages.system_label(rid)) for rid in systems.systems()],
            "lists": [ready for ready in lists if ready.rule_system == ruleset],
            "brings_list": entry.own_force is None,
            "option_fields": pages.new_match_fields(ruleset, mission) if mission else (),
            "missions": missions,
            "sizes": list({s.id: s for m in missions.values() for s in m.battle_sizes}.values()),
            "default_size": entry.default_size,
            "league_games": league_games(db, user),
            "errors": errors or {},
            "form": form or {},
            "cancelled": cancelled,
        },
        status_code=status_code,
    )


def _form_ruleset(form: Mapping[str, Any] | None, lists: list[pages.ReadyList]) -> str:
    """The rule system the new-match form offers (any playable one): the one asked for, else
    that of the user's first ready list, else the default one."""
    asked = str((form or {}).get("ruleset") or "")
    if asked in systems.systems():
        return asked
    return lists[0].rule_system if lists else systems.DEFAULT_RULESET


LIVE_STATUSES = frozenset({MatchStatus.SETUP, MatchStatus.BATTLE, MatchStatus.ENDED})
MAX_WAITING_LOOKUPS = 20  # matches whose state the list reads to say what waits on you


@dataclass(frozen=True, slots=True)
class LeagueGameChoice:
    id: int
    label: str  # "Spring league, round 2: against Bob"


def league_games(db: Session, user: Any) -> list[LeagueGameChoice]:
    """The league games ``user`` plays that a new match may track: not settled, between two
    registered players, and not tracked by another unfinished match (what
    ``service.create(league_game_id=...)`` accepts, as the API's ``league_game_id`` does)."""
    port = league_games_port.league_games()
    if port is None:
        return []
    tracked = select(Match.league_game_id).where(
        Match.league_game_id.is_not(None), Match.status != MatchStatus.CONFIRMED
    )
    found = port.open_games(
        db, [user.id], rule_system=None, exclude=tracked, limit=league_link.MAX_OFFERED
    )
    opponents = {g.id: next((p for p in g.players if p != user.id), None) for g in found}
    ids = {uid for uid in opponents.values() if uid is not None}
    names: dict[int, str] = dict(
        db.execute(select(User.id, User.display_name).where(User.id.in_(ids))).tuples().all()
    )
    out = []
    for game in found:
        opponent = opponents[game.id]
        if opponent is None:
            continue  # a game against oneself is no game a match can play
        name = names.get(opponent, "")
        if game.round is None:
            label = _("{league}: against {name}").format(league=game.league, name=name)
        else:
            label = _("{league}, round {n}: against {name}").format(
                league=game.league, n=game.round, name=name
            )
        out.append(LeagueGameChoice(game.id, label))
    return out


def _problem_errors(exc: AppError) -> dict[str, str]:
    out = {"form": exc.detail}
    for e in exc.errors or []:
        field = e.get("field") or "form"
        out.setdefault(str(field), str(e.get("message")))
    return out


@router.get("/matches")
def matches_page(
    request: Request,
    db: WebDb,
    user: WebUser,
    cancelled: Annotated[int | None, Query(ge=1, le=2**31 - 1)] = None,
    league_game: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
    ruleset: Annotated[str, Query(max_length=32)] = "",
) -> HTMLResponse:
    """My matches and the new-match form (``?league_game=ID`` picks that league game in it,
    ``?ruleset=ID`` the rule system whose missions and lists it offers)."""
    form: dict[str, Any] = {"ruleset": ruleset}
    if league_game:
        form["league_game_id"] = league_game
    return _index(request, db, user, cancelled=cancelled, form=form)


OPTION_PREFIX = "option."


def posted_options(
    form: FormData,
    ruleset: str,
    mission_id: str,
    own: Mapping[str, Mission] | None = None,
) -> dict[str, Any] | None:
    """The options a new-match form posted: the fields its system's page asks for
    (``option.<name>``), those left empty omitted; ``None`` when the system asks for none,
    or when the rule system or mission is unknown (``service.create`` says so). ``own``: the
    missions of the poster's uploaded packs."""
    entry = systems.systems().get(ruleset)
    if entry is None:
        return None
    wanted = mission_id or entry.default_mission
    mission = entry.missions().get(wanted) or (own or {}).get(wanted)
    if mission is None:
        return None
    out: dict[str, Any] = {}
    for option in pages.new_match_fields(ruleset, mission):
        value = form.get(OPTION_PREFIX + option.name)
        if isinstance(value, str) and value.strip():
            out[option.name] = value.strip()[:64]
    return out or None


@router.post("/matches")
def create_match(
    request: Request,
    db: WebDb,
    user: WebUser,
    posted: FormDep,
    army_id: Annotated[int | None, Form(ge=1, le=MAX_ID)] = None,
    battle_size: Annotated[str, Form(max_length=32)] = "",
    mission: Annotated[str, Form(max_length=64)] = "",
    opponent: Annotated[str, Form(pattern="^(user|guest)$")] = "user",
    league_game_id: Annotated[str, Form(max_length=12)] = "",
    ruleset: Annotated[str, Form(max_length=32)] = systems.DEFAULT_RULESET,
) -> HTMLResponse:
    """A new match from the form: the creator's list, or (a system whose seats bring no list)
    the options its page asks for."""
    game = parse_int(league_game_id, 1, MAX_ID) if league_game_id.strip() else None
    own = service.own_missions(db, user.id, ruleset) if ruleset in systems.systems() else {}
    options = posted_options(posted, ruleset, mission, own)
    try:
        if league_game_id.strip() and game is None:
            raise LeagueGameUnusable(_("Choose a league game from the list."))
        with db.begin_nested():
            match = service.create(
                db,
                user,
                army_id=army_id,
                mission_id=mission or None,
                battle_size=battle_size or None,
                opponent=OpponentKind(opponent),
                league_game_id=game,
                options=options,
                ruleset=ruleset,
            )
    except AppError as exc:
        form = {
            "ruleset": ruleset,
            "mission": mission,
            "army_id": army_id,
            "battle_size": battle_size,
            "opponent": opponent,
            "league_game_id": game,
            "options": options or {},
        }
        return _index(
            request, db, user, errors=_problem_errors(exc), form=form, status_code=exc.status
        )
    return htmx_redirect(request, f"/matches/{match.id}")


@router.post("/matches/join")
def join_match(
    request: Request,
    db: WebDb,
    user: WebUser,
    code: Annotated[str, Form(min_length=1, max_length=64)],
    army_id: Annotated[int | None, Form(ge=1, le=MAX_ID)] = None,
    join: Annotated[str, Form(max_length=8)] = "",
) -> HTMLResponse:
    """The code form's answer (the join page), or the join page's (``join=1``: seated with
    the list chosen, or with the force of a system whose seats bring no list)."""
    if army_id is None and not join:
        normalised = service.normalise_code(code)
        if not normalised or not normalised.isascii():  # no code has letters beyond A-Z: 404
            return _join_page(request, db, user, code)
        return htmx_redirect(request, f"/matches/join/{normalised}")
    try:
        with db.begin_nested():
            match = service.join_by_code(db, user, code, army_id)
    except AppError as exc:
        return _join_page(
            request, db, user, code, errors=_problem_errors(exc), status_code=exc.status
        )
    return htmx_redirect(request, f"/matches/{match.id}")


def _join_page(
    request: Request,
    db: Session,
    user: Any,
    code: str,
    *,
    errors: Mapping[str, str] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    try:
        match = service.by_invite_code(db, code)
    except InvitationInvalid as exc:
        return render(
            request,
            "matches/join.html",
            {"match": None, "code": code, "errors": {"form": _(exc.title)}, "lists": []},
            status_code=404,
        )
    names = service.player_names(db, match)
    return render(
        request,
        "matches/join.html",
        {
            "match": match,
            "force": _joining_force(db, match),
            "code": service.normalise_code(code),
            "creator": names["A"],
            "lists": [
                entry
                for entry in pages.ready_lists(db, user)
                if entry.rule_system == match.rule_system
            ],
            "errors": errors or {},
            "own": match.player_a_id == user.id,
            "present": present,
        },
        status_code=status_code,
    )


@dataclass(frozen=True, slots=True)
class JoiningForce:
    """What seat B plays in a system whose seats bring no list (a scenario's force)."""

    name: str
    faction: str
    content: str = ""  # the content set the scenario comes from (Black Reach), if any


def _joining_force(db: Session, match: Match) -> JoiningForce | None:
    """Seat B's force when the match's system gives it one (``own_force``), else ``None``
    (the joining player picks a list); ``None`` too when it cannot be told (the join answers
    the service's refusal)."""
    entry = systems.systems().get(match.rule_system)
    if entry is None or entry.own_force is None:
        return None
    try:
        mission, _points = systems.mission_and_size(
            entry, match.mission_id, match.battle_size, db=db, owner_id=match.created_by_id
        )
        options = (match.army_a or {}).get("options") or {}
        force = entry.own_force(mission, options, Seat.B)
    except AppError:
        return None
    about = force.get("content")
    content = str(about.get("name") or "") if isinstance(about, Mapping) else ""
    return JoiningForce(str(force.get("name", "")), str(force.get("faction", "")), content)


@router.get("/matches/join/{code}", name="match_join_page")
def join_page(request: Request, db: WebDb, user: WebUser, code: str) -> HTMLResponse:
    return _join_page(request, db, user, code[:64])


@router.post("/matches/import")
def import_match(
    request: Request,
    db: WebDb,
    user: WebUser,
    log: Annotated[str, Form(max_length=900_000)] = "",
    file: Annotated[UploadFile | None, File()] = None,
) -> HTMLResponse:
    text = log
    if file is not None and file.filename:
        text = file.file.read(1_000_001).decode("utf-8", errors="replace")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):
        return _index(
            request, db, user, errors={"log": _("This is not a JSON match log.")}, status_code=422
        )
    try:
        with db.begin_nested():
            match = service.import_log(db, user, data)
    except AppError as exc:
        return _index(request, db, user, errors={"log": exc.detail}, status_code=exc.status)
    return htmx_redirect(request, f"/matches/{match.id}")


# -- the guest seat ---------------------------------------------------------------------------


def _guest_redirect(request: Request, settings: AppSettings, match: Match, token: str) -> Response:
    response = htmx_redirect(request, f"/matches/{match.id}")
    response.set_cookie(
        guest_cookie(match.id),
        token,
        max_age=60 * 60 * 24 * 60,
        path=f"/matches/{match.id}",
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
    )
    return response


def _guest_page(
    request: Request,
    match: Match,
    token: str,
    *,
    errors: Mapping[str, str] | None = None,
    form: Mapping[str, Any] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    return render(
        request,
        "matches/guest.html",
        {
            "match": match,
            "token": token,
            "samples": match_api.samples_with_points(match.rule_system),
            "own_force": systems.system(match).own_force is not None,  # no list to bring
            "errors": errors or {},
            "form": form or {},
        },
        status_code=status_code,
    )


@router.get("/matches/guest/{token}", name="match_guest_page")
def guest_page(
    request: Request, db: WebDb, settings: AppSettings, user: OptionalUser, token: str
) -> Response:
    match = service.by_guest_token(db, token[:200])
    if match.version > 0:
        return _guest_redirect(request, settings, match, token)
    return _guest_page(request, match, token)


@router.post("/matches/guest/{token}")
def guest_join(
    request: Request,
    db: WebDb,
    settings: AppSettings,
    user: OptionalUser,
    token: str,
    name: Annotated[str, Form(max_length=60)] = "",
    sample: Annotated[str, Form(max_length=64)] = "",
    army: Annotated[str, Form(max_length=900_000)] = "",
) -> Response:
    match = service.by_guest_token(db, token[:200])
    try:
        with db.begin_nested():
            service.join_as_guest(
                db,
                token,
                name=name or _("Guest"),
                sample=None if army.strip() else (sample or None),
                army=army if army.strip() else None,
                user=user,
            )
    except AppError as exc:
        return _guest_page(
            request,
            match,
            token,
            errors=_problem_errors(exc),
            form={"name": name, "sample": sample, "army": army},
            status_code=exc.status,
        )
    return _guest_redirect(request, settings, match, token)


# -- the match screen -------------------------------------------------------------------------


def context(
    request: Request,
    db: Session,
    match: Match,
    seat: str,
    *,
    notice: str | None = None,
    error: str | None = None,
    confirm: Confirmation | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """The match page's context: the shared part (header, players, invitation, notices, the
    confirmation dialog, undo) and its rule system's part (``PageSystem.context``)."""
    # labels are translated here, before render() would set the request's locale
    current_locale.set(getattr(request.state, "locale", "en"))
    names = service.player_names(db, match)
    caller = _caller(request, getattr(request.state, "user", None), match.id)
    me = str(seat)
    found = _page_input(db, match, me, names, extra)
    page = pages.page_for(match.rule_system, found.game)
    ctx: dict[str, Any] = {
        "confirm": confirm,
        "mission_label": present.mission_label(
            match.mission_id, match.battle_size, match.rule_system, match.army_a
        ),
        "fragments": page.fragments,
        "waiting": None,
        "match": match,
        "seat": me,
        "other": "B" if me == "A" else "A",
        "names": names,
        "status_label": _(STATUS_LABELS[MatchStatus(match.status)]),
        "notice": notice,
        "error": error,
        "invitation": match_api.invitation(request, match, seat),
        "can_cancel": service.may_cancel(match, caller),
        "league_game_path": (
            service.league_game_path(db, match) if match.league_report_error else None
        ),
        "shared": present,
        "view": None,
        "league_link": league_link_form(db, match),
        "spectators": spectator_panel(request, db, match, caller),
    }
    ctx.update(page.context(found))
    if found.game is None:
        return ctx
    ctx["view"] = found.view
    ctx["waiting"] = page.waiting_on(found.view, found.actions)
    return ctx


def _page_input(
    db: Session,
    match: Match,
    seat: str,
    names: Mapping[str, str] | None = None,
    extra: Mapping[str, Any] | None = None,
) -> pages.PageInput:
    """What a system's page part is built from (no game before seat B joins)."""
    names = names if names is not None else service.player_names(db, match)
    if match.version == 0:
        return pages.PageInput(db, match, seat, None, {}, [], [], names, extra or {})
    game = service.load_battle(db, match)
    return pages.PageInput(
        db,
        match,
        seat,
        game,
        game.view(seat),
        game.legal_actions(seat),
        game.log_json(seat),
        names,
        extra or {},
    )


@dataclass(frozen=True, slots=True)
class LeagueLinkForm:
    """The match page's league game choice: the game linked now, and those offered."""

    current: int | None
    choices: list[LeagueGameChoice]


def league_link_form(db: Session, match: Match) -> LeagueLinkForm | None:
    """What the page offers to link (``None``: nothing to offer: a guest seat or match, a
    battle over, or no league game both players play and none linked)."""
    if match.opponent_kind == OpponentKind.GUEST or match.status in (
        MatchStatus.ENDED,
        MatchStatus.CONFIRMED,
    ):
        return None
    choices = []
    for g in league_link.offered(db, match):
        if g.round is None:
            label = _("{league}: game {id}").format(league=g.league, id=g.id)
        else:
            label = _("{league}, round {n}: game {id}").format(league=g.league, n=g.round, id=g.id)
        choices.append(LeagueGameChoice(g.id, label))
    if not choices and match.league_game_id is None:
        return None
    if match.league_game_id is not None and all(c.id != match.league_game_id for c in choices):
        label = _("League game {id}").format(id=match.league_game_id)
        choices.insert(0, LeagueGameChoice(match.league_game_id, label))
    return LeagueLinkForm(match.league_game_id, choices)


def _page(
    request: Request,
    db: Session,
    match: Match,
    seat: str,
    *,
    status_code: int = 200,
    block: str = "state",
    template: str | None = None,
    **extra: Any,
) -> HTMLResponse:
    """The match page's state block (or another ``block`` of a system's ``template``, asked by
    htmx: e.g. the 10th edition's odds)."""
    ctx = context(request, db, match, seat, **extra)
    if block != "state" and is_htmx(request):
        name = f"{ctx['fragments']}/{template}" if template else "matches/match.html"
        return render(request, name, ctx, block=block, status_code=status_code)
    return render(request, "matches/match.html", ctx, block="state", status_code=status_code)


@router.get("/matches/{match_id}")
def match_page(
    request: Request,
    db: WebDb,
    user: OptionalUser,
    match_id: int,
    known: Annotated[int | None, Query(ge=0)] = None,
) -> Response:
    match, seat = _get(request, db, user, match_id)
    if known is not None and is_htmx(request) and known == match.version:
        return Response(status_code=204, headers={"Vary": "HX-Request"})
    return _page(request, db, match, seat)


def _refused(
    request: Request, db: Session, match_id: int, user: Any, exc: CommandRefused
) -> HTMLResponse:
    db.rollback()
    match, seat = _get(request, db, user, match_id)
    if exc.code == "stale_version":
        message = _(
            "The match changed while you were acting: here it is now. Check, then act again."
        )
    else:
        message = f"{exc.detail} ({exc.code})"
    status = 200 if is_htmx(request) else exc.status
    response = _page(request, db, match, seat, error=message, status_code=status)
    response.headers["X-Match-Refusal"] = exc.code
    return response


def build_command(form: FormData, page: pages.PageSystem) -> dict[str, Any]:
    """The command a form posts: its JSON, completed by the page that showed it with the
    inputs the player filled in."""
    raw = form.get("command")
    try:
        cmd = json.loads(raw) if isinstance(raw, str) and len(raw) < 20_000 else None
    except (ValueError, RecursionError):  # not JSON, or nested past the parser's stack
        cmd = None
    if not isinstance(cmd, dict):
        cmd = {"type": str(form.get("type") or "")}
    return page.build_command(form, cmd)


@router.post("/matches/{match_id}/act")
def act(request: Request, db: WebDb, user: OptionalUser, match_id: int, form: FormDep) -> Response:
    match, seat = _get(request, db, user, match_id)
    version = _int(form.get("version"), -1)
    found = _page_input(db, match, str(seat))
    page = pages.page_for(match.rule_system, found.game)
    command = build_command(form, page)
    if not form.get("confirmed"):
        ask = page.confirmation(found, command)
        if ask is not None:  # nothing is sent: the page asks (a dialog with htmx)
            return _page(request, db, match, seat, confirm=ask)
    try:
        with db.begin_nested():
            service.execute(
                db,
                match,
                seat,
                command,
                expected_version=version if version is not None else -1,
                dice=parse_dice(form.get("dice")),
            )
    except CommandRefused as exc:
        return _refused(request, db, match_id, user, exc)
    if not is_htmx(request):
        return htmx_redirect(request, f"/matches/{match_id}")
    return _page(request, db, match, seat)


@router.post("/matches/{match_id}/invitation")
def rotate_invitation(request: Request, db: WebDb, user: WebUser, match_id: int) -> Response:
    match, seat = _get(request, db, user, match_id)
    service.rotate_invitation(db, match, seat)
    return htmx_redirect(request, f"/matches/{match_id}")


@router.post("/matches/{match_id}/cancel")
def cancel_match(request: Request, db: WebDb, user: OptionalUser, match_id: int) -> Response:
    """The creator cancels a match nobody has joined: back to their matches, with a notice."""
    match, _seat = _get(request, db, user, match_id)
    try:
        with db.begin_nested():
            service.cancel(db, match, _caller(request, user, match_id))
    except AppError as exc:
        return _error_page(request, db, user, match_id, exc)
    return htmx_redirect(request, f"/matches?cancelled={match_id}")


@router.post("/matches/{match_id}/league-game")
def link_league_game(
    request: Request, db: WebDb, user: OptionalUser, match_id: int, form: FormDep
) -> Response:
    """A player links the match to a league game (or unlinks it: an empty choice), with the
    checks of ``league_link.link_league_game``."""
    _get(request, db, user, match_id)
    raw = str(form.get("league_game_id") or "").strip()
    game_id = parse_int(raw, 1, MAX_ID) if raw else None
    try:
        if raw and game_id is None:
            raise LeagueGameUnusable(_("Choose a league game from the list."))
        with db.begin_nested():
            league_link.link_league_game(db, match_id, _caller(request, user, match_id), game_id)
    except AppError as exc:
        return _error_page(request, db, user, match_id, exc)
    if not is_htmx(request):
        return htmx_redirect(request, f"/matches/{match_id}")
    match, seat = _get(request, db, user, match_id)
    notice = _("This match now plays the league game.") if game_id else _("No league game.")
    return _page(request, db, match, seat, notice=notice)


def _error_page(request: Request, db: Session, user: Any, match_id: int, exc: AppError) -> Response:
    """The match page, read again (the failed write rolled back), with the refusal shown."""
    match, seat = _get(request, db, user, match_id)
    return _refusal_page(request, db, match, seat, exc)


def _refusal_page(
    request: Request, db: Session, match: Match, seat: str, exc: AppError
) -> Response:
    """The match page with the refusal shown (htmx swaps only a 200)."""
    status_code = 200 if is_htmx(request) else exc.status
    return _page(request, db, match, seat, error=exc.detail, status_code=status_code)


# -- the spectator link -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SpectatorPanel:
    """The match page's spectator link (issue 21): on or off, the spectators' page while on
    (derived from the match, so always shown again), what an action just did, and whether the
    panel opens unfolded (after an action; folded otherwise, as on a phone)."""

    enabled: bool
    url: str | None
    notice: str | None = None
    open: bool = False
    # while off (ruling S19): the caller agreed and waits for the opponent, or the opponent
    # agreed and waits for the caller; the organiser (no seat) turns it on alone
    waiting: bool = False
    asked: bool = False
    organiser: bool = False


def spectator_panel(
    request: Request,
    db: Session,
    match: Match,
    caller: service.Caller,
    *,
    notice: str | None = None,
) -> SpectatorPanel | None:
    """The panel for whoever ``spectate.may_manage`` the link (on this page: the players, a
    guest seat included); ``None`` for anyone else."""
    if not spectate.may_manage(db, match, caller):
        return None
    unfold = notice is not None
    if match.spectate_digest is None:
        consent = spectate.consent_of(match, caller)
        return SpectatorPanel(
            False,
            None,
            notice,
            unfold,
            waiting=consent.waiting,
            asked=consent.asked,
            organiser=consent.organiser,
        )
    url = str(request.url_for("spectate_page", token=spectate.spectate_token(match)))
    return SpectatorPanel(True, url, notice, unfold)


SPECTATOR_NOTICES = {
    "enable": lazy("The spectator link is on: share it."),
    "agreed": lazy("You agreed: the link turns on when your opponent agrees too."),
    "rotate": lazy("New spectator link: the old one no longer works."),
    "disable": lazy("The spectator link is off: its spectators no longer follow the match."),
}


def _manage_spectators(
    request: Request, db: Session, user: Any, match_id: int, action: str
) -> Response:
    """Enable, rotate or disable the link as a player of the match (``spectate`` does it and
    ends a revoked link's streams); 404 for anyone ``spectate.may_manage`` refuses. htmx gets
    the panel again, unfolded with what was done; a plain form goes back to the page, at the
    panel (a browser unfolds it to show the fragment's target)."""
    match, _seat = _get(request, db, user, match_id)
    caller = _caller(request, user, match_id)
    if not spectate.may_manage(db, match, caller):
        raise MatchNotFound()
    hub = events.hub_for(request.app)
    if action == "enable":
        spectate.agree(db, match, caller)
        if match.spectate_digest is None:
            action = "agreed"
    elif action == "rotate":
        if match.spectate_digest is None:
            raise spectate.SpectateLinkOff()
        spectate.rotate(db, hub, match)
    else:
        spectate.withdraw(db, hub, match, caller)
    if not is_htmx(request):
        return htmx_redirect(request, f"/matches/{match_id}#spectators-body")
    panel = spectator_panel(request, db, match, caller, notice=_(SPECTATOR_NOTICES[action]))
    return render(
        request,
        "matches/_spectators.html",
        {"match": match, "spectators": panel},
        headers={"Vary": "HX-Request"},
    )


@router.post("/matches/{match_id}/spectators")
def enable_spectators(request: Request, db: WebDb, user: OptionalUser, match_id: int) -> Response:
    """Agree to the spectator link: on once both players agreed (at once for the organiser)."""
    return _manage_spectators(request, db, user, match_id, "enable")


@router.post("/matches/{match_id}/spectators/rotate")
def rotate_spectators(request: Request, db: WebDb, user: OptionalUser, match_id: int) -> Response:
    """A new spectator link: the old one stops working at once."""
    return _manage_spectators(request, db, user, match_id, "rotate")


@router.post("/matches/{match_id}/spectators/disable")
def disable_spectators(request: Request, db: WebDb, user: OptionalUser, match_id: int) -> Response:
    """Turn the spectator link off and withdraw the caller's agreement (turned on again, it is
    a new link)."""
    return _manage_spectators(request, db, user, match_id, "disable")


@router.get("/matches/{match_id}/events")
def page_events(
    request: Request,
    db: WebDb,
    user: OptionalUser,
    match_id: int,
    since: Annotated[int | None, Query(ge=0, le=10_000_000)] = None,
    timeout: Annotated[float, Query(ge=0, le=600)] = 300,
) -> StreamingResponse:
    who = _caller(request, user, match_id)
    header = request.headers.get("last-event-id")
    start = match_api._last_event_id(header, since)
    return match_api.event_stream(request, db, match_id, who, start, timeout)


@router.get("/matches/{match_id}/export")
def export(request: Request, db: WebDb, user: OptionalUser, match_id: int) -> Response:
    match, seat = _get(request, db, user, match_id)
    try:
        data = service.export(db, match, seat)
    except AppError as exc:
        return _page(request, db, match, seat, error=exc.detail, status_code=exc.status)
    return JSONResponse(
        data, headers={"Content-Disposition": f'attachment; filename="match-{match.id}.json"'}
    )


@router.post("/matches/{match_id:int}/{name}")
def system_form(
    request: Request, db: WebDb, user: OptionalUser, match_id: int, name: str, form: FormDep
) -> Response:
    """A form of the match's rule system (``PageSystem.posts``: e.g. the 10th edition's Battle
    Formations and attacks); 404 for a name its system does not have."""
    match, seat = _get(request, db, user, match_id)
    game = service.load_battle(db, match) if match.version > 0 else None
    handler = pages.page_for(match.rule_system, game).posts.get(name)
    if handler is None:
        raise MatchNotFound()
    version = _int(form.get("version"), -1)
    post = pages.PagePost(
        request=request,
        db=db,
        match=match,
        seat=str(seat),
        form=form,
        version=version if version is not None else -1,
        page=lambda **extra: _answer(request, db, match_id, user, **extra),
        refused=lambda exc: _refused(request, db, match_id, user, exc),
        error=lambda exc: _error_page(request, db, user, match_id, exc),
    )
    return handler(post)


def _answer(request: Request, db: Session, match_id: int, user: Any, **extra: Any) -> Response:
    """A system form's answer: back to the page (a plain form), else the page's state block
    (or the block it names) with what the form brought."""
    match, seat = _get(request, db, user, match_id)
    if not is_htmx(request) and not extra.get("odds") and extra.get("resolution") is None:
        return htmx_redirect(request, f"/matches/{match_id}")
    return _page(request, db, match, seat, **extra)
