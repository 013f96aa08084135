"""Creating and joining a match from the pages for every playable system: the new-match form
offers them all; for a system whose seats bring no list (Black Reach) it asks for its own
options (the side, the deployment) instead of a list, and the join page needs no list either;
a PEN match's turn structure is chosen on the form; CSRF; the form in French."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.matches import pages, systems
from app.matches.models import Match
from tests.matches.test_pen_match import guard, marine, ready_pen_list, rhino
from tests.support.web import csrf, html, register

HX = {"HX-Request": "true"}


def fill(form: Any, **inputs: str) -> dict[str, str]:
    """What a browser posts from ``form`` (each select's selected option, else its first),
    with ``inputs`` typed over it."""
    data: dict[str, str] = {}
    for field in form.css("input, select"):
        name = field.attributes.get("name")
        if not name:
            continue
        if field.tag == "select":
            option = field.css_first("option[selected]") or field.css_first("option")
            data[name] = (option.attributes.get("value") or "") if option else ""
        elif field.attributes.get("type") == "radio":
            if "checked" in field.attributes:
                data[name] = field.attributes.get("value") or ""
        else:
            data[name] = field.attributes.get("value") or ""
    data.update(inputs)
    return data


def code_of(client: TestClient, match_id: int) -> str:
    """The invitation code the creator's match page shows."""
    return html(client.get(f"/matches/{match_id}")).css_first("#invite-code").text().strip()


def stored(db: Any, match_id: int) -> Match:
    db.expire_all()
    match = db.get(Match, match_id)
    assert match is not None
    return match


def test_the_form_offers_every_playable_system(browser: Callable[[str], TestClient]) -> None:
    alice = browser("Alice")
    page = html(alice.get("/matches"))
    offered = [o.attributes["value"] for o in page.css("#ruleset-select option")]
    assert offered == list(systems.systems())
    labels = {o.attributes["value"]: o.text() for o in page.css("#ruleset-select option")}
    assert labels["black-reach"] == pages.system_label("black-reach") != "black-reach"


def test_black_reach_created_and_joined_from_the_page_forms(
    browser: Callable[[str], TestClient], db: Any
) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    page = html(alice.get("/matches?ruleset=black-reach"))
    assert page.css_first("#ruleset-select option[selected]").attributes["value"] == "black-reach"
    form = page.css_first("#new-match-form")
    assert form is not None  # no ready list needed
    assert page.css_first("#no-ready-list") is None
    assert form.css_first("select[name=army_id]") is None
    assert form.css_first("#no-list-needed") is not None
    missions = [o.attributes["value"] for o in form.css("select[name=mission] option")]
    assert missions == list(systems.playable("black-reach").missions())
    sides = [o.attributes["value"] for o in form.css("select[name='option.side'] option")]
    assert sides == ["ultramarines", "orks"]
    deployments = [
        o.attributes["value"] for o in form.css("select[name='option.deployment'] option")
    ]
    assert deployments == ["players", "sample"]
    # Alice plays the Orks, with the scenario's sample deployment
    data = fill(form, **{"option.side": "orks", "option.deployment": "sample"})
    r = alice.post("/matches", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    match = stored(db, match_id)
    assert match.rule_system == "black-reach"
    assert match.army_a["side"] == "orks"
    assert match.army_a["options"] == {"side": "orks", "deployment": "sample"}
    code = code_of(alice, match_id)
    # Bob types the code, then joins from the join page: no list to pick, his force named
    token = bob.csrf  # type: ignore[attr-defined]
    r = bob.post("/matches/join", data={"csrf_token": token, "code": code}, follow_redirects=False)
    assert r.status_code == 303
    join = html(bob.get(r.headers["location"]))
    form = join.css_first("#join-form")
    assert form is not None
    assert form.css_first("select[name=army_id]") is None
    assert "ultramarines" in join.css_first("#join-force").text()
    r = bob.post("/matches/join", data=fill(form), follow_redirects=False)
    assert r.status_code == 303, r.text
    assert r.headers["location"] == f"/matches/{match_id}"
    match = stored(db, match_id)
    assert match.player_b_id == bob.user_id  # type: ignore[attr-defined]
    assert match.army_b["side"] == "ultramarines"
    assert match.version > 0  # the battle was set up
    assert bob.get(f"/matches/{match_id}").status_code == 200


def test_a_bad_option_is_shown_at_its_field(browser: Callable[[str], TestClient]) -> None:
    alice = browser("Alice")
    form = html(alice.get("/matches?ruleset=black-reach")).css_first("#new-match-form")
    r = alice.post("/matches", data=fill(form, **{"option.side": "eldar"}))
    assert r.status_code == 422
    page = html(r)
    assert page.css_first("#new-match-error") is not None
    assert "eldar" in page.css_first("#new-match-error").text()
    # the form is shown again for Black Reach, with the side posted
    assert page.css_first("#new-match-form input[name=ruleset]").attributes["value"] == (
        "black-reach"
    )
    r = alice.post("/matches", data=fill(form, **{"option.deployment": "later"}))
    assert r.status_code == 422
    alerts = [p.text() for p in html(r).css("#new-match-form p.error")]
    assert any("players" in a for a in alerts)


def test_a_list_system_joined_without_a_list_is_refused_on_the_page(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    mine = ready_pen_list(alice, [marine()], "Marines")
    r = alice.post(
        "/api/v1/matches", json={"ruleset": "pen", "army_id": mine, "mission": "pen-objectives"}
    )
    assert r.status_code == 201, r.text
    code = r.json()["invitation"]["code"]
    r = bob.post("/matches/join", data={"csrf_token": bob.csrf, "code": code, "join": "1"})  # type: ignore[attr-defined]
    assert r.status_code == 422
    assert html(r).css_first("#join-error") is not None


def test_the_forms_need_their_csrf_token(browser: Callable[[str], TestClient], db: Any) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    form = html(alice.get("/matches?ruleset=black-reach")).css_first("#new-match-form")
    data = fill(form)
    del alice.headers["X-CSRF-Token"]
    r = alice.post("/matches", data={k: v for k, v in data.items() if k != "csrf_token"})
    assert r.status_code == 403
    assert db.query(Match).count() == 0
    r = alice.post("/matches", data=data, follow_redirects=False)
    assert r.status_code == 303
    match = stored(db, int(r.headers["location"].rsplit("/", 1)[1]))
    del bob.headers["X-CSRF-Token"]
    r = bob.post("/matches/join", data={"code": code_of(alice, match.id), "join": "1"})
    assert r.status_code == 403
    assert stored(db, match.id).player_b_id is None


def test_a_pen_match_with_the_dynamics_turn_from_the_form(
    browser: Callable[[str], TestClient], db: Any
) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    mine = ready_pen_list(alice, [marine()], "Marines")
    ready_pen_list(bob, [guard(), rhino()], "Garde")
    page = html(alice.get("/matches?ruleset=pen"))
    form = page.css_first("#new-match-form")
    structures = [
        o.attributes["value"] for o in form.css("select[name='option.turn_structure'] option")
    ]
    assert structures == ["classic", "alternation", "dynamics"]
    assert form.css_first("select[name=army_id]") is not None  # PEN seats bring a list
    data = fill(form, army_id=str(mine), mission="pen-objectives", battle_size="1000")
    data["option.turn_structure"] = "dynamics"
    r = alice.post("/matches", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    match = stored(db, int(r.headers["location"].rsplit("/", 1)[1]))
    assert match.army_a["options"]["turn_structure"] == "dynamics"
    join = html(bob.get(f"/matches/join/{code_of(alice, match.id)}"))
    r = bob.post("/matches/join", data=fill(join.css_first("#join-form")), follow_redirects=False)
    assert r.status_code == 303, r.text
    assert stored(db, match.id).version > 0
    page = html(bob.get(f"/matches/{match.id}"))
    assert page.css_first("main") is not None


def test_a_classic_pen_match_by_default(browser: Callable[[str], TestClient], db: Any) -> None:
    alice = browser("Alice")
    mine = ready_pen_list(alice, [marine()], "Marines")
    form = html(alice.get("/matches?ruleset=pen")).css_first("#new-match-form")
    r = alice.post("/matches", data=fill(form, army_id=str(mine)), follow_redirects=False)
    assert r.status_code == 303, r.text
    match = stored(db, int(r.headers["location"].rsplit("/", 1)[1]))
    assert match.army_a["options"]["turn_structure"] == "classic"


def test_the_form_in_french(app: Any) -> None:
    """The new-match form of a system without lists for a French player (its labels are asked
    for at request time, in the viewer's language)."""
    alice = TestClient(app, base_url="http://testserver")
    register(alice, email="amelie@example.com", name="Amelie", language="fr")
    alice.headers["X-CSRF-Token"] = csrf(alice, "/")
    fr: dict[str, str] = {}
    r = alice.get("/matches?ruleset=black-reach", headers=fr)
    assert r.status_code == 200
    page = html(r)
    assert page.css_first("html").attributes.get("lang") == "fr"
    form = page.css_first("#new-match-form")
    labels = [label.text() for label in form.css("label")]
    assert any(label.strip().startswith("Déploiement") for label in labels), labels
    assert "Créer la partie" in form.css_first("button[type=submit]").text()
    ready_pen_list(alice, [marine()], "Marines")
    page = html(alice.get("/matches?ruleset=pen", headers=fr))
    assert page.css_first("#new-match-form select[name='option.turn_structure']") is not None


def test_black_reach_against_a_guest_from_the_page_forms(
    browser: Callable[[str], TestClient], app: Any, db: Any
) -> None:
    """The guest's page posts no sample nor army: the guest plays the other side."""
    alice = browser("Alice")
    form = html(alice.get("/matches?ruleset=black-reach")).css_first("#new-match-form")
    r = alice.post("/matches", data=fill(form, opponent="guest"), follow_redirects=False)
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    link = html(alice.get(f"/matches/{match_id}")).css_first("#guest-link").attributes["href"]
    guest = TestClient(app, base_url="http://testserver")
    page = html(guest.get(link))
    assert page.css_first("#guest-own-force") is not None  # no list to pick, no empty fieldset
    assert page.css_first("#guest-form textarea[name=army]") is None
    r = guest.post(
        link, data=fill(page.css_first("#guest-form"), name="Gus"), follow_redirects=False
    )
    assert r.status_code == 303, r.text
    match = stored(db, match_id)
    assert (match.army_a["side"], match.army_b["side"]) == ("ultramarines", "orks")
    assert match.version > 0
