"""JSON API of Black Reach matches beyond the shared match API (issue 16):

- ``GET /black-reach/missions``: the scenarios of your content sets offered as missions (the
  ids to name in ``POST /matches`` with ``"ruleset": "black-reach"``), beside the shipped ones;
- ``POST /black-reach/content/shared/{token}/matches``: a match on a scenario of a set shared
  with you by link, without copying it (``shared.py``);
- the hot seat (``hot_seat.py``): ``POST /matches/{id}/hot-seat`` starts a match created with
  the option ``hot_seat`` with both seats on the creator's device, then
  ``GET /matches/{id}/hot-seat/{seat}`` reads a seat's view and commands while the battle
  waits on that seat (else the public view and ``hand_off``: the seat to hand the device to,
  as the page's hand-off screen; with ``?cards=true`` the other seat's own view and its card
  commands, for an Action card out of turn, rulings 138) and
  ``POST /matches/{id}/hot-seat/{seat}/commands`` sends one. Only the creator (seat A,
  signed in) of such a match: anyone else, a guest seat included, gets 404, as for a match
  they do not play.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Path, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field, StrictBool
from sqlalchemy.orm import Session

from app.accounts.deps import CurrentUser, OptionalUser
from app.core.deps import DbSession, end_transaction
from app.core.errors import PROBLEM_JSON
from app.core.i18n import DEFAULT_LOCALE, current_locale
from app.engine.black_reach import SYSTEM_ID
from app.engine.match import visible_to
from app.engine.match.seats import Seat
from app.matches import events, reads, service
from app.matches.exceptions import InvitationInvalid, MatchNotFound
from app.matches.invitations import Caller
from app.matches.models import OpponentKind
from app.matches.schemas import CommandRequest, MatchOut, Strict
from app.matches.systems.black_reach import content, hot_seat
from app.matches.systems.black_reach.shared import create_on_shared

__all__ = ["router"]


async def _language(request: Request, user: OptionalUser) -> None:
    current_locale.set(getattr(request.state, "locale", DEFAULT_LOCALE))


router = APIRouter(tags=["black-reach"], dependencies=[Depends(_language)])

_PROBLEM: dict[str, Any] = {"content": {PROBLEM_JSON: {}}}
_HOT: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not authenticated", **_PROBLEM},
    404: {
        "description": "No such match of yours created for the hot seat (or not started so)",
        **_PROBLEM,
    },
}
SeatName = Annotated[Literal["A", "B"], Path(description="The seat played: A or B")]


async def _match_db(request: Request, db: DbSession) -> Session:
    """The request's session, with its committed writes waking the match streams."""
    service.bind_publisher(db, events.hub_for(request.app).publish)
    return db


MatchDb = Annotated[Session, Depends(_match_db)]


class ContentMissionOut(BaseModel):
    id: str = Field(description="The mission id to name when creating a match")
    name: str
    set_id: int | None = Field(description="The content set it comes from")
    set_name: str
    scenario: str = Field(description="The scenario's id in that set")
    sides: list[str]
    frozen: bool = Field(
        description="Kept by one of your open matches (its set changed since): offered "
        "until that match is joined"
    )


class ContentOut(BaseModel):
    """What a Black Reach match is played on: the shipped sample, or a content set as it was
    when the match was created (its name; never its documents)."""

    mission: str
    sample: bool = Field(description="The shipped sample scenario (no content set)")
    content_set: str | None = Field(description="The name of the content set, if one")
    scenario: str = Field(description="The scenario's name")
    sides: dict[str, str] = Field(description="The side each seat plays (B: once known)")


def _logged_scenario(db: Session, match: Any) -> dict[str, Any]:
    """The scenario of the log's set-up (a match imported before its snapshot kept it)."""
    from app.engine.black_reach.battle.events import BattleCreated

    battle = service.load_battle(db, match)
    first = battle.envelopes[0].event if battle.envelopes else None
    found = first.setup.scenario if isinstance(first, BattleCreated) else None
    return dict(found) if isinstance(found, dict) else {}


def _content_out(match: Any, db: Session | None = None) -> ContentOut:
    army_a = match.army_a or {}
    frozen = army_a.get("content") if isinstance(army_a.get("content"), dict) else None
    scenario: dict[str, Any] = {}
    if frozen is not None and isinstance(frozen.get("scenario"), dict):
        scenario = frozen["scenario"]
    elif frozen is not None and db is not None and match.version > 0:
        scenario = _logged_scenario(db, match)
    else:
        from app.matches.systems.black_reach import shipped_scenario

        try:
            scenario = shipped_scenario(str(army_a.get("scenario") or match.mission_id))
        except (OSError, ValueError, KeyError):
            scenario = {}
    sides = [str(s.get("id")) for s in scenario.get("sides", ()) if isinstance(s, dict)]
    side_a = str(army_a.get("side") or "")
    seats = {"A": side_a}
    other = next((s for s in sides if s != side_a), None)
    if other is not None:
        seats["B"] = other
    return ContentOut(
        mission=match.mission_id,
        sample=frozen is None,
        content_set=str(frozen.get("name") or "") if frozen is not None else None,
        scenario=str(scenario.get("name") or scenario.get("id") or match.mission_id),
        sides=seats,
    )


