"""JSON API of the match tracker: /api/v1/matches.

Only the two players of a match see it (anyone else gets 404). A registered player
authenticates as usual (bearer token, or session cookie + ``X-CSRF-Token``); a guest seat sends
its link token in the ``X-Guest-Token`` header. Every write names the version it saw
(``expected_version``); engine refusals are problem documents with a stable ``code``: 422 for a
malformed command, 403 for acting for the other side, 409 for a stale version
(``current_version`` included) or a move the rules forbid now.
"""

from __future__ import annotations

import hashlib
import json
import re
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any

import anyio.to_thread
from fastapi import APIRouter, Body, Depends, Header, Query, Request, Response, status
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel
from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session, aliased
from starlette._utils import get_route_path
from starlette.datastructures import URLPath
from starlette.routing import BaseRoute, NoMatchFound
from starlette.routing import Match as RouteMatch
from starlette.types import Message, Receive, Scope, Send

from app.accounts.deps import CurrentUser, OptionalUser, OptionalViewer, Viewer, invalid_token
from app.accounts.models import User
from app.accounts.service import TOKEN_PREFIX, cached_grant_for_api_token, user_for_api_token
from app.core import latency, security
from app.core.deps import DbSession, autocommit_reads, end_transaction
from app.core.errors import PROBLEM_JSON
from app.core.fastjson import FastJSONResponse
from app.core.ids import MAX_ID, parse_int
from app.engine.combat import to_jsonable
from app.engine.match import visible_to
from app.engine.match.seats import Seat
from app.matches import events, reads, service, systems
from app.matches.exceptions import MatchNotFound
from app.matches.models import Match, OpponentKind
from app.matches.schemas import (
    AttackRequest,
    CommandRequest,
    CommandResult,
    GuestJoin,
    InvitationOut,
    JoinRequest,
    MatchCreate,
    MatchOut,
    MatchSummary,
    MissionOut,
    MissionSizeOut,
    PlayerOut,
    PreviewResult,
    ResolveRequest,
    ResolveResult,
    SampleOut,
)

router = APIRouter(prefix="/matches", tags=["matches"])

GUEST_HEADER = "X-Guest-Token"
_PROBLEM: dict[str, Any] = {"content": {PROBLEM_JSON: {}}}


async def match_db(request: Request, db: DbSession) -> Session:
    """The request's session, with its committed writes waking the match streams."""
    service.bind_publisher(db, events.hub_for(request.app).publish)
    return db


MatchDb = Annotated[Session, Depends(match_db)]


async def caller(
    user: OptionalViewer,
    x_guest_token: Annotated[
        str | None, Header(max_length=200, description="A guest seat's link token")
    ] = None,
) -> service.Caller:
    return service.Caller(user.id if user is not None else None, x_guest_token or None)


Who = Annotated[service.Caller, Depends(caller)]


# -- shaping ----------------------------------------------------------------------------------


def _player(snapshot: dict[str, Any] | None, name: str, *, guest: bool = False) -> PlayerOut:
    return PlayerOut(
        name=name,
        army=snapshot.get("name") if snapshot else None,
        faction=snapshot.get("faction") if snapshot else None,
        points=snapshot.get("points") if snapshot else None,
        guest=guest,
    )


def invitation(request: Request, match: Match, seat: str) -> InvitationOut | None:
    """The invitation code and links, for the creator while the seat B is open."""
    if seat != Seat.A or match.version > 0:
        return None
    code = service.invite_code(match) if match.invite_digest else None
    out = InvitationOut()
    if match.opponent_kind == OpponentKind.GUEST:
        out.guest_url = str(request.url_for("match_guest_page", token=service.guest_token(match)))
    elif code is not None:
        out.code = code
        out.join_url = str(request.url_for("match_join_page", code=code))
    return out


def match_out(
    request: Request,
    db: Session,
    match: Match,
    seat: str,
    *,
    with_view: bool = True,
    names: dict[str, str] | None = None,
    armies: tuple[dict[str, Any] | None, dict[str, Any] | None] | None = None,
) -> MatchOut:
    names = service.player_names(db, match) if names is None else names
    view = service.view(db, match, seat) if with_view else None
    army_a, army_b = (match.army_a, match.army_b) if armies is None else armies
    return MatchOut(
        id=match.id,
        rule_system=match.rule_system,
        ruleset=match.rule_system,
        mission=match.mission_id,
        battle_size=match.battle_size,
        status=match.status,
        opponent=match.opponent_kind,
        seat="A" if seat == Seat.A else "B",
        players={
            "A": _player(army_a, names["A"]),
            "B": _player(army_b, names["B"], guest=match.opponent_kind == OpponentKind.GUEST),
        },
        version=match.version,
        round=match.round,
        vp={"A": match.vp_a, "B": match.vp_b},
        winner=match.winner,
        league_game_id=match.league_game_id,
        league_reported=match.league_reported,
        league_report_error=match.league_report_error,
        created_at=match.created_at,
        updated_at=match.updated_at,
        invitation=invitation(request, match, seat),
        view=view,
    )


