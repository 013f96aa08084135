"""Issue 18, French everywhere: a bad dice expression on the French calculator page is French
(app/engine/dice.py marks its messages with ``N_`` and keeps them as a ``Message``), while the
API's problem document keeps its English ``message`` byte for byte, with no extra field."""

from __future__ import annotations

import pytest

from app.engine.dice import DiceExpr
from app.engine.errors import DiceExpressionError
from tests.combat.test_french_refusals import FR, _errors

ANALYZE = "/api/v1/rulesets/wh40k-10e/combat/analyze"

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
    "t.models": "5",
    "t.toughness": "4",
    "t.save": "3+",
    "t.wounds": "2",
}


def test_a_bad_dice_expression_is_french_on_a_french_page(client) -> None:  # type: ignore[no-untyped-def]
    query = {**BOLT_RIFLES, "w0.attacks": "D7", "w0.damage": "11D6"}
    english = _errors(client, query)
    assert "invalid dice expression 'D7': only D3 and D6 are allowed, not D7" in english
    assert "invalid dice expression '11D6': the number of dice must be 1..10" in english
    french = _errors(client, query, **FR)
    assert "expression de dés 'D7' invalide : seuls les D3 et les D6 sont permis, pas D7" in french
    assert "expression de dés '11D6' invalide : le nombre de dés doit être entre 1 et 10" in french
    assert "dice expression" not in french
    assert "allowed" not in french


def test_the_api_keeps_the_english_dice_message(client) -> None:  # type: ignore[no-untyped-def]
    body = {
        "attacks": [
            {
                "models": 1,
                "weapon": {
                    "name": "g",
                    "kind": "ranged",
                    "attacks": "D7",
                    "skill": 3,
                    "strength": 4,
                    "damage": "1",
                },
            }
        ],
        "target": {"models": 1, "toughness": 4, "save": 3, "wounds": 1},
    }
    for headers in ({}, FR):
        response = client.post(ANALYZE, json=body, headers=headers)
        assert response.status_code == 422, response.text[:300]
        (error,) = response.json()["errors"]
        assert error == {
            "field": "attacks.0.weapon.attacks",
            "loc": ["body", "attacks", "0", "weapon", "attacks"],
            "message": "Value error, invalid dice expression 'D7': only D3 and D6 are allowed, "
            "not D7",
            "type": "value_error",
        }


@pytest.mark.parametrize(
    ("text", "english"),
    [
        ("D7", "only D3 and D6 are allowed, not D7"),
        ("11D6", "the number of dice must be 1..10"),
        ("D6+101", "the added constant must be at most 100"),
        ("101", "a constant must be at most 100"),
        ("", "empty"),
        ("banana", "expected a number or [count]D(3|6)[+number], e.g. 2, D6, 2D6, D3+3"),
        ("D6+1" * 6, "too long"),
    ],
)
def test_each_dice_error_keeps_its_english_text_and_its_message(text: str, english: str) -> None:
    with pytest.raises(DiceExpressionError) as caught:
        DiceExpr.parse(text)
    err = caught.value
    shown = (text[:20] + "...") if len(text) > 20 else text
    assert err.message == english
    assert str(err) == f"invalid dice expression {shown!r}: {english}"
    assert str(err.template) == str(err)
    assert err.template.msgid == "invalid dice expression %(text)s: %(problem)s"
    assert str(err.reason) == english
