"""Black Reach through the match (issue 16, review fixes): a transport carrying a unit deployed
aboard is refused its Flight face through the API, and its passenger stays aboard (rulings 141)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from tests.engine.black_reach.battle import test_deploy_aboard as aboard
from tests.engine.black_reach.battle.test_review_fixes import flight_setup
from tests.matches.test_black_reach_page_ambush import send
from tests.matches.test_pages_black_reach import two_players
from tests.matches.test_pages_black_reach_actions import played_on

MATCHES = "/api/v1/matches"


def test_a_loaded_transport_is_refused_its_flight_face_through_the_api(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, flight_setup())
    alice, bob, match_id = two_players(browser)  # the players deploy
    d = aboard.PLACES[aboard.TRANSPORT]
    deploy = {"type": "deploy", "unit": aboard.TRANSPORT, "x": d.x, "y": d.y, "facing": d.facing}
    r = send(alice, match_id, deploy)
    assert r.status_code == 200, r.text
    r = send(alice, match_id, aboard.aboard(aboard.TACTICAL))
    assert r.status_code == 200, r.text
    r = send(alice, match_id, {**deploy, "face": "flight"})
    assert r.status_code == 409, r.text
    assert r.json()["refusal"] == "transport_flying"
    seen = bob.get(f"{MATCHES}/{match_id}").json()["view"]
    squad = next(u for u in seen["units"] if u["id"] == aboard.TACTICAL)
    assert (squad["embarked_in"], squad["at"]) == (aboard.TRANSPORT, None)
    transport = next(u for u in seen["units"] if u["id"] == aboard.TRANSPORT)
    assert transport["face"] != "flight"