def command_result(outcome: service.Outcome, seat: str, *, actions: bool = True) -> dict[str, Any]:
    battle = outcome.battle
    codec = reads.codec_of(battle)
    return {
        "version": battle.version,
        "events": [e.to_json(codec) for e in outcome.new if visible_to(e, str(seat))],
        "view": battle.view(str(seat)),
        "actions": battle.legal_actions(str(seat)) if actions else None,
    }


WithActions = Annotated[
    bool,
    Query(
        alias="actions",
        description="Also answer the commands your seat may send next (costs a few ms)",
    ),
]


# -- collection routes ------------------------------------------------------------------------


def model_response(model: BaseModel, status_code: int = status.HTTP_200_OK) -> Response:
    """``model`` as the JSON answer, serialised here: an endpoint that returns a model (or a
    dict) has FastAPI validate it against ``response_model`` again, in one more trip to the
    thread pool (ADR 0009, addendum 2). ``response_model`` stays on the route for OpenAPI."""
    return Response(model.model_dump_json(), status_code, media_type="application/json")


@router.get("", response_model=list[MatchSummary], summary="The matches you play")
def list_matches(user: CurrentUser, db: MatchDb) -> list[MatchSummary]:
    out = []
    for m in service.my_matches(db, user):
        names = service.player_names(db, m)
        out.append(
            MatchSummary(
                id=m.id,
                ruleset=m.rule_system,
                mission=m.mission_id,
                battle_size=m.battle_size,
                status=m.status,
                seat="A" if m.player_a_id == user.id else "B",
                players=names,
                version=m.version,
                round=m.round,
                vp={"A": m.vp_a, "B": m.vp_b},
                winner=m.winner,
                updated_at=m.updated_at,
            )
        )
    return out


@router.post(
    "",
    response_model=MatchOut,
    status_code=status.HTTP_201_CREATED,
    summary="Create a match from one of your ready lists; invite the opponent",
)
def create_match(request: Request, data: MatchCreate, user: CurrentUser, db: MatchDb) -> Response:
    match = service.create(
        db,
        user,
        army_id=data.army_id,
        mission_id=data.mission,
        battle_size=data.battle_size,
        opponent=OpponentKind(data.opponent),
        league_game_id=data.league_game_id,
        options=data.options,
        ruleset=data.ruleset,
    )
    return model_response(match_out(request, db, match, Seat.A), status.HTTP_201_CREATED)


Ruleset = Annotated[
    str,
    Query(
        min_length=1,
        max_length=32,
        description="A rule system that can be played as a match (GET /api/v1/rulesets: "
        'capability "match")',
    ),
]


@router.get(
    "/missions", response_model=list[MissionOut], summary="The missions and sizes of a rule system"
)
def list_missions(ruleset: Ruleset = systems.DEFAULT_RULESET) -> list[MissionOut]:
    return [
        MissionOut(
            id=m.id,
            name=dict(m.name),
            rounds=m.length.rounds,
            battle_sizes=[
                MissionSizeOut(id=s.id, points=s.points, name=dict(s.name or {}))
                for s in m.battle_sizes
            ],
        )
        for m in service.missions(ruleset).values()
    ]


@router.get("/samples", response_model=list[SampleOut], summary="Sample lists for guest seats")
def list_samples(ruleset: Ruleset = systems.DEFAULT_RULESET) -> list[SampleOut]:
    return [
        SampleOut(id=s.id, name=s.name, faction=s.faction, points=points)
        for s, points in samples_with_points(ruleset)
    ]


def samples_with_points(
    ruleset: str = systems.DEFAULT_RULESET,
) -> list[tuple[systems.SampleInfo, int]]:
    """The sample lists of a rule system's guest seats, with their points."""
    guests = systems.playable(ruleset).guests
    return [] if guests is None else guests.samples()


