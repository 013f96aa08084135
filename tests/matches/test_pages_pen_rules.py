"""The PEN battle's new commands on the match page (issue 13, pen rulings B31-B36): each is
offered as a form where the battle offers it, sent through that form with its dice by hand, and
the page shows what changed: alert state and alert fire out of turn, a squad boarding a
transport kept in reserve and shooting through its fire points, the emergency disembark, a
refused challenge, Hit & Run; the new tokens named and the new events told, in English and in
French. The set-ups are those of ``test_pen_rules_*.py``, played over the API up to the point."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from tests.matches.test_pages_pen import page_of, post_form
from tests.matches.test_pages_pen_turn import forms
from tests.matches.test_pen_match import MATCHES, PenGame, Seat, guard, marine, ready_pen_list
from tests.matches.test_pen_rules_duel import character
from tests.matches.test_pen_rules_transports import to_b_turn, transport, units


def game(
    browser: Callable[[str], TestClient],
    a_units: list[dict[str, Any]],
    b_units: list[dict[str, Any]],
) -> tuple[PenGame, TestClient, TestClient]:
    """A match of two browsers (Alice A, Bob B) made over the API; the API driver and both."""
    alice, bob = browser("Alice"), browser("Bob")
    mine = ready_pen_list(alice, a_units, "Marines")
    theirs = ready_pen_list(bob, b_units, "Garde")
    body = {"ruleset": "pen", "army_id": mine, "mission": "pen-objectives", "battle_size": "1000"}
    r = alice.post(MATCHES, json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    r = bob.post(f"{MATCHES}/join", json={"code": created["invitation"]["code"], "army_id": theirs})
    assert r.status_code == 200, r.text
    base = f"{MATCHES}/{created['id']}"
    return PenGame(Seat(alice, base), Seat(bob, base), created["id"]), alice, bob


def deploy_all(g: PenGame) -> None:
    """No reserves, the roll-off won by A, A first, every squad deployed, A's turn started
    (night stays: a 1 [L948])."""
    g.a.send({"type": "end_step"})
    g.b.send({"type": "end_step"})
    g.a.send({"type": "roll_off"}, dice=[5, 2])
    g.a.send({"type": "choose_first", "seat": "A"})
    for p, seat in ((g.a, "A"), (g.b, "B")):
        for unit in p.view()["units"]:
            if unit["seat"] == seat and unit["place"] == "undeployed":
                p.send({"type": "deploy", "unit": unit["id"]})
        p.send({"type": "end_step"})
    g.a.send({"type": "start_turn"}, dice=[1])


def chips(page: Any, unit: str) -> list[str]:
    return [c.text() for c in page.css(f"#unit-{unit} .token")]


def sentence(li: Any) -> str:
    """A timeline entry's sentence, without its number and its dice."""
    text = str(li.text()).removeprefix(str(li.css_first(".seq").text()))
    dice = li.css_first(".dice")
    if dice is not None:
        text = text.removesuffix(str(dice.text()))
    return text.strip()


def told(page: Any) -> list[str]:
    return [sentence(li) for li in page.css("#timeline li")]


def latest(page: Any) -> str:
    return told(page)[0]


