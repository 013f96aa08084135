"""Issue 16's proof through the HTTP API: the sample scenario (a copy of the sample content
set, its time limit set to 2 turns) played to its victory check with dice given by hand,
command by command, as ``tests/engine/black_reach/battle/test_playthrough.py`` plays it on
the engine: every command posted to ``/commands`` with its ``expected_version``, the key
numbers read back from the JSON events (checked by hand there), the battle ended on the turn
limit, both players confirming, the match confirmed. After every response, its text and
everything the other seat can fetch are scanned for the nonces of the tokens a seat has
placed face down and not yet played; at the end the export replays to an equal battle.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.engine.black_reach.battle import BlackReachBattle
from tests.matches.test_black_reach_content import (  # noqa: F401  (autouse fixture)
    create,
    join,
    missions,
    my_set,
    with_router,
)
from tests.matches.test_black_reach_match import deploy, everything, live
from tests.matches.test_pen_match import MATCHES, PenGame, Seat

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
LIBRARIAN = "ultramarines:tiles[1]/0:sample-um-librarian"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
BUGGY = "orks:tiles[0].slots[1]/0:sample-ork-buggy"
WEIRDBOY = "orks:tiles[1]/0:sample-ork-weirdboy"

SIDES = {"A": "ultramarines", "B": "orks"}


def path(*squares: tuple[int, int]) -> list[dict[str, int]]:
    return [{"x": x, "y": y} for x, y in squares]


def values(event: dict[str, Any]) -> list[int]:
    return [d["value"] for d in event["roll"]["dice"]]


def orders(*units: str) -> dict[str, Any]:
    return {
        "type": "place_orders",
        "orders": [{"unit": u, "number": n} for n, u in enumerate(units, 1)],
    }


class ApiTable:
    """The two seats of a match; every command posted through the API, then the secrecy
    scan: no seat sees the nonce of a token the other seat placed and has not played."""

    def __init__(self, g: PenGame, outsider: TestClient) -> None:
        self.g = g
        self.outsider = Seat(outsider, g.a.base)  # a signed-in user who holds no seat
        self.seats = {"A": g.a, "B": g.b}
        self.scans = 0

    def __call__(
        self, seat: str, command: dict[str, Any], dice: list[int] | None = None
    ) -> list[dict[str, Any]]:
        p = self.seats[seat]
        body = p.send(command, dice=dice)  # expected_version: the version just read
        self.scan(seat, json.dumps(body))
        return [e["event"] for e in body["events"]]

    def refused(
        self, seat: str, command: dict[str, Any], dice: list[int] | None = None
    ) -> dict[str, Any]:
        p = self.seats[seat]
        before = p.get()["version"]
        body = p.send(command, dice=dice, status=409)
        self.scan(seat, json.dumps(body))
        assert p.get()["version"] == before  # a refusal changes nothing
        return body

    def hidden(self) -> dict[str, list[str]]:
        """The nonces of the face-down tokens not yet played, by the seat that owns them."""
        state = live(self.g.match_id).state
        if state.turn is None:
            return {}
        return {
            seat: [
                o.nonce
                for o in state.secret.get(side, {}).values()
                if o.unit not in state.turn.revealed[side]
            ]
            for seat, side in SIDES.items()
        }

    def scan(self, sender: str, response: str) -> None:
        for owner, nonces in self.hidden().items():
            other = "B" if owner == "A" else "A"
            seen = everything(self.seats[other])
            units = {u["id"]: u for u in self.seats[other].view()["units"]}
            state = live(self.g.match_id).state
            # the owner's log holds its nonces: the scan looks for strings that exist
            own = everything(self.seats[owner])
            stranger = everything(self.outsider)
            for nonce in nonces:
                assert nonce in own
                assert nonce not in stranger
                assert nonce not in seen, (other, nonce)
                if sender != owner:
                    assert nonce not in response, (sender, nonce)
                self.scans += 1
            for o in state.secret.get(SIDES[owner], {}).values():
                if state.turn is not None and o.unit not in state.turn.revealed[SIDES[owner]]:
                    assert units[o.unit]["token"] is None
                    assert units[o.unit]["face_down_token"] is True

    def unit(self, seat: str, uid: str) -> dict[str, Any]:
        return next(u for u in self.seats[seat].view()["units"] if u["id"] == uid)

    def actions(self, seat: str) -> list[dict[str, Any]]:
        p = self.seats[seat]
        r = p.client.get(f"{p.base}/actions")
        assert r.status_code == 200, r.text
        self.scan(seat, r.text)
        return list(r.json()["actions"])


def two_turn_game(user_client: Callable[[str], TestClient]) -> PenGame:
    alice, bob = user_client("Alice"), user_client("Bob")
    my_set(alice, turns=2, name="Two turns")
    created = create(alice, missions(alice)[0]["id"])
    joined = join(bob, created)
    assert joined["view"]["scenario"]["turns"] == 2
    base = f"{MATCHES}/{created['id']}"
    g = PenGame(Seat(alice, base), Seat(bob, base), created["id"])
    deploy(g)
    return g


def play_turn_one(t: ApiTable) -> None:
    view = t.g.a.view()
    assert view["turn"]["pools"] == {"orks": 4, "ultramarines": 3}
    assert view["turn"]["initiative"] == "orks"
    t("B", orders(BOYZ1, BOYZ2, NOB, SHOOTAS))
    assert t.unit("A", BOYZ1)["face_down_token"] is True
    assert t.unit("A", BOYZ1)["token"] is None
    assert t.unit("B", BOYZ1)["token"] == {"kind": "numbered", "number": 1}
    t("A", orders(BOLTER, TACTICAL, SERGEANT))
    assert t.g.a.view()["turn"]["phase"] == "activation"
    assert t.g.a.view()["turn"]["due"] == {"side": "orks", "number": 1}

    too_far = {"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6), (4, 5))}
    refusal = t.refused("B", too_far)
    assert refusal["refusal"] == "illegal_move"
    assert "the path costs 5, the unit may move 4" in json.dumps(refusal)
    assert t.refused("A", {"type": "hold", "unit": BOLTER})["refusal"] == "not_your_turn"
    assert t.refused("B", {"type": "hold", "unit": BOYZ2})["refusal"] == "not_due"
    events = t("B", {"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))})
    assert [e["type"] for e in events] == ["order_revealed", "unit_moved"]
    assert events[0]["token"]["number"] == 1
    assert (t.unit("A", BOYZ1)["at"]["x"], t.unit("A", BOYZ1)["at"]["y"]) == (4, 6)

    # A1: die 4 + CV 3 - 2 (ruin, low wall) = 5 >= DV 4: a step, the Boyz flip
    offered = {
        (a["command"]["target"], a["command"]["suppression"]): a["odds"]
        for a in t.actions("A")
        if a["command"]["type"] == "shoot" and a["command"]["unit"] == BOLTER
    }
    assert offered[BOYZ1, False] == {"miss": "1/3", "step": "2/3", "coup_double": "0"}
    assert offered[BOYZ1, True] == {
        "suppressed_0": "0",
        "suppressed_1": "1/2",
        "suppressed_2": "1/2",
    }
    assert (BUGGY, False) not in offered
    events = t("A", {"type": "shoot", "unit": BOLTER, "target": BOYZ1}, dice=[4])
    shot = events[1]
    assert shot["type"] == "unit_shot"
    assert (shot["cv"], shot["modified_cv"], shot["penalties"], shot["dv"]) == (3, 3, 2, 4)
    assert (shot["final"], shot["outcome"], shot["sight"]) == (5, "step", "reduced")
    assert values(shot) == [4]
    assert shot["roll"]["seed"] is None
    assert events[2]["type"] == "steps_taken"
    assert events[2]["flipped"]

    t("B", {"type": "move", "unit": BOYZ2, "path": path((5, 9), (6, 8), (6, 7), (5, 6))})
    # A2: die 6 + 2 - 2 = 6 >= 4: the reduced Boyz are destroyed
    events = t("A", {"type": "shoot", "unit": TACTICAL, "target": BOYZ1}, dice=[6])
    assert (events[1]["final"], events[1]["outcome"]) == (6, "step")
    assert events[2]["destroyed"]
    assert not live(t.g.match_id).state.units[BOYZ1].alive
    assert not live(t.g.match_id).state.groups["orks:tiles[0]"].broken

    t("B", {"type": "move", "unit": NOB, "path": path((3, 9), (3, 8), (3, 7))})
    t("A", {"type": "move", "unit": SERGEANT, "path": path((1, 2), (2, 3), (3, 4))})
    refusal = t.refused("B", {"type": "shoot", "unit": SHOOTAS, "target": SERGEANT}, dice=[6])
    assert refusal["refusal"] == "no_line_of_sight"
    events = t("B", {"type": "hold", "unit": SHOOTAS})
    assert [e["type"] for e in events] == ["order_revealed", "activation_ended"]

    # Reserve: the Orks first
    offered_b = [(a["command"]["type"], a["command"].get("unit")) for a in t.actions("B")]
    assert offered_b == [("reserve_move", BUGGY), ("reserve_move", WEIRDBOY), ("end_reserve", None)]
    assert t.refused("A", {"type": "end_reserve"})["refusal"] == "not_your_turn"
    had = t.refused("B", {"type": "reserve_move", "unit": NOB, "path": path((3, 6))})
    assert had["refusal"] == "had_order"
    buggy_path = path((6, 10), (5, 9), (4, 8), (4, 7), (4, 6))
    t("B", {"type": "reserve_move", "unit": BUGGY, "path": buggy_path})
    t("B", {"type": "end_reserve"})
    t("A", {"type": "reserve_move", "unit": LIBRARIAN, "path": path((1, 1))})
    events = t("A", {"type": "end_reserve"})
    ended = next(e for e in events if e["type"] == "turn_ended")
    assert ended["vp"] == {"ultramarines": 0, "orks": 2}  # the buggy alone on the relay
    assert ended["initiative"] == "ultramarines"


def play_turn_two(t: ApiTable) -> list[dict[str, Any]]:
    view = t.g.a.view()
    assert (view["turn"]["number"], view["turn"]["initiative"]) == (2, "ultramarines")
    assert view["turn"]["pools"] == {"ultramarines": 3, "orks": 4}
    t("A", orders(SERGEANT, BOLTER, TACTICAL))
    refusal = t.refused("B", {"type": "place_orders", "orders": [{"unit": BOYZ2, "number": 1}]})
    assert refusal["refusal"] == "tokens_left"
    t("B", orders(BOYZ2, NOB, SHOOTAS, BUGGY))

    # A1: the Sergeant assaults: 5 + 2 + 2 = 9 against 4 + 2 + 2 = 8; the Boyz flip, retreat
    assault = {"type": "assault", "unit": SERGEANT, "target": BOYZ2, "path": path((3, 5), (4, 5))}
    events = t("A", assault, dice=[5, 3, 2, 4])
    assert [e["type"] for e in events] == [
        "order_revealed",
        "unit_moved",
        "assault_resolved",
        "steps_taken",
        "square_awaited",
    ]
    first = events[4]["squares"][0]
    assert (first["x"], first["y"]) == (6, 7)
    moved = t("B", {"type": "choose_square", "unit": BOYZ2, "x": 6, "y": 7})
    assert [e["type"] for e in moved] == ["forced_move", "forced_move"]
    fight = events[2]
    assert (fight["attacker_total"], fight["defender_total"], fight["outcome"]) == (
        9,
        8,
        "attacker_wins",
    )
    assert values(fight) == [5, 3, 2, 4]
    assert fight["attacker_dice"] == 2
    assert events[3]["flipped"]
    state = live(t.g.match_id).state
    assert state.units[BOYZ2].placement.anchor == (6, 7)  # type: ignore[union-attr]
    assert state.units[SERGEANT].placement.anchor == (5, 6)  # type: ignore[union-attr]

    # B1: 2 + 1 + 1 = 4 against 3 + 2 + 2 = 7: the Boyz destroyed, the mob broken
    events = t("B", {"type": "assault", "unit": BOYZ2, "target": SERGEANT}, dice=[1, 2, 3, 3])
    assert (events[1]["attacker_total"], events[1]["defender_total"], events[1]["outcome"]) == (
        4,
        7,
        "defender_wins",
    )
    assert events[2]["destroyed"]
    assert live(t.g.match_id).state.groups["orks:tiles[0]"].broken

    # A2: suppression fire, CV 3 doubled: 5 + 6 - 1 = 10 // DV 5 = 2 markers
    fire = {"type": "shoot", "unit": BOLTER, "target": NOB, "suppression": True}
    events = t("A", fire, dice=[5])
    assert (events[1]["modified_cv"], events[1]["penalties"], events[1]["final"]) == (6, 1, 10)
    assert events[1]["outcome"] == "suppressed_2"
    assert (events[2]["type"], events[2]["count"]) == ("suppressed_placed", 2)
    assert live(t.g.match_id).state.units[NOB].suppressed == 2
    refusal = t.refused("B", {"type": "move", "unit": NOB, "path": path((3, 6))})
    assert refusal["refusal"] == "illegal_move"
    assert "may move 0" in json.dumps(refusal)
    t("B", {"type": "hold", "unit": NOB})

    # A3: 6 + 1 - 2 = 5 >= DV 5: the buggy destroyed
    events = t("A", {"type": "shoot", "unit": TACTICAL, "target": BUGGY}, dice=[6])
    assert (events[1]["cv"], events[1]["final"], events[1]["dv"], events[1]["outcome"]) == (
        1,
        5,
        5,
        "step",
    )
    assert events[2]["destroyed"]
    t("B", {"type": "hold", "unit": SHOOTAS})
    gone = t.refused("B", {"type": "move", "unit": BUGGY, "path": path((4, 5))})
    assert gone["refusal"] == "unit_gone"
    events = t("B", {"type": "hold", "unit": BUGGY})
    assert events[-1]["type"] == "activation_ended"

    t("A", {"type": "end_reserve"})
    t("B", {"type": "reserve_move", "unit": WEIRDBOY, "path": path((0, 10))})
    return t("B", {"type": "end_reserve"})


def test_the_sample_scenario_to_its_victory_check_through_the_api(
    user_client: Callable[[str], TestClient],
) -> None:
    g = two_turn_game(user_client)
    t = ApiTable(g, user_client("Carol"))
    assert t.outsider.client.get(g.a.base).status_code == 404  # no spectator's door
    play_turn_one(t)
    events = play_turn_two(t)
    ended = next(e for e in events if e["type"] == "turn_ended")
    assert ended["vp"] == {"ultramarines": 4, "orks": 0}  # the broken mob 3, the buggy tile 1
    assert events[-1]["type"] == "battle_ended"
    assert (events[-1]["winner"], events[-1]["reason"]) == ("ultramarines", "turn_limit")
    assert t.scans > 0  # the secrecy scan did look at face-down tokens

    assert t.refused("A", {"type": "end_reserve"})["refusal"] == "battle_over"
    assert [a["command"] for a in t.actions("A")] == [{"type": "confirm_result"}]
    match = g.a.get()
    assert (match["status"], match["winner"]) == ("ended", "A")
    t("A", {"type": "confirm_result"})
    t("B", {"type": "confirm_result"})
    match = g.b.get()
    assert (match["status"], match["winner"]) == ("confirmed", "A")
    assert live(g.match_id).status().confirmed

    # every roll given by hand: recorded, none checkable against a seed
    audit = g.b.client.get(f"{g.b.base}/audit").json()["rolls"]
    assert len(audit) == 6
    assert all(r["ok"] is None for r in audit)
    # the export (nothing secret left) imports to an equal battle; the log replays
    exported = g.a.client.get(f"{g.a.base}/export")
    assert exported.status_code == 200, exported.text
    data = exported.json()
    assert data["rule_system"] == "black-reach"
    imported = g.a.client.post(f"{MATCHES}/import", json=data)
    assert imported.status_code == 201, imported.text
    assert imported.json()["view"]["units"] == g.a.view()["units"]
    battle = live(g.match_id)
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state
    log = g.a.client.get(f"{g.a.base}/log")
    assert log.status_code == 200, log.text
    assert log.json()["entries"]
