"""The editor's fields for a Character's aura and a Boss Pole's bonuses (issue 16, rulings
147-148; docs/black-reach-data.md): typed in the option form's equipment block, checked by the
engine's loader (its message beside the field, nothing saved), saved as the JSON the loader
reads, shown again, and an option saved as shown comes back exactly."""

from __future__ import annotations

from typing import Any

from app.blackreach import forms
from tests.blackreach.test_web_gear import (
    _beside,
    _browser,
    _copy_sample,
    _forces,
    _item,
    _submitted,
)
from tests.blackreach.test_web_roundtrip import _as_sent
from tests.support.web import csrf, html

POLE = {
    "id": "pole",
    "name": "Boss Pole",
    "faction": "orks",
    "type": "personalisation",
    "cost": 2,
    "bands": ["red"],
    "equipment": {"markers": 3, "aura": 3, "bonuses": ["zag", "dakka", "boss", "grim"]},
}


def test_an_aura_and_bonuses_come_back_exactly_through_the_form() -> None:
    fields = forms.option_fields(POLE)
    assert fields["equipment.aura"] == 3
    assert fields["equipment.bonuses"] == ["zag", "dakka", "boss", "grim"]
    # a browser sends the select's order (dakka, boss, zag, grim): the stored order is kept
    sent = _as_sent({**fields, "equipment.bonuses": ["dakka", "boss", "zag", "grim"]})
    assert forms.option_from_form(sent, POLE) == POLE
    # an aura of 0 is one (the Character alone), not a blank; a stored [] stays []
    odd = {**POLE, "equipment": {"aura": 0, "assault_bonus": 1, "bonuses": []}}
    assert forms.option_from_form(_as_sent(forms.option_fields(odd)), odd) == odd
    # a bonus the lists do not know stays chosen, for the loader to name
    unknown = {**POLE, "equipment": {"markers": 3, "bonuses": ["dakka", "waaagh"]}}
    assert forms.option_from_form(_as_sent(forms.option_fields(unknown)), unknown) == unknown


def test_unchosen_bonuses_and_a_blank_aura_drop_their_keys() -> None:
    fields = {**forms.option_fields(POLE), "equipment.aura": "", "equipment.bonuses": ["boss"]}
    built = forms.option_from_form(_as_sent(fields), POLE)
    assert built["equipment"] == {"markers": 3, "bonuses": ["boss"]}
    fields["equipment.bonuses"] = []
    built = forms.option_from_form(_as_sent(fields), POLE)
    assert built["equipment"] == {"markers": 3}


def test_a_boss_pole_and_a_banner_are_typed_checked_and_shown_again(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    page = html(alice.get(path))
    # the page offers the four bonuses, none chosen, and a blank aura
    select = page.css_first("#option-form select[name='equipment.bonuses']")
    assert select is not None
    assert [o.attributes.get("value") for o in select.css("option")] == [
        "dakka",
        "boss",
        "zag",
        "grim",
    ]
    form = {
        **_submitted(page, "option-form"),
        "csrf_token": csrf(alice, path),
        "id": "my-pole",
        "name": "Boss Pole",
        "faction": "orks",
        "type": "personalisation",
        "cost": "2",
        "bands": "red",
        "equipment.markers": "3",
        "equipment.aura": "3",
        "equipment.bonuses": ["dakka", "boss", "zag"],
    }
    r = alice.post(f"{path}/options", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert _item(alice, path, "options", "my-pole")["equipment"] == {
        "markers": 3,
        "aura": 3,
        "bonuses": ["dakka", "boss", "zag"],
    }
    shown = _submitted(html(alice.get(f"{path}?option=my-pole")), "option-form")
    assert shown["equipment.aura"] == "3"
    assert shown["equipment.bonuses"] == ["dakka", "boss", "zag"]
    before = _forces(alice, path)
    r = alice.post(f"{path}/options", data=shown, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert _forces(alice, path) == before
    # the loader's checks, beside each field; nothing saved, the typed values kept
    bad = {
        **shown,
        "version": _submitted(html(alice.get(path)), "option-form")["version"],
        "equipment.aura": "13",
        "equipment.bonuses": ["dakka", "waaagh"],  # a hand-made request: not on the list
    }
    r = alice.post(f"{path}/options", data=bad)
    assert r.status_code == 422
    assert _beside(r, "option-form", "equipment.aura") == ["an integer from 0 to 12"]
    assert _beside(r, "option-form", "equipment.bonuses") == ["dakka, boss, zag or grim"]
    again = _submitted(html(r), "option-form")
    assert again["equipment.aura"] == "13"
    assert again["equipment.bonuses"] == ["dakka", "waaagh"]
    assert _forces(alice, path) == before
    # a Waaagh! Banner: an aura and an assault bonus, no marker (rulings 148)
    banner = {
        **_submitted(html(alice.get(path)), "option-form"),
        "csrf_token": csrf(alice, path),
        "id": "my-banner",
        "name": "Waaagh! Banner",
        "faction": "orks",
        "type": "personalisation",
        "cost": "3",
        "bands": "red",
        "equipment.aura": "2",
        "equipment.assault_bonus": "1",
    }
    r = alice.post(f"{path}/options", data=banner, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert _item(alice, path, "options", "my-banner")["equipment"] == {
        "aura": 2,
        "assault_bonus": 1,
    }


def test_purity_seals_reroll_is_a_checkbox_that_comes_back_exactly(app: Any) -> None:
    """The ``reroll`` flag of rulings 153 (Purity Seals): ticked, true; unticked, no key; a
    stored false stays false when the option is saved as shown."""
    seals = {**POLE, "equipment": {"markers": 3, "reroll": True}}
    fields = forms.option_fields(seals)
    assert fields["equipment.reroll"] is True
    assert forms.option_from_form(_as_sent(fields), seals) == seals
    plain = {**POLE, "equipment": {"markers": 3, "reroll": False}}
    assert forms.option_from_form(_as_sent(forms.option_fields(plain)), plain) == plain
    unticked = {**fields, "equipment.reroll": False}
    assert forms.option_from_form(_as_sent(unticked), seals)["equipment"] == {"markers": 3}
    alice = _browser(app)
    path = _copy_sample(alice)
    form = {
        **_submitted(html(alice.get(path)), "option-form"),
        "csrf_token": csrf(alice, path),
        "id": "my-seals",
        "name": "Purity Seals",
        "faction": "ultramarines",
        "type": "equipment",
        "cost": "2",
        "bands": "gold",
        "equipment.markers": "3",
        "equipment.reroll": "true",
    }
    r = alice.post(f"{path}/options", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert _item(alice, path, "options", "my-seals")["equipment"] == {"markers": 3, "reroll": True}
    shown = _submitted(html(alice.get(f"{path}?option=my-seals")), "option-form")
    assert shown["equipment.reroll"] == "true"
