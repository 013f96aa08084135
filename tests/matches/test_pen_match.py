"""A PEN battle played as a match through the JSON API (ADR 0013): the PEN lists come from the
army builder, the match is created with ``"ruleset": "pen"``, and everything a 10th-edition
match guarantees holds: set-up, turns with dice given by hand and dice seeded by the server,
409 on a stale version, per-seat views and logs, the exported log replayed to the live state,
every seeded die audited, an undone roll sent again drawing the same dice, SSE delivering the
events."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.matches.systems.pen import PenMatch
from tests.matches.test_events import parse

ARMIES = "/api/v1/armies"
MATCHES = "/api/v1/matches"


def marine(**extra: Any) -> dict[str, Any]:
    return {
        "name": "Escouade tactique",
        "points": 150,
        "models": 10,
        "unit_type": "infanterie",
        "troops": True,
        "characteristics": {
            "ws": 4,
            "bs": 4,
            "strength": 4,
            "toughness": 4,
            "wounds": 1,
            "initiative": 4,
            "attacks": 1,
            "leadership": 8,
            "save": 3,
        },
        "weapons": [{"name": "Bolter", "type": "tir rapide", "shots": 1, "strength": 4, "ap": 5}],
        **extra,
    }


def devastators() -> dict[str, Any]:
    return marine(
        name="Devastators",
        points=120,
        models=5,
        troops=False,
        weapons=[
            {"name": "Lascannon", "type": "lourde", "shots": 1, "strength": 9, "ap": 2},
        ],
    )


def guard(**extra: Any) -> dict[str, Any]:
    return {
        "name": "Escouade d'infanterie",
        "points": 60,
        "models": 10,
        "unit_type": "infanterie",
        "troops": True,
        "characteristics": {
            "ws": 3,
            "bs": 3,
            "strength": 3,
            "toughness": 3,
            "wounds": 1,
            "initiative": 3,
            "attacks": 1,
            "leadership": 7,
            "save": 5,
        },
        "weapons": [{"name": "Lasgun", "type": "tir rapide", "shots": 1, "strength": 3}],
        **extra,
    }


def rhino() -> dict[str, Any]:
    return {
        "name": "Rhino",
        "points": 35,
        "unit_type": None,
        "characteristics": {"bs": 4},
        "armour": {"front": 11, "side": 11, "rear": 10},
        "hull_points": 3,
        "vehicle_types": ["tank", "transport"],
        "transport_capacity": 10,
        "weapons": [{"name": "Fulgurant", "type": "assaut", "shots": 2, "strength": 4, "ap": 5}],
    }


def ready_pen_list(client: TestClient, units: list[dict[str, Any]], name: str = "Liste") -> int:
    """A PEN list made with the army builder's API, marked ready; its id."""
    r = client.post(ARMIES, json={"rule_system": "pen", "name": name, "units": units})
    assert r.status_code == 201, r.text
    army_id = int(r.json()["id"])
    r = client.patch(f"{ARMIES}/{army_id}", json={"status": "ready"})
    assert r.status_code == 200, r.text
    return army_id


@dataclass
class Seat:
    client: TestClient
    base: str
    version: int = 0
    last: dict[str, Any] | None = None

    def get(self) -> dict[str, Any]:
        r = self.client.get(self.base)
        assert r.status_code == 200, r.text
        self.version = r.json()["version"]
        return dict(r.json())

    def view(self) -> dict[str, Any]:
        view = self.get()["view"]
        assert view is not None
        return dict(view)

    def send(
        self,
        command: dict[str, Any],
        *,
        dice: list[int] | None = None,
        version: int | None = None,
        status: int = 200,
    ) -> dict[str, Any]:
        if version is None:
            version = self.get()["version"]
        body: dict[str, Any] = {"expected_version": version, "command": command}
        if dice is not None:
            body["dice"] = dice
        r = self.client.post(f"{self.base}/commands", json=body)
        assert r.status_code == status, (command, r.status_code, r.text)
        self.last = r.json()
        if status == 200:
            self.version = r.json()["version"]
        return dict(r.json())


@dataclass
class PenGame:
    a: Seat
    b: Seat
    match_id: int


@pytest.fixture
def pen_game(user_client: Callable[[str], TestClient]) -> Callable[..., PenGame]:
    def make(mission: str = "pen-objectives", size: str = "1000") -> PenGame:
        alice, bob = user_client("Alice"), user_client("Bob")
        mine = ready_pen_list(alice, [marine(), devastators()], "Marines")
        theirs = ready_pen_list(bob, [guard(), rhino(), guard(name="Vétérans", troops=False)])
        r = alice.post(
            MATCHES,
            json={"ruleset": "pen", "army_id": mine, "mission": mission, "battle_size": size},
        )
        assert r.status_code == 201, r.text
        created = r.json()
        assert created["ruleset"] == created["rule_system"] == "pen"
        assert created["view"] is None
        code = created["invitation"]["code"]
        r = bob.post(f"{MATCHES}/join", json={"code": code, "army_id": theirs})
        assert r.status_code == 200, r.text
        base = f"{MATCHES}/{created['id']}"
        return PenGame(Seat(alice, base), Seat(bob, base), created["id"])

    return make


