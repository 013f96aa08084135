"""The PEN unit editor's page (issue 13): a special close-combat weapon and a save better
than 2+ can be entered, and the unit's calculator link carries what the calculator needs."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest
from fastapi.testclient import TestClient

from tests.armies.test_web import pen_form
from tests.support.web import csrf, html


@pytest.fixture
def token(client: TestClient, alice: dict[str, str]) -> str:
    return csrf(client, "/armies/new")


def test_power_fist_and_a_save_better_than_2_plus(client: TestClient, token: str) -> None:
    created = client.post(
        "/armies",
        data={"csrf_token": token, "rule_system": "pen", "name": "Terminators"},
        follow_redirects=False,
    )
    url = created.headers["location"]
    editor = html(client.get(f"{url}/units/new"))
    offered = [o.attributes.get("value") for o in editor.css("select[name='w0.type'] option")]
    assert {"Power fist", "Chainfist", "Thunder hammer", "Witchblade"} <= set(offered)
    data = pen_form(
        token,
        save="1+",
        **{"w1.name": "Gantelet", "w1.kind": "melee", "w1.type": "Gantelet énergétique"},
    )
    saved = client.post(f"{url}/units", data=data, follow_redirects=False)
    assert saved.status_code == 303, saved.text
    edit = html(client.get(f"{url}/units/0"))
    chosen = edit.css_first("select[name='w1.type'] option[selected]")
    assert chosen is not None
    assert chosen.attributes["value"] == "Power fist"
    links = [str(a.attributes["href"]) for a in html(client.get(url)).css("#unit-0 a.calc-link")]
    fist = next(dict(parse_qsl(urlsplit(h).query)) for h in links if "Gantelet" in h)
    assert (fist["w.type"], fist["a.toughness"], fist["a.save"]) == ("Power fist", "4", "1+")
    assert fist["a.unit_type"] == "infantry"
    page = client.get(next(h for h in links if "Gantelet" in h))
    assert page.status_code == 200
    assert html(page).css_first("input[name='w.type']").attributes["value"] == "Power fist"  # type: ignore[union-attr]
