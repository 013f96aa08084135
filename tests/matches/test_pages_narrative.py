"""The narrative missions on the 10th-edition match page (issue 15).

Sabotage's set-up and its alarm are played through the page's own forms (the roll-offs, the
deployment with its reserves, the alarm, a mission reserve arriving), and the panel and the
timeline say what happened; Meat Grinder's hidden deployment is placed through the page, and
seat B's page HTML holds none of it before the reveal.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from starlette.datastructures import FormData

from app.matches.pages import page_system
from app.matches.pages.wh40k10e import present
from app.matches.web import build_command
from tests.matches.conftest import FakeArmies, Game, Player, finish_turn, marines, orks, step
from tests.support.web import html

HX = {"HX-Request": "true"}


def new_game(
    browser: Callable[[str], TestClient],
    armies: FakeArmies,
    mission: str,
    a_roster: Any,
    b_roster: Any,
) -> Game:
    """A narrative match between two browsers (created through the JSON API, played through
    the pages)."""
    alice, bob = browser("Alice"), browser("Bob")
    r = alice.post(
        "/api/v1/matches",
        json={
            "army_id": armies.ready(alice, a_roster),
            "mission": mission,
            "options": {"starting_cp": 3},
        },
    )
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(
        "/api/v1/matches/join",
        json={"code": created["invitation"]["code"], "army_id": armies.ready(bob, b_roster)},
    )
    assert r.status_code == 200, r.text
    return Game(Player(alice, created["id"], "A"), Player(bob, created["id"], "B"), created["id"])


def page(p: Player) -> Any:
    r = p.client.get(f"/matches/{p.match_id}")
    assert r.status_code == 200, r.text
    node = html(r).css_first("#match-state")
    assert node is not None
    return node


def hidden_fields(form: Any) -> dict[str, str]:
    return {
        str(i.attributes["name"]): str(i.attributes.get("value") or "")
        for i in form.css("input[type=hidden]")
    }


def find_form(root: Any, kind: str, **command: Any) -> Any:
    """The action form of ``kind`` whose command JSON has ``command`` in it."""
    for form in root.css(f"form.action-{kind}"):
        sent = json.loads(hidden_fields(form)["command"])
        if all(sent.get(k) == v for k, v in command.items()):
            return form
    raise AssertionError(f"no {kind} form with {command}")


def browser_fields(form: Any) -> dict[str, Any]:
    """What a browser posts for ``form`` untouched: hidden and text inputs with their values,
    ticked boxes, each select's selected (else first) option."""
    out: dict[str, list[str]] = {}
    for i in form.css("input"):
        kind = i.attributes.get("type") or "text"
        name = i.attributes.get("name")
        if not name or (kind == "checkbox" and "checked" not in i.attributes):
            continue
        out.setdefault(str(name), []).append(str(i.attributes.get("value") or ""))
    for sel in form.css("select"):
        options = sel.css("option")
        chosen = [o for o in options if "selected" in o.attributes] or options[:1]
        if chosen:
            out.setdefault(str(sel.attributes["name"]), []).append(
                str(chosen[0].attributes.get("value") or "")
            )
    return out


def submit(p: Player, form: Any, data: dict[str, Any] | None = None) -> Any:
    """Post ``form`` as a browser with htmx does (its fields as shown, ``data`` typed over
    them); the new state block."""
    body: dict[str, Any] = {**browser_fields(form), **(data or {})}
    r = p.client.post(form.attributes["action"], data=body, headers=HX)
    assert r.status_code == 200, r.text
    refusal = html(r).css_first("#match-error")
    assert r.headers.get("x-match-refusal") is None, refusal.text() if refusal else r.text
    node = html(r).css_first("#match-state")
    assert node is not None
    return node


def to_phase(g: Game, seat: str, phase: str) -> None:
    while (view := g.a.view())["phase"] != phase or view["reaction_window"]:
        assert view["active"] == seat, (view["active"], view["phase"])
        step(g, view)


def text_of(root: Any, css: str) -> str:
    node = root.css_first(css)
    assert node is not None, css
    return " ".join(node.text().split())