@router.post("/join", response_model=MatchOut, summary="Join a match with an invitation code")
def join_match(request: Request, data: JoinRequest, user: CurrentUser, db: MatchDb) -> Response:
    match = service.join_by_code(db, user, data.code, data.army_id)
    return model_response(match_out(request, db, match, Seat.B))


@router.post(
    "/guest",
    response_model=MatchOut,
    summary="Take a guest seat (its link token) with a sample list or a pasted army export",
)
def join_as_guest(request: Request, data: GuestJoin, user: OptionalUser, db: MatchDb) -> Response:
    match = service.join_as_guest(
        db, data.token, name=data.name, sample=data.sample, army=data.army, user=user
    )
    return model_response(match_out(request, db, match, Seat.B))


@router.post(
    "/import",
    response_model=MatchOut,
    status_code=status.HTTP_201_CREATED,
    summary="A new match replayed from an exported log (you take seat A, B is a guest seat)",
)
def import_match(
    request: Request,
    user: CurrentUser,
    db: MatchDb,
    data: Annotated[dict[str, Any], Body(description="An export of GET /matches/{id}/export")],
) -> Response:
    match = service.import_log(db, user, data)
    out = match_out(request, db, match, Seat.A)
    out.invitation = InvitationOut(
        guest_url=str(request.url_for("match_guest_page", token=service.guest_token(match)))
    )
    return model_response(out, status.HTTP_201_CREATED)


# -- one match --------------------------------------------------------------------------------


def etag(head: service.Head) -> str:
    """The validator of ``GET /matches/{id}`` for one seat: the version, and a digest of the
    row's other fields the answer shows (names, status, league report...)."""
    fields = [
        head.names["A"],
        head.names["B"],
        head.status,
        head.round,
        head.vp_a,
        head.vp_b,
        head.winner,
        head.league_game_id,
        head.league_reported,
        head.league_report_error,
        head.updated_at.isoformat() if head.updated_at else None,
    ]
    digest = hashlib.sha256(json.dumps(fields, default=str).encode()).hexdigest()[:16]
    return f'W/"{head.id}.{head.version}.{head.seat}.{digest}"'


def _fresh(if_none_match: str | None, tag: str) -> bool:
    if not if_none_match:
        return False
    opaque = tag.removeprefix("W/")
    return any(
        t.strip() == "*" or t.strip().removeprefix("W/") == opaque for t in if_none_match.split(",")
    )


@router.get(
    "/{match_id}",
    response_model=MatchOut,
    summary="A match, as your seat sees it (send If-None-Match with its ETag: 304 if unchanged)",
    responses={304: {"description": "Not modified: the ETag sent is still the match's"}},
)
def get_match(
    request: Request,
    match_id: int,
    who: Who,
    db: MatchDb,
    if_none_match: Annotated[str | None, Header(max_length=1000)] = None,
) -> Any:
    # One Core select (the row's fields, both names) answers a started match: a 304 decided on
    # it, a 200 built from it and the version's snapshot, no ORM instance, no second query;
    # outside a transaction (a read only: no BEGIN, no COMMIT).
    autocommit_reads(db)
    row: Any = reads.core_rows(db, _READ, {"match_id": match_id}).one_or_none()
    seat = None if row is None else service.seat_of(row, who)
    if row is None or seat is None:
        raise MatchNotFound()
    if row.version == 0:  # waiting for the opponent: the invitation depends on the request
        match, seat = service.get_for(db, match_id, who)
        return model_response(match_out(request, db, match, seat))
    names = {
        "A": (row.name_a or "") if row.player_a_id is not None else "",
        "B": (row.name_b or "") if row.player_b_id is not None else row.guest_name,
    }
    tag = etag(_head(row, seat, names))
    headers = {"ETag": tag, "Cache-Control": "private, no-cache"}
    if _fresh(if_none_match, tag):
        end_transaction(db)
        return Response(status_code=status.HTTP_304_NOT_MODIFIED, headers=headers)
    # The answer of one seat at one version is built once per process (app.matches.reads),
    # and the armies' summaries once per match: their snapshots are fixed by the join.
    snap = reads.snapshot(db, row)

    def build() -> bytes:
        armies = snap.lasting("armies", lambda: _army_summaries(db, row.id))
        out = started_out(row, seat, names, armies, snap.battle.view(str(seat)))
        return out.model_dump_json().encode()

    body = snap.rendered(("match_out", str(seat), tag), build)
    end_transaction(db)
    return Response(body, media_type="application/json", headers=headers)


