"""``POST /api/v1/rulesets/black-reach/combat/resolve`` with dice rolled by hand uses every die
it is given: a die the roll does not use (one too many, or the location die of a shot that
missed) is refused with a 422 naming the dice, as a match command refuses them, instead of
being silently dropped (issue 16)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

RESOLVE = "/api/v1/rulesets/black-reach/combat/resolve"
GREY = [
    "locomotion",
    "hull",
    "secondary_weapon",
    "hull",
    {"marker": "main_weapon", "number": 2},
    "explosion",
]
SHOT = {"kind": "shot", "attacker": {"cv": 4}, "target": {"dv": 6}}
TWIN = {"kind": "shot", "attacker": {"cv": 4, "dice": 2}, "target": {"dv": 6}}
VEHICLE = {"kind": "shot", "attacker": {"cv": 4}, "target": {"dv": 6, "damage_set": GREY}}
ASSAULT = {
    "kind": "assault",
    "attacker": {"cv": 1, "assault_bonus": 3, "support": 1, "bonuses": 1},
    "target": {"cv": 3, "has_assault": True, "assault_bonus": 1, "defence_bonus": 2},
}
SUPPRESSION = {"kind": "suppression_fire", "attacker": {"cv": 3}, "target": {"dv": 6}}


def resolve(client: TestClient, body: dict[str, Any], dice: list[int]) -> Any:
    return client.post(RESOLVE, json={**body, "dice": dice})


@pytest.mark.parametrize(
    ("body", "used"),
    [
        (SHOT, [3]),
        (TWIN, [3, 5]),
        (VEHICLE, [1]),  # a miss: no location die
        (VEHICLE, [3, 4]),  # a step (7 against 6), then its location die
        (ASSAULT, [4, 1, 3, 2]),  # two dice each (the defender has Assaut)
    ],
)
def test_every_die_given_is_used_or_the_roll_is_refused(
    client: TestClient, body: dict[str, Any], used: list[int]
) -> None:
    r = resolve(client, body, used)
    assert r.status_code == 200, r.text
    assert [d["value"] for d in r.json()["dice"]] == used
    r = resolve(client, body, [*used, 6])
    assert r.status_code == 422, r.text
    problem = r.json()
    assert [e["field"] for e in problem["errors"]] == ["dice"]
    assert "1 of the dice given were not needed" in problem["detail"]


def test_a_suppression_fire_takes_the_dice_it_rolls_only(client: TestClient) -> None:
    seeded = client.post(RESOLVE, json={**SUPPRESSION, "seed": 7}).json()
    rolled = [d["value"] for d in seeded["dice"]]
    again = resolve(client, SUPPRESSION, rolled)
    assert again.status_code == 200, again.text
    assert again.json()["extra"] == seeded["extra"]
    assert resolve(client, SUPPRESSION, [*rolled, 2, 2]).status_code == 422


def test_a_seeded_roll_is_unchanged(client: TestClient) -> None:
    r = client.post(RESOLVE, json={**ASSAULT, "seed": 12})
    assert r.status_code == 200, r.text
    assert len(r.json()["dice"]) == 4
