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
