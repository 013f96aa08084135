"""Issue 18, the page: saved profiles and recent matchups per user (API and page), a unit of an
army list or a catalogue put in the calculator in one tap, and PEN's vehicle results and the
reasons of its final BS beside the odds."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

from fastapi.testclient import TestClient

from app.combat import profiles
from tests.armies.conftest import legal_army
from tests.combat.test_web import BOLT_RIFLES
from tests.support.web import html

API = "/api/v1/combat/profiles"
QUERY = urlencode(BOLT_RIFLES)


def save(client: TestClient, headers: dict[str, str], **body: Any) -> Any:
    data = {"name": "Bolt rifles", "kind": "matchup", "query": QUERY, **body}
    return client.post(API, json=data, headers=headers)


def location(response: Any) -> list[tuple[str, str]]:
    assert response.status_code == 303, response.text
    return parse_qsl(urlsplit(response.headers["location"]).query, keep_blank_values=True)


# -- the API ---------------------------------------------------------------------------------


def test_save_list_get_delete_through_the_api(client: TestClient, alice: dict) -> None:
    created = save(client, alice, kind="attacker", query="/calculator?" + QUERY)
    assert created.status_code == 201, created.text
    body = created.json()
    kept = dict(parse_qsl(body["query"], keep_blank_values=True))
    assert kept["w0.name"] == "Bolt rifle"
    assert not any(k.startswith("t.") for k in kept)  # an attacker keeps its own fields only
    assert body["ruleset"] == "wh40k-10e"
    assert body["calculator_url"] == "/calculator?" + body["query"]
    assert client.get(API, headers=alice).json() == [body]
    assert client.get(f"{API}/{body['id']}", headers=alice).json() == body
    assert client.delete(f"{API}/{body['id']}", headers=alice).status_code == 204
    assert client.get(f"{API}/{body['id']}", headers=alice).status_code == 404
    assert client.get(API, headers=alice).json() == []


def test_another_users_profile_does_not_exist(
    client: TestClient, other_client: TestClient, alice: dict, bob: dict
) -> None:
    profile_id = save(client, alice).json()["id"]
    for response in (
        other_client.get(f"{API}/{profile_id}", headers=bob),
        other_client.delete(f"{API}/{profile_id}", headers=bob),
    ):
        assert response.status_code == 404
        assert response.headers["content-type"].startswith("application/problem+json")
    assert other_client.get(API, headers=bob).json() == []
    # nor can Bob put it in his calculator
    page = other_client.get(f"/calculator?{QUERY}&use={profile_id}", follow_redirects=False)
    assert page.status_code == 404
    assert client.get(f"{API}/{profile_id}", headers=alice).status_code == 200


def test_bounds_are_clear_4xx(
    client: TestClient, anon: TestClient, alice: dict, monkeypatch
) -> None:
    assert save(client, alice, name="").status_code == 422
    assert save(client, alice, name="x" * 81).status_code == 422
    assert save(client, alice, kind="recent").status_code == 422
    assert save(client, alice, name="a\x00b").status_code == 422  # Postgres cannot store NUL
    assert save(client, alice, query=QUERY + "&t.name=a%00b").status_code == 422
    assert save(client, alice, query="q" * 8001).status_code == 422
    unknown = save(client, alice, query="system=nope&w0.models=1")
    assert unknown.status_code == 422
    assert unknown.headers["content-type"].startswith("application/problem+json")
    assert client.get(f"{API}/0", headers=alice).status_code == 422
    assert anon.get(API).status_code == 401  # no token, no session
    monkeypatch.setattr(profiles, "MAX_SAVED", 2)
    assert save(client, alice).status_code == 201
    assert save(client, alice).status_code == 201
    full = save(client, alice)
    assert full.status_code == 409
    assert "delete one" in full.json()["detail"]


def test_recent_matchups_are_kept_newest_first_and_bounded(
    client: TestClient, alice: dict, monkeypatch
) -> None:
    monkeypatch.setattr(profiles, "MAX_RECENT", 3)
    monkeypatch.setattr(profiles, "EDIT_WINDOW", profiles.EDIT_WINDOW * 0)
    for models in ("1", "2", "3", "4"):
        query = urlencode([*BOLT_RIFLES, ("w0.models", models)])
        assert client.get(f"/calculator?{query}").status_code == 200
    recent = client.get("/api/v1/combat/recent", headers=alice).json()
    assert [dict(parse_qsl(r["query"]))["w0.models"] for r in recent] == ["4", "3", "2"]
    assert all(r["kind"] == "recent" for r in recent)
    # the same matchup again moves up instead of taking a second place
    client.get("/calculator?" + urlencode([*BOLT_RIFLES, ("w0.models", "2")]))
    recent = client.get("/api/v1/combat/recent", headers=alice).json()
    assert [dict(parse_qsl(r["query"]))["w0.models"] for r in recent] == ["2", "4", "3"]


def test_typing_within_the_edit_window_is_one_matchup(client: TestClient, alice: dict) -> None:
    for models in ("1", "12"):
        client.get("/calculator?" + urlencode([*BOLT_RIFLES, ("w0.models", models)]))
    recent = client.get("/api/v1/combat/recent", headers=alice).json()
    assert [dict(parse_qsl(r["query"]))["w0.models"] for r in recent] == ["12"]


def test_an_anonymous_calculation_keeps_nothing(anon: TestClient, client, alice) -> None:
    assert anon.get(f"/calculator?{QUERY}").status_code == 200
    assert client.get("/api/v1/combat/recent", headers=alice).json() == []


# -- the page --------------------------------------------------------------------------------


def test_page_saves_reuses_and_deletes_a_target(client: TestClient, alice: dict) -> None:
    tree = html(client.get(f"/calculator?{QUERY}"))
    form = tree.css_first("form#save-form")
    assert form.attributes["method"] == "post"
    assert form.attributes["action"] == "/calculator/saved"
    assert form.css_first("input[name=csrf_token]").attributes["value"]
    query = form.css_first("input[name=query]").attributes["value"]
    token = form.css_first("input[name=csrf_token]").attributes["value"]
    # without the CSRF token: refused
    refused = client.post(
        "/calculator/saved",
        data={"name": "Terminators", "kind": "target", "query": query},
        follow_redirects=False,
    )
    assert refused.status_code == 403
    target = [*BOLT_RIFLES, ("t.name", "Terminators"), ("t.save", "2+"), ("t.wounds", "3")]
    saved = client.post(
        "/calculator/saved",
        data={
            "name": "Terminators",
            "kind": "target",
            "query": urlencode(target),
            "csrf_token": token,
        },
        follow_redirects=False,
    )
    assert saved.status_code == 303
    assert saved.headers["location"].endswith("#saved")
    # another attacker on the page: the saved target replaces only the target
    other = [(k, v) for k, v in BOLT_RIFLES if k != "w0.name"] + [("w0.name", "Plasma")]
    tree = html(client.get("/calculator?" + urlencode(other)))
    use = tree.css_first("#saved-list a.use")
    assert use.text() == "Terminators"
    put = client.get(use.attributes["href"], follow_redirects=False)
    values = dict(location(put))
    assert values["w0.name"] == "Plasma"
    assert values["t.name"] == "Terminators"
    assert values["t.save"] == "2+"
    assert "use" not in values
    # delete (a POST form with the token)
    delete = tree.css_first("#saved-list form")
    assert delete.attributes["action"].endswith("/delete")
    gone = client.post(
        delete.attributes["action"],
        data={"csrf_token": token, "query": urlencode(other)},
        follow_redirects=False,
    )
    assert gone.status_code == 303
    assert client.get(API, headers=alice).json() == []


def test_recent_matchups_on_the_page(client: TestClient, alice: dict) -> None:
    client.get(f"/calculator?{QUERY}")
    tree = html(client.get(f"/calculator?{QUERY}"))
    links = tree.css("#recent-list a.use")
    assert len(links) == 1
    assert "Bolt rifle" in links[0].text()
    assert links[0].attributes["href"].startswith("/calculator?")


def test_logged_out_page_offers_login_not_a_form(client: TestClient) -> None:
    tree = html(client.get(f"/calculator?{QUERY}"))
    assert tree.css_first("#save-form") is None
    assert tree.css_first("#saved-login a").attributes["href"].startswith("/login")


# -- units in one tap ------------------------------------------------------------------------


def test_a_unit_of_my_army_as_the_attacker_and_as_the_target(
    client: TestClient, other_client: TestClient, alice: dict, bob: dict
) -> None:
    army = client.post("/api/v1/armies", json=legal_army(), headers=alice).json()
    page = client.get(f"/calculator/units?{QUERY}")
    tree = html(page)
    choices = tree.css("#army-units li.unit-choice")
    assert choices, page.text
    hellblasters = next(c for c in choices if "Hellblaster Squad" in c.text())
    links = {a.text().strip(): a.attributes["href"] for a in hellblasters.css("a")}
    as_attacker = client.get(links["As the attacker"], follow_redirects=False)
    values = dict(location(as_attacker))
    names = [v.lower() for k, v in values.items() if k.endswith(".name") and k[0] == "w"]
    assert any("plasma" in n for n in names), names  # its whole loadout, each weapon a row
    assert len(names) > 1
    assert values["t.toughness"] == dict(BOLT_RIFLES)["t.toughness"]  # the target stays
    as_target = client.get(links["As the target"], follow_redirects=False)
    values = dict(location(as_target))
    assert values["t.name"] == "Hellblaster Squad"
    assert values["t.wounds"] == "2"
    assert values["t.save"] == "3+"
    assert "INFANTRY" in values["t.keywords"]
    assert values["w0.name"] == "Bolt rifle"  # the attacker stays
    # Bob cannot reach Alice's list through the calculator
    ref = hellblasters.attributes["data-ref"]
    assert ref.startswith(f"army:{army['id']}:")
    stolen = other_client.get(f"/calculator?{QUERY}&unit={ref}&as=target", follow_redirects=False)
    assert stolen.status_code == 404
    # digits that are not ASCII name no list (int() cannot read "²": it was a 500)
    for odd in ("army:\u00b2:0", "army:1:\u00b2", "army:\u0663:0"):
        r = client.get(f"/calculator?{QUERY}&unit={odd}&as=target", follow_redirects=False)
        assert r.status_code == 404, (odd, r.status_code)


def test_a_catalogue_datasheet_fills_the_target(client: TestClient, starter_loaded) -> None:
    tree = html(client.get(f"/calculator/units?{QUERY}&q=intercessor"))
    found = tree.css("#sheet-choices li.unit-choice")
    assert found
    target = next(a for a in found[0].css("a") if a.text().strip() == "As the target")
    values = dict(location(client.get(target.attributes["href"], follow_redirects=False)))
    assert "Intercessor" in values["t.name"]
    assert values["t.toughness"] == "4"
    assert (
        client.get(
            f"/calculator?{QUERY}&unit=sheet:1:nope&as=target", follow_redirects=False
        ).status_code
        == 404
    )
    # the button that leads here submits the calculator form (works without JS)
    page = html(client.get(f"/calculator?{QUERY}"))
    button = page.css_first("#pick-unit")
    assert button.attributes["formaction"] == "/calculator/units"


# -- PEN -------------------------------------------------------------------------------------


def test_pen_vehicle_target_reports_hull_points_and_destruction(client: TestClient) -> None:
    query = urlencode({"system": "pen", "t.kind": "vehicle", "w.preset": "lascannon"})
    page = client.get(f"/calculator?{query}")
    tree = html(page)
    labels = [n.text() for n in tree.css("#summary .stat-label")]
    assert labels == ["Mean hull points lost", "Vehicle destroyed"]
    assert tree.css_first("#chart-models") is None
    assert "Wounds lost" not in page.text
    assert "Models destroyed" not in [n.text() for n in tree.css("h3, figcaption, caption")]


def test_pen_says_why_the_bs_changed_beside_the_odds(client: TestClient) -> None:
    query = urlencode({"system": "pen", "a.bs": "4", "s.half_range": "on", "s.target_moved": "20"})
    tree = html(client.get(f"/calculator?{query}"))
    notes = tree.css_first("#summary + #result-notes")
    assert notes is not None
    text = notes.text()
    assert "BS 4 → 3" in text
    assert "half range (+1)" in text
    assert "target moved more than 18 ps (−2)" in text
    fr = html(client.get(f"/calculator?{query}", headers={"Accept-Language": "fr"}))
    assert fr.css_first("#result-notes") is not None
    # nothing to explain: no line
    plain = html(client.get("/calculator?" + urlencode({"system": "pen", "a.bs": "4"})))
    assert plain.css_first("#result-notes") is None
