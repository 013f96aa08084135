"""The calculator page: a GET form per rule system, exact results, and one live roll.

``/calculator`` renders the page (or only its ``results`` block for htmx); ``/calculator/roll``
rolls the same attack once with a seed. Both read the same query parameters, parsed by the
rule system's :class:`~app.combat.forms.CalculatorForm`; nothing here knows a system by name.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, JSONResponse

from app.accounts.deps import OptionalUser, WebUser, verify_csrf
from app.accounts.models import User
from app.combat import profiles, service, units
from app.combat.exceptions import InvalidCombatRequest, ProfileNotFound, RuleSystemNotFound
from app.combat.forms import CalculatorForm, FormState
from app.combat.models import CombatProfile, ProfileKind
from app.combat.present import Comparison, analysis_view, comparison, resolution_view
from app.combat.rulesets import specs
from app.combat.schemas import MAX_SEED
from app.core.deps import DbSession
from app.core.errors import InvalidInput
from app.core.fastjson import FastJSONResponse
from app.core.i18n import current_locale, lazy
from app.core.i18n import gettext as _
from app.core.ids import parse_int
from app.engine.errors import Message
from app.rulesets.names import display_name
from app.web.nav import NavItem, add_nav
from app.web.templating import htmx_redirect, is_htmx, render

router = APIRouter(include_in_schema=False, dependencies=[Depends(verify_csrf)])
add_nav(
    NavItem(
        href="/calculator",
        label=lazy("Calculator"),
        blurb=lazy(
            "Exact odds of an attack: wounds lost, models destroyed, the chart of every "
            "outcome, and one live roll die by die."
        ),
        order=10,
    )
)

MAX_QUERY_LENGTH = 8000  # characters of the whole query string
MAX_PARAMS = 300
MAX_VALUE_LENGTH = 200
# a compared profile (``vs``) is a whole calculator query of its own
COMPARE_KEY = "vs"
MAX_COMPARED = 2  # with the profile being edited: three side by side
MAX_COMPARED_LENGTH = 3000

# pydantic's English messages for the errors a form can produce, as translatable texts
_PYDANTIC_MESSAGES = {
    "greater_than_equal": lazy("Must be at least %(ge)s."),
    "less_than_equal": lazy("Must be at most %(le)s."),
    "too_long": lazy("At most %(max_length)s items."),
    "too_short": lazy("At least %(min_length)s items."),
    "string_too_long": lazy("At most %(max_length)s characters."),
    "string_too_short": lazy("Required."),
    "missing": lazy("Required."),
    "literal_error": lazy("Choose one of the options."),
}


def _forms() -> dict[str, CalculatorForm]:
    """The rule systems the page offers: registered with combat hooks and with a form."""
    offered: dict[str, CalculatorForm] = {}
    for system in service.combat_systems():
        spec = specs().get(system.id)
        if spec is not None and spec.form is not None:
            offered[system.id] = spec.form
    return offered


def _params(request: Request) -> list[tuple[str, str]]:
    """The query, bounded like the API's bodies (a clear 422 beyond the bounds). Also sets the
    request's locale for the messages built before rendering."""
    current_locale.set(getattr(request.state, "locale", "en"))
    if len(request.url.query) > MAX_QUERY_LENGTH:
        raise InvalidInput(_("The address is too long for the calculator."))
    params = list(request.query_params.multi_items())
    if len(params) > MAX_PARAMS or any(
        len(v) > (MAX_COMPARED_LENGTH if k == COMPARE_KEY else MAX_VALUE_LENGTH) for k, v in params
    ):
        raise InvalidInput(_("Too many or too long fields for the calculator."))
    return params


def _choose(params: list[tuple[str, str]]) -> tuple[str, CalculatorForm, dict[str, str]]:
    """The chosen system's id and form, and every offered system's tab label (a msgid)."""
    forms = _forms()
    if not forms:
        raise RuleSystemNotFound(_("No rule system offers combat yet."))
    wanted = dict(params).get("system") or next(iter(forms))
    form = forms.get(wanted)
    if form is None:
        raise RuleSystemNotFound(
            _("The calculator does not offer the rule system “%(id)s”.") % {"id": wanted}
        )
    return wanted, form, {sid: f.label for sid, f in forms.items()}


def _url(path: str, query: list[tuple[str, str]]) -> str:
    return f"{path}?{urlencode(query)}" if query else path