def test_alert_state_and_alert_fire_on_the_page(browser: Callable[[str], TestClient]) -> None:
    g, alice, bob = game(browser, [marine()], [guard()])
    deploy_all(g)
    form = page_of(alice, g.match_id).css_first("#form-go-on-alert-a1")
    assert form.css_first("button").text() == "Escouade tactique goes on alert"
    page = post_form(alice, g.match_id, "#form-go-on-alert-a1")
    assert latest(page) == "Escouade tactique goes on alert."
    assert chips(page, "a1") == ["on alert", "stationary"]
    assert "form-move-a1" not in forms(alice, g.match_id)  # done for the turn [L959]
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.b.send({"type": "start_turn"})
    g.b.send({"type": "move", "unit": "b1", "speed": "normal", "inches": 6})
    # Bob's turn: Alice's page offers the alert fire, and the battle waits on nobody for it
    page = page_of(alice, g.match_id)
    shoot = page.css_first("#form-shoot-a1")
    assert shoot.css_first(".form-title").text() == "Escouade tactique fires on alert"
    assert shoot.css_first("details.hand-dice") is not None
    assert page.css_first("#waiting-on-you") is None
    # two Marines at half range: 8 hits and wounds (6s), the four saves fail (1s)
    page = post_form(
        alice,
        g.match_id,
        "#form-shoot-a1",
        target="b1",
        weapon="Bolter",
        range_inches="10",
        half_range="1",
        models="2",
        dice="6 6 6 6 6 6 6 6 1 1 1 1",
    )
    assert latest(page).startswith(
        "Escouade tactique fires on alert at Escouade d'infanterie with Bolter."
    )
    assert page.css_first("#unit-b1 .models").text() == "6/10"
    assert g.b.view()["active_unit"] == "b1"  # Bob's squad is still moving
    # the end of the alert fire: the morale test at Ld7 fails on 12, the squad is stopped
    assert "form-end-activation-a1" in forms(alice, g.match_id)
    page = post_form(alice, g.match_id, "#form-end-activation-a1", dice="6 6")
    assert told(page)[:3] == [
        "Escouade tactique ends its alert fire.",
        "Escouade d'infanterie is stopped by the alert fire: no shooting nor charge this turn.",
        "Escouade d'infanterie takes a morale (alert fire) test: failed.",
    ]
    seen = page_of(bob, g.match_id)
    assert "stopped by alert fire" in chips(seen, "b1")
    assert "on alert" not in chips(seen, "a1")  # its alert is over
    # in French: the token and the sentences
    r = bob.patch("/api/v1/me", json={"preferred_language": "fr"})
    assert r.status_code == 200, r.text
    french = page_of(bob, g.match_id)
    assert "arrêtée par un tir d'alerte" in chips(french, "b1")
    said = told(french)
    assert "Escouade tactique met fin à son tir d'alerte." in said
    assert (
        "Escouade tactique tire en état d'alerte sur Escouade d'infanterie avec Bolter."
        in " ".join(said)
    )


def test_a_squad_boards_a_reserve_transport_and_shoots_through_its_fire_points(
    browser: Callable[[str], TestClient],
) -> None:
    trukk = transport("Trukk", ["open-topped", "transport"])
    veterans = guard(name="Vétérans", models=5, troops=False, points=50)
    g, _alice, bob = game(browser, [marine()], [guard(), trukk, veterans])
    post_form(bob, g.match_id, "#form-declare-reserve-b2")
    form = page_of(bob, g.match_id).css_first("#form-embark-b3-b2")
    assert form.css_first("button").text() == "Vétérans waits in reserve inside Trukk"
    page = post_form(bob, g.match_id, "#form-embark-b3-b2")
    assert latest(page) == "Vétérans embarks."
    assert "embarked" in chips(page, "b3")
    assert "form-declare-reserve-b3" not in forms(bob, g.match_id)  # it comes with the Trukk
    to_b_turn(g, b_reserve_dice=[5])  # one roll, for the Trukk [L862]
    g.b.send({"type": "arrive", "unit": "b2", "inches": 6})
    g.b.send({"type": "end_activation", "unit": "b2"})
    form = page_of(bob, g.match_id).css_first("#form-shoot-b3")
    title = form.css_first(".form-title").text()
    assert title == "Vétérans shoots from its transport (5 models may fire)"
    models = form.css_first("input[name=models]")
    assert (models.attributes["max"], models.attributes["value"]) == ("5", "5")
    # the lasguns fire once each at BS3: a 6 hits, four 1s miss; a 5 wounds; the save fails
    page = post_form(
        bob,
        g.match_id,
        "#form-shoot-b3",
        target="a1",
        weapon="Lasgun",
        range_inches="10",
        dice="6 1 1 1 1 5 1",
    )
    assert latest(page).startswith(
        "Vétérans shoots Escouade tactique with Lasgun from its transport (5 models firing)."
    )
    assert page.css_first("#unit-a1 .models").text() == "9/10"
    assert units(g.a)["b3"]["place"] == "embarked"