def set_up(g: PenGame) -> None:
    """Reserves (none), the roll-off won by A with dice given by hand, A first, deployment."""
    g.a.send({"type": "end_step"})
    g.b.send({"type": "end_step"})
    g.a.send({"type": "roll_off"}, dice=[5, 2])
    assert g.a.view()["stage"] == "choose"  # A won: A chooses
    g.a.send({"type": "choose_first", "seat": "A"})
    for p, seat in ((g.a, "A"), (g.b, "B")):
        for unit in p.view()["units"]:
            if unit["seat"] == seat and unit["place"] == "undeployed":
                p.send({"type": "deploy", "unit": unit["id"]})
        p.send({"type": "end_step"})
    view = g.a.view()
    assert view["stage"] == "battle"


def test_pen_is_playable_and_listed(client: TestClient) -> None:
    listed = {s["id"]: s for s in client.get("/api/v1/rulesets").json()}
    assert "match" in listed["pen"]["capabilities"]
    assert "match" in listed["wh40k-10e"]["capabilities"]
    missions = client.get(f"{MATCHES}/missions", params={"ruleset": "pen"}).json()
    by_id = {m["id"]: m for m in missions}
    assert set(by_id) == {"pen-objectives", "pen-zones", "pen-annihilation"}
    assert [s["points"] for s in by_id["pen-objectives"]["battle_sizes"]] == [1000, 1500, 2000]
    assert by_id["pen-objectives"]["rounds"] == 5
    default = client.get(f"{MATCHES}/missions").json()
    assert default[0]["id"] == "only-war"  # the 10th edition by default
    assert not {m["id"] for m in default} & set(by_id)
    unknown = client.get(f"{MATCHES}/missions", params={"ruleset": "chess"})
    assert unknown.status_code == 422
    assert unknown.json()["errors"][0]["field"] == "ruleset"


def test_create_refuses_an_unknown_ruleset_or_a_list_of_another_system(
    user_client: Callable[[str], TestClient],
) -> None:
    alice = user_client("Alice")
    mine = ready_pen_list(alice, [marine()])
    r = alice.post(MATCHES, json={"ruleset": "chess", "army_id": mine})
    assert r.status_code == 422, r.text
    assert "cannot be played as a match" in r.json()["detail"]
    # a list in a Black Reach match, whose seats play the scenario's forces: refused, clearly
    r = alice.post(MATCHES, json={"ruleset": "black-reach", "army_id": mine})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "army_id"
    # a PEN list in a 10th-edition match (the default ruleset): refused, clearly
    r = alice.post(MATCHES, json={"army_id": mine})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "army_id"
    # PEN options do not exist
    r = alice.post(MATCHES, json={"ruleset": "pen", "army_id": mine, "options": {"x": 1}})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "options.x"


def test_a_pen_list_missing_battle_data_or_over_the_limit_is_a_clear_422(
    user_client: Callable[[str], TestClient],
) -> None:
    alice = user_client("Alice")
    no_initiative = marine(name="Scouts")
    no_initiative["characteristics"] = {
        k: v for k, v in no_initiative["characteristics"].items() if k != "initiative"
    }
    army = ready_pen_list(alice, [no_initiative])
    r = alice.post(MATCHES, json={"ruleset": "pen", "army_id": army})
    assert r.status_code == 422, r.text
    assert "Scouts" in r.json()["detail"]
    assert "initiative" in r.json()["detail"]
    assert r.json()["errors"][0]["field"] == "units[0].initiative"
    big = ready_pen_list(alice, [marine(points=600), marine(points=500)])
    r = alice.post(
        MATCHES,
        json={"ruleset": "pen", "army_id": big, "mission": "pen-zones", "battle_size": "1000"},
    )
    assert r.status_code == 422, r.text
    assert "1100 pts" in r.json()["detail"]
    assert r.json()["errors"][0]["field"] == "points"


