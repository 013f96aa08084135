"""A Heroes of Black Reach battle played as a match through the JSON API (issue 16): created
with ``"ruleset": "black-reach"`` and no army list (each seat plays a force of the scenario:
seat A chooses its side, B plays the other), joined, deployed by the players, one full turn
(Order tokens placed face down, activations with dice given by hand and seeded by the server,
the Reserve phase and the end-of-turn check), 409 on a stale version, the secrecy of the face-
down tokens (everything seat A can fetch scanned for B's nonces and values), the export
imported to an equal battle, the audit, an undone roll sent again drawing the same dice, SSE,
and a guest seat."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.engine.black_reach.battle import BlackReachBattle
from app.engine.black_reach.battle.setup import load_deployment
from app.matches import reads
from tests.matches.test_events import parse
from tests.matches.test_pen_match import MATCHES, PenGame, Seat

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"


def path(*squares: tuple[int, int]) -> list[dict[str, int]]:
    return [{"x": x, "y": y} for x, y in squares]


@pytest.fixture
def br_game(user_client: Callable[[str], TestClient]) -> Callable[..., PenGame]:
    def make(**options: str) -> PenGame:
        alice, bob = user_client("Alice"), user_client("Bob")
        body: dict[str, Any] = {"ruleset": "black-reach"}
        if options:
            body["options"] = options
        r = alice.post(MATCHES, json=body)
        assert r.status_code == 201, r.text
        created = r.json()
        assert (created["ruleset"], created["mission"], created["battle_size"]) == (
            "black-reach",
            "sample-relay",
            "scenario",
        )
        code = created["invitation"]["code"]
        r = bob.post(f"{MATCHES}/join", json={"code": code})
        assert r.status_code == 200, r.text
        base = f"{MATCHES}/{created['id']}"
        return PenGame(Seat(alice, base), Seat(bob, base), created["id"])

    return make


def live(match_id: int) -> BlackReachBattle:
    battle = next(s.battle for (mid, _), s in reads.cache._items.items() if mid == match_id)
    assert isinstance(battle, BlackReachBattle)
    return battle


def everything(p: Seat) -> str:
    """Everything seat ``p`` can fetch through the API about its match."""
    material: dict[str, Any] = {}
    for suffix in ("", "/log", "/actions", "/audit", "/export", "/events?timeout=0"):
        r = p.client.get(f"{p.base}{suffix}")
        material[suffix] = [r.status_code, r.text]
    material["list"] = p.client.get(MATCHES).text
    return json.dumps(material)


def deploy(g: PenGame) -> None:
    """Each seat sets its counters up where the scenario's sample deployment puts them."""
    spots = {d.unit: d for d in load_deployment("sample-relay")}
    for p, side in ((g.a, "ultramarines"), (g.b, "orks")):
        for unit, d in spots.items():
            if unit.startswith(f"{side}:"):
                p.send({"type": "deploy", "unit": unit, "x": d.x, "y": d.y, "facing": d.facing})
        p.send({"type": "end_deployment"})


def test_black_reach_is_playable_with_the_scenarios_forces(
    client: TestClient, user_client: Callable[[str], TestClient]
) -> None:
    listed = {s["id"]: s for s in client.get("/api/v1/rulesets").json()}
    assert "match" in listed["black-reach"]["capabilities"]
    missions = client.get(f"{MATCHES}/missions", params={"ruleset": "black-reach"}).json()
    assert [(m["id"], [s["id"] for s in m["battle_sizes"]]) for m in missions] == [
        ("sample-relay", ["scenario"])
    ]
    alice = user_client("Alice")
    # no army list in Black Reach; a side the scenario lacks; an unknown option: clear 422s
    r = alice.post(MATCHES, json={"ruleset": "black-reach", "army_id": 1})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "army_id"
    r = alice.post(MATCHES, json={"ruleset": "black-reach", "options": {"side": "eldar"}})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "options.side"
    assert "ultramarines, orks" in r.json()["detail"]
    r = alice.post(MATCHES, json={"ruleset": "black-reach", "options": {"turns": 3}})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "options.turns"
    # the other systems still want a list
    r = alice.post(MATCHES, json={"ruleset": "pen"})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "army_id"


