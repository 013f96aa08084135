"""Issue 12 through the match API: Feel No Pain against the mortal wounds the match resolves
itself [L1857-1869], and Deadly Demise [L1876-1893]."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
from tests.matches.conftest import FakeArmies, Game, Player, setup_battle
from tests.matches.test_web import html


def marines() -> Roster:
    return Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Intercessor Squad", 5),
            RosterUnit("Rhino"),
            RosterUnit("Captain", warlord=True),
        ),
        name="Strike group",
    )


def orks() -> Roster:
    return Roster(
        "Orks",
        "War Horde",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Warboss", warlord=True),
            RosterUnit("Beast Snagga Boyz", 10),
            RosterUnit("Boyz", 10),
        ),
        name="Waaagh",
    )


def game(browser: Callable[[str], TestClient], armies: FakeArmies, db: Session) -> Game:
    alice, bob = browser("Alice"), browser("Bob")
    r = alice.post(
        "/matches",
        data={
            "army_id": armies.ready(alice, marines()),
            "battle_size": "strike_force",
            "mission": "only-war",
            "opponent": "user",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    code = html(alice.get(f"/matches/{match_id}")).css_first("#invite-code").text()
    r = bob.post(
        "/matches/join",
        data={"code": code, "army_id": armies.ready(bob, orks())},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    g = Game(Player(alice, match_id, "A", db), Player(bob, match_id, "B", db), match_id)
    setup_battle(g)
    return g


def models_alive(p: Player, unit: str) -> int:
    u = next(u for u in p.view()["units"] if u["id"] == unit)
    return sum(1 for w in u["wounds"] if w > 0)


def test_beast_snagga_boyz_roll_feel_no_pain_against_a_grenade(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """Issue 12: Feel No Pain was never rolled for the mortal wounds the tracker resolves
    itself. The Beast Snagga Boyz' datasheet gives them Feel No Pain 6+: three mortal wounds
    from a Grenade, two of them ignored on a 6."""
    g = game(browser, armies, db)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send(
        {"type": "use_stratagem", "stratagem": "grenade", "unit": "a1", "enemy": "b2"},
        dice=[4, 4, 4, 1, 1, 1, 6, 2, 6],
    )
    assert models_alive(g.a, "b2") == 9
    r = g.a.client.get(f"{g.a.base}/log")
    assert r.status_code == 200, r.text
    assert "feel no pain 6+" in r.text.lower()
