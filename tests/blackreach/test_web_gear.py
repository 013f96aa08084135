"""The editor's fields for the data of rulings 125-131: a tile's sniper table and armour save,
an option's equipment, ordnance and psychic power (its CVs, text and DV bonus). Each is typed
in the friendly forms, checked by the engine's loader (its message beside the field), saved
as the JSON the loader reads, and shown again in the same fields to edit it."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from app.blackreach import forms
from tests.support.web import csrf, html, register

HOME = "/black-reach/content"


def _browser(app: Any, name: str = "Alice") -> TestClient:
    client = TestClient(app, base_url="http://testserver")
    register(client, email=f"{name.lower()}@example.com", name=name, language="en")
    return client


def _copy_sample(client: TestClient) -> str:
    token = csrf(client, HOME)
    r = client.post(f"{HOME}/sample/copy", data={"csrf_token": token}, follow_redirects=False)
    assert r.status_code == 303, r.text
    return str(r.headers["location"])


def _forces(client: TestClient, path: str) -> dict[str, Any]:
    set_id = path.rsplit("/", 1)[1]
    r = client.get(f"/api/v1/black-reach/content/{set_id}")
    assert r.status_code == 200, r.text
    return dict(r.json()["forces"])


def _item(client: TestClient, path: str, part: str, ident: str) -> dict[str, Any]:
    return dict(next(i for i in _forces(client, path)[part] if i["id"] == ident))


def _submitted(page: HTMLParser, form_id: str) -> dict[str, Any]:
    """What a browser would send for the form as the page shows it (nothing changed)."""
    form = page.css_first(f"#{form_id}")
    assert form is not None, form_id
    data: dict[str, Any] = {}
    for node in form.css("input"):
        name = node.attributes.get("name")
        if not name:
            continue
        if node.attributes.get("type") == "checkbox":
            if "checked" in node.attributes:
                data[name] = node.attributes.get("value") or "on"
            continue
        data[name] = node.attributes.get("value") or ""
    for node in form.css("select"):
        name = str(node.attributes["name"])
        chosen = [str(o.attributes.get("value") or "") for o in node.css("option[selected]")]
        data[name] = chosen if "multiple" in node.attributes else (chosen[0] if chosen else "")
    for node in form.css("textarea"):
        data[str(node.attributes["name"])] = node.text()
    return data


def _beside(response: Any, form_id: str, field: str) -> list[str]:
    return [n.text() for n in html(response).css(f"#{form_id} [data-field='{field}']")]


# -- a tile's sniper table and armour save (rulings 125, 128) --------------------------------


def test_a_tiles_sniper_table_is_typed_checked_and_shown_again(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    form = {
        "csrf_token": csrf(alice, path),
        "version": _submitted(html(alice.get(path)), "tile-form")["version"],
        "id": "my-snipers",
        "name": "Sniper team",
        "faction": "ultramarines",
        "cost": "12",
        "counters": ["sample-um-tactical"],
        "armour_save.value": "4",
        "armour_save.colour": "green",
        "sniper_table[0].from": "3",
        "sniper_table[0].effect": "suppressed",
        "sniper_table[1].from": "",
        "sniper_table[1].effect": "",  # a blank row is no row
        "sniper_table[2].from": "5",
        "sniper_table[2].effect": "step_and_suppressed",
        "sniper_table[3].from": "-1",
        "sniper_table[3].effect": "nothing",
    }
    r = alice.post(f"{path}/tiles", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    tile = _item(alice, path, "tiles", "my-snipers")
    assert tile["armour_save"] == {"value": 4, "colour": "green"}
    assert tile["sniper_table"] == [
        {"from": 3, "effect": "suppressed"},
        {"from": 5, "effect": "step_and_suppressed"},
        {"from": -1, "effect": "nothing"},
    ]
    # the edit page shows the rows in the same fields; sent back unchanged, nothing changes
    page = html(alice.get(f"{path}?tile=my-snipers"))
    shown = _submitted(page, "tile-form")
    assert (shown["sniper_table[1].from"], shown["sniper_table[1].effect"]) == (
        "5",
        "step_and_suppressed",
    )
    assert shown["sniper_table[3].from"] == ""
    assert (shown["armour_save.value"], shown["armour_save.colour"]) == ("4", "green")
    before = _forces(alice, path)
    r = alice.post(f"{path}/tiles", data=shown, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert _forces(alice, path) == before
    # the loader's bounds, beside the row's field; nothing saved, the typed values kept
    bad = {
        **shown,
        "version": _submitted(html(alice.get(path)), "tile-form")["version"],
        "sniper_table[0].from": "21",
        "sniper_table[1].from": "-1",  # the third row starts there too
        "sniper_table[3].from": "4",  # an effect is needed
        "armour_save.value": "7",
    }
    r = alice.post(f"{path}/tiles", data=bad)
    assert r.status_code == 422
    assert _beside(r, "tile-form", "sniper_table[0].from") == ["an integer from -10 to 20"]
    assert _beside(r, "tile-form", "sniper_table[2].from") == [
        "each row starts at a different result"
    ]
    assert _beside(r, "tile-form", "sniper_table[3].effect") == [
        "one of nothing, suppressed, step, step_and_suppressed"
    ]
    assert _beside(r, "tile-form", "armour_save.value") == ["an integer from 2 to 6"]
    again = _submitted(html(r), "tile-form")
    assert again["sniper_table[0].from"] == "21"
    assert _item(alice, path, "tiles", "my-snipers")["sniper_table"][0]["from"] == 3
    # every row blank: the tile has no table of its own (the rulebook's applies)
    cleared = {
        **shown,
        "version": _submitted(html(alice.get(path)), "tile-form")["version"],
        **{f"sniper_table[{i}].{k}": "" for i in range(6) for k in ("from", "effect")},
        "armour_save.value": "",
        "armour_save.colour": "",
    }
    r = alice.post(f"{path}/tiles", data=cleared, follow_redirects=False)
    assert r.status_code == 303, r.text
    tile = _item(alice, path, "tiles", "my-snipers")
    assert "sniper_table" not in tile
    assert "armour_save" not in tile


# -- an option's equipment and ordnance (rulings 126-128, 131) --------------------------------


def test_an_equipment_option_is_typed_with_its_gifts_and_markers(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    page = html(alice.get(path))
    form = {
        **_submitted(page, "option-form"),
        "csrf_token": csrf(alice, path),
        "id": "my-shield",
        "name": "Combat shield",
        "faction": "ultramarines",
        "type": "personalisation",
        "cost": "5",
        "bands": "gold, blue",
        "equipment.dv": "7",
        "equipment.dv_bonus": "1",
        "equipment.mv_bonus": "2",
        "equipment.restriction": ["infantry"],
        "equipment.grants": ["assault", "piercing"],
        "equipment.grants.params": "assault=3",
        "equipment.armour_save.value": "5",
        "equipment.armour_save.colour": "green",
        "equipment.hull_suppressed": "1",
    }
    r = alice.post(f"{path}/options", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert r.headers["location"].endswith("?option=my-shield#option-form")
    option = _item(alice, path, "options", "my-shield")
    assert option == {
        "id": "my-shield",
        "name": "Combat shield",
        "faction": "ultramarines",
        "type": "personalisation",
        "cost": 5,
        "bands": ["gold", "blue"],
        "equipment": {
            "dv": 7,
            "dv_bonus": 1,
            "mv_bonus": 2,
            "hull_suppressed": 1,
            "restriction": ["infantry"],
            "grants": [{"id": "assault", "param": 3}, {"id": "piercing"}],
            "armour_save": {"value": 5, "colour": "green"},
        },
    }
    # the edit page shows every value again; sent back unchanged, nothing changes
    shown = _submitted(html(alice.get(f"{path}?option=my-shield")), "option-form")
    # the select sends its own order; the option keeps the order it listed them in
    assert sorted(shown["equipment.grants"]) == ["assault", "piercing"]
    assert shown["equipment.grants.params"] == "assault=3"
    assert shown["equipment.restriction"] == ["infantry"]
    assert (shown["equipment.dv"], shown["bands"]) == ("7", "gold, blue")
    before = _forces(alice, path)
    r = alice.post(f"{path}/options", data=shown, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert _forces(alice, path) == before
    # markers with what each adds (rulings 127): the loader's bounds beside each field
    bad = {
        **shown,
        "version": _submitted(html(alice.get(path)), "option-form")["version"],
        "type": "equipment",
        "equipment.markers": "11",
        "equipment.shot_bonus": "4",
        "equipment.assault_bonus": "x",
        "equipment.hull_suppressed": "3",
        "equipment.dv": "0",
        "equipment.armour_save.colour": "red",
    }
    r = alice.post(f"{path}/options", data=bad)
    assert r.status_code == 422
    assert _beside(r, "option-form", "equipment.markers") == ["an integer from 0 to 10"]
    assert _beside(r, "option-form", "equipment.shot_bonus") == ["an integer from 0 to 3"]
    assert _beside(r, "option-form", "equipment.assault_bonus") == ["an integer from 0 to 3"]
    assert _beside(r, "option-form", "equipment.hull_suppressed") == ["an integer from 0 to 2"]
    assert _beside(r, "option-form", "equipment.dv") == ["an integer from 1 to 20"]
    assert _beside(r, "option-form", "equipment.armour_save.colour") == ["one of yellow, green"]
    assert _submitted(html(r), "option-form")["equipment.assault_bonus"] == "x"
    assert _forces(alice, path) == before


def test_an_ordnance_option_draws_beyond_the_hand(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    form = {
        **_submitted(html(alice.get(path)), "option-form"),
        "csrf_token": csrf(alice, path),
        "id": "my-blessing",
        "name": "Gork's blessing",
        "faction": "orks",
        "type": "ordnance",
        "cost": "2",
        "bands": "red",
        "ordnance.extra_draw": "1",
        "ordnance.order_tokens": "1",
    }
    r = alice.post(f"{path}/options", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    option = _item(alice, path, "options", "my-blessing")
    assert option["ordnance"] == {"extra_draw": 1, "order_tokens": 1}
    assert "equipment" not in option  # blank, and not needed by an ordnance option
    assert "power" not in option
    form.update(
        {
            "version": _submitted(html(alice.get(path)), "option-form")["version"],
            "ordnance.extra_draw": "4",
        }
    )
    r = alice.post(f"{path}/options", data=form)
    assert r.status_code == 422
    assert _beside(r, "option-form", "ordnance.extra_draw") == ["an integer from 0 to 3"]
    # an ordnance option with every field blank still describes its ordnance (all defaults)
    form.update(
        {
            "version": _submitted(html(alice.get(path)), "option-form")["version"],
            "ordnance.extra_draw": "",
            "ordnance.order_tokens": "",
        }
    )
    r = alice.post(f"{path}/options", data=form, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert _item(alice, path, "options", "my-blessing")["ordnance"] == {}


# -- a psychic power's CVs, text and DV bonus (rulings 129, 130) -----------------------------


def test_a_killbolt_and_a_dome_are_typed_with_their_cvs_text_and_bonus(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    base = {
        **_submitted(html(alice.get(path)), "option-form"),
        "csrf_token": csrf(alice, path),
        "faction": "ultramarines",
        "type": "psychic_power",
        "cost": "4",
        "bands": "gold",
        "power.psyker": "librarian",
        "power.discipline": "librarius",
        "power.cost": "2",
    }
    killbolt = {
        **base,
        "id": "my-killbolt",
        "name": "Killbolt",
        "power.range": "6",
        "power.effect": "killbolt",
        "power.cv.infantry": "3",
        "power.cv.light_vehicle": "-1",
        "power.cv.heavy_vehicle": "",  # X: not attacked
    }
    r = alice.post(f"{path}/options", data=killbolt, follow_redirects=False)
    assert r.status_code == 303, r.text
    saved = _item(alice, path, "options", "my-killbolt")
    assert saved["power"] == {
        "psyker": "librarian",
        "discipline": "librarius",
        "cost": 2,
        "range": 6,
        "effect": "killbolt",
        "cv": {"infantry": 3, "light_vehicle": -1, "heavy_vehicle": None},
    }
    assert "equipment" not in saved
    assert "ordnance" not in saved
    shown = _submitted(html(alice.get(f"{path}?option=my-killbolt")), "option-form")
    assert [shown[f"power.cv.{c}"] for c in forms.CLASSES] == ["3", "-1", ""]
    assert shown["power.effect"] == "killbolt"
    dome_text = "The Librarian and allied units nearby:\r\nshots at them are turned aside."
    dome = {
        **base,
        "version": _submitted(html(alice.get(path)), "option-form")["version"],
        "id": "my-dome",
        "name": "Telekinetic dome",
        "power.range": "3",
        "power.persistent": "true",
        "power.effect": "telekinetic_dome",
        "power.text": dome_text,
        "power.dv_bonus": "2",
    }
    r = alice.post(f"{path}/options", data=dome, follow_redirects=False)
    assert r.status_code == 303, r.text
    saved = _item(alice, path, "options", "my-dome")["power"]
    assert saved["text"] == dome_text.replace("\r\n", "\n")  # one character per line end
    assert (saved["dv_bonus"], saved["persistent"], saved["range"]) == (2, True, 3)
    assert "cv" not in saved  # every class blank: no CVs
    page = html(alice.get(f"{path}?option=my-dome"))
    shown = _submitted(page, "option-form")
    assert shown["power.text"] == dome_text.replace("\r\n", "\n")
    assert shown["power.persistent"] == "true"
    before = _forces(alice, path)
    r = alice.post(f"{path}/options", data=shown, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert _forces(alice, path) == before
    # the loader's bounds beside the fields; nothing saved
    bad = {
        **shown,
        "version": _submitted(html(alice.get(path)), "option-form")["version"],
        "power.dv_bonus": "4",
        "power.text": "x" * (forms.POWER_TEXT + 1),
        "power.cv.infantry": "21",
        "power.psyker": "",
    }
    r = alice.post(f"{path}/options", data=bad)
    assert r.status_code == 422
    assert _beside(r, "option-form", "power.dv_bonus") == ["an integer from 0 to 3"]
    assert _beside(r, "option-form", "power.text") == [
        f"a text of 1 to {forms.POWER_TEXT} characters"
    ]
    assert _beside(r, "option-form", "power.cv.infantry") == [
        "an integer from -10 to 20, or null for X"
    ]
    assert _beside(r, "option-form", "power.psyker") == ["one of librarian, weirdboy"]
    assert _forces(alice, path) == before


def test_a_power_option_with_no_power_is_refused_beside_its_fieldset(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    form = {
        **_submitted(html(alice.get(path)), "option-form"),
        "csrf_token": csrf(alice, path),
        "id": "my-power",
        "name": "A power",
        "faction": "orks",
        "type": "psychic_power",
        "cost": "3",
    }
    r = alice.post(f"{path}/options", data=form)
    assert r.status_code == 422
    # the fieldset is sent empty: the loader names each field it needs
    assert _beside(r, "option-form", "power.psyker") == ["one of librarian, weirdboy"]
    assert _beside(r, "option-form", "power.discipline") == ["a text of 1 to 64 characters"]
    assert _beside(r, "option-form", "power.cost") == ["an integer from 0 to 6"]
    assert all(o["id"] != "my-power" for o in _forces(alice, path)["options"])


def test_the_sample_options_come_back_unchanged_through_the_form(app: Any) -> None:
    """Every shipped option, opened in the form and saved as shown: the same JSON."""
    alice = _browser(app)
    path = _copy_sample(alice)
    before = _forces(alice, path)
    for option in before["options"]:
        shown = _submitted(html(alice.get(f"{path}?option={option['id']}")), "option-form")
        assert shown["id"] == option["id"]
        r = alice.post(f"{path}/options", data=shown, follow_redirects=False)
        assert r.status_code == 303, (option["id"], r.text)
    assert _forces(alice, path) == before


def test_the_option_form_needs_its_token_and_its_owner(app: Any) -> None:
    alice, bruno = _browser(app), _browser(app, "Bruno")
    path = _copy_sample(alice)
    data = {
        "version": _submitted(html(alice.get(path)), "option-form")["version"],
        "id": "x",
        "name": "X",
        "faction": "orks",
        "type": "ordnance",
    }
    assert alice.post(f"{path}/options", data=data).status_code == 403
    r = bruno.post(f"{path}/options", data={**data, "csrf_token": csrf(bruno, HOME)})
    assert r.status_code == 404
    assert all(o["id"] != "x" for o in _forces(alice, path)["options"])


def test_the_sample_page_shows_no_option_form(app: Any) -> None:
    alice = _browser(app)
    page = html(alice.get(f"{HOME}/sample"))
    assert page.css_first("#option-form") is None  # read-only: the JSON only


# -- the forms alone ---------------------------------------------------------------------------


def _form(fields: dict[str, str | list[str]]) -> forms.FormData:
    single = {k: v for k, v in fields.items() if isinstance(v, str)}
    multi = {k: (v if isinstance(v, list) else [v]) for k, v in fields.items()}
    return forms.FormData(single, multi)


def test_the_option_form_keeps_what_it_does_not_show() -> None:
    existing = {
        "id": "o",
        "name": "O",
        "faction": "orks",
        "type": "equipment",
        "cost": 3,
        "equipment": {"markers": 2, "shot_bonus": 1, "unknown": 1},
        "power": {"psyker": "weirdboy"},
    }
    built = forms.option_from_form(
        _form(
            {
                "id": "o",
                "name": "O",
                "faction": "orks",
                "type": "equipment",
                "cost": "3",
                "equipment.markers": "3",
                "equipment.shot_bonus": "1",
            }
        ),
        existing,
    )
    # a key the form cannot show stays for the loader to name; a blank block is dropped
    assert built["equipment"] == {"markers": 3, "shot_bonus": 1, "unknown": 1}
    assert "power" not in built
    assert existing["equipment"]["markers"] == 2  # the stored item is not changed in place


def test_a_sniper_row_past_the_forms_rows_is_kept() -> None:
    rows = [{"from": n, "effect": "step"} for n in range(7)]
    tile = forms.tile_from_form(
        _form({"id": "t", "name": "T", "faction": "orks", "sniper_table[0].from": "9"}),
        {"id": "t", "sniper_table": rows},
    )
    # the form shows six rows; the seventh (which the loader refuses) is not lost silently
    assert tile["sniper_table"] == [{"from": 9}, rows[6]]