def test_an_emergency_disembark_on_the_page(browser: Callable[[str], TestClient]) -> None:
    devilfish = transport("Devilfish", ["fast", "transport"])
    g, _alice, bob = game(browser, [marine()], [guard(), devilfish, guard(name="Vétérans")])
    g.b.send({"type": "end_step"})
    g.a.send({"type": "end_step"})
    g.a.send({"type": "roll_off"}, dice=[5, 2])
    g.a.send({"type": "choose_first", "seat": "A"})
    g.a.send({"type": "deploy", "unit": "a1"})
    g.a.send({"type": "end_step"})
    g.b.send({"type": "deploy", "unit": "b1"})
    g.b.send({"type": "deploy", "unit": "b2"})
    g.b.send({"type": "embark", "unit": "b3", "transport": "b2"})
    g.b.send({"type": "end_step"})
    g.a.send({"type": "start_turn"}, dice=[1])
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    g.b.send({"type": "start_turn"})
    seen = page_of(bob, g.match_id)  # each squad's moves by its type (pen rulings B37)
    assert seen.css_first("#unit-b1 .moves").text() == 'moves 6", rapid 9"'  # infantry
    assert seen.css_first("#unit-b2 .moves").text() == 'moves 9", rapid 18"'  # fast vehicle
    g.b.send({"type": "move", "unit": "b2", "speed": "rapid", "inches": 18})
    g.b.send({"type": "end_activation", "unit": "b2"})
    form = page_of(bob, g.match_id).css_first("#form-disembark-b3")
    assert form.css_first("button").text() == "Vétérans makes an emergency disembark"
    assert form.css_first("input[name=emergency]") is None  # the battle said so already
    page = post_form(bob, g.match_id, "#form-disembark-b3")
    assert latest(page) == (
        "Vétérans makes an emergency disembark and goes to ground. "
        "It counts as having made a rapid move."
    )
    assert chips(page, "b3") == ["gone to ground", "rapid move"]  # no charge, snap fire [L309]
    r = bob.patch("/api/v1/me", json={"preferred_language": "fr"})
    assert r.status_code == 200, r.text
    assert "mouvement rapide" in chips(page_of(bob, g.match_id), "b3")


def test_a_challenge_refused_on_the_page(browser: Callable[[str], TestClient]) -> None:
    captain = character(marine(), "Capitaine", ws=5, wounds=3, attacks=3, initiative=5)
    commissar = character(guard(), "Commissaire", wounds=2, attacks=2, initiative=6)
    g, alice, bob = game(browser, [marine(), captain], [guard(), commissar])
    deploy_all(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "charge", "unit": "a2", "target": "b2", "distance": 4})
    form = page_of(alice, g.match_id).css_first("#form-challenge-a2-b2")
    assert form.css_first("button").text() == "Capitaine challenges Commissaire to a duel"
    page = post_form(alice, g.match_id, "#form-challenge-a2-b2")
    assert latest(page) == "Capitaine challenges Commissaire to a duel."
    seen = page_of(bob, g.match_id)
    accept = seen.css_first("#form-answer-challenge-b2-accept button").text()
    refuse = seen.css_first("#form-answer-challenge-b2-refuse button").text()
    assert (accept, refuse) == (
        "Commissaire accepts the duel",
        "Commissaire refuses the duel (I1 until the end of the turn)",
    )
    assert seen.css_first("#waiting-on-you") is not None  # the fight waits on the answer
    page = post_form(bob, g.match_id, "#form-answer-challenge-b2-refuse")
    assert latest(page) == "Commissaire refuses the duel: it strikes at Initiative 1 this turn."
    # the Commissar strikes at I1, after the Captain, who kills it first [L1228]
    page = post_form(alice, g.match_id, "#form-fight-a2-b2", dice="6 6 1 1 6 6 1 1")
    assert latest(page).startswith("Capitaine fights Commissaire.")
    assert page.css_first("#unit-b2").attributes["class"] == "unit-card destroyed"


def test_a_challenge_accepted_on_the_page(browser: Callable[[str], TestClient]) -> None:
    captain = character(marine(), "Capitaine", ws=5, wounds=3, attacks=3, initiative=5)
    commissar = character(guard(), "Commissaire", wounds=2, attacks=2, initiative=6)
    g, alice, bob = game(browser, [marine(), captain], [guard(), commissar])
    deploy_all(g)
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "charge", "unit": "a2", "target": "b2", "distance": 4})
    post_form(alice, g.match_id, "#form-challenge-a2-b2")
    early = post_form(alice, g.match_id, "#form-fight-a2-b2", dice="1")
    assert early.css_first("#match-error") is not None  # the answer comes first [L1226]
    page = post_form(bob, g.match_id, "#form-answer-challenge-b2-accept")
    assert latest(page) == "Commissaire accepts the duel with Capitaine."
    assert "form-answer-challenge-b2-refuse" not in forms(bob, g.match_id)
    assert "form-fight-a2-b2" in forms(alice, g.match_id)


