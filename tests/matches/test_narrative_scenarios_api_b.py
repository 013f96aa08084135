"""Blitz and Rescue played through the JSON API to their victory evaluation (issue 15).

Two users, their armies (Alice's marines, 725 points, attack Bob's orks, 605), every die given
by hand, from the creation of the match to the scenario's evaluation.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from tests.matches.conftest import FakeArmies, Game, finish_turn, player, step
from tests.matches.test_narrative_match import new_narrative_game, to_phase


def unit(view: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(u for u in view["units"] if u["id"] == uid)


def shoot(g: Game, seat: str, shooter: str, target: str, damage: list[int]) -> dict[str, Any]:
    """``seat``'s ``shooter`` shoots ``target``; the damage of each unsaved attack by hand."""
    p = player(g, seat)
    p.send({"type": "shoot", "unit": shooter, "targets": [target]})
    command = {"type": "resolve_attack", "attacker": shooter, "target": target, "damage": damage}
    view: dict[str, Any] = p.send(command)["view"]
    return view


def log_events(g: Game, kind: str) -> list[dict[str, Any]]:
    entries = g.b.client.get(g.b.base + "/log").json()["entries"]
    return [e["event"] for e in entries if e["event"]["type"] == kind]


def play_to_the_end(g: Game) -> dict[str, Any]:
    """Both sides end their turns to the end of round 5, where the first player (A) rolls a 1
    for the game length: the battle ends and the scenario is evaluated."""
    while (view := g.a.view())["stage"] == "battle":
        last = view["round"] == 5 and view["active"] == "B"
        if last and view["phase"] == "fight" and not view["pending"]["coherency"]:
            g.b.send({"type": "end_phase"}, dice=[1])
            continue
        step(g, view)
    for seat in g.a.view()["pending"]["coherency"]:
        player(g, seat).send({"type": "confirm_coherency", "removals": []})
    view = g.a.view()
    assert view["stage"] == "ended", view["stage"]
    (evaluated,) = log_events(g, "narrative_evaluated")
    return evaluated


# -- Blitz ----------------------------------------------------------------------------------------


