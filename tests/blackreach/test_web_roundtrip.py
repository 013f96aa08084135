"""The editor's forms never change what they were not asked to (issue 16): an option switched to
another type keeps only the block that type uses; an item opened and saved as shown comes back
exactly (a band name with a comma, an ability value with ``=``, an id or a name with spaces
around it, a value the lists do not know); an id with ``&``, ``#`` or a line break is encoded in
every link and redirect."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

import pytest

from app.blackreach import forms
from tests.blackreach.test_web_gear import _beside, _browser, _copy_sample, _forces, _submitted
from tests.support.web import csrf, html

HOSTILE = "a&option=b#x\r\nSet-Cookie: z=1"


def _as_sent(fields: dict[str, Any]) -> forms.FormData:
    """What a browser sends for a form filled with these fields, unchanged (a checkbox left
    unticked is not sent, a multi-select sends each choice, a text field its value)."""
    single: dict[str, str] = {}
    multi: dict[str, list[str]] = {}
    for name, value in fields.items():
        if isinstance(value, bool):
            if value:
                single[name], multi[name] = "true", ["true"]
        elif isinstance(value, list):
            multi[name] = [str(v) for v in value]
        else:
            single[name] = str(value)
            multi[name] = [str(value)]
    return forms.FormData(single, multi)


def _typed(fields: dict[str, str | list[str]]) -> forms.FormData:
    single = {k: v for k, v in fields.items() if isinstance(v, str)}
    multi = {k: (v if isinstance(v, list) else [v]) for k, v in fields.items()}
    return forms.FormData(single, multi)


POWER = {
    "id": "bolt",
    "name": "Bolt",
    "faction": "ultramarines",
    "type": "psychic_power",
    "cost": 4,
    "power": {"psyker": "librarian", "discipline": "biomancy", "cost": 2, "effect": "enfeeble"},
}


# -- an option's type chooses its block --------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "kept"),
    [
        ("ordnance", {"ordnance": {}}),
        ("equipment", {"equipment": {}}),
        ("personalisation", {"equipment": {}}),
        ("support", {}),
    ],
)
def test_switching_a_powers_type_drops_the_power(kind: str, kept: dict[str, Any]) -> None:
    """The engine reads a block whatever the type (a power on an ordnance option would still be
    manifested): the form writes only the block the chosen type uses."""
    shown = forms.option_fields(POWER)
    shown["type"] = kind
    built = forms.option_from_form(_as_sent(shown), POWER)
    assert {k: built[k] for k in ("equipment", "ordnance", "power") if k in built} == kept
    assert POWER["power"]["psyker"] == "librarian"  # the stored item is not changed in place


def test_switching_gear_to_a_power_drops_the_equipment() -> None:
    gear = {
        "id": "g",
        "name": "G",
        "faction": "orks",
        "type": "equipment",
        "cost": 3,
        "equipment": {"markers": 2, "shot_bonus": 1},
        "ordnance": {"bluff_tokens": 1},  # typed in the JSON editor: not the type's block
    }
    shown = forms.option_fields(gear)
    shown.update({"type": "psychic_power", "power.psyker": "weirdboy", "power.cost": "1"})
    built = forms.option_from_form(_as_sent(shown), gear)
    assert "equipment" not in built
    assert "ordnance" not in built
    assert built["power"] == {"psyker": "weirdboy", "cost": 1}


def test_a_type_the_engine_does_not_know_keeps_every_block() -> None:
    """Nothing to choose from: the blocks stay as typed, for the engine to refuse the type."""
    odd = {**POWER, "type": "relic", "ordnance": {"bluff_tokens": 1}}
    built = forms.option_from_form(_as_sent(forms.option_fields(odd)), odd)
    assert built["power"] == POWER["power"]
    assert built["ordnance"] == {"bluff_tokens": 1}


def test_an_option_switched_on_the_page_is_saved_with_its_new_block_only(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    shown = _submitted(html(alice.get(f"{path}?option=sample-um-enfeeble")), "option-form")
    shown.update({"type": "ordnance", "ordnance.bluff_tokens": "1"})
    r = alice.post(f"{path}/options", data=shown, follow_redirects=False)
    assert r.status_code == 303, r.text
    saved = next(o for o in _forces(alice, path)["options"] if o["id"] == "sample-um-enfeeble")
    assert saved["type"] == "ordnance"
    assert saved["ordnance"] == {"bluff_tokens": 1}
    assert "power" not in saved


# -- saved as shown: the same item -------------------------------------------------------------


def test_a_band_name_with_a_comma_comes_back_whole() -> None:
    option = {**POWER, "bands": ["gold, red", "blue;green", " spaced "]}
    built = forms.option_from_form(_as_sent(forms.option_fields(option)), option)
    assert built["bands"] == ["gold, red", "blue;green", " spaced "]
    # typed anew, a comma separates two bands (the field's own syntax)
    changed = {**forms.option_fields(option), "bands": "gold, red"}
    assert forms.option_from_form(_as_sent(changed), option)["bands"] == ["gold", "red"]


def test_ability_values_with_a_comma_or_equals_come_back_exactly() -> None:
    counter = {
        "id": "c",
        "name": "C",
        "faction": "orks",
        "class": "infantry",
        "faces": [
            {
                "kind": "full",
                "dv": 4,
                "mv": 3,
                "cv": {"infantry": 2},
                "abilities": [
                    {"id": "assault", "param": "1,2"},
                    {"id": "limited_range", "param": "a=b"},
                    {"id": "burst", "param": "3"},  # a text, not the number 3
                ],
            }
        ],
    }
    built = forms.counter_from_form(_as_sent(forms.counter_fields(counter)), counter)
    assert built["faces"][0]["abilities"] == counter["faces"][0]["abilities"]
    # a value typed anew is read as the field's syntax says
    typed = {**forms.counter_fields(counter), "faces[0].params": "assault=2, burst=4"}
    again = forms.counter_from_form(_as_sent(typed), counter)
    assert again["faces"][0]["abilities"] == [
        {"id": "assault", "param": 2},
        {"id": "limited_range"},
        {"id": "burst", "param": 4},
    ]


def test_an_id_and_names_with_spaces_around_them_edit_the_same_item() -> None:
    option = {
        **POWER,
        "id": " bolt ",
        "name": " Bolt ",
        "power": {**POWER["power"], "discipline": " bio ", "text": "line one\nline two "},
    }
    items = [{"id": "other"}, option]
    sent = _as_sent(forms.option_fields(option))
    index, found = forms.find_typed(items, sent)
    assert (index, found) == (1, option)  # not appended as a second "bolt"
    built = forms.option_from_form(sent, found)
    assert built == option
    # a new id typed with spaces around it is stripped, as before
    typed = _typed({"id": "  new  ", "name": " New "})
    assert forms.find_typed(items, typed) == (2, None)
    assert forms.option_from_form(typed, None)["id"] == "new"


def test_a_textarea_sent_with_crlf_keeps_the_stored_text() -> None:
    option = {**POWER, "power": {**POWER["power"], "text": "one\ntwo"}}
    fields = forms.option_fields(option)
    fields["power.text"] = "one\r\ntwo"  # what a browser sends for the textarea
    assert forms.option_from_form(_as_sent(fields), option)["power"]["text"] == "one\ntwo"


@pytest.mark.parametrize("typed", ["\u0663", "1_0", "\u00b2", "3.0"])
def test_a_number_python_alone_would_read_is_passed_to_the_engine_as_typed(typed: str) -> None:
    """``int("٣")`` is 3 and ``int("1_0")`` is 10: only ASCII digits are a number."""
    built = forms.option_from_form(_typed({"id": "o", "cost": typed}), None)
    assert built["cost"] == typed


def test_every_sample_item_comes_back_unchanged_through_its_form(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    before = _forces(alice, path)
    for kind, part in (("counter", "counters"), ("tile", "tiles"), ("option", "options")):
        for item in before[part]:
            page = html(alice.get(f"{path}?{kind}={quote(item['id'], safe='')}"))
            shown = _submitted(page, f"{kind}-form")
            r = alice.post(f"{path}/{part}", data=shown, follow_redirects=False)
            assert r.status_code == 303, (item["id"], r.text)
    assert _forces(alice, path) == before
    set_id = path.rsplit("/", 1)[1]
    scenarios = alice.get(f"/api/v1/black-reach/content/{set_id}").json()["scenarios"]
    assert scenarios
    for scenario in scenarios:
        page = html(alice.get(f"{path}?scenario={quote(scenario['id'], safe='')}"))
        shown = _submitted(page, "scenario-form")
        r = alice.post(f"{path}/scenario-form", data=shown, follow_redirects=False)
        assert r.status_code == 303, (scenario["id"], r.text)
    assert alice.get(f"/api/v1/black-reach/content/{set_id}").json()["scenarios"] == scenarios


def test_a_tiles_repeated_counters_and_their_order_survive_the_select() -> None:
    """A mob of two Boyz: the select shows each counter once and in the list's order; saving
    it as shown keeps the repeat and the order, a counter unchosen goes, a new one is added."""
    tile = {"id": "mob", "counters": ["nob", "boyz", "boyz", "shootas"]}
    fields = forms.tile_fields(tile)
    assert forms.tile_from_form(_as_sent(fields), tile)["counters"] == tile["counters"]
    fields["counters"] = ["boyz", "grots", "nob"]  # the select's order, shootas unchosen
    built = forms.tile_from_form(_as_sent(fields), tile)
    assert built["counters"] == ["nob", "boyz", "boyz", "grots"]


def test_a_wrecks_empty_cvs_stay_empty() -> None:
    counter = {
        "id": "c",
        "faces": [
            {"kind": "intact", "dv": 6, "cv": {"infantry": 1, "heavy_vehicle": None}},
            {"kind": "wreck", "dv": 6, "mv": None, "cv": {}},
        ],
    }
    built = forms.counter_from_form(_as_sent(forms.counter_fields(counter)), counter)
    assert [f["cv"] for f in built["faces"]] == [{"infantry": 1, "heavy_vehicle": None}, {}]


def test_a_sides_tiles_keep_their_slots_order_and_repeats() -> None:
    army = {
        "faction": "orks",
        "tiles": [
            {"tile": "mob", "slots": [{"option": "a"}]},
            {"tile": "boss", "slots": []},
            {"tile": "mob", "slots": [{"option": "b"}]},
        ],
    }
    scenario = {
        "id": "s",
        "sides": [{"id": "orks", "army": army}, {"id": "ultramarines"}],
        "objectives": [{"id": " hill ", "squares": [[1, 2]], "vp": 1}],
    }
    fields = forms.scenario_fields(scenario)
    again = forms.scenario_from_form(_as_sent(fields), scenario)
    assert again["sides"][0]["army"] == army
    assert again["objectives"][0]["id"] == " hill "  # its spaces kept, as shown
    fields["sides[0].tiles"] = ["boss", "new"]
    built = forms.scenario_from_form(_as_sent(fields), scenario)["sides"][0]["army"]
    assert built["tiles"] == [army["tiles"][1], {"tile": "new", "slots": []}]


def test_a_stored_value_the_lists_do_not_know_stays_chosen(app: Any, db: Any) -> None:
    """A psyker the engine no longer knows (the rules changed since the save) is shown chosen,
    not blank, so saving sends it back (the engine names it) instead of the default."""
    from sqlalchemy import update

    from app.blackreach.models import ContentSet

    alice = _browser(app)
    path = _copy_sample(alice)
    set_id = int(path.rsplit("/", 1)[1])
    forces = json.loads(html(alice.get(path)).css_first("#forces textarea").text())
    option = next(o for o in forces["options"] if o["id"] == "sample-um-enfeeble")
    option["power"]["psyker"] = "farseer"
    option["equipment"] = {"restriction": ["walker"]}  # not the type's block: dropped on save
    db.execute(update(ContentSet).where(ContentSet.id == set_id).values(forces=forces))
    db.commit()
    shown = _submitted(html(alice.get(f"{path}?option=sample-um-enfeeble")), "option-form")
    assert shown["power.psyker"] == "farseer"
    assert shown["equipment.restriction"] == ["walker"]
    r = alice.post(f"{path}/options", data=shown, follow_redirects=False)
    assert r.status_code == 422
    assert _beside(r, "option-form", "power.psyker") == ["one of librarian, weirdboy"]
    stored = next(o for o in _forces(alice, path)["options"] if o["id"] == "sample-um-enfeeble")
    assert stored["power"]["psyker"] == "farseer"  # nothing saved, nothing changed


# -- ids in links and redirects ----------------------------------------------------------------


def _save_ordnance(client: Any, path: str, ident: str, name: str) -> Any:
    data = {
        "csrf_token": csrf(client, path),
        "version": _submitted(html(client.get(path)), "option-form")["version"],
        "id": ident,
        "name": name,
        "faction": "orks",
        "type": "ordnance",
        "cost": "1",
        "ordnance.bluff_tokens": "1",
    }
    return client.post(f"{path}/options", data=data, follow_redirects=False)


def test_an_id_with_ampersand_hash_and_line_break_is_encoded_in_the_redirect(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    r = _save_ordnance(alice, path, HOSTILE, "Hostile")
    assert r.status_code == 303, r.text
    location = r.headers["location"]
    assert location == f"{path}?option={quote(HOSTILE, safe='')}#option-form"
    assert "\r" not in location
    assert "\n" not in location
    assert location.count("#") == 1
    # the redirect opens that item (not "a", with a second option=b)
    assert _submitted(html(alice.get(location)), "option-form")["name"] == "Hostile"


def test_an_id_with_ampersand_and_hash_is_encoded_in_its_link_and_edits_itself(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    ident = "a&option=b#x y/z%41"
    assert _save_ordnance(alice, path, ident, "Odd").status_code == 303
    page = html(alice.get(path))
    links = [a.attributes.get("href") or "" for a in page.css("#option-form-section p a")]
    link = next(h for h in links if h.startswith("?option=a"))
    assert "&" not in link
    assert " " not in link
    assert link.count("#") == 1
    shown = _submitted(html(alice.get(path + link)), "option-form")
    assert (shown["id"], shown["name"]) == (ident, "Odd")
    # saved again as shown: the same item, not a second one
    shown["name"] = "Odder"
    assert alice.post(f"{path}/options", data=shown, follow_redirects=False).status_code == 303
    saved = [o for o in _forces(alice, path)["options"] if o["id"] == ident]
    assert [o["name"] for o in saved] == ["Odder"]


# -- ability values the field cannot read without guessing ------------------------------------


def test_ability_values_the_field_cannot_read_are_refused_not_dropped() -> None:
    form = _typed(
        {
            "id": "c",
            "faces[0].kind": "intact",
            "faces[0].abilities": ["assault", "burst"],
            "faces[0].params": "assault=2, junk ; =3, burst=, burst=1=2, nope=1, assault=4, ,",
        }
    )
    built = forms.counter_from_form(form, None)
    assert built["faces"][0]["abilities"] == [{"id": "assault", "param": 2}, {"id": "burst"}]
    assert form.problems == [
        ("faces[0].params", "junk: write each value as id=value, the values separated by commas"),
        ("faces[0].params", "=3: write each value as id=value, the values separated by commas"),
        ("faces[0].params", "burst=: write each value as id=value, the values separated by commas"),
        (
            "faces[0].params",
            "burst=1=2: write each value as id=value, the values separated by commas",
        ),
        ("faces[0].params", "nope: a value for an ability that is not chosen"),
        ("faces[0].params", "assault: its value is given twice"),
    ]
    zero = forms.FormData(
        {"faces[0].kind": "intact", "faces[0].params": "assault=0"},
        {"faces[0].abilities": ["assault"]},
    )
    assert forms.counter_from_form(zero, None)["faces"][0]["abilities"] == [
        {"id": "assault", "param": 0}
    ]
    assert zero.problems == []


def test_a_counters_unreadable_values_are_shown_beside_the_field_and_nothing_saved(
    app: Any,
) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    before = _forces(alice, path)
    shown = _submitted(html(alice.get(f"{path}?counter=sample-ork-boyz")), "counter-form")
    shown["faces[0].params"] = "assault=1, 2"
    r = alice.post(f"{path}/counters", data=shown, follow_redirects=False)
    assert r.status_code == 422
    assert _beside(r, "counter-form", "faces[0].params") == [
        "2: write each value as id=value, the values separated by commas"
    ]
    # the page shows what was typed, to correct it
    assert _submitted(html(r), "counter-form")["faces[0].params"] == "assault=1, 2"
    assert _forces(alice, path) == before


def test_an_options_unreadable_values_are_shown_beside_its_abilities(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    shown = _submitted(html(alice.get(f"{path}?option=sample-um-ammo")), "option-form")
    shown.update(
        {"equipment.grants": ["assault"], "equipment.grants.params": "assault=2, piercing=1"}
    )
    r = alice.post(f"{path}/options", data=shown, follow_redirects=False)
    assert r.status_code == 422
    assert _beside(r, "option-form", "equipment.grants") == [
        "piercing: a value for an ability that is not chosen"
    ]
    stored = next(o for o in _forces(alice, path)["options"] if o["id"] == "sample-um-ammo")
    assert "grants" not in stored["equipment"]
