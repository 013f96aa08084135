"""Integrity over HTTP: one attack per unit and target in a phase (the API refuses a second,
the page stops offering it, after a reload too), an Attached unit is one unit on the page and
in the log, and undo never re-rolls (the opponent approves an undo of dice; sent again, the
same roll draws the same dice)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, Player, setup_battle
from tests.matches.test_battles import _ranged
from tests.matches.test_web import HX, form_of, start, state

FORMATIONS = {"A": {"attachments": [["a1", "a2"]]}, "B": {"attachments": [["b1", "b2"]]}}


def game(browser: Callable[[str], TestClient], armies: FakeArmies, db: Session) -> Game:
    """Alice (A) and Bob (B) in browsers (cookie sessions: the pages and the API), set up,
    Alice's first Shooting phase."""
    alice, bob, match_id = start(browser, armies)
    g = Game(Player(alice, match_id, "A", db), Player(bob, match_id, "B", db), match_id)
    setup_battle(g, FORMATIONS)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    assert g.a.view()["phase"] == "shooting"
    return g


def roll(p: Player, attacker: str, target: str, picks: list[dict[str, Any]], **extra: Any) -> Any:
    return p.client.post(
        f"{p.base}/combat/resolve",
        json={
            "attacker": attacker,
            "target": target,
            "weapons": picks,
            "expected_version": p.get()["version"],
            **extra,
        },
    )


