"""The narrative scenarios as 10th-edition matches, through the JSON API (issue 15).

The missions listing shows them beside Only War (a pack file dropped in the packs directory is
listed without code; a malformed one is left out with a clear message); a match created with
one plays its set-up and battle commands to the victory evaluation with dice given by hand;
the hidden deployment of Meat Grinder leaks into nothing seat B can fetch before its reveal;
export then import replays the same battle.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.engine.narrative8e.pack import PACKS_DIR
from app.matches.systems import wh40k10e
from tests.matches.conftest import (
    FakeArmies,
    Game,
    Player,
    finish_turn,
    marines,
    orks,
    player,
    setup_battle,
    step,
)

NARRATIVE = ["meat-grinder", "ambush", "patrol", "blitz", "sabotage", "rescue"]


@pytest.fixture
def packs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A packs directory of the test's own, beside the shipped one; the listing re-read."""
    monkeypatch.setattr(wh40k10e, "PACK_DIRECTORIES", (PACKS_DIR, tmp_path))
    wh40k10e.missions.cache_clear()
    yield tmp_path
    wh40k10e.missions.cache_clear()


def club_pack(pack_id: str = "club", mission_id: str = "last-bridge") -> dict[str, Any]:
    """A pack of one scenario: the shipped pack's Patrol under another id and name."""
    shipped = json.loads((PACKS_DIR / "narrative-8e.json").read_text(encoding="utf-8"))
    mission = next(m for m in shipped["missions"] if m["id"] == "patrol")
    mission = mission | {"id": mission_id, "name": {"en": "Last Bridge", "fr": "Dernier pont"}}
    return shipped | {"id": pack_id, "missions": [mission]}


def new_narrative_game(
    user_client: Callable[[str], TestClient],
    armies: FakeArmies,
    db: Session,
    mission: str,
    options: dict[str, Any] | None = None,
    names: tuple[str, str] = ("Alice", "Bob"),
) -> Game:
    alice, bob = user_client(names[0]), user_client(names[1])
    body: dict[str, Any] = {"army_id": armies.ready(alice, marines()), "mission": mission}
    if options is not None:
        body["options"] = options
    r = alice.post("/api/v1/matches", json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, orks())},
    )
    assert r.status_code == 200, r.text
    return Game(
        Player(alice, created["id"], "A", db), Player(bob, created["id"], "B", db), created["id"]
    )


# -- the listing --------------------------------------------------------------------------------


def test_the_six_scenarios_are_listed_beside_only_war_with_both_names(
    user_client: Callable[[str], TestClient],
) -> None:
    r = user_client("Alice").get("/api/v1/matches/missions")
    assert r.status_code == 200
    listed = {m["id"]: m for m in r.json()}
    assert list(listed) == ["only-war", *NARRATIVE]
    assert listed["sabotage"]["name"] == {"en": "Sabotage", "fr": "Sabotage"}
    assert listed["rescue"]["name"] == {"en": "Rescue", "fr": "Sauvetage"}
    assert listed["meat-grinder"]["rounds"] == 5  # then the random game length
    for mission in NARRATIVE:
        sizes = [(s["id"], s["points"]) for s in listed[mission]["battle_sizes"]]
        assert sizes == [("incursion", 1000), ("strike_force", 2000), ("onslaught", 3000)]