def _message(err: dict[str, Any], template: Message | None = None) -> str:
    if template is not None:  # the engine's message, in the reader's language
        try:
            return template.render(_)
        except (KeyError, TypeError, ValueError):
            pass
    msgid = _PYDANTIC_MESSAGES.get(str(err.get("type")))
    ctx = err.get("ctx") or {}
    if msgid:
        try:
            return _(msgid) % ctx
        except (KeyError, TypeError, ValueError):
            pass
    return str(err.get("message", ""))


def _add_errors(state: FormState, form: CalculatorForm, exc: InvalidCombatRequest) -> None:
    errors = exc.errors or []
    templates = exc.templates if len(exc.templates) == len(errors) else (None,) * len(errors)
    for err, template in zip(errors, templates, strict=True):
        path = [str(p) for p in err.get("loc", [])[1:]]
        state.add_error(form.field_for(path), _message(err, template))


def _validated(system_id: str, form: CalculatorForm, state: FormState) -> dict[str, Any] | None:
    if state.request is None or state.has_errors:
        return None
    try:
        return service.validate(system_id, state.request)
    except InvalidCombatRequest as exc:
        _add_errors(state, form, exc)
        return None


def _compared_queries(params: list[tuple[str, str]]) -> list[str]:
    """The pinned profiles of the query (``vs``), at most MAX_COMPARED, the newest last."""
    queries = [v for k, v in params if k == COMPARE_KEY and v.strip()]
    return queries[-MAX_COMPARED:]


def _pinned(
    params: list[tuple[str, str]], state: FormState, compared: list[str]
) -> list[str] | None:
    """The compared profiles after a pin or unpin asked by the query (None: no such edit)."""
    given = dict(params)
    if "pin" in given:
        return [*compared, urlencode(state.query)][-MAX_COMPARED:]
    unpin = parse_int(given.get("unpin", ""), 0, MAX_COMPARED - 1) if "unpin" in given else None
    if "unpin" in given:
        return [q for i, q in enumerate(compared) if i != unpin]
    return None


def _comparison(
    system_id: str,
    form: CalculatorForm,
    state: FormState,
    analysis: Any,
    compared: list[str],
    locale: str,
) -> Comparison | None:
    """The edited profile beside the pinned ones, on one chart; a pinned profile that cannot be
    computed is named in the page's general errors."""
    if not compared:
        return None
    profiles = []
    for i, query in enumerate(compared):
        pairs = parse_qsl(query, keep_blank_values=True)[:MAX_PARAMS]
        other = form.parse([(k, v) for k, v in pairs if k not in ("system", COMPARE_KEY)])
        payload = None if other.redirect is not None else _validated(system_id, form, other)
        if payload is None:
            state.add_error(None, _("Compared profile %(n)d cannot be read.") % {"n": i + 1})
            continue
        try:
            other_analysis = service.analyze(system_id, payload)
        except InvalidCombatRequest:
            state.add_error(None, _("Compared profile %(n)d cannot be computed.") % {"n": i + 1})
            continue
        label = form.describe(other) or _("Profile %(n)d") % {"n": i + 1}
        profiles.append((label, other_analysis))
    label = form.describe(state) or _("Profile %(n)d") % {"n": len(profiles) + 1}
    profiles.append((_("%(profile)s (editing)") % {"profile": label}, analysis))
    return comparison(profiles, locale)


def _page_context(
    request: Request, system_id: str, form: CalculatorForm, state: FormState, names: dict[str, str]
) -> dict[str, Any]:
    return {
        "system_id": system_id,
        "system_name": display_name(system_id),
        "systems": names,
        "form": form,
        "state": state,
        "query": state.query,
        "calculator_url": _url("/calculator", state.query),
        "roll_url": _url("/calculator/roll", state.query),
        "exact_url": _url("/calculator/exact", state.query),
        "htmx": is_htmx(request),
    }


# one-tap edits of the page that need the database: a saved profile or a unit put in place
EDIT_KEYS = ("use", "unit", "as", "mode", "weapon")


def _edit_key(key: str) -> bool:
    """A parameter of a one-tap edit (``pick.<i>``: a unit's weapon profile), not of the page."""
    return key in EDIT_KEYS or key.startswith("pick.")


SIDES = {"attacker": ProfileKind.ATTACKER, "target": ProfileKind.TARGET}


