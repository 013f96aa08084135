"""Spectators (issue 21): a read-only link per match, managed by its players and its creator,
that shows only what both players have revealed.

The secrecy tests play a 10th-edition battle with Battle Formations and a PEN battle under the
Dynamics turn structure (hidden orders), and scan everything a spectator can get (the JSON
read, the SSE stream from the start and resumed, the page and its live fragment) for the
secrets of either seat; each scan is shown to find the secret once it is revealed.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.core import security
from app.matches import events, reads, spectate
from app.matches.models import Match
from tests.matches.conftest import Game, finish_turn, league_game, setup_battle, wipe_out_b
from tests.matches.test_black_reach_content import create as br_create
from tests.matches.test_black_reach_content import join as br_join
from tests.matches.test_black_reach_content import missions, my_set
from tests.matches.test_black_reach_content import with_router as with_router
from tests.matches.test_black_reach_match import (  # noqa: F401
    BOLTER,
    BOYZ1,
    BOYZ2,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    br_game,
)
from tests.matches.test_black_reach_match import deploy as br_deploy
from tests.matches.test_black_reach_match import live as br_live
from tests.matches.test_black_reach_match import path as br_path
from tests.matches.test_dynamics_match import dyn_game, live, place  # noqa: F401
from tests.matches.test_events import parse
from tests.matches.test_pen_match import PenGame, pen_game, set_up  # noqa: F401
from tests.matches.test_secrecy import HTML_PATTERNS, PATTERNS, SECRET, _to_formations
from tests.support.web import csrf, html


def enable(client: TestClient, match_id: int) -> dict[str, Any]:
    r = client.put(f"/api/v1/matches/{match_id}/spectators")
    assert r.status_code == 200, r.text
    return dict(r.json())


def both_agree(g: Any) -> dict[str, Any]:
    """Both players agree (ruling S19): the first yes waits for the second."""
    first = enable(g.a.client, g.match_id)
    assert (first["enabled"], first["agreed"]) == (False, ["A"])
    link = enable(g.b.client, g.match_id)
    assert (link["enabled"], link["agreed"]) == (True, ["A", "B"])
    return link


def spectator_material(web: TestClient, token: str) -> dict[str, str]:
    """Everything a spectator can get with the link, by name (all answered 200)."""
    out: dict[str, str] = {}
    api = f"/api/v1/spectate/{token}"
    for name, path, headers in (
        ("json", api, {}),
        ("sse", f"{api}/events?timeout=0", {}),
        ("sse resumed", f"{api}/events?timeout=0", {"Last-Event-ID": "3"}),
        ("page", f"/spectate/{token}", {}),
        ("fragment", f"/spectate/{token}", {"HX-Request": "true"}),
    ):
        r = web.get(path, headers=headers)
        assert r.status_code == 200, (name, r.text)
        out[name] = r.text
    return out


def public_entries(text: str) -> list[dict[str, Any]]:
    return [m["data"] for m in parse(text) if m["event"] == "entry"]


# -- managing the link ------------------------------------------------------------------------


def test_players_and_the_creator_manage_the_link_and_nobody_else(
    new_game: Callable[..., Game],
    user_client: Callable[[str], TestClient],
    client: TestClient,
    db: Session,
) -> None:
    g = new_game()
    base = f"/api/v1/matches/{g.match_id}/spectators"
    off = g.a.client.get(base).json()
    assert off == {
        "match_id": g.match_id,
        "enabled": False,
        "token": None,
        "page_url": None,
        "api_url": None,
        "events_url": None,
        "agreed": [],
    }
    asked = enable(g.a.client, g.match_id)  # one player's yes is not enough (ruling S19)
    assert (asked["enabled"], asked["token"], asked["agreed"]) == (False, None, ["A"])
    assert g.b.client.get(base).json()["agreed"] == ["A"]  # the opponent sees the request
    link = enable(g.b.client, g.match_id)
    assert link["enabled"]
    assert len(link["token"]) >= 40
    assert link["page_url"].endswith(f"/spectate/{link['token']}")
    assert enable(g.b.client, g.match_id)["token"] == link["token"]  # idempotent
    assert enable(g.a.client, g.match_id)["token"] == link["token"]
    # only the digest is stored
    row = db.get(Match, g.match_id)
    assert row is not None
    db.refresh(row)
    assert row.spectate_digest == security.digest(link["token"])
    assert link["token"] not in json.dumps([row.secret, row.spectate_digest])

    carol = user_client("Carol")
    for method, path in (
        ("GET", base),
        ("PUT", base),
        ("POST", base + "/rotate"),
        ("DELETE", base),
    ):
        for outsider in (carol, client):
            r = outsider.request(method, path)
            assert r.status_code == 404, (method, path, r.text)
            assert r.json()["type"].endswith("/match-not-found")
    # nothing an outsider sent changed the link
    assert g.a.client.get(base).json()["token"] == link["token"]

    # the creator who does not play the match manages it too
    row.created_by_id = carol.user_id  # type: ignore[attr-defined]
    row.player_a_id = None
    db.commit()
    rotated = carol.post(base + "/rotate")
    assert rotated.status_code == 200, rotated.text
    assert rotated.json()["token"] != link["token"]
    assert g.a.client.get(base).status_code == 404  # no longer a player nor the creator
    assert g.b.client.get(base).json()["token"] == rotated.json()["token"]
    assert carol.delete(base).status_code == 204


@dataclass
class LeagueTable:
    """A match that plays a league game; the league's club has an organiser and a member."""

    g: Game
    league_id: int
    game_id: int
    organiser: TestClient
    member: TestClient


@pytest.fixture
def league_table(
    new_game: Callable[..., Game], user_client: Callable[[str], TestClient], db: Session
) -> LeagueTable:
    from app.clubs.models import Membership, Role
    from app.leagues.models import League

    g = new_game()
    a_id, b_id = g.a.client.user_id, g.b.client.user_id  # type: ignore[attr-defined]
    fixture = league_game(db, a_id, b_id)
    r = g.a.client.put(
        f"/api/v1/matches/{g.match_id}/league-game", json={"league_game_id": fixture.game_id}
    )
    assert r.status_code == 200, r.text
    league = db.get(League, fixture.league_id)
    assert league is not None
    organiser, member = user_client("Olga"), user_client("Mel")
    db.add_all(
        [
            Membership(club_id=league.club_id, user_id=organiser.user_id, role=Role.ADMIN),  # type: ignore[attr-defined]
            Membership(club_id=league.club_id, user_id=member.user_id, role=Role.MEMBER),  # type: ignore[attr-defined]
            Membership(club_id=league.club_id, user_id=a_id, role=Role.MEMBER),
            Membership(club_id=league.club_id, user_id=b_id, role=Role.MEMBER),
        ]
    )
    db.commit()
    return LeagueTable(g, fixture.league_id, fixture.game_id, organiser, member)


