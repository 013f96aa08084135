"""Issue 18, the army engine's refusals in the reader's language: a list document or a pasted
list the engine refuses (app/engine/wh40k10e/army: roster.py, codec.py, export.py) is shown in
French on a French reader's import page, its numbers and names kept; the API's problem document
keeps the English ``message`` other tools read, with no extra field (``N_`` and ``Message``,
app/engine/errors.py)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.armies import matching
from app.engine.wh40k10e.army import RosterError, RosterUnit, import_json
from tests.armies.conftest import _user
from tests.support.web import csrf, html

PASTED = Path(__file__).parent / "pasted"
DOCUMENT: dict[str, Any] = {
    "format": "auspex.army",
    "schema_version": 1,
    "faction": "Adeptus Astartes",
    "detachment": "Gladius Task Force",
    "battle_size": "strike-force",
    "units": [{"datasheet": "Captain", "models": 500}],
}
# the same with a value of the wrong type: the codec's words, with a translated part
MISTYPED = {
    **DOCUMENT,
    "units": [{"datasheet": "Captain"}, {"datasheet": "Rhino", "models": "ten"}],
}


@pytest.fixture
def french(client: TestClient, starter_loaded: str) -> dict[str, str]:
    return _user(client, "amelie@example.com", "Amélie", language="fr")


def _imported_page(client: TestClient, document: str) -> Any:
    response = client.post(
        "/armies/import",
        data={"csrf_token": csrf(client, "/armies/import"), "document": document},
    )
    assert response.status_code == 422, response.text[:300]
    return html(response)


def test_a_refused_document_is_french_on_a_french_import_page(
    client: TestClient, french: dict[str, str]
) -> None:
    text = ""
    for document in (DOCUMENT, MISTYPED):
        errors = _imported_page(client, json.dumps(document)).css_first("#import-errors")
        assert errors is not None
        text += errors.text()
    assert "units.0.models: doit être entre 1 et 200" in text
    assert "units.1.models: un entier est attendu, pas une chaîne de caractères" in text
    assert "must be" not in text
    assert "expected" not in text


def test_a_pasted_unit_the_engine_refuses_is_french(
    client: TestClient, french: dict[str, str]
) -> None:
    long_label = "L" * 250
    text = (PASTED / "app.txt").read_text(encoding="utf-8")
    text = text.replace("Rhino (75 Points)", f"Rhino [{long_label}] (75 Points)")
    page = _imported_page(client, text)
    lines = page.css("#import-lines li")
    said = " ".join(li.text() for li in lines)
    assert "label: plus de 200 caractères" in said
    assert "longer than" not in said


def test_the_api_keeps_the_english_messages_with_no_extra_field(
    client: TestClient, french: dict[str, str]
) -> None:
    expected = {
        "units.0.models": "must be between 1 and 200",
        "units.1.models": "expected an integer, got a string",
    }
    for headers in (french, {**french, "Accept-Language": "fr"}):
        for document in (DOCUMENT, MISTYPED):
            response = client.post("/api/v1/armies/import", json=document, headers=headers)
            assert response.status_code == 422, response.text[:300]
            (error,) = response.json()["errors"]
            assert error == {
                "field": error["field"],
                "message": expected[error["field"]],
                "type": "invalid_profile",
            }


def test_every_refusal_keeps_its_english_and_carries_its_template() -> None:
    """The engine's English is what it was (the API's contract), and the template a page
    translates says the same words."""
    bad = {**DOCUMENT, "battle_size": "huge", "units": [{"datasheet": "X", "attached_to": 999}]}
    cases: list[tuple[Any, str]] = [
        (lambda: import_json("{"), "not valid JSON: Expecting property name enclosed in "),
        (lambda: import_json("[1]"), "a roster must be a JSON object"),
        (lambda: import_json({**DOCUMENT, "format": "x"}), "expected 'auspex.army', got 'x'"),
        (lambda: import_json({**DOCUMENT, "schema_version": 9}), "unsupported schema version 9"),
        (lambda: import_json(bad), "expected one of 'incursion', 'strike-force', 'onslaught'"),
        (lambda: import_json({**DOCUMENT, "units": [{}]}), "missing"),
        (lambda: import_json({**DOCUMENT, "units": [{"datasheet": "X", "y": 1}]}), "unknown field"),
        (lambda: RosterUnit("X", wargear={"a": True}), "must be an integer"),
        (lambda: RosterUnit("X", wargear={"a": 900}), "must be between 0 and 200"),
        (lambda: RosterUnit("X", attached_to=150), "must be a unit index between 0 and 149"),
        (lambda: RosterUnit("X", label="L" * 201), "longer than 200 characters"),
        (lambda: RosterUnit(" "), "must not be empty"),
    ]
    for make, english in cases:
        with pytest.raises(RosterError) as caught:
            make()
        exc = caught.value
        assert exc.message.startswith(english), exc.message
        assert [str(t) for t in exc.templates] == [m for _f, m in exc.errors]
        assert exc.templates[0].msgid != exc.message or not exc.templates[0].params


def test_a_pasted_refusal_says_the_engine_s_words_in_both_languages() -> None:
    with pytest.raises(RosterError) as caught:
        RosterUnit("Rhino", label="L" * 201)
    problem = matching._refused("line 31", "Rhino", caught.value)
    assert problem.message == str(caught.value) == "label: longer than 200 characters"
    assert problem.template is not None
    french = {"longer than %(limit)s characters": "plus de %(limit)s caractères"}
    assert problem.template.render(lambda m: french.get(m, m)) == "label: plus de 200 caractères"


def test_a_text_the_importer_cannot_read_is_french_and_stays_english_in_the_api(
    client: TestClient, french: dict[str, str]
) -> None:
    cases = {
        "   ": ("the list is empty", "la liste est vide"),
        "{not json": ("not valid JSON", "JSON invalide"),
        "Hello there\nGeneral Kenobi": (
            "no unit found: is this an army list in a format we read?",
            "aucune unité trouvée",
        ),
    }
    for text, (english, _french) in cases.items():
        response = client.post("/api/v1/armies/import/text", json={"text": text}, headers=french)
        assert response.status_code == 422, response.text[:300]
        assert response.json()["errors"][0]["message"] == english
    for text, (english, in_french) in cases.items():
        errors = _imported_page(client, text).css_first("#import-errors")
        assert errors is not None
        assert in_french in errors.text()
        assert english not in errors.text()
