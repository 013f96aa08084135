"""Issue 12, weapons as the rules allow them, through the match API: the weapons a unit's list
gives it (how many models carry each), Pistols or the other ranged weapons, Assault after an
Advance, Pistols only within Engagement Range, no Blast at a unit engaged with your army."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
from tests.matches.conftest import FakeArmies, Game, Player, orks, setup_battle, start_match


def marines() -> Roster:
    return Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Intercessor Squad", 5, {"Intercessor w/ Grenade Launcher": 1}),
            RosterUnit("Tactical Squad", 10),
            RosterUnit("Captain", warlord=True),
        ),
        name="Strike group",
    )


def game(browser: Callable[[str], TestClient], armies: FakeArmies, db: Session) -> Game:
    alice, bob, match_id = start_match(browser, armies, marines(), orks())
    g = Game(Player(alice, match_id, "A", db), Player(bob, match_id, "B", db), match_id)
    setup_battle(g, {"B": {"attachments": [["b1", "b2"]]}})
    return g


def preview(p: Player, attacker: str, target: str, picks: list[tuple[str, int]]) -> Any:
    return p.client.post(
        f"{p.base}/combat/preview",
        json={
            "attacker": attacker,
            "target": target,
            "weapons": [{"unit": attacker, "weapon": w, "models": n} for w, n in picks],
        },
    )


def refused(r: Any, words: str) -> None:
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    assert words in r.json()["detail"], r.json()["detail"]


def test_the_list_says_how_many_models_carry_each_weapon_and_pistols_or_the_rest(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """Issue 12: every option of the datasheet was offered to the whole unit. The Intercessors
    took one grenade launcher: one model carries it, nobody carries a Hand flamer; a model
    shoots either its Pistols or its other ranged weapons [L2073-2081]."""
    g = game(browser, armies, db)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "shoot", "unit": "a1", "targets": ["b4"]})
    refused(preview(g.a, "a1", "b4", [("Hand flamer", 1)]), "no model of the unit carries it")
    refused(
        preview(g.a, "a1", "b4", [("Astartes grenade launcher - krak", 2)]),
        "the models that carry it",
    )
    ok = preview(g.a, "a1", "b4", [("Astartes grenade launcher - krak", 1), ("Bolt Rifle", 5)])
    assert ok.status_code == 200, ok.text
    # four models fire their Bolt Rifles, one its Bolt pistol: five models, fine
    assert preview(g.a, "a1", "b4", [("Bolt Rifle", 4), ("Bolt pistol", 1)]).status_code == 200
    refused(preview(g.a, "a1", "b4", [("Bolt Rifle", 5), ("Bolt pistol", 1)]), "either its Pistols")
    refused(preview(g.a, "a1", "b4", [("Close combat weapon", 1)]), "melee weapon")


def test_after_an_advance_only_assault_weapons(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """[L2009-2016]: a unit that Advanced shoots only its Assault weapons."""
    g = game(browser, armies, db)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "move", "unit": "a1", "mode": "advance"}, dice=[3])
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "shoot", "unit": "a1", "targets": ["b4"], "assault_only": True})
    refused(preview(g.a, "a1", "b4", [("Bolt pistol", 5)]), "not an Assault weapon")
    assert preview(g.a, "a1", "b4", [("Bolt Rifle", 5)]).status_code == 200  # Assault


def test_within_engagement_range_pistols_only_and_no_blast_at_a_unit_engaged_with_your_army(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """[L2060-2072], [L2187-2190]: the Tactical Squad, engaged with the Nobz, shoots its Pistols
    at them and nothing else; the Intercessors' frag grenades (Blast) may not target them."""
    g = game(browser, armies, db)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "report_engagement", "unit": "a2", "engaged_with": ["b4", "b5"]})
    # one of the units it is engaged with, not two, not another
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b4", "b5"]}, status=409)
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b3"]}, status=409)
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b4"]})
    refused(preview(g.a, "a2", "b4", [("Boltgun", 9)]), "not a Pistol")
    assert preview(g.a, "a2", "b4", [("Bolt pistol", 9)]).status_code == 200
    # the Battlewagon, a VEHICLE engaged with the Tactical Squad, may be shot at -1 to hit,
    # but never with Blast
    g.a.send({"type": "shoot", "unit": "a1", "targets": ["b5"]})
    refused(preview(g.a, "a1", "b5", [("Astartes grenade launcher - frag", 1)]), "Blast")
    ok = preview(g.a, "a1", "b5", [("Astartes grenade launcher - krak", 1)])
    assert ok.status_code == 200, ok.text
    assert ok.json()["request"]["situation"]["big_guns_never_tire"] is True


def test_pistols_shoot_one_unit_the_shooter_is_engaged_with_through_the_api(
    new_game: Callable[..., Game],
) -> None:
    """Issue 12 item 3 [L2060-2072], [L1535-1544]: a unit engaged with Boyz shot a Battlewagon
    engaged only with another friendly unit, and targeted two engaged units at once."""
    g = new_game()
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})  # A's Shooting phase
    g.a.send({"type": "report_engagement", "unit": "a7", "engaged_with": ["b2", "b4"]})
    g.a.send({"type": "report_engagement", "unit": "a2", "engaged_with": ["b5"]})
    # the Battlewagon is engaged with the Intercessors, not with the Tactical Squad
    r = g.a.send({"type": "shoot", "unit": "a7", "targets": ["b5"]}, status=409)
    assert r["refusal"] == "bad_target", r
    # engaged with the Boyz and the Nobz: its Pistols pick one of them, not both
    r = g.a.send({"type": "shoot", "unit": "a7", "targets": ["b2", "b4"]}, status=409)
    assert r["refusal"] == "bad_target", r
    assert "not several" in r["detail"]
    g.a.send({"type": "shoot", "unit": "a7", "targets": ["b4"]})
    shooter = next(u for u in g.a.view()["units"] if u["id"] == "a7")
    assert shooter["targets"] == ["b4"]
