"""A whole PEN battle on its match page (issue 13's proof), the dice rolled by hand in the
page's fields: reserves (a deep strike and a standard reserve), night in round 1 and dawn in
round 2, a transport destroyed by a lascannon with its passengers hit, shooting that kills
and the morale test it causes, a charge and a fight, a combat of three squads won with a
sweeping advance, the winner's consolidation, the game-length rolls after rounds 5 and 6, the
objectives reported and the result confirmed.

The battle is a list of :class:`Step` (who fills which form of the page, with what, and what
both pages then show): this test plays it with two HTTP clients, and
``tests/e2e/test_pen_battle.py`` plays the same steps on two Chromium phones. The dice and the
outcomes are the engine's full battle (``tests/engine/pen/battle/test_full_battle.py``), whose
comments work them out from the seed's tables."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient

from tests.matches.test_pages_pen import HX, page_of, post_form
from tests.matches.test_pen_match import ready_pen_list
from tests.support.web import html

MARINE = {
    "ws": 4,
    "bs": 4,
    "strength": 4,
    "toughness": 4,
    "wounds": 1,
    "initiative": 4,
    "attacks": 1,
    "leadership": 8,
    "save": 3,
}
GUARDSMAN = MARINE | {
    "ws": 3,
    "bs": 3,
    "strength": 3,
    "toughness": 3,
    "initiative": 3,
    "leadership": 7,
    "save": 5,
}
BOLTER = {"name": "Bolter", "type": "tir rapide", "shots": 1, "strength": 4, "ap": 5}
LASGUN = {"name": "Lasgun", "type": "tir rapide", "shots": 1, "strength": 3}
LASCANNON = {"name": "Lascannon", "type": "lourde", "shots": 1, "strength": 9, "ap": 2}


def _squad(
    name: str, points: int, models: int, stats: dict[str, int], weapon: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    return {
        "name": name,
        "points": points,
        "models": models,
        "unit_type": "infanterie",
        "characteristics": stats,
        "weapons": [weapon],
        **extra,
    }


MARINES = [  # a1, a2, a3
    _squad("Tactical", 100, 3, MARINE, BOLTER, troops=True),
    _squad("Devastator", 60, 1, MARINE, LASCANNON),
    _squad("Assault", 80, 2, MARINE, BOLTER, rules=["Frappe en profondeur"]),
]
GUARD = [  # b1, b2, b3, b4
    _squad("Infantry", 40, 4, GUARDSMAN, LASGUN, troops=True),
    {
        "name": "Chimera",
        "points": 60,
        "unit_type": None,
        "characteristics": {"bs": 3},
        "armour": {"front": 11, "side": 11, "rear": 10},
        "hull_points": 3,
        "vehicle_types": ["tank", "transport"],
        "transport_capacity": 10,
        "weapons": [LASGUN],
    },
    _squad("Squad", 30, 3, GUARDSMAN, LASGUN),
    _squad("Veterans", 50, 2, GUARDSMAN, LASGUN),
]


@dataclass(frozen=True, slots=True)
class Step:
    """``seat`` fills the form ``form`` of its page with ``fields`` (a checkbox: its value
    ticked) and the dice rolled by hand, and sends it; then both pages show each
    ``(css, text)`` of ``sees``."""

    seat: str
    form: str
    dice: str = ""
    fields: Mapping[str, str] = field(default_factory=dict)
    sees: tuple[tuple[str, str], ...] = ()


END_PHASE = "form.action-end_phase"


def _quiet_turn(seat: str, game_length: str = "") -> list[Step]:
    return [
        Step(seat, "#form-start-turn"),
        Step(seat, END_PHASE),
        Step(seat, END_PHASE, game_length),
    ]


def _say(text: str) -> tuple[str, str]:
    """The timeline says ``text``."""
    return ("#timeline", text)


SET_UP = [
    Step("A", "#form-declare-reserve-a3", fields={"mode": "deep_strike"}),
    Step("B", "#form-declare-reserve-b4", sees=(_say("Veterans is kept in reserve."),)),
    Step("A", "#form-end-step"),
    Step("B", "#form-end-step"),
    Step("A", "#form-roll-off", "4 2", sees=(_say("Alice wins the roll-off."),)),
    Step("A", "#form-choose-first-A"),
    Step("A", "#form-deploy-a1"),
    Step("A", "#form-deploy-a2"),
    Step("A", "#form-end-step"),
    Step("B", "#form-deploy-b1"),
    Step("B", "#form-deploy-b2"),
    Step("B", "#form-embark-b3", fields={"transport": "b2"}),
    Step("B", "#form-end-step", sees=(("#round", "Round 1"), ("#unit-b3", "embarked"))),
]
ROUND_1 = [
    # dawn on a 6 in round 1: 3, still night [L950]; the Assault squad's 2 < 5+ [L860]
    Step("A", "#form-start-turn", "3 2", {"reserves": "a3"}, (("#night", "Night"),)),
    Step("A", "#form-move-a2", fields={"speed": "stationary", "inches": "0"}),
    # the lascannon at the Chimera's side: "Détruit" [L1453]; its 3 passengers hit, 1 dies
    Step(
        "A",
        "#form-shoot-a2",
        "6 6 1 6 6 6 1 1 5",
        {"target": "b2", "weapon": "Lascannon", "range_inches": "12", "facing": "side"},
        (("#unit-b2", "destroyed"), ("#unit-b3 .models", "2/3")),
    ),
    Step("A", "#form-end-activation-a2"),
    Step("A", "#form-move-a1", fields={"speed": "normal", "inches": "6"}),
    # 6 shots at half range: 3 hits, 2 wounds, 2 saves failed: Infantry 4 -> 2
    Step(
        "A",
        "#form-shoot-a1",
        "6 6 6 1 1 1 6 6 1 1 1",
        {"target": "b1", "weapon": "Bolter", "range_inches": "10", "half_range": "1"},
        (("#unit-b1 .models", "2/4"),),
    ),
    # half the squad lost: morale at Ld 7 - 1, 3 + 2 passes [L1164]
    Step("A", "#form-end-activation-a1", "3 2", sees=(_say("morale test: passed"),)),
    Step("A", END_PHASE, sees=(("#phase", "Assault"),)),
    Step("A", "#form-charge-a1", fields={"target": "b1", "distance": "5"}),
    # every attack misses: a draw, both stay locked
    Step("A", "#form-fight-a1-b1", "1 1 1 1 1 1 1 1", sees=(_say("The combat is a draw."),)),
    Step("A", END_PHASE),
    # Bob: the Veterans arrive on a 6 and come on
    Step("B", "#form-start-turn", "6", {"reserves": "b4"}, (_say("Veterans arrive"),)),
    Step("B", "#form-arrive-b4", fields={"inches": "6"}),
    Step("B", "#form-end-activation-b4"),
    Step("B", "#form-move-b3", fields={"speed": "normal", "inches": "4"}),
    Step("B", "#form-end-activation-b3"),
    Step("B", END_PHASE),
    Step("B", "#form-charge-b3", fields={"target": "a1", "distance": "3"}),
    # three squads in one combat: the Squad falls at I4, one Marine at I3; the Guard lost
    # more, Infantry fails its morale and is swept away with 1 more casualty [L1258]
    Step(
        "B",
        "#form-fight-b3-a1",
        "6 6 6 6 6 1 1 1 4 4 5 1 1 4 4 3 1",
        {"assign_a1": "b3"},  # Tactical, locked with both, strikes the Squad [L1205]
        (
            _say("Sweeping advance: 1 models caught."),
            ("#unit-a1 .models", "2/3"),
            ("#unit-b1", "retreating"),
        ),
    ),
    Step("A", "#form-consolidate-a1", fields={"inches": "3"}, sees=(_say('consolidates (3")'),)),
    Step("B", END_PHASE),
]
ROUND_2 = [
    # dawn on 3+ in round 2: 4, day; the Assault squad's 5 >= 4+: it arrives
    Step("A", "#form-start-turn", "4 5", {"reserves": "a3"}, (("#night", "Day"),)),
    Step("A", "#form-arrive-a3", "1", {"inches": "0"}, (_say("Assault arrives from reserve."),)),
    Step("A", "#form-end-activation-a3"),
    Step("A", "#form-move-a1", fields={"speed": "stationary", "inches": "0"}),
    # stationary at half range: 2+ re-rolled; one hit, one wound, the last Guardsman falls
    Step(
        "A",
        "#form-shoot-a1",
        "6 1 1 1 1 1 1 6 1",
        {"target": "b1", "weapon": "Bolter", "range_inches": "8", "half_range": "1"},
        (("#unit-b1", "destroyed"),),
    ),
    Step("A", "#form-end-activation-a1"),
    Step("A", END_PHASE),
    Step("A", END_PHASE),
    *_quiet_turn("B"),
]
LATER_ROUNDS = [
    *_quiet_turn("A"),
    *_quiet_turn("B"),  # round 3
    *_quiet_turn("A"),
    *_quiet_turn("B"),  # round 4
    *_quiet_turn("A"),
    *_quiet_turn("B", "4"),  # after round 5: 4 >= 3+, the battle goes on [L826]
    Step("A", "#form-start-turn", sees=(("#round", "Round 6"),)),
    Step("A", END_PHASE),
    Step("A", END_PHASE),
    Step("B", "#form-start-turn"),
    Step("B", END_PHASE),
    Step("B", END_PHASE, "2", sees=(_say("Game length after round 6: the battle ends."),)),
]
BATTLE = [*SET_UP, *ROUND_1, *ROUND_2, *LATER_ROUNDS]


def play_on_the_page(client: TestClient, match_id: int, step: Step) -> Any:
    """One step with an HTTP client: the form as the page shows it, the step's fields, each
    of which the form must have (a checkbox: with that value), the dice field only where the
    battle rolls (the end of a phase: only when it rolls the game's length [L826])."""
    form = page_of(client, match_id).css_first(step.form)
    assert form is not None, step
    for name, value in step.fields.items():
        tick = f"[value='{value}']" if name in ("reserves", "half_range") else ""
        assert form.css_first(f"[name={name}]{tick}") is not None, (step, name)
    has_dice = form.css_first("input[name=dice]") is not None
    if step.dice:
        assert has_dice, step
    elif step.form == END_PHASE:
        assert not has_dice, step  # ending this phase rolls nothing: no field for dice
    return post_form(client, match_id, step.form, dice=step.dice, **step.fields)


def create_battle(
    browser: Callable[[str], TestClient],
    marines: list[dict[str, Any]] = MARINES,
    guard: list[dict[str, Any]] = GUARD,
) -> tuple[TestClient, TestClient, int]:
    """Alice's Marines against Bob's Guard, created and joined on the pages."""
    alice, bob = browser("Alice"), browser("Bob")
    mine = ready_pen_list(alice, marines, "Marines")
    theirs = ready_pen_list(bob, guard, "Guard")
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
    r = bob.post(
        "/matches/join",
        data={"csrf_token": bob.csrf, "code": code, "army_id": str(theirs)},  # type: ignore[attr-defined]
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    return alice, bob, match_id


def test_a_whole_pen_battle_on_its_page(browser: Callable[[str], TestClient]) -> None:
    alice, bob, match_id = create_battle(browser)
    seats = {"A": alice, "B": bob}
    for step in BATTLE:
        page = play_on_the_page(seats[step.seat], match_id, step)
        error = page.css_first("#match-error")
        assert error is None, (step, error.text())
        for client in (alice, bob):
            page = page_of(client, match_id)
            for css, text in step.sees:
                node = page.css_first(css)
                assert node is not None, (step, css)
                assert text in node.text(), (step, css, text)
    # the end: who holds each objective, said on the page
    page = page_of(alice, match_id)
    reports = [f.attributes["id"] for f in page.css("#actions form.action-report_control")]
    assert reports, "the page asks who holds the objectives"
    objectives = sorted({r.rsplit("-objective-", 1)[1] for r in reports})
    for n in objectives:
        post_form(alice, match_id, f"#form-report-control-A-objective-{n}")
    for client in (alice, bob):
        page = page_of(client, match_id)
        assert "Alice wins" in page.css_first("#result").text()
        assert page.css_first("#result-confirmed") is not None
    r = alice.get(f"/api/v1/matches/{match_id}")
    assert r.json()["status"] == "confirmed"
    kinds = [
        e["event"]["type"] for e in alice.get(f"/api/v1/matches/{match_id}/log").json()["entries"]
    ]
    for kind in ("dawn_rolled", "unit_arrived", "passengers_hit", "combat_resolved"):
        assert kind in kinds
    assert kinds.count("game_length_rolled") == 2
    assert html(alice.get(f"/matches/{match_id}", headers=HX)).css_first("#result") is not None
    # the timeline in French
    r = bob.patch("/api/v1/me", json={"preferred_language": "fr"})
    assert r.status_code == 200, r.text
    said = page_of(bob, match_id).css_first("#timeline").text()
    for french in (
        "La bataille est terminée.",
        "Durée de la partie après le round de bataille 6 : la bataille s'arrête.",
        "Durée de la partie après le round de bataille 5 : la bataille continue.",
        "Objectif objective-1 : tenu par Alice.",
        'Tactical consolide (3").',
        "Squad est touchée par la destruction de son transport.",
        "Alice remporte le combat.",
        "Moral raté : Infantry se replient.",
        "Infantry passe un test de moral",
    ):
        assert french in said, french


def test_the_forms_of_a_reserve_and_of_a_combat_of_several(
    browser: Callable[[str], TestClient],
) -> None:
    """A squad with Deep strike may wait to deep strike, the others only from their edge; in
    a combat of three squads, the one locked with two enemies is asked which it attacks."""
    alice, bob, match_id = create_battle(browser)
    page = page_of(alice, match_id)
    modes = page.css("#form-declare-reserve-a3 select[name=mode] option")
    assert [o.attributes["value"] for o in modes] == ["standard", "deep_strike"]
    assert page.css_first("#form-declare-reserve-a1 select[name=mode]") is None
    seats = {"A": alice, "B": bob}
    arrived = BATTLE.index(next(s for s in BATTLE if s.form == "#form-arrive-b4"))
    fight = BATTLE.index(next(s for s in BATTLE if s.form == "#form-fight-b3-a1"))
    for step in BATTLE[: arrived + 1]:
        play_on_the_page(seats[step.seat], match_id, step)
    # the Veterans may shoot into the melee of Infantry and Tactical: the 1s hit Infantry
    shoot = page_of(bob, match_id).css_first("#form-shoot-b4")
    friends = [o.attributes["value"] for o in shoot.css("select[name=friend] option")]
    assert friends == ["", "b1"]
    assert [o.text() for o in shoot.css("select[name=weapon] option")] == ["Lasgun"]
    for step in BATTLE[arrived + 1 : fight]:
        play_on_the_page(seats[step.seat], match_id, step)
    form = page_of(bob, match_id).css_first("#form-fight-b3-a1")
    pairings = form.css("select[name^=assign_]")
    assert [p.attributes["name"] for p in pairings] == ["assign_a1"]
    options = [(o.attributes["value"], o.text()) for o in pairings[0].css("option")]
    assert options == [("b1", "Infantry"), ("b3", "Squad")]
    assert "The enemy Tactical attacks" in form.text()
    # the squads that did not charge this turn, beside the target, may have been in cover
    cover = [i.attributes["value"] for i in form.css("input[name=in_cover]")]
    assert cover == ["b1"]


def test_a_reserve_s_mode_in_the_timeline_in_english_and_french() -> None:
    from app.core.i18n import current_locale
    from app.matches.pages.pen import describe

    event = {"type": "reserve_declared", "unit": "a3", "mode": "deep_strike"}
    names = {"a3": "Assault"}
    assert describe(event, names, {}) == "Assault is kept in reserve (deep strike)."
    token = current_locale.set("fr")
    try:
        said = describe(event, names, {})
        assert said == "Assault est gardée en réserve (frappe en profondeur)."
        assert describe(event | {"mode": "standard"}, names, {}) == (
            "Assault est gardée en réserve."
        )
    finally:
        current_locale.reset(token)


def _quiet_battle() -> list[Step]:
    """One squad a side, no reserves, six rounds where nobody acts: night in round 1 (a 1),
    day from round 2 (a 6), the game going on after round 5 (a 4) and ending after round 6
    (a 2) [L826]."""
    steps = [
        Step("A", "#form-end-step"),
        Step("B", "#form-end-step"),
        Step("A", "#form-roll-off", "4 2"),
        Step("A", "#form-choose-first-A"),
        Step("A", "#form-deploy-a1"),
        Step("A", "#form-end-step"),
        Step("B", "#form-deploy-b1"),
        Step("B", "#form-end-step"),
    ]
    for dawn in ("1", "6", "", ""):  # rounds 1 to 4
        steps += [Step("A", "#form-start-turn", dawn), Step("A", END_PHASE), Step("A", END_PHASE)]
        steps += _quiet_turn("B")
    for length in ("4", "2"):  # rounds 5 and 6
        steps += [*_quiet_turn("A"), *_quiet_turn("B", length)]
    return steps


def test_both_players_confirm_the_result_on_the_page(
    browser: Callable[[str], TestClient],
) -> None:
    """A match created with ``confirm_result``: the objectives reported on the pages, Bob
    confirms, Alice corrects an objective (Bob is asked again), both confirm: the result."""
    alice, bob = browser("Alice"), browser("Bob")
    mine = ready_pen_list(alice, MARINES[:1], "Marines")
    theirs = ready_pen_list(bob, GUARD[:1], "Guard")
    r = alice.post(
        "/api/v1/matches",
        json={
            "ruleset": "pen",
            "army_id": mine,
            "mission": "pen-objectives",
            "battle_size": "1000",
            "options": {"confirm_result": True},
        },
    )
    assert r.status_code == 201, r.text
    match_id = int(r.json()["id"])
    code = r.json()["invitation"]["code"]
    csrf = bob.csrf  # type: ignore[attr-defined]
    r = bob.post(
        "/matches/join",
        data={"csrf_token": csrf, "code": code, "army_id": str(theirs)},
        follow_redirects=False,
    )
    assert r.status_code == 303, r.text
    seats = {"A": alice, "B": bob}
    for step in _quiet_battle():
        page = play_on_the_page(seats[step.seat], match_id, step)
        assert page.css_first("#match-error") is None, (step, page.css_first("#match-error"))
    page = page_of(alice, match_id)
    assert "Say who holds each objective" in page.css_first("#waiting-on-you").text()
    assert page.css_first("#scoring").text().count("None yet.") == 1
    post_form(alice, match_id, "#form-report-control-A-objective-1")
    post_form(bob, match_id, "#form-report-control-B-objective-2")
    post_form(alice, match_id, "#form-report-control-objective-3")  # a slip: nobody
    page = page_of(bob, match_id)
    assert "confirm the result" in page.css_first("#waiting-on-you").text()
    reported = [li.text() for li in page.css("#reported li")]
    assert reported == ["objective-1: Alice", "objective-2: Bob", "objective-3: nobody"]
    assert page.css_first("#result") is None  # nothing ends before both confirm
    post_form(bob, match_id, "#form-confirm-result")
    page = page_of(alice, match_id)
    assert "Bob: has confirmed" in page.css_first("#confirmations").text()
    assert "Alice: to confirm" in page.css_first("#confirmations").text()
    # Alice sees her slip: objective 3 is hers; the correction asks Bob again
    assert page.css_first("#corrections #form-report-control-A-objective-3") is not None
    post_form(alice, match_id, "#form-report-control-A-objective-3")
    page = page_of(bob, match_id)
    assert "Bob: to confirm" in page.css_first("#confirmations").text()
    assert page.css_first("#form-confirm-result") is not None
    post_form(alice, match_id, "#form-confirm-result")
    assert page_of(alice, match_id).css_first("#waiting-on-you") is None  # Bob's turn to say
    post_form(bob, match_id, "#form-confirm-result")
    for client in (alice, bob):
        page = page_of(client, match_id)
        assert "Alice wins" in page.css_first("#result").text()
        assert page.css_first("#result-confirmed") is not None
        assert "Bob confirms the result." in page.css_first("#timeline").text()
    assert alice.get(f"/api/v1/matches/{match_id}").json()["status"] == "confirmed"
    r = bob.patch("/api/v1/me", json={"preferred_language": "fr"})
    assert r.status_code == 200, r.text
    assert "Bob confirme le résultat." in page_of(bob, match_id).css_first("#timeline").text()


def test_a_squad_breaks_off_after_a_draw_on_the_page(
    browser: Callable[[str], TestClient],
) -> None:
    """After the draw of Tactical's charge on Infantry, Bob may have Infantry retreat [L1244]:
    the page offers it (with dice by hand for the sweeping advance) as an option, not as a
    move the battle waits for; after a draw nobody sweeps it (pen rulings B29)."""
    alice, bob, match_id = create_battle(browser)
    seats = {"A": alice, "B": bob}
    drawn = BATTLE.index(next(s for s in BATTLE if s.form == "#form-fight-a1-b1"))
    for step in BATTLE[: drawn + 1]:
        play_on_the_page(seats[step.seat], match_id, step)
    page = page_of(bob, match_id)
    form = page.css_first("#form-retreat-b1")
    assert form is not None, [f.attributes.get("id") for f in page.css("#actions form")]
    assert "Infantry breaks off and retreats" in form.text()
    assert form.css_first("input[name=dice]") is not None
    assert page.css_first("#waiting-on-you") is None  # an option: nothing waits on Bob
    page = post_form(bob, match_id, "#form-retreat-b1")
    assert page.css_first("#match-error") is None, page.css_first("#match-error").text()
    assert "Infantry breaks off and retreats." in page.css_first("#timeline li").text()
    assert "form-retreat-b1" not in {f.attributes.get("id") for f in page.css("#actions form")}
