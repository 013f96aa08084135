"""JSON API of army lists (/api/v1/armies) and the stateless roster check
(/api/v1/rulesets/wh40k-10e/armies/validate)."""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Depends, Path, Query, Request, status
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from app.accounts.deps import CurrentUser, OptionalUser
from app.armies import formats, service, transfer
from app.armies.schemas import (
    ArmyCreate,
    ArmyImportOut,
    ArmyOut,
    ArmySummaryOut,
    ArmyUpdate,
    CheckOut,
    RosterCheck,
    SharedArmyOut,
    ShareOut,
    TextImportIn,
)
from app.core.deps import DbSession
from app.core.errors import PROBLEM_JSON
from app.core.i18n import DEFAULT_LOCALE, current_locale


async def _language(request: Request, user: OptionalUser) -> None:
    """Messages in the caller's language: their account's, else the cookie or Accept-Language
    (async, so that the sync endpoint inherits the context variable)."""
    current_locale.set(getattr(request.state, "locale", DEFAULT_LOCALE))


router = APIRouter(tags=["armies"], dependencies=[Depends(_language)])

_PROBLEM: dict[str, Any] = {"content": {PROBLEM_JSON: {}}}
_OWNED: dict[int | str, dict[str, Any]] = {
    401: {"description": "Not authenticated", **_PROBLEM},
    404: {"description": "No such list of yours", **_PROBLEM},
}
_INVALID: dict[int | str, dict[str, Any]] = {
    422: {"description": "A field out of bounds or unknown: `errors` names each field", **_PROBLEM}
}
ArmyId = Annotated[int, Path(ge=1, le=2**31 - 1)]


@router.get("/armies", response_model=list[ArmySummaryOut], summary="Your army lists")
def list_armies(user: CurrentUser, db: DbSession) -> list[dict[str, Any]]:
    return [service.summary_json(v) for v in service.list_armies(db, user)]


@router.post(
    "/armies",
    response_model=ArmyOut,
    status_code=status.HTTP_201_CREATED,
    summary="Create an army list (10th edition or PEN)",
    responses={401: _OWNED[401], **_INVALID},
)
def create_army(
    data: Annotated[ArmyCreate, Body()], user: CurrentUser, db: DbSession
) -> dict[str, Any]:
    """`rule_system` is `wh40k-10e` (the default: catalogue, faction, detachment, battle size,
    units) or `pen` (units you define, an optional points limit; a PEN unit may be a transport
    with its capacity and the unit types it carries, start inside a transport (`embarked_in`),
    be an independent character starting in a squad (`joins`), be a Troops choice, and buy
    options with their points; see docs/formats.md). The answer includes the validation: points
    and every violation, in your language (for PEN, values a battle needs and a squad lacks are
    warnings)."""
    return service.army_json(service.create(db, user, data))


@router.post(
    "/armies/import",
    response_model=ArmyImportOut,
    status_code=status.HTTP_201_CREATED,
    summary="Import a list from our JSON export or New Recruit's JSON",
    responses={401: _OWNED[401], 404: {"description": "No such catalogue", **_PROBLEM}, **_INVALID},
)
def import_army(
    document: Annotated[
        dict[str, Any],
        Body(
            description="What GET /armies/{id}/export?format=json gave, or a New Recruit JSON "
            "export (a BattleScribe roster: `roster.forces[].selections[]`)"
        ),
    ],
    user: CurrentUser,
    db: DbSession,
    catalog: Annotated[
        str | None,
        Query(
            max_length=120,
            description="Use this catalogue (id or slug) instead of the one the document names",
        ),
    ] = None,
) -> dict[str, Any]:
    """A New Recruit document is read like pasted text (`POST /armies/import/text`): every
    selection not understood refuses it (422, `errors` names each by its JSON path)."""
    if formats.is_roster_json(document):
        seen, report = transfer.import_text(db, user, json.dumps(document), catalog)
        return {**service.army_json(seen), "import_report": report.as_json()}
    return service.army_json(transfer.import_document(db, user, document, catalog))


@router.post(
    "/armies/import/text",
    response_model=ArmyImportOut,
    status_code=status.HTTP_201_CREATED,
    summary="Import a list as players paste it (official app, New Recruit, Auspex)",
    responses={401: _OWNED[401], 404: {"description": "No such catalogue", **_PROBLEM}, **_INVALID},
)
def import_text(body: TextImportIn, user: CurrentUser, db: DbSession) -> dict[str, Any]:
    """Names are matched to the catalogue's (case, spaces, apostrophes and accents do not
    matter); wargear listed as weapons is turned back into the datasheet's choices. Every line
    not understood refuses the import (422: `errors` lists each with `field` = `line N`, the
    line's `text` and why), unless `skip_unknown`. docs/formats.md lists what is read."""
    seen, report = transfer.import_text(
        db, user, body.text, body.catalog, skip_unknown=body.skip_unknown
    )
    return {**service.army_json(seen), "import_report": report.as_json()}


