"""A limit of copies that depends on the rest of the list (ruling D9), through the stateless
check on the starter catalogue: the Orks' Warbikers, 3 in an army (Orks.cat constraint
4f4d-f450-6bac-d647) and 6 when Wazdakka Gutsmek is the Warlord (its modifier, set 6). The
starter has no Wazdakka, so its lists keep the 3; the raised limit is tested on the real
files in tests/catalog/bsdata/test_roster_limits.py."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

URL = "/api/v1/rulesets/wh40k-10e/armies/validate"


def body(warlord: str, bikers: int) -> dict[str, Any]:
    return {
        "faction": "Orks",
        "detachment": "War Horde",
        "battle_size": "strike-force",
        "units": [
            {"datasheet": warlord, "warlord": True},
            *[{"datasheet": "Warbikers", "models": 3} for _ in range(bikers)],
        ],
    }


def errors(answer: dict[str, Any]) -> list[tuple[str, int | None]]:
    return [(v["code"], v["unit"]) for v in answer["violations"] if v["severity"] == "error"]


def test_three_warbikers_are_legal(anon: TestClient) -> None:
    answer = anon.post(URL, json=body("Warboss", 3)).json()
    assert errors(answer) == []
    assert answer["valid"] is True


def test_four_warbikers_under_another_warlord_are_not(anon: TestClient) -> None:
    answer = anon.post(URL, json=body("Warboss", 4)).json()
    assert errors(answer) == [("data-restriction", i) for i in (1, 2, 3, 4)]
    first = next(v for v in answer["violations"] if v["code"] == "data-restriction")
    assert "more than 3 Warbikers unit(s) in the army" in first["message"]
    assert answer["valid"] is False


def test_seven_are_over_the_most_any_list_allows(anon: TestClient) -> None:
    answer = anon.post(URL, json=body("Warboss", 7)).json()
    assert ("datasheet-limit-exceeded", 7) in errors(answer)
