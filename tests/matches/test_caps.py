"""The per-user cap on unfinished matches created (ADR 0011): the match past
``MAX_UNFINISHED`` is refused with 409 ``match-limit`` through the API and on the matches page's
form; cancelling one, or one ending, frees its place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update
from sqlalchemy.orm import Session

from app.matches import service
from app.matches.models import Match, MatchStatus
from tests.matches.conftest import FakeArmies, marines
from tests.support.problems import problem_detail
from tests.support.web import html


def create(client: TestClient, armies: FakeArmies) -> Any:
    return client.post("/api/v1/matches", json={"army_id": armies.ready(client, marines())})


def refused(response: Any) -> str:
    return problem_detail(response, 409, "match-limit")


@pytest.fixture
def two(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(service, "MAX_UNFINISHED", 2)


def test_the_match_past_the_cap_is_refused_and_cancelling_or_ending_frees_a_place(
    user_client: Callable[[str], TestClient], armies: FakeArmies, db: Session, two: None
) -> None:
    alice, bob = user_client("Alice"), user_client("Bob")
    first = create(alice, armies)
    assert first.status_code == 201, first.text
    second = create(alice, armies)
    assert second.status_code == 201, second.text
    detail = refused(create(alice, armies))
    assert "2 unfinished matches" in detail
    assert "cancel one" in detail
    assert create(bob, armies).status_code == 201  # per user
    # cancelling one frees its place
    assert alice.delete(f"/api/v1/matches/{first.json()['id']}").status_code == 204
    third = create(alice, armies)
    assert third.status_code == 201, third.text
    refused(create(alice, armies))
    # so does a match that is over
    db.execute(
        update(Match).where(Match.id == second.json()["id"]).values(status=MatchStatus.ENDED)
    )
    db.flush()
    assert create(alice, armies).status_code == 201
    refused(create(alice, armies))


def test_the_matches_page_form_says_why(
    browser: Callable[[str], TestClient], armies: FakeArmies, two: None
) -> None:
    alice = browser("Alice")

    def post() -> Any:
        data = {
            "csrf_token": alice.csrf,  # type: ignore[attr-defined]
            "army_id": armies.ready(alice, marines()),
            "opponent": "user",
        }
        return alice.post("/matches", data=data, follow_redirects=False)

    assert post().status_code == 303
    assert post().status_code == 303
    page = post()
    assert page.status_code == 409
    said = html(page).css_first("#new-match-error")
    assert said is not None
    assert "2 unfinished matches" in said.text()