def _reused(
    db: DbSession, user: User | None, params: list[tuple[str, str]]
) -> list[tuple[str, str]] | None:
    """The query after ``use=<profile id>`` or ``unit=<ref>&as=attacker|target`` (None: no such
    edit). A profile or unit the user cannot reach is a 404."""
    given = dict(params)
    current = [(k, v) for k, v in params if not _edit_key(k) and k != COMPARE_KEY]
    if given.get("use"):
        profile_id = parse_int(given["use"], 1, 2**31 - 1)
        if user is None or profile_id is None:
            raise ProfileNotFound(_("There is no saved calculation of yours with this number."))
        return profiles.apply(profiles.get(db, user, profile_id), current)
    if given.get("unit"):
        side = SIDES.get(given.get("as", ""), ProfileKind.ATTACKER)
        options = {k: v for k, v in params if k in ("mode", "weapon") or k.startswith("pick.")}
        pairs = units.unit_pairs(db, user, given["unit"], side, options)
        return profiles.replace_part(side, pairs, current)
    return None


@router.get("/calculator")
def calculator(request: Request, user: OptionalUser, db: DbSession) -> HTMLResponse:
    params = _params(request)
    compared = _compared_queries(params)
    reused = _reused(db, user, params)
    if reused is not None:
        system_id, form, _names = _choose(reused)
        state = form.parse(reused)
        keep = compared if dict(reused).get("system") == dict(params).get("system") else []
        return htmx_redirect(
            request,
            _url("/calculator", [*state.query, *((COMPARE_KEY, q) for q in keep)]),
        )
    system_id, form, names = _choose(params)
    state = form.parse([(k, v) for k, v in params if k not in (COMPARE_KEY, "pin", "unpin")])
    pinned = _pinned(params, state, compared)
    if state.redirect is not None or pinned is not None:
        kept = compared if pinned is None else pinned
        query = state.query if state.redirect is None else state.redirect
        return htmx_redirect(
            request, _url("/calculator", [*query, *((COMPARE_KEY, q) for q in kept)])
        )
    locale = getattr(request.state, "locale", "en")
    view = None
    compare = None
    payload = _validated(system_id, form, state)
    if payload is not None:
        try:
            analysis = service.analyze(system_id, payload)
        except InvalidCombatRequest as exc:
            _add_errors(state, form, exc)
        else:
            view = analysis_view(
                analysis,
                locale,
                form.stage_labels,
                form.result_kind(state),
                form.result_notes(analysis.extra, state),
                group_names=form.group_names(state),
                values=lambda text: form.values(text, state),
            )
            compare = _comparison(system_id, form, state, analysis, compared, locale)
            if user is not None:
                profiles.record_recent(user, system_id, form.describe(state), state.query)
    context = _page_context(request, system_id, form, state, names)
    context.update(_kept_context(db, user, state.query))
    context["view"] = view
    context["compare"] = compare
    context["compared"] = compared
    context["can_pin"] = view is not None
    context["unpin_urls"] = [
        _url(
            "/calculator",
            [*state.query, ("unpin", str(i)), *((COMPARE_KEY, q) for q in compared)],
        )
        for i in range(len(compared))
    ]
    context["calculator_url"] = _url(
        "/calculator", [*state.query, *((COMPARE_KEY, q) for q in compared)]
    )
    return render(request, "combat/calculator.html", context, block="results")


@router.get("/calculator/exact")
def exact_values(request: Request) -> JSONResponse:
    """The calculation of ``/calculator?<same parameters>`` as the JSON API answers it: every
    probability as its whole exact fraction. The page shows readable values and keeps these
    fractions, thousands of digits each for a heavy attack, out of its markup (issue 18)."""
    params = _params(request)
    system_id, form, _names = _choose(params)
    state = form.parse([(k, v) for k, v in params if k not in (COMPARE_KEY, "pin", "unpin")])
    payload = _validated(system_id, form, state) if state.redirect is None else None
    if payload is None:
        errors: list[dict[str, Any]] = [
            {"field": k, "message": " ".join(v)} for k, v in state.errors.items()
        ]
        errors += [{"field": None, "message": m} for m in state.general]
        raise InvalidInput(
            _("Some fields need fixing: see the message under each one."), errors=errors
        )
    return FastJSONResponse(service.analysis_json(system_id, service.analyze(system_id, payload)))


