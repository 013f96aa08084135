"""Narrative mission packs (issue 15): a club's packs directory, and packs users upload.

**The directory.** ``W40K_MISSION_PACKS_DIR`` names a directory of pack files
(``auspex-narrative-pack/1``, docs/mission-packs.md) read once at start-up (this router's
lifespan) beside the shipped packs: their scenarios are listed by
``GET /api/v1/matches/missions?ruleset=wh40k-10e``. A malformed pack is logged with the file,
every problem and its path, and left out; it never stops the app.

**Uploads.** ``POST /api/v1/matches/mission-packs`` takes a pack document (at most 512 KiB),
checks it with the engine's loader and keeps it for its uploader (table ``mission_packs``; a
new upload of the same pack id replaces it). Its scenarios are missions that user may create a
10th-edition match with (``mission`` of ``POST /matches``): the match system's
``owned_missions`` hook finds them for the match's creator, on creation and when the opponent
joins. A scenario id already used by a listed mission or by another of the user's packs is
refused, so a mission id always names one mission for its creator. A refusal is a 422 problem
whose ``errors`` name every problem of the pack with its path. ``GET .../mission-packs/mine``
lists the caller's packs, ``DELETE .../mission-packs/mine/{pack_id}`` deletes one (the listing
is not ``GET .../mission-packs``: ``GET /matches/{match_id}`` answers that path first).
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, FastAPI, Path, Request, Response, status
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.accounts.deps import CurrentUser
from app.accounts.models import User
from app.core.deps import DbSession
from app.core.errors import PROBLEM_JSON, InvalidInput, NotFound
from app.core.i18n import lazy
from app.engine.match import Mission
from app.engine.narrative8e.match import ReadPack, read_pack
from app.engine.narrative8e.pack import MAX_PACK_BYTES, PackError
from app.matches.models import MissionPack
from app.matches.schemas import MissionPackOut, PackMissionOut
from app.matches.systems import wh40k10e

__all__ = ["MAX_PACKS_PER_USER", "delete", "mine", "owned_missions", "router", "upload"]

log = logging.getLogger("auspex.matches")

MAX_PACKS_PER_USER = 16


class PackRefused(InvalidInput):
    code, title = "mission-pack-refused", lazy("Mission pack refused")


@asynccontextmanager
async def _packs_at_start(app: FastAPI) -> AsyncIterator[None]:
    """Read the packs (shipped and ``W40K_MISSION_PACKS_DIR``) when the app starts."""
    wh40k10e.load_packs_at_start(app.state.settings.mission_packs_dir)
    yield


router = APIRouter(prefix="/matches/mission-packs", tags=["matches"], lifespan=_packs_at_start)


# -- service ----------------------------------------------------------------------------------


def _refused(errors: tuple[tuple[str, str], ...] | list[tuple[str, str]]) -> PackRefused:
    first = errors[0]
    return PackRefused(
        f"The mission pack is refused: {first[0] or '(root)'}: {first[1]}",
        errors=[{"field": path or "(root)", "message": message} for path, message in errors],
    )


def _rows(db: Session, owner_id: int) -> list[MissionPack]:
    return list(
        db.scalars(
            select(MissionPack)
            .where(MissionPack.owner_id == owner_id)
            .order_by(MissionPack.pack_id)
            .limit(MAX_PACKS_PER_USER)
        )
    )


# A stored pack checked once per version and process: the new-match page, create and join
# read every pack of a user, and checking one is a full validation of up to 512 KiB of JSON.
_CHECKED: OrderedDict[tuple[int, datetime], ReadPack | None] = OrderedDict()
_CHECKED_SIZE = 256
_checked_lock = threading.Lock()


def _read_row(row: MissionPack) -> ReadPack | None:
    key = (row.id, row.updated_at) if row.id is not None else None
    if key is not None:
        with _checked_lock:
            if key in _CHECKED:
                _CHECKED.move_to_end(key)
                return _CHECKED[key]
    try:
        found: ReadPack | None = read_pack(row.document)
    except PackError as exc:  # a pack kept before a stricter loader: left out, logged
        log.error("uploaded mission pack %s of user %s refused: %s", row.id, row.owner_id, exc)
        found = None
    if key is not None:
        with _checked_lock:
            _CHECKED[key] = found
            while len(_CHECKED) > _CHECKED_SIZE:
                _CHECKED.popitem(last=False)
    return found


def owned_missions(db: Session, owner_id: int) -> dict[str, Mission]:
    """The scenarios of the packs ``owner_id`` uploaded, as match missions, by id."""
    out: dict[str, Mission] = {}
    for row in _rows(db, owner_id):
        found = _read_row(row)
        for mission in () if found is None else found.missions:
            out.setdefault(mission.id, mission)
    return out


def upload(db: Session, owner_id: int, data: bytes) -> tuple[MissionPack, bool]:
    """Check and keep a pack for ``owner_id`` (replacing their pack of the same id): the row
    and whether it is new. 422 naming every problem (with its path) of a bad pack."""
    if len(data) > MAX_PACK_BYTES:
        raise _refused([("", f"a pack is at most {MAX_PACK_BYTES // 1024} KiB")])
    try:
        found = read_pack(data)
    except PackError as exc:
        raise _refused(exc.errors) from None
    _lock_owner(db, owner_id)
    try:
        with db.begin_nested():
            return _keep(db, owner_id, found)
    except IntegrityError:
        pass  # the same pack uploaded at the same moment (Postgres): replace the row it made
    return _keep(db, owner_id, found)


def _lock_owner(db: Session, owner_id: int) -> None:
    """Hold the uploader's user row until the transaction ends, so that two uploads of one
    user at the same moment are checked one after the other: neither can pass the
    :data:`MAX_PACKS_PER_USER` cap on a count the other is about to change. Postgres: ``SELECT
    ... FOR UPDATE`` (each statement after it reads what the other committed). SQLite has no
    row lock: a request that writes holds the database's write lock from its first statement
    (``BEGIN IMMEDIATE``, app.core.db), which serialises the uploads the same way."""
    db.execute(select(User.id).where(User.id == owner_id).with_for_update())


def _keep(db: Session, owner_id: int, found: ReadPack) -> tuple[MissionPack, bool]:
    rows = _rows(db, owner_id)
    row = next((r for r in rows if r.pack_id == found.pack.id), None)
    listed = wh40k10e.missions()
    others = {
        m.id: r.pack_id
        for r in rows
        if r is not row and (read := _read_row(r)) is not None
        for m in read.missions
    }
    clashes: list[tuple[str, str]] = []
    for i, mission in enumerate(found.missions):
        if mission.id in listed:
            clashes.append((f"missions[{i}].id", f"the mission id {mission.id!r} is already used"))
        elif mission.id in others:
            clashes.append(
                (
                    f"missions[{i}].id",
                    f"the mission id {mission.id!r} is used by your pack {others[mission.id]!r}",
                )
            )
    if clashes:
        raise _refused(clashes)
    if row is None:
        if len(rows) >= MAX_PACKS_PER_USER:
            raise _refused([("", f"at most {MAX_PACKS_PER_USER} packs each: delete one first")])
        row = MissionPack(owner_id=owner_id, pack_id=found.pack.id, document=found.raw)
        db.add(row)
        db.flush()
        return row, True
    row.document = found.raw
    db.flush()
    return row, False


def mine(db: Session, owner_id: int) -> list[MissionPack]:
    return _rows(db, owner_id)


def delete(db: Session, owner_id: int, pack_id: str) -> None:
    row = next((r for r in _rows(db, owner_id) if r.pack_id == pack_id), None)
    if row is None:
        raise NotFound(f"You have no mission pack {pack_id!r}.")
    db.delete(row)
    db.flush()


def pack_out(row: MissionPack) -> MissionPackOut:
    found = _read_row(row)
    name = row.document.get("name")
    return MissionPackOut(
        pack_id=row.pack_id,
        name=dict(name) if isinstance(name, dict) else {},
        missions=[]
        if found is None
        else [PackMissionOut(id=m.id, name=dict(m.name)) for m in found.missions],
        updated_at=row.updated_at,
    )


# -- routes -----------------------------------------------------------------------------------

_PROBLEM: dict[str, Any] = {"content": {PROBLEM_JSON: {}}}


async def pack_body(request: Request) -> bytes:
    """The request's body, read whole (the app's body limit bounds it; the pack's own bound,
    512 KiB, is checked before parsing)."""
    return await request.body()


PackBody = Annotated[bytes, Depends(pack_body)]


@router.post(
    "",
    response_model=MissionPackOut,
    status_code=status.HTTP_201_CREATED,
    summary="Upload a narrative mission pack; its scenarios become missions you can play",
    responses={200: {"description": "Your pack of the same id, replaced"}, 422: _PROBLEM},
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "An auspex-narrative-pack/1 document (docs/mission-packs.md), at "
            "most 512 KiB",
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    },
)
def upload_pack(data: PackBody, user: CurrentUser, db: DbSession, response: Response) -> Any:
    row, new = upload(db, user.id, data)
    if not new:
        response.status_code = status.HTTP_200_OK
    return pack_out(row)


@router.get("/mine", response_model=list[MissionPackOut], summary="The mission packs you uploaded")
def list_packs(user: CurrentUser, db: DbSession) -> list[MissionPackOut]:
    return [pack_out(r) for r in mine(db, user.id)]


@router.delete(
    "/mine/{pack_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Delete one of your mission packs (matches already started keep their mission)",
    responses={404: _PROBLEM},
)
def delete_pack(
    pack_id: Annotated[str, Path(min_length=1, max_length=40)], user: CurrentUser, db: DbSession
) -> Response:
    delete(db, user.id, pack_id)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
