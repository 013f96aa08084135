"""The alarm of Rescue through the JSON API after the playthrough's review (issue 15, rulings
81): Silenced Weapons raises it when a model of the target is wounded and alive; a shot while
the spy's alarm is pending raises it at once and ends the Attacker's turn. Every accepted
command is replayed from the stored rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, finish_turn
from tests.matches.test_narrative_match import new_narrative_game, to_phase
from tests.matches.test_narrative_scenarios_api_b import log_events, shoot, unit


def rescue(user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session) -> Game:
    """Alice (725 points) attacks Bob; Bob's only sentry is b4, the Nobz (2 wounds each), the
    rest in Reserve; Alice deploys all she can and has the first turn."""
    g = new_narrative_game(user_client, armies, db, "rescue")
    g.a.send({"type": "roll_off"}, dice=[])
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    g.b.send({"type": "deploy_forces", "units": ["b4"], "reserves": ["b1", "b2", "b3", "b5", "b6"]})
    g.a.send({"type": "deploy_forces", "units": ["a1", "a2", "a3", "a4", "a5", "a7"]})
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]
    assert (view["stage"], view["active"], view["round"]) == ("battle", "A", 1)
    return g


def test_silenced_weapons_wounding_a_nob_that_lives_raises_the_alarm_and_ends_the_turn(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = rescue(user_client, armies, db)
    to_phase(g, "A", "shooting")
    cp = g.a.view()["players"]["A"]["cp"]
    view = g.a.send({"type": "use_mission_stratagem", "stratagem": "silenced-weapons"})["view"]
    assert view["players"]["A"]["cp"] == cp - 1
    full = unit(view, "b4")["wounds"]
    assert set(full) == {2}
    view = shoot(g, "A", "a2", "b4", [1])
    assert unit(view, "b4")["wounds"] == [1, *full[1:]]
    assert view["narrative"]["alarm"] == {"state": "raised", "cause": "ranged_attack", "round": 1}
    assert (view["active"], view["round"]) == ("B", 1)
    (changed,) = log_events(g, "narrative_alarm")
    assert (changed["state"], changed["truncate"]) == ("raised", True)
    assert g.a.checked > 5


def test_silenced_weapons_slaying_a_nob_stays_silent(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = rescue(user_client, armies, db)
    to_phase(g, "A", "shooting")
    g.a.send({"type": "use_mission_stratagem", "stratagem": "silenced-weapons"})
    view = shoot(g, "A", "a2", "b4", [2])
    assert unit(view, "b4")["wounds"][0] == 0
    assert view["narrative"]["alarm"]["state"] == "calm"
    assert (view["active"], view["phase"]) == ("A", "shooting")
    assert log_events(g, "narrative_alarm") == []


def test_a_shot_while_the_spys_alarm_is_pending_raises_it_and_ends_the_turn(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = rescue(user_client, armies, db)
    to_phase(g, "A", "movement")
    scan = {"type": "use_mission_stratagem", "stratagem": "beacon-scan", "target": "2"}
    view: dict[str, Any] = g.a.send(scan, dice=[6])["view"]
    assert view["narrative"]["spy_found_at"] == "2"
    assert view["narrative"]["alarm"]["state"] == "pending"
    to_phase(g, "A", "shooting")
    view = shoot(g, "A", "a2", "b4", [1])
    assert view["narrative"]["alarm"] == {"state": "raised", "cause": "ranged_attack", "round": 1}
    assert (view["active"], view["round"]) == ("B", 1)
    states = [(e["state"], e["cause"]) for e in log_events(g, "narrative_alarm")]
    assert states == [("pending", "spy_found"), ("raised", "ranged_attack")]
    # B's first turn after the alarm: its reserves roll, 4+
    to_phase(g, "B", "movement")
    view = g.b.send({"type": "reserve_roll", "unit": "b3"}, dice=[4])["view"]
    assert unit(view, "b3")["location"] == "battlefield"
    finish_turn(g)
    assert g.a.checked > 5


def test_the_deploy_form_offers_the_suggested_units_and_reserves() -> None:
    import json

    from starlette.datastructures import FormData

    from app.matches.pages import page_system
    from app.matches.pages.wh40k10e import present
    from app.matches.web import build_command

    suggested = {"type": "deploy_forces", "units": ["b2"], "reserves": ["b1", "b3"]}
    # the player ticks b1 besides the suggested b2: b3 alone starts in reserve
    form = FormData([("command", json.dumps(suggested)), ("deploy", "b1"), ("deploy", "b2")])
    assert build_command(form, page_system("wh40k-10e")) == {
        "type": "deploy_forces",
        "units": ["b2", "b1"],
        "reserves": ["b3"],
    }
    view: dict[str, Any] = {"narrative": {}, "viewer": "B", "units": []}
    (deploy,) = present.action_forms([{"command": suggested}], view)
    assert [u for u, _ in deploy.units] == ["b2", "b1", "b3"]
    assert deploy.checked == ["b2"]


def test_the_spy_not_placed_is_reported_by_the_attacker_and_ends_the_battle(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = rescue(user_client, armies, db)
    unplaced = {"type": "report_spy_unplaced"}
    g.a.send(unplaced, status=422)  # no spy found yet
    to_phase(g, "A", "movement")
    scan = {"type": "use_mission_stratagem", "stratagem": "beacon-scan", "target": "6"}
    g.a.send(scan, dice=[6])
    offered = [a["command"]["type"] for a in g.a.actions()]
    assert "report_spy_unplaced" in offered
    g.b.send(unplaced, status=409)  # not the Defender's turn, nor its choice
    view = g.a.send(unplaced)["view"]
    assert view["stage"] == "ended"
    assert (view["result"]["winner"], view["result"]["reason"]) == ("B", "spy_not_placed")
    (evaluated,) = log_events(g, "narrative_evaluated")
    assert evaluated["breakdown"] == [
        {"side": "defender", "item": "spy_could_not_be_placed", "vp": 0, "detail": ""}
    ]
    assert (evaluated["result"], evaluated["winner"]) == ("victory", "B")
    assert len(log_events(g, "narrative_spy_killed")) == 1
    page = g.b.client.get(f"/matches/{g.match_id}")
    assert page.status_code == 200
    assert "the spy could not be placed" in page.text
    assert g.a.checked > 5


def test_the_sentries_step_suggests_a_deployment_the_match_accepts(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "rescue")
    g.a.send({"type": "roll_off"}, dice=[])
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    (hint,) = [a for a in g.b.actions() if a["command"]["type"] == "deploy_forces"]
    command = hint["command"]
    assert len(command["units"]) == 1
    assert sorted(command["units"] + command["reserves"]) == [f"b{i}" for i in range(1, 7)]
    g.b.send(command)
    assert g.b.view()["narrative"]["step"] != "sentries"