def test_a_pen_battle_through_the_api(pen_game: Callable[..., PenGame]) -> None:
    g = pen_game()
    set_up(g)
    view = g.a.view()
    assert {u["id"] for u in view["units"]} == {"a1", "a2", "b1", "b2", "b3"}
    # turn 1 of A: the dawn roll given by hand (a 1: still night)
    g.a.send({"type": "start_turn"}, dice=[1])
    assert g.a.last is not None
    assert g.a.last["view"]["night"] is True
    seen = g.b.get()["version"]
    g.a.send({"type": "move", "unit": "a1", "speed": "stationary"})
    # B acts on what it saw before A's move: 409 with the current version
    stale = g.b.send({"type": "end_phase"}, version=seen, status=409)
    assert stale["refusal"] == "stale_version"
    assert stale["current_version"] == g.a.version
    # a shot rolled by the server (seeded): its dice are audited
    g.a.send(
        {"type": "shoot", "unit": "a1", "target": "b1", "weapon": "Bolter", "range_inches": 12},
    )
    shot = [e for e in g.a.last["events"] if e["event"].get("roll")]  # type: ignore[index]
    assert shot
    g.a.send({"type": "end_activation", "unit": "a1"})
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    # B's turn 1, the server rolls the dawn
    view = g.b.view()
    assert (view["active_seat"], view["phase"]) == ("B", "start")
    for _ in range(3):
        g.b.send({"type": "start_turn"})
        g.b.send({"type": "end_phase"})
        g.b.send({"type": "end_phase"})
        g.a.send({"type": "start_turn"})
        g.a.send({"type": "end_phase"})
        g.a.send({"type": "end_phase"})
    assert g.a.get()["round"] >= 3
    # the per-seat reads
    for p in (g.a, g.b):
        log = p.client.get(f"{p.base}/log").json()
        assert [e["seq"] for e in log["entries"]] == list(range(1, log["version"] + 1))
        actions = p.client.get(f"{p.base}/actions").json()
        assert actions["version"] == log["version"]
    audit = g.a.client.get(f"{g.a.base}/audit").json()["rolls"]
    assert audit
    assert all(r["ok"] is not False for r in audit)
    assert any(r["ok"] is True for r in audit)  # the seeded ones re-drawn from their seeds
    # the exported log replays to the live state, and imports as a new PEN match
    exported = g.a.client.get(f"{g.a.base}/export")
    assert exported.status_code == 200, exported.text
    data = exported.json()
    assert data["rule_system"] == "pen"
    assert "army_id" not in data["armies"]["A"]
    from app.matches import reads

    live = next(iter(s.battle for s in reads.cache._items.values()))
    assert PenMatch.import_log(data).state == live.state
    imported = g.a.client.post(f"{MATCHES}/import", json=data)
    assert imported.status_code == 201, imported.text
    body = imported.json()
    assert (body["ruleset"], body["mission"], body["battle_size"]) == (
        "pen",
        "pen-objectives",
        "1000",
    )
    copy = body["view"]
    original = g.a.view()
    assert copy["units"] == original["units"]
    assert copy["round"] == original["round"]


def test_an_undone_roll_sent_again_draws_the_same_dice(pen_game: Callable[..., PenGame]) -> None:
    g = pen_game()
    set_up(g)
    g.a.send({"type": "start_turn"}, dice=[1])
    g.a.send({"type": "move", "unit": "a2", "speed": "stationary"})
    shoot = {
        "type": "shoot",
        "unit": "a2",
        "target": "b2",
        "weapon": "Lascannon",
        "range_inches": 20,
    }
    first = g.a.send(shoot)["events"]
    g.a.send({"type": "undo"})  # dice were rolled: the opponent approves the undo
    actions = g.b.client.get(f"{g.b.base}/actions").json()["actions"]
    approve = next(a["command"] for a in actions if a["command"]["type"] == "approve_undo")
    g.b.send(approve)
    assert next(u for u in g.a.view()["units"] if u["id"] == "b2")["hull_points_lost"] == 0
    again = g.a.send(shoot)["events"]

    def rolls(events: list[dict[str, Any]]) -> list[Any]:
        return [e["event"].get("roll") for e in events if e["event"].get("roll")]

    assert rolls(first)
    assert rolls(first) == rolls(again)


def test_the_stream_delivers_a_pen_match_events(pen_game: Callable[..., PenGame]) -> None:
    g = pen_game()
    set_up(g)
    g.a.send({"type": "start_turn"}, dice=[1])
    r = g.b.client.get(f"{g.b.base}/events?timeout=0")
    assert r.status_code == 200, r.text
    messages = parse(r.text)
    entries = [m for m in messages if m["event"] == "entry"]
    assert [m["id"] for m in entries] == list(range(1, g.a.version + 1))
    assert messages[-1]["event"] == "version"
    assert messages[-1]["data"]["version"] == g.a.version
    assert messages[-1]["data"]["stage"] == "battle"
    assert messages[-1]["data"]["active"] == "A"
    assert messages[-1]["data"]["phase"] == "movement"
    log = g.b.client.get(f"{g.b.base}/log").json()["entries"]
    assert [m["data"] for m in entries] == log


