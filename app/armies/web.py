"""The army builder: my lists, a new list, the list page (datasheet browser, units, points and
violations updated in place by htmx, plain forms without JavaScript), the PEN unit editor,
import, export, share links and the read-only shared page.

htmx posts on the list page answer with the page's ``army`` block (points, violations and
units); plain posts redirect back to the page. A refused edit answers 422 to a plain post and
200 to htmx (htmx does not swap error responses), with the message in the block.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Annotated, Any

from fastapi import APIRouter, Depends, File, Form, Query, Request, UploadFile
from fastapi.responses import HTMLResponse
from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.datastructures import FormData

import app.armies.calculator_units  # noqa: F401  (offers the lists' units in the calculator)
from app.accounts.deps import OptionalUser, WebUser, verify_csrf
from app.accounts.models import User
from app.armies import formats, loadout, service, transfer
from app.armies.exceptions import ArmyChanged, ArmyLimitReached, ArmyNotValid, InvalidArmy
from app.armies.models import STATUS_LABELS
from app.armies.schemas import (
    PEN,
    WH40K_10E,
    PenUnitIn,
    UnitIn,
)
from app.armies.systems import ArmySystem, system_for
from app.catalog import service as catalogs
from app.catalog.exceptions import CatalogueNotFound
from app.catalog.models import CatalogueRecord
from app.catalog.pen_units import WEAPON_TYPE_CHOICES, PenUnit
from app.combat.forms import pen_types
from app.combat.forms.pen_types import UNIT_TYPE_LABELS
from app.core.deps import DbSession
from app.core.forms import checked
from app.core.i18n import DEFAULT_LOCALE, current_locale, lazy
from app.core.i18n import gettext as _
from app.core.ids import parse_int
from app.engine.errors import Message
from app.engine.pen.profiles import UnitType, VehicleType
from app.engine.wh40k10e.army import Code, Datasheet, Enhancement, name_key
from app.engine.wh40k10e.army.offer import unavailable_choices
from app.engine.wh40k10e.army.roster import BattleSize
from app.web.forms import field_errors
from app.web.nav import NavItem, add_nav
from app.web.templating import htmx_redirect, is_htmx, render


async def _language(request: Request, user: OptionalUser) -> None:
    """Validation messages are built before the page renders: set the reader's language first
    (async, so that the sync route inherits the context variable)."""
    current_locale.set(getattr(request.state, "locale", DEFAULT_LOCALE))


router = APIRouter(include_in_schema=False, dependencies=[Depends(verify_csrf), Depends(_language)])

add_nav(
    NavItem(
        href="/armies",
        label=lazy("Armies"),
        blurb=lazy(
            "Build army lists from the catalogue: points and every muster violation, "
            "explained, as you build; export, share, and take them to your games."
        ),
        order=20,
    )
)

BATTLE_SIZES = (
    (BattleSize.INCURSION.value, lazy("Incursion"), 1000),
    (BattleSize.STRIKE_FORCE.value, lazy("Strike Force"), 2000),
    (BattleSize.ONSLAUGHT.value, lazy("Onslaught"), 3000),
)
ROLE_TITLES = {
    "character": lazy("Characters"),
    "battleline": lazy("Battleline"),
    "transport": lazy("Dedicated Transports"),
    "other": lazy("Other datasheets"),
}
PEN_CHARACTERISTICS = (
    ("ws", lazy("WS")),
    ("bs", lazy("BS")),
    ("strength", lazy("S")),
    ("toughness", lazy("T")),
    ("wounds", lazy("W")),
    ("initiative", lazy("I")),
    ("attacks", lazy("A")),
    ("leadership", lazy("Ld")),
)
PEN_WEAPON_FIELDS = (
    "name",
    "kind",
    "type",
    "shots",
    "salvo_moved",
    "strength",
    "ap",
    "range",
    "template",
    "properties",
)
MAX_FORM_FIELDS = 400
# the validator's refusals of an Enhancement's bearer: a refused Enhancement gives no keyword
_BEARER_REFUSALS = frozenset(
    c.value
    for c in (
        Code.ENHANCEMENT_NOT_CHARACTER,
        Code.ENHANCEMENT_ON_EPIC_HERO,
        Code.ENHANCEMENT_NOT_ELIGIBLE,
    )
)
MAX_OPTION_ROWS = 20
MAX_IMPORT_BYTES = 1_000_000
MAX_UNDO = 12_000  # an undo token: one unit, base64
MAX_UNDO_LEADERS = 10


def _errors_of(exc: ValidationError | InvalidArmy) -> dict[str, str]:
    if isinstance(exc, InvalidArmy):
        return {
            str(e.get("field") or "form"): _said(e, t)
            for e, t in zip(exc.errors or [], _templates(exc), strict=True)
        }
    return field_errors(exc)


def _templates(exc: InvalidArmy) -> tuple[Message | None, ...]:
    """The engine's message of each entry of ``exc.errors`` (None where it gave none)."""
    errors = exc.errors or []
    return exc.templates if len(exc.templates) == len(errors) else (None,) * len(errors)


