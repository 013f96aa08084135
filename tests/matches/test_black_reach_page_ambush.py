"""Black Reach on the match page and the API (issue 16, rulings 114-123): ambush and
spotting (a counter deployed in ambush, not offered as a target, spotted at the end of an
enemy move with its timeline sentence), the deploy form's face (a counter deployed in ambush
from the page); a tank's assault on infantry
pushing it aside; the other side's En Alerte against an assault's move; Tir en Mouvement and
Double Tir during a move from the move's form; an assault from a transport.

The battles are the engine tests' own boards, set up for a match by replacing the sample
set-up the match system reads (``deployment=sample``)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.matches.pages import black_reach
from tests.engine.black_reach.battle import test_ambush as ambush
from tests.engine.black_reach.battle import test_multi_shots_on_move as gunners
from tests.engine.black_reach.battle import test_transport_assaults as carried
from tests.engine.black_reach.battle import test_vehicle_assaults as armour
from tests.matches.test_pages_black_reach import (
    page_of,
    place_orders,
    post_form,
    slug,
    two_players,
)
from tests.matches.test_pages_black_reach_actions import _form, actions, lines, played_on

MATCHES = "/api/v1/matches"


def send(client: TestClient, match_id: int, command: dict[str, Any], **kw: Any) -> Any:
    version = client.get(f"{MATCHES}/{match_id}").json()["version"]
    return client.post(
        f"{MATCHES}/{match_id}/commands",
        json={"expected_version": version, "command": command, **kw},
    )


def test_an_ambushed_unit_is_no_target_then_spotted_through_the_api(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, ambush.setup())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(alice, match_id, (ambush.TACTICAL, ambush.TANK, ambush.SERGEANT))
    place_orders(bob, match_id, (ambush.SHOOTAS, ambush.NOB))
    seen = alice.get(f"{MATCHES}/{match_id}").json()["view"]
    shootas = next(u for u in seen["units"] if u["id"] == ambush.SHOOTAS)
    assert shootas["face"] == "ambush"
    shots = [a["command"] for a in actions(alice, match_id) if a["command"]["type"] == "shoot"]
    assert shots
    assert all(c["target"] != ambush.SHOOTAS for c in shots)
    r = send(alice, match_id, {"type": "shoot", "unit": ambush.TACTICAL, "target": ambush.SHOOTAS})
    assert r.status_code == 409, r.text
    assert r.json()["refusal"] == "ambushed"
    path = [{"x": 1, "y": 2}, {"x": 2, "y": 3}, {"x": 3, "y": 3}]
    r = send(alice, match_id, {"type": "move", "unit": ambush.TACTICAL, "path": path})
    assert r.status_code == 200, r.text
    seen = bob.get(f"{MATCHES}/{match_id}").json()["view"]
    assert next(u for u in seen["units"] if u["id"] == ambush.SHOOTAS)["face"] == "inactive"
    said = lines(page_of(bob, match_id))
    assert any(
        "Sample tactical squad spots Sample shootas in ambush. It turns to its Inactive face." in t
        for t in said
    ), said


def test_the_deploy_form_posts_its_face() -> None:
    cmd = {"type": "deploy", "unit": "u", "x": 0, "y": 0, "facing": "N"}
    got = black_reach.build_command(_form({"square": "2,3", "face": "ambush"}), dict(cmd))
    assert got == cmd | {"x": 2, "y": 3, "face": "ambush"}
    got = black_reach.build_command(_form({"square": "2,3", "face": "hidden"}), dict(cmd))
    assert "face" not in got


def test_the_spotting_sentences() -> None:
    names = {"s": "Scouts", "t": "Sergeant"}
    say = black_reach.describe
    after = " It turns to its Inactive face."
    assert say({"type": "unit_spotted", "unit": "s", "why": "auspex", "by": "t"}, names, {}) == (
        "The Auspex of Sergeant spots Scouts in ambush." + after
    )
    assert say({"type": "unit_spotted", "unit": "s", "why": "assault", "by": "t"}, names, {}) == (
        "Scouts is engaged in an assault: its ambush ends." + after
    )
    assert say({"type": "unit_spotted", "unit": "s", "why": "shoots"}, names, {}) == (
        "Scouts leaves its ambush to shoot." + after
    )


def test_a_tank_assaults_infantry_and_pushes_it_aside_through_the_api(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, armour.shootas_in_front())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(alice, match_id, (armour.TANK,))
    place_orders(bob, match_id, (armour.SHOOTAS, armour.NOB))
    offered = [
        a for a in actions(alice, match_id)
        if a["command"]["type"] == "assault" and a["command"]["target"] == armour.SHOOTAS
    ]  # fmt: skip
    assert [a["command"]["unit"] for a in offered] == [armour.TANK]
    command = {"type": "assault", "unit": armour.TANK, "target": armour.SHOOTAS}
    r = send(alice, match_id, command, dice=[1, 1, 5, 5])  # 5 against 5: a tie
    assert r.status_code == 200, r.text
    # the Orks choose where their shootas are pushed: the first open square (rulings 142)
    r = send(bob, match_id, {"type": "choose_square", "unit": armour.SHOOTAS, "x": 1, "y": 2})
    assert r.status_code == 200, r.text
    seen = bob.get(f"{MATCHES}/{match_id}").json()["view"]
    at = {u["id"]: u["at"] for u in seen["units"]}
    assert (at[armour.TANK]["x"], at[armour.TANK]["y"]) == (2, 3)
    assert (at[armour.SHOOTAS]["x"], at[armour.SHOOTAS]["y"]) == (1, 2)
    said = lines(page_of(bob, match_id))
    assert any("Sample shootas is pushed aside to (1, 2) (a Forced Move)." in t for t in said), said


def test_en_alerte_against_an_assaults_move_through_the_api(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, carried.setup({carried.NOB: (6, 1, "W")}, overwatch="sample-ork-nob"))
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(alice, match_id, (carried.TACTICAL, carried.TRANSPORT))
    place_orders(bob, match_id, (carried.SHOOTAS, carried.NOB))
    command = {
        "type": "assault",
        "unit": carried.TACTICAL,
        "target": carried.SHOOTAS,
        "path": [{"x": 2, "y": 2}, {"x": 3, "y": 2}],
    }
    r = send(alice, match_id, command)
    assert r.status_code == 200, r.text
    seen = bob.get(f"{MATCHES}/{match_id}").json()["view"]
    assert seen["declared_move"]["assault"] == carried.SHOOTAS
    said = lines(page_of(bob, match_id))
    assert any(
        "Sample tactical squad declares an assault on Sample shootas from (3, 2)" in t for t in said
    ), said
    r = send(bob, match_id, {"type": "pass_overwatch"}, dice=[6, 1, 1, 1])
    assert r.status_code == 200, r.text
    log = alice.get(f"{MATCHES}/{match_id}/log").json()["entries"]
    resolved = [e["event"] for e in log if e["event"]["type"] == "assault_resolved"]
    assert [(e["attacker_total"], e["defender_total"]) for e in resolved] == [(9, 3)]


def test_double_tir_during_a_move_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, gunners.gunners())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(alice, match_id, (gunners.TACTICAL, gunners.TRANSPORT))
    page = place_orders(bob, match_id, (gunners.SHOOTAS, gunners.NOB))
    page = page_of(alice, match_id)
    form = page.css_first(f"#form-move-{slug(gunners.TACTICAL)}")
    assert form is not None
    firing = form.css_first("fieldset.fire-during")
    assert firing is not None
    named = [o.attributes.get("value") for o in firing.css("select[name=fire_at] option")]
    assert gunners.BOYZ1 in named
    assert gunners.BOYZ2 in named
    assert firing.css_first("select[name=fire_second]") is not None
    path = '[[1,2,"E"],[2,1,"E"]]'  # as the page proposes it: the squad keeps its facing
    after = post_form(
        alice,
        match_id,
        f"#form-move-{slug(gunners.TACTICAL)}",
        page=page,
        path=path,
        fire_at=gunners.BOYZ2,
        fire_second=gunners.BOYZ1,
    )
    said = lines(after)
    assert sum("Sample tactical squad" in t and "Sample boyz" in t for t in said) >= 2, said
    log = alice.get(f"{MATCHES}/{match_id}/log").json()["entries"]
    shots = [e["event"] for e in log if e["event"]["type"] == "unit_shot"]
    assert [(s["target"], s["moving_penalty"]) for s in shots] == [
        (gunners.BOYZ2, 1),
        (gunners.BOYZ1, 1),
    ]


def test_the_move_form_posts_its_shot_on_the_move() -> None:
    cmd = {"type": "move", "unit": "u", "path": []}
    got = black_reach.build_command(
        _form({"path": "[]", "fire_at": "orks:b", "fire_second": "orks:c", "fire_after": "1"}),
        dict(cmd),
    )
    assert (got["fire_at"], got["fire_second"], got["fire_after"]) == ("orks:b", "orks:c", 1)
    got = black_reach.build_command(_form({"path": "[]", "fire_at": ""}), dict(cmd))
    assert "fire_at" not in got


def test_an_assault_from_a_transport_through_the_api(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    played_on(monkeypatch, carried.setup())
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(alice, match_id, (carried.TACTICAL, carried.TRANSPORT))
    place_orders(bob, match_id, (carried.SHOOTAS, carried.NOB))
    # turn 1: the squad gets into the transport next to it; everyone else holds
    get_in = {"type": "move", "unit": carried.TACTICAL, "path": [], "embark": carried.TRANSPORT}
    for client, command in (
        (alice, get_in),
        (bob, {"type": "hold", "unit": carried.SHOOTAS}),
        (alice, {"type": "hold", "unit": carried.TRANSPORT}),
        (bob, {"type": "hold", "unit": carried.NOB}),
        (alice, {"type": "end_reserve"}),
        (bob, {"type": "end_reserve"}),
    ):
        r = send(client, match_id, command)
        assert r.status_code == 200, (command, r.text)
    # turn 2: the Orks have the initiative
    place_orders(bob, match_id, (carried.SHOOTAS, carried.NOB))
    place_orders(alice, match_id, (carried.TACTICAL, carried.TRANSPORT))
    r = send(bob, match_id, {"type": "hold", "unit": carried.SHOOTAS})
    assert r.status_code == 200, r.text
    offered = [
        a
        for a in actions(alice, match_id)
        if a["command"]["type"] == "assault" and a["command"]["target"] == carried.SHOOTAS
    ]
    assert offered
    assert offered[0]["from"][0] == {"square": [3, 3], "path": []}
    command = {"type": "assault", "unit": carried.TACTICAL, "target": carried.SHOOTAS}
    r = send(alice, match_id, command, dice=[6, 1, 1, 1])
    assert r.status_code == 200, r.text
    # the Orks choose where their shootas retreat: straight back, offered first (rulings 142)
    r = send(bob, match_id, {"type": "choose_square", "unit": carried.SHOOTAS, "x": 5, "y": 3})
    assert r.status_code == 200, r.text
    seen = bob.get(f"{MATCHES}/{match_id}").json()["view"]
    squad = next(u for u in seen["units"] if u["id"] == carried.TACTICAL)
    assert squad["embarked_in"] is None
    assert (squad["at"]["x"], squad["at"]["y"]) == (4, 3)  # out, into the beaten shootas' square


def test_a_counter_with_an_ambush_face_is_deployed_in_ambush_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    undeployed = dataclasses.replace(ambush.setup(), deployment=())
    played_on(monkeypatch, undeployed)
    alice, bob, match_id = two_players(browser)
    page = page_of(bob, match_id)
    css = f"#form-deploy-{slug(ambush.SHOOTAS)}"
    form = page.css_first(css)
    assert form is not None
    faces = [o.attributes.get("value") for o in form.css("select[name=face] option")]
    assert faces == ["inactive", "ambush"]
    assert page.css_first(f"#form-deploy-{slug(ambush.NOB)}").css_first("select[name=face]") is None
    post_form(bob, match_id, css, page=page, square="5,5", face="ambush")
    seen = alice.get(f"{MATCHES}/{match_id}").json()["view"]
    shootas = next(u for u in seen["units"] if u["id"] == ambush.SHOOTAS)
    assert (shootas["face"], shootas["at"]["x"], shootas["at"]["y"]) == ("ambush", 5, 5)
