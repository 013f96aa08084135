"""Purity Seals through the JSON API and on the page (issue 16, rulings 153-155): the sample
match with the Ultramarines squad's Ammo replaced by made-up Purity Seals (sample content).
A shot by the heavy-weapon team stops at its die: the seal holder is asked, the other seat
waits (409), the answer goes on with the shot; every die is in the log with its seed (the
audit finds none wrong), the export replays to an equal battle; and the page shows the
notice and the buttons."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.matches.systems import black_reach as system
from tests.matches.test_black_reach_match import (
    BOLTER,
    BOYZ1,
    BOYZ2,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    br_game,
    live,
    path,
    place_all_orders,
)
from tests.matches.test_pages_black_reach import page_of, place_orders, post_form, slug, two_players
from tests.matches.test_pen_match import PenGame

__all__ = ["br_game"]

GROUP = "ultramarines:tiles[0]"
SEALS = {
    "id": "test-seals",
    "name": "Made-up Purity Seals",
    "faction": "ultramarines",
    "type": "equipment",
    "cost": 3,
    "bands": ["blue"],
    "equipment": {"markers": 3, "reroll": True},
}


@pytest.fixture(autouse=True)
def _fresh_scenarios() -> Iterator[None]:
    yield
    system._scenario.cache_clear()
    system._shipped_content_id.cache_clear()


@pytest.fixture
def sealed(monkeypatch: pytest.MonkeyPatch) -> None:
    original = system.sample_setup

    def setup(*args: Any, **kwargs: Any) -> BattleSetup:
        made = original(*args, **kwargs)
        catalogue = json.loads(json.dumps(made.catalogue))
        catalogue["options"].append(SEALS)
        scenario = json.loads(json.dumps(made.scenario))
        squad = scenario["sides"][0]["army"]["tiles"][0]
        squad["slots"][0]["option"] = "test-seals"
        return BattleSetup(scenario, catalogue, made.boards, made.seats, made.deployment)

    monkeypatch.setattr(system, "sample_setup", setup)


def kinds(done: dict[str, Any]) -> list[str]:
    return [e["event"]["type"] for e in done["events"]]


@pytest.mark.usefixtures("sealed")
def test_a_purity_seal_through_the_api(br_game: Callable[..., PenGame]) -> None:
    g = br_game(deployment="sample")
    place_all_orders(g)
    g.b.send({"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))})
    stopped = g.a.send({"type": "shoot", "unit": BOLTER, "target": BOYZ1}, dice=[4])
    assert kinds(stopped) == ["reroll_offered"]
    view = g.b.view()
    assert view["reroll"]["side"] == "ultramarines"
    assert view["reroll"]["values"] == [4]
    assert view["reroll"]["event"] == "unit_shot"
    assert g.b.client.get(f"{g.b.base}/actions").json()["actions"] == []
    waits = g.b.send({"type": "hold", "unit": BOYZ1}, status=409)
    assert waits["refusal"] == "waiting_reroll"
    g.b.send({"type": "keep_roll"}, status=403)
    g.a.send({"type": "reroll", "group": GROUP, "option": "nothing"}, status=409)
    g.a.send({"type": "reroll", "group": GROUP, "option": ["x"]}, status=422)
    actions = g.a.client.get(f"{g.a.base}/actions").json()["actions"]
    assert [a["command"] for a in actions] == [
        {"type": "reroll", "group": GROUP, "option": "test-seals"},
        {"type": "keep_roll"},
    ]
    assert actions[0]["markers"] == 3
    # the server rolls the new die from its own seed
    done = g.a.send({"type": "reroll", "group": GROUP, "option": "test-seals"})
    assert kinds(done)[:3] == ["reroll_answered", "order_revealed", "unit_shot"]
    shot = next(e["event"] for e in done["events"] if e["event"]["type"] == "unit_shot")
    die = shot["roll"]["dice"][0]
    assert die["original"] == 4
    answer = done["events"][0]["event"]
    assert answer["roll"]["seed"] is not None
    assert answer["roll"]["dice"][0]["value"] == die["value"]
    audit = g.a.client.get(f"{g.a.base}/audit").json()
    checks = audit["rolls"] if isinstance(audit, dict) and "rolls" in audit else audit
    assert all(c["ok"] is not False for c in checks), checks
    battle = live(g.match_id)
    assert battle.state.equipment_used == {f"{GROUP}|test-seals": 1}
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state


@pytest.mark.usefixtures("sealed")
def test_the_page_shows_the_roll_waiting_and_the_answers(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (BOYZ1, BOYZ2, NOB, SHOOTAS))
    place_orders(alice, match_id, (BOLTER, TACTICAL, SERGEANT))
    page = page_of(bob, match_id)
    move = page.css_first(f"#form-move-{slug(BOYZ1)}")
    assert move is not None
    to = move.css_first('select[name="path"] option[data-to="4,6"]').attributes["value"]
    post_form(bob, match_id, f"#form-move-{slug(BOYZ1)}", page=page, path=to)
    page = page_of(alice, match_id)
    shoot = next(
        f.attributes["id"]
        for f in page.css("form.action-shoot")
        if f.attributes.get("data-target") == BOYZ1 and f.attributes.get("data-unit") == BOLTER
    )
    after = post_form(alice, match_id, f"#{shoot}", page=page, dice="4")
    assert after.css_first("#match-error") is None
    notice = after.css_first("#br-notice").text()
    assert "rolled 4" in notice, notice
    assert "may reroll it or keep it" in notice
    buttons = [f.css_first("button").text().strip() for f in after.css("form.action-reroll")]
    assert buttons == ["Reroll it with Made-up Purity Seals (3 left)"]
    assert after.css_first("form.action-keep_roll") is not None
    theirs = page_of(bob, match_id)
    assert "may reroll it or keep it" in theirs.css_first("#br-notice").text()
    assert theirs.css_first("form.action-keep_roll") is None
    assert after.css_first("form.action-reroll details.hand-dice") is not None
    done = post_form(alice, match_id, "form.action-reroll", page=after, dice="6")
    assert done.css_first("#match-error") is None
    assert done.css_first("#br-notice") is None
    said = [li.text() for li in done.css("#timeline li")]
    assert any("rerolls it with Made-up Purity Seals: 6." in t for t in said), said
    assert any("is asked whether to reroll the shot of " in t for t in said), said


def test_the_page_offers_a_power_used_again_and_words_it() -> None:
    """A Librarian's Perils marker "again" (rulings 157): the page's forms are the power's
    manifestation and a button to decline, the notice and the timeline say it."""
    from app.matches.pages import black_reach
    from app.matches.pages import black_reach_rerolls as rerolls
    from tests.engine.black_reach.battle import test_psykers as psy

    battle = psy.reduced()
    gaze = {"type": "manifest", "unit": psy.LIBRARIAN, "power": "sample-um-scrier"}
    events = battle.execute_json(gaze, "A", seed=psy.seed_for(1, 6))
    view = battle.view("A")
    names = black_reach._names(view, battle.state)
    forms, _ = black_reach.action_forms(battle.actions("A"), names, state=battle.state, view=view)
    assert [f.kind for f in forms] == ["manifest", "decline_power"]
    assert forms[0].unit == psy.LIBRARIAN
    assert forms[1].label == "Do not use the power again"
    librarian, power = names[psy.LIBRARIAN], names["sample-um-scrier"]
    sides = {"ultramarines": "Alice (ultramarines)"}
    assert rerolls.notice(view, names, sides) == (
        f"{librarian} may use {power} again at once, paying its cost."
    )
    offered = next(e for e in battle.log_json("B") if e["seq"] == events[-1].seq)
    assert black_reach.describe(offered["event"], names, sides) == (
        f"{librarian} may use {power} again."
    )
    assert black_reach.action_forms(battle.actions("B"), names)[0] == []
