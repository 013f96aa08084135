"""The calculator page: a GET form per rule system, exact results, and one live roll.

``/calculator`` renders the page (or only its ``results`` block for htmx); ``/calculator/roll``
rolls the same attack once with a seed. Both read the same query parameters, parsed by the
rule system's :class:`~app.combat.forms.CalculatorForm`; nothing here knows a system by name.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse

from app.accounts.deps import OptionalUser, verify_csrf
from app.combat import service
from app.combat.exceptions import InvalidCombatRequest, RuleSystemNotFound
from app.combat.forms import CalculatorForm, FormState
from app.combat.present import analysis_view, resolution_view
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
    if len(params) > MAX_PARAMS or any(len(v) > MAX_VALUE_LENGTH for _k, v in params):
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
    state = form.parse(params)
    if state.redirect is not None:
        return htmx_redirect(request, _url("/calculator", state.redirect))
    locale = getattr(request.state, "locale", "en")
    view = None
    payload = _validated(system_id, form, state)
    if payload is not None:
        try:
            analysis = service.analyze(system_id, payload)
        except InvalidCombatRequest as exc:
            _add_errors(state, form, exc)
        else:
            view = analysis_view(analysis, locale, form.stage_labels)
    context = _page_context(request, system_id, form, state, names)
    context["view"] = view
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
            view = resolution_view(resolution, locale, form.stage_labels)
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
