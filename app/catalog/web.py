"""Catalogue pages: the catalogues you may use, the BattleScribe upload form, and a catalogue's
factions, detachments and searchable datasheets."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Path, Query, Request, UploadFile
from fastapi.responses import HTMLResponse

from app.accounts.deps import OptionalUser, WebUser, verify_csrf
from app.catalog import service
from app.catalog.calculator import profile_calculator_url
from app.catalog.deps import no_transaction
from app.catalog.exceptions import ImportFailed, ImportTooLarge
from app.clubs import service as clubs
from app.core.deps import DbSession
from app.core.i18n import lazy
from app.core.ids import parse_int
from app.web.templating import htmx_redirect, render

router = APIRouter(include_in_schema=False, dependencies=[Depends(verify_csrf)])

MAX_UPLOAD_FILES = 64

# Import issue codes shown on the report, marked for translation.
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
    *,
    outcome: service.ImportOutcome | None = None,
    failure: ImportFailed | None = None,
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
        },
        status_code=status_code,
    )


@router.get("/catalogs/import")
def import_page(request: Request, user: WebUser) -> HTMLResponse:
    return _import_page(request)


@router.post("/catalogs/import")
def import_files(
    request: Request,
    db: DbSession,
    user: WebUser,
    files: Annotated[list[UploadFile] | None, File()] = None,
) -> HTMLResponse:
    """Read the files with no transaction open, then store them in a short write (deps.py)."""
    uploads = [f for f in files or [] if f.filename]
    try:
        if len(uploads) > MAX_UPLOAD_FILES:
            raise ImportTooLarge(
                f"At most {MAX_UPLOAD_FILES} files per import.", errors=[], limit="files"
            )
        with no_transaction(db):
            read = service.read_import(
                [(f.filename or f"file-{i + 1}", f.file) for i, f in enumerate(uploads)]
            )
    except ImportFailed as exc:
        return _import_page(request, failure=exc, status_code=exc.status)
    outcome = service.store_import(db, user, read)
    return _import_page(request, outcome=outcome, status_code=201)


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
