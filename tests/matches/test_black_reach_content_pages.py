"""The new-match form and the match page of a Black Reach match on a player's own content
set (issue 16): the set's scenarios offered as missions to their owner only, no sample
deployment for them, the page naming the set, a hot-seat start and a deployment from the page,
and the joiner's page naming the set."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.engine.black_reach.battle.setup import load_deployment
from tests.matches.test_pages_black_reach import HX, page_of, post_form, slug
from tests.support.web import html

CONTENT = "/api/v1/black-reach/content"
SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"


def my_set(client: TestClient) -> dict[str, Any]:
    r = client.post(f"{CONTENT}/sample/copy", json={"name": "Night raid"})
    assert r.status_code == 201, r.text
    row = r.json()
    scenario = dict(row["scenarios"][0]) | {"name": "Raid on the relay", "turns": 3}
    r = client.put(
        f"{CONTENT}/{row['id']}", json={"version": row["version"], "scenarios": [scenario]}
    )
    assert r.status_code == 200, r.text
    return dict(r.json())


def offered(client: TestClient) -> dict[str, str]:
    page = html(client.get("/matches?ruleset=black-reach"))
    return {
        str(o.attributes["value"]): o.text().strip()
        for o in page.css('select[name="mission"] option')
    }


def create(client: TestClient, mission: str, status: int = 303, **options: str) -> Any:
    data = {"csrf_token": client.csrf, "ruleset": "black-reach", "mission": mission}  # type: ignore[attr-defined]
    data |= {f"option.{k}": v for k, v in options.items()}
    r = client.post("/matches", data=data, follow_redirects=False)
    assert r.status_code == status, r.text
    return r


def test_the_form_offers_a_set_to_its_owner_and_the_page_names_it(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    my_set(alice)
    mine = offered(alice)
    (content_id,) = [k for k in mine if k.startswith("c-")]
    assert mine[content_id] == "Night raid: Raid on the relay"
    assert "sample-relay" in mine
    assert [k for k in offered(bob) if k.startswith("c-")] == []
    # Bob posts Alice's mission: refused at the field, nothing of her set in the answer
    r = create(bob, content_id, status=422)
    assert "Night raid" not in r.text
    assert "Raid on the relay" not in r.text
    # no sample deployment for a set's scenario (the form does not offer it; posted: 422)
    r = create(alice, content_id, status=422, deployment="sample")
    assert "sample deployment" in r.text
    r = create(alice, content_id)
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    page = page_of(alice, match_id)
    assert page.css_first("#mission").text().strip() == (
        "Content set Night raid: Raid on the relay"
    )
    # Bob joins on his phone: his page names the set too
    code = page.css_first("#invite-code").text().strip()
    r = bob.post(
        "/matches/join",
        data={"csrf_token": bob.csrf, "code": code, "join": "1"},  # type: ignore[attr-defined]
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    theirs = page_of(bob, match_id)
    assert theirs.css_first("#mission").text().strip() == (
        "Content set Night raid: Raid on the relay"
    )
    assert theirs.css_first("#stage").text().strip() == "Deployment"


def test_a_set_played_hot_seat_from_the_page(browser: Callable[[str], TestClient]) -> None:
    alice = browser("Alice")
    my_set(alice)
    content_id = next(k for k in offered(alice) if k.startswith("c-"))
    r = create(alice, content_id, hot_seat="1")
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    page = page_of(alice, match_id)
    assert page.css_first("#hot-seat-form") is not None
    r = alice.post(
        f"/matches/{match_id}/hot-seat",
        data={"csrf_token": alice.csrf, "name": "Carol"},  # type: ignore[attr-defined]
        headers=HX,
    )
    assert r.status_code == 200, r.text
    page = page_of(alice, match_id)
    assert len(page.css_first("svg#br-board").css("rect.sq")) == 8 * 12
    assert page.css_first("#playing-as").text().strip() == "Playing: Alice"
    form = page.css_first(f"#form-deploy-{slug(SERGEANT)}")
    assert form.attributes["action"] == f"/matches/{match_id}/hot-seat-act"
    spot = next(d for d in load_deployment("sample-relay") if d.unit == SERGEANT)
    after = post_form(
        alice, match_id, f"#form-deploy-{slug(SERGEANT)}", square=f"{spot.x},{spot.y}"
    )
    counter = after.css_first(f"#counter-{slug(SERGEANT)}")
    assert (counter.attributes["data-x"], counter.attributes["data-y"]) == (
        str(spot.x),
        str(spot.y),
    )
