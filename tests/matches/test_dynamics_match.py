"""A PEN match played under the Dynamics turn structure through the JSON API (issue 14): the
PEN lists of the army builder, ``"ruleset": "pen"`` with ``options: {"turn_structure":
"dynamics"}``, the PEN set-up, one full common turn (hidden orders placed and locked, revealed
from Initiative 1 up, resolved from 10 down) with dice given by hand and dice seeded by the
server, 409 on a stale version, the secrecy of the orders before their reveal (everything seat
B can fetch through the API is scanned for A's orders, their nonces and the seeds that made
them), the export naming its turn structure and imported to an equal battle, the audit, an
undone roll sent again drawing the same dice, and SSE."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.matches import reads
from app.matches.invitations import match_secret
from app.matches.models import Match
from app.matches.systems.pen import PenMatch
from tests.matches.test_events import parse
from tests.matches.test_pen_match import (
    MATCHES,
    PenGame,
    Seat,
    devastators,
    guard,
    marine,
    ready_pen_list,
    rhino,
    set_up,
)


@pytest.fixture
def seeds(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """Every seed the service derives, with the kind of its command (the test's eyes only)."""
    found: list[tuple[str, int]] = []
    derive = PenMatch.command_seed

    def spy(self: PenMatch, secret: str | bytes, command: Any, seat: str | None = None) -> int:
        seed = derive(self, secret, command, seat)
        data = getattr(command, "data", {})
        found.append((str(data.get("type") if isinstance(data, dict) else ""), seed))
        return seed

    monkeypatch.setattr(PenMatch, "command_seed", spy)
    return found


@pytest.fixture
def dyn_game(user_client: Callable[[str], TestClient]) -> Callable[..., PenGame]:
    def make(structure: str = "dynamics", **more: Any) -> PenGame:
        alice, bob = user_client("Alice"), user_client("Bob")
        mine = ready_pen_list(alice, [marine(), devastators()], "Marines")
        theirs = ready_pen_list(bob, [guard(), rhino(), guard(name="Vétérans", troops=False)])
        r = alice.post(
            MATCHES,
            json={
                "ruleset": "pen",
                "army_id": mine,
                "battle_size": "1000",
                "options": {"turn_structure": structure, **more},
            },
        )
        assert r.status_code == 201, r.text
        created = r.json()
        r = bob.post(
            f"{MATCHES}/join", json={"code": created["invitation"]["code"], "army_id": theirs}
        )
        assert r.status_code == 200, r.text
        assert r.json()["view"]["turn_structure"] == structure
        base = f"{MATCHES}/{created['id']}"
        return PenGame(Seat(alice, base), Seat(bob, base), created["id"])

    return make


def live(match_id: int) -> PenMatch:
    battle = next(s.battle for (mid, _), s in reads.cache._items.items() if mid == match_id)
    assert isinstance(battle, PenMatch)
    return battle


def everything(p: Seat) -> str:
    """Everything seat ``p`` can fetch through the API about its match."""
    material: dict[str, Any] = {}
    for path in ("", "/log", "/actions", "/audit", "/export"):
        r = p.client.get(f"{p.base}{path}")
        material[path] = [r.status_code, r.text]
    r = p.client.get(f"{p.base}/events?timeout=0")
    material["/events"] = [r.status_code, r.text]
    r = p.client.get(MATCHES)
    material["list"] = [r.status_code, r.text]
    return json.dumps(material)


def orders_of(p: Seat) -> dict[str, dict[str, Any]]:
    return {o["unit"]: o for o in p.view()["dynamics"]["orders"]}


def place(p: Seat, orders: dict[str, str]) -> None:
    for unit, order in orders.items():
        p.send({"type": "place_order", "unit": unit, "order": order})
    p.send({"type": "lock_orders"})


def test_pen_lists_its_turn_structures_and_checks_the_option(
    client: TestClient, user_client: Callable[[str], TestClient]
) -> None:
    listed = {s["id"]: s for s in client.get("/api/v1/rulesets").json()}
    assert listed["pen"]["turn_structures"] == ["classic", "alternation", "dynamics"]
    assert listed["wh40k-10e"]["turn_structures"] == []
    alice = user_client("Alice")
    mine = ready_pen_list(alice, [marine()])
    r = alice.post(
        MATCHES, json={"ruleset": "pen", "army_id": mine, "options": {"turn_structure": "chess"}}
    )
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "options.turn_structure"


def test_the_dynamics_options_reach_the_set_up(
    dyn_game: Callable[..., PenGame], user_client: Callable[[str], TestClient]
) -> None:
    g = dyn_game(pilots={"B": 5}, plus_two="A", pilot_a="4")
    setup = live(g.match_id).state.setup
    assert (dict(setup.pilots), setup.plus_two) == ({"A": 4, "B": 5}, "A")
    assert setup.initiative("b2") == 5  # the rhino takes its pilot's Initiative [L197]
    carol = user_client("Carol")
    mine = ready_pen_list(carol, [marine()])
    for options, field in (
        ({"turn_structure": "dynamics", "pilots": {"B": 11}}, "options.pilots"),
        ({"turn_structure": "dynamics", "plus_two": "C"}, "options.plus_two"),
        ({"turn_structure": "classic", "pilots": {"A": 4}}, "options.pilots"),
        ({"turn_structure": "dynamics", "pilot_a": 0}, "options.pilot_a"),
        ({"turn_structure": "dynamics", "pilot_b": "x"}, "options.pilot_b"),
        ({"turn_structure": "classic", "pilot_a": 4}, "options.pilot_a"),
    ):
        r = carol.post(MATCHES, json={"ruleset": "pen", "army_id": mine, "options": options})
        assert r.status_code == 422, r.text
        assert r.json()["errors"][0]["field"] == field


def test_the_alternation_structure_is_the_pen_engines_own(
    dyn_game: Callable[..., PenGame], db: Session
) -> None:
    g = dyn_game("alternation")
    battle = live(g.match_id)
    assert battle.turn_structure == "alternation"
    assert battle.state.setup.alternation is True
    assert battle.export_log()["turn_structure"] == "alternation"


def test_a_dynamics_turn_through_the_api(
    dyn_game: Callable[..., PenGame], db: Session, seeds: list[tuple[str, int]]
) -> None:
    g = dyn_game()
    set_up(g)  # the PEN set-up, shared: reserves, roll-off by hand, deployment
    view = g.a.view()
    assert view["dynamics"]["stage"] == "turn_start"
    # the start of the turn: its tests with dice given by hand
    starter = g.a if view["active_seat"] in ("A", None) else g.b
    starter.send({"type": "start_turn"}, dice=[1])
    assert g.a.view()["dynamics"]["stage"] == "placement"
    # hidden orders: A places; a die given by hand for a placement is refused
    bad = g.a.send({"type": "place_order", "unit": "a1", "order": "fire"}, dice=[3], status=422)
    assert bad["refusal"] == "seed_needed"
    place(g.a, {"a1": "fire", "a2": "forced_march"})
    # B acts on a version it saw before A's lock: 409 with the current version
    stale = g.b.send({"type": "place_order", "unit": "b1", "order": "fire"}, version=1, status=409)
    assert stale["refusal"] == "stale_version"
    assert stale["current_version"] == g.a.version
    # before the reveal: nothing B can fetch holds A's orders, nonces or their seeds
    battle = live(g.match_id)
    secret_a = {u: s for u, s in battle.state.slots.items() if s.seat == "A"}
    assert set(secret_a) == {"a1", "a2"}
    placed = [seed for kind, seed in seeds if kind == "place_order"]
    assert len(placed) == 2

    def assert_hidden() -> None:
        seen = everything(g.b)
        for slot in secret_a.values():
            if live(g.match_id).state.slots[slot.unit].revealed:
                continue
            assert slot.nonce not in seen
            assert "order" not in orders_of(g.b)[slot.unit]
        for seed in placed:
            assert str(seed) not in seen
            assert hex(seed)[2:] not in seen
        assert g.b.client.get(f"{g.b.base}/export").status_code == 409

    assert_hidden()
    assert orders_of(g.a)["a1"]["order"] == "fire"  # its owner sees it
    place(g.b, {"b1": "fire", "b2": "forced_march", "b3": "forced_march"})
    assert_hidden()
    # reveal from Initiative 1: B's Initiative 3 units first, alone
    view = g.b.view()
    assert (view["dynamics"]["stage"], view["dynamics"]["step"]) == ("reveal", 3)
    g.b.send({"type": "reveal_order", "unit": "b1", "target": "a1"})
    g.b.send({"type": "reveal_order", "unit": "b2"})
    assert_hidden()
    g.b.send({"type": "reveal_order", "unit": "b3"})
    g.a.send({"type": "reveal_order", "unit": "a1", "target": "b1"})
    assert orders_of(g.b)["a1"]["order"] == "fire"  # revealed: now B sees it
    g.a.send({"type": "reveal_order", "unit": "a2"})
    # resolve from Initiative 10 down: A's Initiative 4 units, a shot seeded by the server
    view = g.a.view()
    assert (view["dynamics"]["stage"], view["dynamics"]["step"]) == ("resolve", 4)
    shot = g.a.send(
        {"type": "shoot", "unit": "a1", "target": "b1", "weapon": "Bolter", "range_inches": 12}
    )
    assert [e for e in shot["events"] if e["event"].get("roll")]
    g.a.send({"type": "end_order", "unit": "a1"})
    g.a.send({"type": "end_order", "unit": "a2"})
    for unit in ("b1", "b2", "b3"):
        g.b.send({"type": "end_order", "unit": unit})
    view = g.a.view()
    assert (view["dynamics"]["stage"], view["dynamics"]["turn"]) == ("turn_start", 2)
    match = g.a.get()
    assert (match["status"], match["round"]) == ("battle", 2)
    # the audit: every die re-drawn, the seeded ones from their seeds
    audit = g.b.client.get(f"{g.b.base}/audit").json()["rolls"]
    assert any(r["ok"] is True for r in audit)
    assert all(r["ok"] is not False for r in audit)
    # the per-seat logs: B's has gaps where A's orders were chosen (secret events)
    log_b = g.b.client.get(f"{g.b.base}/log").json()
    assert len(log_b["entries"]) < log_b["version"]
    assert not any(
        e["event"]["type"] == "order_chosen" and e["actor"] == "A" for e in log_b["entries"]
    )
    # the stream delivers what the log holds
    r = g.b.client.get(f"{g.b.base}/events?timeout=0")
    messages = parse(r.text)
    entries = [m["data"] for m in messages if m["event"] == "entry"]
    assert entries == log_b["entries"]
    assert messages[-1]["data"]["stage"] == "turn_start"
    # the battle replayed from its stored rows (the read cache emptied) is the same
    before = (g.a.view(), g.b.view())
    reads.cache.clear()
    assert (g.a.view(), g.b.view()) == before
    # the full log is A's secrets too until the battle ends; the server's copy replays equal
    data = live(g.match_id).export_log()
    assert data["turn_structure"] == "dynamics"
    again = PenMatch.import_log(data)
    assert again.turn_structure == "dynamics"
    assert again.state == live(g.match_id).state
    # an import replays it as a Dynamics match (the importer is seat A)
    row = db.get(Match, g.match_id)
    assert row is not None
    imported = g.a.client.post(f"{MATCHES}/import", json=data | {"armies": {}})
    assert imported.status_code == 201, imported.text
    body = imported.json()
    assert body["ruleset"] == "pen"
    assert body["view"]["turn_structure"] == "dynamics"
    assert body["view"]["units"] == g.a.view()["units"]
    # an export naming the wrong turn structure is refused, clearly
    wrong = g.a.client.post(f"{MATCHES}/import", json=data | {"turn_structure": "classic"})
    assert wrong.status_code == 422, wrong.text
    assert match_secret(row)  # the secret never left the server: it is in no reply above
    assert match_secret(row) not in everything(g.b)


def test_an_undone_dynamics_roll_sent_again_draws_the_same_dice(
    dyn_game: Callable[..., PenGame],
) -> None:
    g = dyn_game()
    set_up(g)
    view = g.a.view()
    p = g.a if view["active_seat"] in ("A", None) else g.b
    other = g.b if p is g.a else g.a
    first = p.send({"type": "start_turn"})["events"]
    p.send({"type": "undo"})  # dice were rolled: the opponent approves the undo
    actions = other.client.get(f"{other.base}/actions").json()["actions"]
    approve = next(a["command"] for a in actions if a["command"]["type"] == "approve_undo")
    other.send(approve)
    assert g.a.view()["dynamics"]["stage"] == "turn_start"
    again = p.send({"type": "start_turn"})["events"]

    def rolls(events: list[dict[str, Any]]) -> list[Any]:
        return [e["event"].get("roll") for e in events if e["event"].get("roll")]

    assert rolls(first)
    assert rolls(first) == rolls(again)


def test_a_classic_command_in_a_dynamics_match_is_a_422(dyn_game: Callable[..., PenGame]) -> None:
    g = dyn_game()
    set_up(g)
    r = g.a.send({"type": "end_phase"}, status=422)
    assert r["refusal"] == "bad_command"
    r = g.a.send({"type": "teleport"}, status=422)
    assert r["refusal"] == "bad_command"


def test_a_squad_deployed_in_its_transport_takes_an_order_through_the_api(
    dyn_game: Callable[..., PenGame],
) -> None:
    """Dynamics rulings D21: the veterans deploy in the Rhino, take a hidden order like any
    unit on the battlefield [L171], and get out after the Rhino moved [L282]."""
    g = dyn_game()
    g.a.send({"type": "end_step"})
    g.b.send({"type": "end_step"})
    g.a.send({"type": "roll_off"}, dice=[5, 2])
    g.a.send({"type": "choose_first", "seat": "A"})
    for unit in ("a1", "a2"):
        g.a.send({"type": "deploy", "unit": unit})
    g.a.send({"type": "end_step"})
    for unit in ("b1", "b2"):
        g.b.send({"type": "deploy", "unit": unit})
    g.b.send({"type": "embark", "unit": "b3", "transport": "b2"})
    g.b.send({"type": "end_step"})
    g.a.send({"type": "start_turn"}, dice=[1])
    place(g.a, {"a1": "fire", "a2": "fire"})
    bad = g.b.send({"type": "lock_orders"}, status=409)
    assert bad["refusal"] == "orders_missing"
    assert "b3" in bad["detail"]
    place(g.b, {"b1": "fire", "b2": "tactical_move", "b3": "assault"})
    assert "order" not in orders_of(g.a)["b3"]
    g.b.send({"type": "reveal_order", "unit": "b1", "target": "a1"})
    g.b.send({"type": "reveal_order", "unit": "b2", "target": "a1", "with_passengers": True})
    g.b.send({"type": "reveal_order", "unit": "b3", "target": "a1"})
    assert orders_of(g.a)["b3"]["order"] == "assault"
    g.a.send({"type": "reveal_order", "unit": "a1", "target": "b1"})
    g.a.send({"type": "reveal_order", "unit": "a2", "target": "b2"})
    for unit in ("a1", "a2"):
        g.a.send({"type": "end_order", "unit": unit})
    g.b.send({"type": "move", "unit": "b2", "speed": "normal", "inches": 6})
    g.b.send({"type": "end_order", "unit": "b2"})
    actions = g.b.client.get(f"{g.b.base}/actions").json()["actions"]
    assert {"command": {"type": "disembark", "unit": "b3", "emergency": False}} in actions
    g.b.send({"type": "disembark", "unit": "b3"})
    b3 = next(u for u in g.a.view()["units"] if u["id"] == "b3")
    assert (b3["place"], b3["transport"]) == ("table", None)
    moved = g.b.send({"type": "move", "unit": "b3", "speed": "normal", "inches": 6}, status=409)
    assert moved["refusal"] == "already_moved"  # getting out after the Rhino moved [L282]
    g.b.send({"type": "end_order", "unit": "b3"})
    g.b.send({"type": "end_order", "unit": "b1"})
    assert (g.a.view()["dynamics"]["stage"], g.a.view()["dynamics"]["turn"]) == ("turn_start", 2)


def test_who_places_infiltrators_first_is_rolled_off_through_the_api(
    user_client: Callable[[str], TestClient],
) -> None:
    """Dyn [L142] (dynamics rulings D1): both armies have infiltrators, so who places them
    first is rolled off, with the dice by hand; the winner lets the other start."""
    alice, bob = user_client("Alice"), user_client("Bob")
    sneaky = {"rules": ["Infiltration"], "troops": False}
    mine = ready_pen_list(alice, [marine(), marine(name="Scouts", points=100, **sneaky)])
    theirs = ready_pen_list(bob, [guard(), guard(name="Ratlings", **sneaky)])
    r = alice.post(
        MATCHES,
        json={
            "ruleset": "pen",
            "army_id": mine,
            "battle_size": "1000",
            "options": {"turn_structure": "dynamics"},
        },
    )
    assert r.status_code == 201, r.text
    code = r.json()["invitation"]["code"]
    r = bob.post(f"{MATCHES}/join", json={"code": code, "army_id": theirs})
    assert r.status_code == 200, r.text
    base = f"{MATCHES}/{r.json()['id']}"
    a, b = Seat(alice, base), Seat(bob, base)
    a.send({"type": "end_step"})
    b.send({"type": "end_step"})
    a.send({"type": "roll_off"}, dice=[5, 2])
    a.send({"type": "choose_first", "seat": "A"})
    a.send({"type": "deploy", "unit": "a1"})
    a.send({"type": "end_step"})
    b.send({"type": "deploy", "unit": "b1"})
    b.send({"type": "end_step"})
    assert a.view()["stage"] == "infiltrate"
    early = a.send({"type": "deploy", "unit": "a2"}, status=409)
    assert early["refusal"] == "roll_off_first"
    rolled = a.send({"type": "roll_off"}, dice=[2, 5])
    event = next(e["event"] for e in rolled["events"] if e["event"]["type"] == "placing_roll_off")
    assert (event["stage"], event["winner"]) == ("infiltrate", "B")
    b.send({"type": "choose_first", "seat": "A"})
    wait = b.send({"type": "deploy", "unit": "b2"}, status=403)
    assert wait["refusal"] == "not_your_turn"
    a.send({"type": "deploy", "unit": "a2"})
    a.send({"type": "end_step"})
    b.send({"type": "deploy", "unit": "b2"})
    b.send({"type": "end_step"})
    assert a.view()["dynamics"]["stage"] == "turn_start"


def test_a_tank_shock_is_a_ram_through_the_api(dyn_game: Callable[..., PenGame]) -> None:
    """Dynamics rulings D7: the Rhino's Tactical Move declares a Tank Shock of 6 ps at the
    reveal [L33]; at its pass it rams along it (PEN's ram): the Marines on its path dodge on
    the 6 given by hand, and the Rhino shoots nothing afterwards."""
    g = dyn_game()
    set_up(g)
    g.a.send({"type": "start_turn"}, dice=[1])
    place(g.a, {"a1": "fire", "a2": "fire"})
    place(g.b, {"b1": "fire", "b2": "tactical_move", "b3": "forced_march"})
    g.b.send({"type": "reveal_order", "unit": "b1", "target": "a1"})
    shock = {"tank_shock_inches": 6, "tank_shock_direction": "towards the ruins"}
    g.b.send({"type": "reveal_order", "unit": "b2", "target": "a1", **shock})
    assert orders_of(g.a)["b2"]["declaration"]["tank_shock_inches"] == 6
    g.b.send({"type": "reveal_order", "unit": "b3"})
    g.a.send({"type": "reveal_order", "unit": "a1", "target": "b1"})
    g.a.send({"type": "reveal_order", "unit": "a2", "target": "b1"})
    for unit in ("a1", "a2"):
        g.a.send({"type": "end_order", "unit": unit})
    ram = {"type": "ram", "unit": "b2", "inches": 6, "targets": [{"unit": "a1"}]}
    wrong = g.b.send(ram | {"inches": 9}, dice=[6], status=409)
    assert wrong["refusal"] == "declared_distance"
    rammed = g.b.send(ram, dice=[6])  # the dodge roll: 6, the Marines step aside
    event = next(e["event"] for e in rammed["events"] if e["event"]["type"] == "rammed")
    assert event["dodged"] == ["a1"]
    shot = {"type": "shoot", "unit": "b2", "target": "a1", "weapon": "Fulgurant"}
    refused = g.b.send(shot | {"range_inches": 12}, status=409)
    assert refused["refusal"] == "after_charge"
    g.b.send({"type": "end_order", "unit": "b2"})


def test_the_optional_token_supply_is_an_option_checked_against_the_armies(
    dyn_game: Callable[..., PenGame], user_client: Callable[[str], TestClient]
) -> None:
    """``tokens_per_type`` (Dyn [L47], 5 tokens per 250 points): recorded in the set-up, kept by
    an export and import; a supply too small for an army is refused when the battle is made;
    a malformed one is a 422 at creation."""
    g = dyn_game(tokens_per_type={"A": 5, "B": 5})
    setup = live(g.match_id).inner.state.setup
    assert setup is not None
    assert dict(setup.tokens_per_type or {}) == {"A": 5, "B": 5}
    exported = g.a.client.get(f"{g.a.base}/export").json()
    imported = g.a.client.post(f"{MATCHES}/import", json=exported)
    assert imported.status_code == 201, imported.text
    copy = live(imported.json()["id"]).inner.state.setup
    assert copy is not None
    assert dict(copy.tokens_per_type or {}) == {"A": 5, "B": 5}

    carol, dan = user_client("Carol"), user_client("Dan")
    for bad in ({"A": 5}, {"A": 0, "B": 5}, {"A": "5", "B": 5}, [5, 5]):
        r = carol.post(
            MATCHES,
            json={
                "ruleset": "pen",
                "army_id": ready_pen_list(carol, [marine(), devastators()], "M"),
                "battle_size": "1000",
                "options": {"turn_structure": "dynamics", "tokens_per_type": bad},
            },
        )
        assert r.status_code == 422, r.text
        assert any(e["field"] == "options.tokens_per_type" for e in r.json()["errors"])
    r = carol.post(
        MATCHES,
        json={
            "ruleset": "pen",
            "army_id": ready_pen_list(carol, [marine(), devastators()], "M"),
            "battle_size": "1000",
            "options": {"turn_structure": "dynamics", "tokens_per_type": {"A": 1, "B": 1}},
        },
    )
    assert r.status_code == 201, r.text
    r = dan.post(
        f"{MATCHES}/join",
        json={
            "code": r.json()["invitation"]["code"],
            "army_id": ready_pen_list(dan, [guard(), rhino()], "G"),
        },
    )
    assert r.status_code in (409, 422), r.text
    assert "tokens_per_type" in r.text
