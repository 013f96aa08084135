"""Registration with the real armies feature: a ready list of the starter catalogue is locked."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.orm import Session

from tests.leagues.conftest import make_club

UNITS: list[dict[str, Any]] = [
    {
        "datasheet": "Captain",
        "enhancements": ["Artificer Armour"],
        "warlord": True,
        "attached_to": 2,
    },
    {"datasheet": "Lieutenant", "attached_to": 3},
    {"datasheet": "Intercessor Squad", "models": 10},
    {"datasheet": "Intercessor Squad", "models": 5},
    {"datasheet": "Rhino"},
    {"datasheet": "Redemptor Dreadnought"},
    {"datasheet": "Hellblaster Squad", "models": 5},
]


@pytest.fixture
def starter_catalogue(db: Session) -> None:
    from app.catalog import starter

    starter.load(db)
    db.commit()


def test_register_with_a_real_ready_list(user_client, starter_catalogue) -> None:  # type: ignore[no-untyped-def]
    club = make_club(user_client, 1)
    alice = club.members[0]
    created = alice.post(
        "/api/v1/armies",
        json={
            "name": "Gladius spearhead",
            "faction": "Adeptus Astartes",
            "detachment": "Gladius Task Force",
            "battle_size": "incursion",
            "units": UNITS,
        },
    )
    assert created.status_code == 201, created.text
    army_id = created.json()["id"]
    league_id = club.league(points_limit=1000)
    path = f"/api/v1/leagues/{league_id}/registrations"
    draft = alice.post(path, json={"army_id": army_id})
    assert draft.status_code in (409, 422), draft.text
    ready = alice.patch(f"/api/v1/armies/{army_id}", json={"status": "ready"})
    assert ready.status_code == 200, ready.text
    registered = alice.post(path, json={"army_id": army_id})
    assert registered.status_code == 201, registered.text
    body = registered.json()
    assert body["army_name"] == "Gladius spearhead"
    assert body["snapshot"]["rule_system"] == "wh40k-10e"
    points = body["snapshot"]["points"]
    # an edit of the list afterwards does not reach the league's copy
    renamed = alice.patch(f"/api/v1/armies/{army_id}", json={"name": "Renamed"})
    assert renamed.status_code == 200, renamed.text
    listed = alice.get(path).json()[0]
    assert listed["army_name"] == "Gladius spearhead"
    assert listed["snapshot"]["points"] == points
    # another player's list is not yours to register
    bob = club.join(club.make_user("Bob"))
    refused = bob.post(path, json={"army_id": army_id})
    assert refused.status_code == 404, refused.text
    # the league page offers the ready lists of the league's rule system
    from tests.support.web import html

    page = html(bob.get(f"/leagues/{league_id}"))
    assert page.css_first("#no-ready-list") is not None
    assert html(alice.get(f"/leagues/{league_id}")).css_first("#register-form") is None
    other = club.league(name="Second")
    # the rename made the list a draft again: it is offered once marked ready again
    assert html(alice.get(f"/leagues/{other}")).css_first("#no-ready-list") is not None
    alice.patch(f"/api/v1/armies/{army_id}", json={"status": "ready"})
    options = html(alice.get(f"/leagues/{other}")).css("#register-form select[name=army_id] option")
    assert [(o.attributes["value"], o.text()) for o in options] == [
        (str(army_id), f"Renamed ({points} points)")
    ]
