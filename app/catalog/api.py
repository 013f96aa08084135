"""JSON API of catalogues: /api/v1/catalogs (browse, import BattleScribe files, share)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, File, Form, Path, Query, UploadFile, status

from app.accounts.deps import CurrentUser, OptionalUser
from app.catalog import service, waiting
from app.catalog.exceptions import ImportTooLarge
from app.catalog.schemas import (
    CatalogueDetail,
    CatalogueOut,
    DatasheetOut,
    DatasheetSummary,
    FactionOut,
    ImportOut,
    ShareRequest,
)
from app.catalog.waiting import MAX_UPLOAD_FILES
from app.core.deps import DbSession
from app.core.errors import PROBLEM_JSON

router = APIRouter(prefix="/catalogs", tags=["catalogs"])

CatalogRef = Annotated[
    str,
    Path(
        max_length=120,
        description="The catalogue's numeric id or its slug (e.g. `starter-wh40k10e`)",
    ),
]
_PROBLEM: dict[str, Any] = {"content": {PROBLEM_JSON: {}}}
_NOT_FOUND: dict[int | str, dict[str, Any]] = {
    404: {"description": "No such catalogue you may use", **_PROBLEM}
}


def _user_id(user: object) -> int | None:
    return getattr(user, "id", None)


@router.get("", response_model=list[CatalogueOut], summary="The catalogues you may use")
def list_catalogs(user: OptionalUser, db: DbSession) -> list[CatalogueOut]:
    """The starter catalogue, the ones you imported and those shared with your clubs."""
    return [CatalogueOut.of(r, _user_id(user)) for r in service.visible(db, user)]


@router.post(
    "/import",
    response_model=ImportOut,
    status_code=status.HTTP_201_CREATED,
    summary="Import BattleScribe / BSData files",
    responses={
        413: {
            "description": "A bound of the import was hit while reading the files, nothing was "
            "imported: `limit` names it (`files`, `file-bytes`, `total-bytes`, `elements`, "
            "`depth`, `zip-members`)",
            **_PROBLEM,
        },
        422: {
            "description": "The files could not be imported: `errors` names each file "
            "(`file`, `code`, `message`) and `report` holds the whole import report",
            **_PROBLEM,
        },
    },
)
def import_catalogs(
    user: CurrentUser,
    db: DbSession,
    files: Annotated[
        list[UploadFile],
        File(description="A game system (.gst/.gstz) and catalogues (.cat/.catz), in any order"),
    ],
    with_waiting: Annotated[
        bool,
        Form(
            description="Read the files kept from your earlier upload that lacked its game "
            "system with these (the .gst alone completes them)"
        ),
    ] = False,
) -> ImportOut:
    """Each faction catalogue among the files becomes a catalogue you own (re-importing the same
    one stores its new version). Library catalogues are read for what they link.

    At most 64 files, 24 MiB each and 48 MiB in all once unzipped, 400,000 XML elements in all,
    nested 64 deep at most; an archive holds at most 8 files. The files are read before the
    import takes the database's write lock: other users' writes do not wait for it."""
    if len(files) > MAX_UPLOAD_FILES:
        raise ImportTooLarge.too_many_files(
            MAX_UPLOAD_FILES,
            errors=[
                {
                    "field": "files",
                    "file": None,
                    "code": "too-many-files",
                    "message": "too many files",
                    "type": "too_many",
                    "limit": "files",
                    "max": MAX_UPLOAD_FILES,
                }
            ],
        )
    done = waiting.import_upload(
        db,
        user,
        [(f.filename or f"file-{i + 1}", f.file) for i, f in enumerate(files)],
        with_waiting=with_waiting,
    )
    outcome = done.outcome
    return ImportOut(
        catalogues=[CatalogueOut.of(r, user.id) for r in outcome.records],
        created=list(outcome.created),
        report=outcome.report,
        kept_used=list(done.kept_used),
        waiting=list(done.waiting.names) if done.waiting is not None else [],
    )


@router.get(
    "/{catalog}",
    response_model=CatalogueDetail,
    summary="A catalogue, its factions, detachments and enhancements",
    responses=_NOT_FOUND,
)
def get_catalog(catalog: CatalogRef, user: OptionalUser, db: DbSession) -> CatalogueDetail:
    record = service.resolve(db, user, catalog)
    parsed = service.parsed(db, record)
    base = CatalogueOut.of(record, _user_id(user))
    return CatalogueDetail(
        **base.model_dump(),
        source=parsed.source,
        faction_details=[FactionOut.of(f) for f in service.factions(parsed)],
        report=record.report if service.is_owner(record, user) else None,
    )


@router.patch(
    "/{catalog}",
    response_model=CatalogueOut,
    summary="Share your catalogue with a club you administer (or stop sharing)",
    responses={**_NOT_FOUND, 403: {"description": "Not yours, or not a club admin", **_PROBLEM}},
)
def share_catalog(
    catalog: CatalogRef, data: ShareRequest, user: CurrentUser, db: DbSession
) -> CatalogueOut:
    return CatalogueOut.of(service.share(db, user, catalog, data.club_id), user.id)


@router.delete(
    "/{catalog}",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Delete your catalogue (refused while army lists use it)",
    responses={**_NOT_FOUND, 409: {"description": "Army lists use it", **_PROBLEM}},
)
def delete_catalog(catalog: CatalogRef, user: CurrentUser, db: DbSession) -> None:
    service.delete(db, user, catalog)


@router.get(
    "/{catalog}/factions",
    response_model=list[FactionOut],
    summary="The factions of a catalogue with their detachments and enhancements",
    responses=_NOT_FOUND,
)
def list_factions(catalog: CatalogRef, user: OptionalUser, db: DbSession) -> list[FactionOut]:
    parsed = service.parsed(db, service.resolve(db, user, catalog))
    return [FactionOut.of(f) for f in service.factions(parsed)]


@router.get(
    "/{catalog}/datasheets",
    response_model=list[DatasheetSummary],
    summary="Search the datasheets of a catalogue",
    responses=_NOT_FOUND,
)
def list_datasheets(
    catalog: CatalogRef,
    user: OptionalUser,
    db: DbSession,
    faction: Annotated[str | None, Query(max_length=200, description="A faction name")] = None,
    q: Annotated[
        str, Query(max_length=service.MAX_QUERY, description="Words of the name or keywords")
    ] = "",
    limit: Annotated[int, Query(ge=1, le=service.MAX_SEARCH_RESULTS)] = service.MAX_SEARCH_RESULTS,
) -> list[DatasheetSummary]:
    """Every word of `q` must be in the datasheet's name or keywords (case and apostrophes
    do not matter); name matches come first, then Characters, Battleline, Dedicated
    Transports and the rest."""
    parsed = service.parsed(db, service.resolve(db, user, catalog))
    faction_name = service.faction(parsed, faction) if faction else None
    return [DatasheetSummary.of(d) for d in service.search(parsed, faction_name, q, limit)]


@router.get(
    "/{catalog}/datasheets/{datasheet_id}",
    response_model=DatasheetOut,
    summary="A datasheet: profiles, weapons, wargear options, points, leader and transport",
    responses={404: {"description": "No such catalogue or datasheet", **_PROBLEM}},
)
def get_datasheet(
    catalog: CatalogRef,
    datasheet_id: Annotated[str, Path(max_length=200)],
    user: OptionalUser,
    db: DbSession,
) -> DatasheetOut:
    parsed = service.parsed(db, service.resolve(db, user, catalog))
    return DatasheetOut.of(service.datasheet(parsed, datasheet_id))
