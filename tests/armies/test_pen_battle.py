"""PEN lists ready for battle: transports and passengers, independent characters, options with
points, the points limit of a game, values missing for a battle, and the per-system hooks
(removal re-numbers references, old units read with defaults)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.armies.systems import system_for, system_for_format
from app.catalog.pen_units import PenArmy, PenUnit, army_issues, check_unit
from tests.armies.test_api import API, pen_unit
from tests.armies.test_web import HX
from tests.support.web import csrf, html


def rhino(**extra: Any) -> dict[str, Any]:
    return {
        "name": "Rhino",
        "points": 35,
        "unit_type": None,
        "characteristics": {"bs": 4},
        "armour": {"front": 11, "side": 11, "rear": 10},
        "hull_points": 3,
        "vehicle_types": ["tank", "transport"],
        "transport_capacity": 10,
        **extra,
    }


def captain(**extra: Any) -> dict[str, Any]:
    fields: dict[str, Any] = {"name": "Capitaine", "points": 90, "models": 1}
    return pen_unit(**{**fields, "independent_character": True, **extra})


def post(client: TestClient, alice: dict, units: list[dict[str, Any]], **extra: Any) -> Any:
    return client.post(
        API,
        json={"rule_system": "pen", "name": "Bataille", "units": units, **extra},
        headers=alice,
    )


def codes(body: dict[str, Any]) -> list[str]:
    return [v["code"] for v in body["validation"]["violations"]]


def test_a_squad_in_its_transport_with_its_captain_is_valid(
    client: TestClient, alice: dict
) -> None:
    squad = pen_unit(models=9, embarked_in=1, troops=True)
    units = [squad, rhino(), captain(joins=0, embarked_in=1)]
    response = post(client, alice, units, points_limit=500)
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["validation"]["valid"] is True
    assert codes(body) == []
    stored = body["units"]
    assert stored[0]["embarked_in"] == 1
    assert stored[0]["troops"] is True
    assert stored[2]["joins"] == 0
    assert stored[2]["independent_character"] is True
    assert stored[1]["transport_types"] == []


def test_options_add_their_points_to_the_unit_and_the_limit(
    client: TestClient, alice: dict
) -> None:
    squad = pen_unit(options=[{"name": "Bombes à fusion", "points": 5}, {"name": "Lance-flammes"}])
    body = post(client, alice, [squad], points_limit=154).json()
    assert body["validation"]["points"] == 155
    assert body["validation"]["units"][0]["wargear_points"] == 5
    assert codes(body) == ["points-over-limit"]
    over = body["validation"]["violations"][0]
    assert over["params"] == {"points": 155, "limit": 154, "over": 1}
    assert "1 over its limit of 154" in over["message"]


def test_a_game_limit_overrides_the_lists(client: TestClient, alice: dict) -> None:
    army = PenArmy("A", (check_unit(PenUnit.from_dict(pen_unit())),), points_limit=1000)
    assert [i.code for i in army_issues(army)] == []
    issues = army_issues(army, points_limit=100)
    assert [(i.code, i.severity) for i in issues] == [("points-over-limit", "error")]
    assert issues[0].message == "the army costs 150 points, over its limit of 100"


def test_transport_errors_are_reported_whole(client: TestClient, alice: dict) -> None:
    units = [
        pen_unit(models=9, embarked_in=1),
        rhino(transport_capacity=10),
        pen_unit(name="Motos", models=3, unit_type="moto", embarked_in=1),  # bikes, and 12 > 10
        pen_unit(name="Ailleurs", embarked_in=0),  # not a transport
        rhino(name="Predator", embarked_in=1, transport_capacity=None),  # a vehicle inside
    ]
    body = post(client, alice, units).json()
    assert body["validation"]["valid"] is False
    assert sorted(codes(body)) == [
        "embarked-not-a-transport",
        "embarked-type",
        "embarked-vehicle",
        "transport-full",
    ]
    full = next(v for v in body["validation"]["violations"] if v["code"] == "transport-full")
    assert full["unit"] == 1
    assert full["params"]["carried"] == 12
    # a transport that says so may carry bikes
    units[1] = rhino(transport_capacity=30, transport_types=["bike", "infanterie"])
    body = post(client, alice, units[:3]).json()
    assert codes(body) == []
    assert body["units"][1]["transport_types"] == ["bike", "infantry"]


def test_character_errors(client: TestClient, alice: dict) -> None:
    units = [
        pen_unit(),
        rhino(),
        captain(joins=1),  # a vehicle
        captain(name="Seul", joins=7),  # no such squad
        captain(name="Ailleurs", joins=0, embarked_in=1),  # the squad is on foot
    ]
    body = post(client, alice, units).json()
    assert sorted(codes(body)) == ["joins-elsewhere", "joins-invalid", "joins-missing"]


def test_only_a_character_joins_and_only_a_vehicle_carries(client: TestClient, alice: dict) -> None:
    response = post(
        client, alice, [pen_unit(joins=0, transport_types=["infantry"], embarked_in=-1)]
    )
    assert response.status_code == 422
    fields = {e["field"] for e in response.json()["errors"]}
    assert {"units.0.joins", "units.0.transport_types", "units.0.embarked_in"} <= fields
    bad_option = post(client, alice, [pen_unit(options=[{"name": "", "points": -1}])])
    assert bad_option.status_code == 422


def test_values_missing_for_battle_are_warnings(client: TestClient, alice: dict) -> None:
    old = pen_unit(characteristics={"ws": 3, "toughness": 3, "wounds": 1, "strength": 3})
    body = post(client, alice, [old]).json()
    assert body["validation"]["valid"] is True  # a warning does not block "ready"
    (warning,) = body["validation"]["violations"]
    assert warning["code"] == "missing-for-battle"
    assert warning["severity"] == "warning"
    assert warning["params"]["fields"] == "BS, I, Ld"
    melee_only = pen_unit(
        weapons=[], characteristics={"ws": 3, "initiative": 3, "leadership": 7, "toughness": 3}
    )
    assert codes(post(client, alice, [melee_only]).json()) == []


def test_removing_a_transport_drops_and_renumbers_references(
    client: TestClient, alice: dict
) -> None:
    token = csrf(client, "/armies/new")
    units = [pen_unit(name="Garde"), rhino(), pen_unit(models=5, embarked_in=1), captain(joins=2)]
    army = post(client, alice, units).json()
    page = client.post(
        f"/armies/{army['id']}/units/1/remove", data={"csrf_token": token}, headers=HX
    )
    assert page.status_code == 200
    after = client.get(f"{API}/{army['id']}", headers=alice).json()
    assert [u["name"] for u in after["units"]] == ["Garde", "Escouade tactique", "Capitaine"]
    assert after["units"][1]["embarked_in"] is None
    assert after["units"][2]["joins"] == 1
    # undo: the transport is back at #2 and its passengers start in it again
    undo = html(page).css_first("#undo-notice input[name=undo]")
    assert undo is not None
    back = client.post(
        f"/armies/{army['id']}/restore",
        data={"csrf_token": token, "undo": undo.attributes["value"]},
        headers=HX,
    )
    assert back.status_code == 200
    restored = client.get(f"{API}/{army['id']}", headers=alice).json()["units"]
    assert [u["name"] for u in restored] == [u["name"] for u in units]
    assert restored[2]["embarked_in"] == 1
    assert restored[3]["joins"] == 2


def test_old_units_read_with_defaults() -> None:
    stored = pen_unit()  # as stored before the battle fields existed
    unit = PenUnit.from_dict(stored)
    assert (unit.embarked_in, unit.joins, unit.independent_character, unit.options) == (
        None,
        None,
        False,
        (),
    )
    assert unit.total_points == 150


def test_the_battle_profile_is_the_engines() -> None:
    from app.engine.pen.battle.setup import UnitSpec, WeaponSpec, profile_of

    unit = check_unit(PenUnit.from_dict(captain()))
    profile = unit.battle_profile()
    assert "models" not in profile
    assert "Personnage indépendant" in profile["rules"]
    spec = UnitSpec(
        "c",
        unit.name,
        unit.total_points,
        unit.models,
        profile,
        tuple(WeaponSpec(n, w) for n, w in unit.battle_weapons()),
    )
    typed = profile_of(spec)
    assert typed.initiative == 4
    vehicle = check_unit(PenUnit.from_dict(rhino()))
    assert profile_of(UnitSpec("r", "Rhino", 35, 1, vehicle.battle_profile())).hull_points == 3


def test_systems_are_looked_up_by_id_and_format() -> None:
    assert system_for("pen").page_template == "armies/pen.html"
    assert system_for("wh40k-10e").page_template == "armies/army.html"
    assert system_for_format("auspex.pen-army") is system_for("pen")
    assert system_for_format("nope") is None


def test_the_editor_captures_the_battle_fields(client: TestClient, alice: dict) -> None:
    army = post(client, alice, [pen_unit(), rhino()]).json()
    url = f"/armies/{army['id']}/units"
    page = client.get(f"{url}/new")
    assert page.status_code == 200
    assert 'name="joins"' in page.text
    assert '<option value="1">#2 Rhino</option>' in page.text  # a transport to start in
    token = csrf(client, f"{url}/new")
    form = {
        "csrf_token": token,
        "name": "Chapelain",
        "points": "100",
        "models": "1",
        "kind": "unit",
        "unit_type": "infantry",
        "ws": "5",
        "bs": "4",
        "toughness": "4",
        "wounds": "2",
        "initiative": "5",
        "leadership": "10",
        "independent_character": "on",
        "joins": "0",
        "embarked_in": "",
        "o0.name": "Bombes à fusion",
        "o0.points": "5",
    }
    saved = client.post(url, data=form)
    assert saved.status_code in (200, 303), saved.text
    body = client.get(f"{API}/{army['id']}", headers=alice).json()
    chaplain = body["units"][2]
    assert chaplain["independent_character"] is True
    assert chaplain["joins"] == 0
    assert chaplain["options"] == [{"name": "Bombes à fusion", "points": 5}]
    assert body["validation"]["points"] == 150 + 35 + 105
    edit = client.get(f"{url}/2")
    assert 'value="Bombes à fusion"' in edit.text
    assert '<option value="0" selected>#1 Escouade tactique</option>' in edit.text
    refused = client.post(url, data={**form, "joins": "abc"})
    assert refused.status_code == 422


def test_the_text_export_names_the_battle_fields(client: TestClient, alice: dict) -> None:
    units = [
        pen_unit(models=5, embarked_in=1, troops=True, options=[{"name": "Fuseur", "points": 10}]),
        rhino(),
    ]
    army = post(client, alice, units).json()
    text = client.get(f"{API}/{army['id']}/export?format=text", headers=alice).text
    assert "Escouade tactique (160 pts)" in text
    assert "Starts in the transport: Rhino (#2)" in text
    assert "Fuseur (+10 pts)" in text
    assert "Carries 10 models: infantry" in text
    assert "  \u2022 Troops" in text
    assert "  \u2022 Armour 11/11/10, 3 hull points" in text


def test_the_text_export_is_in_the_readers_language(client: TestClient, alice: dict) -> None:
    # issue 18: the PEN text says what the list page says, in French on French pages and for a
    # French reader of the API (a PEN list imports back from its JSON, not from this text)
    units = [
        pen_unit(models=5, embarked_in=1, troops=True, options=[{"name": "Fuseur", "points": 10}]),
        rhino(),
        captain(joins=0, embarked_in=1, characteristics={"toughness": 4, "wounds": 2}),
        pen_unit(name="Motard", models=1, unit_type="bike", weapons=[]),
    ]
    response = post(client, alice, units, points_limit=500)
    assert response.status_code == 201, response.text
    army = response.json()
    english = client.get(f"{API}/{army['id']}/export?format=text", headers=alice).text
    client.patch("/api/v1/me", json={"preferred_language": "fr"}, headers=alice)
    text = client.get(f"{API}/{army['id']}/export?format=text", headers=alice).text
    lines = text.splitlines()
    assert lines[:3] == ["Bataille (435 / 500 pts)", "", "PEN"]
    for line in (
        "Escouade tactique (160 pts)",
        "  \u2022 5 figurines",
        "  \u2022 Troupe",
        "  \u2022 Commence dans le transport : Rhino (#2)",
        "  \u2022 Transporte 10 figurines : infanterie",
        "  \u2022 Blindage 11/11/10, 3 points de coque",
        "  \u2022 Personnage indépendant",
        "  \u2022 Commence dans l'escouade : Escouade tactique (#1)",
        "  \u2022 1 figurine",
        "  \u2022 moto",
        "  \u2022 CC 4 CT 4 F 4 E 4 PdV 1 I 4 A 1 Cd 8 Svg 3+",
        '  \u2022 Bolter (tir rapide; 24"; F 4; PA 5)',
    ):
        assert line in lines, (line, text)
    for word in ("model", "Troops", "Independent character", "Starts in", "Armour", "hull"):
        assert word not in text, word
        assert word in english, word
    # the list page's text box says the same, and is read by the French-pages test
    page = html(client.get(f"/armies/{army['id']}"))
    box = page.css_first("#export-text-field")
    assert box.text() == text
    assert "export-text" in box.attributes["class"]
    assert "lang" not in box.attributes


def test_the_list_page_shows_the_battle_fields_and_what_is_missing(
    client: TestClient, alice: dict
) -> None:
    units = [
        pen_unit(models=5, embarked_in=1, troops=True, options=[{"name": "Fuseur", "points": 10}]),
        rhino(),
        captain(joins=0, embarked_in=1, characteristics={"toughness": 4, "wounds": 2}),
    ]
    army = post(client, alice, units).json()
    page = client.get(f"/armies/{army['id']}")
    assert page.status_code == 200
    text = page.text
    assert "Starts in the transport: Rhino (#2)" in text
    assert "Starts in the squad: Escouade tactique (#1)" in text
    assert "Carries 10 models: infantry" in text
    assert "Fuseur (+10 pts)" in text
    assert "160 pts" in text
    assert "Capitaine lacks WS, BS, I, Ld for a battle." in text
    client.patch("/api/v1/me", json={"preferred_language": "fr"}, headers=alice)
    french = client.get(f"/armies/{army['id']}").text
    assert "Il manque CC, CT, I, Cd à Capitaine pour une bataille." in french


def test_a_new_list_of_an_unknown_system_is_refused(client: TestClient, alice: dict) -> None:
    token = csrf(client, "/armies/new")
    form = {"csrf_token": token, "rule_system": "wh40k-3e", "name": "Vieille liste"}
    response = client.post("/armies", data=form)
    assert response.status_code == 422
    assert "Unknown rule system." in response.text
    created = client.post("/armies", data={**form, "rule_system": "pen", "points_limit": "750"})
    assert created.status_code in (200, 303)
    mine = client.get(API, headers=alice).json()
    assert [(a["rule_system"], a["points_limit"]) for a in mine] == [("pen", 750)]