def _said(entry: Mapping[str, Any], template: Message | None) -> str:
    """An error's message in the reader's language when the engine gave its template (English
    should a translation's placeholders not match), else the English ``message``."""
    if template is not None:
        try:
            return template.render(_)
        except (KeyError, TypeError, ValueError):
            pass
    return str(entry.get("message"))


def _translated(problem: formats.Problem) -> formats.Problem:
    """A line's problem with its message in the reader's language, when the engine said it."""
    if problem.template is None:
        return problem
    return replace(problem, message=_said({"message": problem.message}, problem.template))


def _refused(request: Request) -> int:
    """The status of a refused edit: 422, or 200 for htmx so that it swaps the answer in."""
    return 200 if is_htmx(request) else 422


# -- presentation of a 10th-edition list -------------------------------------------------------


@dataclass
class UnitRow:
    index: int
    unit: dict[str, Any]
    sheet: Datasheet | None
    models: int
    points: int
    violations: list[dict[str, Any]]
    enhancement_options: list[Enhancement] = field(default_factory=list)
    attach_options: list[tuple[int, str]] = field(default_factory=list)
    wargear: list[loadout.WargearRow] = field(default_factory=list)
    carried: list[tuple[str, int]] = field(default_factory=list)
    described: str = ""
    calculator_urls: list[tuple[str, str]] = field(default_factory=list)
    attached_here: list[int] = field(default_factory=list)

    @property
    def name(self) -> str:
        return self.sheet.name if self.sheet else str(self.unit["datasheet"])

    @property
    def title(self) -> str:
        label = self.unit.get("label") or ""
        return f"{self.name} — {label}" if label else self.name

    @property
    def errors(self) -> int:
        return sum(1 for v in self.violations if v["severity"] == "error")


def _unit_rows(v: service.ArmyView) -> list[UnitRow]:
    assert v.catalogue is not None
    assert v.roster is not None
    assert v.result is not None
    cat = v.catalogue
    faction = cat.faction(v.army.faction) or v.army.faction
    detachment = cat.detachment(v.army.detachment, faction)
    enhancements = list(detachment.enhancements) if detachment else []
    sheets = [cat.datasheet(u.datasheet, faction) for u in v.roster.units]
    violations = v.validation["violations"]
    rows: list[UnitRow] = []
    for i, unit in enumerate(v.army.units):
        sheet = sheets[i]
        result = v.result.units[i]
        row = UnitRow(
            index=i,
            unit=unit,
            sheet=sheet,
            models=result.models,
            points=result.points,
            violations=[x for x in violations if x["unit"] == i],
        )
        if sheet is not None:
            wargear = dict(unit.get("wargear") or {})
            # the unit as it is in the Detachment, with the keywords its taken choices add (a
            # Tank Ace is a Character: Warlord and Enhancements are offered, ruling D22)
            det = v.army.detachment or None
            effective = cat.with_choices(cat.datasheet_in(sheet, det), wargear, det)
            # shown with the keywords its Enhancement gives (ruling D25: Touched by the Warp
            # makes it a Psyker, and its psychic choices are offered), as the validator gives
            # them: not those of an Enhancement it refused this bearer; the Enhancements it is
            # offered are judged without them
            refused = {
                name_key(str(x["params"].get("enhancement", "")))
                for x in row.violations
                if x["code"] in _BEARER_REFUSALS
            }
            taken = [e for e in unit.get("enhancements") or () if name_key(e) not in refused]
            row.sheet = cat.with_enhancements(effective, taken, det)
            # choices the data hides on this unit whatever it takes (its keywords in the
            # Detachment, the Detachment itself) are not offered; one already taken stays
            # listed so that it can be removed (the validator reports it)
            hidden = unavailable_choices(row.sheet, det)
            row.wargear = [
                r
                for r in loadout.wargear_rows(sheet, result.models, wargear)
                if r.count > 0 or name_key(r.name) not in hidden
            ]
            row.carried = [(w.name, n) for w, n in loadout.loadout(sheet, result.models, wargear)]
            row.described = loadout.describe(sheet, result.models, wargear)
            row.calculator_urls = loadout.unit_calculator_urls(sheet, result.models, wargear)
            ally = not any(name_key(k) == name_key(faction) for k in sheet.faction_keywords)
            keys = (*effective.all_keywords(), effective.name)
            if not ally and (
                effective.character or any(not e.characters_only for e in enhancements)
            ):
                # an ally is offered no Enhancement of the army's Detachment (ruling D19); a unit
                # that is no Character only those the data offers it (its keywords)
                row.enhancement_options = [
                    e
                    for e in enhancements
                    if effective.character
                    or (
                        not e.characters_only
                        and (e.eligibility is None or e.eligibility.matches(keys))
                    )
                ]
            if sheet.leader_of:
                allowed = {name_key(n) for n in sheet.leader_of}
                row.attach_options = [
                    (j, f"#{j + 1} {other.name if other else v.army.units[j]['datasheet']}")
                    for j, other in enumerate(sheets)
                    if j != i and other is not None and name_key(other.name) in allowed
                ]
        rows.append(row)
    for row in rows:
        target = row.unit.get("attached_to")
        if isinstance(target, int) and 0 <= target < len(rows):
            rows[target].attached_here.append(row.index)
    return rows


