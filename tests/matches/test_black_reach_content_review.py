"""The review of Black Reach content-set matches and the hot seat (issue 16).

- a match keeps only what its scenario uses of a set (its boards, the forces of its sides'
  factions, no notes): an unused board or a note never reaches the opponent, a spectator or
  an export, and an edit of what the match never uses keeps its mission id;
- the hot-seat API shows a seat only while the battle waits on it (else the public view and
  ``hand_off``), as the page's hand-off screen;
- ``/content`` of an imported content-set match names its own scenario and both sides;
- at most ``content.MAX_OPEN`` open content-set matches a user, and a hot-seat start keeps
  only the set's name and the scenario's summary in seat A's snapshot (the log holds the rest).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import event, select, update
from sqlalchemy.orm import Session

from app.engine.black_reach.battle import BattleSetup
from app.engine.black_reach.battle.setup import load_deployment, parse_setup, sample_setup
from app.matches import service
from app.matches.models import Match
from app.matches.systems.black_reach import content, joined_snapshot
from tests.matches.test_black_reach_content import (  # noqa: F401 (with_router: autouse)
    CONTENT,
    MATCHES,
    create,
    hot,
    hot_send,
    join,
    missions,
    my_set,
    with_router,
)
from tests.matches.test_black_reach_match import live

SECRET_BOARD = "zz-private-unused-board"
NOTES = ("zz-forces-note", "zz-boards-note", "zz-board-note", "zz-scenario-note")


def _put(client: TestClient, row: dict[str, Any], **docs: Any) -> dict[str, Any]:
    r = client.put(f"{CONTENT}/{row['id']}", json={"version": row["version"], **docs})
    assert r.status_code == 200, r.text
    return dict(r.json())


def secret_set(client: TestClient) -> tuple[dict[str, Any], str]:
    """The sample set copied, with an unused board and a note on every document; and the
    mission id it had before those were added."""
    row = my_set(client)
    before = missions(client)[0]["id"]
    forces = json.loads(json.dumps(row["forces"])) | {"note": NOTES[0]}
    boards = json.loads(json.dumps(row["boards"])) | {"note": NOTES[1]}
    boards["boards"][0] = boards["boards"][0] | {"note": NOTES[2]}
    boards["boards"].append(dict(boards["boards"][1]) | {"name": SECRET_BOARD})
    scenario = dict(row["scenarios"][0]) | {"note": NOTES[3]}
    row = _put(client, row, forces=forces, boards=boards, scenarios=[scenario])
    assert SECRET_BOARD in json.dumps(row)
    return row, before


def _leaks(text: str) -> list[str]:
    return [s for s in (SECRET_BOARD, *NOTES) if s in text]


def test_a_match_keeps_only_what_its_scenario_uses(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    _row, before = secret_set(alice)
    listed = missions(alice)
    # notes and an unused board are not what a match is played on: the same mission
    assert [m["id"] for m in listed] == [before]
    created = create(alice, before)
    join(bob, created)
    mid = created["id"]
    setup = live(mid).envelopes[0].event.setup  # type: ignore[attr-defined]
    assert [b["name"] for b in setup.boards["boards"]] == ["sample-ruins", "sample-ridge"]
    assert "note" not in setup.scenario
    assert "note" not in setup.catalogue
    assert "note" not in setup.boards
    assert all("note" not in b for b in setup.boards["boards"])
    alice.put(f"{MATCHES}/{mid}/spectators")  # both players agree (ruling S19)
    tok = bob.put(f"{MATCHES}/{mid}/spectators").json()["token"]
    anon = TestClient(alice.app)
    seen = {
        "bob match": bob.get(f"{MATCHES}/{mid}"),
        "bob log": bob.get(f"{MATCHES}/{mid}/log"),
        "bob events": bob.get(f"{MATCHES}/{mid}/events?timeout=0"),
        "bob export": bob.get(f"{MATCHES}/{mid}/export"),
        "alice export": alice.get(f"{MATCHES}/{mid}/export"),
        "bob content": bob.get(f"{MATCHES}/{mid}/content"),
        "spectator": anon.get(f"/api/v1/spectate/{tok}"),
        "spectator events": anon.get(f"/api/v1/spectate/{tok}/events?timeout=0"),
        "spectator page": anon.get(f"/spectate/{tok}"),
    }
    for name, r in seen.items():
        assert r.status_code == 200, (name, r.text[:300])
        assert _leaks(r.text) == [], name
    # the export holds the trimmed set-up, which still sets the battle up
    exported = seen["bob export"].json()
    assert "sample-ridge" in json.dumps(exported)
    # nor does the database keep more than the trimmed content
    db.expire_all()
    stored = db.execute(select(Match.army_a).where(Match.id == mid)).scalar_one()
    assert _leaks(json.dumps(stored)) == []


def test_the_trimmed_forces_are_those_of_the_sides_factions() -> None:
    made = sample_setup("sample-relay", deployment=())
    scenario = json.loads(json.dumps(made.scenario))
    catalogue = json.loads(json.dumps(made.catalogue))
    boards = json.loads(json.dumps(made.boards))
    # both sides play the Orks' army: nothing of the Ultramarines is kept
    orks = scenario["sides"][1]["army"]
    scenario["sides"][0]["army"] = orks
    kept, forces, kept_boards = content.trimmed(scenario, catalogue, boards)
    assert kept == {k: v for k, v in scenario.items() if k != "note"}
    by_faction = {
        part: sorted({i["faction"] for i in forces[part]}) for part in ("counters", "tiles")
    }
    assert by_faction == {"counters": ["orks"], "tiles": ["orks"]}
    assert [o["id"] for o in forces["options"]] == [
        o["id"] for o in catalogue["options"] if o["faction"] == "orks"
    ]
    named = {t.get("damage_set") for t in forces["tiles"] + forces["options"]} - {None}
    assert sorted(d["id"] for d in forces["damage_sets"]) == sorted(named)
    assert forces["templates"] == catalogue["templates"]
    assert forces["perils"] == catalogue["perils"]
    assert "note" not in forces
    assert [b["name"] for b in kept_boards["boards"]] == ["sample-ruins", "sample-ridge"]
    # the engine reads the trimmed copy; trimming again changes nothing
    parsed = parse_setup(BattleSetup(kept, forces, kept_boards, {"A": "ultramarines", "B": "orks"}))
    assert parsed.sides[0].army.faction == "orks"
    assert content.trimmed(kept, forces, kept_boards) == (kept, forces, kept_boards)
    # the two sample factions: every counter, tile and option kept
    _, both, _ = content.trimmed(made.scenario, made.catalogue, made.boards)
    assert len(both["counters"]) == len(catalogue["counters"]) == 11
    assert len(both["tiles"]) == len(catalogue["tiles"]) == 7
    assert len(both["options"]) == len(catalogue["options"]) == 9


# -- the hot seat shows one seat at a time -------------------------------------------------


def _deployed_hot_match(alice: TestClient) -> int:
    created = create(alice, "sample-relay", hot_seat=True)
    mid = int(created["id"])
    assert alice.post(f"{MATCHES}/{mid}/hot-seat", json={}).status_code == 200
    spots = {d.unit: d for d in load_deployment("sample-relay")}
    for seat, side in (("A", "ultramarines"), ("B", "orks")):
        for unit, d in spots.items():
            if unit.startswith(f"{side}:"):
                cmd = {"type": "deploy", "unit": unit, "x": d.x, "y": d.y, "facing": d.facing}
                hot_send(alice, mid, seat, cmd)
        hot_send(alice, mid, seat, {"type": "end_deployment"})
    return mid


def _orders(offered: dict[str, Any]) -> list[dict[str, Any]]:
    numbers = sorted(t["number"] for t in offered["tokens"] if t["kind"] == "numbered")
    units = offered["units"][: len(numbers)]
    return [
        {"unit": u, "kind": "numbered", "number": n} for n, u in zip(numbers, units, strict=True)
    ]


def test_the_hot_seat_api_hides_a_seat_the_battle_does_not_wait_on(
    user_client: Callable[[str], TestClient],
) -> None:
    alice = user_client("Alice")
    mid = _deployed_hot_match(alice)
    # the Order phase: both seats may place, the battle waits on A
    b_orders = _orders(live(mid).legal_actions("B")[0])
    placed = hot_send(alice, mid, "B", {"type": "place_orders", "orders": b_orders})
    assert (placed["to_play"], placed["hand_off"], placed["actions"]) == ("A", "A", [])
    assert placed["events"] == [
        e for e in live(mid).log_json(None) if e["seq"] == placed["version"]
    ]
    asked = hot(alice, mid, "B")
    assert (asked["seat"], asked["to_play"], asked["hand_off"], asked["actions"]) == (
        "B",
        "A",
        "A",
        [],
    )
    assert asked["view"] == live(mid).view(None)
    orks = [u for u in asked["view"]["units"] if u["side"] == "orks"]
    assert len(orks) >= len(b_orders)
    assert all(u["token"] is None for u in orks)
    nonces = [o.nonce for o in live(mid).state.secret["orks"].values()]
    assert len(nonces) == len(b_orders)
    assert all(n not in json.dumps(asked) for n in nonces)
    # B's own view still holds them (the engine), shown once the battle waits on B
    own = {u["id"]: u["token"] for u in live(mid).view("B")["units"] if u["side"] == "orks"}
    first = b_orders[0]
    assert own[first["unit"]] == {"kind": "numbered", "number": first["number"]}
    # A, to play, sees its own screen and actions
    a_state = hot(alice, mid, "A")
    assert (a_state["to_play"], a_state["hand_off"]) == ("A", None)
    assert [a["command"]["type"] for a in a_state["actions"]][:1] == ["place_orders"]
    a_orders = _orders(a_state["actions"][0])
    done = hot_send(alice, mid, "A", {"type": "place_orders", "orders": a_orders})
    # the answer hands the device to B, whose screen now holds its own tokens, not A's
    assert (done["to_play"], done["hand_off"], done["actions"]) == ("B", "B", [])
    b_state = hot(alice, mid, "B")
    assert (b_state["to_play"], b_state["hand_off"]) == ("B", None)
    mine = {u["id"]: u["token"] for u in b_state["view"]["units"] if u["side"] == "orks"}
    assert mine[first["unit"]] == {"kind": "numbered", "number": first["number"]}
    marines = [u for u in b_state["view"]["units"] if u["side"] == "ultramarines"]
    assert marines
    assert all(u["token"] is None for u in marines)
    assert hot(alice, mid, "A")["hand_off"] == "B"


# -- /content of an imported match ---------------------------------------------------------


def _export_import(alice: TestClient, mid: int) -> int:
    data = alice.get(f"{MATCHES}/{mid}/export")
    assert data.status_code == 200, data.text
    r = alice.post(f"{MATCHES}/import", json=data.json())
    assert r.status_code == 201, r.text
    return int(r.json()["id"])


def test_the_content_of_an_imported_match_names_its_scenario_and_sides(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    row = my_set(alice)
    scenario = dict(row["scenarios"][0]) | {"id": "custom-x", "name": "Custom X"}
    _put(alice, row, scenarios=[scenario])
    created = create(alice, missions(alice)[0]["id"], side="orks")
    join(bob, created)
    new = _export_import(alice, created["id"])
    expected = {
        "mission": created["mission"],
        "sample": False,
        "content_set": "Night raid",
        "scenario": "Custom X",
        "sides": {"A": "orks", "B": "ultramarines"},
    }
    for mid in (created["id"], new):
        r = alice.get(f"{MATCHES}/{mid}/content")
        assert r.status_code == 200, r.text
        assert r.json() == expected
    assert alice.get(f"/matches/{new}").status_code == 200
    # a match imported before its snapshot kept the scenario: read from the log
    db.expire_all()
    army = db.execute(select(Match.army_a).where(Match.id == new)).scalar_one()
    legacy = army | {"content": {"id": created["mission"], "name": "Night raid"}}
    db.execute(update(Match).where(Match.id == new).values(army_a=legacy))
    db.flush()
    r = alice.get(f"{MATCHES}/{new}/content")
    assert r.json() == expected


def test_the_content_of_an_imported_sample_id_scenario(
    user_client: Callable[[str], TestClient],
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    my_set(alice)  # the scenario id stays sample-relay, renamed "Raid on the relay"
    created = create(alice, missions(alice)[0]["id"], side="orks")
    join(bob, created)
    new = _export_import(alice, created["id"])
    r = alice.get(f"{MATCHES}/{new}/content")
    assert r.json() == {
        "mission": created["mission"],
        "sample": False,
        "content_set": "Night raid",
        "scenario": "Raid on the relay",
        "sides": {"A": "orks", "B": "ultramarines"},
    }


# -- the cost of the frozen content --------------------------------------------------------


def test_open_content_matches_are_capped(user_client: Callable[[str], TestClient]) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    my_set(alice)
    mission = missions(alice)[0]["id"]
    made = [create(alice, mission) for _ in range(content.MAX_OPEN)]
    assert content.MAX_OPEN == 20
    r = alice.post(MATCHES, json={"ruleset": "black-reach", "mission": mission})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "mission"
    assert "20" in r.json()["detail"]
    # the shipped scenario is not counted, nor another user's matches
    assert alice.post(MATCHES, json={"ruleset": "black-reach"}).status_code == 201
    my_set(bob)
    create(bob, missions(bob)[0]["id"])
    # a join or a cancellation frees a place
    join(bob, made[0])
    create(alice, mission)
    assert alice.delete(f"{MATCHES}/{made[1]['id']}").status_code == 204
    create(alice, mission)
    r = alice.post(MATCHES, json={"ruleset": "black-reach", "mission": mission})
    assert r.status_code == 422, r.text


def test_a_hot_seat_start_drops_the_frozen_documents(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    alice = user_client("Alice")
    my_set(alice)
    created = create(alice, missions(alice)[0]["id"], hot_seat=True)
    mid = created["id"]
    db.expire_all()
    frozen = db.execute(select(Match.army_a).where(Match.id == mid)).scalar_one()["content"]
    assert {"scenario", "forces", "boards"} <= set(frozen)
    assert alice.post(f"{MATCHES}/{mid}/hot-seat", json={}).status_code == 200
    db.expire_all()
    kept = db.execute(select(Match.army_a).where(Match.id == mid)).scalar_one()["content"]
    assert kept == {
        "id": created["mission"],
        "set": frozen["set"],
        "name": "Night raid",
        "scenario": {
            "id": "sample-relay",
            "name": "Raid on the relay",
            "sides": [{"id": "ultramarines"}, {"id": "orks"}],
        },
    }
    r = alice.get(f"{MATCHES}/{mid}/content")
    assert r.json() == {
        "mission": created["mission"],
        "sample": False,
        "content_set": "Night raid",
        "scenario": "Raid on the relay",
        "sides": {"A": "ultramarines", "B": "orks"},
    }
    page = alice.get(f"/matches/{mid}")
    assert page.status_code == 200
    assert "Night raid" in page.text
    # the battle replays from its log
    assert live(mid).state.scenario is not None
    assert live(mid).state.scenario.name == "Raid on the relay"
    # the function alone: a shipped match's snapshot is left as it is
    shipped = {"side": "orks", "scenario": "sample-relay"}
    assert joined_snapshot(shipped) == shipped


def test_listing_missions_reads_only_the_snapshots_of_changed_sets(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    alice = user_client("Alice")
    row = my_set(alice)
    mission = missions(alice)[0]["id"]
    made = [create(alice, mission) for _ in range(3)]
    db.expire_all()
    owner = db.execute(select(Match.created_by_id).where(Match.id == made[0]["id"])).scalar_one()
    statements: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        statements.append(statement)

    bind = db.get_bind()
    event.listen(bind, "before_cursor_execute", seen)
    try:
        # the set unchanged: its open matches' missions are the set's, no snapshot is read
        assert list(content.owned_missions(db, owner)) == [mission]
        assert not [s for s in statements if "army_a" in s]
        _put(alice, row, scenarios=[dict(row["scenarios"][0]) | {"turns": 6}])
        statements.clear()
        found = content.owned_missions(db, owner)
        # edited: one snapshot read for the three matches frozen on the old mission
        assert len(found) == 2
        assert found[mission].name["en"] == f"Night raid: Raid on the relay (match {made[0]['id']})"
        assert len([s for s in statements if "army_a" in s]) == 1
    finally:
        event.remove(bind, "before_cursor_execute", seen)


def test_a_join_drops_the_frozen_documents_too(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    my_set(alice)
    created = create(alice, missions(alice)[0]["id"])
    mid = created["id"]
    join(bob, created)
    db.expire_all()
    kept = db.execute(select(Match.army_a).where(Match.id == mid)).scalar_one()["content"]
    assert not {"forces", "boards"} & set(kept)
    assert kept["scenario"]["name"] == "Raid on the relay"
    assert live(mid).state.scenario is not None
    assert alice.get(f"{MATCHES}/{mid}/content").json()["content_set"] == "Night raid"


# -- a revoked share link creates nothing; the trimmed forces keep their factions' cards ----


def test_a_revoked_links_scenario_creates_no_match_by_its_id(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    from tests.matches.test_black_reach_shared_sets import play_shared, share

    alice, bob, carol = user_client("Alice"), user_client("Bob"), user_client("Carol")
    row = my_set(alice)
    mid = missions(alice)[0]["id"]
    token = share(alice, row["id"])
    created = play_shared(bob, token, scenario="sample-relay")
    assert created["mission"] == mid
    # while the link is valid, the id alone is still not Bob's: only the link creates
    r = bob.post(MATCHES, json={"ruleset": "black-reach", "mission": mid})
    assert r.status_code == 422, r.text
    assert r.json()["errors"][0]["field"] == "mission"
    assert alice.delete(f"{CONTENT}/{row['id']}/share").status_code in (200, 204)
    play_shared(bob, token, 404, scenario="sample-relay")
    r = bob.post(MATCHES, json={"ruleset": "black-reach", "mission": mid})
    assert r.status_code == 422, r.text
    # nor is it listed among his missions (it was his open match's, kept for its join), nor
    # offered by the new-match form (MatchSystem.creatable)
    assert [m["id"] for m in missions(bob)] == []
    bob_id = int(bob.get("/api/v1/me").json()["id"])
    assert mid in service.own_missions(db, bob_id, "black-reach")
    assert mid not in service.new_match_missions(db, bob_id, "black-reach")
    # his open match is still joined and played on its frozen content
    joined = join(carol, created)
    assert joined["mission"] == mid
    assert joined["status"] != "open"
    # Alice's own set still creates by id (her set's mission, not a frozen shared one)
    assert create(alice, mid)["mission"] == mid


def test_a_frozen_mission_of_ones_own_set_still_creates() -> None:
    made = sample_setup("sample-relay", deployment=())
    common = {"set_name": "Night raid", "width": 12, "height": 12}
    mine = content.mission_for(made.scenario, made.catalogue, made.boards, set_id=3, **common)
    kept = content.mission_for(
        made.scenario, made.catalogue, made.boards, set_id=None, joins_only=True, **common
    )
    assert mine.id == kept.id  # the same content, the same id
    assert content.creatable(mine)
    assert not content.creatable(kept)


def test_the_trimmed_forces_keep_only_their_factions_cards() -> None:
    made = sample_setup("sample-relay", deployment=())
    scenario = json.loads(json.dumps(made.scenario))
    catalogue = json.loads(json.dumps(made.catalogue))
    catalogue["cards"] = [
        {"id": "waaagh", "name": "Waaagh", "faction": "orks", "bonus": "shooting", "value": 1},
        {
            "id": "litany",
            "name": "Litany",
            "faction": "ultramarines",
            "bonus": "shooting",
            "value": 1,
        },
        {"id": "dakka", "name": "Dakka", "faction": "orks", "bonus": "movement", "value": 2},
    ]
    scenario["sides"][0]["army"] = scenario["sides"][1]["army"]  # both sides play the Orks
    _, forces, _ = content.trimmed(scenario, catalogue, made.boards)
    assert [c["id"] for c in forces["cards"]] == ["waaagh", "dakka"]
    # both factions played: every card kept; no cards in the file, none added
    _, both, _ = content.trimmed(made.scenario, catalogue, made.boards)
    assert [c["id"] for c in both["cards"]] == ["waaagh", "litany", "dakka"]
    _, none, _ = content.trimmed(made.scenario, made.catalogue, made.boards)
    assert "cards" not in none