def test_the_league_organiser_manages_the_link_of_a_league_match(
    league_table: LeagueTable, user_client: Callable[[str], TestClient], client: TestClient
) -> None:
    t = league_table
    base = f"/api/v1/matches/{t.g.match_id}/spectators"
    assert t.organiser.get(base).json()["enabled"] is False
    link = enable(t.organiser, t.g.match_id)
    assert link["enabled"]
    assert t.g.a.client.get(base).json()["token"] == link["token"]  # the players see it too
    assert client.get(f"/api/v1/spectate/{link['token']}").status_code == 200
    rotated = t.organiser.post(base + "/rotate")
    assert rotated.status_code == 200, rotated.text
    assert rotated.json()["token"] != link["token"]
    assert client.get(f"/api/v1/spectate/{link['token']}").status_code == 404
    assert t.organiser.delete(base).status_code == 204
    assert t.g.b.client.get(base).json()["enabled"] is False
    assert client.get(f"/api/v1/spectate/{rotated.json()['token']}").status_code == 404

    # a club member who does not organise the league, a stranger, anonymous: as if no match
    stranger = user_client("Stan")
    for method, path in (
        ("GET", base),
        ("PUT", base),
        ("POST", base + "/rotate"),
        ("DELETE", base),
    ):
        for outsider in (t.member, stranger, client):
            r = outsider.request(method, path)
            assert r.status_code == 404, (method, path, r.text)
            assert r.json()["type"].endswith("/match-not-found")
    assert t.g.a.client.get(base).json()["enabled"] is False  # nothing they sent changed it

    # the organiser's say goes with the league game: unlinked, the match is no longer theirs
    r = t.g.a.client.put(
        f"/api/v1/matches/{t.g.match_id}/league-game", json={"league_game_id": None}
    )
    assert r.status_code == 200, r.text
    assert t.organiser.get(base).status_code == 404


def test_the_league_game_page_manages_the_link(
    league_table: LeagueTable, user_client: Callable[[str], TestClient], client: TestClient
) -> None:
    t = league_table
    page = f"/leagues/{t.league_id}/games/{t.game_id}"
    action = f"{page}/spectators"
    panel = html(t.organiser.get(page)).css_first("#spectators")
    assert panel is not None
    assert panel.attributes["data-enabled"] == "false"
    assert html(t.organiser.get(page)).css_first("#spectators-enable-form") is not None

    def post(who: TestClient, what: str, **kw: Any) -> Any:
        token = csrf(who, page) if who is not client else "x"
        return who.post(
            action, data={"csrf_token": token, "action": what}, follow_redirects=False, **kw
        )

    r = post(t.organiser, "enable")
    assert r.status_code == 303, r.text
    assert r.headers["location"] == page
    doc = html(t.organiser.get(page))
    assert doc.css_first("#spectators").attributes["data-enabled"] == "true"
    first = doc.css_first("#spectator-link").text().rsplit("/", 1)[-1]
    assert client.get(f"/spectate/{first}").status_code == 200
    r = post(t.organiser, "rotate", headers={"HX-Request": "true"})  # htmx: the page again
    assert r.status_code == 200, r.text
    second = html(r).css_first("#spectator-link").text().rsplit("/", 1)[-1]
    assert second != first
    assert client.get(f"/spectate/{first}").status_code == 404
    assert client.get(f"/spectate/{second}").status_code == 200
    # the match's players manage it from here too
    r = post(t.g.a.client, "disable")
    assert r.status_code == 303, r.text
    assert client.get(f"/spectate/{second}").status_code == 404
    assert html(t.organiser.get(page)).css_first("#spectators").attributes["data-enabled"] == (
        "false"
    )
    assert post(t.organiser, "explode").status_code == 422

    # a club member who does not organise the league sees the game, not the panel: 403
    assert t.member.get(page).status_code == 200
    assert html(t.member.get(page)).css_first("#spectators") is None
    r = post(t.member, "enable")
    assert r.status_code == 403, r.text
    # someone outside the private league's club does not see the game: 404
    stranger = user_client("Stan")
    assert stranger.get(page).status_code == 404
    r = stranger.post(action, data={"csrf_token": csrf(stranger, "/leagues"), "action": "enable"})
    assert r.status_code == 404, r.text
    assert t.g.a.client.get(f"/api/v1/matches/{t.g.match_id}/spectators").json()["enabled"] is (
        False
    )


def test_the_league_game_page_says_who_has_agreed(league_table: LeagueTable) -> None:
    """A player's "agree" on the league game page says it waits for the opponent; the
    opponent's page says they are asked; withdrawing is offered (ruling S19)."""
    t = league_table
    page = f"/leagues/{t.league_id}/games/{t.game_id}"

    def post(who: TestClient, what: str) -> Any:
        data = {"csrf_token": csrf(who, page), "action": what}
        return who.post(f"{page}/spectators", data=data, follow_redirects=False)

    doc = html(t.g.a.client.get(page))
    assert doc.css_first("#spectators-enable").text() == "Agree to a spectator link"
    assert doc.css_first("#spectators-waiting") is None
    assert post(t.g.a.client, "enable").status_code == 303
    doc = html(t.g.a.client.get(page))
    assert doc.css_first("#spectators").attributes["data-enabled"] == "false"
    assert doc.css_first("#spectators-waiting") is not None
    assert doc.css_first("#spectators-disable").text() == "Withdraw my agreement"
    other = html(t.g.b.client.get(page))
    assert other.css_first("#spectators-asked") is not None
    assert other.css_first("#spectators-waiting") is None
    organiser = html(t.organiser.get(page))  # no seat: turns it on alone, nothing to wait on
    assert organiser.css_first("#spectators-enable").text() == "Enable a spectator link"
    assert organiser.css_first("#spectators-asked") is None
    # withdrawn: back to the start for both
    assert post(t.g.a.client, "disable").status_code == 303
    assert html(t.g.b.client.get(page)).css_first("#spectators-asked") is None
    assert post(t.g.b.client, "enable").status_code == 303
    assert post(t.g.a.client, "enable").status_code == 303
    doc = html(t.g.a.client.get(page))
    assert doc.css_first("#spectators").attributes["data-enabled"] == "true"


def test_a_rotated_or_disabled_link_is_dead(
    new_game: Callable[..., Game], client: TestClient
) -> None:
    g = new_game()
    base = f"/api/v1/matches/{g.match_id}/spectators"
    first = both_agree(g)["token"]
    assert client.get(f"/api/v1/spectate/{first}").status_code == 200
    r = g.b.client.post(base + "/rotate")
    assert r.status_code == 200, r.text
    second = r.json()["token"]
    assert second != first
    assert g.b.client.delete(base).status_code == 204
    assert g.b.client.delete(base).status_code == 204  # already off: still fine
    assert g.a.client.get(base).json()["enabled"] is False
    third = both_agree(g)["token"]
    assert third not in (first, second)  # re-enabled: a new link, the revoked ones stay dead
    for dead in (first, second, "x" * 43, "y" * 500):
        for path in (
            f"/api/v1/spectate/{dead}",
            f"/api/v1/spectate/{dead}/events?timeout=0",
            f"/spectate/{dead}",
        ):
            r = client.get(path)
            assert r.status_code == 404, (path, r.text)
    assert (
        client.get(f"/api/v1/spectate/{first}").json()["type"].endswith("/spectate-link-not-found")
    )
    assert client.get(f"/api/v1/spectate/{third}").status_code == 200