class HotSeatStart(Strict):
    name: str = Field(default="", max_length=60, description="Seat B's player (shown)")


class HotSeatState(BaseModel):
    """What the hot-seat device shows for one seat."""

    version: int
    seat: Literal["A", "B"]
    to_play: str | None = Field(description="The seat the battle waits on (A first), or none")
    hand_off: str | None = Field(
        description="The seat to hand the device to, when the battle waits on another seat "
        "than the one asked (then ``view`` is the public view and ``actions`` is empty)"
    )
    view: dict[str, Any]
    actions: list[dict[str, Any]]


class HotSeatOut(BaseModel):
    version: int
    to_play: str | None = Field(description="The seat the battle waits on (A first), or none")


@router.get(
    "/black-reach/missions",
    response_model=list[ContentMissionOut],
    summary="The scenarios of your content sets, as missions of a match",
    responses={401: _HOT[401]},
)
def content_missions(user: CurrentUser, db: DbSession) -> list[ContentMissionOut]:
    """Each scenario the engine reads in one of your sets (an id made from its content: the
    same content, the same id), and those kept by your open matches."""
    current = {
        m.id for row_missions in map(content.set_missions, _rows(db, user.id)) for m in row_missions
    }
    out = []
    for mission in content.owned_missions(db, user.id).values():
        if not content.creatable(mission):
            continue  # a shared link's scenario kept for its open match's join
        own = content.content_of(mission) or {}
        scenario = own.get("scenario") if isinstance(own.get("scenario"), dict) else {}
        assert isinstance(scenario, dict)
        out.append(
            ContentMissionOut(
                id=mission.id,
                name=mission.name.get("en", mission.id),
                set_id=own.get("set") if isinstance(own.get("set"), int) else None,
                set_name=str(own.get("name") or ""),
                scenario=str(scenario.get("id") or ""),
                sides=[str(s.get("id")) for s in scenario.get("sides", ()) if isinstance(s, dict)],
                frozen=mission.id not in current,
            )
        )
    return out


class SharedMatchCreate(Strict):
    """A match on a scenario of a content set shared with you by link."""

    scenario: str = Field(min_length=1, max_length=64, description="The scenario's id in the set")
    side: str = Field(
        default="", max_length=64, description="The side you play (default: the first)"
    )
    opponent: Literal["user", "guest"] = "user"
    hot_seat: StrictBool = Field(default=False, description="Both seats on your device")


@router.post(
    "/black-reach/content/shared/{token}/matches",
    response_model=MatchOut,
    status_code=201,
    summary="Create a match on a scenario of a content set shared with you by link",
    responses={
        401: _HOT[401],
        404: {"description": "The share link is invalid or revoked", **_PROBLEM},
        422: {"description": "No such playable scenario, a bad side, too many open matches"},
    },
)
def create_on_shared_set(
    request: Request,
    token: Annotated[str, Path(min_length=1, max_length=100)],
    data: SharedMatchCreate,
    user: CurrentUser,
    db: MatchDb,
) -> Response:
    """Without copying the set: the scenario, trimmed to what it uses and without the
    owner's notes, is frozen into your seat as for a set of your own (an edit or a deletion of
    the shared set afterwards changes nothing of the match)."""
    from app.matches.api import match_out, model_response

    options: dict[str, Any] = {"side": data.side, "deployment": "players"}
    if data.hot_seat:
        options["hot_seat"] = True
    match = create_on_shared(
        db, user, token, data.scenario, opponent=OpponentKind(data.opponent), options=options
    )
    return model_response(match_out(request, db, match, Seat.A), 201)


@router.get(
    "/black-reach/invitations/{code}",
    response_model=ContentOut,
    summary="What an invitation's Black Reach match is played on, before joining it",
    responses={
        401: _HOT[401],
        404: {"description": "No open Black Reach match with this code", **_PROBLEM},
    },
)
def invitation_content(
    code: Annotated[str, Path(min_length=4, max_length=64)], user: CurrentUser, db: DbSession
) -> ContentOut:
    """The scenario and the content set (by name) you would play, and your side."""
    match = service.by_invite_code(db, code)
    if match.rule_system != SYSTEM_ID:
        raise InvitationInvalid()
    return _content_out(match)


