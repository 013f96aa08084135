"""Catalogue pages: the catalogues you may use, the BattleScribe upload form, and a catalogue's
factions, detachments and searchable datasheets."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Path, Query, Request, UploadFile
from fastapi.responses import HTMLResponse

from app.accounts.deps import OptionalUser, WebUser, verify_csrf
from app.catalog import service, waiting
from app.catalog.calculator import profile_calculator_url
from app.catalog.exceptions import ImportFailed, ImportTooLarge
from app.catalog.waiting import MAX_UPLOAD_FILES
from app.clubs import service as clubs
from app.core.deps import DbSession
from app.core.forms import checked
from app.core.i18n import lazy
from app.core.ids import parse_int
from app.web.templating import htmx_redirect, render

router = APIRouter(include_in_schema=False, dependencies=[Depends(verify_csrf)])


# Import issue codes shown on the report, marked for translation.
#: what each file read is, as the import report names it
FILE_KINDS = {
    "gameSystem": lazy("game system"),
    "catalogue": lazy("catalogue"),
    "library": lazy("library"),
}

ISSUE_TITLES = {
    "file-unreadable": lazy("File unreadable"),
    "too-many-files": lazy("Too many files"),
    "too-large": lazy("Files too large"),
    "duplicate-file": lazy("File uploaded twice"),
    "no-game-system": lazy("No game system"),
    "game-system-mismatch": lazy("Made for another game system"),
    "missing-catalogue-link": lazy("Linked catalogue missing"),
    "unresolved-link": lazy("Link not found"),
    "link-cycle": lazy("Links loop"),
    "too-deep": lazy("Links nested too deep"),
    "unmapped-ability": lazy("Weapon ability kept as text"),
    "bad-characteristic": lazy("Characteristic not a number"),
    "conditional-invulnerable-save": lazy("Conditional invulnerable save"),
    "leader-target-unknown": lazy("Leader's unit not found"),
    "no-unit-size": lazy("No unit size"),
    "no-profile": lazy("No profile"),
    "enhancement-detachment-unknown": lazy("Enhancement without detachment"),
    "no-detachments": lazy("No detachments"),
    "datasheet-skipped": lazy("Datasheet skipped"),
    "faction-assumed": lazy("Faction assumed"),
    "no-catalogue": lazy("No faction catalogue"),
}


def _admin_clubs(db: DbSession, user: Any) -> list[Any]:
    if user is None:
        return []
    return [seen.club for seen in clubs.my_clubs(db, user) if seen.manages]


@router.get("/catalogs")
def catalogs_page(request: Request, db: DbSession, user: OptionalUser) -> HTMLResponse:
    return render(
        request,
        "catalog/index.html",
        {"records": service.visible(db, user), "starter_slug": service.STARTER_SLUG},
    )


def _import_page(
    request: Request,
    db: DbSession,
    user: Any,
    *,
    outcome: service.ImportOutcome | None = None,
    failure: ImportFailed | None = None,
    kept_used: list[str] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    report = outcome.report if outcome else (failure.extra.get("report") if failure else None)
    return render(
        request,
        "catalog/import.html",
        {
            "outcome": outcome,
            "failure": failure,
            "report": report,
            "issue_titles": ISSUE_TITLES,
            "file_kinds": FILE_KINDS,
            # files uploaded without their game system, kept until it is added (issue 17)
            "waiting": waiting.waiting(db, user),
            "kept_used": kept_used or [],
        },
        status_code=status_code,
    )


@router.get("/catalogs/import")
def import_page(request: Request, db: DbSession, user: WebUser) -> HTMLResponse:
    return _import_page(request, db, user)


@router.post("/catalogs/import")
def import_files(
    request: Request,
    db: DbSession,
    user: WebUser,
    files: Annotated[list[UploadFile] | None, File()] = None,
    with_waiting: Annotated[str, Form(max_length=10)] = "",
) -> HTMLResponse:
    """Read the files with no transaction open, then store them in a short write (deps.py).

    ``with_waiting``: the files kept from an upload that lacked its game system are read again
    with these (a file of the same name here replaces the kept one). An upload that lacks its
    game system is imported with what it holds and its files are kept (app.catalog.waiting); a
    failed one leaves the kept files as they were."""
    uploads = [f for f in files or [] if f.filename]
    try:
        if len(uploads) > MAX_UPLOAD_FILES:
            raise ImportTooLarge.too_many_files(MAX_UPLOAD_FILES, errors=[])
        done = waiting.import_upload(
            db,
            user,
            [(f.filename or f"file-{i + 1}", f.file) for i, f in enumerate(uploads)],
            with_waiting=checked(with_waiting),
        )
    except ImportFailed as exc:
        return _import_page(request, db, user, failure=exc, status_code=exc.status)
    return _import_page(
        request, db, user, outcome=done.outcome, kept_used=list(done.kept_used), status_code=201
    )


@router.get("/catalogs/{catalog}")
def catalog_page(
    request: Request,
    db: DbSession,
    user: OptionalUser,
    catalog: Annotated[str, Path(max_length=120)],
    faction: Annotated[str, Query(max_length=200)] = "",
    q: Annotated[str, Query(max_length=service.MAX_QUERY)] = "",
) -> HTMLResponse:
    record = service.resolve(db, user, catalog)
    parsed = service.parsed(db, record)
    chosen = parsed.faction(faction) if faction else None
    if chosen is None and len(parsed.factions) == 1:
        chosen = parsed.factions[0]
    results = service.search(parsed, chosen, q)
    context = {
        "record": record,
        "catalogue": parsed,
        "factions": service.factions(parsed),
        "faction": chosen or "",
        "q": q,
        "results": results,
        "owner": service.is_owner(record, user),
        "admin_clubs": _admin_clubs(db, user) if service.is_owner(record, user) else [],
        "calc": profile_calculator_url,
        "role_of": service.role,
    }
    return render(request, "catalog/catalog.html", context, block="results")


@router.post("/catalogs/{catalog}/share")
def share(
    request: Request,
    db: DbSession,
    user: WebUser,
    catalog: str,
    club_id: Annotated[str, Form(max_length=12)] = "",
) -> HTMLResponse:
    target = parse_int(club_id, 1)
    record = service.share(db, user, catalog, target)
    return htmx_redirect(request, f"/catalogs/{record.slug}")


@router.post("/catalogs/{catalog}/delete")
def delete(request: Request, db: DbSession, user: WebUser, catalog: str) -> HTMLResponse:
    service.delete(db, user, catalog)
    return htmx_redirect(request, "/catalogs")