def test_either_player_withdraws_and_a_link_that_is_off_is_not_rotated(
    new_game: Callable[..., Game], client: TestClient, db: Session
) -> None:
    """Ruling S19: a player's "off" withdraws only that player's yes; turned on again once the
    other agrees anew, it is a new link. Nothing to rotate while off (409)."""
    g = new_game()
    base = f"/api/v1/matches/{g.match_id}/spectators"
    r = g.a.client.post(base + "/rotate")
    assert r.status_code == 409, r.text
    assert r.json()["type"].endswith("/spectate-link-off")
    first = both_agree(g)["token"]
    assert g.a.client.delete(base).status_code == 204
    off = g.b.client.get(base).json()
    assert (off["enabled"], off["agreed"]) == (False, ["B"])
    assert client.get(f"/api/v1/spectate/{first}").status_code == 404
    again = enable(g.a.client, g.match_id)
    assert again["enabled"]
    assert again["token"] != first
    row = db.get(Match, g.match_id)
    assert row is not None
    db.refresh(row)
    assert row.spectate_consent == spectate.BOTH


def test_a_revoked_links_stream_ends_gone(new_game: Callable[..., Game], app: Any) -> None:
    g = new_game()
    token = both_agree(g)["token"]
    reader = spectate.spectator_reader(app.state.db, g.match_id, security.digest(token))
    update = reader.present(reader.fetch(), 0)
    assert not update.gone
    assert update.version == g.a.get()["version"]
    assert g.a.client.delete(f"/api/v1/matches/{g.match_id}/spectators").status_code == 204
    assert reader.present(reader.fetch(), 0).gone


def test_version_zero_always_wakes_the_streams() -> None:
    """A revoked link (or a cancelled match) publishes version 0: it wakes the streams even
    after a higher version was announced."""

    async def run() -> list[bool]:
        hub = events.Hub()
        woken = []
        async with hub.subscribe(7) as event:
            hub.publish(7, 5)
            await asyncio.sleep(0)
            woken.append(event.is_set())
            event.clear()
            hub.publish(7, 5)  # already announced: no wake
            await asyncio.sleep(0)
            woken.append(event.is_set())
            hub.publish(7, 0)
            await asyncio.sleep(0)
            woken.append(event.is_set())
        return woken

    assert asyncio.run(run()) == [True, False, True]


# -- reading ----------------------------------------------------------------------------------