@router.get(
    "/matches/{match_id}/content",
    response_model=ContentOut,
    summary="What your Black Reach match is played on (the sample or a content set)",
    responses={401: _HOT[401], 404: _HOT[404]},
)
def match_content(match_id: int, user: CurrentUser, db: DbSession) -> ContentOut:
    match, _seat = _mine(db, match_id, user)
    if match.rule_system != SYSTEM_ID:
        raise MatchNotFound()
    return _content_out(match, db)


def _rows(db: Session, owner_id: int) -> list[Any]:
    from sqlalchemy import select

    from app.blackreach.models import ContentSet

    return list(db.scalars(select(ContentSet).where(ContentSet.owner_id == owner_id)))


def _mine(db: Session, match_id: int, user: Any) -> tuple[Any, str]:
    return service.get_for(db, match_id, Caller(user.id, None))


@router.post(
    "/matches/{match_id}/hot-seat",
    response_model=HotSeatOut,
    summary="Start your match with both seats on this device (created with hot_seat)",
    responses=_HOT,
)
def start_hot_seat(
    match_id: int,
    user: CurrentUser,
    db: MatchDb,
    data: Annotated[HotSeatStart | None, Body()] = None,
) -> JSONResponse:
    """Seat B is taken as a guest you hold (named ``name``); the invitation code and the
    guest link stop working."""
    match, seat = _mine(db, match_id, user)
    battle = hot_seat.start(db, match, str(seat), data.name if data else "")
    version = match.version
    waiting = hot_seat.to_play(battle)
    end_transaction(db)
    return JSONResponse({"version": version, "to_play": waiting})


@router.get(
    "/matches/{match_id}/hot-seat/{seat}",
    response_model=HotSeatState,
    summary="One seat's view and commands, for the hot-seat device",
    responses=_HOT,
)
def hot_seat_state(
    match_id: int,
    seat: SeatName,
    user: CurrentUser,
    db: MatchDb,
    cards: Annotated[
        bool,
        Query(
            description="The player of this seat took the device to play an Action card out "
            "of turn: their own view and only the commands sent without the battle waiting "
            "on them (play_card, ready_repair)"
        ),
    ] = False,
) -> JSONResponse:
    """While the battle waits on ``seat`` (``to_play``; or on nobody once it has ended):
    what ``seat`` sees (its own face-down tokens, never the other seat's) and may send, with
    ``hand_off`` null. Asked for the other seat: the public view (neither seat's tokens), no
    actions and ``hand_off``, the seat to hand the device to, as the page's hand-off screen;
    ask for that seat once its player holds the device. With ``cards=true`` (after a hand-off
    screen, as the page's "Let <name> play an Action card first"), the other seat's own view
    and its card and mechanic commands, ``hand_off`` null (rulings 138)."""
    match, mine = _mine(db, match_id, user)
    if mine != "A" or not hot_seat.is_hot_seat(match):
        raise MatchNotFound()
    battle = service.load_battle(db, match)
    end_transaction(db)
    shown = hot_seat.seat_state(battle, seat, cards=cards)
    return JSONResponse({"version": match.version, "seat": seat, **shown})


@router.post(
    "/matches/{match_id}/hot-seat/{seat}/commands",
    response_model=dict[str, Any],
    summary="Send a command for either seat of your hot-seat match",
    responses={
        **_HOT,
        409: {"description": "A stale version, or a refusal by the rules", **_PROBLEM},
        422: {"description": "A malformed command", **_PROBLEM},
    },
)
def hot_seat_command(
    match_id: int, seat: SeatName, data: CommandRequest, user: CurrentUser, db: MatchDb
) -> JSONResponse:
    """As ``POST /matches/{id}/commands``, for ``seat``: the answer is what
    ``GET .../hot-seat/{seat}`` gives after the command (``seat``'s view and next commands
    while the battle still waits on it, else the public view and ``hand_off``) with the new
    ``events`` that view may see."""
    match, mine = _mine(db, match_id, user)
    outcome = hot_seat.act(
        db,
        match,
        str(mine),
        seat,
        data.command,
        expected_version=data.expected_version,
        dice=data.dice,
    )
    end_transaction(db)
    battle = outcome.battle
    codec = reads.codec_of(battle)
    shown = hot_seat.seat_state(battle, seat)
    viewer = None if shown["hand_off"] is not None else seat
    return JSONResponse(
        {
            "version": match.version,
            "seat": seat,
            "events": [e.to_json(codec) for e in outcome.new if visible_to(e, viewer)],
            **shown,
        }
    )
