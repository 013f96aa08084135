"""Black Reach through the match (issue 16): a heavy vehicle's Double Tir during its move from
the move's form, its Rafale during a move through the API (rulings 140); the owner's square for
a destroyed transport's passengers (rulings 143)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.engine.black_reach.battle import test_deploy_aboard as aboard
from tests.engine.black_reach.battle import test_vehicle_assaults as armour
from tests.engine.black_reach.battle import test_vehicle_multi_shots_on_move as tanks
from tests.engine.black_reach.battle import test_wreck_passengers as wreck
from tests.matches.test_black_reach_page_ambush import send
from tests.matches.test_pages_black_reach import (
    page_of,
    place_orders,
    post_form,
    slug,
    two_players,
)
from tests.matches.test_pages_black_reach_actions import lines, played_on, taps_of

MATCHES = "/api/v1/matches"


def _tank_to_move(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> tuple[TestClient, TestClient, int]:
    played_on(monkeypatch, tanks.gunned())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(alice, match_id, (tanks.TANK,))
    place_orders(bob, match_id, (tanks.SHOOTAS, tanks.NOB))
    r = send(bob, match_id, {"type": "hold", "unit": tanks.SHOOTAS})
    assert r.status_code == 200, r.text
    return alice, bob, match_id


def test_a_tanks_double_tir_during_a_move_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, match_id = _tank_to_move(browser, monkeypatch)
    page = page_of(alice, match_id)
    form = page.css_first(f"#form-move-{slug(tanks.TANK)}")
    assert form is not None
    firing = form.css_first("fieldset.fire-during")
    assert firing is not None
    assert firing.css_first("select[name=fire_second]") is not None
    after = post_form(
        alice,
        match_id,
        f"#form-move-{slug(tanks.TANK)}",
        page=page,
        path='[[2,2,"N"]]',
        fire_at=tanks.BOYZ1,
        fire_second=tanks.NOB,
    )
    said = lines(after)
    assert sum("Sample battle tank" in t and "Sample nob" in t for t in said) >= 1, said
    log = bob.get(f"{MATCHES}/{match_id}/log").json()["entries"]
    shots = [e["event"] for e in log if e["event"]["type"] == "unit_shot"]
    fired = [(s["weapon"], s["target"], s["moving_penalty"]) for s in shots]
    # the server rolls the dice: when the main weapon's hit destroys the Boyz, the secondary
    # weapon's share at them has no target left and only its share at the Nob is fired
    assert fired[0] == ("main_1", tanks.BOYZ1, 1)
    assert fired[-1] == ("secondary_1", tanks.NOB, 2)
    if shots[0]["outcome"] == "miss":
        assert fired[1:-1] == [("secondary_1", tanks.BOYZ1, 2)]
    else:
        assert fired[1:-1] in ([], [("secondary_1", tanks.BOYZ1, 2)])


def test_a_tanks_rafale_during_a_move_through_the_api(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, match_id = _tank_to_move(browser, monkeypatch)
    bad = tanks.move(tanks.shot("main_1", tanks.BOYZ1, 2), tanks.shot("main_1", tanks.BOYZ2, 1))
    r = send(alice, match_id, bad, dice=[6, 6])
    assert r.status_code == 409, r.text
    assert r.json()["refusal"] == "burst_total"
    good = tanks.move(tanks.shot("main_1", tanks.BOYZ1, 1), tanks.shot("main_1", tanks.BOYZ2, 1))
    r = send(alice, match_id, good, dice=[3, 2])
    assert r.status_code == 200, r.text
    log = bob.get(f"{MATCHES}/{match_id}/log").json()["entries"]
    declared = [e["event"] for e in log if e["event"]["type"] == "burst_declared"]
    assert [(d["weapon"], d["modified_cv"]) for d in declared] == [("main_1", 2)]
    # the opponent's view of the tank: moved to (2, 2)
    seen = bob.get(f"{MATCHES}/{match_id}").json()["view"]
    at = next(u["at"] for u in seen["units"] if u["id"] == tanks.TANK)
    assert (at["x"], at["y"]) == (2, 2)


def test_a_tanks_rafale_during_a_move_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, match_id = _tank_to_move(browser, monkeypatch)
    page = page_of(alice, match_id)
    form = page.css_first(f"#form-move-{slug(tanks.TANK)}")
    assert form is not None
    # the move's form names its Tir en Mouvement weapons and offers the main gun's Rafale
    guns = [str(i.attributes.get("value")) for i in form.css("input[name=move_gun]")]
    assert guns == ["main_1|0", "secondary_1|1"]
    burst = form.css_first("details.move-burst")
    assert burst is not None
    assert burst.attributes.get("data-weapon") == "main_1"
    assert burst.css_first(f"input[name='burst.main_1.{tanks.BOYZ1}']") is not None
    # the Rafale splits the main gun's CV between the boyz; the secondary fires at the nob
    shares = {f"burst.main_1.{tanks.BOYZ1}": "1", f"burst.main_1.{tanks.BOYZ2}": "1"}
    post_form(
        alice,
        match_id,
        f"#form-move-{slug(tanks.TANK)}",
        page=page,
        path='[[2,2,"N"]]',
        fire_at=tanks.NOB,
        move_gun=guns,  # type: ignore[arg-type]
        **shares,
    )
    log = bob.get(f"{MATCHES}/{match_id}/log").json()["entries"]
    declared = [e["event"] for e in log if e["event"]["type"] == "burst_declared"]
    assert [(d["weapon"], d["modified_cv"]) for d in declared] == [("main_1", 2)]
    shots = [e["event"] for e in log if e["event"]["type"] == "unit_shot"]
    assert [(s["weapon"], s["target"]) for s in shots] == [
        ("main_1", tanks.BOYZ1),
        ("main_1", tanks.BOYZ2),
        ("secondary_1", tanks.NOB),
    ]
    seen = bob.get(f"{MATCHES}/{match_id}").json()["view"]
    at = next(u["at"] for u in seen["units"] if u["id"] == tanks.TANK)
    assert (at["x"], at["y"]) == (2, 2)


def test_a_squad_is_deployed_aboard_its_transport_from_the_page(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob, match_id = two_players(browser)  # the players deploy
    page = page_of(alice, match_id)
    ids = [str(f.attributes.get("id") or "") for f in page.css("form")]
    assert not [i for i in ids if i.startswith("form-deploy-aboard")]  # no transport placed
    post_form(alice, match_id, f"#form-deploy-{slug(aboard.TRANSPORT)}", square="5,1", facing="S")
    page = page_of(alice, match_id)
    css = f"#form-deploy-aboard-{slug(aboard.TACTICAL)}-{slug(aboard.TRANSPORT)}"
    form = page.css_first(css)
    assert form is not None, [f.attributes.get("id") for f in page.css("form")]
    assert "Deploy Sample tactical squad aboard Sample transport" in form.text()
    after = post_form(alice, match_id, css, page=page)
    said = lines(after)
    assert any("Sample tactical squad is deployed aboard Sample transport." in t for t in said), (
        said
    )
    assert after.css_first(f"#aboard-{slug(aboard.TACTICAL)}") is not None
    # through the API, a full transport refuses before anything changes
    r = send(alice, match_id, aboard.aboard(aboard.SERGEANT))
    assert r.status_code == 200, r.text
    r = send(alice, match_id, aboard.aboard(aboard.BOLTER))
    assert r.status_code == 409, r.text
    assert r.json()["refusal"] == "transport_full"
    seen = bob.get(f"{MATCHES}/{match_id}").json()["view"]
    squad = next(u for u in seen["units"] if u["id"] == aboard.TACTICAL)
    assert (squad["embarked_in"], squad["at"]) == (aboard.TRANSPORT, None)


def test_the_owner_chooses_its_retreat_square_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, armour.shootas_in_front())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(alice, match_id, (armour.TANK,))
    place_orders(bob, match_id, (armour.SHOOTAS, armour.NOB))
    r = send(alice, match_id, armour.TANK_ON_SHOOTAS, dice=[6, 1, 1, 1])
    assert r.status_code == 200, r.text
    page = page_of(bob, match_id)
    said = lines(page)
    assert any("Sample shootas must leave its square" in t for t in said), said
    ids = [str(f.attributes.get("id") or "") for f in page.css("form")]
    offered = [i for i in ids if i.startswith("form-choose-square")]
    assert len(offered) == 3, ids
    first = page.css_first(f"#{offered[0]}")
    assert "Sample shootas retreats to (3, 3) (the first open square)" in first.text()
    assert not [i for i in ids_of(page_of(alice, match_id)) if i.startswith("form-choose")]
    css = f"#form-choose-square-{slug(armour.SHOOTAS)}-3-4"
    # on a phone: tap the shootas, then one of the squares offered
    tapped = taps_of(page)[armour.SHOOTAS]["squares"]
    assert sorted(tapped) == ["3,2", "3,3", "3,4"]
    assert tapped["3,4"]["form"] == css.removeprefix("#")
    post_form(bob, match_id, css, page=page)
    seen = alice.get(f"{MATCHES}/{match_id}").json()["view"]
    at = {u["id"]: u["at"] for u in seen["units"]}
    assert (at[armour.SHOOTAS]["x"], at[armour.SHOOTAS]["y"]) == (3, 4)
    assert (at[armour.TANK]["x"], at[armour.TANK]["y"]) == (2, 3)
    assert seen["square_awaited"] is None


def ids_of(page: Any) -> list[str]:
    return [str(f.attributes.get("id") or "") for f in page.css("form")]


def test_the_owner_chooses_its_passengers_squares_out_of_the_wreck(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob, match_id = two_players(browser)  # the players deploy
    for unit, d in wreck.PLACES.items():
        seat = alice if unit.startswith("ultramarines:") else bob
        if unit in (wreck.TACTICAL, wreck.SERGEANT):
            continue
        command = {"type": "deploy", "unit": unit, "x": d.x, "y": d.y, "facing": d.facing}
        assert send(seat, match_id, command).status_code == 200
    for unit in (wreck.TACTICAL, wreck.SERGEANT):
        r = send(alice, match_id, aboard.aboard(unit))
        assert r.status_code == 200, r.text
    for seat in (alice, bob):
        assert send(seat, match_id, {"type": "end_deployment"}).status_code == 200
    for seat, first in ((bob, wreck.ORKS), (alice, (wreck.BOLTER, wreck.TACTICAL, wreck.SERGEANT))):
        after = place_orders(seat, match_id, first)
        assert not after.css(".error"), after.html
    for seat, unit in ((bob, wreck.BOYZ1), (alice, wreck.BOLTER)):
        r = send(seat, match_id, {"type": "hold", "unit": unit})
        assert r.status_code == 200, r.text
    r = send(bob, match_id, wreck.SHOT, dice=[5])  # the transport is destroyed
    assert r.status_code == 200, r.text
    awaited = alice.get(f"{MATCHES}/{match_id}").json()["view"]["square_awaited"]
    first = awaited["unit"]
    assert awaited["why"] == "out of the wreck"
    assert awaited["squares"][0] == [4, 0]
    # the other seat may not choose
    x, y = awaited["squares"][-1]
    r = send(bob, match_id, {"type": "choose_square", "unit": first, "x": x, "y": y})
    assert r.status_code == 409, r.text
    assert r.json()["refusal"] == "not_your_turn"
    # the board page offers each square, the first as the default
    page = page_of(alice, match_id)
    said = lines(page)
    assert any("gets out of the wreck of Sample transport" in t for t in said), said
    ids = [str(f.attributes.get("id") or "") for f in page.css("form")]
    offered = [i for i in ids if i.startswith("form-choose-square")]
    assert len(offered) == len(awaited["squares"]), ids
    default = page.css_first(f"#{offered[0]}")
    assert "gets out of the wreck to (4, 0) (the first open square)" in default.text()
    post_form(alice, match_id, f"#form-choose-square-{slug(first)}-{x}-{y}", page=page)
    seen = bob.get(f"{MATCHES}/{match_id}").json()["view"]
    at = {u["id"]: u["at"] for u in seen["units"]}
    assert (at[first]["x"], at[first]["y"]) == (x, y)
    second = seen["square_awaited"]["unit"]
    assert second != first
    assert [x, y] not in seen["square_awaited"]["squares"]
    r = send(alice, match_id, {"type": "choose_square", "unit": second, "x": 4, "y": 0})
    assert r.status_code == 200, r.text
    seen = bob.get(f"{MATCHES}/{match_id}").json()["view"]
    at = {u["id"]: u["at"] for u in seen["units"]}
    assert (at[second]["x"], at[second]["y"]) == (4, 0)
    assert seen["square_awaited"] is None
    log = bob.get(f"{MATCHES}/{match_id}/log").json()["entries"]
    moved = [e["event"]["unit"] for e in log if e["event"]["type"] == "forced_move"]
    assert moved == [first, second]
