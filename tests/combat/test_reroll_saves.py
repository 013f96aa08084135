"""The calculator's save re-roll (``situation.reroll_saves``): the JSON API's exact odds and
roll, its refusal of a policy a save cannot have, and the page's field (form, query, request)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from app.combat.forms.wh40k10e import Wh40k10eForm
from tests.combat.test_api import ANALYZE, BOLT_RIFLES, RESOLVE, body
from tests.combat.test_web import BOLT_RIFLES as BOLT_QUERY
from tests.combat.test_web import url
from tests.support.web import html

FORM = Wh40k10eForm()


@pytest.mark.parametrize(
    ("policy", "failed"),
    # 20 attacks, hits 2/3, wounds 1/2, saves 4+ (3+ AP -1): fails 1/2, 5/12 (1s re-rolled),
    # 1/4 (failures re-rolled)
    [("none", Fraction(10, 3)), ("ones", Fraction(25, 9)), ("failed", Fraction(5, 3))],
)
def test_analyze_exact_failed_saves(client, policy: str, failed: Fraction) -> None:
    response = client.post(ANALYZE, json=body(**{"situation.reroll_saves": policy}))
    assert response.status_code == 200, response.text
    stages = response.json()["stages"]
    assert Fraction(stages["failed_saves"]["mean"]["exact"]) == failed


def test_the_field_is_optional(client) -> None:
    assert "reroll_saves" not in BOLT_RIFLES["situation"]
    data = client.post(ANALYZE, json=BOLT_RIFLES).json()
    assert Fraction(data["stages"]["failed_saves"]["mean"]["exact"]) == Fraction(10, 3)


@pytest.mark.parametrize("policy", ["non_critical", "twice", 1])
def test_a_policy_a_save_cannot_have_is_a_422_naming_it(client, policy: object) -> None:
    response = client.post(ANALYZE, json=body(**{"situation.reroll_saves": policy}))
    assert response.status_code == 422, response.text
    fields = {e["field"] for e in response.json()["errors"]}
    assert "situation.reroll_saves" in fields


def test_resolve_re_rolls_a_one_and_keeps_it(client) -> None:
    one_attack = body(
        **{
            "attacks.0.models": 1,
            "attacks.0.weapon.attacks": "1",
            "situation.reroll_saves": "ones",
        }
    )
    # hit 6, wound 4, save 1 re-rolled into 5: saved
    data = client.post(RESOLVE, json={**one_attack, "dice": [6, 4, 1, 5]}).json()
    save = data["dice"][2]
    assert (save["stage"], save["value"], save["original"], save["rerolled"]) == (
        "save",
        5,
        1,
        True,
    )
    assert data["target_after"]["wounds_lost"] == 0


def test_form_reads_and_keeps_the_field() -> None:
    state = FORM.parse([*BOLT_QUERY, ("s.reroll_saves", "failed")])
    assert not state.has_errors
    assert state.request is not None
    assert state.request["situation"]["reroll_saves"] == "failed"
    assert ("s.reroll_saves", "failed") in state.query
    plain = FORM.parse(BOLT_QUERY)
    assert plain.request is not None
    assert "reroll_saves" not in plain.request["situation"]
    assert not any(k == "s.reroll_saves" for k, _v in plain.query)


def test_page_offers_the_save_re_roll(client) -> None:
    tree = html(client.get(url([*BOLT_QUERY, ("s.reroll_saves", "ones")])))
    select = tree.css_first('select[name="s.reroll_saves"]')
    assert select is not None
    options = [o.attributes.get("value") for o in select.css("option")]
    assert options == ["none", "ones", "failed"]
    chosen = [o.attributes.get("value") for o in select.css("option") if "selected" in o.attributes]
    assert chosen == ["ones"]


def test_a_bad_save_re_roll_on_the_page_is_an_error_by_the_field(client) -> None:
    assert FORM.field_for(["situation", "reroll_saves"]) == "s.reroll_saves"
    response = client.get(url([*BOLT_QUERY, ("s.reroll_saves", "non_critical")]))
    assert response.status_code == 200
    tree = html(response)
    node = tree.css_first("#err-s-reroll_saves")
    assert node is not None
    assert "hidden" not in node.attributes
    assert node.text().strip()