def test_a_spectator_reads_with_etag_and_one_render_per_version(
    new_game: Callable[..., Game], app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    g = new_game()
    token = both_agree(g)["token"]
    g.a.send({"type": "roll_off"}, dice=[6, 1])
    renders: list[int] = []
    real = spectate.spectator_match

    def counted(*args: Any, **kw: Any) -> spectate.SpectatorMatch:
        renders.append(1)
        return real(*args, **kw)

    monkeypatch.setattr(spectate, "spectator_match", counted)
    viewers = [TestClient(app) for _ in range(3)]
    answers = [v.get(f"/api/v1/spectate/{token}") for v in viewers]
    assert all(a.status_code == 200 for a in answers)
    assert len({a.content for a in answers}) == 1
    assert renders == [1]  # one rendering for every spectator of the version
    data = answers[0].json()
    assert data["version"] == g.a.version
    assert data["players"]["A"]["name"] == "Alice"
    assert data["view"]["viewer"] is None
    assert [e["seq"] for e in data["log"]] == list(range(1, g.a.version + 1))
    tag = answers[0].headers["etag"]
    same = viewers[0].get(f"/api/v1/spectate/{token}", headers={"If-None-Match": tag})
    assert same.status_code == 304
    assert same.headers["etag"] == tag
    assert same.content == b""
    g.a.send({"type": "place_objective"})
    moved = viewers[0].get(f"/api/v1/spectate/{token}", headers={"If-None-Match": tag})
    assert moved.status_code == 200
    assert moved.headers["etag"] != tag
    assert moved.json()["version"] == g.a.version


def test_an_open_match_can_be_watched_before_the_opponent_joins(
    user_client: Callable[[str], TestClient], armies: Any, client: TestClient, db: Session
) -> None:
    from tests.matches.conftest import marines

    alice = user_client("Alice")
    r = alice.post(
        "/api/v1/matches",
        json={"army_id": armies.ready(alice, marines()), "battle_size": "strike_force"},
    )
    assert r.status_code == 201, r.text
    match_id = r.json()["id"]
    # the opponent has not joined: Alice's yes waits for theirs (ruling S19)
    asked = enable(alice, match_id)
    assert (asked["enabled"], asked["agreed"]) == (False, ["A"])
    # a league organiser may turn it on before anyone joins: what spectators then see
    row = db.get(Match, match_id)
    assert row is not None
    spectate.enable(db, row)
    db.commit()
    token = spectate.spectate_token(row)
    data = client.get(f"/api/v1/spectate/{token}").json()
    assert (data["version"], data["view"], data["log"], data["status"]) == (0, None, [], "open")
    sse = parse(client.get(f"/api/v1/spectate/{token}/events?timeout=0").text)
    assert sse[-1]["event"] == "version"
    assert sse[-1]["data"]["status"] == "open"
    page = html(client.get(f"/spectate/{token}"))
    assert page.css_first("#spectate-state") is not None


def test_a_spectator_cannot_write(new_game: Callable[..., Game], client: TestClient) -> None:
    g = new_game()
    token = both_agree(g)["token"]
    g.a.send({"type": "roll_off"}, dice=[6, 1])
    version = g.a.version
    command = {"expected_version": version, "command": {"type": "place_objective"}}
    for method, path in (
        ("POST", f"/api/v1/spectate/{token}"),
        ("PUT", f"/api/v1/spectate/{token}"),
        ("DELETE", f"/api/v1/spectate/{token}"),
        ("POST", f"/api/v1/spectate/{token}/events"),
        ("POST", f"/api/v1/spectate/{token}/commands"),
        ("POST", f"/spectate/{token}"),
    ):
        r = client.request(method, path, json=command)
        assert r.status_code in (404, 405), (method, path, r.status_code)
    # the token is no seat's credential either
    for path in ("/commands", "/combat/resolve"):
        r = client.post(
            f"/api/v1/matches/{g.match_id}{path}", json=command, headers={"X-Guest-Token": token}
        )
        assert r.status_code in (401, 404, 422), (path, r.text)
        assert r.status_code != 200
    r = client.get(f"/api/v1/matches/{g.match_id}", headers={"X-Guest-Token": token})
    assert r.status_code == 404
    r = client.put(f"/api/v1/matches/{g.match_id}/spectators", headers={"X-Guest-Token": token})
    assert r.status_code == 404
    assert g.a.get()["version"] == version


def test_the_page_is_read_only_and_live(new_game: Callable[..., Game], client: TestClient) -> None:
    g = new_game()
    token = both_agree(g)["token"]
    setup_battle(g)
    wipe_out_b(g)
    r = client.get(f"/spectate/{token}", headers={"Accept-Language": "fr"})
    assert r.status_code == 200, r.text
    assert r.headers["referrer-policy"] == "no-referrer"
    page = html(r)
    assert page.css_first("html").attributes["lang"] == "fr"
    live_part = page.css_first("#spectate-live")
    assert live_part.attributes["sse-connect"] == (
        f"/api/v1/spectate/{token}/events?since={g.a.version}"
    )
    state = page.css_first("#spectate-state")
    assert state.attributes["hx-get"] == f"/spectate/{token}"
    assert state.attributes["hx-trigger"] == "sse:version"
    assert live_part.css("form, input, button, select, textarea") == []
    match = g.a.get()
    assert page.css_first("#spectate-vp-A").text() == str(match["vp"]["A"])
    assert page.css_first("#spectate-timeline-title").text() == "Chronologie"
    public = [e for e in g.a.client.get(f"{g.a.base}/log").json()["entries"] if not e["audience"]]
    assert len(public) < g.a.version  # the formations' declarations are each seat's own
    # every public entry but the bookkeeping the players' timeline leaves out too ("")
    from app.matches.pages import page_systems

    own = page_systems()[match["ruleset"]].sentence
    told = [e for e in public if own(e["event"], {}, {}) != ""]
    assert 0 < len(told) < len(public)
    assert [li.attributes["id"] for li in page.css("#spectate-timeline li")] == [
        f"spectate-entry-{e['seq']}" for e in reversed(told)
    ]
    assert page.css("#spectate-units-A li")
    b1 = page.css_first("#spectate-unit-b1")
    assert b1 is not None
    assert "muted" in (b1.attributes.get("class") or "")
    fragment = client.get(f"/spectate/{token}", headers={"HX-Request": "true"})
    assert fragment.text.lstrip().startswith('<div id="spectate-state"')
    assert "<html" not in fragment.text


# -- secrecy ----------------------------------------------------------------------------------


def test_a_spectator_never_sees_a_battle_formation_before_the_reveal(
    new_game: Callable[..., Game], client: TestClient
) -> None:
    g = new_game()
    token = both_agree(g)["token"]
    _to_formations(g)
    g.a.send({"type": "declare_formations", "formation": SECRET})

    def leaks(material: dict[str, str]) -> list[tuple[str, str]]:
        return [(n, p.pattern) for n, t in material.items() for p in PATTERNS if p.search(t)]

    before = spectator_material(client, token)
    assert leaks(before) == []
    spectator = json.loads(before["json"])
    assert "my_formation" not in spectator["view"]
    assert spectator["view"]["players"]["A"]["formation_submitted"] is True
    # the spectator's log is exactly the entries both players see
    log_b = g.b.client.get(f"{g.b.base}/log").json()["entries"]
    log_a = g.a.client.get(f"{g.a.base}/log").json()["entries"]
    shared = [e for e in log_a if e in log_b]
    assert spectator["log"] == shared == [e for e in log_a if e["audience"] is None]
    assert public_entries(before["sse"]) == shared

    # B declares: revealed, the spectator now sees both formations in the view (the scan
    # finds them), but never the declaration events, which stay each seat's own
    g.b.send({"type": "declare_formations", "formation": {}})
    after = spectator_material(client, token)
    assert ("json", PATTERNS[1].pattern) in leaks(after)
    assert not any(p == "formation_declared" for _, p in leaks(after))

    # the rest of the battle: after every command the spectator's copy holds no event with an
    # audience, and the view no seat's own part
    setup_rest = setup_battle_from_deploy(g)
    for _ in setup_rest:
        data = client.get(f"/api/v1/spectate/{token}").json()
        assert all(e["audience"] is None for e in data["log"])
        assert "my_formation" not in data["view"]
    for _ in range(2):  # A's turn, then B's
        finish_turn(g)
        data = client.get(f"/api/v1/spectate/{token}").json()
        assert all(e["audience"] is None for e in data["log"])
    g.b.send({"type": "concede", "confirm": True})
    g.a.send({"type": "confirm_result"})
    g.b.send({"type": "confirm_result"})
    end = spectator_material(client, token)
    final = json.loads(end["json"])
    assert final["status"] == "confirmed"
    assert final["winner"] == "A"
    log_a = g.a.client.get(f"{g.a.base}/log").json()["entries"]
    log_b = g.b.client.get(f"{g.b.base}/log").json()["entries"]
    shared = [e for e in log_a if e in log_b]
    assert final["log"] == shared
    for name in ("sse", "sse resumed"):
        entries = public_entries(end[name])
        assert all(e["audience"] is None for e in entries)
        assert entries == [e for e in shared if e["seq"] > (3 if "resumed" in name else 0)]
    assert not any(p == "formation_declared" for _, p in leaks(end))


def setup_battle_from_deploy(g: Game) -> Any:
    """Deployment and the first turn's roll-off, one command at a time (yielding after each)."""
    from tests.matches.conftest import player

    while (view := g.a.view())["stage"] == "deploy":
        seat = view["next_seat"]
        todo = sorted(
            u["id"]
            for u in view["units"]
            if u["owner"] == seat and u["location"] == "to_deploy" and u["bodyguard"] is None
        )
        player(g, seat).send({"type": "deploy_unit", "unit": todo[0]})
        yield
    g.a.send({"type": "roll_off"}, dice=[6, 1])
    yield
    while (view := g.a.view())["stage"] == "scouts":
        player(g, view["next_seat"]).send({"type": "end_scouts"})
        yield
    assert g.a.view()["stage"] == "battle"


def test_a_spectator_never_sees_a_hidden_order_before_its_reveal(
    dyn_game: Callable[..., PenGame],  # noqa: F811
    client: TestClient,
) -> None:
    g = dyn_game()
    token = both_agree(g)["token"]
    set_up(g)
    view = g.a.view()
    starter = g.a if view["active_seat"] in ("A", None) else g.b
    starter.send({"type": "start_turn"}, dice=[1])
    place(g.a, {"a1": "fire", "a2": "forced_march"})
    place(g.b, {"b1": "fire", "b2": "forced_march", "b3": "forced_march"})

    def assert_hidden() -> str:
        material = spectator_material(client, token)
        seen = json.dumps(material)
        state = live(g.match_id).state
        for slot in state.slots.values():
            if slot.revealed:
                continue
            assert slot.nonce not in seen, slot.unit
            assert not re.search(r"order_chosen", seen)
        orders = {o["unit"]: o for o in json.loads(material["json"])["view"]["dynamics"]["orders"]}
        for unit, slot in state.slots.items():
            assert ("order" in orders[unit]) is slot.revealed, unit
        return seen

    assert_hidden()
    g.b.send({"type": "reveal_order", "unit": "b1", "target": "a1"})
    g.b.send({"type": "reveal_order", "unit": "b2"})
    seen = assert_hidden()
    b1 = live(g.match_id).state.slots["b1"]
    assert b1.revealed
    assert b1.nonce in seen
    g.b.send({"type": "reveal_order", "unit": "b3"})
    g.a.send({"type": "reveal_order", "unit": "a1", "target": "b1"})
    g.a.send({"type": "reveal_order", "unit": "a2"})
    g.a.send(
        {"type": "shoot", "unit": "a1", "target": "b1", "weapon": "Bolter", "range_inches": 12}
    )
    for unit in ("a1", "a2"):
        g.a.send({"type": "end_order", "unit": unit})
    for unit in ("b1", "b2", "b3"):
        g.b.send({"type": "end_order", "unit": unit})
    # the next turn's orders, placed and not revealed, are hidden again
    view = g.a.view()
    starter = g.a if view["active_seat"] in ("A", None) else g.b
    starter.send({"type": "start_turn"})  # its tests rolled by the server
    place(g.a, {"a1": "fire", "a2": "forced_march"})
    seen = assert_hidden()
    log_a = g.a.client.get(f"{g.a.base}/log").json()["entries"]
    log_b = g.b.client.get(f"{g.b.base}/log").json()["entries"]
    spectator = json.loads(spectator_material(client, token)["json"])
    assert spectator["log"] == [e for e in log_a if e in log_b]
    assert len(spectator["log"]) < spectator["version"]  # the secret events are gaps
    assert spectator["view"]["turn_structure"] == "dynamics"
    del seen


def test_a_classic_pen_battle_is_all_public(
    pen_game: Callable[..., PenGame],  # noqa: F811
    client: TestClient,
) -> None:
    g = pen_game()
    token = both_agree(g)["token"]
    set_up(g)
    g.a.send({"type": "start_turn"}, dice=[1])
    g.a.send({"type": "move", "unit": "a1", "speed": "stationary"})
    g.a.send(
        {"type": "shoot", "unit": "a1", "target": "b1", "weapon": "Bolter", "range_inches": 12}
    )
    material = spectator_material(client, token)
    spectator = json.loads(material["json"])
    log_a = g.a.client.get(f"{g.a.base}/log").json()["entries"]
    assert spectator["log"] == log_a
    assert public_entries(material["sse"]) == log_a
    assert spectator["view"]["units"] == g.a.view()["units"]
    assert reads.cache.replays >= 1


def test_an_idle_stream_sends_keepalives_and_ends_on_time() -> None:
    """The idle wait (asyncio.timeout, no extra task) wakes for keep-alives and the deadline;
    a wake-up sends the new text as one chunk."""

    def present(found: int, since: int) -> events.Update:
        text = events.sse("entry", {"seq": found}, id=found) if found > since else ""
        return events.Update(found, [], {}, rendered=text)

    async def run() -> list[str]:
        hub = events.Hub()
        version = {"now": 1}
        shared = events.Shared(lambda: version["now"], present, kind="test")
        chunks: list[str] = []

        async def consume() -> None:
            async for chunk in events.stream(hub, 9, 0, shared, timeout=0.3, keepalive=0.05):
                chunks.append(chunk)

        task = asyncio.create_task(consume())
        await asyncio.sleep(0.12)
        version["now"] = 2
        hub.publish(9, 2)
        await task
        return chunks

    chunks = asyncio.run(run())
    assert chunks[0].startswith("retry: ")
    assert chunks[1] == events.sse("entry", {"seq": 1}, id=1) + events.sse(
        "version", {"version": 1}, id=1
    )
    assert ": keepalive\n\n" in chunks
    assert sum(c.count('"seq":1') for c in chunks) == 1  # a re-read after a keep-alive: no repeat
    woken = [c for c in chunks if "version" in c and '"version":2' in c]
    assert len(woken) == 1
    assert woken[0].startswith(events.sse("entry", {"seq": 2}, id=2))


def test_a_spectator_never_sees_a_face_down_black_reach_token(
    br_game: Callable[..., PenGame],  # noqa: F811
    client: TestClient,
) -> None:
    g = br_game()
    token = both_agree(g)["token"]
    br_deploy(g)
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

    def assert_hidden() -> str:
        state = br_live(g.match_id).state
        assert state.turn is not None
        material = spectator_material(client, token)
        seen = json.dumps(material)
        units = {u["id"]: u for u in json.loads(material["json"])["view"]["units"]}
        hidden = 0
        for side in ("orks", "ultramarines"):
            for o in state.secret[side].values():
                if o.unit in state.turn.revealed[side]:
                    continue
                hidden += 1
                assert o.nonce not in seen, o.unit
                assert units[o.unit]["token"] is None, o.unit
                assert units[o.unit]["face_down_token"] is True, o.unit
        assert hidden
        return seen

    assert_hidden()
    # the owner sees its own token; the spectator, seat A's view: neither sees B's
    assert {u["id"]: u for u in g.b.view()["units"]}[BOYZ1]["token"] is not None
    g.b.send({"type": "move", "unit": BOYZ1, "path": br_path((4, 9), (4, 8), (4, 7), (4, 6))})
    assert_hidden()
    played = br_live(g.match_id).state
    assert played.turn is not None
    assert BOYZ1 in played.turn.revealed["orks"]
    # played, the token is revealed: the spectator now sees it where it saw nothing before
    units = {u["id"]: u for u in client.get(f"/api/v1/spectate/{token}").json()["view"]["units"]}
    assert units[BOYZ1]["token"] == {"kind": "numbered", "number": 1}


# -- a Black Reach match told in its own words ------------------------------------------------


def test_the_black_reach_sentence_hook_tells_its_events_only() -> None:
    from app.matches.pages import black_reach as br_page
    from app.matches.pages import page_systems

    hook = page_systems()["black-reach"].sentence
    assert hook is br_page.sentence
    names = {"u1": "Boyz"}
    assert hook({"type": "battle_created"}, names, {}) == "The battle is set up."
    assert hook({"type": "unit_deployed", "unit": "u1", "to": [2, 3]}, names, {}) == (
        br_page.describe({"type": "unit_deployed", "unit": "u1", "to": [2, 3]}, names, {})
    )
    assert "Boyz" in str(hook({"type": "unit_deployed", "unit": "u1", "to": [2, 3]}, names, {}))
    # not a battle event, or an undo's (the generic words name the players): not its own
    for kind in ("undone", "undo_requested", "order_chosen", "nothing-known"):
        assert hook({"type": kind, "seat": "A"}, names, {"A": "Alice"}) is None


def test_the_spectators_page_names_a_content_match_and_tells_black_reach_events(
    user_client: Callable[[str], TestClient],
    client: TestClient,
    with_router: None,
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    row = my_set(alice)
    mid = missions(alice)[0]["id"]
    created = br_create(alice, mid)
    br_join(bob, created)
    enable(alice, created["id"])
    token = enable(bob, created["id"])["token"]
    page = html(client.get(f"/spectate/{token}"))
    text = page.text()
    assert f"Content set {row['name']}: Raid on the relay" in text
    assert mid not in text
    items = [li.text(strip=True) for li in page.css("#spectate-timeline li")]
    assert items, text
    assert any("The battle is set up." in i for i in items), items
    # the generic words would spell the kind ("battle created"), not the Black Reach sentence
    log = client.get(f"/api/v1/spectate/{token}").json()["log"]
    told = spectate.timeline(log, {}, {"A": "Alice", "B": "Bob"}, "black-reach")
    assert told[-1].text == "The battle is set up."


def test_the_black_reach_timeline_names_a_side_by_its_player(
    br_game: Callable[..., PenGame],  # noqa: F811
    client: TestClient,
) -> None:
    g = br_game()
    token = both_agree(g)["token"]
    br_deploy(g)
    out = client.get(f"/api/v1/spectate/{token}").json()
    a, b = out["players"]["A"]["name"], out["players"]["B"]["name"]
    assert out["view"]["seats"] == {"A": "ultramarines", "B": "orks"}
    items = [
        li.text(strip=True)
        for li in html(client.get(f"/spectate/{token}")).css("#spectate-timeline li")
    ]
    assert any(f"{a} (ultramarines) has deployed." in i for i in items), items
    assert any(f"{b} (orks) has deployed." in i for i in items), items
    # the hook alone: a side its players do not name stays its id; seats are no side
    from app.matches.pages import black_reach as br_page

    ended = {"type": "deployment_ended", "side": "orks"}
    assert br_page.sentence(ended, {}, {"A": "Alice", "B": "Bob"}) == "orks has deployed."
    named = {"A": "Alice", "B": "Bob", "orks": "Bob (orks)"}
    assert br_page.sentence(ended, {}, named) == "Bob (orks) has deployed."
    told = spectate.timeline(
        out["log"], {}, {"A": "Alice", "B": "Bob"}, "black-reach", out["view"]["seats"]
    )
    assert any(t.text == "Bob (orks) has deployed." for t in told)
    assert any(t.text == "Alice (ultramarines) has deployed." for t in told)


def test_the_hot_seat_creator_agrees_for_both_seats(
    user_client: Callable[[str], TestClient], with_router: None
) -> None:
    """Ruling S19: in a hot-seat match nobody but its creator can speak for seat B."""
    alice = user_client("Alice")
    my_set(alice)
    mid = br_create(alice, missions(alice)[0]["id"], hot_seat=True)["id"]
    base = f"/api/v1/matches/{mid}/spectators"
    asked = alice.put(base).json()  # before seat B is taken: seat B's yes is still to come
    assert (asked["enabled"], asked["agreed"]) == (False, ["A"])
    r = alice.post(f"/api/v1/matches/{mid}/hot-seat", json={"name": "Carol"})
    assert r.status_code == 200, r.text
    link = alice.put(base).json()
    assert (link["enabled"], link["agreed"]) == (True, ["A", "B"])
    assert alice.post(base + "/rotate").status_code == 200


def test_a_new_invitation_withdraws_seat_bs_agreement(
    user_client: Callable[[str], TestClient], armies: Any, client: TestClient, db: Session
) -> None:
    """Whoever held the old guest link may have agreed for seat B; the next guest has not."""
    from tests.matches.conftest import marines

    alice = user_client("Alice")
    r = alice.post(
        "/api/v1/matches",
        json={"army_id": armies.ready(alice, marines()), "opponent": "guest"},
    )
    assert r.status_code == 201, r.text
    created = r.json()
    guest_token = created["invitation"]["guest_url"].rsplit("/", 1)[1]
    base = f"/api/v1/matches/{created['id']}/spectators"
    r = client.put(base, headers={"X-Guest-Token": guest_token})
    assert (r.status_code, r.json()["agreed"]) == (200, ["B"])
    r = alice.post(f"/api/v1/matches/{created['id']}/invitation")
    assert r.status_code == 200, r.text
    assert alice.get(base).json()["agreed"] == []


def test_agreeing_and_withdrawing_lock_the_row(
    new_game: Callable[..., Game], sent_sql: list[str]
) -> None:
    """Two players answering at once must not write from one stale read (Postgres: FOR
    UPDATE; SQLite serialises its writers)."""
    g = new_game()
    base = f"/api/v1/matches/{g.match_id}/spectators"
    sent_sql.clear()
    assert g.a.client.put(base).status_code == 200
    assert g.b.client.delete(base).status_code == 204
    locks = [s for s in sent_sql if "FOR UPDATE" in s.upper() and "matches" in s]
    assert len(locks) == 2, sent_sql


@pytest.fixture
def sent_sql(engine: Any, database_url: str) -> Any:
    from sqlalchemy import event

    if not database_url.startswith("postgresql"):
        pytest.skip("Postgres only: SQLite has no row locks (its writers are serialised)")
    found: list[str] = []

    def record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        found.append(statement)

    event.listen(engine, "before_cursor_execute", record)
    yield found
    event.remove(engine, "before_cursor_execute", record)


# -- the spectators' shared texts: bounded, and never a wait on the event loop ----------------


def test_a_resume_past_the_version_is_clamped_and_memoises_nothing_new(
    new_game: Callable[..., Game], app: Any
) -> None:
    """``Last-Event-ID`` / ``?since=`` is the client's: a value past the version has seen
    everything, and each distinct value must not add a rendering the snapshot keeps."""
    g = new_game()
    token = both_agree(g)["token"]
    g.a.send({"type": "roll_off"}, dice=[6, 1])
    reader = spectate.spectator_reader(app.state.db, g.match_id, security.digest(token))
    seen = reader.fetch()
    snap = seen.snapshot
    assert snap is not None
    version = snap.version
    at_version = reader.present(seen, version)
    held = snap.renderings
    for since in range(version + 1, version + 2000):
        update = reader.present(seen, since)
        assert update.rendered == at_version.rendered == ""
        assert update.version == version
    assert snap.renderings == held  # the clamped key is the version's own
    # a resume from the start renders the whole public log, once for all its readers
    full = reader.present(seen, 0)
    assert [e["seq"] for e in public_entries(full.rendered)] == list(range(1, version + 1))
    assert reader.present(seen, -5).rendered == full.rendered


def test_a_snapshot_keeps_a_bounded_number_of_renderings() -> None:
    snap = reads.Snapshot(1, object())  # type: ignore[arg-type]
    built: list[int] = []

    def build(n: int) -> Callable[[], int]:
        def run() -> int:
            built.append(n)
            return n

        return run

    for n in range(reads.RENDERED_MAX + 50):
        assert snap.rendered(("k", n), build(n)) == n
        assert snap.memo(("m", n), build(-n)) == -n
    assert snap.renderings == reads.RENDERED_MAX
    kept = len(built)
    assert snap.rendered(("k", 0), build(0)) == 0  # one kept: not built again
    assert len(built) == kept
    late = reads.RENDERED_MAX + 10
    assert snap.rendered(("k", late), build(late)) == late  # past the bound: built each time
    assert snap.memo(("m", late), build(-late)) == -late
    assert len(built) == kept + 2
    assert snap.renderings == reads.RENDERED_MAX


def test_a_spectators_present_never_waits_for_a_threads_rendering(
    new_game: Callable[..., Game], app: Any
) -> None:
    """``present`` runs on the event loop: while a thread builds a big body of the same
    snapshot under its lock (a seat's GET, the page's live block), a spectator's update must
    not wait for it (reads.Snapshot.memo's contract)."""
    import threading

    g = new_game()
    token = both_agree(g)["token"]
    g.a.send({"type": "roll_off"}, dice=[6, 1])
    g.a.send({"type": "place_objective"})
    reader = spectate.spectator_reader(app.state.db, g.match_id, security.digest(token))
    seen = reader.fetch()
    snap = seen.snapshot
    assert snap is not None
    started, release = threading.Event(), threading.Event()

    def slow_body() -> bytes:
        started.set()
        release.wait(10)
        return b"big"

    builder = threading.Thread(target=snap.rendered, args=(("match_out", "A", "x"), slow_body))
    builder.start()
    try:
        assert started.wait(5)
        done: list[events.Update] = []
        spectator = threading.Thread(target=lambda: done.append(reader.present(seen, 0)))
        spectator.start()
        spectator.join(2.0)
        assert done, "the spectator's present waited for the thread's rendering"
        assert [e["seq"] for e in public_entries(done[0].rendered)] == list(
            range(1, snap.version + 1)
        )
        since = snap.version - 1  # a shared text (memoised), built while the lock is held
        done.clear()
        spectator = threading.Thread(target=lambda: done.append(reader.present(seen, since)))
        spectator.start()
        spectator.join(2.0)
        assert done, "the spectator's present waited for the thread's rendering"
    finally:
        release.set()
        builder.join(10)


# -- a whole battle watched live --------------------------------------------------------------

B_SECRET = {"attachments": [["b1", "b2"]], "embarked": [["b4", "b5"]]}
B_PATTERNS = [re.compile(r'"b1"\s*,\s*"b2"'), re.compile(r'"b4"\s*,\s*"b5"')]
# never shown to a spectator, at any time: each seat's own declaration and its own copy
ALWAYS_SECRET = [re.compile(r"formation_declared"), re.compile(r"my_formation")]
# the same in the page's words: a seat's own declaration's timeline sentence
ALWAYS_SECRET_HTML = [*ALWAYS_SECRET, re.compile(r"secret until both", re.IGNORECASE)]


@pytest.mark.parametrize("first", ["A", "B"])
def test_a_live_spectator_of_a_whole_battle_never_receives_a_secret(
    new_game: Callable[..., Game], app: Any, client: TestClient, engine: Any, first: str
) -> None:
    """A 10th-edition battle played to its end (five battle rounds, every phase ended) with
    both seats' Battle Formations secret until both have declared (either seat declaring
    first, so each one's stays secret while the spectator watches), watched by a spectator
    whose SSE stream is open from before the first command to the end: every event it
    receives and a JSON read after every command are scanned for either seat's secrets (their
    pairs until the reveal; their declaration events and own copies always), and the page and
    its live fragment too after each declaration and every few commands of the battle; every
    entry it receives is public, and it receives the public log exactly, each entry once, in
    order."""
    from tests.matches.streams import collect, next_move, until

    g = new_game(check=False)  # the stream reads in another thread: no replay check
    token = both_agree(g)["token"]
    hub = events.hub_for(app)
    reader = spectate.spectator_reader(app.state.db, g.match_id, security.digest(token))
    seats = {"A": g.a, "B": g.b}
    received: list[dict[str, Any]] = []
    reads_: list[str] = []
    scanned = 0
    revealed = False

    def scan_new() -> None:
        nonlocal scanned
        patterns = ALWAYS_SECRET + ([] if revealed else PATTERNS[:3] + B_PATTERNS)
        for m in received[scanned:]:
            text = json.dumps(m["data"])
            assert not [p.pattern for p in patterns if p.search(text)], m
            if m["event"] == "entry":
                assert m["data"]["audience"] is None, m
        scanned = len(received)
        assert not [p.pattern for p in patterns if p.search(reads_[-1])]

    pages = 0

    def scan_html(version: int) -> dict[str, str]:
        """The page and its live fragment, as they stand at ``version``, scanned."""
        nonlocal pages
        patterns = ALWAYS_SECRET_HTML + (
            [] if revealed else PATTERNS[:3] + B_PATTERNS + HTML_PATTERNS
        )
        out: dict[str, str] = {}
        for name, headers in (("page", {}), ("fragment", {"HX-Request": "true"})):
            r = client.get(f"/spectate/{token}", headers=headers)
            assert r.status_code == 200, (name, r.text)
            assert f'data-version="{version}"' in r.text, name  # the scan reads the present
            assert not [p.pattern for p in patterns if p.search(r.text)], (name, r.text)
            out[name] = r.text
        pages += 1
        return out

    def command(seat: str, cmd: dict[str, Any], dice: list[int] | None = None) -> int:
        return int(seats[seat].send(cmd, dice=dice)["version"])

    def spectator_read() -> str:
        r = client.get(f"/api/v1/spectate/{token}")
        assert r.status_code == 200, r.text
        return r.text

    async def scenario() -> int:
        nonlocal revealed
        task = asyncio.create_task(
            collect(events.stream(hub, g.match_id, 0, reader, timeout=600, keepalive=600), received)
        )
        try:
            await until(lambda: any(m["event"] == "version" for m in received))
            if engine.dialect.name == "postgresql":
                # the LISTEN connection, once up, wakes every stream once: let it pass
                await until(lambda: hub.listening)
                await asyncio.sleep(0.3)
            moves = 0
            while True:
                view = (await asyncio.to_thread(g.a.get))["view"]
                if view["stage"] == "declare_formations" and not revealed:
                    order = [("A", SECRET), ("B", B_SECRET)]
                    for i, (seat, formation) in enumerate(order if first == "A" else order[::-1]):
                        version = await asyncio.to_thread(
                            command, seat, {"type": "declare_formations", "formation": formation}
                        )
                        await until(lambda v=version: _last(received) >= v)
                        reads_.append(await asyncio.to_thread(spectator_read))
                        if i == 1:
                            # the reveal: the scan now finds both formations in the view
                            found = [p.pattern for p in PATTERNS[:3] + B_PATTERNS]
                            assert all(re.search(p, reads_[-1]) for p in found), reads_[-1]
                            revealed = True
                        scan_new()
                        shown = await asyncio.to_thread(scan_html, version)
                        # the timeline the scan reads is current: the declaration, the reveal
                        name = seats[seat].client.user_name
                        said = [f"{name} has declared", "Battle Formations revealed."][i]
                        assert all(said in text for text in shown.values()), (said, shown)
                    continue
                move = next_move(view)
                if move is None:
                    break
                seat, cmd, dice = move
                version = await asyncio.to_thread(command, seat, cmd, dice)
                await until(lambda v=version: _last(received) >= v)
                reads_.append(await asyncio.to_thread(spectator_read))
                scan_new()
                moves += 1
                if moves % 15 == 0:
                    await asyncio.to_thread(scan_html, version)
            await asyncio.to_thread(scan_html, version)
            return moves
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    moves = asyncio.run(scenario())
    final = json.loads(reads_[-1])
    assert (final["status"], final["round"], final["view"]["stage"]) == ("ended", 5, "ended")
    assert moves > 40
    assert pages > 4
    log_a = g.a.client.get(f"{g.a.base}/log").json()["entries"]
    log_b = g.b.client.get(f"{g.b.base}/log").json()["entries"]
    public = [e for e in log_a if e["audience"] is None]
    assert public == [e for e in log_b if e["audience"] is None]
    assert len(public) < len(log_a)  # each seat's declaration stayed its own
    got = [m["data"] for m in received if m["event"] == "entry"]
    assert got == public  # every public entry, once, in order
    assert final["log"] == public


def _last(messages: list[dict[str, Any]]) -> int:
    versions = [m["id"] for m in messages if m["event"] == "version"]
    return versions[-1] if versions else -1


def test_a_spectator_never_sees_a_narrative_hidden_deployment_before_its_reveal(
    user_client: Callable[[str], TestClient], armies: Any, db: Session, client: TestClient
) -> None:
    """Meat Grinder's hidden deployment (the narrative pack): the Defender's tokens and which
    unit each hides are in nothing a spectator gets (JSON, the stream from the start and
    resumed, the page, its live block) until the reveal, when the same scan finds them."""
    from tests.matches.conftest import Player, marines, orks
    from tests.matches.test_narrative_match import LEAKS
    from tests.matches.test_narrative_match import SECRET as TOKENS

    html_leaks: list[re.Pattern[str]] = []  # filled once the units' names are known

    def leaks(material: dict[str, str]) -> list[tuple[str, str]]:
        """The JSON-shaped secrets in every material, and in the page and its live fragment
        (which never spell JSON) each token's label beside what it hides, as a reader sees it."""
        found = [(n, p.pattern) for n, t in material.items() for p in LEAKS if p.search(t)]
        return found + [
            (n, p.pattern)
            for n in ("page", "fragment")
            for p in html_leaks
            if p.search(material[n])
        ]

    alice, bob = user_client("Alice"), user_client("Bob")
    r = alice.post(
        "/api/v1/matches",
        json={
            "army_id": armies.ready(alice, orks()),
            "mission": "meat-grinder",
            "options": {"starting_cp": 2},
        },
    )
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, marines())},
    )
    assert r.status_code == 200, r.text
    g = Game(
        Player(alice, created["id"], "A", db), Player(bob, created["id"], "B", db), created["id"]
    )
    token = both_agree(g)["token"]
    g.a.send({"type": "roll_off"}, dice=[])  # B attacks (the larger army): A, the Defender, hides
    assert g.a.view()["narrative"]["attacker"] == "B"
    for p in (g.a, g.b):
        p.send({"type": "declare_formations", "formation": {}})
    g.a.send({"type": "use_mission_stratagem", "stratagem": "decoys"})
    names = {u["id"]: u["name"] for u in g.a.view()["units"]}
    # the hidden mapping as the page would word it: a token's label, then its unit's name
    # (or the decoy) in the same line; the names alone are public (the armies' units)
    html_leaks.extend(
        re.compile(rf"\b{t}\b[^<]*{re.escape(names[u]) if u else 'decoy'}", re.IGNORECASE)
        for t, u in TOKENS.items()
    )
    assert leaks(spectator_material(client, token)) == []
    g.a.send(
        {
            "type": "place_tokens",
            "tokens": TOKENS | {"t4": "a1", "t5": "a2", "t6": "a4", "t7": "a6"},
        }
    )
    assert g.a.view()["narrative"]["my_tokens"]["t1"] == "a3"  # A sees its own mapping
    hidden = spectator_material(client, token)
    assert leaks(hidden) == []
    # the spectator sees what B sees: seven tokens laid, none revealed
    seen = json.loads(hidden["json"])["view"]["narrative"]["tokens"]
    assert [t["token"] for t in seen] == [f"t{i}" for i in range(1, 8)]
    assert all(not t["revealed"] and t.get("unit") is None for t in seen)
    assert all(e["audience"] is None for e in public_entries(hidden["sse"]))
    # the reveal: B deploys, every token turns over, and the same scan now finds them
    g.b.send({"type": "deploy_forces", "units": ["b1", "b2", "b3", "b4", "b5", "b7"]})
    found = leaks(spectator_material(client, token))
    assert ("json", r'"unit"\s*:\s*"a[35]"') in found
    assert ("json", r'"revealed"\s*:\s*true') in found
    # each material that should show the secret now shows it: the scan of each is live
    for name in ("json", "sse", "sse resumed"):
        assert (name, r'"unit"\s*:\s*"a[35]"') in found, (name, found)
    for name in ("page", "fragment"):
        assert {p.pattern for p in html_leaks} == {p for n, p in found if n == name}, found
    assert not [f for f in found if "my_tokens" in f[1] or "tokens_placed" in f[1]]