_PLAYER_A = aliased(User)
_PLAYER_B = aliased(User)
_READ = (  # built once: its cache key is memoised on it
    select(
        Match.id,
        Match.secret,
        Match.rule_system,
        Match.mission_id,
        Match.battle_size,
        Match.opponent_kind,
        Match.created_at,
        Match.version,
        Match.status,
        Match.round,
        Match.vp_a,
        Match.vp_b,
        Match.winner,
        Match.league_game_id,
        Match.league_reported,
        Match.league_report_error,
        Match.updated_at,
        Match.player_a_id,
        Match.player_b_id,
        Match.guest_digest,
        Match.guest_name,
        _PLAYER_A.display_name.label("name_a"),
        _PLAYER_B.display_name.label("name_b"),
    )
    .outerjoin(_PLAYER_A, _PLAYER_A.id == Match.player_a_id)
    .outerjoin(_PLAYER_B, _PLAYER_B.id == Match.player_b_id)
    .where(Match.id == bindparam("match_id"))
)


def _head(row: Any, seat: Seat, names: dict[str, str]) -> service.Head:
    return service.Head(
        id=row.id,
        version=row.version,
        seat=seat,
        names=names,
        status=row.status,
        round=row.round,
        vp_a=row.vp_a,
        vp_b=row.vp_b,
        winner=row.winner,
        league_game_id=row.league_game_id,
        league_reported=row.league_reported,
        league_report_error=row.league_report_error,
        updated_at=row.updated_at,
    )


def started_out(
    row: Any,
    seat: str,
    names: dict[str, str],
    armies: tuple[dict[str, Any] | None, dict[str, Any] | None],
    view: dict[str, Any],
) -> MatchOut:
    """The ``MatchOut`` of a started match from a row of ``_READ`` (no invitation any more)."""
    return MatchOut(
        id=row.id,
        rule_system=row.rule_system,
        ruleset=row.rule_system,
        mission=row.mission_id,
        battle_size=row.battle_size,
        status=row.status,
        opponent=row.opponent_kind,
        seat="A" if seat == Seat.A else "B",
        players={
            "A": _player(armies[0], names["A"]),
            "B": _player(armies[1], names["B"], guest=row.opponent_kind == OpponentKind.GUEST),
        },
        version=row.version,
        round=row.round,
        vp={"A": row.vp_a, "B": row.vp_b},
        winner=row.winner,
        league_game_id=row.league_game_id,
        league_reported=row.league_reported,
        league_report_error=row.league_report_error,
        created_at=row.created_at,
        updated_at=row.updated_at,
        invitation=None,
        view=view,
    )


_SUMMARY = ("name", "faction", "points")


def _army_summaries(
    db: Session, match_id: int
) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """What an answer shows of the two army snapshots (without holding on to their units)."""
    found = db.execute(select(Match.army_a, Match.army_b).where(Match.id == match_id)).one()
    a, b = (None if s is None else {k: s.get(k) for k in _SUMMARY} for s in found)
    return a, b


@router.delete(
    "/{match_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Cancel a match nobody has joined yet (its creator only): it is deleted",
    responses={
        403: {"description": "Not the creator (`match-creator-only`)", **_PROBLEM},
        404: {"description": "No such match that you play (`match-not-found`)", **_PROBLEM},
        409: {"description": "The opponent has joined (`match-started`)", **_PROBLEM},
    },
)
def cancel_match(match_id: int, who: Who, db: MatchDb) -> None:
    match, _seat = service.get_for(db, match_id, who)
    service.cancel(db, match, who)


@router.post(
    "/{match_id}/invitation",
    response_model=MatchOut,
    summary="A new invitation code or guest link (the old one stops working)",
)
def rotate_invitation(request: Request, match_id: int, who: Who, db: MatchDb) -> Response:
    match, seat = service.get_for(db, match_id, who)
    service.rotate_invitation(db, match, seat)
    return model_response(match_out(request, db, match, seat))


