"""The players manage their match's spectator link from the match page (issue 21).

One panel for every rule system, outside the live state block: whether the link is on, the
link (shown again whenever the page is: it is derived from the match, only its digest is
stored), a copy button, and agree / new link / disable forms that answer the panel to htmx
and go back to the page (303) without it. The link turns on once both players agreed (ruling
S19). Whoever ``spectate.may_manage`` allows sees it (both players, a guest seat included);
anyone else gets the match's 404.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from selectolax.lexbor import LexborHTMLParser
from sqlalchemy.orm import Session

from app.core import security
from app.matches.models import Match
from tests.matches.conftest import FakeArmies, marines, start_match
from tests.matches.test_pages_black_reach import two_players
from tests.matches.test_pages_pen import create_pen_match
from tests.support.web import csrf, html

HX = {"HX-Request": "true"}


def panel(client: TestClient, match_id: int) -> Any:
    """The spectators panel of the player's match page (``None`` when it has none)."""
    r = client.get(f"/matches/{match_id}")
    assert r.status_code == 200, r.text
    return html(r).css_first("#spectators")


def form_data(form: Any) -> dict[str, str]:
    return {
        str(i.attributes["name"]): str(i.attributes.get("value") or "")
        for i in form.css("input[name]")
    }


def act(client: TestClient, match_id: int, action: str, *, htmx: bool = True) -> Any:
    """Post the panel's ``action`` form as the page shows it (with htmx: the answered panel;
    without: the 303 response)."""
    box = panel(client, match_id)
    assert box is not None
    form = box.css_first(f"#spectators-{action}-form")
    assert form is not None, [f.attributes.get("id") for f in box.css("form")]
    action_url = str(form.attributes["action"])
    assert form.attributes["hx-post"] == action_url
    assert form.attributes["hx-target"] == "#spectators"
    assert form.attributes["hx-swap"] == "outerHTML"
    assert form_data(form)["csrf_token"]
    r = client.post(
        action_url, data=form_data(form), headers=HX if htmx else {}, follow_redirects=False
    )
    if not htmx:
        return r
    assert r.status_code == 200, r.text
    assert "<html" not in r.text
    assert r.headers["vary"] == "HX-Request"
    answered = LexborHTMLParser(r.text).css_first("#spectators")
    assert answered is not None
    # the answered panel's own forms post again, with the CSRF token
    for again in answered.css("form"):
        assert form_data(again)["csrf_token"] == form_data(form)["csrf_token"]
        assert again.attributes["hx-target"] == "#spectators"
    return answered


def link_of(box: Any) -> str:
    field = box.css_first("#spectator-link-field")
    assert field is not None
    url = str(field.attributes["value"])
    assert box.css_first("#spectator-link").attributes["href"] == url
    copy = box.css_first("#copy-spectator-link")
    assert copy.attributes["data-copy"] == "#spectator-link-field"
    return url


def token_of(url: str) -> str:
    found = re.fullmatch(r"http://testserver/spectate/([A-Za-z0-9_-]{40,})", url)
    assert found is not None, url
    return found.group(1)


def spectate_status(client: TestClient, token: str) -> tuple[int, int]:
    """(the spectators' page, their JSON read) status codes for ``token``."""
    page = client.get(f"/spectate/{token}").status_code
    read = client.get(f"/api/v1/spectate/{token}").status_code
    return page, read


def is_off(box: Any) -> bool:
    return (
        box.attributes["data-enabled"] == "false"
        and box.css_first("#spectator-link-field") is None
        and box.css_first("#spectators-enable-form") is not None
        and box.css_first("#spectators-rotate-form") is None
        and box.css_first("#spectators-disable-form") is None
    )


def is_waiting(box: Any) -> bool:
    """The caller agreed; the link waits for the opponent's yes (ruling S19)."""
    return (
        box.attributes["data-enabled"] == "false"
        and box.css_first("#spectators-waiting") is not None
        and box.css_first("#spectators-enable-form") is None
        and box.css_first("#spectators-disable-form") is not None
    )


