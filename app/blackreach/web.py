"""Pages of the Black Reach content library: the list, a set's editors, read-only views.

Each document has a JSON editor checked by the engine's readers on save, the problems listed
beside it with their paths; friendly forms add or change one counter, tile, option or
scenario; each board (and each scenario's battlefield) is drawn as SVG. Every form posts to
a real URL with its CSRF token; a save names the version the page showed (a stale one is
refused with 409).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Path, Query, Request
from fastapi.responses import HTMLResponse
from pydantic import ValidationError

from app.accounts.deps import OptionalUser, WebUser, verify_csrf
from app.accounts.models import User
from app.blackreach import forms, present, service
from app.blackreach.documents import ABILITY_IDS, Documents, check, parse_text
from app.blackreach.exceptions import InvalidContent, StaleContent
from app.blackreach.schemas import ContentCreate, ContentUpdate
from app.core.deps import DbSession
from app.core.i18n import DEFAULT_LOCALE, current_locale, lazy
from app.core.ids import MAX_ID, parse_int
from app.engine.black_reach.loaders import MAX_JSON_BYTES
from app.web.forms import field_errors
from app.web.nav import NavItem, add_nav
from app.web.templating import htmx_redirect, render


async def _language(request: Request, user: OptionalUser) -> None:
    """Messages made by the service (a set's default name, a refusal) in the visitor's
    language: set here, in an async dependency, so that the sync endpoint inherits it."""
    current_locale.set(getattr(request.state, "locale", DEFAULT_LOCALE))


router = APIRouter(include_in_schema=False, dependencies=[Depends(verify_csrf), Depends(_language)])

add_nav(
    NavItem(
        href="/black-reach/content",
        label=lazy("Black Reach"),
        blurb=lazy("Heroes of Black Reach: enter your own counters, tiles, boards and scenarios."),
        order=45,
    )
)

HOME = "/black-reach/content"
SetId = Annotated[int, Path(ge=1, le=2**31 - 1)]
Token = Annotated[str, Path(min_length=1, max_length=100)]
Index = Annotated[int, Path(ge=0, le=100)]
Pick = Annotated[str | None, Query(max_length=64)]
MAX_TEXT = MAX_JSON_BYTES * 2  # a pasted document, checked again by the reader's own bound


async def form_data(request: Request) -> forms.FormData:
    """The submitted form, read before the (sync) endpoint runs."""
    form = await request.form()
    single: dict[str, str] = {}
    multi: dict[str, list[str]] = {}
    for key, value in form.multi_items():
        if isinstance(value, str):
            single.setdefault(key, value)
            multi.setdefault(key, []).append(value)
    return forms.FormData(single, multi)


Form = Annotated[forms.FormData, Depends(form_data)]


def _pretty(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _pictures(view: service.ContentView) -> dict[str, Any]:
    checked = check(view.documents)
    boards = [present.board_picture(b) for b in checked.boards.values()]
    scenarios = [present.scenario_picture(s) for s in checked.scenarios if s is not None]
    return {"board_pictures": boards, "scenario_pictures": scenarios, "checked": checked}


def _ids(doc: Any, key: str) -> list[str]:
    items = doc.get(key) if isinstance(doc, dict) else None
    return [
        str(i["id"])
        for i in (items if isinstance(items, list) else [])
        if isinstance(i, dict) and "id" in i
    ]


def _board_names(doc: Any) -> list[str]:
    items = doc.get("boards") if isinstance(doc, dict) else None
    return [
        str(b["name"])
        for b in (items if isinstance(items, list) else [])
        if isinstance(b, dict) and "name" in b
    ]


def _page(
    request: Request,
    view: service.ContentView,
    *,
    status_code: int = 200,
    texts: dict[str, str] | None = None,
    doc_errors: dict[str, list[tuple[str, str]]] | None = None,
    counter: tuple[dict[str, Any], forms.Located] | None = None,
    tile: tuple[dict[str, Any], forms.Located] | None = None,
    option: tuple[dict[str, Any], forms.Located] | None = None,
    scenario: tuple[dict[str, Any], forms.Located] | None = None,
    notice: str | None = None,
    pick: dict[str, str | None] | None = None,
    shared_token: str | None = None,
) -> HTMLResponse:
    docs = view.documents
    pick = pick or {}
    none = forms.Located({})
    if counter is None:
        _i, found = forms.find(docs.forces.get("counters"), pick.get("counter") or "")
        counter = (forms.counter_fields(found), none)
    if tile is None:
        _i, found = forms.find(docs.forces.get("tiles"), pick.get("tile") or "")
        tile = (forms.tile_fields(found), none)
    if option is None:
        _i, found = forms.find(docs.forces.get("options"), pick.get("option") or "")
        option = (forms.option_fields(found), none)
    if scenario is None:
        _i, found = forms.find(docs.scenarios, pick.get("scenario") or "")
        scenario = (forms.scenario_fields(found), none)
    shown = {
        "forces": _pretty(docs.forces),
        "boards": _pretty(docs.boards),
        **{f"scenario-{i}": _pretty(s) for i, s in enumerate(docs.scenarios)},
        "scenario-new": "",
        **(texts or {}),
    }
    context = {
        "view": view,
        "texts": shown,
        "doc_errors": doc_errors or {},
        "counter_form": counter[0],
        "counter_errors": counter[1],
        "tile_form": tile[0],
        "tile_errors": tile[1],
        "option_form": option[0],
        "option_errors": option[1],
        "scenario_form": scenario[0],
        "scenario_errors": scenario[1],
        "notice": notice,
        "ability_ids": ABILITY_IDS,
        "factions": forms.FACTIONS,
        "classes": forms.CLASSES,
        "face_kinds": forms.FACE_KINDS,
        "roles": forms.ROLES,
        "step_losses": forms.STEP_LOSSES,
        "tile_kinds": forms.TILE_KINDS,
        "option_types": forms.OPTION_TYPES,
        "power_effects": forms.POWER_EFFECTS,
        "psykers": forms.PSYKERS,
        "sights": forms.SIGHTS,
        "armour_colours": forms.ARMOUR_COLOURS,
        "sniper_effects": forms.SNIPER_EFFECTS,
        "pole_bonuses": forms.POLE_BONUSES,
        "sniper_rows": range(forms.FORM_SNIPER_ROWS),
        "power_text_most": forms.POWER_TEXT,
        "equipment_numbers": forms.EQUIPMENT_NUMBERS,
        "ordnance_numbers": forms.ORDNANCE_NUMBERS,
        "form_faces": range(forms.FORM_FACES),
        "form_objectives": range(forms.FORM_OBJECTIVES),
        "counter_ids": _ids(docs.forces, "counters"),
        "tile_ids": _ids(docs.forces, "tiles"),
        "option_ids": _ids(docs.forces, "options"),
        "template_ids": _ids(docs.forces, "templates"),
        "damage_set_ids": _ids(docs.forces, "damage_sets"),
        "scenario_ids": [str(s.get("id", "")) for s in docs.scenarios if isinstance(s, dict)],
        "board_names": _board_names(docs.boards),
        "share_path": f"{HOME}/shared/{view.share_token}" if view.share_token else None,
        "shared_path": f"{HOME}/shared/{shared_token}" if shared_token else None,
        **_pictures(view),
    }
    return render(request, "blackreach/set.html", context, status_code=status_code)


# -- the list ---------------------------------------------------------------------------------


def _index(
    request: Request,
    db: DbSession,
    user: User,
    *,
    errors: dict[str, str] | None = None,
    name: str = "",
    status_code: int = 200,
) -> HTMLResponse:
    context = {
        "sample": service.sample_view(),
        "sets": service.list_sets(db, user),
        "errors": errors or {},
        "form": {"name": name},
    }
    return render(request, "blackreach/index.html", context, status_code=status_code)


@router.get(HOME)
def content_page(request: Request, db: DbSession, user: WebUser) -> HTMLResponse:
    return _index(request, db, user)


@router.post(HOME)
def create_set(request: Request, db: DbSession, user: WebUser, form: Form) -> HTMLResponse:
    name = form.text("name")
    try:
        data = ContentCreate(name=name)
    except ValidationError as exc:
        return _index(request, db, user, errors=field_errors(exc), name=name[:200], status_code=422)
    row = service.create(db, user, data)
    return htmx_redirect(request, f"{HOME}/{row.id}")


# -- read-only sets ---------------------------------------------------------------------------


@router.get(f"{HOME}/sample")
def sample_page(request: Request, user: WebUser) -> HTMLResponse:
    return _page(request, service.sample_view())


@router.post(f"{HOME}/sample/copy")
def copy_sample(request: Request, db: DbSession, user: WebUser) -> HTMLResponse:
    row = service.copy_sample(db, user)
    return htmx_redirect(request, f"{HOME}/{row.id}")


@router.get(HOME + "/shared/{token}")
def shared_page(request: Request, db: DbSession, user: OptionalUser, token: Token) -> HTMLResponse:
    return _page(request, service.shared(db, token), shared_token=token)


def shared_page_with(
    request: Request, db: DbSession, token: str, *, notice: str, status_code: int
) -> HTMLResponse:
    """The shared page again with a refusal's message (a match on it, app.matches)."""
    view = service.shared(db, token)
    return _page(request, view, notice=notice, status_code=status_code, shared_token=token)


@router.post(HOME + "/shared/{token}/copy")
def copy_shared(request: Request, db: DbSession, user: WebUser, token: Token) -> HTMLResponse:
    row = service.copy_shared(db, user, token)
    return htmx_redirect(request, f"{HOME}/{row.id}")


# -- one's own set ----------------------------------------------------------------------------


@router.get(HOME + "/{set_id}")
def set_page(
    request: Request,
    db: DbSession,
    user: WebUser,
    set_id: SetId,
    counter: Pick = None,
    tile: Pick = None,
    option: Pick = None,
    scenario: Pick = None,
) -> HTMLResponse:
    view = service.get(db, user, set_id)
    pick = {"counter": counter, "tile": tile, "option": option, "scenario": scenario}
    return _page(request, view, pick=pick)


def _version(form: forms.FormData) -> int:
    """The version the form was made on; anything else (a "²" too) is 0: the stale page."""
    return parse_int(form.text("version"), 1, MAX_ID) or 0


def _save(
    request: Request,
    db: DbSession,
    user: User,
    set_id: int,
    form: forms.FormData,
    changes: dict[str, Any],
    on_error: Callable[[service.ContentView, list[tuple[str, str]]], dict[str, Any]],
    target: str,
) -> HTMLResponse:
    """Save the changes on the version the page showed; on a problem, the page again with what
    was typed and the problems beside it (422), or the newer set and a notice (409)."""
    try:
        data = ContentUpdate(version=max(_version(form), 1), **changes)
        service.update(db, user, set_id, data)
    except ValidationError as exc:
        problems = [(k, v) for k, v in field_errors(exc).items()]
        view = service.get(db, user, set_id)
        return _page(request, view, status_code=422, **on_error(view, problems))
    except InvalidContent as exc:
        problems = [(str(e["field"]), str(e["message"])) for e in exc.errors or []]
        view = service.get(db, user, set_id)
        return _page(request, view, status_code=422, **on_error(view, problems))
    except StaleContent as exc:
        view = service.get(db, user, set_id)
        return _page(request, view, status_code=409, notice=exc.detail, **on_error(view, []))
    return htmx_redirect(request, f"{HOME}/{set_id}{target}")


@router.post(HOME + "/{set_id}/name")
def rename_set(
    request: Request, db: DbSession, user: WebUser, set_id: SetId, form: Form
) -> HTMLResponse:
    def on_error(view: service.ContentView, problems: list[tuple[str, str]]) -> dict[str, Any]:
        return {"doc_errors": {"name": problems}}

    return _save(request, db, user, set_id, form, {"name": form.text("name")[:200]}, on_error, "")


def _json_editor(
    request: Request,
    db: DbSession,
    user: User,
    set_id: int,
    form: forms.FormData,
    key: str,
    where: str,
    build: Callable[[Any, service.ContentView], dict[str, Any]],
) -> HTMLResponse:
    text = form.text("text")

    def on_error(view: service.ContentView, problems: list[tuple[str, str]]) -> dict[str, Any]:
        return {"texts": {key: text}, "doc_errors": {key: problems}}

    if len(text) > MAX_TEXT:
        view = service.get(db, user, set_id)
        problems = [(where, f"at most {MAX_JSON_BYTES} bytes of JSON")]
        return _page(request, view, status_code=422, **on_error(view, problems))
    value, parsed = parse_text(text, where)
    pairs = [(p.field, p.message) for p in parsed]
    if not pairs and not isinstance(value, dict):
        pairs = [(where, "an object")]
    if pairs:
        view = service.get(db, user, set_id)
        return _page(request, view, status_code=422, **on_error(view, pairs))
    view = service.get(db, user, set_id)
    return _save(request, db, user, set_id, form, build(value, view), on_error, f"#{key}")


@router.post(HOME + "/{set_id}/documents/{doc}")
def save_document(
    request: Request,
    db: DbSession,
    user: WebUser,
    set_id: SetId,
    doc: Annotated[str, Path(pattern="^(forces|boards)$")],
    form: Form,
) -> HTMLResponse:
    return _json_editor(
        request, db, user, set_id, form, doc, doc, lambda value, _view: {doc: value}
    )


def _scenarios_with(view: service.ContentView, index: int, value: Any) -> list[Any]:
    scenarios = list(view.documents.scenarios)
    if index >= len(scenarios):
        scenarios.append(value)
    else:
        scenarios[index] = value
    return scenarios


@router.post(HOME + "/{set_id}/scenarios/new")
def add_scenario(
    request: Request, db: DbSession, user: WebUser, set_id: SetId, form: Form
) -> HTMLResponse:
    count = len(service.get(db, user, set_id).documents.scenarios)
    return _json_editor(
        request,
        db,
        user,
        set_id,
        form,
        "scenario-new",
        f"scenarios[{count}]",
        lambda value, view: {"scenarios": _scenarios_with(view, count, value)},
    )


@router.post(HOME + "/{set_id}/scenarios/{index}")
def save_scenario(
    request: Request, db: DbSession, user: WebUser, set_id: SetId, index: Index, form: Form
) -> HTMLResponse:
    count = len(service.get(db, user, set_id).documents.scenarios)
    index = min(index, count)
    return _json_editor(
        request,
        db,
        user,
        set_id,
        form,
        f"scenario-{index}" if index < count else "scenario-new",
        f"scenarios[{index}]",
        lambda value, view: {"scenarios": _scenarios_with(view, index, value)},
    )


@router.post(HOME + "/{set_id}/scenarios/{index}/delete")
def delete_scenario(
    request: Request, db: DbSession, user: WebUser, set_id: SetId, index: Index, form: Form
) -> HTMLResponse:
    view = service.get(db, user, set_id)
    scenarios = [s for i, s in enumerate(view.documents.scenarios) if i != index]

    def on_error(view: service.ContentView, problems: list[tuple[str, str]]) -> dict[str, Any]:
        return {"doc_errors": {f"scenario-{index}": problems}}

    return _save(request, db, user, set_id, form, {"scenarios": scenarios}, on_error, "")


# -- the friendly forms -----------------------------------------------------------------------


def _item_form(
    request: Request,
    db: DbSession,
    user: User,
    set_id: int,
    form: forms.FormData,
    kind: str,
) -> HTMLResponse:
    """Add or change one counter, tile, option or scenario (by its id) from its form."""
    view = service.get(db, user, set_id)
    docs: Documents = view.documents
    if kind == "scenario":
        index, existing = forms.find_typed(docs.scenarios, form)
        item = forms.scenario_from_form(form, existing)
        prefix = f"scenarios[{index}]"
        changes: dict[str, Any] = {"scenarios": _scenarios_with(view, index, item)}
    else:
        part = f"{kind}s"
        items = docs.forces.get(part)
        items = list(items) if isinstance(items, list) else []
        index, existing = forms.find_typed(items, form)
        build = {
            "counter": forms.counter_from_form,
            "tile": forms.tile_from_form,
            "option": forms.option_from_form,
        }[kind]
        item = build(form, existing)
        if index < len(items):
            items[index] = item
        else:
            items.append(item)
        prefix = f"forces.{part}[{index}]"
        changes = {"forces": {**docs.forces, part: items}}
    fields = {
        "counter": forms.counter_fields,
        "tile": forms.tile_fields,
        "option": forms.option_fields,
        "scenario": forms.scenario_fields,
    }[kind](item)

    def on_error(_view: service.ContentView, problems: list[tuple[str, str]]) -> dict[str, Any]:
        return {kind: (fields, forms.locate(problems, prefix, kind))}

    if form.problems:  # a field the form could not read without guessing: nothing saved
        located = [(f"{prefix}.{field}", message) for field, message in form.problems]
        fields.update({field: form.text(field) for field, _message in form.problems})
        return _page(request, view, status_code=422, **on_error(view, located))
    # the id as saved, encoded: one with &, # or a line break still names its item
    ident = quote(str(item.get("id", "")), safe="")
    return _save(request, db, user, set_id, form, changes, on_error, f"?{kind}={ident}#{kind}-form")


@router.post(HOME + "/{set_id}/counters")
def save_counter(
    request: Request, db: DbSession, user: WebUser, set_id: SetId, form: Form
) -> HTMLResponse:
    return _item_form(request, db, user, set_id, form, "counter")


@router.post(HOME + "/{set_id}/tiles")
def save_tile(
    request: Request, db: DbSession, user: WebUser, set_id: SetId, form: Form
) -> HTMLResponse:
    return _item_form(request, db, user, set_id, form, "tile")


@router.post(HOME + "/{set_id}/options")
def save_option(
    request: Request, db: DbSession, user: WebUser, set_id: SetId, form: Form
) -> HTMLResponse:
    return _item_form(request, db, user, set_id, form, "option")


@router.post(HOME + "/{set_id}/scenario-form")
def save_scenario_form(
    request: Request, db: DbSession, user: WebUser, set_id: SetId, form: Form
) -> HTMLResponse:
    return _item_form(request, db, user, set_id, form, "scenario")


# -- share, copy, delete ----------------------------------------------------------------------


@router.post(HOME + "/{set_id}/share")
def share_set(request: Request, db: DbSession, user: WebUser, set_id: SetId) -> HTMLResponse:
    service.create_share(db, user, set_id)
    return htmx_redirect(request, f"{HOME}/{set_id}#share")


@router.post(HOME + "/{set_id}/unshare")
def unshare_set(request: Request, db: DbSession, user: WebUser, set_id: SetId) -> HTMLResponse:
    service.revoke_share(db, user, set_id)
    return htmx_redirect(request, f"{HOME}/{set_id}#share")


@router.post(HOME + "/{set_id}/copy")
def copy_set(request: Request, db: DbSession, user: WebUser, set_id: SetId) -> HTMLResponse:
    row = service.copy(db, user, set_id)
    return htmx_redirect(request, f"{HOME}/{row.id}")


@router.post(HOME + "/{set_id}/delete")
def delete_set(request: Request, db: DbSession, user: WebUser, set_id: SetId) -> HTMLResponse:
    service.delete(db, user, set_id)
    return htmx_redirect(request, HOME)
