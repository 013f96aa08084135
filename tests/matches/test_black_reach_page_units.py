"""The Black Reach page's forms beyond the battle's legal actions (issue 16,
``app/matches/pages/black_reach_units.py``): an assault's supporters with the exact odds for
each number of them, a move into a transport (tapped on the transport) and out of it again
(the unit's chip, aboard), the faces a counter shows, and the Changement d'état select."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from fastapi.testclient import TestClient
from starlette.datastructures import FormData

from app.matches.pages import black_reach
from app.matches.pages.black_reach_units import extras_of, supporters
from tests.engine.black_reach.battle.test_battle_rules import (
    BOYZ1,
    LIBRARIAN,
    SERGEANT,
    TACTICAL,
    TRANSPORT,
    _close_quarters,
    _setting_up_team,
)
from tests.matches.test_pages_black_reach import (
    BOLTER,
    ORKS,
    hot_seat,
    place_orders,
    post_form,
    slug,
)


def names_of(view: dict[str, Any]) -> dict[str, str]:
    return {u["id"]: u["name"] for u in view["units"]}


def test_an_assault_offers_its_supporters_with_the_odds_for_each_number() -> None:
    battle = _close_quarters()
    state = battle.state
    # the Sergeant stands in the Boyz' zone of control; the Librarian does not
    assert supporters(state, TACTICAL, BOYZ1) == [SERGEANT]
    view = battle.view("A")
    forms, _orders = black_reach.action_forms(
        battle.legal_actions("A"), names_of(view), extras_of(state, "ultramarines"), state
    )
    (assault,) = [f for f in forms if f.kind == "assault" and f.target == BOYZ1]
    assert assault.supporters == [(SERGEANT, "Sample sergeant")]
    assert LIBRARIAN not in dict(assault.supporters)
    # without support: tactical best of 2d6 + 3 against the Boyz' best of 2d6 + 4; with the
    # Sergeant both are best of 2d6 + 4: P(tie) = sum((2k-1)/36)^2 = 286/1296
    (one,) = assault.support_odds
    n, odds = one
    assert n == 1
    got = {o.outcome: Fraction(o.exact) for o in odds}
    assert got == {
        "attacker_wins": Fraction(505, 1296),
        "tie": Fraction(286, 1296),
        "defender_wins": Fraction(505, 1296),
    }
    plain = {o.outcome: Fraction(o.exact) for o in assault.odds}
    assert plain["attacker_wins"] < got["attacker_wins"]
    # the ticked box becomes the command's supporters; the battle activates the Sergeant
    form = FormData([("path", "[]"), ("supporter", SERGEANT), ("supporter", SERGEANT)])
    command = black_reach.build_command(form, dict(assault.command))
    assert command["supporters"] == [SERGEANT]
    events = battle.execute_json(command, "A", dice=[4, 2, 3, 1])
    assert [e.event.kind for e in events][:3] == [
        "order_revealed",
        "units_activated",
        "assault_resolved",
    ]
    line = black_reach.describe(
        {"type": "units_activated", "units": list(events[1].event.units)},
        names_of(battle.view("A")),
        {"ultramarines": "Alice"},
    )
    assert line == "Supporting the assault (Activated): Sample sergeant."


def test_no_supporter_box_without_one_and_a_flip_select_posts_its_moment() -> None:
    form = FormData([("path", "[]"), ("flip", "end")])
    assert black_reach.build_command(form, {"type": "move", "unit": "x"}) == {
        "type": "move",
        "unit": "x",
        "path": [],
        "flip": "end",
    }
    form = FormData([("path", "[]"), ("flip", "sideways")])
    assert "flip" not in black_reach.build_command(form, {"type": "move", "unit": "x"})
    form = FormData([("path", "[]"), ("supporter", "")])
    assert "supporters" not in black_reach.build_command(form, {"type": "assault", "unit": "x"})


def test_a_counter_shows_its_face() -> None:
    view = {
        "you": "orks",
        "seats": {"A": "ultramarines", "B": "orks"},
        "units": [
            {"id": "b", "side": "orks", "name": "Boyz", "face": "reduced", "at": {"x": 1, "y": 2}},
            {"id": "n", "side": "orks", "name": "Nob", "face": "intact", "at": {"x": 2, "y": 2}},
        ],
    }
    reduced, intact = black_reach.counters(view)
    assert (reduced.face_mark, intact.face_mark) == ("R", "")
    words = black_reach._Words()
    assert (words.face("reduced"), words.face("wreck")) == ("reduced face", "wreck")


def test_infantry_gets_into_a_transport_from_the_page_and_shows_aboard(
    browser: Callable[[str], TestClient],
) -> None:
    alice, match_id = hot_seat(browser)
    # Alice: the tactical squad's token 1; Bruno: the Boyz' token 1, who hold
    after = place_orders(alice, match_id, (TACTICAL, BOLTER, SERGEANT))
    page = post_form(alice, match_id, "#hand-off-form", page=after)
    page = place_orders(alice, match_id, ORKS, page=page)
    page = post_form(alice, match_id, f"#form-hold-{slug(BOYZ1)}", page=page)
    page = post_form(alice, match_id, "#hand-off-form", page=page)
    assert page.css_first("#playing-as").text().endswith("Alice")
    # a tap on the transport opens the tactical squad's form to get in
    taps = json.loads(page.css_first("#br-play").attributes["data-taps"])
    form_id = f"form-embark-{slug(TACTICAL)}-{slug(TRANSPORT)}"
    assert taps[TACTICAL]["targets"][TRANSPORT] == [form_id]
    form = page.css_first(f"#{form_id}")
    assert (
        form.css_first("p.form-title").text() == "Sample tactical squad gets into Sample transport"
    )
    ends = {o.attributes.get("data-to") for o in form.css('select[name="path"] option')}
    assert "4,2" in ends  # next to the transport (5,1)-(5,0)
    assert "2,3" not in ends  # a square the move reaches, not next to it
    value = form.css_first('select[name="path"] option[data-to="4,2"]').attributes["value"]
    after = post_form(alice, match_id, f"#{form_id}", page=page, path=value)
    # the hand-off: the board shows nothing; back to Alice's own view through the API
    assert after.css_first("#hand-off") is not None
    page = post_form(alice, match_id, "#hand-off-form", page=after)  # Bruno
    assert page.css_first(f"#counter-{slug(TACTICAL)}") is None  # off the board: aboard
    assert page.css_first(f"#counter-{slug(TRANSPORT)} text.passengers").text() == "+1"
    lines = [li.text() for li in page.css("#timeline li")]
    assert any("Sample tactical squad gets into Sample transport." in t for t in lines)
    card = page.css_first(f"#unit-{slug(TACTICAL)}").text()
    assert "in Sample transport" in card


def test_a_state_changing_unit_gets_a_flip_select_and_may_flip_where_it_stands() -> None:
    battle = _setting_up_team("active")  # Active: MV X, it flips with a null move
    state = battle.state
    extras = extras_of(state, "ultramarines")
    assert extras[BOLTER].flips is True
    assert extras[TACTICAL].flips is False
    assert set(extras[TACTICAL].transports) == {TRANSPORT}
    view = battle.view("A")
    forms, _orders = black_reach.action_forms(
        battle.legal_actions("A"), names_of(view), extras, state
    )
    (move,) = [f for f in forms if f.kind == "move" and f.unit == BOLTER]
    assert move.flips is True
    assert move.paths[-1] == ("", "[]", "where it stands")
    command = black_reach.build_command(
        FormData([("path", "[]"), ("flip", "start")]), dict(move.command)
    )
    assert (command["unit"], command["path"], command["flip"]) == (BOLTER, [], "start")
    events = battle.execute_json(command, "A")
    assert [e.event.kind for e in events] == ["order_revealed", "unit_flipped"]
    line = black_reach.describe(
        {"type": "unit_flipped", "unit": BOLTER, "face": "inactive"}, names_of(view), {}
    )
    assert line == "Sample heavy-weapon team changes state: it now shows its inactive face."