def turn_on(first: TestClient, second: TestClient, match_id: int) -> Any:
    """Both players agree from their pages; the second's answered panel (the link on)."""
    assert is_waiting(act(first, match_id, "enable"))
    asked = panel(second, match_id)
    assert asked.css_first("#spectators-asked") is not None
    box = act(second, match_id, "enable")
    assert box.attributes["data-enabled"] == "true"
    return box


# -- the whole round: enable, share, rotate, disable ------------------------------------------


def test_a_player_enables_rotates_and_disables_the_link_and_the_opponent_sees_it(
    browser: Callable[[str], TestClient], armies: FakeArmies, app: Any, db: Session
) -> None:
    alice, bob, match_id = start_match(browser, armies)
    outsider = TestClient(app, base_url="http://testserver")
    box = panel(alice, match_id)
    assert is_off(box)
    assert "open" not in box.attributes  # folded until opened, as on a phone
    assert box.css_first("#spectators-notice") is None
    # the panel stands outside the live block that each new version replaces
    state = html(alice.get(f"/matches/{match_id}")).css_first("#match-state")
    assert state.css_first("#spectators") is None
    assert is_off(panel(bob, match_id))

    # alice agrees: the link waits for bob's yes; bob is asked, agrees, and the answered panel
    # is unfolded, with the link and a copy button
    box = act(alice, match_id, "enable")
    assert is_waiting(box)
    assert "open" in box.attributes
    assert spectate_status(outsider, "x" * 43) == (404, 404)
    assert panel(bob, match_id).css_first("#spectators-asked") is not None
    box = act(bob, match_id, "enable")
    assert box.attributes["data-enabled"] == "true"
    assert "open" in box.attributes
    assert box.css_first("#spectators-notice") is not None
    first = link_of(box)
    token = token_of(first)
    assert "hidden" in box.css_first("#copy-spectator-link").attributes  # a script shows it
    assert {f.attributes["id"] for f in box.css("form")} == {
        "spectators-rotate-form",
        "spectators-disable-form",
    }
    assert spectate_status(outsider, token) == (200, 200)
    row = db.get(Match, match_id)
    assert row is not None
    db.refresh(row)
    assert row.spectate_digest == security.digest(token)  # the digest only: derived, not kept
    db.commit()

    # the link is shown again on a later visit (no "copy it now"), to both players, folded
    for player in (alice, bob):
        box = panel(player, match_id)
        assert box.attributes["data-enabled"] == "true"
        assert "open" not in box.attributes
        assert box.css_first("#spectators-notice") is None
        assert link_of(box) == first

    # bob makes a new link: the old one is 404 at once, the new one works
    box = act(bob, match_id, "rotate")
    second = link_of(box)
    assert second != first
    assert spectate_status(outsider, token) == (404, 404)
    assert spectate_status(outsider, token_of(second)) == (200, 200)
    assert link_of(panel(alice, match_id)) == second

    # alice turns it off without htmx (withdrawing her yes): back to the page, at the panel
    r = act(alice, match_id, "disable", htmx=False)
    assert r.status_code == 303, r.text
    assert r.headers["location"] == f"/matches/{match_id}#spectators-body"
    assert spectate_status(outsider, token_of(second)) == (404, 404)
    assert is_off(panel(alice, match_id))
    assert panel(alice, match_id).css_first("#spectators-asked") is not None  # bob's yes stays
    assert is_waiting(panel(bob, match_id))
    fresh = html(alice.get(f"/matches/{match_id}"))
    assert fresh.css_first("#spectators-body") is not None  # the anchor the 303 names

    # turned on again (alice agrees anew), it is a new link: a revoked one never comes back
    third = link_of(act(alice, match_id, "enable"))
    assert third not in (first, second)
    assert spectate_status(outsider, token_of(first)) == (404, 404)
    assert spectate_status(outsider, token_of(third)) == (200, 200)


