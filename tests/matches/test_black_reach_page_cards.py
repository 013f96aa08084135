"""The Black Reach page's controls for the Action cards and the persistent psychic powers
(issue 16, ``app/matches/pages/black_reach_cards.py``): the draw at the turn's start (the
hand's cards to discard ticked), the hand shown to its seat only (the other page has the
counts), a card played as its Battle Event (its text on the form and in the timeline) or for
its bonus on a unit chosen in a select (the unit's card then shows it), and the powers to
maintain (ticked) with their sentences. Played with two browsers over the page's forms, the
battle set up as the engine's card tests set it (tests/engine/black_reach/battle/test_cards.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.datastructures import FormData

from app.matches.pages import black_reach, black_reach_cards
from app.matches.systems import black_reach as system
from tests.engine.black_reach.battle import test_cards as decks
from tests.matches.test_pages_black_reach import page_of, place_orders, post_form, slug, two_players


@pytest.fixture(autouse=True)
def _fresh_scenarios() -> Iterator[None]:
    """The tests here replace the sample set-up the system reads: its cached scenarios are
    dropped afterwards, so that a later test's sample match reads the shipped one again."""
    yield
    system._scenario.cache_clear()
    system._shipped_content_id.cache_clear()


ALICE_CARDS = ("um-aim", "um-run", "um-shield")
BOB_CARDS = ("ork-save", "ork-brawl")


def lines(page: Any) -> list[str]:
    return [li.text() for li in page.css("#timeline li")]


def hand(page: Any) -> list[str]:
    return [li.attributes["data-card"] for li in page.css("#card-hand li")]


def text_of(card: dict[str, Any]) -> str:
    return f"Our own text for {card['name']}: <b>one</b> unit moves."


def dealt(browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch) -> Any:
    """The engine tests' card battle, every Ork card with a Battle Event text of ours."""
    made = decks.setup()
    assert isinstance(made.catalogue, dict)
    for card in made.catalogue["cards"]:
        if card["faction"] == "orks":
            card["event"] = text_of(card)
    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: made)
    alice, bob, match_id = two_players(browser, deployment="sample")
    return alice, bob, match_id