def _army_violations(v: service.ArmyView) -> list[dict[str, Any]]:
    return [x for x in v.validation["violations"] if x["unit"] is None]


def _browser(v: service.ArmyView, q: str) -> tuple[list[tuple[str, list[Datasheet]]], int]:
    """The datasheets found, by role, and how many Legends ones the list's setting hides."""
    assert v.catalogue is not None
    faction = v.catalogue.faction(v.army.faction)
    sheets = catalogs.search(v.catalogue, faction, q) if faction else []
    hidden = 0
    if not v.army.include_legends:  # Legends are offered only with the list's setting (D11)
        hidden = sum(1 for s in sheets if s.legends)
        sheets = [s for s in sheets if not s.legends]
    groups: dict[str, list[Datasheet]] = {role: [] for role in catalogs.ROLE_ORDER}
    for sheet in sheets:
        groups[catalogs.role(sheet)].append(sheet)
    return [(role, found) for role, found in groups.items() if found], hidden


def _army_context(
    v: service.ArmyView, *, q: str = "", error: str | None = None, **extra: Any
) -> dict[str, Any]:
    a = v.army
    context: dict[str, Any] = {
        "v": v,
        "army": a,
        "error": error,
        "status_labels": STATUS_LABELS,
        "battle_sizes": BATTLE_SIZES,
        "q": q,
        "export_text": transfer.export_text_of(v),
        "share_link": None,
        "open_unit": None,
        "undo": None,
        "detected": None,
        **extra,
    }
    if v.pen is not None:
        context["pen_units"] = list(enumerate(v.pen.units))
        context["pen_calc"] = loadout.pen_calculator_url
        context["pen_types"] = pen_types
        context["pen_weapon_type"] = lambda value: _weapon_type_label(value)[0]
        return context
    assert v.catalogue is not None
    faction = v.catalogue.faction(a.faction) or a.faction
    groups, legends_hidden = _browser(v, q)
    context.update(
        rows=_unit_rows(v),
        army_violations=_army_violations(v),
        groups=groups,
        legends_hidden=legends_hidden,
        role_titles=ROLE_TITLES,
        detachments=[d.name for d in v.catalogue.detachments_of(faction)],
        calc=loadout.profile_calculator_url,
    )
    return context


def _page(
    request: Request,
    v: service.ArmyView,
    *,
    block: str | None = None,
    status_code: int = 200,
    **extra: Any,
) -> HTMLResponse:
    template = v.template
    if extra.get("share_link") is None:
        token = service.share_token(v.army)
        if token is not None:
            extra["share_link"] = str(request.url_for("army_shared_page", token=token))
    response = render(
        request, template, _army_context(v, **extra), block=block, status_code=status_code
    )
    response.headers["X-Army-Revision"] = str(v.army.revision)  # static/js/army.js
    return response


def _after_edit(
    request: Request, v: service.ArmyView, anchor: str = "", open_unit: int | None = None
) -> HTMLResponse:
    """htmx: the refreshed ``army`` block (the unit being edited stays open); a plain post:
    back to the page."""
    if is_htmx(request):
        return _page(request, v, block="army", open_unit=open_unit)
    return htmx_redirect(request, f"/armies/{v.army.id}{anchor}")


# -- my lists, a new list ---------------------------------------------------------------------


TEMPLATE_CHOICES = ("blast", "large blast", "template")  # a PEN weapon's template (§2.6)


def _weapon_type_label(value: str) -> tuple[str, bool]:
    """(label, translated?): a type in the reader's language, a melee weapon's name as is."""
    label = pen_types.weapon_type_label(value)
    return label, value in pen_types.WEAPON_TYPE_LABELS


@router.get("/armies")
def armies_page(request: Request, db: DbSession, user: WebUser) -> HTMLResponse:
    return render(
        request,
        "armies/index.html",
        {"views": service.list_armies(db, user), "status_labels": STATUS_LABELS},
    )


def _new_context(
    db: DbSession,
    user: User,
    *,
    catalog: str = "",
    faction: str = "",
    form: dict[str, Any] | None = None,
    errors: dict[str, str] | None = None,
) -> dict[str, Any]:
    records = catalogs.visible(db, user)
    record: CatalogueRecord | None = None
    if catalog:
        try:
            record = catalogs.resolve(db, user, catalog)
        except CatalogueNotFound:
            record = None
    if record is None and records:
        record = next((r for r in records if r.slug == catalogs.STARTER_SLUG), records[0])
    factions: list[str] = []
    detachments: list[str] = []
    chosen = ""
    if record is not None:
        parsed = catalogs.parsed(db, record)
        factions = list(parsed.factions)
        chosen = parsed.faction(faction) or "" if faction else ""
        chosen = chosen or (factions[0] if factions else "")
        detachments = [d.name for d in parsed.detachments_of(chosen)] if chosen else []
    return {
        "records": records,
        "record": record,
        "factions": factions,
        "faction": chosen,
        "detachments": detachments,
        "battle_sizes": BATTLE_SIZES,
        "form": form or {},
        "errors": errors or {},
    }