def test_enabling_twice_keeps_the_link(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, bob, match_id = start_match(browser, armies)
    first = link_of(turn_on(alice, bob, match_id))
    r = bob.post(f"/matches/{match_id}/spectators", headers=HX)
    assert r.status_code == 200, r.text
    assert link_of(LexborHTMLParser(r.text).css_first("#spectators")) == first


def test_a_plain_form_without_its_csrf_token_changes_nothing(
    browser: Callable[[str], TestClient], armies: FakeArmies, app: Any
) -> None:
    alice, _bob, match_id = start_match(browser, armies)
    no_token = TestClient(app, base_url="http://testserver", cookies=dict(alice.cookies))
    r = no_token.post(f"/matches/{match_id}/spectators", data={}, follow_redirects=False)
    assert r.status_code == 403, r.text
    assert is_off(panel(alice, match_id))
    # the same form with the page's token: agreed, back to the page
    r = act(alice, match_id, "enable", htmx=False)
    assert r.status_code == 303, r.text
    assert is_waiting(panel(alice, match_id))


# -- who may -----------------------------------------------------------------------------------


def test_a_stranger_gets_a_404_and_changes_nothing(
    browser: Callable[[str], TestClient], armies: FakeArmies, app: Any
) -> None:
    alice, bob, match_id = start_match(browser, armies)
    link = link_of(turn_on(alice, bob, match_id))
    carol = browser("Carol")
    r = carol.get(f"/matches/{match_id}")
    assert r.status_code == 404
    assert html(r).css_first("#spectators") is None
    anonymous = TestClient(app, base_url="http://testserver")
    anonymous.headers["X-CSRF-Token"] = csrf(anonymous, "/login")
    for path in ("", "/rotate", "/disable"):
        url = f"/matches/{match_id}/spectators{path}"
        r = carol.post(url, headers=HX)
        assert r.status_code == 404, (path, r.text)
        assert "spectator-link" not in r.text
        r = carol.post(f"/matches/999999/spectators{path}", headers=HX)
        assert r.status_code == 404, (path, r.text)
        # no session (a valid CSRF token): the login page, as for the match page
        r = anonymous.post(url, follow_redirects=False)
        assert r.status_code == 303, (path, r.text)
        assert r.headers["location"] == f"/login?next={url}"
    assert link_of(panel(alice, match_id)) == link


def test_a_guest_seat_manages_the_link_as_spectate_may_manage_says(
    browser: Callable[[str], TestClient], armies: FakeArmies, app: Any
) -> None:
    alice = browser("Alice")
    r = alice.post(
        "/matches",
        data={"army_id": armies.ready(alice, marines()), "opponent": "guest"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    link = html(alice.get(f"/matches/{match_id}")).css_first("#guest-link").attributes["href"]
    path = re.sub(r"^http://testserver", "", str(link))
    guest = TestClient(app, base_url="http://testserver")
    token = html(guest.get(path)).css_first("#guest-form input[name=csrf_token]")
    r = guest.post(
        path,
        data={"csrf_token": token.attributes["value"], "name": "Gob", "sample": "orks"},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    # the guest (seat B, no account) sees the panel and agrees, as alice does
    assert is_waiting(act(guest, match_id, "enable"))
    assert panel(alice, match_id).css_first("#spectators-asked") is not None
    shared = link_of(act(alice, match_id, "enable"))
    assert link_of(panel(guest, match_id)) == shared
    assert link_of(panel(alice, match_id)) == shared
    # the same browser without the seat's cookie is nobody's seat
    stranger = TestClient(app, base_url="http://testserver")
    stranger.headers["X-CSRF-Token"] = csrf(stranger, "/login")
    url = f"/matches/{match_id}/spectators/disable"
    r = stranger.post(url, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert r.headers["location"] == f"/login?next={url}"
    assert link_of(panel(alice, match_id)) == shared


# -- every rule system -------------------------------------------------------------------------


def _tenth(browser: Callable[[str], TestClient], armies: FakeArmies) -> tuple[Any, Any, int]:
    return start_match(browser, armies)


def _pen(browser: Callable[[str], TestClient], armies: FakeArmies) -> tuple[Any, Any, int]:
    return create_pen_match(browser)


def _black_reach(browser: Callable[[str], TestClient], armies: FakeArmies) -> tuple[Any, Any, int]:
    return two_players(browser)


@pytest.mark.parametrize("make", [_tenth, _pen, _black_reach], ids=["10e", "pen", "black-reach"])
def test_the_panel_is_on_the_page_of_every_rule_system(
    make: Callable[..., tuple[Any, Any, int]],
    browser: Callable[[str], TestClient],
    armies: FakeArmies,
) -> None:
    alice, bob, match_id = make(browser, armies)
    assert is_off(panel(bob, match_id))
    link = link_of(turn_on(alice, bob, match_id))
    assert link_of(panel(alice, match_id)) == link
    assert bob.get(link.removeprefix("http://testserver")).status_code == 200


def test_the_panel_is_there_before_the_opponent_joins(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice = browser("Alice")
    r = alice.post(
        "/matches",
        data={"army_id": armies.ready(alice, marines()), "opponent": "user"},
        follow_redirects=False,
    )
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    assert is_off(panel(alice, match_id))
    # her yes is kept: the link turns on when the opponent joins and agrees (ruling S19)
    assert is_waiting(act(alice, match_id, "enable"))


# -- reloads, French ----------------------------------------------------------------------------


def test_a_reload_of_an_action_goes_back_to_the_match_page(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, _bob, match_id = start_match(browser, armies)
    for path in ("", "/rotate", "/disable"):
        r = alice.get(f"/matches/{match_id}/spectators{path}", follow_redirects=False)
        assert r.status_code == 303, (path, r.text)
        assert r.headers["location"] == f"/matches/{match_id}"
    assert is_off(panel(alice, match_id))  # a reload does nothing


def test_the_panel_in_french(browser: Callable[[str], TestClient], armies: FakeArmies) -> None:
    alice, bob, match_id = start_match(browser, armies)
    for player in (alice, bob):
        r = player.patch("/api/v1/me", json={"preferred_language": "fr"})
        assert r.status_code == 200, r.text
    box = panel(alice, match_id)
    assert box.css_first("summary").text(strip=True).startswith("Spectateurs")
    assert "La partie n'a pas de lien de spectateur." in box.text()
    assert box.css_first("#spectators-enable").text(strip=True) == "Accepter un lien de spectateur"
    box = act(alice, match_id, "enable")
    assert "quand votre adversaire" in box.css_first("#spectators-notice").text()
    assert box.css_first("#spectators-disable").text(strip=True) == "Retirer mon accord"
    box = act(bob, match_id, "enable")
    assert "Le lien de spectateur est activé" in box.css_first("#spectators-notice").text()
    assert box.css_first("#copy-spectator-link").text(strip=True) == "Copier"
    assert box.css_first("#spectators-state").text(strip=True) == "lien activé"
    labels = {b.text(strip=True) for b in box.css("form button")}
    assert labels == {"Nouveau lien (l'ancien cesse de fonctionner)", "Désactiver le lien"}
    box = act(alice, match_id, "rotate")
    assert "Nouveau lien de spectateur" in box.css_first("#spectators-notice").text()
    box = act(alice, match_id, "disable")
    assert box.css_first("#spectators-state").text(strip=True) == "lien désactivé"
    assert "ne suivent plus la partie" in box.css_first("#spectators-notice").text()


def test_the_spectators_timeline_tells_events_in_the_players_words(
    browser: Callable[[str], TestClient], armies: FakeArmies, app: Any
) -> None:
    """The spectators' timeline uses the sentences of the match's rule system (its page's
    ``sentence`` hook), not the events' kinds ("battle created")."""
    alice, bob, match_id = start_match(browser, armies)
    token = token_of(link_of(turn_on(alice, bob, match_id)))
    log = alice.get(f"/api/v1/matches/{match_id}/log").json()
    kinds = {str(e["event"]["type"]) for e in log["entries"]}
    assert kinds, log
    entries = html(TestClient(app).get(f"/spectate/{token}")).css("#spectate-timeline li")
    assert len(entries) >= 1
    texts = [e.text(strip=True) for e in entries]
    for text in texts:
        assert not any(kind.replace("_", " ") in text for kind in kinds), texts
        assert "_" not in text, texts
