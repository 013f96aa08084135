"""Spectators: a read-only link to a match (issue 21).

**Who turns it on.** The link is on when the organiser turns it on, or when both players have
agreed (ruling S19, docs/rulings/leagues-service.md): each seat's agreement is kept in
``matches.spectate_consent`` (a bit per seat), so a player is never watched without having said
yes. The organiser is a league organiser of the game the match plays (a club admin or owner:
the leagues feature says who, through the port ``app.matches.league_games``) or a creator who
holds no seat. Either player, or the organiser, may turn it off at any time (a player's "off"
withdraws that player's agreement), or rotate it while it is on (the old link stops working at
once); anyone else gets 404, whether the match exists or not.
Whoever holds the link sees the match as a spectator: the engine's ``view(None)`` and the
public entries of the log (those with no audience), i.e. only what both players have
revealed, never a secret of either seat (ADR 0010). Nothing a spectator sends can write: the
link only reads.

**The token** is derived like the guest seat's (``app.matches.invitations``): an HMAC of the
match secret, the purpose and ``matches.spectate_nonce``, so a player can be shown it again;
only its SHA-256 digest is stored (``matches.spectate_digest``, NULL while disabled). Rotating
and disabling move the nonce on, so a link once revoked never comes back, even re-enabled.

**Scale.** A spectator's read goes through the per-process snapshot cache
(``app.matches.reads``): the JSON body, the page's live fragment and the SSE text of a
version are rendered once per match, version (and ``Last-Event-ID`` for the SSE text) for
every spectator, never one replay or one rendering per spectator. A spectator's stream sends a
new version with no database read when it can (:func:`spectator_reader`): from the write's
notification (its public entries and state, ``events.Note``) or, in the process that wrote it,
from the snapshot the write left in the cache; otherwise the spectators' streams of a match
share one database read per wake-up (``Hub.fetch`` of kind ``"spectate"``). An idle stream
holds no database connection and no admission slot (ADR 0009), only its waiter.

The league game's page (``app.leagues.web``) offers the same three actions to whoever may
manage the link of the match that plays the game (:func:`may_manage`).

JSON routes (``router``, under ``/api/v1``): ``GET/PUT/DELETE /matches/{id}/spectators``,
``POST /matches/{id}/spectators/rotate``, ``GET /spectate/{token}`` (ETag/304) and
``GET /spectate/{token}/events`` (SSE). The page (``page_router``): ``GET /spectate/{token}``.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response, status
from fastapi.responses import HTMLResponse, StreamingResponse
from jinja2_fragments import render_block
from pydantic import BaseModel
from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from app.accounts.deps import OptionalUser
from app.core import security
from app.core.db import Database
from app.core.deps import DbSession
from app.core.errors import PROBLEM_JSON, Conflict, NotFound
from app.core.i18n import current_locale, lazy
from app.core.i18n import gettext as _
from app.core.ids import parse_int
from app.matches import events, league_games, reads, service, systems
from app.matches.api import Who
from app.matches.exceptions import MatchNotFound
from app.matches.invitations import match_secret
from app.matches.models import STATUS_LABELS, Match, MatchStatus, OpponentKind
from app.matches.pages import page_systems
from app.matches.pages.generic import describe
from app.matches.present import mission_label, seat_a_snapshot
from app.matches.schemas import PlayerOut
from app.web.templating import render, templates

__all__ = [
    "BoardUnit",
    "SpectatorLink",
    "SpectatorMatch",
    "agree",
    "agreed_seats",
    "consent_of",
    "disable",
    "enable",
    "match_for_token",
    "may_manage",
    "page_router",
    "rotate",
    "router",
    "spectate_token",
    "withdraw",
]

router = APIRouter(tags=["spectators"])
page_router = APIRouter(include_in_schema=False)

MAX_TOKEN = 100  # a token is 43 characters; anything longer is no token
RECENT = 16  # SSE texts are shared for a resume from this many versions back at most
_PROBLEM: dict[str, Any] = {"content": {PROBLEM_JSON: {}}}


class SpectateLinkNotFound(NotFound):
    """No match has this spectator link (never had, or it was rotated or disabled)."""

    code, title = "spectate-link-not-found", lazy("This spectator link is invalid or revoked")


class SpectateLinkOff(Conflict):
    """Rotating a link that is off: there is nothing to replace (turn it on first)."""

    code, title = "spectate-link-off", lazy("The spectator link is off: turn it on first")


# -- the token --------------------------------------------------------------------------------


def spectate_token(match: Match) -> str:
    """The spectator link's token at the match's current nonce (derived, never stored)."""
    mac = hmac.new(
        match_secret(match).encode(),
        f"spectate|{match.id}|{match.spectate_nonce}".encode(),
        hashlib.sha256,
    ).digest()
    return base64.urlsafe_b64encode(mac).decode().rstrip("=")


def match_for_token(db: Session, token: str) -> Match:
    """The match whose spectator link ``token`` is; 404 for any other string."""
    if not token or len(token) > MAX_TOKEN:
        raise SpectateLinkNotFound()
    match = db.scalar(select(Match).where(Match.spectate_digest == security.digest(token)))
    if match is None:
        raise SpectateLinkNotFound()
    return match


# -- managing the link (the players, the creator, the league's organisers) ------------------------


class SpectatorLink(BaseModel):
    """A match's spectator link: ``token`` and its URLs while enabled, all ``None`` when not;
    ``agreed`` the seats whose players said yes (the link turns on when both have, or when the
    organiser turns it on)."""

    match_id: int
    enabled: bool
    agreed: list[str] = []
    token: str | None = None
    page_url: str | None = None
    api_url: str | None = None
    events_url: str | None = None


def may_manage(db: Session, match: Match, caller: service.Caller) -> bool:
    """One of the match's players, its creator, or an organiser of the league whose game it
    plays (the leagues feature says who, through ``app.matches.league_games``)."""
    if service.seat_of(match, caller) is not None:
        return True
    if caller.user_id is None:
        return False
    if match.created_by_id == caller.user_id:
        return True
    port = league_games.league_games()
    if port is None or match.league_game_id is None:
        return False
    return port.organises(db, caller.user_id, match.league_game_id)


def _managed(db: Session, match_id: int, caller: service.Caller) -> Match:
    """The match, for whoever :func:`may_manage` its link; 404 for anyone else (whether it
    exists is not told)."""
    match = db.get(Match, match_id)
    if match is None or not may_manage(db, match, caller):
        raise MatchNotFound()
    return match


def _wake_spectators(db: Session, hub: events.Hub, match_id: int) -> None:
    """At commit, wake the match's streams in every process: a revoked link's end there."""
    if db.get_bind().dialect.name == "postgresql":
        db.execute(select(func.pg_notify(service.NOTIFY_CHANNEL, f"{match_id}:0")))
    service.after_commit(db, lambda: hub.publish(match_id, 0))


SEAT_BITS = {"A": 1, "B": 2}
BOTH = 3


def _seat_b_unreachable(match: Match) -> bool:
    """Seat B is taken and nobody but seat A can ever speak for it: a hot-seat match (its
    creator plays both seats on one device) or an imported log (no account, no guest link)."""
    return (
        match.status != MatchStatus.OPEN
        and match.player_b_id is None
        and match.guest_digest is None
    )


def held_bits(match: Match, caller: service.Caller) -> int:
    """The seats ``caller`` speaks for, as consent bits (0 for an organiser who plays none)."""
    seat = service.seat_of(match, caller)
    bits = SEAT_BITS[str(seat)] if seat is not None else 0
    if caller.user_id is not None and match.player_b_id == caller.user_id:
        bits |= SEAT_BITS["B"]  # one account at both seats
    if bits == SEAT_BITS["A"] and _seat_b_unreachable(match):
        bits = BOTH  # the hot seat's creator holds seat B too
    return bits


def _locked(db: Session, match: Match) -> None:
    """Read the row again under a row lock (Postgres): two players answering at once must not
    write their agreements from one stale read (one "off" lost, a link left on)."""
    db.refresh(match, with_for_update=True)


@dataclass(frozen=True, slots=True)
class Consent:
    """Where a link that is off stands for one caller (ruling S19): ``waiting`` when the caller
    agreed and the opponent has not yet, ``asked`` when the opponent agreed and waits for the
    caller, ``organiser`` when the caller holds no seat (and turns the link on alone)."""

    waiting: bool
    asked: bool
    organiser: bool


def consent_of(match: Match, caller: service.Caller) -> Consent:
    mine = held_bits(match, caller)
    theirs = match.spectate_consent & ~mine & BOTH
    waiting = bool(mine) and match.spectate_consent & mine == mine
    return Consent(waiting=waiting, asked=bool(mine) and bool(theirs), organiser=not mine)


def agreed_seats(match: Match) -> list[str]:
    return [seat for seat, bit in SEAT_BITS.items() if match.spectate_consent & bit]


def enable(db: Session, match: Match) -> None:
    """Enable the link (the same token if it already is)."""
    if match.spectate_digest is None:
        match.spectate_digest = security.digest(spectate_token(match))
        db.flush()


def agree(db: Session, match: Match, caller: service.Caller) -> None:
    """The caller says yes: a player's agreement is kept, and the link turns on once both
    seats have agreed; the organiser (no seat) turns it on alone."""
    _locked(db, match)
    bits = held_bits(match, caller)
    if not bits:
        enable(db, match)
        return
    match.spectate_consent |= bits
    db.flush()
    if match.spectate_consent & BOTH == BOTH:
        enable(db, match)


def withdraw(db: Session, hub: events.Hub, match: Match, caller: service.Caller) -> None:
    """The caller says no: the link goes off (its spectators' streams end); a player's
    agreement is withdrawn, the organiser's "off" withdraws both."""
    _locked(db, match)
    bits = held_bits(match, caller)
    match.spectate_consent &= ~(bits or BOTH) & BOTH
    db.flush()
    disable(db, hub, match)


def rotate(db: Session, hub: events.Hub, match: Match) -> None:
    """A new token: the old link stops working (its open streams end)."""
    _locked(db, match)
    match.spectate_nonce += 1
    match.spectate_digest = security.digest(spectate_token(match))
    db.flush()
    _wake_spectators(db, hub, match.id)


def disable(db: Session, hub: events.Hub, match: Match) -> None:
    """No link any more; enabling it again gives a new token."""
    if match.spectate_digest is None:
        return
    match.spectate_nonce += 1
    match.spectate_digest = None
    db.flush()
    _wake_spectators(db, hub, match.id)


def _link(request: Request, match: Match) -> SpectatorLink:
    agreed = agreed_seats(match)
    if match.spectate_digest is None:
        return SpectatorLink(match_id=match.id, enabled=False, agreed=agreed)
    token = spectate_token(match)
    return SpectatorLink(
        match_id=match.id,
        enabled=True,
        agreed=agreed,
        token=token,
        page_url=str(request.url_for("spectate_page", token=token)),
        api_url=str(request.url_for("spectate_match", token=token)),
        events_url=str(request.url_for("spectate_events", token=token)),
    )


_MANAGE: dict[int | str, dict[str, Any]] = {
    404: {
        "description": "No such match that you play, created or organise the league game of",
        **_PROBLEM,
    }
}


@router.get(
    "/matches/{match_id}/spectators",
    response_model=SpectatorLink,
    summary="The match's read-only spectator link (its players, creator, league organisers)",
    responses=_MANAGE,
)
def get_link(request: Request, match_id: int, who: Who, db: DbSession) -> SpectatorLink:
    return _link(request, _managed(db, match_id, who))


@router.put(
    "/matches/{match_id}/spectators",
    response_model=SpectatorLink,
    summary=(
        "Agree to a spectator link: on once both players agreed, or at once for the organiser"
    ),
    responses=_MANAGE,
)
def enable_link(request: Request, match_id: int, who: Who, db: DbSession) -> SpectatorLink:
    match = _managed(db, match_id, who)
    agree(db, match, who)
    return _link(request, match)


@router.post(
    "/matches/{match_id}/spectators/rotate",
    response_model=SpectatorLink,
    summary="A new spectator link while it is on (the old one stops working)",
    responses={**_MANAGE, 409: {"description": "The link is off", **_PROBLEM}},
)
def rotate_link(request: Request, match_id: int, who: Who, db: DbSession) -> SpectatorLink:
    match = _managed(db, match_id, who)
    if match.spectate_digest is None:
        raise SpectateLinkOff()
    rotate(db, events.hub_for(request.app), match)
    return _link(request, match)


@router.delete(
    "/matches/{match_id}/spectators",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Disable the spectator link and withdraw your agreement (its streams end)",
    responses=_MANAGE,
)
def disable_link(request: Request, match_id: int, who: Who, db: DbSession) -> None:
    withdraw(db, events.hub_for(request.app), _managed(db, match_id, who), who)


# -- what a spectator reads -------------------------------------------------------------------


class SpectatorMatch(BaseModel):
    """A match as a spectator sees it: the engine's view for no seat, and the public log."""

    id: int
    rule_system: str
    mission: str
    battle_size: str
    status: str
    players: dict[str, PlayerOut]
    version: int
    round: int
    vp: dict[str, int]
    winner: str | None
    updated_at: datetime | None
    view: dict[str, Any] | None
    log: list[dict[str, Any]]


def etag(match: Match, names: Mapping[str, str]) -> str:
    """The validator of a spectator's read: the version and the row's other shown fields."""
    fields = [
        names["A"],
        names["B"],
        match.status,
        match.round,
        match.vp_a,
        match.vp_b,
        match.winner,
        match.updated_at.isoformat() if match.updated_at else None,
    ]
    digest = hashlib.sha256(json.dumps(fields, default=str).encode()).hexdigest()[:16]
    return f'W/"s{match.id}.{match.version}.{digest}"'


def _fresh(if_none_match: str | None, tag: str) -> bool:
    if not if_none_match:
        return False
    opaque = tag.removeprefix("W/")
    return any(
        t.strip() == "*" or t.strip().removeprefix("W/") == opaque for t in if_none_match.split(",")
    )


_SUMMARY = ("name", "faction", "points")

_ARMIES = select(Match.army_a, Match.army_b).where(Match.id == bindparam("match_id"))


def _armies(db: Session, match_id: int) -> tuple[dict[str, Any] | None, ...]:
    """What a spectator is shown of the two army snapshots (both players see them too)."""
    found = db.execute(_ARMIES, {"match_id": match_id}).one()
    return tuple(None if s is None else {k: s.get(k) for k in _SUMMARY} for s in found)


def _player(summary: Mapping[str, Any] | None, name: str, *, guest: bool = False) -> PlayerOut:
    return PlayerOut(
        name=name,
        army=summary.get("name") if summary else None,
        faction=summary.get("faction") if summary else None,
        points=summary.get("points") if summary else None,
        guest=guest,
    )


def spectator_match(
    db: Session, match: Match, names: Mapping[str, str], snap: reads.Snapshot | None
) -> SpectatorMatch:
    if snap is None:
        armies: tuple[dict[str, Any] | None, ...] = (None, None)
        view, log = None, []
    else:
        armies = snap.lasting("spectate-armies", lambda: _armies(db, match.id))
        view, log = snap.battle.view(None), snap.entries(None, 0)
    guest = match.opponent_kind == OpponentKind.GUEST
    return SpectatorMatch(
        id=match.id,
        rule_system=match.rule_system,
        mission=match.mission_id,
        battle_size=match.battle_size,
        status=match.status,
        players={
            "A": _player(armies[0], names["A"]),
            "B": _player(armies[1], names["B"], guest=guest),
        },
        version=match.version,
        round=match.round,
        vp={"A": match.vp_a, "B": match.vp_b},
        winner=match.winner,
        updated_at=match.updated_at,
        view=view,
        log=log,
    )


def _snapshot(db: Session, match: Match) -> reads.Snapshot | None:
    return reads.snapshot(db, match) if match.version > 0 else None


@router.get(
    "/spectate/{token}",
    response_model=SpectatorMatch,
    summary="A match as a spectator sees it (send If-None-Match with its ETag: 304 if unchanged)",
    responses={
        304: {"description": "Not modified: the ETag sent is still the match's"},
        404: {"description": "Invalid or revoked link (`spectate-link-not-found`)", **_PROBLEM},
    },
)
def spectate_match(
    token: str,
    db: DbSession,
    if_none_match: Annotated[str | None, Header(max_length=1000)] = None,
) -> Any:
    match = match_for_token(db, token)
    names = service.player_names(db, match)
    tag = etag(match, names)
    headers = {"ETag": tag, "Cache-Control": "private, no-cache", "Referrer-Policy": "no-referrer"}
    if _fresh(if_none_match, tag):
        return Response(status_code=status.HTTP_304_NOT_MODIFIED, headers=headers)
    snap = _snapshot(db, match)

    def build() -> bytes:
        return spectator_match(db, match, names, snap).model_dump_json().encode()

    body = build() if snap is None else snap.rendered(("spectate", tag), build)
    return Response(body, media_type="application/json", headers=headers)


# -- the spectators' stream -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Seen:
    """What one shared read of the spectators' streams found: the link's digest now (``None``:
    revoked, or the match is gone), the state sent with each version, the snapshot, and the
    hub's epoch of the match when the read started (``Hub.epoch``)."""

    digest: str | None
    state: dict[str, Any]
    snapshot: reads.Snapshot | None
    epoch: int = 0


_STREAM_ROW = select(
    Match.id,
    Match.secret,
    Match.rule_system,
    Match.version,
    Match.status,
    Match.round,
    Match.vp_a,
    Match.vp_b,
    Match.winner,
    Match.spectate_digest,
).where(Match.id == bindparam("match_id"))


def _state(status: str, round_: int, battle: Any, rule_system: str) -> dict[str, Any]:
    """A spectator's state of a version from its battle (as the write put it in the row)."""
    game = battle.status()
    return events.spectator_state(
        status,
        round_,
        int(game.scores.get("A", 0)),
        int(game.scores.get("B", 0)),
        game.winner,
        systems.playable(rule_system).headline(battle),
    )


def _entries_text(entries: Iterable[Mapping[str, Any]], since: int) -> str:
    return "".join(
        events.sse("entry", e, id=int(e["seq"])) for e in entries if int(e["seq"]) > since
    )


def spectator_reader(
    database: Database,
    match_id: int,
    digest: str,
    hub: events.Hub | None = None,
    secret: str = "",
) -> events.Shared[Seen]:
    """What a spectator's stream reads on each wake-up of the match.

    With no I/O when it can (``cached``): the notes of the writes the hub heard since, or, in
    the process that wrote the version, its snapshot in the cache, as long as the link was
    checked at the hub's current epoch of the match (a revoked link moves it) and, for the
    snapshot, the write read this stream's link (a revocation through another worker moves
    this process's epoch only once its notification arrives). Otherwise one
    short session and one snapshot per wake-up of the match, shared by all its spectators'
    streams in this process, which checks the link. Either way the SSE text after a version is
    rendered once for all the spectators of the match. Without ``hub`` (and the match's
    ``secret``), every wake-up reads."""
    checked: int | None = None  # the epoch at which this stream last found its link valid

    def fetch() -> Seen:
        # before the read: a revocation committed after it moves the epoch
        epoch = hub.epoch(match_id) if hub is not None else 0
        with database.sessions() as db:
            row = db.execute(_STREAM_ROW, {"match_id": match_id}).one_or_none()
            if row is None:
                return Seen(None, {}, None, epoch)
            if row.version == 0:
                state = events.spectator_state(
                    row.status, row.round, row.vp_a, row.vp_b, row.winner, {}
                )
                return Seen(row.spectate_digest, state, None, epoch)
            snap = reads.snapshot(db, row)
            state = events.spectator_state(
                row.status,
                row.round,
                row.vp_a,
                row.vp_b,
                row.winner,
                systems.playable(row.rule_system).headline(snap.battle),
            )
            return Seen(row.spectate_digest, state, snap, epoch)

    def present(seen: Seen, since: int) -> events.Update:
        nonlocal checked
        if seen.digest is None or not security.hmac_equal(seen.digest, digest):
            checked = None
            return events.Update(0, [], {}, gone=True)
        checked = seen.epoch
        snap = seen.snapshot
        if snap is None:
            return events.Update(0, [], seen.state)
        return _from_snapshot(snap, seen.state, since)

    def cached(since: int) -> events.Update | None:
        assert hub is not None
        if checked is None or hub.epoch(match_id) != checked:
            return None  # the link is to be checked again (or never was): read
        latest = hub.announced(match_id)  # the version that woke this stream, or later
        if latest is None:
            return None
        return _from_notes(hub.notes(match_id), latest, since) or _from_written(latest, since)

    def _from_written(latest: int, since: int) -> events.Update | None:
        """This process wrote ``latest``: its row and battle are at hand."""
        written = reads.cache.written.at(match_id, latest)
        if written is None or written.secret != secret:
            return None
        # The link as the write read it: revoked through another worker, whose ``id:0`` this
        # process may not have heard yet (the epoch has not moved), it is not this stream's
        # any more: read, which finds it gone.
        if written.spectate_digest is None or not security.hmac_equal(
            written.spectate_digest, digest
        ):
            return None
        snap = reads.cache.get((match_id, secret), latest)
        if snap is None:
            return None
        state, announce = snap.memo(
            ("spectate-state",),
            lambda: _announced(
                snap.version,
                _state(written.status, written.round, snap.battle, written.rule_system),
            ),
        )
        return _from_snapshot(snap, state, since, announce)

    return events.Shared(
        fetch, present, kind="spectate", cached=cached if hub is not None and secret else None
    )


def _announced(version: int, state: dict[str, Any]) -> tuple[dict[str, Any], str]:
    return state, events.announce(version, state)


def _from_snapshot(
    snap: reads.Snapshot, state: dict[str, Any], since: int, announce: str = ""
) -> events.Update:
    # a client's Last-Event-ID (or ?since=) past the version has seen everything there is
    since = min(max(0, since), snap.version)

    def text() -> str:
        return _entries_text(snap.entries(None, since), since)

    # This runs on the event loop: ``memo``, never ``rendered``, whose lock a thread holds
    # while it builds a big body of this snapshot (a seat's GET, the page's live block).
    # The texts of the last RECENT versions are shared by the match's spectators; a resume
    # from long ago is rendered for its one client, not kept.
    shared = since >= snap.version - RECENT
    rendered = snap.memo(("spectate-sse", since), text) if shared else text()
    return events.Update(snap.version, [], state, rendered=rendered, announce=announce)


def _from_notes(chain: Sequence[events.Note], latest: int, since: int) -> events.Update | None:
    """The Update after ``since`` from the notes heard, when they reach ``latest`` and go back
    to ``since`` unbroken (``None``: read the match)."""
    if not chain or chain[-1].version != latest or since > latest:
        return None
    last = chain[-1]
    needed = [n for n in chain if n.version > since]
    if not needed:  # nothing new (sent already)
        return events.Update(latest, [], last.state, announce=last.announce)
    if needed[0].prev > since:
        return None  # it fell behind the notes held
    text = last.texts.get(since)
    if text is None:
        text = _entries_text((e for n in needed for e in n.entries), since)
        if len(last.texts) < events.NOTE_TEXTS:
            last.texts[since] = text
    return events.Update(latest, [], last.state, rendered=text, announce=last.announce)


@router.get(
    "/spectate/{token}/events",
    summary="Server-sent events of a spectator: the public log entries, then the version "
    "(resume with Last-Event-ID); a revoked link ends with a `gone` event",
    response_class=StreamingResponse,
    responses={404: {"description": "Invalid or revoked link", **_PROBLEM}},
)
def spectate_events(
    request: Request,
    token: str,
    db: DbSession,
    since: Annotated[int | None, Query(ge=0, le=10_000_000)] = None,
    timeout: Annotated[float, Query(ge=0, le=600, description="Close after this many s")] = 300,
    last_event_id: Annotated[str | None, Header(max_length=20)] = None,
) -> StreamingResponse:
    match = match_for_token(db, token)
    number = parse_int(last_event_id, 0, 10**18)
    start = min(number, 10_000_000) if number is not None else since or 0
    digest = security.digest(token)
    hub = events.hub_for(request.app)
    reader = spectator_reader(request.app.state.db, match.id, digest, hub, match.secret)
    body = events.stream(hub, match.id, start, reader, timeout=timeout)
    return StreamingResponse(
        body,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


# -- the page ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BoardUnit:
    """One unit as the spectator page lists it (whatever the rule system's view calls it)."""

    id: str
    name: str
    models: int | None
    of: int | None
    destroyed: bool
    where: str


@dataclass(frozen=True, slots=True)
class TimelineEntry:
    seq: int
    actor: str
    text: str


def board(view: Mapping[str, Any] | None) -> dict[str, list[BoardUnit]]:
    """The units of each seat in the view (10th edition: ``owner``, ``models_alive``; PEN:
    ``seat``, ``models``/``models_start``)."""
    out: dict[str, list[BoardUnit]] = {"A": [], "B": []}
    units = (view or {}).get("units")
    if not isinstance(units, list):
        return out
    for u in units:
        if not isinstance(u, Mapping):
            continue
        seat = str(u.get("owner") or u.get("seat") or "")
        if seat not in out:
            continue
        alive = u.get("models_alive", u.get("models"))
        total = u.get("models") if "models_alive" in u else u.get("models_start")
        destroyed = bool(u.get("destroyed")) or alive == 0
        where = u.get("location") or u.get("place") or ""
        out[seat].append(
            BoardUnit(
                id=str(u.get("id", "")),
                name=str(u.get("name") or u.get("id") or ""),
                models=alive if isinstance(alive, int) else None,
                of=total if isinstance(total, int) else None,
                destroyed=destroyed,
                where=str(where),
            )
        )
    return out


def timeline(
    log: list[dict[str, Any]],
    units: Mapping[str, str],
    players: Mapping[str, str],
    rule_system: str,
    sides: Mapping[str, Any] | None = None,
) -> list[TimelineEntry]:
    """The public log, newest first, in the sentences the players' page uses: the match's rule
    system's own (its page's ``sentence`` hook; ``""`` leaves bookkeeping out), else the generic
    page's words. ``sides``: the view's ``seats`` (seat -> side) of a system whose sides are not
    its seats (Black Reach): its hook is given each side's player too, ``"<name> (<side>)"``
    under the side's id, so that its sentences name a side by its player."""
    page = page_systems().get(rule_system)
    own = page.sentence if page is not None else None
    told_players = dict(players)
    for seat, side in (sides or {}).items():
        if isinstance(side, str) and side and side not in players:
            told_players[side] = f"{players.get(seat) or seat} ({side})"
    out: list[TimelineEntry] = []
    for entry in reversed(log):
        told = own(entry["event"], units, told_players) if own is not None else None
        if told == "":
            continue
        text = told or describe(entry["event"], units, players)
        out.append(TimelineEntry(int(entry["seq"]), str(entry["actor"]), text))
    return out


def _page_context(
    db: Session, match: Match, token: str, names: Mapping[str, str], snap: reads.Snapshot | None
) -> dict[str, Any]:
    out = spectator_match(db, match, names, snap)
    view = out.view or {}
    head = systems.playable(match.rule_system).headline(snap.battle) if snap else {}
    board_ = board(view)
    return {
        "match": out,
        "token": token,
        "status_label": _(STATUS_LABELS[MatchStatus(match.status)]),
        "mission_label": mission_label(
            match.mission_id, match.battle_size, match.rule_system, seat_a_snapshot(match)
        ),
        "headline": head,
        "board": board_,
        "timeline": timeline(
            out.log,
            {u.id: u.name for seat in ("A", "B") for u in board_[seat]},
            names,
            match.rule_system,
            view.get("seats") if isinstance(view.get("seats"), Mapping) else None,
        ),
    }


TEMPLATE = "matches/spectate.html"


@page_router.get("/spectate/{token}", response_class=HTMLResponse, name="spectate_page")
def spectate_page(
    request: Request, token: str, db: DbSession, _viewer: OptionalUser
) -> HTMLResponse:
    """The read-only page: the live block is rendered once per version, language and link
    for every spectator (htmx asks for it again when the stream announces a version). A
    signed-in spectator (``_viewer``) reads it in their own language; nothing else of theirs is
    used."""
    match = match_for_token(db, token)
    names = service.player_names(db, match)
    snap = _snapshot(db, match)
    headers = {"Referrer-Policy": "no-referrer", "Vary": "HX-Request"}
    locale = getattr(request.state, "locale", "en")
    current_locale.set(locale)  # the context below translates its labels
    if request.headers.get("hx-request") == "true":
        key = ("spectate-live", locale, etag(match, names), security.digest(token))

        def build() -> str:
            context = _page_context(db, match, token, names, snap)
            return render_block(templates.env, TEMPLATE, "live", locale=locale, **context)

        body = build() if snap is None else snap.rendered(key, build)
        return HTMLResponse(body, headers=headers)
    return render(request, TEMPLATE, _page_context(db, match, token, names, snap), headers=headers)
