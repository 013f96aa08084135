"""Buildings' attacks rolled by the match, through the JSON API (ruling 91): no dice given,
the server rolls them from the command's seed and keeps every die in the log; the same
command after an undo draws the same dice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, finish_turn, setup_battle
from tests.matches.test_narrative_expansions import blitz_to_bombardment, hide_and_deploy
from tests.matches.test_narrative_match import new_narrative_game, to_phase

LASCANNON = {
    "name": "Lascannon",
    "kind": "ranged",
    "attacks": "2",
    "skill": 3,
    "strength": 12,
    "ap": -3,
    "damage": "D6+1",
    "range": 48,
    "abilities": [],
}


def log_events(g: Game, kind: str) -> list[dict[str, Any]]:
    entries = g.b.client.get(g.b.base + "/log").json()["entries"]
    return [e["event"] for e in entries if e["event"]["type"] == kind]


def building(view: dict[str, Any], bid: str) -> dict[str, Any]:
    return next(b for b in view["narrative"]["expansion"]["buildings"] if b["id"] == bid)


def test_a_fortress_attacked_and_firing_with_the_servers_dice(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(
        user_client, armies, db, "blitz", {"expansion": "stronghold-assault", "starting_cp": 6}
    )
    blitz_to_bombardment(g, a_units=None)
    g.b.send({"type": "place_building", "building": "fortress", "weapon": "heavy-bolter:4"})
    b_count = hide_and_deploy(g, None)
    g.a.send({"type": "bombard"}, dice=[1] * b_count)
    g.a.send({"type": "roll_off"}, dice=[])
    to_phase(g, "A", "shooting")
    attack = {
        "type": "attack_building",
        "unit": "a5",
        "building": "fortress-1",
        "attacks": [{"models": 1, "weapon": LASCANNON}],
    }
    # a building of your own is not a target; a melee weapon waits for the Fight phase
    g.b.send(attack | {"unit": "b2"}, status=409)
    bad = attack | {"attacks": [{"models": 1, "weapon": LASCANNON | {"kind": "melee"}}]}
    g.a.send(bad, status=422)
    assert log_events(g, "expansion_building_attacked") == []
    view = g.a.send(attack)["view"]
    (ev,) = log_events(g, "expansion_building_attacked")
    assert ev["roll"]["seed"] is not None
    assert len(ev["roll"]["dice"]) >= 2  # two hit rolls at least
    assert building(view, "fortress-1")["wounds"] == 30 - ev["wounds"]
    # undone and sent again: the same dice (the seed comes from the match, not a new roll)
    g.a.send({"type": "undo"})
    approve = next(a["command"] for a in g.b.actions() if a["command"]["type"] == "approve_undo")
    g.b.send(approve)
    assert building(g.a.view(), "fortress-1")["wounds"] == 30
    g.a.send(attack)
    again = log_events(g, "expansion_building_attacked")[-1]
    assert again["roll"] == ev["roll"]

    # Bob's turn: the Fortress's four extra heavy bolters at Alice's Intercessors (Sv 3+, T4
    # from the army data), BS 5+
    finish_turn(g)
    to_phase(g, "B", "shooting")

    def wounds(view: dict[str, Any]) -> int:  # the Intercessors and their Captain
        return sum(sum(u["wounds"]) for u in view["units"] if u["id"] in ("a1", "a2"))

    before = wounds(g.a.view())
    shot = {
        "type": "building_shoots",
        "building": "fortress-1",
        "weapon": "heavy-bolter",
        "target": "a2",
        "save": 3,
    }
    g.a.send(shot, status=409)  # not Alice's building
    view = g.b.send(shot)["view"]
    (fired,) = log_events(g, "expansion_building_fired")
    assert fired["roll"]["seed"] is not None
    assert len([d for d in fired["roll"]["dice"] if d["stage"] == "hit"]) == 12  # 4 x Heavy 3
    assert sum(d["damage"] for d in fired["damage"]) == before - wounds(view)
    g.b.send(shot, status=422)  # each weapon fires once a phase


def test_night_fight_grav_wave_and_support_fire_in_only_war(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """The *Grav-wave generator* takes 2 from the charge roll against a unit its controller
    reported by it [L609]; *Support fire* rolls at the end of its controller's Shooting
    phase, 5+: D3 mortal wounds [L615] (ruling 94)."""
    g = new_narrative_game(user_client, armies, db, "only-war", {"combat_zone": "night-fight"})
    setup_battle(g, first="B")
    # B's Command phase: its Boyz by marker 1, its Kommandos by marker 2: identified as a
    # Grav-wave generator (3) and Support fire (6)
    g.b.send({"type": "report_objective", "marker": "1", "units": [{"unit": "b2"}]})
    g.b.send({"type": "report_objective", "marker": "2", "units": [{"unit": "b3"}]})
    view = g.b.send({"type": "end_phase"}, dice=[3, 6])["view"]
    assert view["combat_zone"]["mysterious_objectives"] == {"1": "grav-wave", "2": "support-fire"}
    to_phase(g, "B", "shooting")
    # a marker that is not Support fire, an own unit: refused, nothing rolled
    g.b.send({"type": "support_fire", "targets": {"1": "a3"}}, status=409)
    g.b.send({"type": "support_fire", "targets": {"2": "b1"}}, status=409)
    g.a.send({"type": "support_fire", "targets": {"2": "b1"}}, status=409)  # not A's turn
    before = sum(next(u for u in g.a.view()["units"] if u["id"] == "a4")["wounds"])
    view = g.b.send({"type": "support_fire", "targets": {"2": "a4"}}, dice=[5, 2])["view"]
    assert view["phase"] == "charge"  # at the end of the Shooting phase: it ends
    after = sum(next(u for u in view["units"] if u["id"] == "a4")["wounds"])
    assert before - after == 2
    fired = [e for e in log_events(g, "mortal_wounds_inflicted") if e["source"] == "support_fire"]
    assert [(e["target"], e["mortal_wounds"]) for e in fired] == [("a4", 2)]
    finish_turn(g)
    # A charges the Boyz B reported by the Grav-wave generator: 4 + 4 - 2 = 6
    to_phase(g, "A", "charge")
    g.a.send({"type": "declare_charge", "unit": "a3", "targets": ["b2"]}, dice=[4, 4])
    too_far = g.a.send(
        {"type": "complete_charge", "unit": "a3", "success": True, "needed": 7}, status=409
    )
    assert "was 6" in str(too_far)
    g.a.send({"type": "complete_charge", "unit": "a3", "success": True, "needed": 6})
