"""Every playable match has a page (issue 13): a rule system, or a PEN turn structure, without
its own page gets the generic one (``app/matches/pages/generic.py``): the seat's view as facts
and unit cards, its legal actions as forms (the command's fields and ``needs`` as inputs), the
undo block and the timeline. The generic page renders only ``game.view(seat)`` and the seat's
log: a Black Reach token or a Dynamics order placed by one seat never reaches the other's
HTML."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.matches import pages, reads, systems
from app.matches.pages import generic
from app.matches.systems.pen.game import TURN_STRUCTURES
from tests.matches.conftest import FakeArmies, marines, orks
from tests.matches.test_pen_match import devastators, guard, marine, ready_pen_list, rhino
from tests.support.web import html

MATCHES = "/api/v1/matches"
HX = {"HX-Request": "true"}
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
NOB = "orks:tiles[0]/0:sample-ork-nob"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"


def _join(alice: TestClient, bob: TestClient, body: dict[str, Any], army_b: int | None) -> int:
    r = alice.post(MATCHES, json=body)
    assert r.status_code == 201, r.text
    created = r.json()
    joining: dict[str, Any] = {"code": created["invitation"]["code"]}
    if army_b is not None:
        joining["army_id"] = army_b
    r = bob.post(f"{MATCHES}/join", json=joining)
    assert r.status_code == 200, r.text
    return int(created["id"])


def tenth(alice: TestClient, bob: TestClient, armies: FakeArmies, structure: str) -> int:
    body = {
        "army_id": armies.ready(alice, marines()),
        "battle_size": "strike_force",
        "mission": "only-war",
    }
    return _join(alice, bob, body, armies.ready(bob, orks()))


def pen(alice: TestClient, bob: TestClient, armies: FakeArmies, structure: str) -> int:
    mine = ready_pen_list(alice, [marine(), devastators()], "Marines")
    theirs = ready_pen_list(bob, [guard(), rhino()], "Garde")
    body = {
        "ruleset": "pen",
        "army_id": mine,
        "battle_size": "1000",
        "options": {"turn_structure": structure},
    }
    return _join(alice, bob, body, theirs)


def black_reach(alice: TestClient, bob: TestClient, armies: FakeArmies, structure: str) -> int:
    return _join(alice, bob, {"ruleset": "black-reach"}, None)


CREATORS: dict[str, Callable[[TestClient, TestClient, FakeArmies, str], int]] = {
    "wh40k-10e": tenth,
    "pen": pen,
    "black-reach": black_reach,
}


def cases() -> list[tuple[str, str]]:
    out = []
    for ruleset in sorted(systems.systems()):
        structures = TURN_STRUCTURES if ruleset == "pen" else ("",)
        out.extend((ruleset, s) for s in structures)
    return out


def test_every_playable_system_has_a_way_to_be_created_here() -> None:
    assert set(systems.systems()) <= set(CREATORS)


@pytest.mark.parametrize(("ruleset", "structure"), cases())
def test_every_playable_match_renders_its_page(
    browser: Callable[[str], TestClient], armies: FakeArmies, ruleset: str, structure: str
) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    match_id = CREATORS[ruleset](alice, bob, armies, structure)
    for client in (alice, bob):
        r = client.get(f"/matches/{match_id}")
        assert r.status_code == 200, r.text
        page = html(r)
        assert page.css_first("#match-state") is not None
        assert page.css_first("#timeline") is not None
        r = client.get(f"/matches/{match_id}", headers={**HX, "Accept-Language": "fr"})
        assert r.status_code == 200, r.text
    # the list of matches says what waits on each player, whatever the system
    r = alice.get("/matches")
    assert r.status_code == 200, r.text
    own = ruleset in ("wh40k-10e", "black-reach") or (ruleset == "pen" and structure != "dynamics")
    shown = html(alice.get(f"/matches/{match_id}"))
    assert (shown.css_first("#state-facts") is None) == own


def test_page_for_falls_back_on_the_generic_page() -> None:
    assert pages.page_for("wh40k-10e").id == "wh40k-10e"
    assert pages.page_for("pen").id == "pen"
    assert pages.page_for("black-reach").id == "black-reach"
    assert pages.page_for("no-such-system") is generic.PAGE

    class Dynamics:
        turn_structure = "dynamics"

    class Classic:
        turn_structure = "classic"

    assert pages.page_for("pen", Dynamics()) is generic.PAGE
    assert pages.page_for("pen", Classic()).id == "pen"


def _form(page: Any, css: str) -> dict[str, str]:
    form = page.css_first(css)
    assert form is not None, (css, [f.attributes.get("id") for f in page.css("form")])
    return {
        i.attributes["name"]: i.attributes.get("value") or ""
        for i in form.css("input")
        if i.attributes.get("name")
    }


def _form_for(page: Any, kind: str, unit: str) -> dict[str, str]:
    """The inputs of the action form whose command is ``kind`` of ``unit``."""
    for form in page.css("#actions form"):
        command = form.css_first("input[name=command]")
        if command is None:
            continue
        cmd = json.loads(command.attributes.get("value") or "{}")
        if cmd.get("type") == kind and cmd.get("unit") == unit:
            return _form(page, f"#{form.attributes['id']}")
    raise AssertionError((kind, unit, [f.attributes.get("id") for f in page.css("form")]))


def _post(client: TestClient, match_id: int, data: dict[str, str]) -> Any:
    r = client.post(f"/matches/{match_id}/act", data=data, headers=HX)
    assert r.status_code == 200, r.text
    return html(r)


def test_a_dynamics_order_stays_off_the_other_seats_page(
    browser: Callable[[str], TestClient], armies: FakeArmies
) -> None:
    alice, bob = browser("Alice"), browser("Bob")
    match_id = pen(alice, bob, armies, "dynamics")

    def send(client: TestClient, command: dict[str, Any], dice: list[int] | None = None) -> None:
        version = client.get(f"{MATCHES}/{match_id}").json()["version"]
        body: dict[str, Any] = {"expected_version": version, "command": command}
        if dice:
            body["dice"] = dice
        r = client.post(f"{MATCHES}/{match_id}/commands", json=body)
        assert r.status_code == 200, r.text

    send(alice, {"type": "end_step"})
    send(bob, {"type": "end_step"})
    send(alice, {"type": "roll_off"}, [5, 2])
    send(alice, {"type": "choose_first", "seat": "A"})
    for client, seat in ((alice, "A"), (bob, "B")):
        for unit in client.get(f"{MATCHES}/{match_id}").json()["view"]["units"]:
            if unit["seat"] == seat and unit["place"] == "undeployed":
                send(client, {"type": "deploy", "unit": unit["id"]})
        send(client, {"type": "end_step"})
    view = alice.get(f"{MATCHES}/{match_id}").json()["view"]
    starter = alice if view["active_seat"] in ("A", None) else bob
    send(starter, {"type": "start_turn"}, [1])
    # A places an order with the generic form: unit and order as inputs
    page = html(alice.get(f"/matches/{match_id}"))
    # the PEN battle's own events read in PEN's sentences (PageSystem.sentence), not raw kinds
    told = [li.text() for li in page.css("#timeline li")]
    assert any(t.endswith("Escouade tactique is deployed.") for t in told), told
    assert not any("Unit deployed" in t for t in told)
    data = _form_for(page, "place_order", "a1")
    data["field.order"] = "fire"
    placed = _post(alice, match_id, data)
    assert placed.css_first("#match-error") is None, placed.css_first("#match-error").text()
    battle = next(s.battle for (mid, _), s in reads.cache._items.items() if mid == match_id)
    slot = battle.state.slots["a1"]
    assert slot.seat == "A"
    b_html = bob.get(f"/matches/{match_id}").text + bob.get("/matches").text
    assert slot.nonce not in b_html
    assert "fire" not in html(bob.get(f"/matches/{match_id}")).css_first("#match-state").text()
    assert "order: fire" in html(alice.get(f"/matches/{match_id}")).css_first("#units").text()


def test_generic_build_command_reads_fields_and_needs() -> None:
    from starlette.datastructures import FormData

    form = FormData(
        [
            ("field.x", "3"),
            ("field.path", "[[1,2],[2,3]]"),
            ("field.facing", "north"),
            ("need.range_inches", "12"),
            ("need.half_range", ""),
            ("field.type", "evil"),
            ("csrf_token", "t"),
        ]
    )
    assert generic.build_command(form, {"type": "deploy", "unit": "u1"}) == {
        "type": "deploy",
        "unit": "u1",
        "x": 3,
        "path": [[1, 2], [2, 3]],
        "facing": "north",
        "range_inches": 12,
    }


def test_generic_timeline_reads_any_event() -> None:
    log = [
        {"seq": 1, "event": {"type": "unit_moved", "unit": "u1", "steps": 3}, "batch": 1},
        {"seq": 2, "event": {"type": "undone", "batch": 1}, "batch": 2},
    ]
    lines = generic.timeline(log, {"u1": "Boyz"}, {"A": "Alice", "B": "Bob"})
    assert [line.text for line in lines] == [
        "An action is undone.",
        "Unit moved (unit: Boyz, steps: 3).",
    ]
    assert lines[1].undone
    assert not lines[0].undone


def test_the_generic_timeline_tells_a_systems_events_in_its_own_sentences() -> None:
    """A Dynamics match shows the generic page; its PEN events (moves, shots...) read in the
    sentences of the PEN page (its ``PageSystem.sentence``), in English and in French; the
    Dynamics events keep theirs, and an event no one knows reads as its kind in words."""
    from app.core.i18n import current_locale

    own = pages.page_system("pen").sentence
    log = [
        {"seq": 1, "event": {"type": "unit_moved", "unit": "a1", "speed": "rapid", "inches": 9}},
        {"seq": 2, "event": {"type": "went_to_ground", "unit": "b1"}},
        {"seq": 3, "event": {"type": "turn_began", "turn": 2}},
        {"seq": 4, "event": {"type": "mystery_event", "unit": "a1"}},
    ]
    names = {"a1": "Tactical", "b1": "Guardsmen"}
    players = {"A": "Alice", "B": "Bob"}
    lines = [line.text for line in generic.timeline(log, names, players, own=own)][::-1]
    assert lines == [
        'Tactical moves (rapid move, 9").',
        "Guardsmen goes to ground.",
        "Turn 2 begins.",
        "Mystery event (unit: Tactical).",
    ]
    token = current_locale.set("fr")
    try:
        french = [line.text for line in generic.timeline(log, names, players, own=own)][::-1]
    finally:
        current_locale.reset(token)
    assert french[:3] == [
        'Tactical se déplace (mouvement rapide, 9").',
        "Guardsmen se met à couvert.",
        "Le tour 2 commence.",
    ]
    # without the system's sentences (a system with no page of its own): the kind in words
    plain = [line.text for line in generic.timeline(log[:1], names, players)]
    assert plain == ["Unit moved (unit: Tactical, speed: rapid, inches: 9)."]


def test_a_value_nested_past_the_parsers_stack_is_text_not_a_server_error() -> None:
    """``json.loads`` raises RecursionError (not ValueError) on "[[[[...": the generic form
    and the shared ``command`` field read such a value as text (or drop it when too long);
    the game then refuses what it lacks."""
    from starlette.datastructures import FormData

    from app.matches.web import build_command

    nested = "[" * 1_999 + "]" * 1_999
    form = FormData([("field.x", nested), ("command", "[" * 9_000 + "]" * 9_000)])
    built = generic.build_command(form, {"type": "deploy"})
    assert built["type"] == "deploy"
    assert built.get("x") in (None, nested)
    page = pages.page_for("black-reach", None)
    assert build_command(FormData([("command", "[" * 9_000 + "]" * 9_000)]), page) == {"type": ""}


def _dynamics_log() -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = [
        {"type": "placing_roll_off", "stage": "infiltrate", "winner": "B", "roll": {"dice": []}},
        {"type": "placing_first_chosen", "stage": "infiltrate", "seat": "A"},
        {"type": "placing_roll_off", "stage": "scout", "winner": "A", "roll": {"dice": []}},
        {"type": "placing_first_chosen", "stage": "scout", "seat": "B"},
        {"type": "order_committed", "seat": "A", "unit": "a1", "turn": 1, "commitment": "ab" * 32},
        {
            "type": "order_revealed",
            "unit": "a1",
            "order": "fire",
            "nonce": "cd" * 16,
            "declaration": {"target": "b1", "mode": ""},
            "step": 4,
        },
    ]
    return [{"seq": i, "event": ev, "batch": i} for i, ev in enumerate(events, 1)]


def test_the_dynamics_events_read_as_sentences_in_english_and_french() -> None:
    """Every event kind of the Dynamics turn has its sentence (none reads as its raw kind),
    the placing roll-offs and choices of the set-up [L142] among them, in both languages."""
    from app.core.i18n import current_locale
    from app.engine.dynamics.events import OWN_EVENTS

    assert {e.kind for e in OWN_EVENTS} <= set(generic.SENTENCES)
    names = {"a1": "Tactical", "b1": "Guardsmen"}
    players = {"A": "Alice", "B": "Bob"}
    lines = [line.text for line in generic.timeline(_dynamics_log(), names, players)][::-1]
    assert lines == [
        "Roll-off for who places the infiltrators first: Bob wins.",
        "Alice places the infiltrators first.",
        "Roll-off for who makes the scout moves first: Alice wins.",
        "Bob makes the scout moves first.",
        "Alice places a face-down order on Tactical (commitment abababababab…).",
        "Tactical reveals its order: Fire, at Guardsmen (Initiative 4).",
    ]
    token = current_locale.set("fr")
    try:
        lines = [line.text for line in generic.timeline(_dynamics_log(), names, players)][::-1]
    finally:
        current_locale.reset(token)
    assert lines == [
        "Jet au dé pour savoir qui place ses infiltrateurs en premier : Bob l'emporte.",
        "Alice place ses infiltrateurs en premier.",
        "Jet au dé pour savoir qui fait ses mouvements de scout en premier : Alice l'emporte.",
        "Bob fait ses mouvements de scout en premier.",
        "Alice pose un ordre face cachée sur Tactical (engagement abababababab…).",
        "Tactical révèle son ordre : Tir, sur Guardsmen (Initiative 4).",
    ]


@pytest.mark.parametrize("kind", sorted(generic.SENTENCES))
def test_each_dynamics_sentence_is_translated(kind: str) -> None:
    """Each sentence of a Dynamics event, with every field it reads, differs in French (so
    none was left without its translation)."""
    from app.core.i18n import current_locale

    ev = {
        "type": kind,
        "seat": "A",
        "winner": "B",
        "unit": "a1",
        "target": "b1",
        "assaulter": "b1",
        "units": ["a1"],
        "turn": 2,
        "step": 3,
        "stage": "reveal",
        "context": "reveal",
        "order": "assault",
        "commitment": "ab" * 32,
        "total_a": 7,
        "total_b": 5,
        "last": "A",
    }
    english = generic.describe(ev, {}, {"A": "Alice", "B": "Bob"})
    token = current_locale.set("fr")
    try:
        french = generic.describe(ev, {}, {"A": "Alice", "B": "Bob"})
    finally:
        current_locale.reset(token)
    assert english != french
    assert kind.replace("_", " ") not in english.lower()