def test_hit_and_run_on_the_page(browser: Callable[[str], TestClient]) -> None:
    g, alice, bob = game(browser, [marine(rules=["Hit & Run"])], [guard()])
    to_b_turn(g)
    g.b.send({"type": "end_phase"})
    g.b.send({"type": "end_phase"})
    g.a.send({"type": "start_turn"}, dice=[1])
    g.a.send({"type": "end_phase"})
    g.a.send({"type": "charge", "unit": "a1", "target": "b1", "distance": 4})
    form = page_of(alice, g.match_id).css_first("#form-hit-and-run-a1")
    title = form.css_first(".form-title").text()
    assert title == "Escouade tactique will try to leave by Hit & Run"
    assert form.css_first("input[name=initiative]").attributes.get("value") is None
    assert page_of(bob, g.match_id).css_first("#form-hit-and-run-a1") is None
    page = post_form(alice, g.match_id, "#form-hit-and-run-a1")  # empty: its own step
    assert latest(page) == (
        "Escouade tactique will try to leave by Hit & Run after its own Initiative step."
    )
    assert "form-hit-and-run-a1" not in forms(alice, g.match_id)
    # twenty Marine attacks miss; the roll-off: Guard 1 + 3, Marines 6 + 4: gone
    page = post_form(alice, g.match_id, "#form-fight-a1-b1", dice=" ".join(["1"] * 20 + ["1", "6"]))
    assert "Escouade tactique left the combat by Hit & Run." in latest(page)
    assert "locked in combat" not in chips(page, "a1")


def test_hit_and_run_s_initiative_step_goes_to_the_command() -> None:
    from starlette.datastructures import FormData

    from app.matches.pages.pen import build_command

    declared = {"type": "hit_and_run", "unit": "a1", "initiative": 0}
    assert build_command(FormData([("initiative", "")]), dict(declared)) == declared
    assert build_command(FormData([("initiative", "3")]), dict(declared))["initiative"] == 3


def test_the_new_events_in_english_and_in_french() -> None:
    from app.core.i18n import current_locale
    from app.matches.pages.pen import describe

    names = {"a1": "Capitaine", "b1": "Commissaire", "b2": "Trukk"}
    events: list[tuple[dict[str, Any], str, str]] = [
        (
            {"type": "alert_declared", "unit": "a1"},
            "Capitaine goes on alert.",
            "Capitaine se met en état d'alerte.",
        ),
        (
            {"type": "stopped", "unit": "b1"},
            "Commissaire is stopped by the alert fire: no shooting nor charge this turn.",
            "Commissaire est arrêtée par le tir d'alerte : ni tir ni charge ce tour-ci.",
        ),
        (
            {"type": "challenge_issued", "unit": "a1", "target": "b1"},
            "Capitaine challenges Commissaire to a duel.",
            "Capitaine défie Commissaire en duel.",
        ),
        (
            {"type": "challenge_answered", "unit": "b1", "challenger": "a1", "accepted": True},
            "Commissaire accepts the duel with Capitaine.",
            "Commissaire accepte le duel contre Capitaine.",
        ),
        (
            {"type": "hit_and_run_declared", "unit": "a1", "initiative": 3},
            "Capitaine will try to leave by Hit & Run after Initiative step 3.",
            "Capitaine tentera de se désengager (Hit & Run) après le tour d'initiative 3.",
        ),
        (
            {"type": "disembarked", "unit": "b1", "transport": "b2", "emergency": True},
            "Commissaire makes an emergency disembark and goes to ground.",
            "Commissaire fait un débarquement d'urgence et se met à couvert.",
        ),
        (
            {
                "type": "unit_shot",
                "unit": "b1",
                "target": "a1",
                "weapon": "Laspistol",
                "fire_points": 2,
            },
            "Commissaire shoots Capitaine with Laspistol from its transport (2 models firing).",
            "Commissaire tire sur Capitaine avec Laspistol depuis son transport "
            "(2 figurines tirent).",
        ),
    ]
    for event, english, _french in events:
        assert describe(event, names, {}) == english
    token = current_locale.set("fr")
    try:
        for event, _english, french in events:
            assert describe(event, names, {}) == french
        resolved = {
            "type": "combat_resolved",
            "unit": "a1",
            "target": "b1",
            "squads": [],
            "winner": "",
            "disengaged": ["a1"],
        }
        assert "Désengagement par Hit & Run : Capitaine." in describe(resolved, names, {})
    finally:
        current_locale.reset(token)