def test_a_club_pack_file_is_listed_and_played_without_code(
    packs: Path, user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    (packs / "club.json").write_text(json.dumps(club_pack()), encoding="utf-8")
    r = user_client("Carol").get("/api/v1/matches/missions")
    listed = {m["id"]: m for m in r.json()}
    assert listed["last-bridge"]["name"] == {"en": "Last Bridge", "fr": "Dernier pont"}
    assert "patrol" in listed  # the shipped pack is still there

    g = new_narrative_game(user_client, armies, db, "last-bridge")
    # Patrol's ratio (725 v 605 points is under it): a roll-off, A wins it
    view = g.a.send({"type": "roll_off"}, dice=[6, 1])["view"]
    assert view["narrative"]["mission"] == "last-bridge"
    assert view["narrative"]["attacker"] == "A"
    assert view["narrative"]["step"] == "declare_formations"


def test_a_malformed_pack_is_left_out_of_the_listing_with_a_clear_message(
    packs: Path,
    user_client: Callable[[str], TestClient],
    caplog: pytest.LogCaptureFixture,
) -> None:
    bad = club_pack("broken", "broken-bridge")
    bad["missions"][0]["evaluator"] = "most_kills"
    (packs / "broken.json").write_text(json.dumps(bad), encoding="utf-8")
    (packs / "notjson.json").write_text("{ nope", encoding="utf-8")
    (packs / "clash.json").write_text(json.dumps(club_pack("clash", "only-war")))
    with caplog.at_level(logging.ERROR, logger="app.matches.systems.wh40k10e"):
        r = user_client("Dave").get("/api/v1/matches/missions")
    assert r.status_code == 200
    assert [m["id"] for m in r.json()] == ["only-war", *NARRATIVE]
    messages = [rec.getMessage() for rec in caplog.records]
    assert any(
        m.startswith("mission pack broken.json refused: missions[0].evaluator") for m in messages
    ), messages
    assert any("notjson.json refused: (root): not JSON" in m for m in messages), messages
    assert any(
        "clash.json refused: missions[0].id: the mission id 'only-war' is already used" in m
        for m in messages
    ), messages


def test_battle_forged_and_starting_cp_are_options_of_the_match(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(
        user_client, armies, db, "meat-grinder", {"starting_cp": 4, "battle_forged": False}
    )
    g.a.send({"type": "roll_off"}, dice=[])
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    assert g.b.view()["players"]["B"]["cp"] == 4
    refused = g.b.send(
        {"type": "use_mission_stratagem", "stratagem": "decoys"}, status=422
    )  # not Battle-forged: no mission stratagem
    assert "Battle-forged" in json.dumps(refused)
    r = user_client("Eve").post(
        "/api/v1/matches",
        json={"army_id": armies.ready(g.a.client, marines()), "options": {"battle_forged": 3}},
    )
    assert r.status_code == 422, r.text


# -- Sabotage played to its victory evaluation ----------------------------------------------------


def to_phase(g: Game, seat: str, phase: str) -> None:
    """``seat``'s turn moved on (windows passed) until ``phase`` starts."""
    while (view := g.a.view())["phase"] != phase or view["reaction_window"]:
        assert view["active"] == seat, (view["active"], view["phase"])
        step(g, view)


def test_sabotage_played_through_the_api_to_its_victory_evaluation(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "sabotage", {"starting_cp": 3})
    g.a.send({"type": "roll_off"}, dice=[])  # 725 v 605 points: A attacks
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    # the sentries: at most 10 models and 199 points; the rest waits for the alarm
    g.b.send({"type": "deploy_forces", "units": ["b3", "b4"], "reserves": []}, status=422)
    g.b.send({"type": "deploy_forces", "units": ["b2"], "reserves": ["b1", "b3", "b4", "b5", "b6"]})
    # a6, the empty Rhino, is held back (an empty Dedicated Transport is not deployed)
    g.a.send({"type": "deploy_forces", "units": ["a1", "a2", "a3", "a4", "a5", "a7"]})
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # the Attacker goes first
    assert (view["stage"], view["active"], view["round"]) == ("battle", "A", 1)

    finish_turn(g)  # A's round 1
    to_phase(g, "B", "movement")
    g.b.send({"type": "reserve_roll", "unit": "b3"}, dice=[6], status=409)  # before the alarm
    finish_turn(g)
    # round 2: the Attacker is detected in its Movement phase: the alarm ends its turn now
    to_phase(g, "A", "movement")
    view = g.a.send({"type": "raise_alarm", "cause": "detected"})["view"]
    assert view["narrative"]["alarm"]["state"] == "raised"
    assert (view["active"], view["round"]) == ("B", 2)  # truncated
    to_phase(g, "B", "movement")
    view = g.b.send({"type": "reserve_roll", "unit": "b3"}, dice=[3])["view"]  # 3+: arrives
    assert next(u for u in view["units"] if u["id"] == "b3")["location"] == "battlefield"
    finish_turn(g)
    for rnd in (3, 4, 5):
        to_phase(g, "A", "fight")
        if rnd == 3:
            g.a.send({"type": "attempt_sabotage", "unit": "a2"})
            g.a.send({"type": "attempt_sabotage", "unit": "a2"}, status=422)  # once a battle
        if rnd == 4:
            g.a.send({"type": "attempt_sabotage", "unit": "a7"})
        finish_turn(g)
        if rnd < 5:
            finish_turn(g)
    # round 5, the Defender's Fight phase: the turn ends, the first player rolls 1 for the
    # game length (the battle ends), then the D6 of the sabotage: 5
    to_phase(g, "B", "fight")
    g.b.send({"type": "end_phase"}, dice=[1, 5])
    for seat in g.a.view()["pending"]["coherency"]:
        player(g, seat).send({"type": "confirm_coherency", "removals": []})
    view = g.b.view()
    assert view["stage"] == "ended", view["stage"]
    assert view["result"]["winner"] == "A"
    log = g.b.client.get(g.b.base + "/log").json()["entries"]
    evaluated = [e["event"] for e in log if e["event"]["type"] == "narrative_evaluated"]
    assert [e["result"] for e in evaluated] == ["major_victory"]
    assert g.a.checked > 20  # every accepted command replayed from the stored rows

    # export -> import: the same battle
    exported = g.a.client.get(g.a.base + "/export")
    assert exported.status_code == 200, exported.text
    r = g.a.client.post("/api/v1/matches/import", json=exported.json())
    assert r.status_code == 201, r.text
    imported = Player(g.a.client, r.json()["id"], "A")
    mine = g.a.view()
    theirs = imported.view()
    for v in (mine, theirs):
        v.pop("version")
    assert theirs == mine
    assert imported.get()["mission"] == "sabotage"
    # the export's snapshots (with the 10e options, battle_forged among them) were taken whole:
    # the imported match keeps the weapons the odds of an attack need
    from app.matches.models import Match

    row = db.get(Match, imported.match_id)
    assert row is not None
    assert row.army_a is not None
    assert any(u["weapons"] for u in row.army_a["units"])


# -- Meat Grinder: the hidden deployment leaks nowhere before its reveal --------------------------


def b_fetches(g: Game) -> dict[str, str]:
    """Every JSON response seat B can get about the match."""
    api, base = g.b.client, g.b.base
    version = g.b.get()["version"]
    out: dict[str, str] = {}
    for name, path in (
        ("match", base),
        ("list", "/api/v1/matches"),
        ("actions", base + "/actions"),
        ("log", base + "/log"),
        ("log since", base + "/log?since=3"),
        ("audit", base + "/audit"),
        ("export", base + "/export"),
        ("events", base + "/events?timeout=0"),
    ):
        r = api.get(path)
        assert r.status_code < 500, (name, r.text)
        out[name] = r.text
    refused = [
        ("stale", version - 1, {"type": "use_mission_stratagem", "stratagem": "spies"}),
        ("decoys", version, {"type": "use_mission_stratagem", "stratagem": "decoys"}),
        ("tokens", version, {"type": "place_tokens", "tokens": {"t1": "a3", "t3": "a5"}}),
        ("search", version, {"type": "search_hiding_place", "unit": "a3", "place": "1"}),
    ]
    for name, at, command in refused:
        r = api.post(base + "/commands", json={"expected_version": at, "command": command})
        assert r.status_code in (409, 422), r.text
        out[f"refused {name}"] = r.text
    return out


SECRET = {"t1": "a3", "t2": None, "t3": "a5"}
LEAKS = [
    re.compile(r'"t1"\s*:\s*"a3"'),
    re.compile(r'"t3"\s*:\s*"a5"'),
    re.compile(r'"t2"\s*:\s*null'),
    re.compile(r"my_tokens"),
    re.compile(r"narrative_tokens_placed"),
    re.compile(r'"unit"\s*:\s*"a[35]"'),
    re.compile(r'"revealed"\s*:\s*true'),
]


def leaks(responses: dict[str, str]) -> list[tuple[str, str]]:
    return [(n, p.pattern) for n, text in responses.items() for p in LEAKS if p.search(text)]


def test_meat_grinder_hidden_deployment_is_in_nothing_b_fetches_before_the_reveal(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    # B's orks (605 points) against A's marines (725): A attacks, so B must be the one
    # deploying hidden: give B the larger army by making A's the orks
    alice, bob = user_client("Alice"), user_client("Bob")
    r = alice.post(
        "/api/v1/matches",
        json={
            "army_id": armies.ready(alice, orks()),
            "mission": "meat-grinder",
            "options": {"starting_cp": 2},
        },
    )
    created = r.json()
    bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, marines())},
    )
    g = Game(Player(alice, created["id"], "A", db), Player(bob, created["id"], "B", db), 0)
    g.a.send({"type": "roll_off"}, dice=[])  # B attacks (725 v 605): A, the Defender, hides
    assert g.a.view()["narrative"]["attacker"] == "B"
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    g.a.send({"type": "use_mission_stratagem", "stratagem": "decoys"})
    before = b_fetches(g)
    g.a.send(
        {
            "type": "place_tokens",
            "tokens": SECRET | {"t4": "a1", "t5": "a2", "t6": "a4", "t7": "a6"},
        }
    )
    assert g.a.view()["narrative"]["my_tokens"]["t1"] == "a3"  # A sees its own mapping
    after = b_fetches(g)
    assert leaks(before) == []
    assert leaks(after) == []
    # B's view moved by public facts only: seven tokens laid, none revealed
    tokens = g.b.view()["narrative"]["tokens"]
    assert [t["token"] for t in tokens] == [f"t{i}" for i in range(1, 8)]
    assert all(not t["revealed"] and t.get("unit") is None for t in tokens)

    # the reveal: B deploys, every token turns over, and the same scan now finds them
    g.b.send({"type": "deploy_forces", "units": ["b1", "b2", "b3", "b4", "b5", "b7"]})
    found = leaks(b_fetches(g))
    assert ("match", r'"unit"\s*:\s*"a[35]"') in found
    assert ("match", r'"revealed"\s*:\s*true') in found


