"""Violations in the reader's language: our templates are the engine's, and the params that
carry English words are translated too."""

from __future__ import annotations

import pytest

from app.armies import messages
from app.core.i18n import current_locale
from app.engine.wh40k10e.army import FIXES, MESSAGES, Code, Severity, Violation


def test_templates_are_the_engines() -> None:
    assert dict(messages.MESSAGES) == dict(MESSAGES)
    assert dict(messages.FIXES) == dict(FIXES)


@pytest.fixture
def french() -> object:
    token = current_locale.set("fr")
    yield
    current_locale.reset(token)


def violation(
    code: Code, params: dict, message_id: str | None = None, fix_id: str | None = None
) -> Violation:
    mid, fid = message_id or code.value, fix_id or code.value
    return Violation(
        code=code,
        severity=Severity.ERROR,
        message=MESSAGES[mid].format(**params),
        fix=FIXES[fid].format(**params),
        unit=0,
        message_id=mid,
        fix_id=fid,
        params=params,
    )


def test_english_is_the_engines_text() -> None:
    v = violation(
        Code.UNKNOWN_DATASHEET,
        {"datasheet": "X", "closest": "Y, Z", "suggestion": " (did you mean Y or Z?)"},
        fix_id="unknown",
    )
    out = messages.violation_json(v)
    assert out["message"] == v.message
    assert out["fix"] == v.fix
    assert out["closest"] == ["Y", "Z"]


@pytest.mark.usefixtures("french")
@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"suggestion": " (did you mean Y or Z?)"}, " (vouliez-vous dire Y ou Z ?)"),
        ({"suggestion": ", e.g. Captain (#1)"}, ", par exemple Captain (#1)"),
        ({"suggestion": "Rhino (#5), 75 points"}, "Rhino (#5), 75 points"),
        (
            {"allowed": "between 5 and 10 (points change at 6)"},
            "entre 5 et 10 (les points changent à 6)",
        ),
        ({"allowed": "11 or 22"}, "11 ou 22"),
        ({"allowed": "Captain, Lieutenant"}, "Captain, Lieutenant"),
        ({"battle_size": "Strike Force"}, "Force de Frappe"),
        ({"requirement": "Psyker and non-Terminator"}, "Psyker et non-Terminator"),
        ({"factions": "none"}, "aucune"),
        ({"count": 3}, 3),
    ],
)
def test_params_in_french(params: dict, expected: object) -> None:
    (value,) = messages.localised_params(params).values()
    assert value == expected


@pytest.mark.usefixtures("french")
def test_a_whole_violation_in_french() -> None:
    v = violation(
        Code.UNIT_SIZE_INVALID,
        {
            "datasheet": "Boyz (#2)",
            "models": 12,
            "allowed": "between 10 and 20 (points change at 11)",
        },
    )
    out = messages.violation_json(v)
    assert (
        out["message"]
        == "Boyz (#2) a 12 figurines ; il en faut entre 10 et 20 (les points changent à 11)."
    )
    assert out["fix"] == "Donnez à Boyz (#2) entre 10 et 20 (les points changent à 11) figurines."
    assert out["params"]["allowed"] == "between 10 and 20 (points change at 11)"  # unchanged


@pytest.mark.usefixtures("french")
def test_every_message_and_fix_is_translated_and_keeps_its_placeholders() -> None:
    import re
    import string

    from app.core.i18n import gettext

    for template in [*MESSAGES.values(), *FIXES.values()]:
        french = gettext(template)
        assert french != template or not re.search("[a-z]{4}", template), template
        fields = {f for _t, f, _s, _c in string.Formatter().parse(template) if f}
        assert fields == {f for _t, f, _s, _c in string.Formatter().parse(french) if f}, template


@pytest.mark.usefixtures("french")
def test_a_category_limit_in_french() -> None:
    params = {
        "keyword": "Cults of the Dark Gods",
        "count": 540,
        "limit": 500,
        "excess": 40,
        "battle_size": "Strike Force",
        "suggestion": ", e.g. Khorne Berzerkers (#4)",
    }
    v = violation(
        Code.CATEGORY_LIMIT_EXCEEDED,
        params,
        message_id="category-limit-exceeded.points",
        fix_id="category-limit-exceeded.points",
    )
    out = messages.violation_json(v)
    assert out["message"] == (
        "Les unités Cults of the Dark Gods coûtent 540 points : le catalogue en autorise au "
        "plus 500 points en Force de Frappe."
    )
    assert out["fix"] == (
        "Retirez 40 points d'unités Cults of the Dark Gods, par exemple Khorne Berzerkers (#4)."
    )


def test_condition_texts_are_the_engines() -> None:
    from app.engine.wh40k10e.army.catalog import CONDITION_TEXTS

    assert dict(messages.CONDITION_TEXTS) == dict(CONDITION_TEXTS)


def test_the_datas_condition_is_worded_again_in_the_readers_language(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The ``{condition}`` of a data restriction goes through gettext piece by piece (issue
    17): its template, compare words, joiners and battle size, the data's names kept."""
    from app.engine.wh40k10e.army import Compare, ConditionOp, CountOf, RosterCondition

    french = {
        "{compare} {count} models in the unit": "{compare} {count} figurines dans l'unité",
        "{compare} {count} × {name} in the unit": "{compare} {count} × {name} dans l'unité",
        "the battle size is not {name}": "le format de bataille n'est pas {name}",
        "fewer than": "moins de",
        "more than": "plus de",
        " and ": " et ",
        "Onslaught": "Assaut",
        "{datasheet} breaks a restriction of the catalogue: {condition}.": (
            "{datasheet} enfreint une restriction du catalogue : {condition}."
        ),
    }
    monkeypatch.setattr(messages, "_", lambda s: french.get(s, s))
    when = RosterCondition(
        ConditionOp.ALL,
        args=(
            RosterCondition.count(CountOf.MODELS, Compare.FEWER_THAN, 10),
            RosterCondition.count(CountOf.WARGEAR, Compare.MORE_THAN, 1, "Heavy gun"),
            RosterCondition.count(CountOf.BATTLE_SIZE, Compare.FEWER_THAN, 1, "Onslaught"),
        ),
    )
    params = {"datasheet": "Raiders (#2)", "condition": str(when)}
    v = violation(Code.DATA_RESTRICTION, params)
    # without the condition object (a violation built elsewhere): the engine's English words
    assert messages.violation_json(v)["message"] == (
        f"Raiders (#2) enfreint une restriction du catalogue : {when}."
    )
    v = Violation(**{**{f: getattr(v, f) for f in v.__dataclass_fields__}, "condition": when})
    out = messages.violation_json(v)
    assert out["message"] == (
        "Raiders (#2) enfreint une restriction du catalogue : moins de 10 figurines dans "
        "l'unité et plus de 1 × Heavy gun dans l'unité et le format de bataille n'est pas "
        "Assaut."
    )
    assert out["params"]["condition"] == str(when)  # the params stay the engine's English
    assert str(when) == (
        "fewer than 10 models in the unit and more than 1 × Heavy gun in the unit and the "
        "battle size is not Onslaught"
    )