@router.post(
    "/{match_id}/commands",
    response_model=CommandResult,
    summary="Send a command for your seat (undo, confirm_result, dispute_result included)",
    description=(
        "Conceding ends the battle and cannot be undone, so it must be confirmed in the "
        'command itself: `{"type": "concede", "confirm": true}`. Without `confirm: true` the '
        "answer is a 422 problem with the code `confirmation_required` (field `command.confirm`) "
        "and nothing is written: a client asks its player first, then sends the confirmed "
        "command."
    ),
    responses={
        409: {"description": "A stale version, or a refusal by the rules", **_PROBLEM},
        422: {
            "description": "Bad input, or a concession without `confirm: true` "
            "(`confirmation_required`)",
            **_PROBLEM,
        },
    },
)
def send_command(
    match_id: int, data: CommandRequest, who: Who, db: MatchDb, with_actions: WithActions = False
) -> JSONResponse:
    outcome, seat = service.command(
        db, match_id, who, data.command, expected_version=data.expected_version, dice=data.dice
    )
    end_transaction(db)  # committed here, in this trip to the thread pool (ADR 0009)
    # a plain JSON response: the view is the engine's JSON already (no second validation)
    return FastJSONResponse(command_result(outcome, seat, actions=with_actions))


# The JSON answers below are the engine's JSON already: built into a response here, so that
# FastAPI does not validate them again in one more trip to the thread pool (ADR 0009).
@router.get(
    "/{match_id}/actions",
    response_model=dict[str, Any],
    summary="The commands your seat may send now",
)
def legal_actions(match_id: int, who: Who, db: MatchDb) -> JSONResponse:
    match, seat = service.get_for(db, match_id, who)
    actions = service.legal_actions(db, match, seat)
    end_transaction(db)
    return FastJSONResponse({"version": match.version, "actions": actions})


@router.get(
    "/{match_id}/log",
    response_model=dict[str, Any],
    summary="Your copy of the match log (the timeline)",
)
def match_log(
    match_id: int,
    who: Who,
    db: MatchDb,
    since: Annotated[int, Query(ge=0, le=10_000_000)] = 0,
) -> JSONResponse:
    match, seat = service.get_for(db, match_id, who)
    entries = service.log_for(db, match, seat, since)
    end_transaction(db)
    return FastJSONResponse({"version": match.version, "entries": entries})


def _last_event_id(header: str | None, since: int | None) -> int:
    number = parse_int(header, 0, 10**18)
    return min(number, 10_000_000) if number is not None else since or 0


@dataclass(frozen=True, slots=True)
class Fetched:
    """What one shared stream read found: the match row (``None``: gone), the state every
    viewer is sent, and the snapshot of its version (``None`` before the battle starts)."""

    row: Any
    state: dict[str, Any]
    snapshot: reads.Snapshot | None


_STREAM_ROW = select(  # built once: its cache key is memoised on it
    Match.id,
    Match.secret,
    Match.rule_system,
    Match.version,
    Match.status,
    Match.round,
    Match.player_a_id,
    Match.player_b_id,
    Match.guest_digest,
).where(Match.id == bindparam("match_id"))


def _fetched(row: Any, snap: reads.Snapshot) -> Fetched:
    state: dict[str, Any] = {"status": row.status, "round": row.round}
    state.update(systems.playable(row.rule_system).headline(snap.battle))
    return Fetched(row, state, snap)


def event_reader(request: Request, match_id: int, who: service.Caller) -> events.Shared[Fetched]:
    """The read of a stream: one short session and one snapshot per wake-up of the match,
    shared by its streams in this process; each viewer then takes its seat's new entries."""
    database = request.app.state.db
    hub = events.hub_for(request.app)

    def at_hand() -> Fetched | None:
        # Woken by a write this process committed (the last version announced here is the one
        # it wrote): its row and battle are at hand, no database read and no trip to the thread
        # pool (issue 21); built once per version for all the match's streams. A later
        # version, from either process, wakes the streams again.
        written = reads.cache.written.at(match_id, hub.announced(match_id))
        if written is None:
            return None
        held = reads.cache.get((written.id, written.secret), written.version)
        if held is None:
            return None
        # The snapshot memoises the state, not the Fetched: a Fetched holds the snapshot, so a
        # snapshot holding one is a reference cycle, not freed when the cache drops it but by
        # the cyclic collector, whose older generations run rarely (app.core.runtime): each
        # version a stream was woken for stayed in memory, its battle and renderings with it
        # (issue 21, the soak's memory).
        state = held.memo(("stream-state",), lambda: _fetched(written, held).state)
        return Fetched(written, state, held)

    def fetch() -> Fetched:
        found = at_hand()
        return found if found is not None else fresh()

    def fresh() -> Fetched:
        # the database: a keep-alive's turn reads it whatever was announced here, since a lost
        # notification leaves the announced version behind the match's
        with database.sessions() as db:
            autocommit_reads(db)  # a read only: no BEGIN, no COMMIT
            row = reads.core_rows(db, _STREAM_ROW, {"match_id": match_id}).one_or_none()
            if row is None:
                return Fetched(None, {}, None)
            if row.version == 0:
                return Fetched(row, {"status": row.status, "round": row.round}, None)
            return _fetched(row, reads.snapshot(db, row))

    def present(found: Fetched, since: int) -> events.Update:
        seat = service.seat_of(found.row, who) if found.row is not None else None
        if seat is None:
            return events.Update(0, [], {}, gone=True)
        if found.snapshot is None:
            return events.Update(0, [], found.state)
        entries = found.snapshot.entries(str(seat), since)
        return events.Update(found.snapshot.version, entries, found.state)

    return events.Shared(fetch, present, at_hand=at_hand, fresh=fresh)