@router.get("/armies/new")
def new_page(
    request: Request,
    db: DbSession,
    user: WebUser,
    catalog: Annotated[str, Query(max_length=120)] = "",
    faction: Annotated[str, Query(max_length=200)] = "",
    name: Annotated[str, Query(max_length=200)] = "",
    battle_size: Annotated[str, Query(max_length=20)] = "strike-force",
) -> HTMLResponse:
    context = _new_context(
        db, user, catalog=catalog, faction=faction, form={"name": name, "battle_size": battle_size}
    )
    return render(request, "armies/new.html", context, block="form")


@router.post("/armies")
def create_army(
    request: Request,
    db: DbSession,
    user: WebUser,
    rule_system: Annotated[str, Form(max_length=20)] = WH40K_10E,
    name: Annotated[str, Form(max_length=300)] = "",
    catalog: Annotated[str, Form(max_length=120)] = "",
    faction: Annotated[str, Form(max_length=300)] = "",
    detachment: Annotated[str, Form(max_length=300)] = "",
    battle_size: Annotated[str, Form(max_length=20)] = "strike-force",
    points_limit: Annotated[str, Form(max_length=10)] = "",
    include_legends: Annotated[str, Form(max_length=10)] = "",
) -> HTMLResponse:
    form = {
        "name": name,
        "battle_size": battle_size,
        "detachment": detachment,
        "points_limit": points_limit,
        "include_legends": checked(include_legends),
    }
    posted = ListForm(
        name, catalog, faction, detachment, battle_size, points_limit, checked(include_legends)
    )
    try:
        system = _system(rule_system)
        seen = service.create(db, user, system.create_request(posted))
    except (ValidationError, InvalidArmy) as exc:
        context = _new_context(
            db, user, catalog=catalog, faction=faction, form=form, errors=_errors_of(exc)
        )
        return render(request, "armies/new.html", context, status_code=422)
    except ArmyLimitReached as exc:
        errors = {_("Lists"): exc.detail}
        context = _new_context(db, user, catalog=catalog, faction=faction, form=form, errors=errors)
        return render(request, "armies/new.html", context, status_code=exc.status)
    return htmx_redirect(request, f"/armies/{seen.army.id}")


# -- import ------------------------------------------------------------------------------------


@router.get("/armies/import")
def import_page(request: Request, db: DbSession, user: WebUser) -> HTMLResponse:
    return render(request, "armies/import.html", _import_context(db, user))


def _import_context(
    db: Session,
    user: User,
    document: str = "",
    errors: dict[str, str] | None = None,
    lines: list[dict[str, Any]] | None = None,
    skip: bool = False,
    catalog: str = "",
) -> dict[str, Any]:
    return {
        "errors": errors or {},
        "lines": lines or [],
        "document": document[:MAX_IMPORT_BYTES],
        "skip": skip,
        "formats": formats.FORMAT_LABELS,
        # the 10th edition's catalogues the user may read a pasted list with (ruling D27 picks
        # one when none is chosen)
        "catalogs": [r for r in catalogs.visible(db, user) if r.rule_system == WH40K_10E],
        "catalog": catalog,
    }


@router.post("/armies/import")
def import_army(
    request: Request,
    db: DbSession,
    user: WebUser,
    document: Annotated[str, Form(max_length=MAX_IMPORT_BYTES)] = "",
    file: Annotated[UploadFile | None, File()] = None,
    skip_unknown: Annotated[str, Form(max_length=10)] = "",
    catalog: Annotated[str, Form(max_length=120)] = "",
) -> HTMLResponse:
    """Our JSON, our text, the official app's text, New Recruit's text or JSON: the list is
    created, or every line not understood is listed with its number (nothing is created).
    ``catalog`` (a slug or id): read the list with it; empty, the import finds it (ruling D27)
    and the list's page names it."""
    text = document
    skip = checked(skip_unknown)
    chosen = catalog.strip()
    try:
        if file is not None and file.filename:
            text = transfer.read_upload(file.file.read(MAX_IMPORT_BYTES + 1), MAX_IMPORT_BYTES)
        seen, report = transfer.import_text(db, user, text, chosen or None, skip_unknown=skip)
    except (InvalidArmy, CatalogueNotFound) as exc:
        errors: dict[str, str] = {}
        lines: list[dict[str, Any]] = []
        if isinstance(exc, CatalogueNotFound) and chosen:
            errors = {
                _("Catalogue"): _(
                    "There is no catalogue “%(catalog)s” you can use: choose one of the list, "
                    "or let the import find it."
                )
                % {"catalog": chosen}
            }
        elif isinstance(exc, CatalogueNotFound):
            errors = {_("Catalogue"): str(exc.detail)}
        else:
            for e, template in zip(exc.errors or [], _templates(exc), strict=True):
                if e.get("type") == "not_understood":
                    lines.append({**e, "message": _said(e, template)})
                else:
                    errors[str(e.get("field") or "document")] = _said(e, template)
        context = _import_context(db, user, text, errors, lines, skip, chosen)
        return render(request, "armies/import.html", context, status_code=422)
    except ArmyLimitReached as exc:
        context = _import_context(db, user, text, {_("Lists"): exc.detail}, [], skip, chosen)
        return render(request, "armies/import.html", context, status_code=exc.status)
    if report.skipped or report.notes:
        shown = replace(
            report,
            skipped=[_translated(p) for p in report.skipped],
            notes=[_translated(p) for p in report.notes],
        )
        return render(
            request,
            "armies/imported.html",
            {"v": seen, "army": seen.army, "report": shown},
            status_code=201,
        )
    # the list's page names the catalogue the import found (a chosen one needs no word)
    found = "?imported=detected" if report.catalog_detected and seen.record is not None else ""
    return htmx_redirect(request, f"/armies/{seen.army.id}{found}")


