"""Issue 18, a PEN list in French: the army page names unit, vehicle and weapon types in the
reader's language (the engine stores them in English), the unit editor fills its inputs with
names the engine reads back, and every refusal of a unit (an unknown name, a value out of
bounds, a rule the unit breaks) is French on a French reader's editor."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.combat.forms import pen_types
from app.core.i18n import current_locale
from app.engine.pen.names import normalise
from app.engine.pen.profiles import UNIT_TYPE_ALIASES, VEHICLE_TYPE_ALIASES, UnitType, VehicleType
from app.engine.pen.requests import _Builder, _weapon_type
from tests.armies.conftest import _user
from tests.armies.test_web import pen_form
from tests.support.web import csrf, html


@pytest.fixture
def amelie(client: TestClient, starter_loaded: str) -> dict[str, str]:
    """A French reader's bearer-token headers (the client holds her browser session)."""
    return _user(client, "amelie@example.com", "Amélie", language="fr")


@pytest.fixture
def french(client: TestClient, amelie: dict[str, str]) -> str:
    """The French reader's CSRF token."""
    return csrf(client, "/armies")


def _pen_list(client: TestClient, token: str) -> str:
    r = client.post(
        "/armies",
        data={"csrf_token": token, "rule_system": "pen", "name": "Compagnie"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return str(r.headers["location"])


RHINO = {
    "name": "Rhino",
    "points": "35",
    "models": "1",
    "kind": "vehicle",
    "front": "11",
    "side": "11",
    "rear": "10",
    "hull_points": "3",
    "vehicle_types": "tank, transport",
    "transport_capacity": "10",
    "transport_types": "infantry, bike",
    "bs": "4",
}


def test_the_army_page_names_the_types_in_french(client: TestClient, french: str) -> None:
    url = _pen_list(client, french)
    saved = client.post(
        f"{url}/units",
        data={
            **pen_form(french),
            "unit_type": "bike",
            "w1.name": "Lance-missiles",
            "w1.kind": "ranged",
            "w1.type": "heavy",
            "w1.template": "blast",
            "w1.shots": "1",
            "w1.strength": "8",
            "w1.ap": "3",
            "w1.range": "48",
        },
        follow_redirects=False,
    )
    assert saved.status_code == 303, saved.text
    saved = client.post(
        f"{url}/units", data={"csrf_token": french, **RHINO}, follow_redirects=False
    )
    assert saved.status_code == 303, saved.text
    page = html(client.get(url))
    squad = page.css_first("#unit-0").text()  # type: ignore[union-attr]
    assert "10 figurines · moto" in squad
    types = [td.text() for td in page.css("#unit-0 table.weapons td:nth-child(2)")]
    assert types == ["tir rapide", "explosion"]
    rhino = page.css_first("#unit-1").text()  # type: ignore[union-attr]
    assert "char d'assaut, transport" in rhino
    assert "infanterie, moto" in rhino
    for english in ("bike", "rapid fire", "blast", "tank", "infantry"):
        assert english not in squad + rhino


def test_the_unit_editor_fills_french_names_the_engine_reads(
    client: TestClient, french: str, amelie: dict[str, str]
) -> None:
    url = _pen_list(client, french)
    client.post(f"{url}/units", data={"csrf_token": french, **RHINO}, follow_redirects=False)
    editor = html(client.get(f"{url}/units/0"))
    vehicle_types = editor.css_first("input[name=vehicle_types]")
    carried = editor.css_first("input[name=transport_types]")
    assert vehicle_types is not None
    assert carried is not None
    assert vehicle_types.attributes["value"] == "char d'assaut, transport"
    assert carried.attributes["value"] == "infanterie, moto"
    assert "char d'assaut" in str(vehicle_types.attributes["placeholder"])
    # saved back as they are shown, the unit is the same
    form = {
        name: str(node.attributes.get("value") or "")
        for node in editor.css("#pen-unit-form input[name]")
        if node.attributes.get("type") not in ("checkbox", "submit")
        for name in [str(node.attributes["name"])]
    }
    form["kind"] = "vehicle"
    again = client.post(f"{url}/units/0", data=form, follow_redirects=False)
    assert again.status_code == 303, again.text
    api = client.get(f"/api/v1/armies/{url.rsplit('/', 1)[1]}/export", headers=amelie).json()
    (unit,) = api["units"]
    assert unit["vehicle_types"] == ["tank", "transport"]
    assert unit["transport_types"] == ["infantry", "bike"]


@pytest.mark.parametrize(
    ("extra", "french_text", "english_text"),
    [
        (
            {
                "kind": "vehicle",
                **{k: v for k, v in RHINO.items() if k != "kind"},
                "vehicle_types": "tonk",
            },
            "type de véhicule inconnu 'tonk' ; vouliez-vous dire 'tank' ?",
            "unknown vehicle type",
        ),
        (
            {"rules": "Perfornat"},
            "propriété ou règle spéciale inconnue 'Perfornat' ; vouliez-vous dire 'Perforant' ?",
            "unknown property",
        ),
        (
            {"w0.properties": "Perforant 4+"},
            "Perforant ne prend pas de valeur, reçu '4+'",
            "takes no parameter",
        ),
        (
            {"unit_type": "chariot"},
            "type d'unité inconnu 'chariot'",
            "unknown unit type",
        ),
        (
            {"w0.kind": "melee", "w0.type": "melee", "w0.range": "12"},
            "une arme de corps à corps n'a pas de portée",
            "has no range",
        ),
        (
            {"transport_types": "infantry"},
            "seul un véhicule (avec un blindage) transporte des unités",
            "only a vehicle",
        ),
    ],
)
def test_a_refused_unit_is_french_on_the_editor(
    client: TestClient, french: str, extra: dict[str, str], french_text: str, english_text: str
) -> None:
    url = _pen_list(client, french)
    refused = client.post(f"{url}/units", data={**pen_form(french), **extra})
    assert refused.status_code == 422, refused.text[:300]
    errors = html(refused).css_first("#unit-errors")
    assert errors is not None
    assert french_text in errors.text()
    assert english_text not in errors.text()


def test_every_french_type_name_is_one_the_engine_reads() -> None:
    """The editor and the calculator fill their inputs with these names: each must read back
    as the same type."""
    token = current_locale.set("fr")
    try:
        for utype in UnitType:
            assert UNIT_TYPE_ALIASES[normalise(pen_types.unit_type_label(utype.value))] is utype
        for vtype in VehicleType:
            label = pen_types.vehicle_type_label(vtype.value)
            assert VEHICLE_TYPE_ALIASES[normalise(label)] is vtype
        for wtype in pen_types.WEAPON_TYPES:
            read = _weapon_type(_Builder(), pen_types.weapon_type_label(wtype), "w")
            assert read[0] == _weapon_type(_Builder(), wtype, "w")[0], wtype
        for shown, other in pen_types.vehicle_type_names():
            assert VEHICLE_TYPE_ALIASES[normalise(shown)] is VEHICLE_TYPE_ALIASES[normalise(other)]
    finally:
        current_locale.reset(token)
