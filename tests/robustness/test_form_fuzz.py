"""Every HTML form of the pages, fuzzed as a clumsy user and an attacker would fill it: no answer
is a server error.

The logged-in player of :func:`world` visits every page the web routes offer (ids filled in
with what the player owns) and keeps each ``<form>`` once: its action, its method and its
fields with the values the page put in them. A form is then sent untouched twice in a row (a
double submit), and with hypothesis-drawn edits: fields dropped, repeated, or replaced with
hostile text (:data:`HOSTILE_TEXT`, numbers past 64 bits, random unicode), an unknown field,
with and without ``HX-Request``. The CSRF token stays right, so the requests reach the handlers.
Forms that delete or leave (``/delete``, ``/remove``, ``/revoke``, ``/logout``) are left out,
so that the world stays for the others.

Deterministic (``derandomize``) and bounded: ``FORM_EXAMPLES`` requests per form (default 4);
every failing request is reported at the end.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from fastapi import FastAPI
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from app import features
from tests.robustness.conftest import HOSTILE_TEXT, World
from tests.support.web import html

EXAMPLES = int(os.environ.get("FORM_EXAMPLES", "4"))
LEAVING = ("/delete", "/remove", "/revoke", "/logout", "/disable", "/cancel", "/withdraw")
STREAMS = ("/events",)
# path parameters the web routes name differently from the API's
ALIASES = {"member_id": "user_id", "doc": "_doc", "index": "_index", "name": "_name"}
EXTRA_IDS: dict[str, list[Any]] = {"_doc": ["forces"], "_index": [0], "_name": ["attack"]}

hostile = (
    st.sampled_from(HOSTILE_TEXT) | st.text(max_size=20) | st.integers(-(10**20), 10**20).map(str)
)


@dataclass(frozen=True)
class Form:
    method: str
    action: str
    fields: tuple[tuple[str, str], ...]


def _page_paths(ids: dict[str, list[Any]]) -> list[str]:
    paths = []
    for router in features.web_routers():
        for route in router.routes:
            if "GET" not in (getattr(route, "methods", None) or ()):
                continue
            path = (router.prefix or "") + route.path  # type: ignore[attr-defined]
            if path.endswith(STREAMS):
                continue
            for name in re.findall(r"{([^}:]+)(?::[^}]*)?}", path):
                values = ids.get(ALIASES.get(name, name)) or EXTRA_IDS.get(ALIASES.get(name, name))
                path = re.sub(r"{" + name + r"(?::[^}]*)?}", str((values or [1])[0]), path)
            paths.append(path)
    return paths


def _fields(form: Any) -> tuple[tuple[str, str], ...]:
    fields = []
    for el in form.css("input, select, textarea, button"):
        name = el.attributes.get("name")
        kind = el.attributes.get("type") or ""
        if not name:
            continue
        if el.tag == "select":
            option = el.css_first("option[selected]") or el.css_first("option")
            value = (option.attributes.get("value") if option else "") or ""
        elif el.tag == "textarea":
            value = el.text() or ""
        elif kind in ("checkbox", "radio") and "checked" not in el.attributes:
            continue
        else:
            value = el.attributes.get("value") or ""
        fields.append((name, value))
    return tuple(fields)


def collect_forms(world: World) -> tuple[list[Form], list[str]]:
    """The forms of every page, once each (by action shape and field names); the pages that
    answered a server error."""
    forms: dict[str, Form] = {}
    broken = []
    for path in _page_paths(world.ids):
        page = world.browser.get(path, follow_redirects=False)
        if page.status_code >= 500:
            broken.append(f"GET {path} -> {page.status_code}")
        if "text/html" not in page.headers.get("content-type", ""):
            continue
        for node in html(page).css("form"):
            method = (node.attributes.get("method") or "get").upper()
            action = (node.attributes.get("action") or path).split("#")[0]
            if method == "GET":
                action = action.split("?")[0]
            if action.endswith(LEAVING) or not action.startswith("/"):
                continue
            fields = _fields(node)
            key = f"{method} {re.sub(r'[0-9]+', 'N', action)} {sorted({n for n, _ in fields})}"
            forms.setdefault(key, Form(method, action, fields))
    return list(forms.values()), broken


def _send(world: World, form: Form, body: list[tuple[str, str]], htmx: bool) -> int:
    headers = {"HX-Request": "true"} if htmx else {}
    if form.method == "GET":
        query = urlencode(body)
        return world.browser.get(f"{form.action}?{query}", headers=headers).status_code
    headers["content-type"] = "application/x-www-form-urlencoded"
    response = world.browser.post(
        form.action, content=urlencode(body).encode(), headers=headers, follow_redirects=False
    )
    return response.status_code


def fuzz_form(world: World, form: Form, failures: list[str]) -> None:
    if form.method == "POST":
        for _ in range(2):  # the untouched form, sent twice (a double tap on a phone)
            status = _send(world, form, list(form.fields), htmx=False)
            if status >= 500:
                failures.append(f"POST {form.action} untouched -> {status}")

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def run(data: Any) -> None:
        body: list[tuple[str, str]] = []
        for name, value in form.fields:
            how = "keep" if name == "csrf_token" else data.draw(st.sampled_from(_EDITS))
            if how in ("keep", "repeat"):
                body.append((name, value))
            if how in ("hostile", "repeat"):
                body.append((name, data.draw(hostile)))
        if data.draw(st.booleans()):
            body.append((data.draw(st.sampled_from(_UNKNOWN)), data.draw(hostile)))
        htmx = data.draw(st.booleans())
        status = _send(world, form, body, htmx)
        if status >= 500:
            failures.append(f"{form.method} {form.action} {body!r:.600} htmx={htmx} -> {status}")

    run()


_EDITS = ("keep", "keep", "drop", "hostile", "hostile", "repeat")
_UNKNOWN = ("zzz", "version", "units-0-count", "w0.attacks", "count", "seat")


def test_every_form_takes_hostile_input_without_a_server_error(app: FastAPI, world: World) -> None:
    forms, failures = collect_forms(world)
    assert len(forms) >= 40, [f.action for f in forms]  # the pages were reached, logged in
    for form in forms:
        fuzz_form(world, form, failures)
    assert not failures, "\n".join(dict.fromkeys(failures))
