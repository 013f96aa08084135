"""A PEN battle played on its match page (issue 13, phase 2): the new-match form offers the
rule system, then its missions and lists; the page's forms come from the battle's legal
actions, the table's measures are inputs, the timeline reads as sentences, undo is asked and
approved, a stale form is a notice, every form carries its CSRF token."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.matches.test_pen_match import devastators, guard, marine, ready_pen_list, rhino
from tests.support.web import html

HX = {"HX-Request": "true"}


def page_of(client: TestClient, match_id: int) -> Any:
    r = client.get(f"/matches/{match_id}")
    assert r.status_code == 200, r.text
    return html(r)


def post_form(client: TestClient, match_id: int, css: str, **inputs: str) -> Any:
    """Fill the form ``css`` of the page as a player would, post it with htmx; the new state."""
    page = page_of(client, match_id)
    form = page.css_first(css)
    assert form is not None, (css, [f.attributes.get("id") for f in page.css("form")])
    data: dict[str, str] = {}
    for field in form.css("input, select"):
        name = field.attributes.get("name")
        if not name:
            continue
        if field.tag == "select":
            option = field.css_first("option[selected]") or field.css_first("option")
            data[name] = option.attributes.get("value") or ""
        elif field.attributes.get("type") == "checkbox":
            continue
        else:
            data[name] = field.attributes.get("value") or ""
    data.update(inputs)
    r = client.post(f"/matches/{match_id}/act", data=data, headers=HX)
    assert r.status_code == 200, r.text
    return html(r)


def create_pen_match(browser: Callable[[str], TestClient]) -> tuple[TestClient, TestClient, int]:
    alice, bob = browser("Alice"), browser("Bob")
    mine = ready_pen_list(alice, [marine(), devastators()], "Marines")
    theirs = ready_pen_list(bob, [guard(), rhino()], "Garde")
    page = html(alice.get("/matches?ruleset=pen"))
    systems = [o.attributes["value"] for o in page.css("#ruleset-select option")]
    assert systems == ["wh40k-10e", "pen", "black-reach"]
    assert page.css_first("#ruleset-select option[selected]").attributes["value"] == "pen"
    lists = [o.text() for o in page.css("#new-match-form select[name=army_id] option")]
    assert lists == ["Marines"]
    form = "#new-match-form select"
    missions = [o.attributes["value"] for o in page.css(f"{form}[name=mission] option")]
    assert set(missions) == {"pen-objectives", "pen-zones", "pen-annihilation"}
    sizes = [o.attributes["value"] for o in page.css(f"{form}[name=battle_size] option")]
    assert sizes == ["1000", "1500", "2000"]
    r = alice.post(
        "/matches",
        data={
            "csrf_token": alice.csrf,  # type: ignore[attr-defined]
            "ruleset": "pen",
            "army_id": str(mine),
            "mission": "pen-objectives",
            "battle_size": "1000",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    code = page_of(alice, match_id).css_first("#invite-code").text().strip()
    join = html(bob.get(f"/matches/join/{code}"))
    assert [o.text() for o in join.css("#join-form select[name=army_id] option")] == ["Garde"]
    r = bob.post(
        "/matches/join",
        data={"csrf_token": bob.csrf, "code": code, "army_id": str(theirs)},  # type: ignore[attr-defined]
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return alice, bob, match_id


def set_up_on_the_page(alice: TestClient, bob: TestClient, match_id: int) -> None:
    post_form(alice, match_id, "#form-end-step")  # no reserves
    post_form(bob, match_id, "#form-end-step")
    page = post_form(alice, match_id, "#form-roll-off", dice="5 2")
    assert "Alice wins the roll-off." in page.css_first("#timeline").text()
    post_form(alice, match_id, "#form-choose-first-A")
    for client, units in ((alice, ("a1", "a2")), (bob, ("b1", "b2"))):
        for unit in units:
            post_form(client, match_id, f"#form-deploy-{unit}")
        post_form(client, match_id, "#form-end-step")


def test_a_pen_battle_on_its_page(browser: Callable[[str], TestClient]) -> None:
    alice, bob, match_id = create_pen_match(browser)
    page = page_of(bob, match_id)
    assert page.css_first("#stage").text().startswith("Reserves")
    assert {c.attributes["id"] for c in page.css("#units-A li")} == {"unit-a1", "unit-a2"}
    set_up_on_the_page(alice, bob, match_id)
    page = page_of(alice, match_id)
    assert page.css_first("#round").text() == "Round 1"
    assert page.css_first("#phase").text() == "Start of the turn"
    # every form of the page carries the CSRF token
    for form in page.css("form[method=post]"):
        assert form.css_first("input[name=csrf_token]") is not None, form.html
    page = post_form(alice, match_id, "#form-start-turn", dice="1")
    assert page.css_first("#night").text() == "Night"
    # a move: its speed and inches are inputs
    page = post_form(alice, match_id, "#form-move-a2", speed="stationary", inches="0")
    assert "Escouade tactique" not in page.css_first("#timeline li").text()
    assert "Devastators moves (stationary" in page.css_first("#timeline").text()
    # the squad being moved shoots: target, weapon and range are inputs
    page = post_form(
        alice, match_id, "#form-shoot-a2", target="b2", weapon="Lascannon", range_inches="20"
    )
    shot = page.css_first("#timeline li").text()
    assert "Devastators shoots Rhino with Lascannon." in shot
    assert page.css_first("#timeline li .die") is not None
    # the shot rolled dice: undo needs the opponent's approval
    r = alice.post(
        f"/matches/{match_id}/act",
        data={
            "csrf_token": alice.csrf,  # type: ignore[attr-defined]
            "version": page.css_first("#match-state").attributes["data-version"],
            "command": json.dumps({"type": "undo"}),
        },
        headers=HX,
    )
    assert r.status_code == 200, r.text
    assert html(r).css_first("#undo-request") is not None
    theirs = page_of(bob, match_id)
    assert theirs.css_first("#approve-undo-button") is not None
    assert "An undo to approve" in theirs.css_first("#waiting-on-you").text()
    r = bob.post(
        f"/matches/{match_id}/act",
        data={
            "csrf_token": bob.csrf,  # type: ignore[attr-defined]
            "version": theirs.css_first("#match-state").attributes["data-version"],
            "command": theirs.css_first("#approve-undo-button")
            .parent.css_first("input[name=command]")
            .attributes["value"],
        },
        headers=HX,
    )
    assert r.status_code == 200, r.text
    rhino_card = page_of(alice, match_id).css_first("#unit-b2")
    assert "HP 3/3" in rhino_card.text()
    page = page_of(alice, match_id)
    assert page.css_first("#timeline del") is not None  # the undone shot, struck through


def test_a_stale_pen_form_is_a_notice_and_a_form_without_csrf_is_refused(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob, match_id = create_pen_match(browser)
    page = page_of(alice, match_id)
    version = page.css_first("#match-state").attributes["data-version"]
    post_form(bob, match_id, "#form-end-step")
    r = alice.post(
        f"/matches/{match_id}/act",
        data={
            "csrf_token": alice.csrf,  # type: ignore[attr-defined]
            "version": version,
            "command": json.dumps({"type": "end_step"}),
        },
        headers=HX,
    )
    assert r.status_code == 200
    assert r.headers["X-Match-Refusal"] == "stale_version"
    assert html(r).css_first("#match-error") is not None
    no_token = TestClient(alice.app, cookies=dict(alice.cookies))
    r = no_token.post(
        f"/matches/{match_id}/act",
        data={"version": version, "command": json.dumps({"type": "end_step"})},
    )
    assert r.status_code == 403


def test_a_pen_page_has_no_10e_form(browser: Callable[[str], TestClient]) -> None:
    alice, _bob, match_id = create_pen_match(browser)
    r = alice.post(
        f"/matches/{match_id}/formation",
        data={"csrf_token": alice.csrf, "version": "2"},  # type: ignore[attr-defined]
    )
    assert r.status_code == 404


def test_the_new_match_form_asks_whether_both_players_confirm_the_result(
    browser: Callable[[str], TestClient], db: Any
) -> None:
    """The option ``confirm_result`` (pen rulings B18) from the new-match form's select: "1"
    records it; the Dynamics turn, which has no confirmation, refuses it at the field."""
    alice = browser("Alice")
    mine = ready_pen_list(alice, [marine(), devastators()], "Marines")
    page = html(alice.get("/matches?ruleset=pen"))
    choices = page.css("#new-match-form select[name='option.confirm_result'] option")
    assert [o.attributes["value"] for o in choices] == ["", "1"]
    base = {
        "csrf_token": alice.csrf,  # type: ignore[attr-defined]
        "ruleset": "pen",
        "army_id": str(mine),
        "mission": "pen-objectives",
        "battle_size": "1000",
        "option.confirm_result": "1",
    }
    r = alice.post("/matches", data=base, follow_redirects=False)
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    from app.matches.models import Match

    created = db.get(Match, match_id)
    assert created.army_a["options"]["confirm_result"] is True
    r = alice.post("/matches", data={**base, "option.turn_structure": "dynamics"})
    assert r.status_code == 422, r.text
    assert "confirm_result" in r.text or "not an option" in r.text


def test_the_new_match_form_sets_each_armys_pilots_for_the_dynamics_turn(
    browser: Callable[[str], TestClient], db: Any
) -> None:
    """``pilots`` (Dyn [L197]: a non-walker vehicle acts at its pilot's Initiative, 3 by
    default) from two selects, one per army; empty keeps the default; out of range or under
    the classic turn, a 422 at the field."""
    from app.matches.models import Match

    alice = browser("Alice")
    mine = ready_pen_list(alice, [marine(), devastators()], "Marines")
    page = html(alice.get("/matches?ruleset=pen"))
    for name in ("pilot_a", "pilot_b"):
        choices = page.css(f"#new-match-form select[name='option.{name}'] option")
        assert [o.attributes["value"] for o in choices] == ["", *map(str, range(1, 11))]
    base = {
        "csrf_token": alice.csrf,  # type: ignore[attr-defined]
        "ruleset": "pen",
        "army_id": str(mine),
        "mission": "pen-objectives",
        "battle_size": "1000",
        "option.turn_structure": "dynamics",
        "option.pilot_a": "4",
        "option.pilot_b": "",
    }
    r = alice.post("/matches", data=base, follow_redirects=False)
    assert r.status_code == 303, r.text
    created = db.get(Match, int(r.headers["location"].rsplit("/", 1)[1]))
    assert created.army_a["options"]["pilots"] == {"A": 4}
    assert "pilot_a" not in created.army_a["options"]
    r = alice.post("/matches", data={**base, "option.pilot_b": "11"})
    assert r.status_code == 422, r.text
    assert "pilot_b" in r.text
    r = alice.post("/matches", data={**base, "option.turn_structure": "classic"})
    assert r.status_code == 422, r.text


def test_the_new_match_form_gives_the_dynamics_plus_two_to_a_seat(
    browser: Callable[[str], TestClient], db: Any
) -> None:
    """``plus_two`` (dynamics rulings D9, Dyn [L140]): the seat whose role would begin the
    battle, chosen on the form; a classic turn has no advantage tests and refuses it."""
    from app.matches.models import Match

    alice = browser("Alice")
    mine = ready_pen_list(alice, [marine(), devastators()], "Marines")
    page = html(alice.get("/matches?ruleset=pen"))
    choices = page.css("#new-match-form select[name='option.plus_two'] option")
    assert [o.attributes["value"] for o in choices] == ["", "A", "B"]
    base = {
        "csrf_token": alice.csrf,  # type: ignore[attr-defined]
        "ruleset": "pen",
        "army_id": str(mine),
        "mission": "pen-objectives",
        "battle_size": "1000",
        "option.turn_structure": "dynamics",
        "option.plus_two": "B",
    }
    r = alice.post("/matches", data=base, follow_redirects=False)
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    created = db.get(Match, match_id)
    assert created.army_a["options"]["plus_two"] == "B"
    r = alice.post("/matches", data={**base, "option.turn_structure": "classic"})
    assert r.status_code == 422, r.text