def timeline(root: Any) -> list[str]:
    """The timeline's sentences, without their "#seq" numbers."""
    return [re.sub(r"^#\d+ ", "", " ".join(li.text().split())) for li in root.css("#timeline li")]


def test_sabotage_set_up_and_alarm_through_the_page_forms(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = new_game(browser, armies, "sabotage", marines(), orks())
    a_page = submit(g.a, find_form(page(g.a), "roll_off"))  # 725 v 605 points: A attacks
    assert text_of(a_page, "#narrative-attacker") == "Alice (you)"
    assert text_of(a_page, "#narrative-defender") == "Bob"
    assert text_of(a_page, "#narrative-alarm").startswith("calm")
    assert any("Alice (you) is the Attacker (the larger army" in t for t in timeline(a_page))
    for p in (g.a, g.b):
        submit(p, page(p).css_first("#formation-form"))

    # the Defender's sentries: b2 (its Warboss attached, as the list says) set up, the rest
    # unticked -> the mission's reserves
    b_page = page(g.b)
    assert text_of(b_page, "#narrative-step") == "The Defender deploys its sentries"
    deploy = find_form(b_page, "deploy_forces")
    offered = [i.attributes["value"] for i in deploy.css("input[name=deploy]")]
    assert offered == ["b2", "b3", "b4", "b5", "b6"]
    # the suggestion ticks one sentry unit, the first that fits the limits; the rest unticked
    ticked = [
        i.attributes["value"] for i in deploy.css("input[name=deploy]") if "checked" in i.attributes
    ]
    assert ticked == ["b2"]
    b_page = submit(g.b, deploy, {"deploy": ["b2"]})
    reserves = text_of(b_page, "#narrative-reserves")
    assert "Boyz" not in reserves
    assert "Kommandos" in reserves
    assert any(
        t
        == (
            "Bob (you) deploys Boyz + Warboss. In reserve: Kommandos, Nobz, Battlewagon, Stormboyz."
        )
        for t in timeline(b_page)
    ), timeline(b_page)

    # the Attacker deploys all its units (every box ticked), then the first-turn roll-off
    a_page = submit(g.a, find_form(page(g.a), "deploy_forces"))
    a_page = submit(g.a, find_form(a_page, "roll_off"))
    assert g.a.view()["stage"] == "battle"
    assert "Alice (you) takes the first turn." in timeline(a_page)

    finish_turn(g)
    finish_turn(g)
    to_phase(g, "A", "movement")
    # round 2: the Attacker is detected; the alarm form ends its turn at once
    a_page = page(g.a)
    causes = [
        json.loads(hidden_fields(f)["command"])["cause"]
        for f in a_page.css("form.action-raise_alarm")
    ]
    assert causes == ["detected", "sentry_survived_fight"]
    a_page = submit(g.a, find_form(a_page, "raise_alarm", cause="detected"))
    assert text_of(a_page, "#narrative-alarm") == (
        "raised an Attacker model was detected · battle round 2"
    )
    assert (
        "The alarm is raised: an Attacker model was detected. The Attacker's turn ends now."
        in timeline(a_page)
    )
    view = g.a.view()
    assert (view["active"], view["round"]) == ("B", 2)

    # the Defender's reserves may come in now: b3 on a 3 rolled by hand
    to_phase(g, "B", "movement")
    b_page = page(g.b)
    rolls = b_page.css("form.action-reserve_roll")
    assert {json.loads(hidden_fields(f)["command"])["unit"] for f in rolls} >= {"b3", "b4"}
    b_page = submit(g.b, find_form(b_page, "reserve_roll", unit="b3"), {"dice": "3"})
    assert next(u for u in g.b.view()["units"] if u["id"] == "b3")["location"] == "battlefield"
    assert "Kommandos arrives from the mission's reserves (3)." in timeline(b_page)
    assert "Kommandos" not in text_of(b_page, "#narrative-reserves")

    # the sabotage form names a unit of one's own: one form, the unit a choice
    finish_turn(g)
    to_phase(g, "A", "fight")
    a_page = page(g.a)
    sabotage = a_page.css("form.action-attempt_sabotage")
    assert len(sabotage) == 1
    choices = [o.attributes["value"] for o in sabotage[0].css("select[name=unit] option")]
    assert "a2" in choices
    assert all(c.startswith("a") for c in choices)
    a_page = submit(g.a, sabotage[0], {"unit": "a2"})
    assert text_of(a_page, "#narrative-sabotage") == "Intercessor Squad + Captain (round 3)"
    assert "Intercessor Squad + Captain attempts a sabotage (battle round 3)." in timeline(a_page)


SECRET_NAMES = ("Kommandos (secret)", "decoy (secret)", "Your hidden deployment")


def test_meat_grinder_hidden_tokens_through_the_page_and_nothing_in_b_html_before_the_reveal(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    # A's orks are the smaller army: B attacks, A (the Defender) deploys hidden
    g = new_game(browser, armies, "meat-grinder", orks(), marines())
    submit(g.a, find_form(page(g.a), "roll_off"))
    for p in (g.a, g.b):
        submit(p, page(p).css_first("#formation-form"))
    # Decoys, a mission Stratagem, from its form (1 CP)
    a_page = page(g.a)
    decoys = find_form(a_page, "use_mission_stratagem", stratagem="decoys")
    assert "Decoys" in decoys.text()
    assert "1 CP" in decoys.text()
    a_page = submit(g.a, decoys)
    assert "Alice (you): Decoys, 1 CP (round 0)" in text_of(a_page, "#narrative-stratagems")
    tokens = find_form(a_page, "place_tokens")
    assert len(tokens.css("input[name=decoy]")) >= 1
    units = [i.attributes["name"] for i in tokens.css("input[type=text][name^=token_]")]
    assert units == ["token_a2", "token_a3", "token_a4", "token_a5", "token_a6"]
    data = {
        "token_a2": "t4",
        "token_a3": "t1",
        "token_a4": "t5",
        "token_a5": "t3",
        "token_a6": "t6",
        "decoy": "t2",
    }
    a_page = submit(g.a, tokens, data)
    # A sees its own secret, B's page nothing of it
    assert text_of(a_page, "#token-t1") == "t1: Kommandos (secret)"
    assert text_of(a_page, "#token-t2") == "t2: decoy (secret)"
    assert any(
        t.startswith("Your hidden deployment (secret): t1: Kommandos") for t in timeline(a_page)
    )
    b_html = g.b.client.get(f"/matches/{g.match_id}").text
    b_root = page(g.b)
    assert [text_of(b_root, f"#token-t{i}") for i in range(1, 7)] == [
        f"t{i}: not revealed" for i in range(1, 7)
    ]
    for secret in SECRET_NAMES:
        assert secret not in b_html, secret
    assert "Alice lays 6 hidden deployment tokens." in timeline(b_root)

    # the reveal: B deploys, the tokens turn over on both pages
    submit(g.b, find_form(b_root, "deploy_forces"))
    b_root = page(g.b)
    assert text_of(b_root, "#token-t1") == "t1: Kommandos"
    assert text_of(b_root, "#token-t2") == "t2: a decoy, removed"
    assert "Token t1 is revealed: Kommandos." in timeline(b_root)


def test_the_place_tokens_form_sends_tokens_reserves_and_decoys() -> None:
    cmd = {"type": "place_tokens", "tokens": {"1": "a1", "2": "a2"}}
    form = FormData(
        [
            ("command", json.dumps(cmd)),
            ("token_a1", " t1 "),
            ("token_a2", "t2"),
            ("token_a3", "t3"),
            ("reserve", "a2"),
            ("decoy", "t9"),
            ("decoy", ""),
        ]
    )
    sent = build_command(form, page_system("wh40k-10e"))
    assert sent == {
        "type": "place_tokens",
        "tokens": {"t1": "a1", "t3": "a3", "t9": None},
        "reserves": ["a2"],
    }


def test_the_deploy_and_stratagem_forms_send_their_inputs() -> None:
    system = page_system("wh40k-10e")
    deploy = {"type": "deploy_forces", "units": ["b1", "b2", "b3"]}
    form = FormData([("command", json.dumps(deploy)), ("deploy", "b2"), ("deploy", "x9")])
    assert build_command(form, system) == {
        "type": "deploy_forces",
        "units": ["b2"],
        "reserves": ["b1", "b3"],
    }
    night = {"type": "use_mission_stratagem", "stratagem": "night-raider"}
    form = FormData([("command", json.dumps(night)), ("cp", "4"), ("target", "")])
    assert build_command(form, system) == {**night, "cp": 4}
    zones = {"type": "report_zones"}
    form = FormData([("command", json.dumps(zones)), ("first_line", "a1"), ("second_line", "a2")])
    assert build_command(form, system) == {
        "type": "report_zones",
        "first_line": ["a1"],
        "second_line": ["a2"],
    }


def test_narrative_events_read_as_sentences_and_unknown_ones_fall_back() -> None:
    units = {"a2": "Intercessor Squad", "b3": "Kommandos"}
    names = {"A": "Alice", "B": "Bob"}
    say = present.describe
    assert (
        say(
            {
                "type": "narrative_reserve_rolled",
                "unit": "b3",
                "arrives": False,
                "reason": "roll",
                "roll": {"dice": [{"value": 2}]},
            },
            units,
            names,
            "B",
        )
        == "Kommandos stays in the mission's reserves (2)."
    )
    assert (
        say(
            {
                "type": "narrative_alarm",
                "state": "pending",
                "cause": "sabotage_attempt",
                "round": 3,
            },
            units,
            names,
            "A",
        )
        == "The alarm will be raised at the end of this turn: a sabotage attempt."
    )
    assert (
        say(
            {
                "type": "narrative_evaluated",
                "winner": "A",
                "result": "major_victory",
                "vp": None,
                "breakdown": [],
            },
            units,
            names,
            "B",
        )
        == "The mission is evaluated: Major victory for Alice."
    )
    assert (
        say({"type": "narrative_attacker_units_down", "units": ["a2"]}, units, names, "A") is None
    )


def test_narrative_sentences_and_the_panel_labels_in_french() -> None:
    from app.core.i18n import current_locale

    token = current_locale.set("fr")
    try:
        said = present.describe(
            {"type": "narrative_alarm", "state": "raised", "cause": "detected", "truncate": True},
            {},
            {"A": "Alice", "B": "Bob"},
            "A",
        )
        assert said == (
            "L'alarme est donnée : une figurine de l'Attaquant a été détectée. "
            "Le tour de l'Attaquant s'arrête là."
        )
        assert present.tr(present.NARRATIVE_STEPS, "sentries") == (
            "Le Défenseur déploie ses sentinelles"
        )
    finally:
        current_locale.reset(token)


# -- the narrative forms with no page test before: each shown, then posted through the page ------


def unit_boxes(form: Any) -> list[tuple[str, str, list[tuple[str, bool]]]]:
    """Each unit-choice fieldset of ``form``: its legend, its checkbox name and its boxes
    (value, ticked)."""
    out = []
    for fs in form.css("fieldset.narrative-units"):
        boxes = fs.css("input[type=checkbox]")
        names = {str(b.attributes["name"]) for b in boxes}
        assert len(names) == 1, names
        out.append(
            (
                " ".join(fs.css_first("legend").text().split()),
                names.pop(),
                [(str(b.attributes["value"]), "checked" in b.attributes) for b in boxes],
            )
        )
    return out


def posts_to_the_act_route(form: Any, match_id: int) -> None:
    """An action form posts (with and without htmx) to the act route and swaps the state."""
    assert form.attributes["method"] == "post"
    assert form.attributes["action"] == f"/matches/{match_id}/act"
    assert form.attributes["hx-post"] == f"/matches/{match_id}/act"
    assert form.attributes["hx-target"] == "#match-state"
    assert form.attributes["hx-swap"] == "outerHTML"


def test_blitz_go_to_ground_and_the_lines_reported_through_the_page(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = new_game(browser, armies, "blitz", marines(), orks())
    submit(g.a, find_form(page(g.a), "roll_off"))  # A attacks, B deploys hidden
    for p in (g.a, g.b):
        submit(p, page(p).css_first("#formation-form"))
    submit(g.b, find_form(page(g.b), "place_tokens"))
    submit(g.a, find_form(page(g.a), "deploy_forces"))

    # the Defender's INFANTRY units on the table may go to ground: none ticked at first
    b_page = page(g.b)
    ground = find_form(b_page, "go_to_ground")
    posts_to_the_act_route(ground, g.match_id)
    ((legend, name, boxes),) = unit_boxes(ground)
    assert (legend, name) == ("INFANTRY units that go to ground if hit", "units")
    units = {u["id"]: u for u in g.b.view()["units"]}
    offered = [v for v, _ in boxes]
    assert offered
    assert all(units[v]["owner"] == "B" and "INFANTRY" in units[v]["keywords"] for v in offered)
    assert not any(ticked for _, ticked in boxes)
    b_page = submit(g.b, ground, {"units": [offered[0]]})
    ready = [t for t in timeline(b_page) if t.startswith("Ready to go to ground: ")]
    assert len(ready) == 1
    assert units[offered[0]]["name"] in ready[0]

    targets = [u for u in g.b.view()["units"] if u["owner"] == "B"]
    on_table = [u for u in targets if u["location"] == "battlefield" and not u["destroyed"]]
    groups = [u for u in on_table if not u["bodyguard"]]  # an Attached unit is bombarded once
    g.a.send({"type": "bombard"}, dice=[1] * len(groups))  # every unit missed
    submit(g.a, find_form(page(g.a), "roll_off"))
    assert g.a.view()["stage"] == "battle"

    # the Attacker reports its units in the two lines: two fieldsets of its own units
    a_page = page(g.a)
    zones = find_form(a_page, "report_zones")
    posts_to_the_act_route(zones, g.match_id)
    fieldsets = unit_boxes(zones)
    assert [(legend, name) for legend, name, _ in fieldsets] == [
        ("In the first line", "first_line"),
        ("In the second line", "second_line"),
    ]
    mine = [v for v, _ in fieldsets[0][2]]
    assert mine == [v for v, _ in fieldsets[1][2]]
    assert all(v.startswith("a") for v in mine)
    assert not any(t for _, _, boxes in fieldsets for _, t in boxes)
    a_page = submit(g.a, zones, {"first_line": [mine[0]], "second_line": [mine[-1]]})
    reported = text_of(a_page, "#narrative-zones")
    assert reported.startswith("first: ")
    assert "second: " in reported
    view = g.a.view()["narrative"]
    assert (len(view["first_line"]), len(view["second_line"])) == (1, 1)


def test_rescue_the_hiding_place_search_through_the_page(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = new_game(browser, armies, "rescue", marines(), orks())
    submit(g.a, find_form(page(g.a), "roll_off"))
    for p in (g.a, g.b):
        submit(p, page(p).css_first("#formation-form"))
    submit(g.b, find_form(page(g.b), "deploy_forces"), {"deploy": ["b2"]})
    submit(g.a, find_form(page(g.a), "deploy_forces"))
    submit(g.a, find_form(page(g.a), "roll_off"))
    to_phase(g, "A", "movement")

    # one search form: the unit and the hiding place are choices, the die may be typed
    a_page = page(g.a)
    searches = a_page.css("form.action-search_hiding_place")
    assert len(searches) == 1
    search = searches[0]
    posts_to_the_act_route(search, g.match_id)
    assert "unit" not in json.loads(hidden_fields(search)["command"])
    units = [o.attributes["value"] for o in search.css("select[name=unit] option")]
    assert units
    assert all(u.startswith("a") for u in units)
    assert "required" in search.css_first("select[name=unit]").attributes
    places = [o.attributes["value"] for o in search.css("select[name=place] option")]
    assert places == ["1", "2", "3", "4", "5", "6"]
    assert search.css_first("details.hand-dice input[name=dice]") is not None
    a_page = submit(g.a, search, {"unit": units[0], "place": "2", "dice": "5"})
    assert text_of(a_page, "#narrative-searched") == "2 (6 in all)"
    places = [
        o.attributes["value"]
        for o in find_form(a_page, "search_hiding_place").css("select[name=place] option")
    ]
    assert places == ["1", "3", "4", "5", "6"]  # a place is searched once


def test_ambush_the_variable_cost_stratagem_and_the_escape_through_the_page(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    g = new_game(browser, armies, "ambush", marines(), orks())
    submit(g.a, find_form(page(g.a), "roll_off"))  # A attacks, and deploys hidden (reversed)
    for p in (g.a, g.b):
        submit(p, page(p).css_first("#formation-form"))

    submit(g.a, find_form(page(g.a), "place_tokens"))
    submit(g.b, find_form(page(g.b), "deploy_forces"))
    # after both sides deployed [L233]: Night Raider costs what the Attacker spends, a number
    # input bounded by its costs
    a_page = page(g.a)
    raider = find_form(a_page, "use_mission_stratagem", stratagem="night-raider")
    cp = raider.css_first("input[name=cp]")
    assert cp.attributes["type"] == "number"
    assert (cp.attributes["min"], cp.attributes["value"]) == ("1", "1")
    assert int(str(cp.attributes["max"])) >= 2
    assert "required" in cp.attributes
    assert "cp" not in json.loads(hidden_fields(raider)["command"])
    a_page = submit(g.a, raider, {"cp": "2"})
    assert "Alice (you): Night Raider, 2 CP (round 0)" in text_of(a_page, "#narrative-stratagems")
    assert g.a.view()["players"]["A"]["cp"] == 1  # 3, less 2

    # Lightning Reaction is on B's page at the first-turn roll-off, after both deployed [L247]
    submit(g.b, find_form(page(g.b), "use_mission_stratagem", stratagem="lightning-reaction"))
    submit(g.a, find_form(page(g.a), "roll_off"), {"dice": "6"})  # 6: the Defender first
    assert g.a.view()["active"] == "B"
    to_phase(g, "B", "movement")

    # the Defender's escape: one form, its own units on the table as the choice
    b_page = page(g.b)
    escapes = b_page.css("form.action-escape_unit")
    assert len(escapes) == 1
    posts_to_the_act_route(escapes[0], g.match_id)
    units = [o.attributes["value"] for o in escapes[0].css("select[name=unit] option")]
    assert units
    assert all(u.startswith("b") for u in units)
    b_page = submit(g.b, escapes[0], {"unit": units[-1]})
    assert next(u for u in g.b.view()["units"] if u["id"] == units[-1])["location"] == "escaped"
    assert text_of(b_page, "#narrative-escaped")


# -- combat zones: chosen on the new-match form, shown and played on the match page ---------------


def test_night_fight_chosen_on_the_new_match_form_then_its_distance_and_objectives_on_the_page(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    from tests.matches.conftest import setup_battle

    alice, bob = browser("Alice"), browser("Bob")
    army = armies.ready(alice, marines())
    # the new-match form's select (option.combat_zone) for any 10th-edition mission
    from app.matches import pages
    from app.matches.systems import wh40k10e

    for mission in ("only-war", "blitz"):  # blitz: the expansion too (its own test)
        field = pages.new_match_fields("wh40k-10e", wh40k10e.missions()[mission])[0]
        assert field.name == "combat_zone"
        assert [c.value for c in field.choices] == [
            "",  # none, the default
            "night-fight",
            "fire-and-fury",
            "psychic-maelstrom",
        ]
        assert (field.default, field.choices[1].label) == ("", "Night Fight")
    r = alice.post(
        "/matches",
        data={
            "army_id": army,
            "battle_size": "strike_force",
            "mission": "only-war",
            "opponent": "user",
            "option.combat_zone": "night-fight",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    code = html(alice.get(f"/matches/{match_id}")).css_first("#invite-code").text()
    r = bob.post(
        "/matches/join",
        data={"code": code, "army_id": armies.ready(bob, orks())},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    g = Game(Player(alice, match_id, "A"), Player(bob, match_id, "B"), match_id)
    assert g.a.view()["combat_zone"]["id"] == "night-fight"
    setup_battle(g, first="B")
    b_page = page(g.b)
    assert text_of(b_page, "#combat-zone-name") == "Night Fight"
    # B holds marker 3 as its Command phase ends: the D6 by hand, a 5
    g.b.send({"type": "report_objective", "marker": "3", "units": [{"unit": "b2"}]})
    g.b.send({"type": "end_phase"}, dice=[5])
    b_page = page(g.b)
    assert "Scatter field" in text_of(b_page, "#mysterious-objectives")
    assert any("Objective 3 identified for Bob (you): Scatter field" in t for t in timeline(b_page))
    to_phase(g, "B", "shooting")
    g.b.send({"type": "shoot", "unit": "b2", "targets": ["a2"]})
    forms = page(g.b).css("form[id^=combat-form-]")
    (attack,) = [f for f in forms if f.attributes["id"] in ("combat-form-b1", "combat-form-b2")]
    distance = attack.css_first("input[name=night_fight_distance]")
    assert distance is not None
    assert "required" in distance.attributes
    # the distance typed in goes to the odds: 20" is -1 to hit, 6" is none

    def expected_damage(inches: str) -> float:
        body = {**browser_fields(attack), "night_fight_distance": inches, "do": "preview"}
        r = g.b.client.post(f"/matches/{match_id}/combat", data=body, headers=HX)
        assert r.status_code == 200, r.text
        found = re.search(r"Expected damage: ([0-9.]+)", html(r).text())
        assert found is not None, html(r).text()
        return float(found.group(1))

    assert expected_damage("20") < expected_damage("6")


def test_an_uploaded_scenario_is_offered_on_its_uploaders_new_match_form(
    browser: Callable[[str], TestClient], starter: int
) -> None:
    """A pack uploaded with ``POST /api/v1/matches/mission-packs`` adds its scenarios to the
    new-match form of its uploader only; a match is created from the form with one of them."""
    from tests.matches.test_narrative_match import club_pack

    alice, bob = browser("Alice"), browser("Bob")
    r = alice.post(
        "/api/v1/matches/mission-packs",
        content=json.dumps(club_pack("alices", "night-bridge")),
        headers={"Content-Type": "application/json"},
    )
    assert r.status_code == 201, r.text
    lists: dict[str, int] = {}
    for who, client in (("alice", alice), ("bob", bob)):
        r = client.post(
            "/api/v1/armies",
            json={
                "rule_system": "wh40k-10e",
                "name": "Ready one",
                "faction": "Orks",
                "detachment": "War Horde",
                "battle_size": "strike-force",
                "units": [{"datasheet": "Warboss", "warlord": True}],
            },
        )
        assert r.status_code == 201, r.text
        lists[who] = r.json()["id"]
        r = client.patch(f"/api/v1/armies/{lists[who]}", json={"status": "ready"})
        assert r.status_code == 200, r.text

    def offered(client: TestClient) -> list[str]:
        form = html(client.get("/matches?ruleset=wh40k-10e")).css_first("#new-match-form")
        return [o.attributes["value"] for o in form.css("select[name=mission] option")]

    assert "night-bridge" in offered(alice)
    assert "only-war" in offered(alice)
    assert "night-bridge" not in offered(bob)
    r = alice.post(
        "/matches",
        data={
            "csrf_token": alice.csrf,  # type: ignore[attr-defined]
            "ruleset": "wh40k-10e",
            "army_id": str(lists["alice"]),
            "mission": "night-bridge",
            "battle_size": "strike_force",
            "option.combat_zone": "night-fight",
        },
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    match_id = int(r.headers["location"].rsplit("/", 1)[1])
    mine = alice.get(f"/api/v1/matches/{match_id}").json()
    assert mine["mission"] == "night-bridge"
    # the mission's option fields were read for the uploaded mission too
    from app.matches.models import Match

    with alice.app.state.db.sessions() as session:  # type: ignore[attr-defined]
        stored = session.get(Match, match_id)
        assert stored is not None
        assert stored.army_a["options"]["combat_zone"] == "night-fight"
