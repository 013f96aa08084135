"""Issue 18, PEN names the engine does not know in the reader's language: an unknown weapon
property, unit type, vehicle type, weapon type or close-combat weapon typed into the PEN
calculator is refused (app/engine/pen/names.py ``UnknownName``) with the closest name, shown in
French to a French reader; the API's problem document keeps the English ``message``."""

from __future__ import annotations

from urllib.parse import urlencode

import pytest

from app.core.i18n import translations
from app.engine.pen.names import BadRuleValue, UnknownName, parse_rule, unknown_message
from app.engine.pen.weapons import melee_weapon
from tests.combat.test_french_refusals import FR, _errors
from tests.support.web import html

PEN = {"system": "pen", "w.name": "Bolter", "w.type": "rapid fire", "w.strength": "4"}
# each typo and what the page says of it, in English then in French
TYPOS = [
    (
        {"w.properties": "Perfornat"},
        "unknown property or special rule 'Perfornat'; did you mean 'Perforant'?",
        "propriété ou règle spéciale inconnue 'Perfornat' ; vouliez-vous dire 'Perforant' ?",
    ),
    (
        {"t.unit_type": "infantri"},
        "unknown unit type 'infantri'; did you mean 'infantry'?",
        "type d'unité inconnu 'infantri' ; vouliez-vous dire 'infantry' ?",
    ),
    (
        {"t.kind": "vehicle", "v.front": "10", "v.types": "tonk"},
        "unknown vehicle type 'tonk'",
        "type de véhicule inconnu 'tonk'",
    ),
    (
        {"w.type": "heavvy 1"},
        "unknown weapon type 'heavvy'",
        "type d'arme inconnu 'heavvy'",
    ),
    (
        {"w.kind": "melee", "w.type": "Gantelet energetik"},
        "unknown melee weapon 'Gantelet energetik'",
        "arme de corps à corps inconnue 'Gantelet energetik'",
    ),
    (
        {"w.properties": "Perforant 4+"},
        "Perforant takes no parameter, got '4+'",
        "Perforant ne prend pas de valeur, reçu '4+'",
    ),
]


@pytest.mark.parametrize(("state", "english", "french"), TYPOS)
def test_an_unknown_pen_name_is_french_on_a_french_calculator(
    client, state: dict[str, str], english: str, french: str
) -> None:  # type: ignore[no-untyped-def]
    query = {**PEN, **state}
    assert english in _errors(client, query)
    said = _errors(client, query, **FR)
    assert french in said
    assert "unknown" not in said
    assert "did you mean" not in said


def test_the_api_keeps_the_english_message() -> None:
    """The English text of an unknown name is what it was (the API's contract), and its
    template says the same words."""
    with pytest.raises(UnknownName) as caught:
        parse_rule("Perfornat")
    exc = caught.value
    assert exc.message == str(exc) == str(exc.template)
    assert exc.message == "unknown property or special rule 'Perfornat'; did you mean 'Perforant'?"
    with pytest.raises(UnknownName) as caught:
        melee_weapon("xyzzy")
    assert caught.value.message == "unknown melee weapon 'xyzzy'"
    with pytest.raises(BadRuleValue) as bad:
        parse_rule("Anti-endurance (banana)")
    assert str(bad.value) == "Anti-endurance: expected a roll such as '4+', got 'banana'"


def test_a_kind_with_no_message_of_its_own_still_reads() -> None:
    message = unknown_message("flavour", "x", None)
    assert str(message) == "unknown flavour 'x'"
    assert "'x'" in message.render(translations("fr").gettext)


def test_the_pen_api_answers_an_unknown_name_in_english(client) -> None:  # type: ignore[no-untyped-def]
    query = {**PEN, "w.properties": "Perfornat"}
    for headers in ({}, FR):
        response = client.get("/calculator/exact?" + urlencode(query), headers=headers)
        assert response.status_code == 422, response.text[:300]
        messages = [e["message"] for e in response.json()["errors"]]
        assert "unknown property or special rule 'Perfornat'; did you mean 'Perforant'?" in messages


def test_the_calculator_shows_the_pen_types_in_french(client) -> None:  # type: ignore[no-untyped-def]
    """The default ``infantry``, a preset's or a typed type reads in French, the vehicle
    types picker offers the French names first; the query keeps what was given."""
    query = {"system": "pen", "t.kind": "vehicle", "v.types": "tank, fast", "v.front": "10"}
    page = html(client.get("/calculator?" + urlencode(query), headers=FR))
    shown = page.css_first("input[name='v.types']")
    assert shown is not None
    assert shown.attributes["value"] == "char d'assaut, rapide"
    unit_type = page.css_first("input[name='t.unit_type']")
    assert unit_type is not None
    assert unit_type.attributes["value"] == "infanterie"
    weapon_type = page.css_first("input[name='w.type']")
    assert weapon_type is not None
    assert weapon_type.attributes["value"] == "tir rapide"
    assert weapon_type.attributes["placeholder"] == "lourde 1 explosion"
    picker = [o.attributes["value"] for o in page.css("#pen-vehicle-types option")]
    assert picker[:2] == ["char d'assaut", "ouvert"]
    english = html(client.get("/calculator?" + urlencode(query)))
    assert english.css_first("input[name='v.types']").attributes["value"] == "tank, fast"  # type: ignore[union-attr]
    assert [o.attributes["value"] for o in english.css("#pen-vehicle-types option")][:2] == [
        "tank",
        "open-topped",
    ]


def test_the_api_detail_is_in_the_readers_language(client) -> None:  # type: ignore[no-untyped-def]
    """The problem document's ``detail`` speaks the reader's language; each entry of
    ``errors`` keeps its English ``message`` (the API's contract)."""
    from tests.combat.test_api import PEN_ANALYZE, PEN_BOLTERS

    body = {**PEN_BOLTERS, "weapon": {**PEN_BOLTERS["weapon"], "properties": ["Perfornat"]}}
    english = "unknown property or special rule 'Perfornat'; did you mean 'Perforant'?"
    french = "propriété ou règle spéciale inconnue 'Perfornat' ; vouliez-vous dire 'Perforant' ?"
    for headers, detail in (({}, english), (FR, french)):
        response = client.post(PEN_ANALYZE, json=body, headers=headers)
        assert response.status_code == 422, response.text[:300]
        problem = response.json()
        (error,) = problem["errors"]
        assert error["message"] == english
        assert problem["detail"] == f"{error['field']}: {detail}"
