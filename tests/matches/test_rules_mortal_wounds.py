"""Issue 12 through the match API: Feel No Pain against the mortal wounds the match resolves
itself [L1857-1869], and Deadly Demise [L1876-1893]."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit
from tests.matches.conftest import FakeArmies, Game, Player, setup_battle, start_match
from tests.matches.test_web import state


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


def game(
    browser: Callable[[str], TestClient],
    armies: FakeArmies,
    db: Session,
    formations: dict[str, dict[str, Any]] | None = None,
) -> Game:
    alice, bob, match_id = start_match(browser, armies, marines(), orks())
    g = Game(Player(alice, match_id, "A", db), Player(bob, match_id, "B", db), match_id)
    setup_battle(g, formations)
    return g


def models_alive(p: Player, unit: str) -> int:
    u = next(u for u in p.view()["units"] if u["id"] == unit)
    return sum(1 for w in u["wounds"] if w > 0)


def wounds(p: Player, unit: str) -> int:
    return int(sum(next(u for u in p.view()["units"] if u["id"] == unit)["wounds"]))


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


def test_a_rhino_s_deadly_demise_through_the_api(
    browser: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """Issue 12: no roll when a Deadly Demise unit is destroyed, and no way to put its mortal
    wounds on the units within 6". The Rhino's datasheet says Deadly Demise D3: destroyed, it
    rolls a 6 before the Intercessors inside disembark; Alice names the Beast Snagga Boyz
    (Feel No Pain 6+) and her Captain."""
    g = game(browser, armies, db, {"A": {"embarked": [["a1", "a2"]]}})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})  # B's turn
    g.b.send({"type": "end_phase"})
    g.b.send({"type": "end_phase"})  # B's Shooting phase
    g.b.send({"type": "shoot", "unit": "b3", "targets": ["a2"]})
    g.b.send(
        {"type": "resolve_attack", "attacker": "b3", "target": "a2", "mortal_wounds": 10},
        dice=[6],
    )
    view = g.a.view()
    assert view["pending"]["deadly_demise"] == ["a2"]
    r = g.b.send({"type": "shoot", "unit": "b2", "targets": ["a3"]}, status=409)
    assert r["refusal"] == "deadly_demise_pending"
    r = g.a.send({"type": "disembark_destroyed_transport", "unit": "a1"}, status=409)
    assert r["refusal"] == "deadly_demise_pending"
    offered = [a for a in g.a.actions() if a["command"]["type"] == "deadly_demise"]
    assert offered, g.a.actions()
    captain = wounds(g.a, "a3")
    r = g.a.send({"type": "deadly_demise", "unit": "a2", "units": ["a1"]}, status=409)
    assert r["refusal"] == "bad_target"  # embarked in it: not affected
    g.a.send({"type": "deadly_demise", "unit": "a2", "units": ["b2", "a3"]}, dice=[3, 6, 6, 1, 1])
    assert models_alive(g.a, "b2") == 9  # 3 mortal wounds, two ignored on a 6
    assert wounds(g.a, "a3") == captain - 1  # D3 = 1 on the Captain (friendly fire)
    assert g.a.view()["pending"]["deadly_demise"] == []
    page = state(g.a.client.get(f"/matches/{g.match_id}"))
    lines = [li.text(strip=True) for li in page.css("#timeline li")]
    assert any("Deadly Demise of Rhino: 6." in t and "1 six: mortal wounds" in t for t in lines)
    assert any("Rhino explodes:" in t and 'Captain within 6"' in t for t in lines), lines
    assert any("suffers 3 mortal wounds. Feel No Pain: 6 6 1." in t for t in lines), lines
    g.a.send({"type": "disembark_destroyed_transport", "unit": "a1"}, dice=[6] * 5)
    g.b.send({"type": "shoot", "unit": "b2", "targets": ["a3"]})