# -- Ambush: the dawn raid in the odds of an attack ------------------------------------------------


def test_ambush_dawn_raid_takes_one_from_hit_rolls_in_the_first_rounds_shooting(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "ambush")
    g.a.send({"type": "roll_off"}, dice=[])  # 725 v 605 points: A attacks
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    hidden = ["a1", "a2", "a3", "a4", "a5", "a7"]  # a6, the empty Rhino, is held back
    g.a.send({"type": "place_tokens", "tokens": {f"t{i}": u for i, u in enumerate(hidden, 1)}})
    g.b.send({"type": "deploy_forces", "units": [f"b{i}" for i in range(1, 7)]})
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # the Attacker goes first
    assert (view["stage"], view["active"]) == ("battle", "A")
    finish_turn(g)

    def situation() -> dict[str, Any]:
        r = g.b.client.post(
            g.b.base + "/combat/preview",
            json={
                "attacker": "b2",
                "target": "a2",
                "weapons": [{"weapon": "Slugga", "models": 10}],
            },
        )
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()["request"]["situation"]
        return result

    to_phase(g, "B", "shooting")
    assert situation().get("hit_modifier") == -1  # round 1: the dawn raid
    finish_turn(g)
    finish_turn(g)
    to_phase(g, "B", "shooting")
    assert "hit_modifier" not in situation()  # round 2: daylight


# -- the packs directory setting (W40K_MISSION_PACKS_DIR), read at start-up ----------------------


@pytest.fixture
def configured() -> Iterator[None]:
    """The start-up configuration of the packs directory is reset after the test."""
    yield
    wh40k10e.load_packs_at_start(None)