# -- the shared, read-only page ----------------------------------------------------------------


@router.get("/armies/shared/{token}", name="army_shared_page")
def shared_page(request: Request, db: DbSession, token: str) -> HTMLResponse:
    v = service.shared(db, token)
    context = _army_context(v)
    return render(request, "armies/shared.html", context)


# -- the list page -----------------------------------------------------------------------------


@router.get("/armies/{army_id}")
def army_page(
    request: Request,
    db: DbSession,
    user: WebUser,
    army_id: int,
    q: Annotated[str, Query(max_length=catalogs.MAX_QUERY)] = "",
    undo: Annotated[str, Query(max_length=MAX_UNDO)] = "",
    imported: Annotated[str, Query(max_length=10)] = "",
) -> HTMLResponse:
    v = service.get(db, user, army_id)
    # htmx search: only the results; the search form itself is never swapped
    found = _read_undo(undo)
    if found is not None and found.revision != v.army.revision:
        found = None  # the list changed since: nothing to undo any more
    # just imported, its catalogue found from the list: the page names it (issue 17)
    detected = v.record if imported == "detected" else None
    return _page(request, v, block="results", q=q, undo=found, detected=detected)


@router.post("/armies/{army_id}")
def edit_army(
    request: Request,
    db: DbSession,
    user: WebUser,
    army_id: int,
    name: Annotated[str, Form(max_length=300)] = "",
    detachment: Annotated[str | None, Form(max_length=300)] = None,
    battle_size: Annotated[str | None, Form(max_length=20)] = None,
    points_limit: Annotated[str | None, Form(max_length=10)] = None,
    include_legends: Annotated[str, Form(max_length=10)] = "",
    legends_setting: Annotated[str, Form(max_length=10)] = "",
) -> HTMLResponse:
    """The list's settings. The "Include Legends" checkbox sends nothing when unticked, so the
    form says it carries the setting with ``legends_setting``; without it the setting stays."""
    army = service.own(db, user, army_id)
    legends = checked(include_legends) if legends_setting else None
    posted = ListForm(name, "", "", detachment, battle_size, points_limit, legends)
    try:
        data = system_for(army.rule_system).update_request(posted)
        seen = service.update(db, user, army_id, data)
    except (ValidationError, InvalidArmy) as exc:
        v = service.view(db, army)
        message = "; ".join(f"{k}: {m}" for k, m in _errors_of(exc).items())
        return _page(request, v, block="army", error=message, status_code=_refused(request))
    return _after_edit(request, seen)


@router.post("/armies/{army_id}/status")
def set_status(
    request: Request,
    db: DbSession,
    user: WebUser,
    army_id: int,
    status: Annotated[str, Form(pattern="^(draft|ready)$")],
) -> HTMLResponse:
    try:
        seen = service.set_status(db, user, army_id, status)
    except ArmyNotValid:
        v = service.get(db, user, army_id)
        return _page(
            request,
            v,
            block="army",
            error=_(
                "The list cannot be marked ready while it breaks the muster rules: "
                "fix the errors below."
            ),
            status_code=_refused(request),
        )
    return _after_edit(request, seen)


@router.post("/armies/{army_id}/copy")
def copy_army(request: Request, db: DbSession, user: WebUser, army_id: int) -> HTMLResponse:
    seen = service.copy(db, user, army_id)
    return htmx_redirect(request, f"/armies/{seen.army.id}")


@router.post("/armies/{army_id}/delete")
def delete_army(request: Request, db: DbSession, user: WebUser, army_id: int) -> HTMLResponse:
    service.delete(db, user, army_id)
    return htmx_redirect(request, "/armies")


@router.post("/armies/{army_id}/share")
def share_army(request: Request, db: DbSession, user: WebUser, army_id: int) -> HTMLResponse:
    service.create_share(db, user, army_id)
    # the link stays on the list page (derived again from the key), so: back to the page
    return htmx_redirect(request, f"/armies/{army_id}#share")


@router.post("/armies/{army_id}/share/revoke")
def revoke_share(request: Request, db: DbSession, user: WebUser, army_id: int) -> HTMLResponse:
    service.revoke_share(db, user, army_id)
    return htmx_redirect(request, f"/armies/{army_id}#share")


# -- units: 10th edition ------------------------------------------------------------------------


def _int(value: str | None, lo: int, hi: int) -> int | None:
    return parse_int(value, lo, hi)


async def _form(request: Request) -> FormData:
    """The posted form, read before the endpoint runs: the endpoints are sync (threadpool), so
    a database wait never blocks the event loop."""
    form = await request.form()
    if len(form) > MAX_FORM_FIELDS:
        raise InvalidArmy("Too many form fields.", errors=[])
    return form


