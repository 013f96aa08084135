"""The Black Reach page's Tir en Mouvement and a flamer aboard a transport of several squares
(issue 16, rulings 136 and 137): a move form of a unit with Tir en Mouvement asks for its
target and when it fires, and posts them with the move; a unit aboard a two-square transport
gets one flame form per square and direction, each naming its square."""

from __future__ import annotations

import json
from collections.abc import Callable

from fastapi.testclient import TestClient
from starlette.datastructures import FormData

from app.matches.pages import black_reach
from tests.engine.black_reach.battle import test_battle_rules as rules
from tests.engine.black_reach.battle import test_flamer_aboard as aboard
from tests.matches.test_pages_black_reach import (
    BOLTER,
    BOYZ1,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    page_of,
    place_orders,
    post_form,
    slug,
    two_players,
)


def test_a_tir_en_mouvement_from_the_page(browser: Callable[[str], TestClient]) -> None:
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, (rules.BUGGY, BOYZ1, NOB, SHOOTAS))
    place_orders(alice, match_id, (BOLTER, TACTICAL, SERGEANT))
    page = page_of(bob, match_id)
    css = f"#form-move-{slug(rules.BUGGY)}"
    form = page.css_first(css)
    assert form is not None, [f.attributes.get("id") for f in page.css("form")]
    aims = {o.attributes.get("value"): o.text() for o in form.css("select[name=fire_at] option")}
    assert aims[""] == "no shot"
    assert aims[rules.TRANSPORT] == "Sample transport"
    assert {rules.TRANSPORT, BOLTER, TACTICAL, SERGEANT} < set(aims)
    assert not any(a.startswith("orks:") for a in aims)
    assert form.css_first("input[name=fire_after]") is not None
    # the Boyz have no Tir en Mouvement: no target asked on their move
    assert page.css_first(f"#form-move-{slug(BOYZ1)} select[name=fire_at]") is None
    to = form.css_first('select[name="path"] option[data-to="6,8"]')
    assert to is not None
    after = post_form(
        bob,
        match_id,
        css,
        page=page,
        path=str(to.attributes["value"]),
        fire_at=rules.TRANSPORT,
        fire_after="",
        dice="5",
    )
    error = after.css_first("#match-error")
    assert error is None, error.text()
    said = [li.text() for li in after.css("#timeline li")]
    assert any("Sample buggy shoots Sample transport: 6 against 6" in t for t in said), said


def test_a_move_form_posts_its_tir_en_mouvement() -> None:
    cmd = {"type": "move", "unit": "u"}
    made = black_reach.build_command(
        FormData([("path", "[]"), ("fire_at", "t"), ("fire_after", "2")]), dict(cmd)
    )
    assert (made["fire_at"], made["fire_after"]) == ("t", 2)
    # no target, no step count; a reserve move never shoots
    made = black_reach.build_command(FormData([("fire_at", ""), ("fire_after", "2")]), dict(cmd))
    assert "fire_at" not in made
    assert "fire_after" not in made
    reserve = black_reach.build_command(
        FormData([("fire_at", "t")]), {"type": "reserve_move", "unit": "u"}
    )
    assert "fire_at" not in reserve
    # both asked: the flame is sent (a move fires once, rulings 123)
    both = black_reach.build_command(FormData([("fire_at", "t"), ("flame", "N")]), dict(cmd))
    assert both["flame"] == "N"
    assert "fire_at" not in both


def test_a_flame_aboard_a_two_square_transport_has_a_form_per_square() -> None:
    battle = aboard.aboard()
    actions = battle.actions(aboard.A)
    names = {u["id"]: u["name"] for u in battle.view(aboard.A)["units"]}
    forms, _ = black_reach.action_forms(actions, names, {}, battle.state, battle.view(aboard.A))
    flames = [f for f in forms if f.kind == "flame"]
    slugs = [f.slug for f in flames]
    assert (
        len(slugs)
        == len(set(slugs))
        == len([a for a in actions if a["command"]["type"] == "flame"])
    )
    east = next(f for f in flames if f.slug.endswith("-E-4-3"))
    assert east.label.endswith("direction east, from the transport's square (4, 3)"), east.label
    assert json.loads(east.command_json)["x"] == 4