def test_a_unit_attacks_once_and_the_page_stops_offering_it(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = game(browser, armies, db)
    page = state(g.a.client.get(f"/matches/{g.match_id}"))
    assert page.css_first("#combat-a5") is None  # no target declared yet
    g.a.send({"type": "shoot", "unit": "a5", "targets": ["b3"]})
    page = state(g.a.client.get(f"/matches/{g.match_id}"))
    assert page.css_first("#combat-a5") is not None
    picks = _ranged(g, "a5", seat="A")
    first = roll(g.a, "a5", "b3", picks)
    assert first.status_code == 200, first.text
    again = roll(g.a, "a5", "b3", picks)
    assert again.status_code == 409, again.text
    problem = again.json()
    assert again.headers["content-type"].startswith("application/problem+json")
    assert problem["refusal"] == "already_attacked"
    by_hand = g.a.send(
        {"type": "resolve_attack", "attacker": "a5", "target": "b3", "damage": [1]}, status=409
    )
    assert by_hand["refusal"] == "already_attacked"
    # after a reload, and for htmx, the form is gone
    for headers in ({}, HX):
        page = state(g.a.client.get(f"/matches/{g.match_id}", headers=headers))
        assert page.css_first("#combat-a5") is None
    # the web combat form refuses it too (a stale page posted again)
    r = g.a.client.post(
        f"/matches/{g.match_id}/combat",
        data={
            "csrf_token": g.a.client.csrf,  # type: ignore[attr-defined]
            "version": str(g.a.get()["version"]),
            "attacker": "a5",
            "target": "b3",
            "weapon": f"{picks[0]['unit']}|{picks[0]['weapon']}",
            f"models|{picks[0]['unit']}|{picks[0]['weapon']}": str(picks[0]["models"]),
            "do": "roll",
        },
        headers=HX,
    )
    assert r.status_code == 200
    assert "already attacked" in state(r).text()


def test_an_attached_unit_is_one_form_one_target_and_one_name_in_the_log(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = game(browser, armies, db)
    g.a.send({"type": "shoot", "unit": "a1", "targets": ["b2"]})
    page = state(g.a.client.get(f"/matches/{g.match_id}"))
    forms = page.css("section.combat")
    assert [f.attributes["id"] for f in forms] == ["combat-a2"]  # not the Captain again
    assert "Captain" in forms[0].css_first("h2").text()
    options = [o.attributes["value"] for o in forms[0].css("select[name=target] option")]
    assert options == ["b2"]  # the Boyz and their Warboss: one entry
    assert "Warboss" in forms[0].css_first("select[name=target] option").text()
    g.a.send({"type": "resolve_attack", "attacker": "a1", "target": "b1", "damage": [1]})
    entry = g.a.client.get(f"{g.a.base}/log").json()["entries"][-1]["event"]
    assert (entry["attacker"], entry["target"]) == ("a2", "b2")
    page = state(g.a.client.get(f"/matches/{g.match_id}"))
    assert page.css("section.combat") == []
    line = page.css_first("#timeline li").text()
    assert "Intercessor Squad + Captain" in line
    assert "Warboss" in line


def test_undo_of_a_roll_needs_the_opponent_and_never_rerolls(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = game(browser, armies, db)
    g.a.send({"type": "shoot", "unit": "a5", "targets": ["b3", "b4"]})
    picks = _ranged(g, "a5", seat="A")
    first = roll(g.a, "a5", "b3", picks)
    assert first.status_code == 200, first.text
    rolled = first.json()
    batch = rolled["events"][0]["batch"]
    dice = [d["value"] for d in rolled["resolution"]["dice"]]
    assert rolled["view"]["undo_needs_approval"] is True
    # Alice asks; nothing is undone yet, and she cannot answer herself
    asked = g.a.send({"type": "undo"})
    assert asked["view"]["undo_request"] == {"batch": batch, "by": "A"}
    assert asked["view"]["can_undo"] is False
    g.a.send({"type": "approve_undo", "batch": batch}, status=403)
    # Bob sees the request on his page, with both answers naming the version he saw
    page = state(g.b.client.get(f"/matches/{g.match_id}"))
    assert page.css_first("#undo-request") is not None
    approve = form_of(page, "#undo-request form:has(#approve-undo-button)")
    assert approve["version"] == str(g.b.get()["version"])
    # an answer naming an older version is refused
    stale = g.b.send({"type": "approve_undo", "batch": batch}, version=batch, status=409)
    assert stale["refusal"] == "stale_version"
    r = g.b.client.post(f"/matches/{g.match_id}/act", data=approve, headers=HX)
    assert r.status_code == 200
    view = g.a.view()
    assert view["undo_request"] is None
    assert "b3" not in next(u for u in view["units"] if u["id"] == "a5")["attacked"]
    # sent again with the weapons in another order, a situation flag and the other target:
    # the same dice
    again = roll(g.a, "a5", "b4", picks[::-1], situation={"half_range": False})
    assert again.status_code == 200, again.text
    assert [d["value"] for d in again.json()["resolution"]["dice"]][: len(dice)] == dice[
        : len(again.json()["resolution"]["dice"])
    ]
    assert again.json()["resolution"]["seed"] == rolled["resolution"]["seed"]
    # both players' logs keep the undone dice; the timeline shows it undone
    for p in (g.a, g.b):
        entries = p.client.get(f"{p.base}/log").json()["entries"]
        undone = next(e for e in entries if e["batch"] == batch)
        assert [d["value"] for d in undone["event"]["dice"]] == dice
        kinds = [e["event"]["type"] for e in entries]
        assert "undo_requested" in kinds
        assert "undone" in kinds
    page = state(g.b.client.get(f"/matches/{g.match_id}"))
    assert page.css_first(f"#entry-{batch}.undone-entry") is not None


def test_a_refused_undo_leaves_the_roll_standing(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = game(browser, armies, db)
    g.a.send({"type": "shoot", "unit": "a5", "targets": ["b3"]})
    first = roll(g.a, "a5", "b3", _ranged(g, "a5", seat="A")).json()
    batch = first["events"][0]["batch"]
    g.a.send({"type": "undo"})
    refused = g.b.send({"type": "refuse_undo", "batch": batch})
    assert refused["view"]["undo_request"] is None
    assert "b3" in next(u for u in refused["view"]["units"] if u["id"] == "a5")["attacked"]
    nothing = g.b.send({"type": "approve_undo", "batch": batch}, status=409)
    assert nothing["refusal"] == "no_undo_request"
    # an action without dice is still undone at once
    g.a.send({"type": "report_engagement", "unit": "a5", "engaged_with": []})
    assert g.a.send({"type": "undo"})["view"]["undo_request"] is None