ArmyForm = Annotated[FormData, Depends(_form)]


@router.post("/armies/{army_id}/units")
def add_unit(
    request: Request, form: ArmyForm, db: DbSession, user: WebUser, army_id: int
) -> HTMLResponse:
    army = service.own(db, user, army_id)
    return UNIT_FORMS[army.rule_system].add(request, db, user, army_id, form)


def _add_10e_unit(
    request: Request, db: DbSession, user: User, army_id: int, form: FormData
) -> HTMLResponse:
    datasheet_id = str(form.get("datasheet_id") or "")[:200]
    models = _int(str(form.get("models") or ""), 1, 200)
    seen = service.add_unit(db, user, army_id, datasheet_id, models)
    return _after_edit(request, seen, f"#unit-{len(seen.army.units) - 1}")


def _unit_from_form(form: FormData, current: dict[str, Any]) -> UnitIn:
    wargear: dict[str, int] = {}
    for key, value in form.multi_items():
        if key.startswith("wargear.") and isinstance(value, str):
            count = _int(value, 0, 200)
            if count:
                wargear[key.removeprefix("wargear.")[:200]] = count
    enhancements = [
        str(e)[:200] for e in form.getlist("enhancements") if isinstance(e, str) and e.strip()
    ]
    attached = str(form.get("attached_to") or "")
    models = str(form.get("models") or "")
    return UnitIn(
        datasheet=str(current["datasheet"]),
        models=count if (count := parse_int(models)) is not None else current.get("models"),
        wargear=wargear,
        enhancements=enhancements[:10],
        warlord=checked(form.get("warlord")),
        attached_to=parse_int(attached),
        label=str(form.get("label") or "").strip(),
    )


@router.post("/armies/{army_id}/units/{index}")
def edit_unit(
    request: Request, form: ArmyForm, db: DbSession, user: WebUser, army_id: int, index: int
) -> HTMLResponse:
    army = service.own(db, user, army_id)
    return UNIT_FORMS[army.rule_system].edit(request, db, user, army_id, index, form)


def _edit_10e_unit(
    request: Request, db: DbSession, user: User, army_id: int, index: int, form: FormData
) -> HTMLResponse:
    army = service.own(db, user, army_id)
    if not 0 <= index < len(army.units):
        return htmx_redirect(request, f"/armies/{army_id}")
    try:
        unit = _unit_from_form(form, army.units[index])
        seen = service.set_unit(db, user, army_id, index, unit)
    except (ValidationError, InvalidArmy) as exc:
        v = service.view(db, army)
        message = "; ".join(f"{k}: {m}" for k, m in _errors_of(exc).items())
        return _page(request, v, block="army", error=message, status_code=_refused(request))
    return _after_edit(request, seen, f"#unit-{index}", open_unit=index)


def _undo_token(index: int, unit: dict[str, Any], led_by: list[int], revision: int) -> str:
    data = json.dumps({"i": index, "u": unit, "l": led_by, "r": revision}, separators=(",", ":"))
    return base64.urlsafe_b64encode(data.encode()).decode()


@dataclass(frozen=True)
class Undo:
    """A removal that can be undone: what the undo form sends back, and what it names."""

    token: str
    index: int
    unit: dict[str, Any]
    led_by: list[int]
    revision: int

    @property
    def name(self) -> str:
        return str(self.unit.get("label") or self.unit.get("datasheet") or self.unit.get("name"))


def _read_undo(token: str) -> Undo | None:
    """The undo a token stands for, or None if it is not one (it is checked again, like any
    unit, when it is applied)."""
    if not token or len(token) > MAX_UNDO:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(token.encode()))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    index, unit, led_by, revision = data.get("i"), data.get("u"), data.get("l"), data.get("r")
    if (
        not isinstance(index, int)
        or not isinstance(unit, dict)
        or not isinstance(led_by, list)
        or not all(isinstance(j, int) for j in led_by)
        or not isinstance(revision, int)
    ):
        return None
    return Undo(token, index, unit, led_by[:MAX_UNDO_LEADERS], revision)


@router.post("/armies/{army_id}/units/{index}/remove")
def remove_unit(
    request: Request, db: DbSession, user: WebUser, army_id: int, index: int
) -> HTMLResponse:
    army = service.own(db, user, army_id)
    removed = dict(army.units[index]) if 0 <= index < len(army.units) else None
    led_by = [
        j - (1 if j > index else 0)
        for j in system_for(army.rule_system).referrers(army.units, index)
    ]
    seen = service.remove_unit(db, user, army_id, index)
    assert removed is not None  # remove_unit refused a missing unit
    token = _undo_token(index, removed, led_by, seen.army.revision)
    if is_htmx(request):
        return _page(request, seen, block="army", undo=_read_undo(token))
    return htmx_redirect(request, f"/armies/{army_id}?undo={token}#units")