def test_the_draw_the_secret_hand_and_a_card_played_from_the_page(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, bob, match_id = dealt(browser, monkeypatch)
    # turn 1: the tokens wait for the deal; an empty hand has nothing to discard
    page = page_of(alice, match_id)
    assert page.css_first("#form-place-orders") is None
    draw = page.css_first("form.action-draw_cards")
    assert draw.css_first("p.form-title").text() == "Draw your Action cards"
    assert "Nothing to choose." in draw.css_first("fieldset.picks").text()
    assert draw.css_first("button[type=submit]").text().strip() == "Draw the cards"
    page = post_form(alice, match_id, "form.action-draw_cards", page=page)
    mine = hand(page)
    assert len(mine) == 2
    assert all(c.partition("#")[0] in ALICE_CARDS for c in mine)
    assert page.css_first("#form-place-orders") is not None
    said = lines(page)
    assert any("You discard - and draw " in t for t in said), said
    # Bob sees how many, never which
    theirs = page_of(bob, match_id)
    assert hand(theirs) == []
    counts = theirs.css_first("#card-counts").text()
    assert "ultramarines: 2 in hand, 2 in the deck, 0 discarded" in counts
    for card in ALICE_CARDS:
        assert card not in theirs.html
    assert "Aim" not in theirs.css_first("#timeline").text()
    assert any("discards 0 card(s) and draws 2: 2 in hand" in t for t in lines(theirs))
    post_form(bob, match_id, "form.action-draw_cards")
    place_orders(bob, match_id, (decks.BOYZ1, decks.NOB))
    page = place_orders(alice, match_id, (decks.TACTICAL, decks.SERGEANT))
    # Bob plays his first card as its Battle Event: its text on the form (escaped), then in
    # the timeline, and the card leaves his hand
    page = page_of(bob, match_id)
    first = hand(page)[0]
    text = text_of(next(c for c in decks.CARDS if c["id"] == first.partition("#")[0]))
    css = f"#form-play-card-{slug(first)}-event"
    assert page.css_first(css).css_first("blockquote.card-text").text() == text
    assert "<b>one</b>" not in page.css_first(css).html  # shown as text, never as markup
    after = post_form(bob, match_id, css, page=page)
    assert any(f"as its Battle Event. Its text: {text}" in t for t in lines(after)), lines(after)
    assert first not in hand(after)
    # Alice readies a bonus card on the unit she picks in its select
    page = page_of(alice, match_id)
    bonus_forms = page.css("form.action-play_card")
    bonus = next(f for f in bonus_forms if f.css_first('select[name="unit"]') is not None)
    offered = [o.attributes["value"] for o in bonus.css('select[name="unit"] option')]
    assert decks.TACTICAL in offered
    copy = bonus.attributes["id"].removeprefix("form-play-card-").removesuffix("-bonus")
    after = post_form(alice, match_id, f"#{bonus.attributes['id']}", page=page, unit=decks.TACTICAL)
    assert after.css_first("#match-error") is None
    chip = after.css_first(f"#unit-{slug(decks.TACTICAL)} .card-bonus")
    assert chip is not None
    assert chip.text().startswith("card ")
    assert any("for its bonus on Sample tactical squad" in t for t in lines(after))
    assert copy not in " ".join(hand(after))


def test_the_card_and_power_forms_read_what_is_ticked() -> None:
    view = {"cards": {"hand": [{"card": "um-aim#1", "name": "Aim", "bonus": "shooting",
                                "value": 1, "event": ""}]}}  # fmt: skip
    names = {"lib": "Librarian", "tac": "Tactical squad", "enf": "Enfeeble", "pt": "Timing"}
    actions = [
        {"command": {"type": "draw_cards", "discard": []}, "hand": ["um-aim#1"]},
        {
            "command": {"type": "maintain_powers", "keep": []},
            "markers": [
                {"psyker": "lib", "power": "enf", "unit": "tac", "cost": 2},
                {"psyker": "lib", "power": "pt", "unit": None, "cost": 1},
            ],
        },
        {"command": {"type": "play_card", "card": "um-aim#1", "use": "bonus"}, "units": ["tac"]},
        {"command": {"type": "play_card", "card": "um-aim#1", "use": "event"}},
    ]
    forms, _orders = black_reach.action_forms(actions, names, view=view)
    draw, keep, bonus, event = forms
    assert draw.picks == [("um-aim#1", "Aim")]
    assert keep.picks == [
        ("lib|enf", "Enfeeble of Librarian (cost 2), on Tactical squad"),
        ("lib|pt", "Timing of Librarian (cost 1)"),
    ]
    assert bonus.label == "Play Aim for its bonus: +1 to a shot"
    assert bonus.bonus_units == [("tac", "Tactical squad")]
    assert event.label == "Play Aim as its Battle Event"
    assert len({f.slug for f in forms}) == 4  # one id each
    form = FormData([("discard", "um-aim#1"), ("discard", "um-aim#1")])
    assert black_reach.build_command(form, dict(draw.command))["discard"] == ["um-aim#1"]
    form = FormData([("keep", "lib|enf"), ("keep", "bad")])
    assert black_reach.build_command(form, dict(keep.command))["keep"] == [
        {"unit": "lib", "power": "enf"}
    ]
    assert black_reach.build_command(FormData([("unit", "tac")]), dict(bonus.command)) == {
        "type": "play_card",
        "card": "um-aim#1",
        "use": "bonus",
        "unit": "tac",
    }
    # an event takes no unit, whatever is posted
    assert "unit" not in black_reach.build_command(FormData([("unit", "tac")]), dict(event.command))


def test_the_sentences_of_the_cards_and_the_powers() -> None:
    names = {"lib": "Librarian", "tac": "Tactical squad", "enf": "Enfeeble", "card:um-aim": "Aim"}
    sides = {"ultramarines": "Alice (ultramarines)"}

    def say(ev: dict[str, Any]) -> str:
        return black_reach.describe(ev, names, sides)

    assert say({"type": "cards_drawn", "side": "ultramarines", "discarded": [],
                "drawn": ["um-aim#2"]}) == "You discard - and draw Aim."  # fmt: skip
    assert (
        say(
            {
                "type": "powers_maintained",
                "side": "ultramarines",
                "kept": ["lib|enf"],
                "dropped": [],
            }
        )
        == "Alice (ultramarines) maintains Enfeeble of Librarian; discarded: -."
    )
    played = {"type": "card_played", "side": "ultramarines", "card": "um-aim#1", "name": "Aim",
              "use": "bonus", "unit": "tac", "bonus": "shooting", "value": 1}  # fmt: skip
    assert say(played) == (
        "Alice (ultramarines) plays Aim for its bonus on Tactical squad: +1 to a shot."
    )
    assert say({"type": "card_bonus_used", "unit": "tac", "card": "um-aim#1"}) == (
        "Tactical squad uses its card's bonus; the card is discarded."
    )
    assert black_reach_cards.bonus_label("armour_save", 0) == "its armour save"


def test_an_objuration_form_per_weapon_names_the_weapon() -> None:
    entry = {
        "command": {"type": "manifest", "unit": "lib", "power": "obj", "target": "tank",
                    "weapon": "main_1"},
    }  # fmt: skip
    other = {"command": dict(entry["command"]) | {"weapon": "secondary_1"}}
    forms, _orders = black_reach.action_forms(
        [entry, other], {"lib": "Librarian", "obj": "Objuration", "tank": "Tank"}
    )
    assert forms[0].label == "Librarian manifests Objuration on Tank (main weapon 1)"
    assert forms[0].slug != forms[1].slug


def test_on_the_hot_seat_the_hand_off_screen_hides_both_hands(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Alice draws on the shared device; the hand-off screen names no card of hers, and
    Bruno's board shows his own draw, never her cards."""
    from tests.matches.test_pages_black_reach_actions import hand_over, hot_seat_on

    dealt_with = decks.setup()
    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: dealt_with)
    alice, match_id = hot_seat_on(browser)
    page = page_of(alice, match_id)
    if page.css_first("#hand-off") is not None:  # the seat that draws first holds the device
        page = post_form(alice, match_id, "#hand-off-form", page=page)
    first = page.css_first("#playing-as").text()
    page = post_form(alice, match_id, "form.action-draw_cards", page=page)
    held = hand(page)
    assert len(held) == 2
    if page.css_first("#form-place-orders") is not None:  # her tokens, when they may go now
        units = [
            s.attributes["name"].removeprefix("order.")
            for s in page.css("#form-place-orders select")
        ]
        page = place_orders(alice, match_id, tuple(units[:2]), page=page)
    # she may still play her cards, but the battle waits on the other player: the device goes
    # over (it stayed with her while she held a card)
    assert page.css_first("#hand-off") is not None, [
        f.attributes.get("id") for f in page.css("form")
    ]
    for card in held:
        assert card.partition("#")[0] not in page.html
    assert "card-hand" not in page.html
    other = "Bruno" if first.endswith("Alice") else "Alice"
    after = hand_over(alice, match_id, page, other)
    assert after.css_first("form.action-draw_cards") is not None
    for card in held:
        assert card not in after.html


def test_a_card_to_play_is_not_a_move_owed() -> None:
    from app.matches.systems.black_reach import hot_seat

    card = {"command": {"type": "play_card", "card": "um-aim#1", "use": "event"}}
    ready = {"command": {"type": "ready_repair", "unit": "mek"}, "modifiers": [-1, 1]}
    draw = {"command": {"type": "draw_cards", "discard": []}, "hand": []}
    assert black_reach.waiting_on({}, [card, ready]) is None
    assert black_reach.waiting_on({}, [card, draw]) == "Your move"

    class Game:
        def __init__(self, actions: dict[str, list[Any]]) -> None:
            self.actions = actions

        def legal_actions(self, seat: str) -> list[Any]:
            return self.actions[seat]

    assert hot_seat.to_play(Game({"A": [card], "B": [draw]})) == "B"
    assert hot_seat.to_play(Game({"A": [card, draw], "B": [draw]})) == "A"
    assert hot_seat.to_play(Game({"A": [card], "B": [ready]})) is None


def test_gorks_blessing_asks_for_the_discard_on_the_draw_form() -> None:
    """After Gork's Blessing drew beyond the hand size, the draw form asks for exactly that
    many cards to discard (rulings 131); the engine refuses any other count."""
    view = {"cards": {"hand": [{"card": "ork-save#1", "name": "Tuff", "bonus": "armour_save"}]}}
    actions = [
        {
            "command": {"type": "draw_cards", "discard": []},
            "hand": ["ork-save#1"],
            "discard_exactly": 1,
        }
    ]
    forms, _orders = black_reach.action_forms(actions, {}, view=view)
    assert forms[0].label == "Gork's Blessing: discard exactly 1 card(s) of your hand"
    assert forms[0].pick_name == "discard"
    assert forms[0].picks == [("ork-save#1", "Tuff")]
