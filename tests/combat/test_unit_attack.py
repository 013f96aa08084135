"""Issue 18, the page: a unit put in the calculator as the attacker makes one attack, as a
player does: its ranged weapons (by default) or its melee ones, one profile of each weapon (the
first by default: standard, not standard and supercharge together), on the models that carry it.
"""

from __future__ import annotations

from urllib.parse import parse_qsl, urlencode, urlsplit

from fastapi.testclient import TestClient

from tests.combat.test_web import BOLT_RIFLES
from tests.support.web import html

QUERY = urlencode(BOLT_RIFLES)


def _rows(response) -> dict[str, dict[str, str]]:  # type: ignore[no-untyped-def]
    assert response.status_code == 303, response.text
    values = parse_qsl(urlsplit(response.headers["location"]).query)
    rows: dict[str, dict[str, str]] = {}
    for key, value in values:
        head, _dot, field = key.partition(".")
        if head.startswith("w") and head[1:].isdigit():
            rows.setdefault(head, {})[field] = value
    return rows


def _hellblasters(client: TestClient):  # type: ignore[no-untyped-def]
    tree = html(client.get(f"/calculator/units?{QUERY}&q=hellblaster"))
    found = [c for c in tree.css("#sheet-choices li.unit-choice") if "Hellblaster" in c.text()]
    assert found
    return found[0]


def test_a_unit_shoots_with_one_profile_per_weapon(client: TestClient, starter_loaded) -> None:
    choice = _hellblasters(client)
    ref = choice.attributes["data-ref"]
    link = next(a for a in choice.css("a") if a.text().strip() == "As the attacker")
    rows = _rows(client.get(link.attributes["href"], follow_redirects=False))
    names = [r["name"] for r in rows.values()]
    assert all(r["kind"] == "ranged" for r in rows.values()), rows
    plasma = [n for n in names if n.lower().startswith("plasma incinerator")]
    assert len(plasma) == 1, names  # standard OR supercharge, not both
    assert "supercharge" not in plasma[0].lower()
    assert not any("close combat" in n.lower() for n in names), names
    models = {r["name"]: r["models"] for r in rows.values()}
    assert models[plasma[0]] == "5", models  # the loadout's models (5 Hellblasters)
    # the choice offered beside the link: the attack and the plasma's profile
    form = choice.css_first("form.unit-attack")
    assert form is not None
    modes = [o.attributes["value"] for o in form.css("select[name=mode] option")]
    assert modes == ["ranged", "melee"]
    pick = next(s for s in form.css("select") if s.attributes["name"].startswith("pick."))
    options = [o.text().strip() for o in pick.css("option")]
    assert "supercharge" in [o.lower() for o in options], options
    supercharge = [o.lower() for o in options].index("supercharge")
    query = f"{QUERY}&unit={ref}&as=attacker&{pick.attributes['name']}={supercharge}"
    rows = _rows(client.get(f"/calculator?{query}", follow_redirects=False))
    names = [r["name"] for r in rows.values()]
    assert [n for n in names if "plasma incinerator" in n.lower()] == [
        next(n for n in names if "supercharge" in n.lower())
    ], names
    # melee: the close combat weapon only, and the target kept
    response = client.get(
        f"/calculator?{QUERY}&unit={ref}&as=attacker&mode=melee", follow_redirects=False
    )
    rows = _rows(response)
    assert rows
    assert all(r["kind"] == "melee" for r in rows.values()), rows
    assert dict(parse_qsl(urlsplit(response.headers["location"]).query))["t.toughness"] == "4"


def test_odd_choices_are_ignored_not_errors(client: TestClient, starter_loaded) -> None:
    ref = _hellblasters(client).attributes["data-ref"]
    for odd in ("mode=both", "pick.0=99", "pick.x=1", "pick.0=-1", "pick.\u00b2=1"):
        response = client.get(
            f"/calculator?{QUERY}&unit={ref}&as=attacker&{odd}", follow_redirects=False
        )
        rows = _rows(response)
        assert rows, odd
        assert all(r["kind"] == "ranged" for r in rows.values()), (odd, rows)


# -- a PEN list fills the PEN form ---------------------------------------------------------------

PEN_UNIT = {
    "name": "Tactiques",
    "points": "150",
    "models": "10",
    "kind": "unit",
    "unit_type": "infantry",
    **dict.fromkeys(("ws", "bs", "strength", "toughness", "initiative"), "4"),
    "wounds": "1",
    "attacks": "1",
    "leadership": "8",
    "save": "3+",
}


def test_a_unit_of_my_pen_list_fills_the_pen_form(
    client: TestClient, other_client: TestClient, alice: dict, bob: dict
) -> None:
    from tests.support.web import csrf

    token = csrf(client, "/armies")
    r = client.post(
        "/armies",
        data={"csrf_token": token, "rule_system": "pen", "name": "Compagnie"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    army_id = int(r.headers["location"].rsplit("/", 1)[1])
    r = client.post(
        f"/armies/{army_id}/units",
        data={"csrf_token": token, **PEN_UNIT},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    tree = html(client.get(f"/calculator/units?{QUERY}"))
    choice = next(
        c for c in tree.css("li.unit-choice") if c.attributes["data-ref"].startswith("pen:")
    )
    ref = choice.attributes["data-ref"]
    assert "Tactiques" in choice.text()
    as_target = client.get(f"/calculator?{QUERY}&unit={ref}&as=target", follow_redirects=False)
    values = dict(parse_qsl(urlsplit(as_target.headers["location"]).query))
    assert values["system"] == "pen"
    assert values["t.name"] == "Tactiques"
    assert values["t.models"] == "10"
    assert values["t.save"] == "3+"
    assert values["t.toughness"] == "4"
    page = client.get(as_target.headers["location"])
    assert page.status_code == 200
    assert html(page).css_first("#stages") is not None  # the PEN form computes it
    unarmed = client.get(f"/calculator?{QUERY}&unit={ref}&as=attacker", follow_redirects=False)
    assert unarmed.status_code == 404  # no weapon: nothing to attack with
    stolen = other_client.get(f"/calculator?unit={ref}&as=target", follow_redirects=False)
    assert stolen.status_code == 404
