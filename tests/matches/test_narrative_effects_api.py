"""Buildings' attacks rolled by the match, through the JSON API (ruling 91): no dice given,
the server rolls them from the command's seed and keeps every die in the log; the same
command after an undo draws the same dice."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, finish_turn
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
