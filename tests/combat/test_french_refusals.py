"""Issue 18, the engine's refusals in the reader's language: an attack too large for the exact
analysis is refused by the engine (a ProfileError) in English, and the calculator page shows it
in French to a French reader, its numbers kept; the API's problem document keeps the English
``message`` other tools read, with no extra field (app/engine/errors.py: ``N_`` and
``Message``)."""

from __future__ import annotations

from urllib.parse import urlencode

from babel.messages.extract import extract_from_file

from app.core.config import ROOT
from app.core.i18n import translations
from app.engine.errors import N_, Message, ProfileError
from app.engine.wh40k10e import exact
from tests.support.web import html

FR = {"Accept-Language": "fr"}

# 30 models, D6+4 attacks each, Sustained Hits and Lethal Hits, into a T11 model of 30 W with
# Feel No Pain: its exact odds would be fractions of more than 4,000 digits (tests/combat/
# test_limits.py), refused in well under a second
HEAVY_10E = {
    "system": "wh40k-10e",
    "w0.models": "30",
    "w0.name": "Heavy bolter",
    "w0.kind": "ranged",
    "w0.attacks": "D6+4",
    "w0.skill": "3+",
    "w0.strength": "6",
    "w0.ap": "-2",
    "w0.damage": "D6+1",
    "w0.abilities": "Sustained Hits 1, Lethal Hits",
    "t.models": "1",
    "t.toughness": "11",
    "t.save": "3+",
    "t.wounds": "30",
    "t.feel_no_pain": "6+",
}
# PEN: 30 models with 9 Rending shots each into 30 models of 2 W with an invulnerable save: two
# separate allocations, refused, naming the largest attack answered (pen rulings 42)
HEAVY_PEN = {
    "system": "pen",
    "a.models": "30",
    "a.bs": "4",
    "w.type": "assault",
    "w.shots": "9",
    "w.strength": "5",
    "w.ap": "4",
    "w.properties": "Perforant",
    "t.models": "30",
    "t.toughness": "4",
    "t.wounds": "2",
    "t.save": "3+",
    "t.invulnerable_save": "5+",
}
ANALYZE = {"wh40k-10e": "/api/v1/rulesets/wh40k-10e/combat/analyze"}


def _errors(client, query: dict[str, str], **headers: str) -> str:  # type: ignore[no-untyped-def]
    response = client.get("/calculator?" + urlencode(query), headers=headers)
    assert response.status_code == 200, response.text[:300]
    tree = html(response)
    return " ".join(node.text() for node in tree.css(".error, [id^=err-], #form-errors"))


def test_a_refused_10e_attack_is_french_on_a_french_page(client) -> None:  # type: ignore[no-untyped-def]
    english = _errors(client, HEAVY_10E)
    assert "this attack is too large to analyse exactly" in english
    assert f"more than {exact.MAX_EXACT_DIGITS:,} digits" in english
    french = _errors(client, HEAVY_10E, **FR)
    assert "cette attaque est trop grande pour une analyse exacte" in french
    assert f"plus de {exact.MAX_EXACT_DIGITS:,} chiffres" in french
    assert "scindez-la en attaques plus petites" in french
    assert "too large" not in french


def test_a_refused_pen_attack_is_french_on_a_french_page(client) -> None:  # type: ignore[no-untyped-def]
    english = _errors(client, HEAVY_PEN)
    assert "too large for an exact analysis (30 models of 2 W" in english
    assert "of the 30 attacking models at a time" in english
    assert " or a target of at most " in english
    french = _errors(client, HEAVY_PEN, **FR)
    assert "trop grande pour une analyse exacte (30 figurines de 2 PV" in french
    assert "des 30 figurines attaquantes à la fois ou une cible d'au plus " in french
    assert "too large" not in french


