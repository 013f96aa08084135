"""The Black Reach match page (issue 16, ``app/matches/pages/black_reach.py``): the board as
SVG with the counters on their squares, the forms a tap fills (a deployment, a move along the
path the battle proposes for the square, a shot with its exact odds shown before it is sent),
the Order tokens placed from the page, and the hot seat: both seats on one device, with a
hand-off screen that carries none of the previous player's tokens."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from app.engine.black_reach.battle.setup import load_deployment
from app.matches import pages
from app.matches.pages import black_reach
from tests.support.web import html

HX = {"HX-Request": "true"}
SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
ORKS = (BOYZ1, BOYZ2, NOB, SHOOTAS)
MARINES = (BOLTER, TACTICAL, SERGEANT)


def slug(unit: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in unit)


def page_of(client: TestClient, match_id: int) -> Any:
    r = client.get(f"/matches/{match_id}")
    assert r.status_code == 200, r.text
    return html(r)


def fields(form: Any) -> dict[str, str]:
    """What a browser posts from ``form`` untouched: inputs and each select's first option."""
    data: dict[str, str] = {}
    for field in form.css("input, select"):
        name = field.attributes.get("name")
        if not name:
            continue
        if field.tag == "select":
            option = field.css_first("option[selected]") or field.css_first("option")
            data[name] = option.attributes.get("value") or ""
        else:
            data[name] = field.attributes.get("value") or ""
    return data


def post_form(client: TestClient, match_id: int, css: str, page: Any = None, **inputs: str) -> Any:
    """Post the form ``css`` of the page (as the tap or the player fills it), with htmx."""
    page = page if page is not None else page_of(client, match_id)
    form = page.css_first(css)
    assert form is not None, (css, [f.attributes.get("id") for f in page.css("form")])
    data = fields(form) | inputs
    r = client.post(str(form.attributes["action"]), data=data, headers=HX)
    assert r.status_code == 200, r.text
    return html(r)


