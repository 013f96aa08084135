"""Issue 18, the catalogue import in the reader's language: a file the import cannot read, a
bound it hits, an upload with nothing in it, and the report's warnings are shown in French on a
French reader's import page (and the problem document's ``detail``); the report and each
error's ``message`` stay in English (what the API answers and what a catalogue keeps)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.catalog import starter
from app.catalog.bsdata import import_files
from app.catalog.bsdata.files import BSDataFileError
from app.core.i18n import translations
from tests.catalog.conftest import fixture_files
from tests.catalog.hostile import element_bomb
from tests.catalog.test_web import upload
from tests.support.web import csrf, html, register

FR = {"Accept-Language": "fr"}


@pytest.fixture
def french(client: TestClient, db: Session) -> TestClient:
    starter.load(db)
    db.flush()
    register(client, email="amelie@example.com", name="Amélie", language="fr")
    return client


def _post(client: TestClient, files: list[tuple[str, bytes]]) -> object:
    token = csrf(client, "/catalogs/import")
    return client.post("/catalogs/import", data={"csrf_token": token}, files=upload(files))


def test_an_unreadable_file_is_french_on_the_page(french: TestClient) -> None:
    response = _post(french, [*fixture_files(), ("broken.cat", b"<catalogue")])
    assert response.status_code == 422  # type: ignore[attr-defined]
    errors = html(response).css_first("#import-errors")  # type: ignore[arg-type]
    assert errors is not None
    text = errors.text()
    assert "broken.cat : XML mal formé : " in text
    assert "not well-formed" not in text


def test_a_bound_hit_is_french_on_the_page(french: TestClient) -> None:
    response = _post(french, [("bomb.cat", element_bomb())])
    assert response.status_code == 413  # type: ignore[attr-defined]
    errors = html(response).css_first("#import-errors")  # type: ignore[arg-type]
    assert errors is not None
    text = errors.text()
    assert "contiennent plus de 400000 éléments XML en tout" in text
    assert "XML elements" not in text


def test_the_warnings_are_french_on_the_page(french: TestClient) -> None:
    """The fixtures' catalogues have abilities the engine does not know (kept as text)."""
    response = _post(french, fixture_files())
    assert response.status_code == 201  # type: ignore[attr-defined]
    said = [
        li.css_first(".muted").text()  # type: ignore[union-attr]
        for li in html(response).css("#import-report .issue")  # type: ignore[arg-type]
    ]
    assert said
    unmapped = [s for s in said if "n'est pas connue du moteur" in s]
    assert unmapped
    assert not any("is not one the engine knows" in s for s in said)


def test_the_api_keeps_english_messages_and_gives_a_french_detail(french: TestClient) -> None:
    """A French user's problem document: its detail in French, each error's ``message`` and
    the report in English, with no extra field."""
    files = [("files", ("broken.cat", b"<catalogue"))]
    token = {"X-CSRF-Token": csrf(french, "/")}  # the API called with the browser's session
    response = french.post("/api/v1/catalogs/import", files=files, headers=token)
    assert response.status_code == 422, response.text[:300]
    body = response.json()
    assert body["detail"].startswith("broken.cat : XML mal formé : ")
    unreadable, nothing = body["errors"]
    assert unreadable["message"].startswith("broken.cat: not well-formed XML: ")
    assert nothing["message"] == "no faction catalogue (a non-library .cat) could be imported"
    for error, issue in zip(body["errors"], body["report"]["errors"], strict=True):
        assert issue["message"] == error["message"]
        assert set(issue) == {"code", "severity", "message", "file", "entry", "params"}


def test_every_import_message_keeps_its_english() -> None:
    """The report's English is what it was: each issue's template says the same words."""
    result = import_files([*fixture_files(), ("broken.cat", b"<catalogue")])
    issues = result.report.issues
    assert issues
    for issue in issues:
        assert issue.template is not None, issue.message
        assert str(issue.template) == issue.message
    with pytest.raises(BSDataFileError) as caught:
        import_files_one("x.catz", b"PK\x03\x04 not a zip")
    exc = caught.value
    assert str(exc) == f"x.catz: {exc.message}"
    assert exc.template.render(translations("fr").gettext).startswith("x.catz : ")


def import_files_one(name: str, data: bytes) -> None:
    from app.catalog.bsdata.files import ImportLimits, read_document

    read_document(name, data, ImportLimits())


def test_the_files_read_and_too_many_files_are_french(french: TestClient) -> None:
    from app.catalog.web import MAX_UPLOAD_FILES

    page = html(_post(french, fixture_files()))  # type: ignore[arg-type]
    kinds = {td.text() for td in page.css("#import-report table td:nth-child(2)")}
    assert "système de jeu" in kinds
    assert "gameSystem" not in kinds
    many = [(f"f{i}.cat", b"<x/>") for i in range(MAX_UPLOAD_FILES + 1)]
    response = _post(french, many)
    assert response.status_code == 413  # type: ignore[attr-defined]
    errors = html(response).css_first("#import-errors")  # type: ignore[arg-type]
    assert errors is not None
    assert f"Au plus {MAX_UPLOAD_FILES} fichiers par import." in errors.text()
    token = {"X-CSRF-Token": csrf(french, "/")}
    api = french.post("/api/v1/catalogs/import", files=upload(many), headers=token)
    assert api.status_code == 413, api.text[:300]
    assert api.json()["detail"] == f"Au plus {MAX_UPLOAD_FILES} fichiers par import."
    assert api.json()["errors"][0]["message"] == "too many files"
