"""A whole PEN turn on the match page: the start of the turn, a move and a shot, the end of
each activation and phase, a charge and its fight, until the other player's turn starts."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient

from tests.matches.test_pages_pen import create_pen_match, page_of, post_form, set_up_on_the_page


def forms(client: TestClient, match_id: int) -> list[str]:
    page = page_of(client, match_id)
    return [f.attributes.get("id") or "" for f in page.css("#actions form")]


def test_a_full_pen_turn_on_the_page(browser: Callable[[str], TestClient]) -> None:
    alice, bob, match_id = create_pen_match(browser)
    set_up_on_the_page(alice, bob, match_id)
    post_form(alice, match_id, "#form-start-turn", dice="1")
    assert {"form-move-a1", "form-move-a2"} <= set(forms(alice, match_id))
    post_form(alice, match_id, "#form-move-a1", speed="normal", inches="6")
    # the squad being moved: its shot and the end of its activation, nothing else to move
    assert {"form-shoot-a1", "form-end-activation-a1"} <= set(forms(alice, match_id))
    assert "form-move-a2" not in forms(alice, match_id)
    page = post_form(
        alice, match_id, "#form-shoot-a1", target="b1", weapon="Bolter", range_inches="12"
    )
    assert "Escouade tactique shoots Escouade d'infanterie with Bolter." in (
        page.css_first("#timeline li").text()
    )
    post_form(alice, match_id, "#form-end-activation-a1")
    assert "form-move-a2" in forms(alice, match_id)
    post_form(alice, match_id, "#form-move-a2", speed="stationary", inches="0")
    post_form(alice, match_id, "#form-end-activation-a2")
    page = post_form(alice, match_id, "form.action-end_phase")
    assert page.css_first("#phase").text() == "Assault"
    assert {"form-charge-a1", "form-charge-a2"} <= set(forms(alice, match_id))
    assert forms(bob, match_id) == []  # nothing on Bob's page: a notice instead
    assert page_of(bob, match_id).css_first("#nothing-to-do") is not None
    page = post_form(alice, match_id, "#form-charge-a1", target="b1", distance="4")
    assert "Escouade tactique charges Escouade d'infanterie (4\")." in (
        page.css_first("#timeline li").text()
    )
    assert "form-fight-a1-b1" in forms(alice, match_id)
    page = post_form(alice, match_id, "#form-fight-a1-b1")
    fought = page.css_first("#timeline li").text()
    assert "Escouade tactique fights Escouade d'infanterie." in fought
    assert "wins the combat" in fought or "draw" in fought
    post_form(alice, match_id, "form.action-end_phase")
    page = page_of(bob, match_id)
    assert page.css_first("#active").text() == "Your turn"
    assert forms(bob, match_id) == ["form-start-turn"]