@router.get("/calculator/roll")
def roll(request: Request, user: OptionalUser) -> HTMLResponse:
    params = _params(request)
    system_id, form, names = _choose(params)
    raw_seed = dict(params).get("seed", "").strip()
    state = form.parse([(k, v) for k, v in params if k != "seed"])
    if state.redirect is not None:
        return htmx_redirect(request, _url("/calculator/roll", state.redirect))
    if not raw_seed:
        return htmx_redirect(
            request, _url("/calculator/roll", [*state.query, ("seed", str(service.new_seed()))])
        )
    seed = parse_int(raw_seed, 0, MAX_SEED)
    if seed is None:
        state.add_error(
            "seed", _("The seed must be a whole number from 0 to %(max)d.") % {"max": MAX_SEED}
        )
    locale = getattr(request.state, "locale", "en")
    view = None
    payload = _validated(system_id, form, state)
    if payload is not None and seed is not None:
        try:
            resolution = service.resolve(system_id, payload, seed=seed)
        except InvalidCombatRequest as exc:
            _add_errors(state, form, exc)
        else:
            view = resolution_view(
                resolution,
                locale,
                form.stage_labels,
                words=lambda text: form.words(text, state),
                group_names=form.group_names(state),
                values=lambda text: form.values(text, state),
            )
    context = _page_context(request, system_id, form, state, names)
    context.update(
        {
            "view": view,
            "kind": form.result_kind(state),
            "seed": seed,
            "same_seed_url": _url("/calculator/roll", [*state.query, ("seed", str(seed))]),
            "new_roll_url": _url("/calculator/roll", state.query),
        }
    )
    return render(request, "combat/roll.html", context)


# -- saved profiles, recent matchups, units --------------------------------------------------


def _kept_context(db: DbSession, user: User | None, query: list[tuple[str, str]]) -> dict[str, Any]:
    """The user's saved profiles and recent matchups, each with the link that puts it in the
    current calculation (an attacker or a target replaces only that side)."""
    if user is None:
        return {"kept": None}

    def use_url(profile: CombatProfile) -> str:
        return _url("/calculator", [*query, ("use", str(profile.id))])

    return {
        "kept": {
            "saved": [(p, use_url(p)) for p in profiles.saved(db, user)],
            "recent": [(p, use_url(p)) for p in profiles.recent(db, user)],
            "query": urlencode(query),
            "kinds": PROFILE_KINDS,
            "full": profiles.count_saved(db, user) >= profiles.MAX_SAVED,
            "max_name": profiles.MAX_NAME,
        }
    }


PROFILE_KINDS = {
    ProfileKind.MATCHUP: lazy("the whole matchup"),
    ProfileKind.ATTACKER: lazy("the attacker"),
    ProfileKind.TARGET: lazy("the target"),
}


def _back(query: str) -> str:
    """The calculator again with ``query`` (only ever the calculator: no open redirect)."""
    pairs = parse_qsl(query[:MAX_QUERY_LENGTH], keep_blank_values=True)[:MAX_PARAMS]
    return _url("/calculator", pairs) + "#saved"


@router.post("/calculator/saved")
def save_profile(
    request: Request,
    user: WebUser,
    db: DbSession,
    name: Annotated[str, Form(max_length=200)] = "",
    kind: Annotated[str, Form(max_length=20)] = "matchup",
    query: Annotated[str, Form(max_length=MAX_QUERY_LENGTH)] = "",
) -> HTMLResponse:
    """Save the current attacker, target or matchup under a name (a form of the page)."""
    current_locale.set(getattr(request.state, "locale", "en"))
    profiles.save(db, user, kind, name, query)
    return htmx_redirect(request, _back(query))


@router.post("/calculator/saved/{profile_id}/delete")
def delete_profile(
    request: Request,
    user: WebUser,
    db: DbSession,
    profile_id: int,
    query: Annotated[str, Form(max_length=MAX_QUERY_LENGTH)] = "",
) -> HTMLResponse:
    current_locale.set(getattr(request.state, "locale", "en"))
    if not 1 <= profile_id <= 2**31 - 1:
        raise ProfileNotFound(_("There is no saved calculation of yours with this number."))
    profiles.delete_profile(db, user, profile_id)
    return htmx_redirect(request, _back(query))


@router.get("/calculator/units")
def pick_unit(request: Request, user: OptionalUser, db: DbSession) -> HTMLResponse:
    """Units of the user's lists and of the catalogues, each with the links that put it in the
    current calculation as the attacker or as the target."""
    params = _params(request)
    q = dict(params).get("q", "").strip()[:80]
    current = [(k, v) for k, v in params if k != "q" and not _edit_key(k)]

    def put(ref: str, side: str) -> str:
        return _url("/calculator", [*current, ("unit", ref), ("as", side)])

    context = {
        "armies": units.army_units(db, user) if user is not None else None,
        "sheets": units.catalogue_units(db, user, q) if q else [],
        "q": q,
        "current": [(k, v) for k, v in current if k != "system" or v],
        "put": put,
        "back_url": _url("/calculator", current),
    }
    return render(request, "combat/units.html", context)
