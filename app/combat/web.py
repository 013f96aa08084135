"""The calculator page: a GET form per rule system, exact results, and one live roll.

``/calculator`` renders the page (or only its ``results`` block for htmx); ``/calculator/roll``
rolls the same attack once with a seed. Both read the same query parameters, parsed by the
rule system's :class:`~app.combat.forms.CalculatorForm`; nothing here knows a system by name.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from app.accounts.deps import OptionalUser, verify_csrf
from app.combat import service
from app.combat.exceptions import InvalidCombatRequest, RuleSystemNotFound
from app.combat.forms import CalculatorForm, FormState
from app.combat.present import Comparison, analysis_view, comparison, resolution_view
from app.combat.rulesets import specs
from app.combat.schemas import MAX_SEED
from app.core.errors import InvalidInput
from app.core.i18n import current_locale, lazy
from app.core.i18n import gettext as _
from app.core.ids import parse_int
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


def _message(err: dict[str, Any]) -> str:
    msgid = _PYDANTIC_MESSAGES.get(str(err.get("type")))
    ctx = err.get("ctx") or {}
    if msgid:
        try:
            return _(msgid) % ctx
        except (KeyError, TypeError, ValueError):
            pass
    return str(err.get("message", ""))


def _add_errors(state: FormState, form: CalculatorForm, exc: InvalidCombatRequest) -> None:
    for err in exc.errors or []:
        path = [str(p) for p in err.get("loc", [])[1:]]
        state.add_error(form.field_for(path), _message(err))


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
        "system_name": service.combat_system(system_id).name,
        "systems": names,
        "form": form,
        "state": state,
        "query": state.query,
        "calculator_url": _url("/calculator", state.query),
        "roll_url": _url("/calculator/roll", state.query),
        "htmx": is_htmx(request),
    }


@router.get("/calculator")
def calculator(request: Request, user: OptionalUser) -> HTMLResponse:
    params = _params(request)
    system_id, form, names = _choose(params)
    compared = _compared_queries(params)
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
            view = analysis_view(analysis, locale, form.stage_labels)
            compare = _comparison(system_id, form, state, analysis, compared, locale)
    context = _page_context(request, system_id, form, state, names)
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
            )
    context = _page_context(request, system_id, form, state, names)
    context.update(
        {
            "view": view,
            "seed": seed,
            "same_seed_url": _url("/calculator/roll", [*state.query, ("seed", str(seed))]),
            "new_roll_url": _url("/calculator/roll", state.query),
        }
    )
    return render(request, "combat/roll.html", context)