def test_a_spectator_never_sees_a_black_reach_hand(
    br_game: Callable[..., PenGame],  # noqa: F811
    client: TestClient,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Black Reach's Action cards: the hands drawn (and the deck's order) are each seat's own;
    a spectator, through ``/api/v1/spectate/...`` (the JSON, the stream from the start and
    resumed) and the page, sees how many cards each side holds, never which, until a card is
    played face up: then the same scan finds that one card, and still none of the others."""
    from app.matches.systems import black_reach as system
    from tests.engine.black_reach.battle import test_cards as decks

    made = decks.setup()
    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: made)
    try:
        g = br_game(deployment="sample")
        token = both_agree(g)["token"]
        g.a.send({"type": "draw_cards", "discard": []})
        g.b.send({"type": "draw_cards", "discard": []})
        held = {seat: p.view()["cards"]["hand"] for seat, p in (("A", g.a), ("B", g.b))}
        hands = {seat: [c["card"] for c in h] for seat, h in held.items()}
        assert all(len(h) == 2 for h in hands.values()), hands
        secret = [*hands["A"], *hands["B"]]
        # the page and its live fragment name a card by its title, never by its id
        titles = {c["card"]: c["name"] for h in held.values() for c in h}
        assert all(titles[c] and titles[c] != c for c in secret), titles

        def seen(material: dict[str, str]) -> list[tuple[str, str]]:
            return [
                (name, needle)
                for name, text in material.items()
                for needle in (*secret, "cards_drawn")
                if needle in text
            ] + [
                (name, titles[card])
                for name in ("page", "fragment")
                for card in secret
                if re.search(rf"\b{re.escape(titles[card])}\b", material[name])
            ]

        material = spectator_material(client, token)
        assert seen(material) == []
        # how many, never which: the sides' counts (each player sees the other's), no hand
        cards = json.loads(material["json"])["view"]["cards"]
        assert cards["hand"] == []
        assert {side: c["hand"] for side, c in cards["sides"].items()} == {
            "ultramarines": 2,
            "orks": 2,
        }
        assert all(e["audience"] is None for e in public_entries(material["sse"]))

        g.b.send(
            {
                "type": "place_orders",
                "orders": [{"unit": decks.BOYZ1, "number": 1}, {"unit": decks.NOB, "number": 2}],
            }
        )
        g.a.send(
            {
                "type": "place_orders",
                "orders": [
                    {"unit": decks.TACTICAL, "number": 1},
                    {"unit": decks.SERGEANT, "number": 2},
                ],
            }
        )
        played = hands["B"][0]
        g.b.send({"type": "play_card", "card": played, "use": "event"})
        after = seen(spectator_material(client, token))
        # played face up: public, and the scan of each material finds it
        for name in ("json", "sse", "sse resumed"):
            assert (name, played) in after, (name, after)
        for name in ("page", "fragment"):
            assert (name, titles[played]) in after, (name, after)
        # and still none of the others (a copy of the same card has the same title)
        assert not [s for s in after if s[1] not in (played, titles[played])], after
    finally:
        system._scenario.cache_clear()
        system._shipped_content_id.cache_clear()
