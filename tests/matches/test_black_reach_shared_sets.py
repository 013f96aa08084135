"""Black Reach matches on a content set shared by link, and the content-set match's name
(issue 16).

Whoever holds a share link plays one of the set's scenarios without copying it (the JSON API
and the shared page's form): the scenario is frozen and trimmed into seat A's snapshot as for
one's own set, so the owner's notes never reach the match (scanned in every answer and stored
row), an edit or a deletion of the shared set afterwards changes nothing, a revoked link is a
404. The match list, the join page and the match page name a content-set match by its frozen
scenario, never by its ``c-…`` id.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.blackreach.models import ContentSet
from app.engine.black_reach.battle.events import BattleCreated
from app.matches.models import Match, MatchEvent
from app.matches.present import mission_label
from tests.matches.test_black_reach_content import (
    CONTENT,
    MATCHES,
    create,
    join,
    missions,
    my_set,
    with_router,
)
from tests.matches.test_black_reach_match import live
from tests.support.web import html

__all__ = ["with_router"]  # the Black Reach match router mounted (autouse fixture)

NOTES = {
    "forces": "PRIVATE-forces-note-7f3a",
    "boards": "PRIVATE-boards-note-91c2",
    "board": "PRIVATE-board-note-44d0",
    "scenario": "PRIVATE-scenario-note-e6b8",
}
LABEL = "Content set Night raid: Raid on the relay"


def noted_set(client: TestClient) -> dict[str, Any]:
    """A copy of the sample (renamed scenario) with the owner's private notes everywhere a
    note may go: the forces, the boards file, each board and the scenario."""
    row = my_set(client)
    boards = dict(row["boards"]) | {"note": NOTES["boards"]}
    boards["boards"] = [dict(b) | {"note": NOTES["board"]} for b in boards["boards"]]
    r = client.put(
        f"{CONTENT}/{row['id']}",
        json={
            "version": row["version"],
            "forces": dict(row["forces"]) | {"note": NOTES["forces"]},
            "boards": boards,
            "scenarios": [dict(row["scenarios"][0]) | {"note": NOTES["scenario"]}],
        },
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def share(client: TestClient, set_id: int) -> str:
    r = client.put(f"{CONTENT}/{set_id}/share")
    assert r.status_code == 200, r.text
    return str(r.json()["token"])


def play_shared(client: TestClient, token: str, status: int = 201, **body: Any) -> Any:
    r = client.post(f"{CONTENT}/shared/{token}/matches", json=body)
    assert r.status_code == status, r.text
    return r.json()


def no_note(text: str) -> None:
    for note in NOTES.values():
        assert note not in text


def test_a_shared_set_is_played_without_a_copy_and_no_note_reaches_the_match(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    alice, bob, carol = user_client("Alice"), user_client("Bob"), user_client("Carol")
    row = noted_set(alice)
    token = share(alice, row["id"])
    created = play_shared(bob, token, scenario="sample-relay", side="orks")
    # the same content id as the owner's own mission (trimmed: no notes)
    assert created["mission"] == missions(alice)[0]["id"]
    assert created["players"]["A"]["army"] == "orks"
    assert bob.get(CONTENT).json() == [s for s in bob.get(CONTENT).json() if s.get("sample")]
    stored = db.scalar(select(Match).where(Match.id == created["id"]))
    assert stored is not None
    db.refresh(stored)
    frozen = stored.army_a["content"]
    assert frozen["set"] is None  # Alice's set id is not Bob's to know
    assert frozen["name"] == "Night raid"
    no_note(json.dumps(stored.army_a))
    # the owner edits, then deletes the set, and turns the link off: Bob's match keeps it
    scenario = dict(row["scenarios"][0]) | {"turns": 9}
    seen = alice.get(f"{CONTENT}/{row['id']}").json()["version"]  # sharing changed it
    r = alice.put(f"{CONTENT}/{row['id']}", json={"version": seen, "scenarios": [scenario]})
    assert r.status_code == 200, r.text
    assert alice.delete(f"{CONTENT}/{row['id']}").status_code == 204
    joined = join(carol, created)
    assert joined["view"]["scenario"]["turns"] == 4
    assert joined["players"]["B"]["army"] == "ultramarines"
    assert live(created["id"]).state.seats == {"A": "orks", "B": "ultramarines"}
    # nothing of the notes anywhere a player reads, nor in the stored rows
    for client in (bob, carol):
        base = f"{MATCHES}/{created['id']}"
        for path in ("", "/log", "/actions", "/audit", "/events?timeout=0"):
            no_note(client.get(base + path).text)
        no_note(client.get(f"/api/v1/matches/{created['id']}/content").text)
    db.expire_all()
    events = db.scalars(select(MatchEvent).where(MatchEvent.match_id == created["id"])).all()
    assert events
    no_note(json.dumps([e.event for e in events], default=str))
    stored = db.scalar(select(Match).where(Match.id == created["id"]))
    assert stored is not None
    no_note(json.dumps([stored.army_a, stored.army_b]))
    first = live(created["id"]).envelopes[0].event
    assert isinstance(first, BattleCreated)
    no_note(json.dumps([first.setup.scenario, first.setup.catalogue, first.setup.boards]))


def test_a_shared_link_refuses_what_it_cannot_play(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    row = my_set(alice)
    token = share(alice, row["id"])
    r = play_shared(bob, token, 422, scenario="no-such-scenario")
    assert r["errors"][0]["field"] == "scenario"
    r = play_shared(bob, token, 422, scenario="sample-relay", side="eldar")
    assert r["errors"][0]["field"] == "options.side"
    r = play_shared(bob, token, 422, scenario="sample-relay", extra=1)
    play_shared(bob, "brc_not-a-link", 404, scenario="sample-relay")
    assert alice.delete(f"{CONTENT}/{row['id']}/share").status_code == 204
    play_shared(bob, token, 404, scenario="sample-relay")
    assert (
        TestClient(bob.app)
        .post(f"{CONTENT}/shared/{token}/matches", json={"scenario": "sample-relay"})
        .status_code
        == 401
    )
    assert db.scalar(select(Match.id).where(Match.created_by_id == bob.user_id)) is None  # type: ignore[attr-defined]


def test_the_shared_page_plays_a_scenario_and_shows_a_refusal(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    row = my_set(alice)
    r = alice.put(f"{CONTENT}/{row['id']}/share")
    assert r.status_code == 200, r.text
    path = r.json()["path"]
    page = html(bob.get(path))
    form = page.css_first("#play-0")
    assert form.attributes["action"] == f"{path}/play"
    assert [o.attributes["value"] for o in form.css('select[name="side"] option')] == [
        "ultramarines",
        "orks",
    ]
    assert "No copy needed" in page.css_first("#play-hint").text()
    assert page.css_first("#copy-form").attributes["action"] == f"{path}/copy"
    data = {"csrf_token": bob.csrf, "scenario": "sample-relay", "side": "orks"}  # type: ignore[attr-defined]
    r = bob.post(f"{path}/play", data=data | {"side": "eldar"})
    assert r.status_code == 422, r.text
    again = html(r)
    assert "no side 'eldar'" in again.css_first("#notice").text()
    assert again.css_first("#copy-form").attributes["action"] == f"{path}/copy"
    r = bob.post(f"{path}/play", data=data | {"hot_seat": "1"}, follow_redirects=False)
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    mine = html(bob.get(f"/matches/{match_id}"))
    assert mine.css_first("#mission").text().strip() == LABEL
    assert mine.css_first("#hot-seat-form") is not None
    # without its CSRF token (the browser client sends it in a header): refused
    del bob.headers["X-CSRF-Token"]
    r = bob.post(f"{path}/play", data={"scenario": "sample-relay"}, follow_redirects=False)
    assert r.status_code == 403, r.text
    # a visitor without an account sees no form
    assert html(TestClient(bob.app).get(path)).css_first("#play-shared") is None


def test_the_match_list_names_a_content_match_by_its_scenario(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    my_set(alice)
    mission = missions(alice)[0]["id"]
    created = create(alice, mission)

    def listed(client: TestClient) -> list[str]:
        page = html(client.get("/matches"))
        return [n.text().strip() for n in page.css(".mission")]

    assert LABEL in listed(alice)
    assert not any(mission in label for label in listed(alice))
    code = created["invitation"]["code"]
    r = bob.post("/matches/join", data={"csrf_token": bob.csrf, "code": code})  # type: ignore[attr-defined]
    assert LABEL in html(r).css_first("#join-summary").text()
    join(bob, created)
    assert LABEL in listed(alice)
    assert LABEL in listed(bob)


@pytest.mark.parametrize(
    ("snapshot", "expected"),
    [
        (None, "c-0123456789ab-relay (scenario)"),
        ({"content": {"id": "c-other", "name": "Set"}}, "c-0123456789ab-relay (scenario)"),
        (
            {"content": {"id": "c-0123456789ab-relay", "name": "", "scenario": {"id": "relay"}}},
            "relay",
        ),
        (
            {
                "content": {
                    "id": "c-0123456789ab-relay",
                    "name": "Raids",
                    "scenario": {"id": "relay", "name": "The relay"},
                }
            },
            "Content set Raids: The relay",
        ),
    ],
)
def test_mission_label_reads_the_frozen_copy(snapshot: Any, expected: str) -> None:
    assert mission_label("c-0123456789ab-relay", "scenario", "black-reach", snapshot) == expected
    # a shipped mission keeps its own name whatever the snapshot
    assert "c-" not in mission_label("sample-relay", "scenario", "black-reach", snapshot)


def test_sets_are_untouched_by_a_match_on_a_shared_one(
    user_client: Callable[[str], TestClient], db: Session
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    row = my_set(alice)
    token = share(alice, row["id"])
    play_shared(bob, token, scenario="sample-relay")
    owned = db.scalars(select(ContentSet.owner_id)).all()
    assert owned == [alice.user_id]  # type: ignore[attr-defined]


def test_a_shared_link_takes_hot_seat_as_a_json_boolean_only(
    user_client: Callable[[str], TestClient],
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    token = share(alice, noted_set(alice)["id"])
    for loose in ("yes", "true", 1, "1"):
        r = bob.post(
            f"{CONTENT}/shared/{token}/matches",
            json={"scenario": "sample-relay", "hot_seat": loose},
        )
        assert r.status_code == 422, (loose, r.text)
    made = play_shared(bob, token, scenario="sample-relay", hot_seat=True)
    assert made["status"] == "open"