def test_the_api_message_stays_english_with_no_extra_field(client) -> None:  # type: ignore[no-untyped-def]
    body = {
        "attacks": [
            {
                "models": 30,
                "weapon": {
                    "name": "Heavy bolter",
                    "kind": "ranged",
                    "attacks": "D6+4",
                    "skill": 3,
                    "strength": 6,
                    "ap": -2,
                    "damage": "D6+1",
                    "abilities": ["Sustained Hits 1", "Lethal Hits"],
                },
            }
        ],
        "target": {"models": 1, "toughness": 11, "save": 3, "wounds": 30, "feel_no_pain": 6},
    }
    for headers in ({}, FR):
        response = client.post(ANALYZE["wh40k-10e"], json=body, headers=headers)
        assert response.status_code == 422, response.text[:300]
        (error,) = response.json()["errors"]
        assert set(error) == {"field", "loc", "message", "type"}
        assert error["message"] == (
            "this attack is too large to analyse exactly (its exact odds would be fractions of "
            f"more than {exact.MAX_EXACT_DIGITS:,} digits): split it into smaller attacks "
            "(fewer models per line, or one weapon at a time)"
        )


def test_a_profile_error_keeps_its_message_through_prefix_and_collect() -> None:
    one = ProfileError("models", N_("must be 1..%(most)s"), most=30)
    either = Message(N_("%(first)s or %(second)s"), {"first": "a", "second": one.templates[0]})
    two = ProfileError("", either)
    assert one.message == "must be 1..30"
    both = ProfileError.collect([one, two]).with_prefix("target")
    assert both.errors == (("target.models", "must be 1..30"), ("target", "a or must be 1..30"))
    assert [t.msgid for t in both.templates] == ["must be 1..%(most)s", "%(first)s or %(second)s"]
    french = {
        "%(first)s or %(second)s": "%(first)s ou %(second)s",
        "must be 1..%(most)s": "1..%(most)s",
    }
    # nested messages go through the translation too
    assert both.templates[1].render(lambda m: french.get(m, m)) == "a ou 1..30"
    # errors set by hand, without templates, fall back to their English text
    both.errors = (("x", "plain"),)
    assert both.templates == (Message("plain"),)


def test_the_engines_refusals_are_extracted() -> None:
    for path, expected in (
        ("app/engine/wh40k10e/exact.py", "this attack is too large to analyse exactly"),
        ("app/engine/pen/analysis.py", "too large for an exact analysis (%(models)s models"),
    ):
        found = [
            message
            for _line, message, _c, _ctx in extract_from_file(
                "python", str(ROOT / path), keywords={"N_": None}
            )
        ]
        assert any(str(m).startswith(expected) for m in found), path


BOLT_RIFLES = {
    "system": "wh40k-10e",
    "w0.models": "10",
    "w0.name": "Bolt rifle",
    "w0.kind": "ranged",
    "w0.attacks": "2",
    "w0.skill": "3+",
    "w0.strength": "4",
    "w0.ap": "-1",
    "w0.damage": "1",
    "w0.abilities": "Heavy, Assault",
    "t.models": "5",
    "t.toughness": "4",
    "t.save": "3+",
    "t.wounds": "2",
}


def test_the_engines_profile_errors_are_french_too(client) -> None:  # type: ignore[no-untyped-def]
    typo = {**BOLT_RIFLES, "w0.abilities": "Heavy, Lethal Hitz"}
    assert "did you mean 'Lethal Hits'?" in _errors(client, typo)
    french = _errors(client, typo, **FR)
    assert "aptitude d'arme inconnue 'Lethal Hitz' ; vouliez-vous dire 'Lethal Hits' ?" in french
    heavy = {**BOLT_RIFLES, "t.models": "10", "t.wounds": "30"}
    assert "the unit has 300 wounds in all; at most 200" in _errors(client, heavy)
    assert "l'unité a 300 PV en tout ; au plus 200" in _errors(client, heavy, **FR)


def test_too_many_dice_is_refused_in_english_with_its_message_kept() -> None:
    from app.combat import service
    from app.combat.exceptions import TooManyDice

    refused = service._engine_error(TooManyDice(500))
    (error,) = refused.errors or []
    assert error["message"] == "this resolution needs more than 500 dice: use fewer attacks"
    (template,) = refused.templates
    assert template is not None
    assert template.render(translations("fr").gettext) == (
        "cette résolution demande plus de 500 dés : utilisez moins d'attaques"
    )