def test_the_packs_directory_setting_is_read_at_start_up_and_a_bad_pack_never_stops_the_app(
    configured: None,
    app_settings: Any,
    engine: Any,
    connection: Any,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from app.main import create_app
    from tests.conftest import _TestDatabase

    (tmp_path / "club.json").write_text(json.dumps(club_pack()), encoding="utf-8")
    bad = club_pack("broken", "broken-bridge")
    bad["missions"][0]["attacker_selection"] = "strongest"
    (tmp_path / "broken.json").write_text(json.dumps(bad), encoding="utf-8")
    settings = app_settings.model_copy(update={"mission_packs_dir": tmp_path})
    app = create_app(settings, database=_TestDatabase(engine, connection))
    with (
        caplog.at_level(logging.ERROR, logger="app.matches.systems.wh40k10e"),
        TestClient(app) as client,
    ):
        started = [rec.getMessage() for rec in caplog.records]  # before any request
        r = client.get("/api/v1/matches/missions", params={"ruleset": "wh40k-10e"})
    assert any(
        m.startswith("mission pack broken.json refused: missions[0].attacker_selection")
        for m in started
    ), started
    assert r.status_code == 200
    assert [m["id"] for m in r.json()] == ["only-war", *NARRATIVE, "last-bridge"]


def test_a_missing_packs_directory_is_logged_and_the_shipped_missions_stay(
    configured: None, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="app.matches.systems.wh40k10e"):
        found = wh40k10e.load_packs_at_start(tmp_path / "nowhere")
    assert list(found) == ["only-war", *NARRATIVE]
    assert any(
        "nowhere refused: (root): W40K_MISSION_PACKS_DIR is not a readable directory"
        in rec.getMessage()
        for rec in caplog.records
    )


# -- packs uploaded by a user ---------------------------------------------------------------------

PACKS = "/api/v1/matches/mission-packs"


def upload(client: TestClient, pack: object) -> Any:
    body = pack if isinstance(pack, str | bytes) else json.dumps(pack)
    return client.post(PACKS, content=body, headers={"Content-Type": "application/json"})


def test_an_uploaded_pack_is_played_by_its_uploader_and_joined_by_the_opponent(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    r = upload(alice, club_pack("alices", "night-bridge"))
    assert r.status_code == 201, r.text
    assert r.json()["pack_id"] == "alices"
    assert r.json()["missions"] == [
        {"id": "night-bridge", "name": {"en": "Last Bridge", "fr": "Dernier pont"}}
    ]
    assert [p["pack_id"] for p in alice.get(f"{PACKS}/mine").json()] == ["alices"]
    assert bob.get(f"{PACKS}/mine").json() == []  # a pack is its uploader's
    # not listed for everyone: the shared listing keeps the shipped and directory packs
    listed = [m["id"] for m in bob.get("/api/v1/matches/missions").json()]
    assert "night-bridge" not in listed

    r = alice.post(
        "/api/v1/matches",
        json={"army_id": armies.ready(alice, marines()), "mission": "night-bridge"},
    )
    assert r.status_code == 201, r.text
    created = r.json()
    assert created["mission"] == "night-bridge"
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, orks())},
    )
    assert r.status_code == 200, r.text
    a = Player(alice, created["id"], "A", db)
    view = a.send({"type": "roll_off"}, dice=[6, 1])["view"]
    assert view["narrative"]["mission"] == "night-bridge"
    assert view["narrative"]["step"] == "declare_formations"

    # Bob cannot create a match with Alice's scenario
    r = bob.post(
        "/api/v1/matches",
        json={"army_id": armies.ready(bob, orks()), "mission": "night-bridge"},
    )
    assert r.status_code == 422
    assert r.json()["type"].endswith("/unknown-mission")