def test_a_pen_battle_ends_with_its_game_length_and_a_confirmed_result(
    pen_game: Callable[..., PenGame],
) -> None:
    """Every turn ended at once with the server's dice: the game length is rolled after turns
    5 and 6 [L824-L828], the players report the objectives, and the match row says the
    result (status, winner, VP) that a league game would be given."""
    g = pen_game()
    set_up(g)
    for _ in range(200):
        view = g.a.view()
        if view["stage"] == "ended":
            break
        if view["stage"] == "scoring":
            actions = g.a.client.get(f"{g.a.base}/actions").json()["actions"]
            report = next(a["command"] for a in actions if a["command"]["type"] == "report_control")
            g.a.send({**report, "seat": "A"})
            continue
        p = g.a if view["active_seat"] == "A" else g.b
        p.send({"type": "start_turn"} if view["phase"] == "start" else {"type": "end_phase"})
    match = g.b.get()
    assert match["view"]["stage"] == "ended"
    assert 5 <= match["round"] <= 7
    assert match["status"] == "confirmed"
    # three objectives held by A, worth a tenth of the points limit each [L821]
    assert match["vp"] == {"A": 300, "B": 0}
    assert match["winner"] == "A"
    audit = g.b.client.get(f"{g.b.base}/audit").json()["rolls"]
    assert all(r["ok"] is True for r in audit if r["ok"] is not None)
    listed = g.a.client.get(MATCHES).json()
    assert [(m["id"], m["ruleset"], m["status"]) for m in listed] == [
        (g.match_id, "pen", "confirmed")
    ]


def test_a_guest_seat_pastes_a_pen_army(app: Any, user_client: Callable[[str], TestClient]) -> None:
    alice = user_client("Alice")
    mine = ready_pen_list(alice, [marine()])
    r = alice.post(MATCHES, json={"ruleset": "pen", "army_id": mine, "opponent": "guest"})
    assert r.status_code == 201, r.text
    created = r.json()
    assert (created["mission"], created["battle_size"]) == ("pen-objectives", "1500")
    token = created["invitation"]["guest_url"].rsplit("/", 1)[1]
    assert alice.get(f"{MATCHES}/samples", params={"ruleset": "pen"}).json() == []
    guest = TestClient(app)
    r = guest.post(f"{MATCHES}/guest", json={"token": token, "sample": "orks"})
    assert r.status_code == 422, r.text  # no PEN sample lists
    army = {"format": "auspex.pen-army", "name": "Garde", "units": [guard(), rhino()]}
    r = guest.post(f"{MATCHES}/guest", json={"token": token, "name": "Gus", "army": army})
    assert r.status_code == 200, r.text
    joined = r.json()
    assert joined["seat"] == "B"
    assert joined["players"]["B"] == {
        "name": "Gus",
        "army": "Garde",
        "faction": "",
        "points": 95,
        "guest": True,
    }
    assert {u["id"] for u in joined["view"]["units"]} == {"a1", "b1", "b2"}
    # the PEN battle resolves its attacks itself: no attack preview between its units
    r = alice.post(
        f"{MATCHES}/{created['id']}/combat/preview",
        json={"attacker": "a1", "target": "b1", "weapons": [{"weapon": "Bolter", "models": 10}]},
    )
    assert r.status_code == 409, r.text
    assert r.json()["type"].endswith("match-combat-unavailable")


def test_an_import_names_its_rule_system(user_client: Callable[[str], TestClient]) -> None:
    alice = user_client("Alice")
    r = alice.post(f"{MATCHES}/import", json={"format": "auspex-match-log/1", "events": []})
    assert r.status_code == 422, r.text
    assert "rule_system" in r.json()["detail"]
    r = alice.post(
        f"{MATCHES}/import",
        json={"format": "auspex-match-log/1", "rule_system": "chess", "events": []},
    )
    assert r.status_code == 422, r.text
    assert r.json()["type"].endswith("ruleset-not-playable")


def test_a_vehicle_brings_its_bs_into_the_battle() -> None:
    """A vehicle shoots with its own BS (ruling B27): the list's BS reaches the battle's squad."""
    from app.catalog.pen_units import PenArmour, PenCharacteristics, PenUnit, check_unit
    from app.engine.pen import request_from_dict
    from app.matches.systems.pen.armies import _squad

    rhino = check_unit(
        PenUnit(
            name="Rhino",
            points=35,
            unit_type=None,
            characteristics=PenCharacteristics(bs=4),
            armour=PenArmour(11, 11, 10),
            hull_points=3,
            vehicle_types=("tank", "transport"),
            transport_capacity=10,
        )
    )
    squad = _squad(rhino, 0)
    assert squad["profile"]["bs"] == 4
    shot = {
        "attacker": {"models": 1, "bs": 4, "strength": 4},
        "weapon": {"type": "heavy", "shots": 1, "strength": 4, "ap": 5},
        "target": squad["profile"],
    }
    assert request_from_dict(shot).target.bs == 4  # type: ignore[union-attr]
