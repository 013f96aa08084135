"""Issue 18, French everywhere: the JSON request builders (10e, PEN, Black Reach) and the dice
expressions keep each problem's message id and values (``N_`` and ``Message``, ADR 0003
addendum), so that a page shows them in the reader's language; the English ``message`` the
API writes is unchanged, byte for byte."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest
from babel.messages.extract import extract_from_file

from app.core.config import ROOT
from app.engine.black_reach.requests import request_from_dict as black_reach_request
from app.engine.errors import ProfileError
from app.engine.pen.requests import request_from_dict as pen_request
from app.engine.wh40k10e import request_from_dict as wh40k10e_request

WEAPON = {"name": "g", "kind": "ranged", "attacks": "2", "skill": 3, "strength": 4, "damage": "1"}
TEN_E = {
    "attacks": [{"models": 1, "weapon": WEAPON}],
    "target": {"models": 1, "toughness": 4, "save": 3, "wounds": 1},
}
PEN = {
    "attacker": {"models": 1, "bs": 4},
    "weapon": {"name": "Lascannon", "type": "heavy 1", "strength": 9, "ap": 2},
    "target": {"models": 1, "toughness": 4, "wounds": 1, "save": 3},
}
BLACK_REACH = {"kind": "shot", "attacker": {"cv": 3}, "target": {"dv": 3}}

# a stand-in French catalogue: the nested reason is translated too
FRENCH = {
    "unknown field": "champ inconnu",
    "unknown field (known: %(known)s)": "champ inconnu (connus : %(known)s)",
    "invalid dice expression %(text)s: %(problem)s": "expression de dés %(text)s invalide : "
    "%(problem)s",
    "only D3 and D6 are allowed, not D%(sides)s": "seuls les D3 et les D6 sont permis, pas "
    "D%(sides)s",
    "must be an integer, got %(value)s": "doit être un entier, reçu %(value)s",
    "must be between %(lo)s and %(hi)s": "doit être entre %(lo)s et %(hi)s",
}


def _with(base: Mapping[str, Any], **changes: Any) -> dict[str, Any]:
    out = {k: dict(v) if isinstance(v, dict) else v for k, v in base.items()}
    for key, value in changes.items():
        section, _, name = key.partition("__")
        if name:
            out[section] = {**out[section], name: value}
        else:
            out[section] = value
    return out


CASES: list[tuple[Callable[[Any], object], dict[str, Any], str, str, str, str]] = [
    (
        wh40k10e_request,
        {**TEN_E, "bogus": 1},
        "bogus",
        "unknown field",
        "unknown field",
        "champ inconnu",
    ),
    (
        wh40k10e_request,
        {**TEN_E, "attacks": [{"models": 1, "weapon": {**WEAPON, "attacks": "D7"}}]},
        "attacks[0].weapon.attacks",
        "invalid dice expression 'D7': only D3 and D6 are allowed, not D7",
        "invalid dice expression %(text)s: %(problem)s",
        "expression de dés 'D7' invalide : seuls les D3 et les D6 sont permis, pas D7",
    ),
    (
        pen_request,
        _with(PEN, target__bogus=1),
        "target.bogus",
        "unknown field",
        "unknown field",
        "champ inconnu",
    ),
    (
        pen_request,
        _with(PEN, attacker__bs="4"),
        "attacker.bs",
        "must be an integer, got '4'",
        "must be an integer, got %(value)s",
        "doit être un entier, reçu '4'",
    ),
    (
        black_reach_request,
        {**BLACK_REACH, "bogus": 1},
        "bogus",
        "unknown field (known: attacker, kind, situation, target)",
        "unknown field (known: %(known)s)",
        "champ inconnu (connus : attacker, kind, situation, target)",
    ),
    (
        black_reach_request,
        _with(BLACK_REACH, attacker__cv=99),
        "attacker.cv",
        "must be between -10 and 20",
        "must be between %(lo)s and %(hi)s",
        "doit être entre -10 et 20",
    ),
]


@pytest.mark.parametrize(("build", "body", "field", "english", "msgid", "french"), CASES)
def test_a_builder_problem_keeps_its_english_and_its_message(
    build: Callable[[Any], object],
    body: dict[str, Any],
    field: str,
    english: str,
    msgid: str,
    french: str,
) -> None:
    with pytest.raises(ProfileError) as caught:
        build(body)
    err = caught.value
    problems = dict(zip((f for f, _m in err.errors), err.templates, strict=True))
    assert dict(err.errors)[field] == english
    template = problems[field]
    assert template.msgid == msgid
    assert str(template) == english
    assert template.render(lambda m: FRENCH.get(m, m)) == french


def test_the_builders_and_dice_messages_are_extracted() -> None:
    for path, expected in (
        ("app/engine/dice.py", "only D3 and D6 are allowed, not D%(sides)s"),
        ("app/engine/errors.py", "invalid dice expression %(text)s: %(problem)s"),
        ("app/engine/wh40k10e/profiles.py", "unknown field"),
        ("app/engine/pen/requests.py", "must be true or false, got %(value)s"),
        ("app/engine/black_reach/requests.py", "unknown field (known: %(known)s)"),
    ):
        found = {
            str(message)
            for _line, message, _c, _ctx in extract_from_file(
                "python", str(ROOT / path), keywords={"N_": None}
            )
        }
        assert expected in found, path
