"""Secrets stay secret: A's Battle Formations are in no response B can get before the reveal.

A declares (attached Leader, a unit embarked, a unit in Deep Strike); B has not declared yet.
Every response B can get (JSON API, pages and fragments, both event streams, the export, the
refusals) is scanned for A's declared values. Then B declares, the formations are revealed,
and the same scan finds them: the scan would have caught a leak.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.matches.conftest import Game
from tests.support.web import csrf, html, login

SECRET = {
    "attachments": [["a1", "a2"]],
    "embarked": [["a7", "a6"]],
    "reserves": [["a3", "deep_strike"]],
}
# the declared pairs, as any JSON rendering would spell them
PATTERNS = [
    re.compile(r'"a1"\s*,\s*"a2"'),
    re.compile(r'"a7"\s*,\s*"a6"'),
    re.compile(r'"a3"\s*,\s*"deep_strike"'),
    re.compile(r"formation_declared"),
    re.compile(r"my_formation"),
]
HTML_PATTERNS = [
    re.compile(r"embarked in", re.IGNORECASE),
    re.compile(r"led by|leads ", re.IGNORECASE),
    re.compile(r"Deep Strike</span>"),
    re.compile(r"in Reserves</span>"),
]


def _to_formations(g: Game) -> None:
    g.a.send({"type": "roll_off"}, dice=[6, 1])
    for i in range(4):
        (g.a if i % 2 == 0 else g.b).send({"type": "place_objective"})
    g.a.send({"type": "roll_off"}, dice=[6, 1])
    assert g.a.view()["stage"] == "declare_formations"


def b_responses(g: Game, web: TestClient) -> dict[str, str]:
    """Every response B can get, by name."""
    api, base = g.b.client, g.b.base
    version = g.b.get()["version"]
    out: dict[str, str] = {}

    def get(name: str, client: TestClient, path: str, **kw: Any) -> None:
        r = client.get(path, **kw)
        assert r.status_code < 500, (name, r.text)
        out[name] = r.text

    def post(name: str, client: TestClient, path: str, **kw: Any) -> None:
        r = client.post(path, **kw)
        assert r.status_code < 500, (name, r.text)
        out[name] = r.text

    get("api match", api, base)
    get("api list", api, "/api/v1/matches")
    get("api actions", api, base + "/actions")
    get("api log", api, base + "/log")
    get("api log since", api, base + "/log?since=5")
    get("api audit", api, base + "/audit")
    get("api export", api, base + "/export")
    get("api events", api, base + "/events?timeout=0")
    get("api events resumed", api, base + "/events?timeout=0", headers={"Last-Event-ID": "3"})
    for unit in ("a1", "a2", "a3", "a6", "a7"):
        post(
            f"api refused {unit}",
            api,
            base + "/commands",
            json={"expected_version": version, "command": {"type": "deploy_unit", "unit": unit}},
        )
        post(
            f"api preview {unit}",
            api,
            base + "/combat/preview",
            json={
                "attacker": "b2",
                "target": unit,
                "weapons": [{"weapon": "Slugga", "models": 10}],
            },
        )
    post(
        "api stale",
        api,
        base + "/commands",
        json={"expected_version": version - 1, "command": {"type": "pass"}},
    )
    page = f"/matches/{g.match_id}"
    get("page", web, page)
    get("page fragment", web, page, headers={"HX-Request": "true"})
    get("page refresh", web, page + "?known=0", headers={"HX-Request": "true"})
    get("page list", web, "/matches")
    get("page export", web, page + "/export", headers={"Accept": "text/html"})
    get("page events", web, page + "/events?timeout=0")
    token = csrf(web, page)
    post(
        "page act refused",
        web,
        page + "/act",
        data={
            "csrf_token": token,
            "version": str(version),
            "command": '{"type":"deploy_unit","unit":"a7"}',
        },
        headers={"HX-Request": "true"},
    )
    post(
        "page act stale",
        web,
        page + "/act",
        data={"csrf_token": token, "version": "1", "command": '{"type":"pass"}'},
    )
    post(
        "page combat",
        web,
        page + "/combat",
        data={
            "csrf_token": token,
            "attacker": "b2",
            "target": "a3",
            "do": "preview",
            "weapon": "b2|Slugga",
            "models|b2|Slugga": "10",
        },
        headers={"HX-Request": "true"},
    )
    return out


def leaks(responses: dict[str, str]) -> list[tuple[str, str]]:
    found = []
    for name, text in responses.items():
        for pattern in PATTERNS:
            if pattern.search(text):
                found.append((name, pattern.pattern))
        if name.startswith("page"):
            cards = html_cards(text)
            for pattern in HTML_PATTERNS:
                if pattern.search(cards):
                    found.append((name, pattern.pattern))
    return found


def html_cards(text: str) -> str:
    """The HTML of A's unit cards and of the timeline in a page (or the whole text)."""
    if "<" not in text:
        return text
    page = html_doc(text)
    parts = [n.html or "" for n in page.css("#units-A li, #timeline li")]
    return "\n".join(parts) if parts else text


def html_doc(text: str) -> Any:
    class R:
        pass

    r = R()
    r.text = text  # type: ignore[attr-defined]
    return html(r)


def test_battle_formations_leak_nowhere_before_the_reveal(
    new_game: Callable[..., Game], app: Any
) -> None:
    g = new_game()
    _to_formations(g)
    web = TestClient(app, base_url="http://testserver")
    assert login(web, "bob@example.com").status_code == 303
    before_view = g.b.view()
    before_log = g.b.client.get(g.b.base + "/log").json()["entries"]

    a_view = g.a.send({"type": "declare_formations", "formation": SECRET})["view"]
    assert a_view["my_formation"]["embarked"] == [["a7", "a6"]]  # A sees its own declaration

    responses = b_responses(g, web)
    assert leaks(responses) == []
    assert '"refusal":"stale_version"' in responses["api stale"]
    assert "export-not-yet" in responses["api export"]

    # B's view moved by exactly one public fact: A has submitted
    after_view = g.b.view()
    assert after_view.pop("version") > before_view.pop("version")
    before_view["players"]["A"]["formation_submitted"] = True
    assert after_view == before_view
    after_log = g.b.client.get(g.b.base + "/log").json()["entries"]
    new = after_log[len(before_log) :]
    assert after_log[: len(before_log)] == before_log
    assert [e["event"] for e in new] == [{"type": "formation_submitted", "seat": "A"}]
    assert all(u["location"] == "undeclared" for u in after_view["units"])

    # the reveal: B declares, and now the same scan finds A's formation everywhere
    g.b.send({"type": "declare_formations", "formation": {}})
    revealed = b_responses(g, web)
    assert ("api match", PATTERNS[1].pattern) in leaks(revealed)
    assert ("page", HTML_PATTERNS[0].pattern) in leaks(revealed)
