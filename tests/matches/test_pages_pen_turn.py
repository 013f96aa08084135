"""A whole PEN turn on the match page: the start of the turn, a move and a shot, the end of
each activation and phase, a charge and its fight, until the other player's turn starts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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
    fight = page_of(alice, match_id).css_first("#form-fight-a1-b1")
    assert fight.css_first("input[name=target_in_cover]") is not None
    assert fight.css_first("input[name=offensive_grenades]") is not None
    assert fight.css_first("select[name=facing]") is None  # infantry: no facing to ask
    page = post_form(alice, match_id, "#form-fight-a1-b1", target_in_cover="1")
    fought = page.css_first("#timeline li").text()
    assert "Escouade tactique fights Escouade d'infanterie." in fought
    assert "wins the combat" in fought or "draw" in fought
    post_form(alice, match_id, "form.action-end_phase")
    page = page_of(bob, match_id)
    assert page.css_first("#active").text() == "Your turn"
    assert forms(bob, match_id) == ["form-start-turn"]


def test_the_start_of_the_turn_lists_the_reserves_to_roll_for(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob, match_id = create_pen_match(browser)
    post_form(alice, match_id, "#form-declare-reserve-a2")
    post_form(alice, match_id, "#form-end-step")
    post_form(bob, match_id, "#form-end-step")
    post_form(alice, match_id, "#form-roll-off", dice="5 2")
    post_form(alice, match_id, "#form-choose-first-A")
    post_form(alice, match_id, "#form-deploy-a1")
    post_form(alice, match_id, "#form-end-step")
    for unit in ("b1", "b2"):
        post_form(bob, match_id, f"#form-deploy-{unit}")
    post_form(bob, match_id, "#form-end-step")
    page = page_of(alice, match_id)
    form = page.css_first("#form-start-turn")
    boxes = form.css("input[name=reserves]")
    assert [(b.attributes["value"], "checked" in b.attributes) for b in boxes] == [("a2", True)]
    assert "Devastators" in form.css_first("fieldset.reserves").text()
    assert form.css_first("input[name=reserves_listed]") is not None
    # every box unticked: no squad rolled for (post_form leaves checkboxes out)
    page = post_form(alice, match_id, "#form-start-turn", dice="1")
    assert page.css_first("#match-error") is None
    assert "Dawn roll" in page.css_first("#timeline").text()
    assert "Reserves rolled" not in page.css_first("#timeline").text()
    assert "form-move-a1" in forms(alice, match_id)


def test_the_pen_options_of_a_start_an_arrival_and_a_fight() -> None:
    from starlette.datastructures import FormData

    from app.matches.pages.pen import build_command

    start = FormData([("reserves_listed", "1"), ("reserves", "a2"), ("reserves", "a3")])
    assert build_command(start, {"type": "start_turn"}) == {
        "type": "start_turn",
        "reserves": ["a2", "a3"],
    }
    none = FormData([("reserves_listed", "1")])
    assert build_command(none, {"type": "start_turn"})["reserves"] == []
    assert "reserves" not in build_command(FormData([]), {"type": "start_turn"})
    arrive = FormData([("speed", "rapid"), ("inches", "6"), ("edge", "left"), ("blocked", "1")])
    assert build_command(arrive, {"type": "arrive", "unit": "a2"}) == {
        "type": "arrive",
        "unit": "a2",
        "speed": "rapid",
        "inches": 6,
        "edge": "left",
        "blocked": True,
    }
    fight = FormData([("target_in_cover", "1"), ("offensive_grenades", "1"), ("facing", "rear")])
    assert build_command(fight, {"type": "fight", "unit": "a1", "target": "b2"}) == {
        "type": "fight",
        "unit": "a1",
        "target": "b2",
        "facing": "rear",
        "target_in_cover": True,
        "offensive_grenades": True,
    }


def test_a_squad_deploys_inside_its_transport_and_embarks_in_the_movement_phase(
    browser: Callable[[str], TestClient],
) -> None:
    alice, bob, match_id = create_pen_match(browser)
    post_form(alice, match_id, "#form-end-step")
    post_form(bob, match_id, "#form-end-step")
    post_form(alice, match_id, "#form-roll-off", dice="2 5")  # Bob wins: Bob deploys first
    post_form(bob, match_id, "#form-choose-first-B")
    assert "form-embark-b1" not in forms(bob, match_id)  # no transport on the table yet
    post_form(bob, match_id, "#form-deploy-b2")
    page = page_of(bob, match_id)
    select = page.css_first("#form-embark-b1 select[name=transport]")
    assert [o.attributes["value"] for o in select.css("option")] == ["b2"]
    assert "form-embark-b2" not in forms(bob, match_id)  # a vehicle boards nothing
    page = post_form(bob, match_id, "#form-embark-b1")
    assert page.css_first("#match-error") is None, page.css_first("#match-error").text()
    assert "Escouade d'infanterie embarks." in page.css_first("#timeline li").text()
    assert "embarked" in page.css_first("#unit-b1").text()


def test_a_squad_embarks_in_the_movement_phase(browser: Callable[[str], TestClient]) -> None:
    alice, bob, match_id = create_pen_match(browser)
    post_form(alice, match_id, "#form-end-step")
    post_form(bob, match_id, "#form-end-step")
    post_form(alice, match_id, "#form-roll-off", dice="2 5")
    post_form(bob, match_id, "#form-choose-first-B")
    for unit in ("b2", "b1"):
        post_form(bob, match_id, f"#form-deploy-{unit}")
    post_form(bob, match_id, "#form-end-step")
    for unit in ("a1", "a2"):
        post_form(alice, match_id, f"#form-deploy-{unit}")
    post_form(alice, match_id, "#form-end-step")
    post_form(bob, match_id, "#form-start-turn", dice="1")
    assert "form-embark-b1" in forms(bob, match_id)
    assert "form-embark-a1" not in forms(alice, match_id)  # not Alice's turn, no transport
    page = post_form(bob, match_id, "#form-embark-b1")
    assert page.css_first("#match-error") is None, page.css_first("#match-error").text()
    assert "Escouade d'infanterie embarks." in page.css_first("#timeline li").text()
    # aboard: no embark form for it any more, and its card says so
    assert "form-embark-b1" not in forms(bob, match_id)
    assert "embarked" in page_of(bob, match_id).css_first("#unit-b1").text()


def test_the_page_s_options_of_a_move_a_shot_a_fight_a_reserve_and_a_disembarkation() -> None:
    from starlette.datastructures import FormData

    from app.matches.pages.pen import build_command

    move = FormData(
        [("speed", "normal"), ("inches", "5"), ("difficult_inches", "2"), ("very_difficult", "1")]
    )
    move_cmd = build_command(move, {"type": "move"})
    assert move_cmd == {
        "type": "move",
        "speed": "normal",
        "inches": 5,
        "difficult_inches": 2,
        "very_difficult": True,
    }
    shot = FormData(
        [("models", "2"), ("template_hits", "3"), ("friend", "a2"), ("range_inches", "9")]
    )
    assert build_command(shot, {"type": "shoot", "unit": "a1"}) == {
        "type": "shoot",
        "unit": "a1",
        "models": 2,
        "template_hits": 3,
        "friend": "a2",
        "range_inches": 9,
    }
    empty = FormData([("models", ""), ("template_hits", ""), ("friend", "")])
    assert build_command(empty, {"type": "shoot"}) == {"type": "shoot"}  # all, none, none
    fight = FormData(
        [
            ("assign_a1", "b3"),
            ("melee:a1:Gantelet énergétique", "1"),
            ("melee:b1:Épée", "0"),  # nobody: left out
            ("melee:b2:Hache", ""),
            ("in_cover", "b1"),
        ]
    )
    assert build_command(fight, {"type": "fight", "unit": "b3", "target": "a1"}) == {
        "type": "fight",
        "unit": "b3",
        "target": "a1",
        "assign": [{"unit": "a1", "target": "b3"}],
        "weapons": [{"unit": "a1", "weapon": "Gantelet énergétique", "models": 1}],
        "in_cover": ["b1"],
    }
    reserve = FormData([("mode", "deep_strike")])
    assert build_command(reserve, {"type": "declare_reserve", "unit": "a3"})["mode"] == (
        "deep_strike"
    )
    out = build_command(FormData([("emergency", "1")]), {"type": "disembark", "unit": "b3"})
    assert out == {"type": "disembark", "unit": "b3", "emergency": True}


def test_a_fight_with_a_power_fist_on_the_page(browser: Callable[[str], TestClient]) -> None:
    """A squad with a knife and a power fist: it shoots with its bolter only, and its fight
    asks how many models wield the fist; the fight sent with one is fought weapon by weapon."""
    from tests.matches.test_pages_pen_battle import BOLTER, GUARD, MARINE, _squad, create_battle

    knife = {"name": "Couteau", "kind": "melee", "type": "Arme de corps à corps"}
    fist = {"name": "Gantelet", "kind": "melee", "type": "Gantelet énergétique"}
    tactical = _squad("Tactical", 150, 5, MARINE, BOLTER, troops=True)
    tactical["weapons"] = [BOLTER, knife, fist]
    alice, bob, match_id = create_battle(browser, [tactical], GUARD[:1])
    post_form(alice, match_id, "#form-end-step")
    post_form(bob, match_id, "#form-end-step")
    post_form(alice, match_id, "#form-roll-off", dice="4 2")
    post_form(alice, match_id, "#form-choose-first-A")
    for client, unit in ((alice, "a1"), (bob, "b1")):
        post_form(client, match_id, f"#form-deploy-{unit}")
        post_form(client, match_id, "#form-end-step")
    post_form(alice, match_id, "#form-start-turn", dice="1")
    move = page_of(alice, match_id).css_first("#form-move-a1")
    assert move.css_first("input[name=difficult_inches]") is not None
    assert move.css_first("input[name=very_difficult]") is not None
    page = post_form(
        alice, match_id, "#form-move-a1", speed="normal", inches="5", difficult_inches="2"
    )
    assert page.css_first("#match-error") is None, page.css_first("#match-error").text()
    shoot = page_of(alice, match_id).css_first("#form-shoot-a1")
    assert [o.text() for o in shoot.css("select[name=weapon] option")] == ["Bolter"]
    assert shoot.css_first("input[name=models]") is not None
    assert shoot.css_first("input[name=template_hits]") is not None
    assert shoot.css_first("select[name=friend]") is None  # nobody of mine in a combat
    post_form(alice, match_id, "#form-end-activation-a1")
    post_form(alice, match_id, "form.action-end_phase")
    post_form(alice, match_id, "#form-charge-a1", target="b1", distance="4")
    fight = page_of(alice, match_id).css_first("#form-fight-a1-b1")
    groups = [i.attributes["name"] for i in fight.css("input[name^='melee:']")]
    assert groups == ["melee:a1:Gantelet"]  # the knife is what the other models fight with
    assert fight.css_first("input[name='melee:a1:Gantelet']").attributes["max"] == "5"
    assert "Tactical: models with Gantelet" in fight.text()
    page = post_form(alice, match_id, "#form-fight-a1-b1", **{"melee:a1:Gantelet": "1"})
    assert page.css_first("#match-error") is None, page.css_first("#match-error").text()
    log = alice.get(f"/api/v1/matches/{match_id}/log").json()["entries"]
    fought = next(e["event"] for e in log if e["event"]["type"] == "combat_resolved")
    assert fought["unit"] == "a1"
    assert "Tactical fights Infantry." in page.css_first("#timeline").text()


def test_an_option_of_the_assault_is_not_a_move_the_battle_waits_for() -> None:
    from app.matches.pages.pen import waiting_on

    view = {"stage": "battle"}
    kinds = ("consolidate", "retreat", "disengage")
    options = [{"command": {"type": k, "unit": "a1"}} for k in kinds]
    assert waiting_on(view, options) is None
    assert waiting_on(view, [*options, {"command": {"type": "end_phase"}}]) == "Your move"


def test_the_end_of_the_phase_takes_dice_only_when_it_rolls_the_game_length() -> None:
    """After the second player's assault phase of round 5 or 6 [L826]; in the alternation
    mode of §3.5, when the last squad of the round has played."""
    from types import SimpleNamespace

    from app.matches.pages.pen import rolls_game_length

    def game(**state: Any) -> SimpleNamespace:
        base = {"stage": "battle", "phase": "assault", "round": 5, "alternation": False}
        return SimpleNamespace(state=SimpleNamespace(**(base | state)))

    assert rolls_game_length(game(turn=1))
    assert rolls_game_length(game(turn=1, round=6))
    assert not rolls_game_length(game(turn=0))  # the first player's turn
    assert not rolls_game_length(game(turn=1, round=4))
    assert not rolls_game_length(game(turn=1, phase="movement"))
    assert not rolls_game_length(SimpleNamespace(state=None))

    def alternation(mine: list[str], theirs: list[str], playing: str | None) -> SimpleNamespace:
        left = {"A": mine, "B": theirs}
        g = game(alternation=True, active_seat="A", playing=playing)
        g.state.unplayed = lambda seat: left[seat]
        return g

    assert rolls_game_length(alternation(["a1"], [], "a1"))  # a1, the last, is playing
    assert not rolls_game_length(alternation(["a1", "a2"], [], "a1"))
    assert not rolls_game_length(alternation([], ["b1"], None))
