"""The list import's catalogue choice (issue 17): the page offers the catalogues the user may
use, "detect from the list" first; a list read with a detected catalogue says which on the
answer; an unknown catalogue is refused, saying so, with nothing created. The JSON API takes
the same optional ``catalog`` and tells whether it was detected."""

from __future__ import annotations

from pathlib import Path

from fastapi.testclient import TestClient

from app.catalog.service import STARTER_SLUG
from tests.support.web import csrf, html

PASTED = Path(__file__).parent / "pasted"
STARTER_NAME = "Starter catalogue (Space Marines, Orks)"


def _text(name: str) -> str:
    return (PASTED / name).read_text(encoding="utf-8")


def _lists(client: TestClient, alice: dict[str, str]) -> int:
    return len(client.get("/api/v1/armies", headers=alice).json())


def test_the_page_offers_detection_then_each_catalogue(
    client: TestClient, alice: dict[str, str]
) -> None:
    page = html(client.get("/armies/import"))
    form = page.css_first("#import-army-form")
    assert form is not None
    assert form.css_first("input[name=csrf_token]") is not None
    options = form.css("select#import-catalog[name=catalog] option")
    assert [(o.attributes["value"], o.text(strip=True)) for o in options] == [
        ("", "Detect from the list"),
        (STARTER_SLUG, STARTER_NAME),
    ]
    assert "selected" not in options[1].attributes


def test_a_detected_catalogue_is_named_on_the_lists_page(
    client: TestClient, alice: dict[str, str]
) -> None:
    response = client.post(
        "/armies/import",
        data={"csrf_token": csrf(client, "/armies/import"), "document": _text("wtc.txt")},
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert location.endswith("?imported=detected")
    notice = html(client.get(location)).css_first("#import-catalogue")
    assert notice is not None
    assert notice.attributes["data-catalog"] == STARTER_SLUG
    assert STARTER_NAME in notice.text()
    again = notice.css_first("a")
    assert again is not None
    assert again.attributes["href"] == "/armies/import"
    # the notice is the import's answer only: the list's own page does not repeat it
    plain = location.split("?")[0]
    assert html(client.get(plain)).css_first("#import-catalogue") is None


def test_a_chosen_catalogue_is_used_and_needs_no_notice(
    client: TestClient, alice: dict[str, str]
) -> None:
    response = client.post(
        "/armies/import",
        data={
            "csrf_token": csrf(client, "/armies/import"),
            "document": _text("wtc.txt"),
            "catalog": STARTER_SLUG,
        },
        follow_redirects=False,
    )
    assert response.status_code == 303, response.text
    location = response.headers["location"]
    assert "?" not in location
    army_id = int(location.rsplit("/", 1)[1])
    body = client.get(f"/api/v1/armies/{army_id}", headers=alice).json()
    assert body["catalog"]["slug"] == STARTER_SLUG
    assert html(client.get(location)).css_first("#import-catalogue") is None


def test_an_unknown_catalogue_is_refused_and_nothing_is_created(
    client: TestClient, alice: dict[str, str]
) -> None:
    before = _lists(client, alice)
    text = _text("wtc.txt")
    for ref in ("no-such-catalogue", "999999", "0"):
        response = client.post(
            "/armies/import",
            data={"csrf_token": csrf(client, "/armies/import"), "document": text, "catalog": ref},
        )
        assert response.status_code == 422, ref
        page = html(response)
        errors = page.css_first("#import-errors")
        assert errors is not None
        assert f"There is no catalogue “{ref}” you can use" in errors.text()
        assert page.css_first("#import-document").text() == text  # kept, to try again
    assert _lists(client, alice) == before
    too_long = client.post(
        "/armies/import",
        data={"csrf_token": csrf(client, "/armies/import"), "document": text, "catalog": "x" * 121},
    )
    assert too_long.status_code == 422
    assert _lists(client, alice) == before


def test_the_catalogue_field_needs_the_csrf_token(
    client: TestClient, alice: dict[str, str]
) -> None:
    response = client.post(
        "/armies/import", data={"document": _text("wtc.txt"), "catalog": STARTER_SLUG}
    )
    assert response.status_code == 403


def test_lines_left_out_and_the_detected_catalogue_on_one_answer(
    client: TestClient, alice: dict[str, str]
) -> None:
    text = _text("wtc.txt").replace("Rhino (75 pts)", "Rhinoceros (75 pts)")
    token = csrf(client, "/armies/import")
    detected = client.post(
        "/armies/import", data={"csrf_token": token, "document": text, "skip_unknown": "on"}
    )
    assert detected.status_code == 201
    named = html(detected).css_first("#import-catalogue")
    assert named is not None
    assert STARTER_NAME in named.text()
    assert "found from the list" in named.text()
    chosen = client.post(
        "/armies/import",
        data={
            "csrf_token": token,
            "document": text,
            "skip_unknown": "on",
            "catalog": STARTER_SLUG,
        },
    )
    assert chosen.status_code == 201
    named = html(chosen).css_first("#import-catalogue")
    assert named is not None
    assert "as you chose" in named.text()


def test_the_api_takes_the_catalogue_and_says_whether_it_was_detected(
    client: TestClient, alice: dict[str, str]
) -> None:
    text = _text("app.txt")
    found = client.post("/api/v1/armies/import/text", json={"text": text}, headers=alice)
    assert found.status_code == 201, found.text
    assert found.json()["import_report"]["catalog_detected"] is True
    assert found.json()["catalog"]["slug"] == STARTER_SLUG
    asked = client.post(
        "/api/v1/armies/import/text",
        json={"text": text, "catalog": STARTER_SLUG},
        headers=alice,
    )
    assert asked.status_code == 201, asked.text
    assert asked.json()["import_report"]["catalog_detected"] is False
    before = _lists(client, alice)
    unknown = client.post(
        "/api/v1/armies/import/text",
        json={"text": text, "catalog": "no-such-catalogue"},
        headers=alice,
    )
    assert unknown.status_code == 404
    assert unknown.headers["content-type"].startswith("application/problem+json")
    assert "no-such-catalogue" in unknown.json()["detail"]
    assert _lists(client, alice) == before
    # our JSON export, through the same route: the catalogue it names, detected
    army_id = found.json()["id"]
    doc = client.get(f"/api/v1/armies/{army_id}/export?format=json", headers=alice).text
    again = client.post("/api/v1/armies/import/text", json={"text": doc}, headers=alice)
    assert again.status_code == 201, again.text
    assert again.json()["import_report"]["catalog_detected"] is True
    assert again.json()["import_report"]["format"] == "auspex-json"
