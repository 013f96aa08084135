"""An Action card out of turn in the hot seat (issue 16, rulings 138): while the battle waits
on one player, the other may play a card (a defender readies its assault bonus before the
attacker's assault): the board offers to hand them the device, a hand-off screen hides the
board, their own board shows their hand and a button to hand the device back; the card
played, the device goes back through the hand-off screen. Neither player sees the other's
hand or face-down tokens. The battle is the engine's card battle
(tests/engine/black_reach/battle/test_cards.py) on one device."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.matches.systems import black_reach as system
from tests.engine.black_reach.battle import test_cards as decks
from tests.matches.test_pages_black_reach import hot_seat, page_of, post_form, slug


@pytest.fixture(autouse=True)
def _fresh_scenarios() -> Iterator[None]:
    yield
    system._scenario.cache_clear()
    system._shipped_content_id.cache_clear()


def hand(page: Any) -> list[str]:
    return [li.attributes["data-card"] for li in page.css("#card-hand li")]


def playing(page: Any) -> str:
    shown = page.css_first("#playing-as")
    return "" if shown is None else shown.text()


def take(alice: TestClient, match_id: int, page: Any, name: str) -> Any:
    """The hand-off screen names ``name``; 'I am <name>' shows their board."""
    assert page.css_first("#hand-off") is not None, playing(page)
    assert page.css_first("#i-am").text().strip() == f"I am {name}"
    assert "br-board" not in page.html
    return post_form(alice, match_id, "#hand-off-form", page=page)


def ready(browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch) -> Any:
    """Both hands dealt and the tokens placed on one device; Bruno's Boyz held, Alice's
    Tactical squad is due."""
    monkeypatch.setattr(system, "sample_setup", lambda *args, **kw: decks.setup())
    alice, match_id = hot_seat(browser)
    page = post_form(alice, match_id, "form.action-draw_cards")
    orders = {f"order.{decks.TACTICAL}": "n:1", f"order.{decks.SERGEANT}": "n:2"}
    page = post_form(alice, match_id, "#form-place-orders", page=page, **orders)
    page = take(alice, match_id, page, "Bruno")
    page = post_form(alice, match_id, "form.action-draw_cards", page=page)
    orders = {f"order.{decks.BOYZ1}": "n:1", f"order.{decks.NOB}": "n:2"}
    page = post_form(alice, match_id, "#form-place-orders", page=page, **orders)
    # the Orks have the Initiative: Bruno's Boyz hold, then Alice's token 1 is due
    assert playing(page).endswith("Bruno"), playing(page)
    page = post_form(alice, match_id, f"#form-hold-{slug(decks.BOYZ1)}", page=page)
    page = take(alice, match_id, page, "Alice")
    return alice, match_id, page


def test_a_defender_plays_its_assault_card_out_of_turn_on_one_device(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, match_id, page = ready(browser, monkeypatch)
    assert playing(page).endswith("Alice"), playing(page)
    mine = hand(page)
    assert mine
    # Bruno holds cards he may play now: Alice's board offers him the device first
    offer = page.css_first("#card-offer-form")
    assert offer is not None
    assert offer.css_first("#card-offer").text().strip() == "Let Bruno play an Action card first"
    screen = post_form(alice, match_id, "#card-offer-form", page=page)
    assert screen.css_first("#hand-off-cards") is not None
    for card in mine:
        assert card not in screen.html  # nothing of Alice's hand on the screen
    assert 'class="token"' not in screen.html
    assert "face-down" not in screen.html
    bruno = take(alice, match_id, screen, "Bruno")
    assert playing(bruno).endswith("Bruno")
    theirs = hand(bruno)
    assert len(theirs) == 2
    for card in mine:
        assert card not in bruno.html  # Bruno's board: his hand, never Alice's
    assert bruno.css_first(f"#counter-{slug(decks.TACTICAL)} text.token") is None
    assert bruno.css_first("#pass-back").text().strip() == "Done: hand the device back to Alice"
    assert bruno.css_first("#card-offer-form") is None
    # he readies Brawl (assault +2) on the Boyz the Tactical squad may assault (the match
    # draws the hands: without Brawl, Tuff, an armour-save bonus, on the same Boyz)
    brawl = next((c for c in theirs if c.startswith("ork-brawl")), theirs[0])
    css = f"#form-play-card-{slug(brawl)}-bonus"
    after = post_form(alice, match_id, css, page=bruno, unit=decks.BOYZ1)
    error = after.css_first("#match-error")
    assert error is None, error.text()
    assert after.css_first("#match-error") is None
    # played: the device goes back to Alice through the hand-off screen
    for card in theirs:
        assert card not in after.html
    back = take(alice, match_id, after, "Alice")
    assert playing(back).endswith("Alice")
    assert brawl not in back.html
    assert any("for its bonus on" in li.text() for li in back.css("#timeline li"))
    # the readied card counts for the defender in the battle
    from tests.matches.test_black_reach_match import live

    assert decks.BOYZ1 in live(match_id).state.readied


def test_the_other_player_may_hand_the_device_back_without_a_card(
    browser: Callable[[str], TestClient], monkeypatch: pytest.MonkeyPatch
) -> None:
    alice, match_id, page = ready(browser, monkeypatch)
    bruno = take(
        alice, match_id, post_form(alice, match_id, "#card-offer-form", page=page), "Bruno"
    )
    screen = post_form(alice, match_id, "#pass-back-form", page=bruno)
    assert screen.css_first("#hand-off-cards") is None
    for card in hand(bruno):
        assert card not in screen.html
    back = take(alice, match_id, screen, "Alice")
    assert playing(back).endswith("Alice")
    assert back.css_first("#form-place-orders") is None
    assert back.css_first("#card-offer-form") is not None


def test_the_device_is_passed_only_in_a_hot_seat_match(
    browser: Callable[[str], TestClient],
) -> None:
    from tests.matches.test_pages_black_reach import HX, two_players
    from tests.support.web import html

    alice, bob, match_id = two_players(browser, deployment="sample", hot_seat="1")
    for data in ({"seat": "B", "cards": "1"}, {"seat": "C"}):
        r = alice.post(
            f"/matches/{match_id}/pass-device",
            data={"csrf_token": alice.csrf, **data},  # type: ignore[attr-defined]
            headers=HX,
        )
        assert html(r).css_first("#match-error") is not None
    assert page_of(bob, match_id).css_first("#card-offer-form") is None


def test_the_hot_seat_state_of_a_cards_turn() -> None:
    """``seat_state(..., cards=True)``: the other seat's own view (its hand) and only its card
    and mechanic commands; without it, the public view and the hand-off."""
    from app.matches.systems.black_reach import hot_seat as rules

    battle = decks.ordered()  # the Orks' token 1 is due: the battle waits on B
    assert rules.to_play(battle) == "B"
    public = rules.seat_state(battle, "A")
    assert (public["hand_off"], public["actions"]) == ("B", [])
    assert public["view"]["cards"].get("hand") in (None, [])
    turn = rules.seat_state(battle, "A", cards=True)
    assert turn["hand_off"] is None
    assert turn["to_play"] == "B"
    assert turn["view"]["you"] == "ultramarines"
    assert turn["view"]["cards"]["hand"]
    kinds = {a["command"]["type"] for a in turn["actions"]}
    assert kinds == {"play_card"}
    # the seat the battle waits on is shown as before, whatever ``cards`` says
    assert rules.seat_state(battle, "B", cards=True) == rules.seat_state(battle, "B")


def test_the_hot_seat_api_gives_a_cards_turn(user_client: Callable[[str], TestClient]) -> None:
    from tests.matches.test_black_reach_content import MATCHES, create, missions, my_set

    alice = user_client("Alice")
    my_set(alice)
    mid = create(alice, missions(alice)[0]["id"], hot_seat=True)["id"]
    base = f"{MATCHES}/{mid}/hot-seat"
    assert alice.post(base, json={"name": "Carol"}).status_code == 200
    # the deployment waits on A: B asked with cards=true gets B's own view, no command (the
    # set deals no cards), and no hand-off
    plain = alice.get(f"{base}/B").json()
    assert plain["hand_off"] == "A"
    r = alice.get(f"{base}/B", params={"cards": "true"})
    assert r.status_code == 200, r.text
    turn = r.json()
    assert (turn["hand_off"], turn["actions"], turn["view"]["you"]) == (None, [], "orks")
    assert alice.get(f"{base}/B", params={"cards": "maybe"}).status_code == 422
