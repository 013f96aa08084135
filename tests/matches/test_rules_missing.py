"""Issue 12 item 7, the rules the tracker lacked, through the match API: Stealth and Heavy
filled in from the unit and the state, Aircraft in the Fight phase, Lone Operative, Firing Deck,
Plunging Fire, Fire Overwatch prompts, the end-of-turn coherency prompt."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.matches.conftest import Game, Player, setup_battle


def preview(p: Player, attacker: str, target: str, picks: list[tuple[str, int]]) -> Any:
    r = p.client.post(
        f"{p.base}/combat/preview",
        json={
            "attacker": attacker,
            "target": target,
            "weapons": [{"unit": attacker, "weapon": w, "models": n} for w, n in picks],
        },
    )
    assert r.status_code == 200, r.text
    return r.json()["request"]["situation"]


def test_stealth_is_filled_in_from_the_target(new_game: Callable[..., Game]) -> None:
    """[L1594-1596]: every model of the Kommandos has Stealth: -1 to hit their ranged
    attackers, without the player ticking it; the Boyz have none."""
    g = new_game()
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})  # A's Shooting phase
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b3", "b2"]})
    assert preview(g.a, "a2", "b3", [("Bolt Rifle", 5)]).get("stealth") is True
    assert "stealth" not in preview(g.a, "a2", "b2", [("Bolt Rifle", 5)])


def test_heavy_for_a_unit_that_did_not_move(new_game: Callable[..., Game]) -> None:
    """[L2227-2233], [L948-950]: a unit that did not move at all in its Movement phase
    Remained Stationary (Heavy +1), without an explicit "Remain Stationary"; one that moved
    did not."""
    g = new_game()
    setup_battle(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "move", "unit": "a7", "mode": "normal"})
    g.a.send({"type": "end_phase"})  # A's Shooting phase
    g.a.send({"type": "shoot", "unit": "a2", "targets": ["b2"]})
    g.a.send({"type": "shoot", "unit": "a7", "targets": ["b2"]})
    assert preview(g.a, "a2", "b2", [("Bolt Rifle", 5)]).get("remained_stationary") is True
    assert "remained_stationary" not in preview(g.a, "a7", "b2", [("Boltgun", 9)])