def test_blitz_played_through_the_api_to_its_victory_evaluation(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "blitz")
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # 725 v 605 points: A attacks
    assert view["narrative"]["attacker"] == "A"
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})

    # hidden deployment: the Defender buys Decoys (1 CP), then lays eight tokens, two of them
    # decoys; the Attacker sees tokens only
    g.b.send({"type": "use_mission_stratagem", "stratagem": "decoys"})
    secret = {f"t{i}": f"b{i}" for i in range(1, 7)} | {"t7": None, "t8": None}
    g.b.send({"type": "place_tokens", "tokens": secret})
    seen = g.a.view()
    assert [t["token"] for t in seen["narrative"]["tokens"]] == [f"t{i}" for i in range(1, 9)]
    assert all(not t["revealed"] for t in seen["narrative"]["tokens"])
    assert all(unit(seen, f"b{i}")["location"] == "to_deploy" for i in range(1, 7))
    # the Attacker sets up (a6, the empty Rhino, is held back); then every token is revealed
    g.a.send({"type": "deploy_forces", "units": ["a1", "a2", "a3", "a4", "a5", "a7"]})
    view = g.a.view()
    tokens = {t["token"]: t for t in view["narrative"]["tokens"]}
    assert all(t["revealed"] for t in tokens.values())
    assert tokens["t3"]["unit"] == "b3"
    assert tokens["t7"].get("unit") is None  # a decoy, removed
    assert all(unit(view, f"b{i}")["location"] == "battlefield" for i in range(1, 7))

    # the preliminary bombardment: the Kommandos go to ground first; one D6 per Defender unit
    # (b1..b6): the Boyz are hit (6) and take D6 = 3 mortal wounds, the Kommandos are hit (6)
    # and, gone to ground, take D3 = 2
    g.b.send({"type": "go_to_ground", "units": ["b3"]})
    view = g.a.send({"type": "bombard"}, dice=[1, 6, 3, 6, 2, 1, 1, 1])["view"]
    assert unit(view, "b2")["wounds"] == [0, 0, 0, 1, 1, 1, 1, 1, 1, 2]
    assert unit(view, "b3")["wounds"] == [0, 0, 1, 1, 1, 1, 1, 1, 1, 2]
    assert view["narrative"]["grounded"] == ["b3"]
    bombarded = log_events(g, "narrative_bombardment")
    hits = [(e["target"], e["hit"], e["mortal_wounds"]) for e in bombarded]
    assert hits == [
        ("b1", False, 0),
        ("b2", True, 3),
        ("b3", True, 2),
        ("b4", False, 0),
        ("b5", False, 0),
        ("b6", False, 0),
    ]
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # Blitz: the Attacker first
    assert (view["stage"], view["active"], view["round"]) == ("battle", "A", 1)
    finish_turn(g)

    # B's round 1: the Kommandos, gone to ground, do not shoot in their first turn; the Boyz
    # shoot the Scouts down and the Nobz the Hellblasters: two destructions of the Attacker
    to_phase(g, "B", "shooting")
    refused = g.b.send({"type": "shoot", "unit": "b3", "targets": ["a4"]}, status=409)
    assert "went to ground" in json.dumps(refused)
    shoot(g, "B", "b2", "a4", [2] * 5)
    view = shoot(g, "B", "b4", "a5", [2] * 5)
    assert view["narrative"]["destroyed_attacker_units"] == ["a4", "a5"]
    assert view["narrative"]["destructions"] == 2
    finish_turn(g)

    # sustained assault, A's round 2 Movement phase: one D6 per destroyed unit, in order: the
    # Scouts roll 2 (+2, INFANTRY: 4, back), the Hellblasters 1 (+2: 3, stay down)
    to_phase(g, "A", "movement")
    view = g.a.send({"type": "assault_return"}, dice=[2, 1])["view"]
    assert unit(view, "a4")["location"] == "battlefield"
    assert unit(view, "a4")["wounds"] == [2] * 5
    assert view["narrative"]["destroyed_attacker_units"] == ["a5"]
    assert view["narrative"]["returned"] == ["a4"]
    g.a.send({"type": "assault_return"}, dice=[6], status=422)  # once a Movement phase
    finish_turn(g)
    finish_turn(g)
    # round 3: the Hellblasters roll 4 (+2): back too
    to_phase(g, "A", "movement")
    view = g.a.send({"type": "assault_return"}, dice=[4])["view"]
    assert unit(view, "a5")["location"] == "battlefield"
    assert view["narrative"]["destroyed_attacker_units"] == []
    # the Attacker's units in the Defender's lines: a unit named in both scores once, in the
    # Second Line; a Defender unit cannot be named
    g.a.send({"type": "report_zones", "first_line": ["b2"], "second_line": []}, status=422)
    view = g.a.send(
        {"type": "report_zones", "first_line": ["a3", "a7"], "second_line": ["a2", "a7"]}
    )["view"]
    assert (view["narrative"]["first_line"], view["narrative"]["second_line"]) == (
        ["a3"],
        ["a2", "a7"],
    )

    evaluated = play_to_the_end(g)
    # Breakthrough: 2 + 2 (Second Line) + 1 (First Line); Contested Approach: 2 destructions
    assert evaluated["breakdown"] == [
        {"side": "attacker", "item": "second_line", "vp": 2, "detail": "a2"},
        {"side": "attacker", "item": "second_line", "vp": 2, "detail": "a7"},
        {"side": "attacker", "item": "first_line", "vp": 1, "detail": "a3"},
        {"side": "defender", "item": "contested_approach", "vp": 2, "detail": "2 destroyed"},
    ]
    assert evaluated["vp"] == [5, 2]
    assert (evaluated["result"], evaluated["winner"]) == ("major_victory", "A")
    assert g.a.view()["result"]["winner"] == "A"
    assert g.a.checked > 20  # every accepted command replayed from the stored rows