def test_seat_a_chooses_its_side(br_game: Callable[..., PenGame]) -> None:
    g = br_game(side="orks", deployment="sample")
    match = g.b.get()
    assert match["players"]["A"]["army"] == "orks"
    assert match["players"]["B"]["army"] == "ultramarines"
    assert match["players"]["B"]["points"] == 60
    view = match["view"]
    assert view["stage"] == "battle"  # the sample deployment: turn 1 at once
    assert live(g.match_id).state.seats == {"A": "orks", "B": "ultramarines"}


def test_a_black_reach_turn_through_the_api(br_game: Callable[..., PenGame]) -> None:
    g = br_game()
    assert g.a.view()["stage"] == "setup"
    deploy(g)
    view = g.a.view()
    assert view["stage"] == "battle"
    assert view["turn"]["pools"] == {"orks": 4, "ultramarines": 3}
    # no secret yet: the export (through the API) imports to an equal battle
    exported = g.a.client.get(f"{g.a.base}/export")
    assert exported.status_code == 200, exported.text
    data = exported.json()
    assert data["rule_system"] == "black-reach"
    imported = g.a.client.post(f"{MATCHES}/import", json=data)
    assert imported.status_code == 201, imported.text
    body = imported.json()
    assert (body["ruleset"], body["mission"], body["battle_size"]) == (
        "black-reach",
        "sample-relay",
        "scenario",
    )
    assert body["view"]["units"] == g.a.view()["units"]
    assert body["players"]["B"]["army"] == "orks"
    # the Order phase: B's tokens face down (the server draws their nonces)
    g.b.send(
        {
            "type": "place_orders",
            "orders": [
                {"unit": u, "number": n}
                for n, u in enumerate((BOYZ1, BOYZ2, NOB, SHOOTAS), start=1)
            ],
        }
    )
    secret = live(g.match_id).state.secret["orks"]
    assert {o.unit for o in secret.values()} == {BOYZ1, BOYZ2, NOB, SHOOTAS}
    # A acts on a version it saw before B's tokens: 409 with the current version
    stale = g.a.send({"type": "place_orders", "orders": []}, version=g.b.version - 1, status=409)
    assert stale["refusal"] == "stale_version"
    assert stale["current_version"] == g.b.version

    def assert_hidden() -> None:
        state = live(g.match_id).state
        assert state.turn is not None
        seen = everything(g.a)
        units = {u["id"]: u for u in g.a.view()["units"]}
        for o in state.secret["orks"].values():
            if o.unit in state.turn.revealed["orks"]:
                continue
            assert o.nonce not in seen
            assert units[o.unit]["token"] is None
            assert units[o.unit]["face_down_token"] is True
        assert g.a.client.get(f"{g.a.base}/export").status_code == 409

    assert_hidden()
    mine = {u["id"]: u for u in g.b.view()["units"]}
    assert mine[BOYZ1]["token"] == {"kind": "numbered", "number": 1}  # its owner sees it
    g.a.send(
        {
            "type": "place_orders",
            "orders": [
                {"unit": u, "number": n} for n, u in enumerate((BOLTER, TACTICAL, SERGEANT), 1)
            ],
        }
    )
    # activations: B's token 1 (the Boyz move), revealed as it is played
    g.b.send({"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))})
    assert_hidden()
    # A's token 1: the heavy bolter shoots, the die given by hand (4 + 3 - 2 = 5 >= 4: a step)
    shot = g.a.send({"type": "shoot", "unit": BOLTER, "target": BOYZ1}, dice=[4])
    fired = next(e["event"] for e in shot["events"] if e["event"]["type"] == "unit_shot")
    assert (fired["final"], fired["outcome"]) == (5, "step")
    g.b.send({"type": "move", "unit": BOYZ2, "path": path((5, 9), (6, 8), (6, 7), (5, 6))})
    # A's token 2: the tactical squad shoots, the die seeded by the server
    seeded = g.a.send({"type": "shoot", "unit": TACTICAL, "target": BOYZ1})
    roll = next(e["event"]["roll"] for e in seeded["events"] if e["event"].get("roll"))
    assert roll["seed"] is not None
    g.b.send({"type": "move", "unit": NOB, "path": path((3, 9), (3, 8), (3, 7))})
    g.a.send({"type": "move", "unit": SERGEANT, "path": path((1, 2), (2, 3), (3, 4))})
    g.b.send({"type": "hold", "unit": SHOOTAS})
    # the Reserve phase, the Initiative side first; then the end-of-turn check
    g.b.send({"type": "end_reserve"})
    g.a.send({"type": "end_reserve"})
    view = g.a.view()
    assert view["turn"]["number"] == 2
    match = g.b.get()
    assert (match["status"], match["round"]) == ("battle", 2)
    # the audit: the die given by hand has no seed; the server's re-drawn from its seed
    audit = g.b.client.get(f"{g.b.base}/audit").json()["rolls"]
    assert [r["ok"] for r in audit].count(True) >= 1
    assert all(r["ok"] is not False for r in audit)
    # the stream delivers B's log, and the headline of the battle
    log_b = g.b.client.get(f"{g.b.base}/log").json()["entries"]
    messages = parse(g.b.client.get(f"{g.b.base}/events?timeout=0").text)
    assert [m["data"] for m in messages if m["event"] == "entry"] == log_b
    assert messages[-1]["data"]["stage"] == "battle"
    assert messages[-1]["data"]["phase"] == "order"
    # the battle replayed from its stored rows (the read cache emptied) is the same
    before = (g.a.view(), g.b.view())
    reads.cache.clear()
    assert (g.a.view(), g.b.view()) == before
    # the server's full log replays to the live battle
    again = BlackReachBattle.import_log(live(g.match_id).export_log())
    assert again.state == live(g.match_id).state


def test_an_undone_black_reach_roll_sent_again_draws_the_same_dice(
    br_game: Callable[..., PenGame],
) -> None:
    g = br_game(deployment="sample")
    g.b.send({"type": "place_orders", "orders": [{"unit": BOYZ1, "number": 1}]}, status=409)
    g.b.send(
        {
            "type": "place_orders",
            "orders": [
                {"unit": u, "number": n}
                for n, u in enumerate((BOYZ1, BOYZ2, NOB, SHOOTAS), start=1)
            ],
        }
    )
    g.a.send(
        {
            "type": "place_orders",
            "orders": [
                {"unit": u, "number": n} for n, u in enumerate((BOLTER, TACTICAL, SERGEANT), 1)
            ],
        }
    )
    g.b.send({"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))})
    shoot = {"type": "shoot", "unit": BOLTER, "target": BOYZ1}
    first = g.a.send(shoot)["events"]
    g.a.send({"type": "undo"})  # a die was rolled: the opponent approves the undo
    actions = g.b.client.get(f"{g.b.base}/actions").json()["actions"]
    approve = next(a["command"] for a in actions if a["command"]["type"] == "approve_undo")
    g.b.send(approve)
    again = g.a.send(shoot)["events"]

    def rolls(events: list[dict[str, Any]]) -> list[Any]:
        return [e["event"]["roll"] for e in events if e["event"].get("roll")]

    assert rolls(first)
    assert rolls(first) == rolls(again)


def test_a_guest_seat_plays_the_other_force(
    app: Any, user_client: Callable[[str], TestClient]
) -> None:
    alice = user_client("Alice")
    r = alice.post(MATCHES, json={"ruleset": "black-reach", "opponent": "guest"})
    assert r.status_code == 201, r.text
    created = r.json()
    token = created["invitation"]["guest_url"].rsplit("/", 1)[1]
    guest = TestClient(app)
    r = guest.post(f"{MATCHES}/guest", json={"token": token, "sample": "orks"})
    assert r.status_code == 422, r.text  # a Black Reach seat brings no list
    r = guest.post(f"{MATCHES}/guest", json={"token": token, "name": "Gus"})
    assert r.status_code == 200, r.text
    joined = r.json()
    assert joined["seat"] == "B"
    assert joined["players"]["B"]["army"] == "orks"
    assert joined["players"]["B"]["guest"] is True
    # the battle resolves its attacks itself: no attack preview between its units
    r = alice.post(
        f"{MATCHES}/{created['id']}/combat/preview",
        json={"attacker": BOLTER, "target": BOYZ1, "weapons": [{"weapon": "x", "models": 1}]},
    )
    assert r.status_code == 409, r.text


def give_abilities(monkeypatch: pytest.MonkeyPatch, counter: str, *abilities: Any) -> None:
    """The sample scenario with ``abilities`` added to the first face of ``counter`` (the
    sample counters have none of the rules these tests play)."""
    from app.engine.black_reach.battle import BattleSetup
    from app.matches.systems import black_reach as system

    original = system.sample_setup

    def setup(*args: Any, **kwargs: Any) -> BattleSetup:
        made = original(*args, **kwargs)
        catalogue = json.loads(json.dumps(made.catalogue))
        found = next(c for c in catalogue["counters"] if c["id"] == counter)
        found["faces"][0]["abilities"] += list(abilities)
        return BattleSetup(made.scenario, catalogue, made.boards, made.seats, made.deployment)

    monkeypatch.setattr(system, "sample_setup", setup)


def place_all_orders(g: PenGame) -> None:
    """Both sides place their Order tokens, numbered in the order of the sample's units."""
    for seat, units in ((g.b, (BOYZ1, BOYZ2, NOB, SHOOTAS)), (g.a, (BOLTER, TACTICAL, SERGEANT))):
        orders = [{"unit": u, "number": n} for n, u in enumerate(units, 1)]
        seat.send({"type": "place_orders", "orders": orders})


def test_double_tir_and_rafale_through_the_api(
    br_game: Callable[..., PenGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sample heavy-weapon team given Double Tir and Rafale (the sample counters have
    neither); the dice given by hand."""
    give_abilities(monkeypatch, "sample-um-heavy-bolter", {"id": "double_shot"}, {"id": "burst"})
    g = br_game(deployment="sample")
    place_all_orders(g)
    g.b.send({"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8))})
    actions = g.a.client.get(f"{g.a.base}/actions").json()["actions"]
    kinds = {a["command"]["type"] for a in actions}
    assert {"double_shot", "burst"} <= kinds
    # a Rafale whose shares do not add up to the CV: refused, nothing rolled
    bad = g.a.send(
        {
            "type": "burst",
            "unit": BOLTER,
            "shares": [{"target": NOB, "cv": 1}, {"target": SHOOTAS, "cv": 1}],
        },
        dice=[6, 6],
        status=409,
    )
    assert (bad["refusal"], bad["modified_cv"]) == ("burst_total", 3)
    # CV 3 split 2 / 1: 2 + 6 - 3 = 5 at the Nob (DV 5), 1 + 6 - 5 = 2 at the Shootas (DV 4)
    done = g.a.send(
        {
            "type": "burst",
            "unit": BOLTER,
            "shares": [{"target": NOB, "cv": 2}, {"target": SHOOTAS, "cv": 1}],
        },
        dice=[6, 6],
    )
    events = [e["event"] for e in done["events"]]
    assert events[1]["type"] == "burst_declared"
    assert events[1]["shares"] == [{"target": NOB, "cv": 2}, {"target": SHOOTAS, "cv": 1}]
    shots = [
        (e["target"], e["cv"], e["final"], e["outcome"]) for e in events if e["type"] == "unit_shot"
    ]
    assert shots == [(NOB, 2, 5, "step"), (SHOOTAS, 1, 2, "miss")]
    # B's token 2, then A's token 2 on the tactical squad (no Double Tir: refused)
    g.b.send({"type": "hold", "unit": BOYZ2})
    refused = g.a.send(
        {"type": "double_shot", "unit": TACTICAL, "targets": [NOB, SHOOTAS]}, status=409
    )
    assert refused["refusal"] == "no_double_shot"
    battle = live(g.match_id)
    assert BlackReachBattle.import_log(battle.export_log()).state == battle.state


def test_a_sniper_shot_through_the_api(
    br_game: Callable[..., PenGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sample heavy-weapon team given Sniper; the die given by hand."""
    give_abilities(monkeypatch, "sample-um-heavy-bolter", {"id": "sniper"})
    g = br_game(deployment="sample")
    place_all_orders(g)
    g.b.send({"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))})
    snipe = {"type": "snipe", "unit": BOLTER, "target": BOYZ1}
    offered = [
        a for a in g.a.client.get(f"{g.a.base}/actions").json()["actions"] if a["command"] == snipe
    ]
    assert offered[0]["odds"]["step"] == "1/6"  # the die less 2 (two reducing obstacles)
    done = g.a.send(snipe, dice=[6])
    events = [e["event"] for e in done["events"]]
    sniped = next(e for e in events if e["type"] == "unit_sniped")
    assert (sniped["result"], sniped["penalties"], sniped["effect"]) == (4, 2, "step")
    assert [e["type"] for e in events][-1] == "steps_taken"


def test_en_alerte_through_the_api(
    br_game: Callable[..., PenGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The sample heavy-weapon team given En Alerte; the die given by hand."""
    give_abilities(monkeypatch, "sample-um-heavy-bolter", {"id": "overwatch"})
    g = br_game(deployment="sample")
    place_all_orders(g)
    declared = g.b.send(
        {"type": "move", "unit": BOYZ1, "path": path((4, 9), (4, 8), (4, 7), (4, 6))}
    )
    assert [e["event"]["type"] for e in declared["events"]][-1] == "move_declared"
    assert g.b.view()["declared_move"] == {
        "unit": BOYZ1,
        "reactor": "ultramarines",
        "path": [[4, 9], [4, 8], [4, 7], [4, 6]],
    }
    waits = g.b.send({"type": "hold", "unit": BOYZ2}, status=409)
    assert waits["refusal"] == "waiting_overwatch"
    done = g.a.send({"type": "overwatch", "unit": BOLTER, "after": 3}, dice=[2])
    events = [e["event"] for e in done["events"]]
    shot = next(e for e in events if e["type"] == "unit_shot")
    assert (shot["final"], shot["outcome"]) == (3, "miss")  # 3 + 2 - 2 against DV 4
    assert [e["type"] for e in events] == [
        "overwatch_answered",
        "unit_moved",
        "unit_shot",
        "units_activated",
        "unit_moved",
    ]
    battle = live(g.match_id)
    assert BOLTER in battle.state.activated
    assert battle.state.pending is None


def test_scout_moves_through_the_api(
    br_game: Callable[..., PenGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Orks' Shootas given Scout (2): the Orks (the Initiative) make their Scout moves
    first; the Ultramarines have none; then the first turn."""
    give_abilities(monkeypatch, "sample-ork-shootas", {"id": "scout", "param": 2})
    g = br_game()
    deploy(g)
    assert live(g.match_id).state.scouting == ("orks",)
    assert g.a.view()["scouting"] == ["orks"]
    early = g.a.send({"type": "place_orders", "orders": []}, status=409)
    assert early["refusal"] == "scouting"
    far = g.b.send(
        {"type": "scout_move", "unit": SHOOTAS, "path": path((2, 10), (2, 9), (2, 8))},
        status=409,
    )
    assert far["refusal"] == "illegal_move"  # Scout (2): 2 squares
    moved = g.b.send({"type": "scout_move", "unit": SHOOTAS, "path": path((2, 10), (2, 9))})
    assert [e["event"]["type"] for e in moved["events"]] == ["scout_moved"]
    ended = g.b.send({"type": "end_scouting"})
    assert [e["event"]["type"] for e in ended["events"]] == ["scouting_ended", "turn_started"]
    assert (g.a.view()["turn"]["number"], g.a.view()["turn"]["phase"]) == (1, "order")
    assert live(g.match_id).state.units[SHOOTAS].placement.anchor.y == 9  # type: ignore[union-attr]
