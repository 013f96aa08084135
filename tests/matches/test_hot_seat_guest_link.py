"""Starting a hot seat ends the match's guest link everywhere, the streams' cached rows
included: the join's write is kept as the row a stream reads (``reads`` written rows), so the
link must be gone before that write, or a stream opened with the old guest link would read seat
B's entries at that version (review finding)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from app.matches import reads
from app.matches.invitations import Caller, seat_of
from app.matches.models import Match
from tests.matches.test_pages_black_reach import page_of, post_form


def test_the_old_guest_link_is_no_seat_once_the_hot_seat_starts(
    browser: Callable[[str], TestClient], app: object, db: Session
) -> None:
    alice = browser("Alice")
    data = {
        "csrf_token": alice.csrf,  # type: ignore[attr-defined]
        "ruleset": "black-reach",
        "mission": "sample-relay",
        "opponent": "guest",
        "option.deployment": "sample",
        "option.hot_seat": "1",
    }
    r = alice.post("/matches", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    page = page_of(alice, match_id)
    token = page.css_first("#guest-link").attributes["href"].rstrip("/").rsplit("/", 1)[1]
    post_form(alice, match_id, "#hot-seat-form", page=page, name="Bruno")
    db.expire_all()
    match = db.get(Match, match_id)
    assert match is not None
    assert match.guest_digest is None
    written = reads.cache.written.at(match_id, match.version)
    assert written is not None
    assert seat_of(written, Caller(None, token)) is None
    assert seat_of(match, Caller(None, token)) is None
    guest = TestClient(app)  # type: ignore[arg-type]
    r = guest.get(f"/api/v1/matches/{match_id}", headers={"X-Guest-Token": token})
    assert r.status_code == 404
