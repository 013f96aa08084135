"""Every page in French: no English message left on it.

The pages are found by walking the app's HTML GET routes, so a new page must be added here (the
test fails on a route it cannot fill). Each page is rendered for a French user who owns an army
list, plays a match, runs a club and plays in its league, and its visible text (with the
``title``, ``placeholder``, ``aria-label`` and ``alt`` a reader meets) is searched for every
English message id whose French translation differs from it: one found is a message that escaped
gettext (or a translation that was lost).

Two kinds of text are not the page's own words and are not searched: catalogue data (datasheet,
ability, wargear and keyword names, English proper names by design), which the templates mark
``translate="no"``, and documents that exist only in English, which they mark ``lang="en"``
(a rulings page not translated yet, with a notice in French). Every rulings page is translated
today (docs/rulings/fr/), and the test asserts it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from babel.messages.pofile import read_po
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from selectolax.lexbor import LexborHTMLParser

from app import features
from app.core.config import ROOT
from app.web.context import LANG_COOKIE
from tests.combat.test_french_calculator import poison
from tests.matches.conftest import FakeArmies, marines, orks
from tests.support.web import csrf, html, register

NOT_PAGES = {
    "/healthz": "JSON health check",
    "/calculator/exact": "the calculator's exact fractions as JSON (the API's answer)",
    "/matches/{match_id}/events": "server-sent events stream of the match page",
    "/matches/{match_id}/export": "the match log as a JSON download",
}
READ_ATTRIBUTES = ("title", "placeholder", "aria-label", "alt")
_PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sd]|%%|\{[a-z_]+\}")
NOT_SEARCHED = '[translate="no"], [lang="en"], code'  # data, English documents, identifiers


def _english_ids() -> set[str]:
    """English message ids whose French differs (a French page must not show them)."""
    found: set[str] = set()
    for path in sorted((ROOT / "translations" / "fr" / "LC_MESSAGES").glob("*.po")):
        with Path(path).open("rb") as fp:
            for m in read_po(fp, locale="fr"):
                ids = [m.id] if isinstance(m.id, str) else list(m.id)
                strings = [m.string] if isinstance(m.string, str) else list(m.string)
                found.update(e for e in ids if e and all(s and s != e for s in strings))
    return found


def _wildcard(placeholder: str) -> str:
    """What a placeholder stands for on a page: a number for ``%(n)d``, a short text else."""
    if placeholder == "%%":
        return "%"
    if placeholder.endswith("d"):
        return r"-?\d[\d,.\u202f\xa0]*"
    return r"[^\n]{1,80}?"


def _matchers(ids: set[str]) -> list[tuple[str, str, re.Pattern[str], bool]]:
    """(message id, its longest literal piece, pattern, whole text?) for each id worth searching.

    A message of fewer than three words is a leak only as a whole text (a heading, a button, a
    table header: "Save", "W"); a longer one as a whole message anywhere in a text, between word
    boundaries ("%(num)d unit" is not found in "3 units"). Placeholders are wildcards."""
    out = []
    for english in ids:
        literal = _PLACEHOLDER.sub(" ", english)
        words = re.findall(r"[A-Za-z]{2,}", literal)
        if not words or (_PLACEHOLDER.search(english) and len(" ".join(words)) < 4):
            continue  # "%(a)s : %(b)s", "(%(n)s)", "%(items)s and %(last)s": too little to see
        pieces = [re.escape(re.sub(r"\s+", " ", p)) for p in _PLACEHOLDER.split(english)]
        wildcards = [_wildcard(p) for p in _PLACEHOLDER.findall(english)]
        body = pieces[0] + "".join(w + p for w, p in zip(wildcards, pieces[1:], strict=True))
        whole = len(words) < 3
        key = max(_PLACEHOLDER.split(english), key=len).strip()
        bounded = rf"(?<![A-Za-z0-9]){body}(?![A-Za-z0-9])"
        out.append((english, key, re.compile(rf"^{body}$" if whole else bounded), whole))
    return out


def _texts(tree: LexborHTMLParser) -> list[str]:
    # a textarea holds what a user typed, except a list's text export: our own labels, each
    # line a text (the 10th edition's, English by design, is marked lang="en": ruling D26)
    for node in tree.css("script, style, template, textarea:not(.export-text)"):
        node.decompose()
    for node in tree.css(NOT_SEARCHED):
        node.decompose()
    root = tree.body
    texts: list[str] = []
    for node in tree.css("textarea.export-text"):
        for line in (node.text() or "").splitlines():
            value = " ".join(line.strip().lstrip("\u2022").split())
            if value:
                texts.append(value)
        node.decompose()
    if tree.css_first("title") is not None:
        texts.append(tree.css_first("title").text(strip=True))  # type: ignore[union-attr]
    if root is None:
        return texts
    for node in root.traverse(include_text=True):
        if node.tag == "-text":
            value = " ".join((node.text_content or "").split())
            if value:
                texts.append(value)
        for name in READ_ATTRIBUTES:
            value = (node.attributes or {}).get(name)
            if value:
                texts.append(" ".join(value.split()))
        if node.tag in ("button", "input") and node.attributes.get("type") in ("submit", "button"):
            value = node.attributes.get("value")
            if value and node.tag == "input":
                texts.append(value)
    for element in root.css("p, li, td, th, h1, h2, h3, h4, label, button, a, dd, dt, legend"):
        value = " ".join(element.text(deep=True).split())
        if value:
            texts.append(value)
    return texts


def leaks(page: str, matchers: list[tuple[str, str, re.Pattern[str], bool]]) -> list[str]:
    texts = _texts(LexborHTMLParser(page))
    joined = "\n".join(texts)
    found = []
    for english, key, pattern, whole in matchers:
        if key not in joined:
            continue
        if whole:
            if any(pattern.match(t) for t in texts):
                found.append(english)
        elif pattern.search(joined):
            found.append(english)
    return sorted(found)


def test_the_leak_finder_sees_an_english_message_and_not_its_french() -> None:
    matchers = _matchers({"Save", "%(num)d player", "Track a battle on two phones: turns"})
    page = (
        "<html><body><p>Sauver</p><button>Save</button>"
        "<p>Track a battle on two phones: turns</p></body></html>"
    )
    assert leaks(page, matchers) == ["Save", "Track a battle on two phones: turns"]
    assert leaks("<body><p>Enregistrer · Saves</p></body>", matchers) == []


def test_the_leak_finder_matches_whole_messages_with_placeholders_as_wildcards() -> None:
    matchers = _matchers({"%(num)d unit", "%(weapons)s against %(target)s on the table"})
    assert leaks("<body><p>3 unit</p></body>", matchers) == ["%(num)d unit"]
    # a longer word, or no number where the placeholder stands, is not the message
    assert leaks("<body><p>3 units</p><p>a unit</p></body>", matchers) == []
    page = "<body><p>Bolters against Orks on the table.</p><p>against the tablecloth</p></body>"
    assert leaks(page, matchers) == ["%(weapons)s against %(target)s on the table"]
    assert leaks("<body><p>Bolters against Orks on the tables</p></body>", matchers) == []


def test_the_leak_finder_reads_a_list_export_line_by_line_but_no_user_text() -> None:
    matchers = _matchers({"Troops", "%(num)d model", "Save"})
    page = (
        '<body><textarea class="export-text">Tactiques (150 pts)\n\n  \u2022 10 models\n'
        "  \u2022 Troops</textarea><textarea>Save</textarea>"
        '<textarea class="export-text" lang="en">Save</textarea></body>'
    )
    assert leaks(page, matchers) == ["Troops"]
    assert leaks(page.replace("10 models", "1 model"), matchers) == ["%(num)d model", "Troops"]


def test_the_leak_finder_skips_catalogue_data_and_english_documents_only() -> None:
    matchers = _matchers({"Character", "Feel No Pain", "Save"})
    page = (
        '<html lang="fr"><body><p><span translate="no">Character</span></p>'
        '<dd translate="no">Feel No Pain</dd><article lang="en"><p>Save</p></article>'
        "<button>Save</button></body></html>"
    )
    assert leaks(page, matchers) == ["Save"]


# --------------------------------------------------------------------------- the world


def _browser(app: Any, name: str, language: str) -> TestClient:
    client = TestClient(app, base_url="http://testserver")
    register(client, email=f"{name.lower()}@example.com", name=name, language=language)
    client.user_id = int(client.get("/api/v1/me").json()["id"])  # type: ignore[attr-defined]
    client.user_name = name  # type: ignore[attr-defined]
    client.headers["X-CSRF-Token"] = csrf(client, "/")
    return client


@pytest.fixture
def world(app: Any, db: Any, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A French user (Amélie) with an army list, a PEN list, a match, a club and a league."""
    from app.catalog import service as catalogs
    from app.catalog.starter import load
    from app.leagues import service as leagues
    from tests.leagues.conftest import FakeArmies as LeagueArmies

    load(db)
    db.commit()
    amelie = _browser(app, "Amelie", "fr")
    bruno = _browser(app, "Bruno", "en")
    token = amelie.headers["X-CSRF-Token"]
    ids: dict[str, Any] = {"catalog": "starter-wh40k10e"}

    # an army list with a unit, shared; a PEN list with a unit
    r = amelie.post(
        "/armies",
        data={
            "csrf_token": token,
            "rule_system": "wh40k-10e",
            "name": "Liste d'essai",
            "catalog": "starter-wh40k10e",
            "faction": "Adeptus Astartes",
            "detachment": "Gladius Task Force",
            "battle_size": "incursion",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    ids["army_id"] = int(r.headers["location"].rsplit("/", 1)[1])
    shared = html(amelie.post(f"/armies/{ids['army_id']}/share", data={"csrf_token": token}))
    ids["token"] = str(shared.css_first("#share-link").attributes["href"]).rsplit("/", 1)[1]  # type: ignore[union-attr]
    r = amelie.post(
        "/armies",
        data={"csrf_token": token, "rule_system": "pen", "name": "Compagnie"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    ids["pen_id"] = int(r.headers["location"].rsplit("/", 1)[1])
    unit = {
        "csrf_token": token,
        "name": "Tactiques",
        "points": "150",
        "models": "10",
        "kind": "unit",
        "unit_type": "infantry",
        **dict.fromkeys(("ws", "bs", "strength", "toughness", "initiative"), "4"),
        "wounds": "1",
        "attacks": "1",
        "leadership": "8",
        "save": "3+",
    }
    r = amelie.post(f"/armies/{ids['pen_id']}/units", data=unit, follow_redirects=False)
    assert r.status_code == 303, r.text
    # a transport: its vehicle types and the unit types it carries are shown (issue 18)
    r = amelie.post(
        f"/armies/{ids['pen_id']}/units",
        data={"csrf_token": token, **PEN_TRANSPORT},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text

    # a match against Bruno, and one with a guest seat
    fake = FakeArmies(catalogs.starter(db).id)
    monkeypatch.setattr("app.matches.armies.fetch_ready_list", fake.snapshot)
    r = amelie.post(
        "/matches",
        data={
            "army_id": fake.ready(amelie, marines()),
            "battle_size": "strike_force",
            "mission": "only-war",
            "opponent": "user",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    ids["match_id"] = int(r.headers["location"].rsplit("/", 1)[1])
    ids["code"] = html(amelie.get(f"/matches/{ids['match_id']}")).css_first("#invite-code").text()  # type: ignore[union-attr]
    r = amelie.post(
        "/matches",
        data={"army_id": fake.ready(amelie, orks()), "opponent": "guest"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    guest_match = r.headers["location"]
    link = html(amelie.get(guest_match)).css_first("#guest-link")
    ids["guest"] = str(link.attributes["href"]).rsplit("/", 1)[1]  # type: ignore[union-attr]
    r = bruno.post(
        "/matches",
        data={"army_id": fake.ready(bruno, orks()), "opponent": "user"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    open_match = r.headers["location"]
    ids["open_code"] = html(bruno.get(open_match)).css_first("#invite-code").text()  # type: ignore[union-attr]
    r = bruno.post(
        "/matches/join",
        data={"code": ids["code"], "army_id": fake.ready(bruno, orks())},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text

    # a club run by Amélie, Bruno a member; a round-robin league of two, round 1 generated
    r = amelie.post("/api/v1/clubs", json={"name": "Les Dés Rouges"})
    assert r.status_code == 201, r.text
    ids["club_id"] = int(r.json()["id"])
    r = amelie.post(f"/api/v1/clubs/{ids['club_id']}/invites", json={})
    ids["club_code"] = r.json()["code"]
    assert bruno.post("/api/v1/clubs/join", json={"code": ids["club_code"]}).status_code == 200
    ids["club_code"] = amelie.post(f"/api/v1/clubs/{ids['club_id']}/invites", json={}).json()[
        "code"
    ]
    league_armies = LeagueArmies()
    monkeypatch.setattr(leagues, "ready_snapshot", league_armies.snapshot)
    monkeypatch.setattr(leagues, "ready_armies", league_armies.ready_lists)
    body = {
        "club_id": ids["club_id"],
        "name": "Ligue d'automne",
        "rule_system": "wh40k-10e",
        "format": "round_robin",
    }
    r = amelie.post("/api/v1/leagues", json=body)
    assert r.status_code == 201, r.text
    ids["league_id"] = league_id = int(r.json()["id"])
    for player in (amelie, bruno):
        army = league_armies.ready(player)
        r = player.post(f"/api/v1/leagues/{league_id}/registrations", json={"army_id": army})
        assert r.status_code == 201, r.text
        ids["registration_id"] = int(r.json()["registration_id"])
    games = amelie.get(f"/api/v1/leagues/{league_id}/games").json()
    if not games:
        r = amelie.post(f"/api/v1/leagues/{league_id}/rounds", json={})
        assert r.status_code in (200, 201), r.text
        games = amelie.get(f"/api/v1/leagues/{league_id}/games").json()
    ids["game_id"] = int(games[0]["id"])

    # a Black Reach content set copied from the sample, shared
    r = amelie.post(
        "/black-reach/content/sample/copy", data={"csrf_token": token}, follow_redirects=False
    )
    ids["content_id"] = int(r.headers["location"].rsplit("/", 1)[1])
    amelie.post(f"/black-reach/content/{ids['content_id']}/share", data={"csrf_token": token})
    link = html(amelie.get(f"/black-reach/content/{ids['content_id']}")).css_first("#share-link")
    assert link is not None
    ids["content_token"] = str(link.attributes["href"]).rsplit("/", 1)[1]

    # a Black Reach match played hot seat (both seats on Amélie's device), its board shown at
    # the deployment (round 0: the list of matches shows no round)
    r = amelie.post(
        "/matches",
        data={"csrf_token": token, "ruleset": "black-reach", "option.hot_seat": "1"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    ids["black_reach"] = int(r.headers["location"].rsplit("/", 1)[1])
    r = amelie.post(
        f"/matches/{ids['black_reach']}/hot-seat", data={"csrf_token": token, "name": "Bruno"}
    )
    assert r.status_code == 200, r.text

    # the match's spectator link: both players agree (ruling S19)
    r = bruno.put(f"/api/v1/matches/{ids['match_id']}/spectators")
    assert r.status_code == 200, r.text
    r = amelie.put(f"/api/v1/matches/{ids['match_id']}/spectators")
    assert r.status_code == 200, r.text
    ids["spectate"] = str(r.json()["page_url"]).rsplit("/", 1)[1]
    return {"amelie": amelie, "ids": ids}


def _urls(ids: dict[str, Any]) -> dict[str, list[str]]:
    """Each page route -> the French pages to look at (a route with no entry fails the test)."""
    from app.web.rulings import pages

    systems = ["wh40k-10e", "pen"]  # the systems the calculator offers
    return {
        "/": ["/"],
        "/rulings": ["/rulings"],
        "/rulings/{name}": [f"/rulings/{p.name}" for p in pages()],
        "/register": [],  # a logged-in user is sent home: seen by the visitor below
        "/login": [],
        "/account": ["/account"],
        "/calculator": [f"/calculator?system={s}" for s in systems] + CALCULATOR_STATES,
        "/calculator/roll": [f"/calculator/roll?system={s}" for s in systems] + ROLL_STATES,
        "/calculator/units": ["/calculator/units", "/calculator/units?q=Captain"],
        "/catalogs": ["/catalogs"],
        "/catalogs/import": ["/catalogs/import"],
        "/catalogs/{catalog}": [f"/catalogs/{ids['catalog']}"],
        "/armies": ["/armies"],
        "/armies/new": ["/armies/new"],
        "/armies/import": ["/armies/import"],
        "/armies/shared/{token}": [f"/armies/shared/{ids['token']}"],
        "/armies/{army_id}": [f"/armies/{ids['army_id']}", f"/armies/{ids['pen_id']}"],
        "/armies/{army_id}/units/new": [f"/armies/{ids['pen_id']}/units/new"],
        "/armies/{army_id}/units/{index}": [
            f"/armies/{ids['pen_id']}/units/0",
            f"/armies/{ids['pen_id']}/units/1",
        ],
        "/matches": ["/matches", "/matches?ruleset=black-reach"],
        "/matches/join/{code}": [f"/matches/join/{ids['open_code']}"],
        "/matches/guest/{token}": [],  # a seat for someone else: seen by the visitor below
        "/matches/{match_id}": [f"/matches/{ids['match_id']}", f"/matches/{ids['black_reach']}"],
        "/clubs": ["/clubs"],
        "/clubs/{club_id}": [f"/clubs/{ids['club_id']}"],
        "/clubs/join/{code}": [f"/clubs/join/{ids['club_code']}"],
        "/leagues": ["/leagues"],
        "/leagues/{league_id}": [f"/leagues/{ids['league_id']}"],
        "/clubs/{club_id}/leagues/new": [f"/clubs/{ids['club_id']}/leagues/new"],
        "/leagues/{league_id}/edit": [f"/leagues/{ids['league_id']}/edit"],
        "/leagues/{league_id}/players/{registration_id}": [
            f"/leagues/{ids['league_id']}/players/{ids['registration_id']}"
        ],
        "/leagues/{league_id}/games/{game_id}": [
            f"/leagues/{ids['league_id']}/games/{ids['game_id']}"
        ],
        "/black-reach/content": ["/black-reach/content"],
        "/black-reach/content/sample": ["/black-reach/content/sample"],
        "/black-reach/content/shared/{token}": [
            f"/black-reach/content/shared/{ids['content_token']}"
        ],
        "/black-reach/content/{set_id}": [f"/black-reach/content/{ids['content_id']}"],
        "/spectate/{token}": [f"/spectate/{ids['spectate']}"],
    }


# beyond the default states: the states whose words come from the engines (issue 18): a PEN
# vehicle, a melee and the saves table; rolls with dice of both systems; a comparison
_BOLTERS = [
    ("w0.models", "10"),
    ("w0.name", "Bolt rifle"),
    ("w0.attacks", "2"),
    ("w0.skill", "3+"),
    ("w0.strength", "4"),
    ("w0.ap", "-1"),
    ("w0.damage", "1"),
    ("w0.abilities", "Lethal Hits, Sustained Hits 1, Devastating Wounds"),
    ("t.models", "5"),
    ("t.toughness", "4"),
    ("t.save", "3+"),
    ("t.wounds", "2"),
    ("t.feel_no_pain", "5+"),
]
_PEN_STATES = [
    {"t.kind": "vehicle", "v.front": "10", "w.strength": "8"},
    {"t.kind": "vehicle", "v.front": "12", "v.types": "tank, fast, transport", "w.strength": "8"},
    {"w.kind": "melee", "w.type": "melee", "t.attacks": "2", "t.strength": "4"},
    {"w.properties": "Perforant", "t.wounds": "2", "t.cover_save": "5+", "t.feel_no_pain": "on"},
]
# names the PEN engine does not know: each refused in the reader's language
_PEN_TYPOS = [
    {"w.properties": "Perfornat, Perforant 4+"},
    {"t.unit_type": "infantri"},
    {"t.kind": "vehicle", "v.front": "10", "v.types": "tonk"},
    {"w.kind": "melee", "w.type": "Gantelet energetik"},
]
CALCULATOR_STATES = [
    "/calculator?" + urlencode({"system": "pen", **state}) for state in _PEN_STATES + _PEN_TYPOS
] + [
    "/calculator?"
    + urlencode(
        [("system", "wh40k-10e"), *_BOLTERS, ("vs", urlencode({**dict(_BOLTERS), "w0.ap": "-2"}))]
    )
]
ROLL_STATES = [
    "/calculator/roll?" + urlencode({"system": "pen", **state, "seed": str(seed)})
    for state in _PEN_STATES
    for seed in (1, 2)
] + [
    "/calculator/roll?" + urlencode([("system", "wh40k-10e"), *_BOLTERS, ("seed", str(seed))])
    for seed in (1, 2)
]


def _engine_words() -> set[str]:
    """The engines' keys as the page would show them without a label ("Glancing hits",
    "P destroyed"): English that is in no catalogue, searched like the catalogue's (less the
    words French shares: "Crash", PEN's French rule names)."""
    from app.combat.forms import pen_words
    from app.combat.present import OUTCOME_WORDS, STAGE_LABELS, translate
    from app.core.i18n import current_locale

    labels = {**STAGE_LABELS, **OUTCOME_WORDS, **{k: pen_words.LABELS[k] for k in pen_words.LABELS}}
    token = current_locale.set("fr")
    try:
        french = {translate(label) for label in labels.values()}
    finally:
        current_locale.reset(token)
    shown = {k.replace("_", " ").capitalize() for k in labels} | {k for k in labels if " " in k}
    return shown - french


PEN_TRANSPORT = {
    "name": "Rhino",
    "points": "35",
    "models": "1",
    "kind": "vehicle",
    "front": "11",
    "side": "11",
    "rear": "10",
    "hull_points": "3",
    "vehicle_types": "tank, transport",
    "transport_capacity": "10",
    "transport_types": "infantry, bike",
    "bs": "4",
}


def _page_routes() -> set[str]:
    return {
        route.path_format
        for router in features.web_routers()
        for route in router.routes
        if isinstance(route, APIRoute) and "GET" in route.methods
    } - set(NOT_PAGES)


def test_every_page_is_french(
    world: dict[str, Any], app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = world["ids"]
    urls = _urls(ids)
    assert _page_routes() - set(urls) == set(), "a page this test does not look at"
    matchers = _matchers(_english_ids() | _engine_words())
    fell_back = poison(monkeypatch)  # an engine key or text with no message fails the page
    found: dict[str, list[str]] = {}
    amelie: TestClient = world["amelie"]
    for path in sorted(u for group in urls.values() for u in group):
        response = amelie.get(path)
        assert response.status_code == 200, (path, response.status_code)
        assert html(response).css_first("html").attributes["lang"] == "fr", path  # type: ignore[union-attr]
        if leaked := leaks(response.text, matchers):
            found[path] = leaked
        if path.startswith("/rulings/"):
            assert _french_rulings(response.text), path
    visitor = TestClient(app, base_url="http://testserver", cookies={LANG_COOKIE: "fr"})
    for path in ("/", "/login", "/register", f"/matches/guest/{ids['guest']}", "/rulings"):
        response = visitor.get(path, headers={"Accept-Language": "fr"})
        assert response.status_code == 200, (path, response.status_code)
        if leaked := leaks(response.text, matchers):
            found[f"{path} (visitor)"] = leaked
    assert fell_back == []
    assert found == {}, "English left on French pages:\n" + "\n".join(
        f"{path}: {english}" for path, leaked in found.items() for english in leaked
    )


def _french_rulings(page: str) -> bool:
    """The rulings page is the French translation (docs/rulings/fr/), marked as French, with no
    notice that it exists only in English (issue 18)."""
    tree = LexborHTMLParser(page)
    article = tree.css_first("#rulings-content")
    return (
        tree.css_first("#rulings-english-only") is None
        and article is not None
        and article.attributes.get("lang") == "fr"
    )


def test_every_rulings_page_is_in_french(world: dict[str, Any], app: Any) -> None:
    """Every rulings page has its French translation, which a French reader gets (and the
    English reader the English page); tests/web/test_rulings_translations.py keeps each
    translation's rulings and citations those of the English page."""
    from app.web.rulings import pages

    names = [p.name for p in pages()]
    assert names, "no rulings page to look at"
    amelie: TestClient = world["amelie"]
    for name in names:
        response = amelie.get(f"/rulings/{name}")
        assert response.status_code == 200, name
        assert _french_rulings(response.text), name
    english = TestClient(app, base_url="http://testserver", cookies={LANG_COOKIE: "en"})
    page = LexborHTMLParser(english.get(f"/rulings/{names[0]}").text)
    assert page.css_first("#rulings-english-only") is None
    assert page.css_first("#rulings-content").attributes.get("lang") == "en"  # type: ignore[union-attr]


def test_every_message_has_a_french_translation_is_kept() -> None:
    """The catalogue check this test relies on stays in the suite."""
    from tests.core import test_i18n

    assert callable(test_i18n.test_every_message_has_a_french_translation)


def test_every_refusal_is_french(world: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages a refused form answers with (issue 18): the PEN unit editor refusing names and
    values, the catalogue import refusing a file or a bound, each in French."""
    from tests.catalog.hostile import element_bomb

    ids = world["ids"]
    amelie: TestClient = world["amelie"]
    token = amelie.headers["X-CSRF-Token"]
    matchers = _matchers(_english_ids() | _engine_words())
    fell_back = poison(monkeypatch)
    unit = f"/armies/{ids['pen_id']}/units"
    refused = {
        "unit editor: names": amelie.post(
            unit,
            data={
                "csrf_token": token,
                **PEN_TRANSPORT,
                "vehicle_types": "tonk",
                "rules": "Perfornat, Perforant 4+",
                "transport_types": "chariot",
            },
        ),
        "unit editor: values": amelie.post(
            unit,
            data={
                "csrf_token": token,
                "name": "Tactiques",
                "points": "150",
                "kind": "unit",
                "unit_type": "chariot",
                "toughness": "12",
                "wounds": "1",
                "transport_types": "infantry",
                "w0.name": "Epee",
                "w0.kind": "melee",
                "w0.type": "melee",
                "w0.range": "12",
                "w0.template": "blast",
            },
        ),
        "catalogue import: a broken file": amelie.post(
            "/catalogs/import",
            data={"csrf_token": token},
            files=[("files", ("broken.cat", b"<catalogue"))],
        ),
        "catalogue import: a bound": amelie.post(
            "/catalogs/import",
            data={"csrf_token": token},
            files=[("files", ("bomb.cat", element_bomb()))],
        ),
        "catalogue import: no file": amelie.post("/catalogs/import", data={"csrf_token": token}),
    }
    found: dict[str, list[str]] = {}
    for what, response in refused.items():
        assert response.status_code in (413, 422), (what, response.status_code)
        assert html(response).css_first("html").attributes["lang"] == "fr", what  # type: ignore[union-attr]
        errors = html(response).css_first("#unit-errors, #import-errors")
        assert errors is not None, what
        assert errors.text(strip=True), what
        if leaked := leaks(response.text, matchers):
            found[what] = leaked
    assert fell_back == []
    assert found == {}, "English left on French refusals:\n" + "\n".join(
        f"{what}: {english}" for what, leaked in found.items() for english in leaked
    )
