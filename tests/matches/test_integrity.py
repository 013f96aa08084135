"""Integrity over HTTP: a unit shoots or fights once per phase, each weapon once (the API
refuses a weapon used again, the page offers only the weapons left, after a reload too), an
Attached unit is one unit on the page and in the log, and undo never re-rolls (the opponent
approves an undo of dice; sent again, the same roll draws the same dice)."""

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


def combat_section(p: Player, uid: str) -> Any:
    return state(p.client.get(f"/matches/{p.match_id}")).css_first(f"#combat-{uid}")


def offered(section: Any) -> list[str]:
    return [i.attributes["value"].split("|", 1)[1] for i in section.css("input[name=weapon]")]


def test_a_unit_splits_its_fire_but_each_weapon_fires_once(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """Issue 12: the same weapons were accepted again at another target. A unit shoots once
    per phase and each weapon once [L1401-1444]: it may split its weapons between targets."""
    g = game(browser, armies, db)
    assert combat_section(g.a, "a5") is None  # no target declared yet
    g.a.send({"type": "shoot", "unit": "a5", "targets": ["b3", "b4"]})
    pistol, plasma = _ranged(g, "a5", seat="A")
    assert (pistol["weapon"], plasma["weapon"]) == ("Bolt pistol", "Plasma Incinerator - Standard")
    first = roll(g.a, "a5", "b3", [plasma])
    assert first.status_code == 200, first.text
    event = first.json()["events"][0]["event"]
    assert event["weapons"] == [
        {
            "unit": "a5",
            "weapon": "Plasma Incinerator",
            "models": 5,
            "profile": "Plasma Incinerator - Standard",
        }
    ]
    # the same weapon again, at the other target or the same one, or its other profile: 409
    supercharge = {**plasma, "weapon": "Plasma Incinerator - Supercharge"}
    for target, pick in (("b4", plasma), ("b3", plasma), ("b4", supercharge)):
        again = roll(g.a, "a5", target, [pick])
        assert again.status_code == 409, again.text
        assert again.headers["content-type"].startswith("application/problem+json")
        problem = again.json()
        assert problem["refusal"] == "weapon_already_used"
        assert "Plasma Incinerator" in problem["detail"]
        assert "once per phase" in problem["detail"]
    odds = g.a.client.post(
        f"{g.a.base}/combat/preview", json={"attacker": "a5", "target": "b4", "weapons": [plasma]}
    )
    assert odds.status_code == 409
    by_hand = g.a.send(
        {
            "type": "resolve_attack",
            "attacker": "a5",
            "target": "b4",
            "damage": [1],
            "weapons": [{"unit": "a5", "weapon": "Plasma Incinerator", "models": 1}],
        },
        status=409,
    )
    assert by_hand["refusal"] == "weapon_already_used"
    # an attack naming no weapon would be the whole unit's: not after another one
    whole = g.a.send(
        {"type": "resolve_attack", "attacker": "a5", "target": "b4", "damage": [1]}, status=409
    )
    assert whole["refusal"] == "already_attacked"
    # every model fired its plasma: a model shoots either its Pistols or its other ranged
    # weapons [L2073-2081], and the plasma pistol is an option the list does not give (issue
    # 12), so nothing is left and the form is gone, after a reload too
    second = roll(g.a, "a5", "b4", [pistol])
    assert second.status_code == 422, second.text
    assert "either its Pistols" in second.json()["detail"]
    option = roll(
        g.a, "a5", "b4", [{"unit": "a5", "weapon": "Plasma pistol - standard", "models": 1}]
    )
    assert option.status_code == 422, option.text
    for headers in ({}, HX):
        page = state(g.a.client.get(f"/matches/{g.match_id}", headers=headers))
        assert page.css_first("#combat-a5") is None
    # the web combat form refuses a used weapon too (a stale page posted again)
    r = g.a.client.post(
        f"/matches/{g.match_id}/combat",
        data={
            "csrf_token": g.a.client.csrf,  # type: ignore[attr-defined]
            "version": str(g.a.get()["version"]),
            "attacker": "a5",
            "target": "b3",
            "weapon": f"a5|{plasma['weapon']}",
            f"models|a5|{plasma['weapon']}": "5",
            "do": "roll",
        },
        headers=HX,
    )
    assert r.status_code == 200
    assert "already attacked with Plasma Incinerator" in state(r).text()


def test_a_unit_fights_once_each_melee_weapon_once(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """[L2593-2603], [L2697-2770]: the Hellblasters charge two units, fight once and split
    their close combat weapons between them; the same weapons a second time are refused."""
    g = game(browser, armies, db)
    g.a.send({"type": "end_phase"})  # no shooting
    g.a.send({"type": "declare_charge", "unit": "a5", "targets": ["b3", "b4"]}, dice=[6, 6])
    g.a.send({"type": "complete_charge", "unit": "a5", "success": True})
    g.a.send({"type": "end_phase"})
    assert g.a.view()["phase"] == "fight"
    g.a.send({"type": "fight", "unit": "a5", "targets": ["b3", "b4"]})
    ccw = {"unit": "a5", "weapon": "Close combat weapon", "models": 3}
    section = combat_section(g.a, "a5")
    assert offered(section) == ["Close combat weapon"]
    assert roll(g.a, "a5", "b3", [ccw]).status_code == 200
    assert roll(g.a, "a5", "b4", [{**ccw, "models": 2}]).status_code == 200
    refused = roll(g.a, "a5", "b4", [{**ccw, "models": 1}])
    assert refused.status_code == 409, refused.text
    assert refused.json()["refusal"] == "weapon_already_used"
    assert combat_section(g.a, "a5") is None
    g.a.send({"type": "consolidate", "unit": "a5"})
    again = roll(g.a, "a5", "b4", [{**ccw, "models": 1}])
    assert again.status_code == 409
    assert again.json()["refusal"] in ("not_fighting", "weapon_already_used")


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
    picks = _ranged(g, "a5", seat="A")[1:]  # the plasma: Pistols or the other weapons
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
    a5 = next(u for u in view["units"] if u["id"] == "a5")
    assert "b3" not in a5["attacked"]
    assert a5["weapons_used"] == []  # the undo gave the weapons back
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
    first = roll(g.a, "a5", "b3", _ranged(g, "a5", seat="A")[1:]).json()
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