@router.get(
    "/armies/shared/{token}",
    response_model=SharedArmyOut,
    summary="A list through its read-only share link (no account needed)",
    responses={404: {"description": "Invalid or revoked link", **_PROBLEM}},
)
def get_shared(token: Annotated[str, Path(max_length=100)], db: DbSession) -> dict[str, Any]:
    return service.shared_json(service.shared(db, token))


@router.get(
    "/armies/{army_id}", response_model=ArmyOut, summary="One of your lists", responses=_OWNED
)
def get_army(army_id: ArmyId, user: CurrentUser, db: DbSession) -> dict[str, Any]:
    return service.army_json(service.get(db, user, army_id))


@router.patch(
    "/armies/{army_id}",
    response_model=ArmyOut,
    summary="Edit a list, or mark it ready",
    responses={
        **_OWNED,
        422: {
            "description": "Invalid fields (`errors`), or `status: ready` on a list that breaks "
            "the muster rules (`violations` lists them)",
            **_PROBLEM,
        },
    },
)
def update_army(
    army_id: ArmyId, data: ArmyUpdate, user: CurrentUser, db: DbSession
) -> dict[str, Any]:
    return service.army_json(service.update(db, user, army_id, data))


@router.delete(
    "/armies/{army_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Delete a list",
    responses=_OWNED,
)
def delete_army(army_id: ArmyId, user: CurrentUser, db: DbSession) -> None:
    service.delete(db, user, army_id)


@router.post(
    "/armies/{army_id}/copy",
    response_model=ArmyOut,
    status_code=status.HTTP_201_CREATED,
    summary="Copy a list (the copy is a draft)",
    responses=_OWNED,
)
def copy_army(army_id: ArmyId, user: CurrentUser, db: DbSession) -> dict[str, Any]:
    return service.army_json(service.copy(db, user, army_id))


@router.get(
    "/armies/{army_id}/export",
    summary="Export a list as plain text or as our JSON",
    responses={
        200: {
            "content": {"text/plain": {}, "application/json": {}},
            "description": "The text layout players paste into chats, or our JSON (lossless: "
            "POST /armies/import reads it back)",
        },
        **_OWNED,
    },
)
def export_army(
    army_id: ArmyId,
    user: CurrentUser,
    db: DbSession,
    format: Annotated[Literal["text", "json"], Query()] = "json",
    download: Annotated[bool, Query(description="Answer as a file to save")] = False,
) -> Response:
    seen = service.get(db, user, army_id)
    headers = {}
    if download:
        ext = "txt" if format == "text" else "json"
        headers["Content-Disposition"] = f'attachment; filename="army-{army_id}.{ext}"'
    if format == "text":
        return PlainTextResponse(transfer.export_text_of(seen), headers=headers)
    return JSONResponse(service.export_document(seen), headers=headers)


@router.post(
    "/armies/{army_id}/share",
    response_model=ShareOut,
    status_code=status.HTTP_201_CREATED,
    summary="Create a read-only share link (replaces the previous one)",
    responses=_OWNED,
)
def share_army(army_id: ArmyId, request: Request, user: CurrentUser, db: DbSession) -> ShareOut:
    _army, token = service.create_share(db, user, army_id)
    return ShareOut(
        token=token,
        url=str(request.url_for("army_shared_page", token=token)),
        api_url=str(request.url_for("get_shared", token=token)),
    )


@router.delete(
    "/armies/{army_id}/share",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Revoke the share link",
    responses=_OWNED,
)
def revoke_share(army_id: ArmyId, user: CurrentUser, db: DbSession) -> None:
    service.revoke_share(db, user, army_id)


@router.post(
    "/rulesets/wh40k-10e/armies/validate",
    response_model=CheckOut,
    tags=["armies", "rulesets"],
    summary="Check a 10th-edition roster (stateless): points and every violation",
    responses={404: {"description": "No such catalogue you may use", **_PROBLEM}, **_INVALID},
)
def validate_roster(body: RosterCheck, user: OptionalUser, db: DbSession) -> dict[str, Any]:
    """Nothing is stored; no account is needed for the starter catalogue (your own and your
    clubs' catalogues need your token). Every violation comes at once, each with a stable
    `code` (`points-over-limit`, `datasheet-limit-exceeded`, `no-character`, `no-warlord`,
    `multiple-warlords`, `warlord-not-character`, `faction-mismatch`, `epic-hero-duplicate`,
    `enhancement-limit-exceeded`, `enhancement-duplicate`, `enhancement-not-character`,
    `enhancement-on-epic-hero`, `enhancement-not-eligible`, `multiple-enhancements-on-unit`,
    `enhancement-wrong-detachment`, `unit-size-invalid`, `wargear-invalid`,
    `leader-attachment-illegal`, `unknown-datasheet`, `unknown-detachment`,
    `unknown-enhancement`), a `severity`, a `message` and a `fix` in your language, and the
    0-based index of the `unit` it concerns (null for the whole army). Unknown names come with
    the `closest` known ones."""
    return service.check(db, user, body)