# -- Rescue ---------------------------------------------------------------------------------------


def test_rescue_played_through_the_api_to_its_victory_evaluation(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "rescue")
    g.a.send({"type": "roll_off"}, dice=[])  # 725 v 605 points: A attacks
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    # the sentries: one unit (no Extra Sentries bought); the rest waits in Reserve
    sentries = {
        "type": "deploy_forces",
        "units": ["b2", "b4"],
        "reserves": ["b1", "b3", "b5", "b6"],
    }
    refused = g.b.send(sentries, status=422)
    assert "set up 1 sentry unit(s)" in json.dumps(refused)
    g.b.send({"type": "deploy_forces", "units": ["b2"], "reserves": ["b1", "b3", "b4", "b5", "b6"]})
    # the Attacker sets up what it wishes; a1 and a5 wait in Reserve (a6, the empty Rhino, is
    # held back)
    g.a.send({"type": "deploy_forces", "units": ["a2", "a3", "a4", "a7"], "reserves": ["a1", "a5"]})
    # Night Raid, after both sides deployed (2 of A's 3 CP): the dawn raid in round 1
    assert g.a.view()["narrative"]["dawn_raid_rounds"] == 0
    view = g.a.send({"type": "use_mission_stratagem", "stratagem": "night-raid"})["view"]
    assert (view["narrative"]["dawn_raid_rounds"], view["players"]["A"]["cp"]) == (1, 1)
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # the Attacker first
    assert (view["stage"], view["active"], view["round"]) == ("battle", "A", 1)
    assert view["narrative"]["hiding_places"] == ["1", "2", "3", "4", "5", "6"]
    g.a.send({"type": "report_spy_killed"}, status=422)  # no spy found yet

    # round 1, A's Movement phase: a2 ends a move by hiding place 1: a 5, not there; a place
    # is searched once
    to_phase(g, "A", "movement")
    search = {"type": "search_hiding_place", "unit": "a2", "place": "1"}
    view = g.a.send(search, dice=[5])["view"]
    assert (view["narrative"]["searched"], view["narrative"]["spy_found_at"]) == (["1"], None)
    refused = g.a.send(search | {"unit": "a3"}, dice=[6], status=422)
    assert "no hiding place '1' left to search" in json.dumps(refused)
    view = g.a.send({"type": "reserve_roll", "unit": "a1"}, dice=[])["view"]  # free: no die
    assert unit(view, "a1")["location"] == "battlefield"
    # the Distress Beacon Scan (1 CP) at place 4: a 3, not there; place 4 is searched now
    scan = {"type": "use_mission_stratagem", "stratagem": "beacon-scan", "target": "4"}
    view = g.a.send(scan, dice=[3])["view"]
    assert (view["narrative"]["searched"], view["narrative"]["spy_found_at"]) == (["1", "4"], None)
    assert view["players"]["A"]["cp"] == 1  # 1, +1 in its Command phase, -1
    g.a.send(search | {"place": "4"}, dice=[6], status=422)
    assert view["narrative"]["alarm"]["state"] == "calm"
    # Night Raid's dawn raid: -1 to hit in the Shooting phase of round 1 (A shoots nothing:
    # a ranged attack would raise the alarm)
    to_phase(g, "A", "shooting")
    preview = g.a.client.post(
        g.a.base + "/combat/preview",
        json={"attacker": "a2", "target": "b2", "weapons": [{"weapon": "Bolt Rifle", "models": 5}]},
    )
    assert preview.status_code == 200, preview.text
    assert preview.json()["request"]["situation"]["hit_modifier"] == -1
    finish_turn(g)
    # B's round 1: no reserve before the alarm
    to_phase(g, "B", "movement")
    refused = g.b.send({"type": "reserve_roll", "unit": "b3"}, dice=[6], status=409)
    assert "before_alarm" in json.dumps(refused)
    finish_turn(g)

    # round 2: places 2 and 3 searched in vain (1, 2), then the scan at place 5 rolls a 6:
    # the spy is found there; the alarm sounds at the end of this turn
    to_phase(g, "A", "movement")
    g.a.send(search | {"place": "2"}, dice=[1])
    g.a.send(search | {"unit": "a7", "place": "3"}, dice=[2])
    view = g.a.send(scan | {"target": "5"}, dice=[6])["view"]
    assert view["narrative"]["spy_found_at"] == "5"
    assert view["narrative"]["searched"] == ["1", "4", "2", "3", "5"]
    assert view["narrative"]["alarm"]["state"] == "pending"
    refused = g.a.send(search | {"place": "6"}, dice=[6], status=422)
    assert "the spy is already found" in json.dumps(refused)
    finish_turn(g)
    view = g.b.view()
    assert (view["active"], view["round"]) == ("B", 2)
    assert view["narrative"]["alarm"] == {"state": "raised", "cause": "spy_found", "round": 2}
    found = [
        (e["place"], e["scan"], e["found"])
        for e in log_events(g, "narrative_hiding_place_searched")
    ]
    assert found == [
        ("1", False, False),
        ("4", True, False),
        ("2", False, False),
        ("3", False, False),
        ("5", True, True),
    ]

    # B's round 2, its first turn after the alarm: a D6 per reserve, 4+ (Kommandos 3: not
    # yet; Nobz 4: in); Rapid Reaction (3 CP) brings the Battlewagon in with no roll
    to_phase(g, "B", "movement")
    cp = g.b.view()["players"]["B"]["cp"]
    view = g.b.send({"type": "reserve_roll", "unit": "b3"}, dice=[3])["view"]
    assert unit(view, "b3")["location"] == "reserves"
    g.b.send({"type": "reserve_roll", "unit": "b3"}, dice=[6], status=422)  # once a phase
    view = g.b.send({"type": "reserve_roll", "unit": "b4"}, dice=[4])["view"]
    assert unit(view, "b4")["location"] == "battlefield"
    rapid = {"type": "use_mission_stratagem", "stratagem": "rapid-reaction", "target": "b5"}
    view = g.b.send(rapid)["view"]
    assert view["players"]["B"]["cp"] == cp - 3
    view = g.b.send({"type": "reserve_roll", "unit": "b5"}, dice=[])["view"]
    assert unit(view, "b5")["location"] == "battlefield"
    finish_turn(g)
    finish_turn(g)
    # B's round 3: later turns need no roll
    to_phase(g, "B", "movement")
    for reserve in ("b3", "b1", "b6"):
        view = g.b.send({"type": "reserve_roll", "unit": reserve}, dice=[])["view"]
        assert unit(view, reserve)["location"] == "battlefield"
    assert view["narrative"]["reserves"] == ["a5"]
    rolled = [
        (
            e["unit"],
            e["arrives"],
            e["reason"],
            [d["value"] for d in (e["roll"] or {}).get("dice", [])],
        )
        for e in log_events(g, "narrative_reserve_rolled")
    ]
    assert rolled == [
        ("a1", True, "free", []),
        ("b3", False, "rolled", [3]),
        ("b4", True, "rolled", [4]),
        ("b5", True, "stratagem", []),
        ("b3", True, "free", []),
        ("b1", True, "free", []),
        ("b6", True, "free", []),
    ]

    # the spy found and alive at the end: the Attacker's victory (not a major one)
    evaluated = play_to_the_end(g)
    assert evaluated["breakdown"] == [
        {"side": "attacker", "item": "spy", "vp": 0, "detail": "found and alive"}
    ]
    assert (evaluated["result"], evaluated["winner"], evaluated["vp"]) == ("victory", "A", None)
    assert g.a.view()["result"]["winner"] == "A"
    assert g.a.checked > 15  # every accepted command replayed from the stored rows