@router.post("/armies/{army_id}/restore")
def restore_unit(
    request: Request,
    db: DbSession,
    user: WebUser,
    army_id: int,
    undo: Annotated[str, Form(max_length=MAX_UNDO)] = "",
) -> HTMLResponse:
    found = _read_undo(undo)
    if found is None:
        raise InvalidArmy(
            "Not an undo of a removal.",
            errors=[{"field": "undo", "message": _("Not an undo."), "type": "invalid"}],
        )
    try:
        seen = service.restore_unit(
            db, user, army_id, found.index, found.unit, found.led_by, found.revision
        )
    except (ArmyChanged, InvalidArmy):
        v = service.get(db, user, army_id)
        message = _(
            "The list changed since %(name)s was removed: add it again from the datasheets."
        ) % {"name": found.name}
        return _page(request, v, block="army", error=message, status_code=_refused(request))
    return _after_edit(request, seen, f"#unit-{found.index}")


# -- units: PEN ---------------------------------------------------------------------------------


def _pen_form_values(unit: PenUnit | None) -> dict[str, str]:
    """The editor's field values for a unit (or an empty one)."""
    if unit is None:
        return {
            "models": "1",
            "unit_type": "infantry",
            "wounds": "1",
            "attacks": "1",
            "kind": "unit",
        }
    values: dict[str, str] = {
        "name": unit.name,
        "points": str(unit.points),
        "models": str(unit.models),
        "unit_type": unit.unit_type or "",
        "kind": "vehicle" if unit.armour is not None else "unit",
        "rules": ", ".join(unit.rules),
        "vehicle_types": pen_types.vehicle_types_text(unit.vehicle_types),
        "hull_points": "" if unit.hull_points is None else str(unit.hull_points),
        "transport_capacity": ""
        if unit.transport_capacity is None
        else str(unit.transport_capacity),
        "transport_types": pen_types.unit_types_text(unit.transport_types),
        "embarked_in": "" if unit.embarked_in is None else str(unit.embarked_in),
        "joins": "" if unit.joins is None else str(unit.joins),
        "troops": "on" if unit.troops else "",
        "independent_character": "on" if unit.independent_character else "",
    }
    for i, o in enumerate(unit.options):
        values[f"o{i}.name"], values[f"o{i}.points"] = o.name, str(o.points)
    ch = unit.characteristics
    if ch is not None:
        for key in (
            "ws",
            "bs",
            "strength",
            "toughness",
            "wounds",
            "initiative",
            "attacks",
            "leadership",
            "save",
            "invulnerable_save",
        ):
            value = getattr(ch, key)
            values[key] = "" if value is None else str(value)
    if unit.armour is not None:
        values["front"], values["side"], values["rear"] = (
            str(unit.armour.front),
            str(unit.armour.side),
            str(unit.armour.rear),
        )
    for i, w in enumerate(unit.weapons):
        for key in PEN_WEAPON_FIELDS:
            value = getattr(w, key)
            if key == "properties":
                values[f"w{i}.{key}"] = ", ".join(value)
            else:
                values[f"w{i}.{key}"] = "" if value is None else str(value)
    return values


def _opt_int(values: dict[str, str], key: str) -> int | None:
    text = values.get(key, "").strip().rstrip("+")
    if not text or text == "-":
        return None
    try:
        return int(text)
    except ValueError:
        raise InvalidArmy(
            f"{key}: not a number",
            errors=[{"field": key, "message": _("Not a number."), "type": "int"}],
        ) from None


