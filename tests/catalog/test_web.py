"""Catalogue pages: the list, the upload form and its report, a catalogue's search (page and
htmx fragment), sharing and deleting from the page."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.catalog import starter
from tests.catalog.bsdata.restriction_files import FILES as RESTRICTION_FILES
from tests.catalog.hostile import element_bomb
from tests.support.web import csrf, html, register


@pytest.fixture
def starter_loaded(db: Session) -> None:
    starter.load(db)
    db.flush()


@pytest.fixture
def logged_in(client: TestClient, starter_loaded: None) -> TestClient:
    register(client, email="alice@example.com", name="Alice")
    return client


def upload(files: list[tuple[str, bytes]]) -> list[tuple[str, tuple[str, bytes]]]:
    return [("files", (name, data)) for name, data in files]


def test_catalogue_list(client: TestClient, starter_loaded: None) -> None:
    page = html(client.get("/catalogs"))
    cards = page.css("#catalog-list .catalog-card")
    assert [c.attributes["data-slug"] for c in cards] == ["starter-wh40k10e"]
    assert page.css_first("#import-link") is None  # anonymous: no upload link
    link = cards[0].css_first("a")
    assert link is not None
    assert link.attributes["href"] == "/catalogs/starter-wh40k10e"


def test_catalogue_page_and_search_fragment(client: TestClient, starter_loaded: None) -> None:
    response = client.get("/catalogs/starter-wh40k10e", params={"faction": "Orks", "q": "boyz"})
    assert response.status_code == 200
    assert response.headers["vary"] == "HX-Request"
    page = html(response)
    form = page.css_first("#search-form")
    assert form is not None
    assert form.attributes["action"] == "/catalogs/starter-wh40k10e"
    assert form.attributes["hx-get"] == "/catalogs/starter-wh40k10e"
    assert form.attributes["hx-target"] == "#results"
    names = [n.text(strip=True) for n in page.css("#results details.sheet > summary > strong")]
    assert names == ["Beast Snagga Boyz", "Boyz", "Burna Boyz", "Stormboyz"]
    # the datasheet shows the profile and the weapons
    boyz = page.css_first("#results details.sheet:nth-of-type(2)")
    assert boyz is not None
    headers = [th.text(strip=True) for th in boyz.css("table.stats thead th")]
    assert headers[:8] == ["Model", "M", "T", "Sv", "W", "Ld", "OC", "Inv"]
    assert "Ranged weapons" in headers
    assert "Melee weapons" in headers
    assert boyz.css_first("a.calc-link") is not None

    fragment = client.get(
        "/catalogs/starter-wh40k10e",
        params={"faction": "Orks", "q": "boyz"},
        headers={"HX-Request": "true"},
    )
    assert fragment.status_code == 200
    assert "<html" not in fragment.text
    part = html(fragment)
    assert part.css_first("#results") is not None
    assert part.css_first("#search-form") is None
    assert len(part.css("details.sheet")) == 4


def test_catalogue_page_in_french(client: TestClient, starter_loaded: None) -> None:
    response = client.get(
        "/catalogs/starter-wh40k10e",
        params={"faction": "Orks", "q": "warboss"},
        headers={"Accept-Language": "fr"},
    )
    page = html(response)
    headers = [th.text(strip=True) for th in page.css("#results table.stats thead th")]
    assert headers[:8] == ["Figurine", "M", "E", "Svg", "PdV", "Cd", "CO", "Invu"]
    assert "Armes de mêlée" in headers


def test_upload_needs_an_account(client: TestClient, starter_loaded: None) -> None:
    response = client.get("/catalogs/import", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"].startswith("/login")


def test_upload_form_and_report(logged_in: TestClient, files: list) -> None:
    page = html(logged_in.get("/catalogs/import"))
    form = page.css_first("#import-form")
    assert form is not None
    assert form.attributes["enctype"] == "multipart/form-data"
    assert form.css_first("input[type=file][name=files][multiple]") is not None
    token = csrf(logged_in, "/catalogs/import")
    response = logged_in.post("/catalogs/import", data={"csrf_token": token}, files=upload(files))
    assert response.status_code == 201
    result = html(response)
    links = [a.text(strip=True) for a in result.css("#import-result li > a:first-child")]
    assert links == ["Test Marines", "Test Orks"]
    codes = {li.attributes["data-code"] for li in result.css("#import-report .issue")}
    assert "unmapped-ability" in codes
    assert result.css_first("#import-warnings") is not None


def test_upload_errors(logged_in: TestClient, files: list) -> None:
    token = csrf(logged_in, "/catalogs/import")
    response = logged_in.post(
        "/catalogs/import",
        data={"csrf_token": token},
        files=upload([*files, ("broken.cat", b"<catalogue")]),
    )
    assert response.status_code == 422
    errors = html(response).css_first("#import-errors")
    assert errors is not None
    assert "broken.cat" in errors.text()
    nothing = logged_in.post("/catalogs/import", data={"csrf_token": token})
    assert nothing.status_code == 422


def test_a_hostile_upload_is_refused_on_the_page(logged_in: TestClient) -> None:
    token = csrf(logged_in, "/catalogs/import")
    response = logged_in.post(
        "/catalogs/import",
        data={"csrf_token": token},
        files=upload([("bomb.cat", element_bomb())]),
    )
    assert response.status_code == 413
    errors = html(response).css_first("#import-errors")
    assert errors is not None
    assert "bomb.cat" in errors.text()
    assert "400000 XML elements" in errors.text()


def test_upload_without_csrf_is_refused(logged_in: TestClient, files: list) -> None:
    response = logged_in.post("/catalogs/import", files=upload(files))
    assert response.status_code == 403


def test_owner_tools_share_and_delete(logged_in: TestClient, files: list) -> None:
    token = csrf(logged_in, "/catalogs/import")
    logged_in.post("/catalogs/import", data={"csrf_token": token}, files=upload(files))
    listed = html(logged_in.get("/catalogs")).css("#catalog-list .catalog-card")
    slug = listed[1].attributes["data-slug"]
    assert slug is not None
    logged_in.post("/clubs", data={"csrf_token": token, "name": "My club"})
    page = html(logged_in.get(f"/catalogs/{slug}"))
    options = page.css("#share-form select[name=club_id] option")
    assert [o.text(strip=True) for o in options] == ["Not shared", "My club"]
    club_id = options[1].attributes["value"]
    shared = logged_in.post(
        f"/catalogs/{slug}/share",
        data={"csrf_token": token, "club_id": club_id},
        follow_redirects=False,
    )
    assert shared.status_code == 303
    selected = html(logged_in.get(f"/catalogs/{slug}")).css_first("#share-form option[selected]")
    assert selected is not None
    assert selected.attributes["value"] == club_id
    deleted = logged_in.post(
        f"/catalogs/{slug}/delete", data={"csrf_token": token}, follow_redirects=False
    )
    assert deleted.status_code == 303
    assert logged_in.get(f"/catalogs/{slug}").status_code == 404
    # the starter has no owner tools
    assert html(logged_in.get("/catalogs/starter-wh40k10e")).css_first("#catalog-owner") is None


def test_a_datasheet_shows_the_datas_restrictions(logged_in: TestClient) -> None:
    """Ruling D12 on the page: the condition in our words, marked English (lang="en")."""
    token = csrf(logged_in, "/catalogs/import")
    files = upload(RESTRICTION_FILES)
    response = logged_in.post("/catalogs/import", data={"csrf_token": token}, files=files)
    assert response.status_code == 201
    listed = html(logged_in.get("/catalogs")).css("#catalog-list .catalog-card")
    slug = next(c.attributes["data-slug"] for c in listed if "Testers" in c.text())
    page = html(logged_in.get(f"/catalogs/{slug}"))
    items = {li.text(strip=True) for li in page.css("#datasheet-e-squad ul.restrictions li")}
    assert items == {
        "Heavy gun:fewer than 10 models in the unit and more than 1 × Heavy gun in the unit",
        "the Detachment is Second Host and more than 2 Squad unit(s) in the army",
    }
    (rival,) = page.css("#datasheet-e-rival ul.restrictions li")
    assert rival.text(strip=True).startswith("Not available when:")
    assert rival.css_first("span[lang=en]") is not None
    (chief,) = page.css("#datasheet-e-chief ul.restrictions li")
    assert chief.text(strip=True).endswith("(warning)")
    assert "stand-in" not in page.html


def test_players_see_no_version_strings_nor_generator_notes(
    logged_in: TestClient, files: list
) -> None:
    """Issue 17: a catalogue's data version ("r12+gst-r7") and where it was generated from are
    kept for the JSON API and for the catalogue's owner, not shown to players."""
    token = csrf(logged_in, "/catalogs/import")
    response = logged_in.post("/catalogs/import", data={"csrf_token": token}, files=upload(files))
    assert response.status_code == 201
    marines = next(
        r for r in logged_in.get("/api/v1/catalogs").json() if r["name"] == "Test Marines"
    )
    version = marines["version"]
    assert version.startswith("r")
    for page in (
        response,
        logged_in.get("/catalogs"),
        logged_in.get("/catalogs/starter-wh40k10e"),
        logged_in.get(f"/catalogs/{marines['slug']}"),
    ):
        body = html(page).css_first("main") or html(page).body
        assert body is not None
        player_part = body.text()
        owner = html(page).css_first("#catalog-owner")
        if owner is not None:
            player_part = player_part.replace(owner.text(), "")
        assert "Version" not in player_part, page.url
        assert version not in player_part, page.url
        assert "Generated by" not in player_part, page.url
        assert "BSData Test" not in player_part, page.url  # the source: "BSData <file>"
    # the owner still finds the data version, in the owner's panel
    owned = html(logged_in.get(f"/catalogs/{marines['slug']}")).css_first("#catalog-data-version")
    assert owned is not None
    assert version in owned.text()


def test_players_see_no_datasheet_id(client: TestClient, starter_loaded: None) -> None:
    """Issue 17: a datasheet's id is a BattleScribe id ("5a4c-...") that means nothing to a
    player: the page does not show it (the JSON API keeps it)."""
    params = {"faction": "Orks", "q": "boyz"}
    listed = client.get("/api/v1/catalogs/starter-wh40k10e/datasheets", params=params).json()
    assert listed
    ids = [d["id"] for d in listed]
    assert all(ids)
    for headers in ({}, {"HX-Request": "true"}):
        page = html(client.get("/catalogs/starter-wh40k10e", params=params, headers=headers))
        results = page.css_first("#results")
        assert results is not None
        shown = results.text()
        names = [n.text(strip=True) for n in results.css("details.sheet > summary > strong")]
        assert sorted(names) == sorted(d["name"] for d in listed)
        assert "Datasheet id" not in shown
        for sheet_id in ids:
            assert sheet_id not in shown