def event_stream(
    request: Request, db: Session, match_id: int, who: service.Caller, since: int, timeout: float
) -> StreamingResponse:
    service.get_for(db, match_id, who)  # 404 before the stream starts
    end_transaction(db)
    hub = events.hub_for(request.app)
    body = events.stream(
        hub, match_id, since, event_reader(request, match_id, who), timeout=timeout
    )
    return StreamingResponse(
        body,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@router.get(
    "/{match_id}/events",
    summary="Server-sent events: your new log entries, then the version (resume with "
    "Last-Event-ID)",
    response_class=StreamingResponse,
)
def match_events(
    request: Request,
    match_id: int,
    who: Who,
    db: MatchDb,
    since: Annotated[int | None, Query(ge=0, le=10_000_000)] = None,
    timeout: Annotated[float, Query(ge=0, le=600, description="Close after this many s")] = 300,
    last_event_id: Annotated[str | None, Header(max_length=20)] = None,
) -> StreamingResponse:
    start = _last_event_id(last_event_id, since)
    return event_stream(request, db, match_id, who, start, timeout)


@router.get(
    "/{match_id}/export",
    summary="The whole log as JSON (once you may see every event of it)",
)
def export_log(match_id: int, who: Who, db: MatchDb) -> JSONResponse:
    match, seat = service.get_for(db, match_id, who)
    data = service.export(db, match, seat)
    return JSONResponse(
        data,
        headers={"Content-Disposition": f'attachment; filename="match-{match.id}.json"'},
    )


@router.get(
    "/{match_id}/audit",
    response_model=dict[str, Any],
    summary="Every seeded roll re-drawn from its seed",
)
def audit(match_id: int, who: Who, db: MatchDb) -> JSONResponse:
    match, _seat = service.get_for(db, match_id, who)
    rolls = service.audit(db, match)
    end_transaction(db)
    return JSONResponse({"version": match.version, "rolls": rolls})


@router.post(
    "/{match_id}/combat/preview",
    response_model=PreviewResult,
    summary="The exact odds of an attack between two units of the match",
)
def combat_preview(match_id: int, data: AttackRequest, who: Who, db: MatchDb) -> dict[str, Any]:
    match, seat = service.get_for(db, match_id, who)
    return service.preview(
        db,
        match,
        seat,
        data.attacker,
        data.target,
        [w.model_dump() for w in data.weapons],
        data.situation,
    )


@router.post(
    "/{match_id}/combat/resolve",
    response_model=ResolveResult,
    summary="Roll an attack live (or take the dice rolled by hand) and apply it",
)
def combat_resolve(
    match_id: int,
    data: ResolveRequest,
    who: Who,
    db: MatchDb,
    with_actions: WithActions = False,
) -> JSONResponse:
    match, seat = service.get_for(db, match_id, who)
    outcome, resolution = service.resolve(
        db,
        match,
        seat,
        data.attacker,
        data.target,
        [w.model_dump() for w in data.weapons],
        data.situation,
        expected_version=data.expected_version,
        dice=data.dice,
    )
    return FastJSONResponse(
        {
            **command_result(outcome, seat, actions=with_actions),
            "resolution": to_jsonable(resolution),
        }
    )


# -- the hot lane (issue 21) ------------------------------------------------------------------
#
# Tournament night is a command and a refresh per write at every table. Through FastAPI each
# costs its routing (every included router's routes walked), the solving of some ten
# dependencies and their parameters, and the validation of the headers, before the endpoint
# runs. The hot lane answers these two requests itself, when it can tell at once that FastAPI
# would answer them exactly as the endpoint does: a bearer token this process has already
# checked (the same cache as ``current_viewer``), no guest token, no query, ordinary headers,
# and for a command a JSON body that ``CommandRequest`` accepts. It then runs the very same
# endpoint function (``get_match``, ``send_command``) with the very same session, in one trip
# to the thread pool. A token this process has not checked in the last few seconds (its grant
# lasts ``TOKEN_GRANT_SECONDS``: each phone's token every 10 s on each worker) is checked in
# that same trip and session, by the very lookup FastAPI's ``current_user`` makes
# (``user_for_api_token``: the same query, the same deferred touch, the same cache); a token it
# refuses goes to FastAPI, which answers its 401. Anything else (a guest seat, a query, an
# unusual header, a body FastAPI would refuse or read differently) goes to FastAPI, untouched,
# with the body replayed. It sits inside the whole middleware stack (admission, body limits,
# security headers, bookkeeping) and its errors reach the same exception handlers.

HOT_SKIP = "auspex.hot_lane.skip"  # scope key: a request handed back to FastAPI's routes
_MAX_HEADER = {b"if-none-match": 1000}  # the routes' Header(max_length=...)
_JSON = b"application/json"


@dataclass(frozen=True, slots=True)
class _HotRequest:
    token: str
    if_none_match: str | None
    json_body: bool


def _hot_headers(scope: Scope) -> _HotRequest | None:
    """What the hot lane needs of the request's headers, or ``None`` when FastAPI must judge
    them (its ``Header``/``HTTPBearer`` parameters take the first occurrence of a name)."""
    token: str | None = None
    if_none_match: str | None = None
    content_type: bytes | None = None
    seen: set[bytes] = set()
    for name, value in scope["headers"]:
        if name in seen:
            continue
        seen.add(name)
        if name == b"authorization":
            scheme, _, credentials = value.decode("latin-1").partition(" ")
            if scheme.lower() != "bearer" or not credentials.strip():
                return None
            token = credentials.strip()
        elif name == b"x-guest-token":
            return None  # a guest seat: caller() reads it
        elif name == b"if-none-match":
            if len(value) > _MAX_HEADER[name]:
                return None
            if_none_match = value.decode("latin-1")
        elif name == b"content-type":
            content_type = value
    if token is None:
        return None
    return _HotRequest(token, if_none_match, content_type == _JSON)


class HotRoute(BaseRoute):
    """One of the two hot endpoints (``get``: ``GET {prefix}/matches/{id}``, ``command``:
    ``POST {prefix}/matches/{id}/commands``), served without FastAPI's dependency solving
    when it can be (see above); installed first among the app's routes (:func:`hot_lane`)."""

    def __init__(self, app: Any, prefix: str, kind: str) -> None:
        self.app = app
        self.kind = kind
        self.served = 0  # requests answered here rather than by FastAPI (tests, benchmarks)
        self.checked = 0  # of which with a token checked in the database here (not cached)
        self.refused = 0  # tokens the check here refused (answered 401 here, not counted above)
        suffix = "/commands" if kind == "command" else ""
        self.method = "POST" if kind == "command" else "GET"
        self.path_format = f"{prefix}{router.prefix}/{{match_id}}{suffix}"
        self._path = re.compile(
            re.escape(f"{prefix}{router.prefix}/") + r"([0-9]{1,10})" + re.escape(suffix)
        )

    def matches(self, scope: Scope) -> tuple[RouteMatch, Scope]:
        if (
            scope["type"] != "http"
            or scope["method"] != self.method
            or scope.get(HOT_SKIP)
            or scope.get("query_string")
        ):
            return RouteMatch.NONE, {}
        found = self._path.fullmatch(get_route_path(scope))
        if found is None:
            return RouteMatch.NONE, {}
        match_id = int(found[1])
        if match_id > MAX_ID:
            return RouteMatch.NONE, {}  # path_ids_in_range: a 404
        return RouteMatch.FULL, {"path_params": {"match_id": match_id}}

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        raise NoMatchFound(name, path_params)  # the FastAPI routes name these paths

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        found = _hot_headers(scope)
        if (
            found is None
            or (self.kind == "command" and not found.json_body)
            or not found.token.startswith(TOKEN_PREFIX)  # FastAPI's 401, with no query
        ):
            await self._hand_back(scope, receive, send, [])
            return
        grant = cached_grant_for_api_token(found.token)
        match_id: int = scope["path_params"]["match_id"]
        data: CommandRequest | None = None
        messages: list[Message] = []
        if self.kind == "command":
            messages, body = await _read_body(receive)
            data = None if body is None else _command_request(body)
            if data is None:
                await self._hand_back(scope, receive, send, messages)
                return
        # what current_viewer() leaves on the request
        state = scope.setdefault("state", {})
        if grant is not None:
            _identify(state, found.token, grant.preferred_language)
            state["viewer"] = Viewer(grant.user_id, grant.display_name, grant.email)
        request = Request(scope, receive)
        database = self.app.state.db
        publish = events.hub_for(self.app).publish
        taken: list[str] = []  # "cached" or "checked", once the caller is known

        traced = latency.ENABLED
        if traced:
            latency.label(scope, self.kind)

        def run() -> Response | None:
            if traced:
                latency.mark(scope, "started")
                latency.thread_begin()
                try:
                    return answer()
                finally:
                    latency.thread_end(scope)
            return answer()

        def answer() -> Response | None:
            # get_db()'s session (committed before the answer, rolled back on an error) and
            # match_db()'s publisher, around the endpoint itself
            with contextmanager(database.session)(write=data is not None) as db:
                if grant is not None:
                    who = service.Caller(grant.user_id, None)
                    taken.append("cached")
                else:
                    # current_user()'s check of a token not cached, in its session and trip
                    user = user_for_api_token(db, found.token)
                    if user is None:
                        return None  # refused: answered below, as current_user() does
                    _identify(state, found.token, user.preferred_language)
                    state["user"] = user
                    state["viewer"] = Viewer(user.id, user.display_name, user.email)
                    who = service.Caller(user.id, None)
                    taken.append("checked")
                service.bind_publisher(db, publish)
                if data is not None:
                    return send_command(match_id, data, who, db, with_actions=False)
                answer: Response = get_match(request, match_id, who, db, found.if_none_match)
                return answer

        try:
            if traced:
                latency.mark(scope, "submitted")
            response = await anyio.to_thread.run_sync(run)
            if traced:
                latency.mark(scope, "resumed")
        finally:
            # taken on here once the caller is known: an error the endpoint raises is
            # answered by the app's handlers, and counted
            self.served += bool(taken)
            self.checked += taken == ["checked"]
        if response is None:
            # the token refused by the lane's own check: current_user()'s 401, raised here for
            # the app's handlers, rather than handing the request to FastAPI, whose dependency
            # would look the token up a second time (review REV1 F4)
            self.refused += 1
            raise invalid_token()
        await response(scope, receive, send)

    async def _hand_back(
        self, scope: Scope, receive: Receive, send: Send, messages: list[Message]
    ) -> None:
        """FastAPI's own route answers, with the body messages already read replayed."""
        scope[HOT_SKIP] = True
        scope.pop("path_params", None)

        async def replay() -> Message:
            return messages.pop(0) if messages else await receive()

        await self.app.router(scope, replay, send)


def _identify(state: dict[str, Any], token: str, locale: str) -> None:
    """What ``current_user`` leaves on the request of a valid bearer token (the viewer aside)."""
    state["auth"] = "token"
    state["token_digest"] = security.digest(token)
    state["locale"] = locale


async def _read_body(receive: Receive) -> tuple[list[Message], bytes | None]:
    """The request's messages and its whole body (``None``: the client went away)."""
    messages: list[Message] = []
    while True:
        message = await receive()
        messages.append(message)
        if message["type"] != "http.request":
            return messages, None
        if not message.get("more_body", False):
            break
    return messages, b"".join(m.get("body", b"") for m in messages)


HOT_BODY_LIMIT = 64 * 1024  # a command with its dice is a few kilobytes


def _command_request(body: bytes) -> CommandRequest | None:
    """The body as FastAPI reads a JSON body (``json.loads``, then the model in Python mode);
    ``None`` for anything it would refuse, which it then does itself (a body nested too deep
    for ``json.loads`` included: FastAPI answers 400, not 500). A body longer than any real
    command goes to FastAPI unread, so that a refused one is not parsed twice."""
    if len(body) > HOT_BODY_LIMIT:
        return None
    try:
        decoded = json.loads(body)
        if not isinstance(decoded, dict):
            return None
        return CommandRequest.model_validate(decoded)
    except Exception:  # whatever it is, FastAPI's route judges it
        return None


def hot_lane(app: Any, prefix: str) -> None:
    """Install the hot lane first among ``app``'s routes (``prefix``: the API's, ``/api/v1``);
    once only."""
    if any(isinstance(r, HotRoute) for r in app.router.routes):
        return
    app.router.routes.insert(0, HotRoute(app, prefix, "command"))
    app.router.routes.insert(0, HotRoute(app, prefix, "get"))


__all__ = ["HotRoute", "hot_lane", "router"]