def _split(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


def _pen_unit_from_form(values: dict[str, str]) -> PenUnitIn:
    vehicle = values.get("kind") == "vehicle"
    characteristics = {
        key: _opt_int(values, key)
        for key in (
            "ws",
            "bs",
            "strength",
            "toughness",
            "wounds",
            "initiative",
            "attacks",
            "leadership",
            "save",
            "invulnerable_save",
        )
    }
    weapons = []
    for i in range(20):
        name = values.get(f"w{i}.name", "").strip()
        if not name:
            continue
        weapons.append(
            {
                "name": name,
                "kind": values.get(f"w{i}.kind") or "ranged",
                "type": values.get(f"w{i}.type")
                or ("melee" if values.get(f"w{i}.kind") == "melee" else "assault"),
                "shots": _opt_int(values, f"w{i}.shots") or 1,
                "salvo_moved": _opt_int(values, f"w{i}.salvo_moved"),
                "strength": _opt_int(values, f"w{i}.strength"),
                "ap": _opt_int(values, f"w{i}.ap"),
                "range": _opt_int(values, f"w{i}.range"),
                "template": values.get(f"w{i}.template") or None,
                "properties": _split(values.get(f"w{i}.properties", "")),
            }
        )
    data: dict[str, Any] = {
        "name": values.get("name", "").strip(),
        "points": _opt_int(values, "points") or 0,
        "models": _opt_int(values, "models") or 1,
        "characteristics": characteristics,
        "weapons": weapons,
        "rules": _split(values.get("rules", "")),
        "transport_capacity": _opt_int(values, "transport_capacity"),
        "transport_types": _split(values.get("transport_types", "")),
        "embarked_in": _opt_int(values, "embarked_in"),
        "joins": _opt_int(values, "joins"),
        "troops": checked(values.get("troops")),
        "independent_character": checked(values.get("independent_character")),
        "options": [
            {"name": name, "points": _opt_int(values, f"o{i}.points") or 0}
            for i in range(MAX_OPTION_ROWS)
            if (name := values.get(f"o{i}.name", "").strip())
        ],
    }
    if vehicle:
        data.update(
            unit_type=None,
            armour={
                "front": _opt_int(values, "front") or 0,
                "side": _opt_int(values, "side") or 0,
                "rear": _opt_int(values, "rear") or 0,
            },
            hull_points=_opt_int(values, "hull_points"),
            vehicle_types=_split(values.get("vehicle_types", "")),
        )
    else:
        data["unit_type"] = values.get("unit_type") or "infantry"
    return PenUnitIn.model_validate(data)


def _pen_editor(
    request: Request,
    v: service.ArmyView,
    index: int | None,
    values: dict[str, str],
    *,
    errors: dict[str, str] | None = None,
    status_code: int = 200,
) -> HTMLResponse:
    def used(prefix: str) -> int:
        return max(
            [
                n + 1
                for k in values
                if k.startswith(prefix)
                and "." in k
                and (n := parse_int(k[1 : k.index(".")])) is not None
            ]
            or [0]
        )

    rows = used("w")
    assert v.pen is not None
    others = [(j, u) for j, u in enumerate(v.pen.units) if j != index]
    return render(
        request,
        "armies/pen_unit.html",
        {
            "v": v,
            "army": v.army,
            "index": index,
            "values": values,
            "errors": errors or {},
            "weapon_rows": range(min(rows + 1, 20)),
            "option_rows": range(min(used("o") + 1, MAX_OPTION_ROWS)),
            "squads": [(j, u) for j, u in others if not u.is_vehicle],
            "transports": [(j, u) for j, u in others if u.is_transport],
            "characteristics": PEN_CHARACTERISTICS,
            "unit_types": [(t.value, UNIT_TYPE_LABELS[t]) for t in UnitType],
            "unit_type_hint": ", ".join(_(label) for label in UNIT_TYPE_LABELS.values()),
            "vehicle_types": [pen_types.vehicle_type_label(t) for t in VehicleType],
            "weapon_types": [(t, *_weapon_type_label(t)) for t in WEAPON_TYPE_CHOICES],
            "template_types": [(t, _weapon_type_label(t)[0]) for t in TEMPLATE_CHOICES],
        },
        status_code=status_code,
    )


def _save_pen_unit(
    request: Request,
    db: DbSession,
    user: User,
    army_id: int,
    index: int | None,
    form: FormData,
) -> HTMLResponse:
    values = {
        k: str(val)[:200]
        for k, val in form.multi_items()
        if isinstance(val, str) and k != "csrf_token"
    }
    try:
        unit = _pen_unit_from_form(values)
        service.save_pen_unit(db, user, army_id, index, unit)
    except (ValidationError, InvalidArmy) as exc:
        v = service.get(db, user, army_id)
        errors = {k.removeprefix("units.0."): m for k, m in _errors_of(exc).items()}
        return _pen_editor(request, v, index, values, errors=errors, status_code=422)
    return htmx_redirect(request, f"/armies/{army_id}")


@router.get("/armies/{army_id}/units/new")
def new_pen_unit(request: Request, db: DbSession, user: WebUser, army_id: int) -> HTMLResponse:
    v = service.get(db, user, army_id)
    if v.pen is None:
        return htmx_redirect(request, f"/armies/{army_id}#browser")
    return _pen_editor(request, v, None, _pen_form_values(None))


@router.get("/armies/{army_id}/units/{index}")
def pen_unit_page(
    request: Request, db: DbSession, user: WebUser, army_id: int, index: int
) -> HTMLResponse:
    v = service.get(db, user, army_id)
    if v.pen is None or not 0 <= index < len(v.pen.units):
        return htmx_redirect(request, f"/armies/{army_id}#unit-{index}")
    return _pen_editor(request, v, index, _pen_form_values(v.pen.units[index]))


# -- per rule system: the unit forms -------------------------------------------------------------


@dataclass(frozen=True)
class ListForm:
    """The new-list and settings forms' fields (see app.armies.systems.ArmyForm)."""

    name: str
    catalog: str
    faction: str
    detachment: str | None
    battle_size: str | None
    points_limit: str | None
    include_legends: bool | None = None


def _system(rule_system: str) -> ArmySystem:
    """The system a form names, or a 422 naming the field."""
    try:
        return system_for(rule_system)
    except KeyError:
        raise InvalidArmy(
            f"rule_system: unknown {rule_system!r}",
            errors=[{"field": "rule_system", "message": _("Unknown rule system."), "type": "enum"}],
        ) from None


@dataclass(frozen=True)
class UnitForms:
    """How a rule system's list page adds and edits units from a posted form."""

    add: Callable[[Request, Session, User, int, FormData], HTMLResponse]
    edit: Callable[[Request, Session, User, int, int, FormData], HTMLResponse]


def _add_pen_unit(
    request: Request, db: Session, user: User, army_id: int, form: FormData
) -> HTMLResponse:
    return _save_pen_unit(request, db, user, army_id, None, form)


UNIT_FORMS: dict[str, UnitForms] = {
    WH40K_10E: UnitForms(_add_10e_unit, _edit_10e_unit),
    PEN: UnitForms(_add_pen_unit, _save_pen_unit),
}