def create(client: TestClient, **options: str) -> int:
    data = {"csrf_token": client.csrf, "ruleset": "black-reach", "mission": "sample-relay"}  # type: ignore[attr-defined]
    data |= {f"option.{k}": v for k, v in options.items()}
    r = client.post("/matches", data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    return int(r.headers["location"].rsplit("/", 1)[1])


def two_players(browser: Callable[[str], TestClient], **options: str) -> tuple[Any, Any, int]:
    alice, bob = browser("Alice"), browser("Bob")
    match_id = create(alice, **options)
    code = page_of(alice, match_id).css_first("#invite-code").text().strip()
    r = bob.post(
        "/matches/join",
        data={"csrf_token": bob.csrf, "code": code, "join": "1"},  # type: ignore[attr-defined]
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return alice, bob, match_id


def place_orders(
    client: TestClient, match_id: int, units: tuple[str, ...], page: Any = None
) -> Any:
    orders = {f"order.{u}": f"n:{n}" for n, u in enumerate(units, 1)}
    return post_form(client, match_id, "#form-place-orders", page=page, **orders)


def test_black_reach_has_its_own_page() -> None:
    assert pages.page_for("black-reach") is black_reach.PAGE


def test_the_board_the_counters_and_a_tap_move_and_a_shot(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob, match_id = two_players(browser, deployment="sample")
    page = page_of(alice, match_id)
    svg = page.css_first("svg#br-board")
    assert svg is not None
    assert len(svg.css("rect.sq")) == 8 * 12  # the sample board's squares
    spots = {d.unit: (d.x, d.y) for d in load_deployment("sample-relay")}
    for unit in ORKS + MARINES:
        counter = page.css_first(f"#counter-{slug(unit)}")
        assert counter is not None, unit
        at = (int(counter.attributes["data-x"]), int(counter.attributes["data-y"]))
        assert at == spots[unit]
    # the Order phase from the page: a select of tokens per unit
    options = [o.attributes["value"] for o in page.css(f'select[name="order.{BOLTER}"] option')]
    assert options == ["", "n:1", "n:2", "n:3"]  # the Ultramarines' pool: 3 tokens
    assert page.css_first(f'select[name="order.{BOYZ1}"]') is None
    place_orders(bob, match_id, ORKS)
    # B's tokens never reach A's page; B sees its own
    mine = page_of(bob, match_id)
    assert mine.css_first(f"#counter-{slug(BOYZ1)} text.token").text() == "1"
    theirs = page_of(alice, match_id)
    assert theirs.css_first(f"#counter-{slug(BOYZ1)} text.token") is None
    assert theirs.css_first(f"#counter-{slug(BOYZ1)} circle.face-down") is not None
    placed = [
        o
        for e in bob.get(f"/api/v1/matches/{match_id}/log").json()["entries"]
        if e["event"]["type"] == "orders_placed"
        for o in e["event"]["orders"]
    ]
    assert len(placed) == len(ORKS)
    for text in (theirs.html, alice.get(f"/matches/{match_id}", headers=HX).text):
        assert all(o["nonce"] not in text for o in placed)
    place_orders(alice, match_id, MARINES)
    # B's token 1: the Boyz; a tap on (4,6) sends the path the battle proposes for it
    page = page_of(bob, match_id)
    taps = json.loads(page.css_first("#br-play").attributes["data-taps"])
    square = taps[BOYZ1]["squares"]["4,6"]
    form = page.css_first(f"#{square['form']}")
    assert form.attributes["hx-post"] == f"/matches/{match_id}/act"
    assert form.css_first('select[name="path"] option[data-to="4,6"]') is not None
    after = post_form(bob, match_id, f"#{square['form']}", page=page, path=square["value"])
    moved = after.css_first(f"#counter-{slug(BOYZ1)}")
    assert (moved.attributes["data-x"], moved.attributes["data-y"]) == ("4", "6")
    # A's token 1: the heavy bolter; the shot's exact odds are on its form before it is sent
    page = page_of(alice, match_id)
    taps = json.loads(page.css_first("#br-play").attributes["data-taps"])
    (shot_id, *_) = taps[BOLTER]["targets"][BOYZ1]
    form = page.css_first(f"#{shot_id}")
    odds = {
        tr.attributes["data-outcome"]: tr.css("td")[0].text() for tr in form.css("tr[data-outcome]")
    }
    # the odds shown are the battle's own, exact
    actions = [
        a
        for a in alice.get(f"/api/v1/matches/{match_id}/actions").json()["actions"]
        if a["command"] == {"type": "shoot", "unit": BOLTER, "target": BOYZ1, "suppression": False}
    ]
    assert odds == actions[0]["odds"]
    after = post_form(alice, match_id, f"#{shot_id}", page=page, dice="4")
    assert after.css_first("#match-error") is None
    # the timeline in sentences: the move, the token revealed, the shot and its result
    lines = [li.text() for li in after.css("#timeline li")]
    shot = next(t for t in lines if "shoots" in t)
    assert shot.endswith(
        "Sample heavy-weapon team shoots Sample boyz: 5 against 4, one step lost. 4"
    )
    assert any("Sample boyz moves to (4, 6)." in t for t in lines)
    assert any("Sample boyz loses 1 step(s)." in t for t in lines)
    assert any("Bob (orks) reveals token 1 on Sample boyz." in t for t in lines)


def test_without_js_the_forms_have_selects(browser: Callable[[str], TestClient]) -> None:
    alice, _bob, match_id = two_players(browser)
    page = page_of(alice, match_id)
    # the set-up: each counter's deployment form offers the zone's squares and the facings
    form = page.css_first(f"#form-deploy-{slug(SERGEANT)}")
    assert form is not None
    assert form.attributes["action"] == f"/matches/{match_id}/act"
    squares = [o.attributes["value"] for o in form.css('select[name="square"] option')]
    assert "1,1" in squares
    assert "2,1" in squares
    assert page.css_first("#br-tray") is not None  # not on the board yet
    after = post_form(alice, match_id, f"#form-deploy-{slug(SERGEANT)}", square="1,1", facing="S")
    assert after.css_first(f"#counter-{slug(SERGEANT)}").attributes["data-x"] == "1"
    # a plain post (no htmx) answers with a redirect to the page
    form = page_of(alice, match_id).css_first(f"#form-deploy-{slug(TACTICAL)}")
    r = alice.post(
        f"/matches/{match_id}/act", data=fields(form) | {"square": "2,1"}, follow_redirects=False
    )
    assert r.status_code == 303, r.text


def hot_seat(browser: Callable[[str], TestClient]) -> tuple[Any, int]:
    alice = browser("Alice")
    page = html(alice.get("/matches?ruleset=black-reach"))
    assert page.css_first('select[name="option.hot_seat"]') is not None
    match_id = create(alice, deployment="sample", hot_seat="1")
    page = page_of(alice, match_id)
    assert page.css_first("#hot-seat-form") is not None
    after = post_form(alice, match_id, "#hot-seat-form", page=page, name="Bruno")
    assert after.css_first("#br-board") is not None
    return alice, match_id


def test_hot_seat_hands_the_device_over_without_the_tokens(
    browser: Callable[[str], TestClient],
) -> None:
    alice, match_id = hot_seat(browser)
    # nobody else may take seat B: the invitation is gone
    page = page_of(alice, match_id)
    assert page.css_first("#invite-code") is None
    assert page.css_first("#playing-as").text().endswith("Alice")
    form = page.css_first("#form-place-orders")
    assert form.attributes["action"] == f"/matches/{match_id}/hot-seat-act"
    # A (the Ultramarines) places its tokens; the device goes to Bruno
    after = place_orders(alice, match_id, MARINES)
    assert after.css_first("#hand-off") is not None
    assert after.css_first("#i-am").text().strip() == "I am Bruno"
    nonces = [
        e["event"]
        for e in alice.get(f"/api/v1/matches/{match_id}/log").json()["entries"]
        if e["event"]["type"] == "orders_placed"
    ]
    secret = json.dumps(nonces)
    assert "nonce" in secret  # A's own log has them...
    for text in (after.html, page_of(alice, match_id).html):
        # ...the hand-off screen has no board, no token and no nonce of either seat
        assert "br-board" not in text
        assert "form-place-orders" not in text
        assert 'class="token"' not in text
        assert "face-down" not in text
        for event in nonces:
            for order in event["orders"]:
                assert order["nonce"] not in text
    # "I am Bruno": B's board, B's Order tokens, none of A's values
    page = post_form(alice, match_id, "#hand-off-form")
    assert page.css_first("#playing-as").text().endswith("Bruno")
    assert page.css_first(f"#counter-{slug(BOLTER)} text.token") is None
    assert page.css_first(f"#counter-{slug(BOLTER)} circle.face-down") is not None
    after = place_orders(alice, match_id, ORKS, page=page)
    # the activations: B's token 1 is due, Bruno goes on (no hand-off), then A's
    assert after.css_first("#hand-off") is None
    taps = json.loads(after.css_first("#br-play").attributes["data-taps"])
    square = taps[BOYZ1]["squares"]["4,6"]
    after = post_form(alice, match_id, f"#{square['form']}", page=after, path=square["value"])
    assert after.css_first("#hand-off") is not None
    assert "Alice" in after.css_first("#i-am").text()
    page = post_form(alice, match_id, "#hand-off-form", page=after)
    assert page.css_first(f"#counter-{slug(BOLTER)} text.token").text() == "1"
    assert page.css_first(f"#counter-{slug(BOYZ2)} text.token") is None  # Bruno's, unplayed


def test_hot_seat_forms_refuse_a_match_of_two_players(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob, match_id = two_players(browser, deployment="sample", hot_seat="1")
    for name in ("hot-seat-act", "hand-off", "hot-seat"):
        r = alice.post(
            f"/matches/{match_id}/{name}",
            data={"csrf_token": alice.csrf, "seat": "B", "as_seat": "B"},  # type: ignore[attr-defined]
            headers=HX,
        )
        assert html(r).css_first("#match-error") is not None, name
    assert page_of(bob, match_id).css_first("#playing-as").text().endswith("Bob")


def test_hot_seat_without_js(browser: Callable[[str], TestClient]) -> None:
    """Plain posts: "I am <name>" answers with that player's board (not a redirect to a page
    that would ask again); a command answers with a redirect, and the page shows the same
    player again while the battle waits on them."""
    alice, match_id = hot_seat(browser)
    form = page_of(alice, match_id).css_first("#form-place-orders")
    data = fields(form) | {f"order.{u}": f"n:{n}" for n, u in enumerate(MARINES, 1)}
    r = alice.post(str(form.attributes["action"]), data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    assert page_of(alice, match_id).css_first("#hand-off") is not None
    r = alice.post(
        f"/matches/{match_id}/hand-off",
        data={"csrf_token": alice.csrf, "seat": "B"},  # type: ignore[attr-defined]
        follow_redirects=False,
    )
    assert r.status_code == 200, r.text
    page = html(r)
    assert page.css_first("#playing-as").text().endswith("Bruno")
    form = page.css_first("#form-place-orders")
    data = fields(form) | {f"order.{u}": f"n:{n}" for n, u in enumerate(ORKS, 1)}
    r = alice.post(str(form.attributes["action"]), data=data, follow_redirects=False)
    assert r.status_code == 303, r.text
    # Bruno's token 1 is due: his board again, without a hand-off
    page = page_of(alice, match_id)
    assert page.css_first("#hand-off") is None
    assert page.css_first("#playing-as").text().endswith("Bruno")
    assert page.css_first(f"#counter-{slug(BOYZ1)} text.token").text() == "1"


def test_an_assault_form_offers_where_it_may_start_and_its_odds() -> None:
    entry = {
        "command": {"type": "assault", "unit": TACTICAL, "target": BOYZ1, "path": []},
        "odds": {"attacker_wins": "1/2", "tie": "1/6", "defender_wins": "1/3"},
        "from": [
            {"square": None, "path": []},
            {"square": [3, 5], "path": [[2, 2, "S"], [3, 3, "S"], [3, 4, "S"], [3, 5, "S"]]},
        ],
    }
    names = {TACTICAL: "Tactical", BOYZ1: "Boyz"}
    (form,), orders = black_reach.action_forms([entry], names)
    assert orders is None
    assert form.label == "Tactical assaults Boyz"
    assert [(key, label) for key, _path, label in form.paths] == [
        ("", "where it stands"),
        ("3,5", "(3, 5)"),
    ]
    assert [(o.outcome, o.exact, o.percent) for o in form.odds] == [
        ("attacker_wins", "1/2", "50.0 %"),
        ("tie", "1/6", "16.7 %"),
        ("defender_wins", "1/3", "33.3 %"),
    ]
    from starlette.datastructures import FormData

    posted = FormData([("path", form.paths[1][1])])
    cmd = black_reach.build_command(posted, dict(form.command))
    assert cmd["path"] == [
        {"x": 2, "y": 2, "facing": "S"},
        {"x": 3, "y": 3, "facing": "S"},
        {"x": 3, "y": 4, "facing": "S"},
        {"x": 3, "y": 5, "facing": "S"},
    ]


def _team_with(monkeypatch: Any, *abilities: str | dict[str, Any]) -> None:
    """Matches created from here give the sample heavy-weapon team these abilities (the
    sample counters have neither Double Tir nor Rafale)."""
    from app.engine.black_reach.battle import BattleSetup
    from app.matches.systems import black_reach as system

    original = system.sample_setup

    def setup(*args: Any, **kwargs: Any) -> BattleSetup:
        made = original(*args, **kwargs)
        catalogue = json.loads(json.dumps(made.catalogue))
        team = next(c for c in catalogue["counters"] if c["id"] == "sample-um-heavy-bolter")
        team["faces"][0]["abilities"] += [
            a if isinstance(a, dict) else {"id": a} for a in abilities
        ]
        return BattleSetup(made.scenario, catalogue, made.boards, made.seats, made.deployment)

    monkeypatch.setattr(system, "sample_setup", setup)


def test_a_rafale_and_a_double_tir_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: Any
) -> None:
    _team_with(monkeypatch, "double_shot", "burst")
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, ORKS)
    place_orders(alice, match_id, MARINES)
    page = page_of(bob, match_id)
    square = json.loads(page.css_first("#br-play").attributes["data-taps"])[BOYZ1]["squares"]
    post_form(bob, match_id, f"#{square['4,8']['form']}", page=page, path=square["4,8"]["value"])
    page = page_of(alice, match_id)
    taps = json.loads(page.css_first("#br-play").attributes["data-taps"])[BOLTER]["targets"]
    double, burst = f"form-double-shot-{slug(BOLTER)}", f"form-burst-{slug(BOLTER)}"
    assert double in taps[NOB]
    assert burst in taps[SHOOTAS]  # a tap on a target opens them with its shot
    # Double Tir: two selects of the targets, each target's exact odds, the battle's own
    form = page.css_first(f"#{double}")
    assert [o.attributes["value"] for o in form.css('select[name="target1"] option')] == [
        o.attributes["value"] for o in form.css('select[name="target2"] option')
    ]
    nob_odds = {
        tr.attributes["data-outcome"]: tr.css("td")[0].text()
        for tr in form.css(f'table[data-target="{NOB}"] tr[data-outcome]')
    }
    assert nob_odds == {"miss": "2/3", "step": "1/3", "coup_double": "0"}
    # Rafale: a share per target (0: not shot), the odds of each share
    form = page.css_first(f"#{burst}")
    assert form.css_first(f'input[name="share.{NOB}"]').attributes["max"] == "2"
    row = form.css_first(f'table[data-target="{NOB}"] tr[data-share="2"]')
    assert "1/6" in row.text()  # 2 + 6 - 3 = 5 against DV 5
    after = post_form(
        alice,
        match_id,
        f"#{burst}",
        page=page,
        **{f"share.{NOB}": "2", f"share.{SHOOTAS}": "1", "dice": "6 6"},
    )
    assert after.css_first("#match-error") is None
    lines = [li.text() for li in after.css("#timeline li")]
    assert any(
        "Sample heavy-weapon team announces a Rafale: its CV 3 split between 2 targets." in t
        for t in lines
    )
    assert any("shoots Sample nob: 5 against 5, one step lost." in t for t in lines)
    assert any("shoots Sample shootas: 2 against 4, miss." in t for t in lines)


def test_a_double_tir_form_posts_both_targets() -> None:
    from starlette.datastructures import FormData

    entry = {
        "command": {"type": "double_shot", "unit": BOLTER, "targets": [], "suppression": False},
        "targets": [
            {"target": NOB, "odds": {"miss": "2/3", "step": "1/3", "coup_double": "0"}},
            {"target": SHOOTAS, "odds": {"miss": "5/6", "step": "1/6", "coup_double": "0"}},
        ],
    }
    (form,), _ = black_reach.action_forms([entry], {BOLTER: "Team", NOB: "Nob"})
    assert form.label == "Team: Double Tir at two targets"
    assert [(a.target, a.name, [o.exact for o in a.odds]) for a in form.aims] == [
        (NOB, "Nob", ["2/3", "1/3", "0"]),
        (SHOOTAS, SHOOTAS, ["5/6", "1/6", "0"]),
    ]
    posted = FormData([("target1", SHOOTAS), ("target2", NOB)])
    assert black_reach.build_command(posted, dict(form.command))["targets"] == [SHOOTAS, NOB]
    burst = {"command": {"type": "burst", "unit": BOLTER, "shares": []}, "cv": 3, "targets": []}
    (form,), _ = black_reach.action_forms([burst], {})
    posted = FormData([(f"share.{NOB}", "2"), (f"share.{SHOOTAS}", "0"), ("share.x", "a")])
    assert black_reach.build_command(posted, dict(form.command))["shares"] == [
        {"target": NOB, "cv": 2}
    ]


def test_a_sniper_shot_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: Any
) -> None:
    _team_with(monkeypatch, "sniper")
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, ORKS)
    place_orders(alice, match_id, MARINES)
    page = page_of(bob, match_id)
    square = json.loads(page.css_first("#br-play").attributes["data-taps"])[BOYZ1]["squares"]
    post_form(bob, match_id, f"#{square['4,6']['form']}", page=page, path=square["4,6"]["value"])
    page = page_of(alice, match_id)
    taps = json.loads(page.css_first("#br-play").attributes["data-taps"])[BOLTER]["targets"]
    sniper = f"form-snipe-{slug(BOLTER)}-{slug(BOYZ1)}"
    assert sniper in taps[BOYZ1]
    form = page.css_first(f"#{sniper}")
    rows = {
        tr.attributes["data-outcome"]: (tr.css("th")[0].text(), tr.css("td")[0].text())
        for tr in form.css("tr[data-outcome]")
    }
    # two reducing obstacles: the die less 2 on the sniper table
    assert rows == {
        "nothing": ("no effect", "1/2"),
        "suppressed": ("one Suppressed marker", "1/3"),
        "step": ("one step lost", "1/6"),
        "step_and_suppressed": ("one step lost and a Suppressed marker", "0"),
    }
    after = post_form(alice, match_id, f"#{sniper}", page=page, dice="6")
    assert after.css_first("#match-error") is None
    lines = [li.text() for li in after.css("#timeline li")]
    assert any(
        "Sample heavy-weapon team: sniper shot at Sample boyz: 4, one step lost." in t
        for t in lines
    )


def test_en_alerte_from_the_page(browser: Callable[[str], TestClient], monkeypatch: Any) -> None:
    _team_with(monkeypatch, "overwatch")
    alice, bob, match_id = two_players(browser, deployment="sample")
    place_orders(bob, match_id, ORKS)
    place_orders(alice, match_id, MARINES)
    page = page_of(bob, match_id)
    square = json.loads(page.css_first("#br-play").attributes["data-taps"])[BOYZ1]["squares"]
    after = post_form(
        bob, match_id, f"#{square['4,6']['form']}", page=page, path=square["4,6"]["value"]
    )
    assert after.css_first("#nothing-to-do") is not None  # the Orks wait for the answer
    page = page_of(alice, match_id)
    taps = json.loads(page.css_first("#br-play").attributes["data-taps"])[BOLTER]["targets"]
    watch = f"form-overwatch-{slug(BOLTER)}-{slug(BOYZ1)}-1"
    assert watch in taps[BOYZ1]
    form = page.css_first(f"#{watch}")
    assert form.css_first(".form-title").text() == (
        "Sample heavy-weapon team: En Alerte at Sample boyz on (4, 9)"
    )
    odds = {
        tr.attributes["data-outcome"]: tr.css("td")[0].text() for tr in form.css("tr[data-outcome]")
    }
    assert odds == {"miss": "1/2", "step": "1/2", "coup_double": "0"}
    assert page.css_first("#form-pass-overwatch") is not None
    after = post_form(alice, match_id, f"#{watch}", page=page, dice="6")
    assert after.css_first("#match-error") is None
    moved = after.css_first(f"#counter-{slug(BOYZ1)}")
    assert (moved.attributes["data-x"], moved.attributes["data-y"]) == ("4", "6")
    lines = [li.text() for li in after.css("#timeline li")]
    assert any(
        "Sample boyz declares a move to (4, 6): the other side may fire En Alerte." in t
        for t in lines
    )
    assert any("Sample heavy-weapon team fires En Alerte after step 1." in t for t in lines)
    assert any("shoots Sample boyz: 6 against 4, one step lost." in t for t in lines)


def test_scout_moves_from_the_page(browser: Callable[[str], TestClient], monkeypatch: Any) -> None:
    _team_with(monkeypatch, {"id": "scout", "param": 2})
    alice, bob, match_id = two_players(browser, deployment="sample")
    assert page_of(bob, match_id).css_first("#nothing-to-do") is not None  # no Ork scout
    page = page_of(alice, match_id)
    assert page.css_first("#form-place-orders") is None  # the Scout moves come first
    taps = json.loads(page.css_first("#br-play").attributes["data-taps"])[BOLTER]["squares"]
    assert "3,3" in taps
    assert "3,4" not in taps  # next to the relay
    after = post_form(
        alice, match_id, f"#{taps['3,3']['form']}", page=page, path=taps["3,3"]["value"]
    )
    moved = after.css_first(f"#counter-{slug(BOLTER)}")
    assert (moved.attributes["data-x"], moved.attributes["data-y"]) == ("3", "3")
    after = post_form(alice, match_id, "#form-end-scouting")
    lines = [li.text() for li in after.css("#timeline li")]
    assert any("Sample heavy-weapon team makes its Scout move to (3, 3)." in t for t in lines)
    assert after.css_first("#form-place-orders") is not None  # turn 1's Order phase
