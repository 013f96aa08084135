"""A content set's page leads to a match on it (issue 16): the owner's set links to the
new-match form, which offers its scenarios; a set shared by link offers its scenarios to
play without a copy."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from tests.blackreach.test_web import HOME, _browser, _copy_sample, _token
from tests.support.web import html


def test_an_own_set_links_to_a_match_on_it_and_a_shared_one_says_copy(app: Any) -> None:
    alice = _browser(app)
    path = _copy_sample(alice)
    page = html(alice.get(path))
    assert page.css_first("#play-link").attributes["href"] == "/matches?ruleset=black-reach"
    offered = html(alice.get("/matches?ruleset=black-reach"))
    labels = [o.text().strip() for o in offered.css('select[name="mission"] option')]
    assert any(label.startswith("Sample content (copy): ") for label in labels), labels
    # shared by link: read-only, copied to be played
    r = alice.post(f"{path}/share", data={"csrf_token": _token(alice, path)})
    assert r.status_code in (200, 303), r.text
    link = html(alice.get(path)).css_first("#share-link").attributes["href"]
    bob = _browser(app, "Bob")
    shared: TestClient = bob
    page = html(shared.get(str(link)))
    assert page.css_first("#play-link") is None
    # played without a copy (tests/matches/test_black_reach_shared_sets.py), or copied to edit
    assert "No copy needed" in page.css_first("#play-hint").text()
    assert page.css_first("#play-shared form.play-shared") is not None
    assert page.css_first("#copy-form") is not None
    # the sample: its scenario is offered in the new-match form already
    sample = html(shared.get(f"{HOME}/sample"))
    assert sample.css_first("#play-shared") is None
    assert "copy it into your sets" in sample.css_first("#play-hint").text()
    assert HOME in str(link)