def test_the_same_pack_uploaded_twice_at_once_replaces_the_row_the_other_made(
    user_client: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two uploads of one pack id at the same moment: the second insert breaks the unique
    constraint (on Postgres it waits for the first to commit); it is rolled back to its
    savepoint and replaces the row instead of answering 500. Staged by hiding the existing
    row from the first read, as a concurrent upload would not have seen it yet."""
    from app.matches import packs

    alice = user_client("Alice")
    assert upload(alice, club_pack("alices", "night-bridge")).status_code == 201
    real_rows = packs._rows
    calls = {"n": 0}

    def first_blind(db: Session, owner_id: int) -> list[Any]:
        calls["n"] += 1
        return [] if calls["n"] == 1 else real_rows(db, owner_id)

    monkeypatch.setattr(packs, "_rows", first_blind)
    r = upload(alice, club_pack("alices", "dawn-bridge"))
    assert r.status_code == 200, r.text
    assert calls["n"] == 2
    monkeypatch.setattr(packs, "_rows", real_rows)
    mine = alice.get(f"{PACKS}/mine").json()
    assert [(p["pack_id"], [m["id"] for m in p["missions"]]) for p in mine] == [
        ("alices", ["dawn-bridge"])
    ]


def test_an_uploaded_pack_is_replaced_by_its_id_and_deleted(
    user_client: Callable[[str], TestClient],
) -> None:
    alice = user_client("Alice")
    assert upload(alice, club_pack("alices", "night-bridge")).status_code == 201
    r = upload(alice, club_pack("alices", "dawn-bridge"))
    assert r.status_code == 200, r.text
    assert [m["id"] for m in r.json()["missions"]] == ["dawn-bridge"]
    assert len(alice.get(f"{PACKS}/mine").json()) == 1
    assert alice.delete(f"{PACKS}/mine/alices").status_code == 204
    assert alice.get(f"{PACKS}/mine").json() == []
    r = alice.delete(f"{PACKS}/mine/alices")
    assert r.status_code == 404
    assert r.headers["content-type"].startswith("application/problem+json")


def refusal(r: Any) -> dict[str, str]:
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body = r.json()
    assert body["type"].endswith("/mission-pack-refused"), body
    return {e["field"]: e["message"] for e in body["errors"]}


def test_a_malformed_upload_is_refused_naming_every_problem_and_its_field(
    user_client: Callable[[str], TestClient],
) -> None:
    alice = user_client("Alice")
    bad = club_pack("alices", "night-bridge")
    bad["name"] = {"en": "Only English"}
    bad["missions"][0]["reserves"]["attacker"]["arrive_on"] = 9
    errors = refusal(upload(alice, bad))
    assert errors == {
        "name.fr": "a name is needed in English and French",
        "missions[0].reserves.attacker.arrive_on": "a D6 threshold from 1 to 7 (7: never)",
    }
    assert "not JSON" in refusal(upload(alice, "{ nope"))["(root)"]
    assert refusal(upload(alice, [1, 2]))["(root)"] == "a pack is a JSON object"
    assert "format" in refusal(upload(alice, {"format": "something-else"}))
    big = club_pack("alices", "night-bridge") | {"padding": "x" * (512 * 1024)}
    assert refusal(upload(alice, big))["(root)"] == "a pack is at most 512 KiB"
    # a scenario id already listed, or in another of the user's packs
    errors = refusal(upload(alice, club_pack("alices", "patrol")))
    assert errors == {"missions[0].id": "the mission id 'patrol' is already used"}
    assert upload(alice, club_pack("first", "night-bridge")).status_code == 201
    errors = refusal(upload(alice, club_pack("second", "night-bridge")))
    assert errors == {
        "missions[0].id": "the mission id 'night-bridge' is used by your pack 'first'"
    }
    assert [p["pack_id"] for p in alice.get(f"{PACKS}/mine").json()] == ["first"]


def test_uploading_needs_an_account(client: TestClient) -> None:
    r = upload(client, club_pack("alices", "night-bridge"))
    assert r.status_code == 401
    assert client.get(f"{PACKS}/mine").status_code == 401


# -- starting CP: a narrative mission's set-up stratagems can be paid -----------------------------


def test_a_narrative_mission_starts_with_its_packs_cp_unless_the_players_set_them(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "meat-grinder")
    g.a.send({"type": "roll_off"}, dice=[])  # A attacks (725 v 605): B, the Defender, hides
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    players = g.b.view()["players"]
    assert (players["A"]["cp"], players["B"]["cp"]) == (3, 3)  # the pack's starting CP
    view = g.b.send({"type": "use_mission_stratagem", "stratagem": "decoys"})["view"]
    assert view["players"]["B"]["cp"] == 2  # Decoys (1 CP) paid before the battle

    # 0 said by the players is kept: then no set-up stratagem can be paid
    g = new_narrative_game(
        user_client, armies, db, "meat-grinder", {"starting_cp": 0}, ("Carol", "Dave")
    )
    g.a.send({"type": "roll_off"}, dice=[])
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    assert g.b.view()["players"]["B"]["cp"] == 0
    refused = g.b.send({"type": "use_mission_stratagem", "stratagem": "decoys"}, status=409)
    assert "CP" in json.dumps(refused)

    # Only War keeps the 10th edition's 0
    alice, bob = user_client("Olga"), user_client("Pete")
    r = alice.post("/api/v1/matches", json={"army_id": armies.ready(alice, marines())})
    created = r.json()
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, orks())},
    )
    assert r.status_code == 200, r.text
    view = Player(alice, created["id"], "A", db).view()
    assert (view["players"]["A"]["cp"], view["players"]["B"]["cp"]) == (0, 0)


# -- Ambush: Lightning Reaction is offered at the first-turn roll-off, not before ----------------


def offered(p: Player) -> list[str]:
    """The mission stratagems ``p``'s seat is offered now."""
    return [
        a["command"]["stratagem"]
        for a in p.actions()
        if a["command"]["type"] == "use_mission_stratagem"
    ]


def test_lightning_reaction_is_offered_at_the_first_turn_roll_off_after_deployment(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "ambush")
    g.a.send({"type": "roll_off"}, dice=[])  # 725 v 605 points: A attacks, B defends
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    lightning = {"type": "use_mission_stratagem", "stratagem": "lightning-reaction"}
    # the hidden deployment (reversed: the Attacker's tokens): too early for it [L247]
    assert g.b.view()["narrative"]["step"] == "hidden_deployment"
    assert "lightning-reaction" not in offered(g.b)
    refused = g.b.send(lightning, status=409)
    assert "before the first turn" in json.dumps(refused)
    hidden = ["a1", "a2", "a3", "a4", "a5", "a7"]
    g.a.send({"type": "place_tokens", "tokens": {f"t{i}": u for i, u in enumerate(hidden, 1)}})
    assert "lightning-reaction" not in offered(g.b)  # B still to deploy
    g.b.send({"type": "deploy_forces", "units": [f"b{i}" for i in range(1, 7)]})
    # both sides deployed, the first turn not decided: offered to the Defender only
    view = g.b.view()
    assert (view["stage"], view["narrative"]["step"]) == ("roll_off", "first_turn")
    assert "lightning-reaction" in offered(g.b)
    assert "lightning-reaction" not in offered(g.a)
    g.b.send(lightning)
    assert "lightning-reaction" not in offered(g.b)  # once per battle
    view = g.a.send({"type": "roll_off"}, dice=[6])["view"]  # the Defender's 6: B first
    assert (view["stage"], view["active"], view["round"]) == ("battle", "B", 1)
    assert view["narrative"]["stratagems_used"] == [
        {"seat": "B", "stratagem": "lightning-reaction", "cp": 1, "round": 0}
    ]
    log = g.b.client.get(g.b.base + "/log").json()["entries"]
    first = [e["event"] for e in log if e["event"]["type"] == "narrative_first_turn"]
    assert [(e["first"], e["reason"]) for e in first] == [("B", "attacker (stolen)")]
    g.b.send(lightning, status=422)  # once per battle


# -- Blitz: an empty Dedicated Transport held back is no destruction of the scenario -------------


def test_an_empty_dedicated_transport_held_back_is_no_destruction_and_never_returns(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "blitz")
    g.a.send({"type": "roll_off"}, dice=[])  # 725 v 605 points: A attacks
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    (tokens,) = [a["command"] for a in g.b.actions() if a["command"]["type"] == "place_tokens"]
    g.b.send(tokens)
    # a6, the empty Rhino, is held back: not among the units A sets up
    g.a.send({"type": "deploy_forces", "units": ["a1", "a2", "a3", "a4", "a5", "a7"]})
    g.b.send({"type": "go_to_ground", "units": []})
    bombarded = len(tokens["tokens"])
    g.a.send({"type": "bombard"}, dice=[1] * bombarded)  # every Defender unit missed
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # Blitz: the Attacker first
    assert (view["stage"], view["active"], view["round"]) == ("battle", "A", 1)
    rhino = next(u for u in view["units"] if u["id"] == "a6")
    assert rhino["location"] == "held_back"
    # round 1 has started: the Rhino counts as destroyed for the core rules, but the scenario
    # records no destruction (Contested Approach) and nothing to bring back
    assert view["narrative"]["destroyed_attacker_units"] == []
    assert view["narrative"]["destructions"] == 0
    finish_turn(g)
    finish_turn(g)
    to_phase(g, "A", "movement")
    refused = g.a.send({"type": "assault_return"}, dice=[6], status=422)
    assert "no destroyed unit" in json.dumps(refused)
    assert all(
        a["command"]["type"] != "assault_return" for a in g.a.actions()
    )  # not offered either
    # the battle to its evaluation: the Defender scores no Contested Approach for the Rhino
    while (view := g.a.view())["stage"] == "battle":
        last = view["round"] == 5 and view["active"] == "B"
        if last and view["phase"] == "fight" and not view["pending"]["coherency"]:
            g.b.send({"type": "end_phase"}, dice=[1])  # game length: 1, the battle ends
            continue
        step(g, view)
    for seat in g.a.view()["pending"]["coherency"]:
        player(g, seat).send({"type": "confirm_coherency", "removals": []})
    log = g.b.client.get(g.b.base + "/log").json()["entries"]
    (evaluated,) = [e["event"] for e in log if e["event"]["type"] == "narrative_evaluated"]
    assert evaluated["vp"] == [0, 0]
    assert (evaluated["result"], evaluated["winner"]) == ("draw", None)


# -- combat zones: an option of the match, recorded at creation -----------------------------------


def test_a_combat_zone_is_an_option_recorded_at_creation_and_an_unknown_one_is_refused(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    eve = user_client("Eve")
    r = eve.post(
        "/api/v1/matches",
        json={
            "army_id": armies.ready(eve, marines()),
            "mission": "ambush",
            "options": {"combat_zone": "sunny-meadow"},
        },
    )
    assert r.status_code == 422, r.text
    assert any(e["field"] == "options.combat_zone" for e in r.json()["errors"])
    assert "night-fight" in r.text  # the message names the zones there are
    g = new_narrative_game(user_client, armies, db, "ambush", {"combat_zone": "fire-and-fury"})
    assert g.a.view()["combat_zone"] == {"id": "fire-and-fury", "mysterious_objectives": {}}
    log = g.a.client.get(g.a.base + "/log").json()["entries"]
    created = log[0]["event"]
    assert created["type"] == "match_created"
    assert created["setup"]["options"]["combat_zone"] == "fire-and-fury"
    # the zone's numbers travel with the match (a later edit of the pack changes nothing)
    zone = created["setup"]["mission"]["options"]["combat_zone"]
    assert (zone["id"], zone["params"]["debris_dice"]) == ("fire-and-fury", 3)
    plain = new_narrative_game(user_client, armies, db, "ambush", names=("Carol", "Dan"))
    assert "combat_zone" not in plain.a.view()


def test_an_imported_log_must_carry_the_numbers_of_its_shipped_combat_zone(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    """The battle and the page read the recorded zone at every objective, attack and render:
    an import whose zone is not the shipped one, number for number, is a 422 (it used to be
    accepted, then its page answered 500)."""
    g = new_narrative_game(user_client, armies, db, "only-war", {"combat_zone": "night-fight"})
    exported = g.a.client.get(g.a.base + "/export").json()
    ok = g.a.client.post("/api/v1/matches/import", json=exported)
    assert ok.status_code == 201, ok.text
    assert g.a.client.get(f"/matches/{ok.json()['id']}").status_code == 200
    setup = exported["events"][0]["event"]["setup"]
    for tamper in (
        lambda: setup["mission"]["options"].__setitem__("combat_zone", {"id": "night-fight"}),
        lambda: setup["mission"]["options"]["combat_zone"]["tables"].clear(),
        lambda: setup["options"].__setitem__("combat_zone", "fire-and-fury"),
        lambda: setup["options"].__setitem__("combat_zone", None),
    ):
        saved = json.loads(json.dumps(setup))
        tamper()
        r = g.a.client.post("/api/v1/matches/import", json=exported)
        assert r.status_code == 422, r.text
        assert "combat zone" in r.json()["detail"]
        setup.clear()
        setup.update(saved)


def test_night_fight_in_only_war_reduced_visibility_and_mysterious_objectives(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "only-war", {"combat_zone": "night-fight"})
    setup_battle(g, first="B")
    # B's Command phase: B's Boyz hold marker 1; control is settled as the phase ends, and the
    # marker B controls for the first time is identified: the D6 given by hand, a 4
    g.b.send({"type": "report_objective", "marker": "1", "units": [{"unit": "b2"}]})
    view = g.b.send({"type": "end_phase"}, dice=[4])["view"]
    assert view["combat_zone"]["mysterious_objectives"] == {"1": "targeting-relay"}
    log = g.b.client.get(g.b.base + "/log").json()["entries"]
    (found,) = [e["event"] for e in log if e["event"]["type"] == "zone_objective_identified"]
    assert (found["marker"], found["seat"], found["result"]) == ("1", "B", "targeting-relay")
    assert [d["value"] for d in found["roll"]["dice"]] == [4]
    assert "seed" in found["roll"]

    def situation(distance: object = None) -> Any:
        body: dict[str, Any] = {
            "attacker": "b2",
            "target": "a2",
            "weapons": [{"weapon": "Slugga", "models": 10}],
        }
        if distance is not None:
            body["situation"] = {"night_fight_distance": distance}
        return g.b.client.post(g.b.base + "/combat/preview", json=body)

    to_phase(g, "B", "shooting")
    r = situation()  # the match sees no table: the player says how far the target is
    assert r.status_code == 422, r.text
    assert "night_fight_distance" in r.text
    assert situation(121).status_code == 422
    seen = {}
    for distance in (12, 13, 24, 30, 36, 40):
        r = situation(distance)
        assert r.status_code == 200, r.text
        seen[distance] = r.json()["request"]["situation"].get("hit_modifier", 0)
    # a boundary takes the lower penalty [L577]
    assert seen == {12: 0, 13: -1, 24: -1, 30: -2, 36: -2, 40: -3}
    # B holds marker 1, a Targeting relay: near it, its shooters re-roll hit rolls of 1 [L611]
    body = {
        "attacker": "b2",
        "target": "a2",
        "weapons": [{"weapon": "Slugga", "models": 10}],
        "situation": {"night_fight_distance": 10, "targeting_relay": "1"},
    }
    r = g.b.client.post(g.b.base + "/combat/preview", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["request"]["situation"]["reroll_hits"] == "ones"
    body["situation"] = {"night_fight_distance": 10, "targeting_relay": "2"}
    r = g.b.client.post(g.b.base + "/combat/preview", json=body)
    assert r.status_code == 422, r.text
    assert "not an identified Targeting relay" in r.text
    finish_turn(g)
    # A's turn: marker 1 is identified already; A now holding marker 2 identifies that one
    g.a.send({"type": "report_objective", "marker": "2", "units": [{"unit": "a2"}]})
    before = next(u for u in g.a.view()["units"] if u["id"] == "a2")["wounds"]
    # a 1: Sabotaged! The unit that identified it (the one A reported there) suffers D3
    # mortal wounds, the D3 given by hand: 2 [L605] (rulings 73)
    view = g.a.send({"type": "end_phase"}, dice=[1, 2])["view"]
    assert view["combat_zone"]["mysterious_objectives"] == {
        "1": "targeting-relay",
        "2": "sabotaged",
    }
    after = next(u for u in view["units"] if u["id"] == "a2")["wounds"]
    assert sum(before) - sum(after) == 2
    log = g.a.client.get(g.a.base + "/log").json()["entries"]
    (hurt,) = [e["event"] for e in log if e["event"]["type"] == "mortal_wounds_inflicted"]
    assert (hurt["source"], hurt["target"], hurt["mortal_wounds"]) == (
        "mysterious_objective",
        "a2",
        2,
    )


def test_night_fight_distance_is_refused_in_a_match_without_night_fight(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "only-war", {"combat_zone": "fire-and-fury"})
    setup_battle(g, first="B")
    to_phase(g, "B", "shooting")
    r = g.b.client.post(
        g.b.base + "/combat/preview",
        json={
            "attacker": "b2",
            "target": "a2",
            "weapons": [{"weapon": "Slugga", "models": 10}],
            "situation": {"night_fight_distance": 20},
        },
    )
    assert r.status_code == 422, r.text
    assert "not fought in Night Fight" in r.text


def test_night_fight_fog_of_war_delays_a_mission_reserve_once_to_its_next_turn(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "ambush", {"combat_zone": "night-fight"})
    g.a.send({"type": "roll_off"}, dice=[])  # 725 v 605 points: A attacks (hides, reversed)
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    (hint,) = [a["command"] for a in g.a.actions() if a["command"]["type"] == "place_tokens"]
    tokens = {t: u for t, u in hint["tokens"].items() if u != "a7"}
    g.a.send({"type": "place_tokens", "tokens": tokens, "reserves": ["a7"]})
    g.b.send({"type": "deploy_forces", "units": [f"b{i}" for i in range(1, 7)]})
    g.a.send({"type": "roll_off"}, dice=[])  # the Attacker first
    finish_turn(g)
    finish_turn(g)
    # round 2, A's 2nd Movement phase: the reserve roll 4 (3+: it would arrive), then the
    # fog of war's D6, 2: delayed to A's next turn
    to_phase(g, "A", "movement")
    view = g.a.send({"type": "reserve_roll", "unit": "a7"}, dice=[4, 2])["view"]
    assert next(u for u in view["units"] if u["id"] == "a7")["location"] == "reserves"
    assert view["narrative"]["reserves"] == ["a7"]
    log = g.a.client.get(g.a.base + "/log").json()["entries"]
    (rolled,) = [e["event"] for e in log if e["event"]["type"] == "narrative_reserve_rolled"]
    assert (rolled["arrives"], rolled["reason"]) == (False, "fog_of_war")
    assert [d["value"] for d in rolled["roll"]["dice"]] == [4, 2]
    g.a.send({"type": "reserve_roll", "unit": "a7"}, dice=[6], status=422)  # once a phase
    finish_turn(g)
    finish_turn(g)
    # round 3: it arrives, no die (the fog is rolled the first time only)
    to_phase(g, "A", "movement")
    view = g.a.send({"type": "reserve_roll", "unit": "a7"}, dice=[])["view"]
    assert next(u for u in view["units"] if u["id"] == "a7")["location"] == "battlefield"
    assert view["narrative"]["reserves"] == []


# -- Issue 15: the Ambush stratagems at their seed timings --------------------------------------


def test_ambush_night_raider_after_deployment_and_iron_discipline_only_after_a_bombardment(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "ambush", {"starting_cp": 6})
    g.a.send({"type": "roll_off"}, dice=[])  # 725 v 605 points: A attacks, B defends
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    raider = {"type": "use_mission_stratagem", "stratagem": "night-raider", "cp": 2}
    iron = {"type": "use_mission_stratagem", "stratagem": "iron-discipline"}
    # the hidden deployment is not yet "after deployment" [L233]
    assert g.a.view()["narrative"]["step"] == "hidden_deployment"
    assert "night-raider" not in offered(g.a)
    refused = g.a.send(raider, status=409)
    assert "after both sides have deployed" in json.dumps(refused)
    hidden = ["a1", "a2", "a3", "a4", "a5", "a7"]
    g.a.send({"type": "place_tokens", "tokens": {f"t{i}": u for i, u in enumerate(hidden, 1)}})
    assert "night-raider" not in offered(g.a)  # B still to deploy
    g.a.send(raider, status=409)
    g.b.send({"type": "deploy_forces", "units": [f"b{i}" for i in range(1, 7)]})
    # both sides deployed: Night Raider is offered; no bombardment yet, so no Iron Discipline
    assert "night-raider" in offered(g.a)
    assert "iron-discipline" not in offered(g.b)
    refused = g.b.send(iron, status=409)
    assert "after a Preliminary Bombardment" in json.dumps(refused)
    view = g.a.send(raider)["view"]
    assert view["narrative"]["stratagems_used"][-1] == {
        "seat": "A",
        "stratagem": "night-raider",
        "cp": 2,
        "round": 0,
    }
    assert "night-raider" not in offered(g.a)  # once per battle
    # the Defender goes to ground before the Attacker buys the bombardment [L64, L241]
    g.b.send({"type": "go_to_ground", "units": ["b3"]})
    g.b.send(raider, status=409)  # the Attacker's stratagem
    assert "iron-discipline" not in offered(g.b)
    bombardment = {"type": "use_mission_stratagem", "stratagem": "preliminary-bombardment"}
    # b1..b6 each roll a die; the Kommandos (b3) are hit and, gone to ground, take D3 (2)
    view = g.a.send(bombardment, dice=[1, 1, 6, 2, 1, 1, 1])["view"]
    assert view["narrative"]["bombarded"] is True
    assert view["narrative"]["grounded"] == ["b3"]
    g.b.send({"type": "go_to_ground", "units": ["b4"]}, status=409)  # too late now
    # the trigger happened [L255]: offered to the Defender, and accepted
    assert "iron-discipline" in offered(g.b)
    assert "iron-discipline" not in offered(g.a)
    view = g.b.send(iron, dice=[3])["view"]  # a D6 for the Kommandos: 3, they act (2+)
    assert (view["narrative"]["grounded"], view["narrative"]["steady"]) == ([], ["b3"])
    assert view["narrative"]["stratagems_used"][-1] == {
        "seat": "B",
        "stratagem": "iron-discipline",
        "cp": 1,
        "round": 0,
    }
    assert (view["players"]["A"]["cp"], view["players"]["B"]["cp"]) == (1, 5)
    assert "iron-discipline" not in offered(g.b)  # once per battle
    view = g.a.send({"type": "roll_off"}, dice=[])["view"]  # Ambush: the Attacker first
    assert (view["stage"], view["active"], view["round"]) == ("battle", "A", 1)
    assert view["narrative"]["dawn_raid_rounds"] == 3  # 1 + 2 CP of Night Raider


def test_ambush_iron_discipline_needs_a_unit_gone_to_ground(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session
) -> None:
    g = new_narrative_game(user_client, armies, db, "ambush")
    g.a.send({"type": "roll_off"}, dice=[])  # A attacks, B defends; 3 CP each
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    hidden = ["a1", "a2", "a3", "a4", "a5", "a7"]
    g.a.send({"type": "place_tokens", "tokens": {f"t{i}": u for i, u in enumerate(hidden, 1)}})
    g.b.send({"type": "deploy_forces", "units": [f"b{i}" for i in range(1, 7)]})
    # before the Attacker buys the bombardment, the Defender may go to ground (ruling 40): the
    # page offers it, as the API accepts it
    assert "go_to_ground" in [a["command"]["type"] for a in g.b.actions()]
    bombardment = {"type": "use_mission_stratagem", "stratagem": "preliminary-bombardment"}
    g.a.send(bombardment, dice=[6, 3, 1, 1, 1, 1, 1])  # b1 hit for 3, nobody went to ground
    assert "iron-discipline" not in offered(g.b)
    refused = g.b.send(
        {"type": "use_mission_stratagem", "stratagem": "iron-discipline"}, status=409
    )
    assert "none of your units went to ground" in json.dumps(refused)


def test_a_stored_pack_is_checked_once_per_version(
    user_client: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing a user's packs again reads the checked pack kept for that version; a
    replacement (a new version of the row) is checked anew."""
    from app.matches import packs

    alice = user_client("Alice")
    assert upload(alice, club_pack("alices", "night-bridge")).status_code == 201
    calls = {"n": 0}
    real = packs.read_pack

    def counted(data: Any) -> Any:
        calls["n"] += 1
        return real(data)

    monkeypatch.setattr(packs, "read_pack", counted)
    first = alice.get(f"{PACKS}/mine").json()
    again = alice.get(f"{PACKS}/mine").json()
    assert first == again
    assert calls["n"] <= 1  # checked at most once (the upload may have left it checked)
    assert upload(alice, club_pack("alices", "dawn-bridge")).status_code == 200
    mine = alice.get(f"{PACKS}/mine").json()
    assert [m["id"] for m in mine[0]["missions"]] == ["dawn-bridge"]
