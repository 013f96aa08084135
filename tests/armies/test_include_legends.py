"""The list's "Include Legends" setting (issue 17, ruling D11): stored, read and changed through
the API and the list page, carried by the exports and imports, and obeyed by the validation and
the builder's datasheet browser."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.armies.conftest import legal_army
from tests.armies.test_web import new_list
from tests.support.web import csrf, html

API = "/api/v1/armies"
LEGENDS = "Ferren Areios [Legends]"


def codes(body: dict[str, Any]) -> list[str]:
    return [v["code"] for v in body["validation"]["violations"]]


def with_legends_unit(**extra: Any) -> dict[str, Any]:
    body = legal_army(battle_size="strike-force", **extra)
    body["units"] = [*body["units"], {"datasheet": LEGENDS}]
    return body


def test_the_setting_is_off_by_default_and_round_trips_through_the_api(
    client: TestClient, alice: dict
) -> None:
    made = client.post(API, json=with_legends_unit(), headers=alice)
    assert made.status_code == 201, made.text
    army = made.json()
    assert army["include_legends"] is False
    assert "legends-not-included" in codes(army)
    url = f"{API}/{army['id']}"
    patched = client.patch(url, json={"include_legends": True}, headers=alice)
    assert patched.status_code == 200, patched.text
    assert patched.json()["include_legends"] is True
    assert "legends-not-included" not in codes(patched.json())
    read = client.get(url, headers=alice).json()
    assert read["include_legends"] is True
    assert "legends-not-included" not in codes(read)
    # a Legends unit in a list with the setting can be marked ready
    ready = client.patch(url, json={"status": "ready"}, headers=alice)
    assert ready.status_code == 200, ready.json()
    off = client.patch(url, json={"include_legends": False}, headers=alice)
    assert off.json()["include_legends"] is False
    assert off.json()["status"] == "draft"
    assert "legends-not-included" in codes(off.json())
    created_on = client.post(API, json=with_legends_unit(include_legends=True), headers=alice)
    assert created_on.json()["include_legends"] is True
    assert "legends-not-included" not in codes(created_on.json())


def test_bad_values_are_422_naming_the_field(client: TestClient, alice: dict) -> None:
    army = client.post(API, json=legal_army(), headers=alice).json()
    bad = client.patch(f"{API}/{army['id']}", json={"include_legends": "maybe"}, headers=alice)
    assert bad.status_code == 422
    assert "include_legends" in bad.text
    pen = client.post(API, json={"rule_system": "pen", "name": "P"}, headers=alice).json()
    wrong = client.patch(f"{API}/{pen['id']}", json={"include_legends": True}, headers=alice)
    assert wrong.status_code == 422
    assert "include_legends" in wrong.text


def test_export_and_import_carry_the_setting(client: TestClient, alice: dict) -> None:
    army = client.post(API, json=with_legends_unit(include_legends=True), headers=alice).json()
    doc = client.get(f"{API}/{army['id']}/export?format=json", headers=alice).json()
    assert doc["include_legends"] is True
    assert doc["summary"]["valid"] is True
    back = client.post(f"{API}/import", json=doc, headers=alice)
    assert back.status_code == 201, back.text
    assert back.json()["include_legends"] is True
    assert "legends-not-included" not in codes(back.json())
    doc["include_legends"] = False
    refused = client.post(f"{API}/import", json=doc, headers=alice).json()
    assert refused["include_legends"] is False
    assert "legends-not-included" in codes(refused)
    copied = client.post(f"{API}/{army['id']}/copy", headers=alice)
    assert copied.status_code == 201, copied.text
    assert copied.json()["include_legends"] is True


def test_a_pasted_text_with_a_legends_unit_includes_legends(
    client: TestClient, alice: dict
) -> None:
    army = client.post(API, json=with_legends_unit(include_legends=True), headers=alice).json()
    text = client.get(f"{API}/{army['id']}/export?format=text", headers=alice).text
    back = client.post(f"{API}/import/text", json={"text": text}, headers=alice)
    assert back.status_code == 201, back.text
    assert back.json()["include_legends"] is True
    assert "legends-not-included" not in codes(back.json())
    plain = client.post(API, json=legal_army(), headers=alice).json()
    text = client.get(f"{API}/{plain['id']}/export?format=text", headers=alice).text
    again = client.post(f"{API}/import/text", json={"text": text}, headers=alice)
    assert again.status_code == 201, again.text
    assert again.json()["include_legends"] is False


def _offered(browser: TestClient, army_id: int) -> set[str]:
    page = html(browser.get(f"/armies/{army_id}", params={"q": "Ferren"}))
    return {str(i.attributes["data-datasheet"]) for i in page.css("#browser li.sheet-item")}


def test_the_page_form_sets_it_and_the_builder_offers_legends_only_then(
    client: TestClient, alice: dict
) -> None:
    token = csrf(client, "/armies/new")
    army_id = new_list(client, token)
    page = html(client.get(f"/armies/{army_id}"))
    box = page.css_first("#settings-form input[name=include_legends]")
    assert box is not None
    assert "checked" not in box.attributes
    assert LEGENDS not in _offered(client, army_id)
    hint = html(client.get(f"/armies/{army_id}", params={"q": "Ferren"})).css_first(
        "#legends-hidden"
    )
    assert hint is not None
    assert hint.text().startswith("1 Legends datasheet is not shown")
    form = {"csrf_token": token, "name": "Test list", "legends_setting": "1"}
    on = client.post(f"/armies/{army_id}", data={**form, "include_legends": "on"})
    assert on.status_code in (200, 303), on.text
    assert client.get(f"{API}/{army_id}", headers=alice).json()["include_legends"] is True
    page = html(client.get(f"/armies/{army_id}"))
    box = page.css_first("#settings-form input[name=include_legends]")
    assert box is not None
    assert "checked" in box.attributes
    assert LEGENDS in _offered(client, army_id)
    assert html(client.get(f"/armies/{army_id}")).css_first("#legends-hidden") is None
    # a form without the setting (another form of the page) leaves it as it is
    client.post(f"/armies/{army_id}", data={"csrf_token": token, "name": "Renamed"})
    assert client.get(f"{API}/{army_id}", headers=alice).json()["include_legends"] is True
    # the unticked box turns it off
    client.post(f"/armies/{army_id}", data=form)
    assert client.get(f"{API}/{army_id}", headers=alice).json()["include_legends"] is False
    # without the CSRF token nothing changes
    forged = client.post(
        f"/armies/{army_id}", data={**form, "csrf_token": "x", "include_legends": "on"}
    )
    assert forged.status_code == 403
    assert client.get(f"{API}/{army_id}", headers=alice).json()["include_legends"] is False
    # the new-list form
    made = new_list(client, token, include_legends="on")
    assert client.get(f"{API}/{made}", headers=alice).json()["include_legends"] is True
