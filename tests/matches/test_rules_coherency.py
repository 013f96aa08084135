"""Issue 12, played through the match API: the end-of-turn coherency check [L449-456]
(docs/rulings/wh40k10e-battle.md, rule 42), and ``start_move`` as a legal action."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.matches.conftest import Game, confirm_coherency, setup_battle


def _a_kills_three_kommandos(g: Game) -> None:
    """A's Hellblasters kill 3 of the 10 Kommandos (b3) in A's first Shooting phase."""
    g.a.send({"type": "end_phase"})  # command -> movement
    g.a.send({"type": "end_phase"})  # movement -> shooting
    g.a.send({"type": "shoot", "unit": "a5", "targets": ["b3"]})
    g.a.send({"type": "resolve_attack", "attacker": "a5", "target": "b3", "damage": [1, 1, 1]})
    assert _unit(g.a.view(), "b3")["models_alive"] == 7


def _to_the_end_of_a_turn(g: Game) -> dict[str, Any]:
    while (view := g.a.view())["phase"] != "fight":
        if view["reaction_window"]:
            g.b.send({"type": "pass"})
        else:
            g.a.send({"type": "end_phase"})
    g.a.send({"type": "end_phase"})
    return g.a.view()


def _unit(view: dict[str, Any], uid: str) -> dict[str, Any]:
    return next(u for u in view["units"] if u["id"] == uid)


def test_the_turn_waits_for_the_coherency_check_of_the_player_who_lost_models(
    new_game: Callable[..., Game],
) -> None:
    g = new_game()
    setup_battle(g)
    _a_kills_three_kommandos(g)
    view = _to_the_end_of_a_turn(g)
    assert (view["round"], view["active"], view["phase"]) == (1, "A", "fight")
    assert view["pending"]["coherency"] == ["B"]
    assert view["pending"]["coherency_units"] == ["b3"]
    refused = g.a.send({"type": "end_phase"}, status=409)
    assert refused["refusal"] == "coherency_pending"
    refused = confirm_coherency(g, "A", status=409)
    assert refused["refusal"] == "no_coherency_check"
    assert [a["command"]["type"] for a in g.a.actions()] == []
    actions = g.b.actions()
    assert actions == [
        {"command": {"type": "confirm_coherency", "removals": []}, "choices": {"units": ["b3"]}}
    ]
    # B removes 3 Kommandos: they count as destroyed, 4 of 10 is Below Half-strength
    alive = [i for i, w in enumerate(_unit(view, "b3")["wounds"]) if w > 0]
    confirm_coherency(g, "B", [{"unit": "b3", "models": alive[:3]}])
    view = g.b.view()
    assert (view["round"], view["active"], view["phase"]) == (1, "B", "command")
    assert _unit(view, "b3")["models_alive"] == 4
    assert view["pending"]["coherency"] == []
    assert view["pending"]["battle_shock_tests"] == ["b3"]
    kinds = [e["event"]["type"] for e in g.b.last["events"]]
    assert kinds[:2] == ["models_removed", "coherency_confirmed"]
    assert "turn_ended" in kinds
    removed = g.b.last["events"][0]["event"]
    assert removed == {
        "type": "models_removed",
        "unit": "b3",
        "models": alive[:3],
        "cause": "coherency",
    }


def test_bad_removals_are_clear_refusals(new_game: Callable[..., Game]) -> None:
    g = new_game()
    setup_battle(g)
    _a_kills_three_kommandos(g)
    view = _to_the_end_of_a_turn(g)
    alive = [i for i, w in enumerate(_unit(view, "b3")["wounds"]) if w > 0]
    every = confirm_coherency(g, "B", [{"unit": "b3", "models": alive}], status=422)
    assert every["refusal"] == "bad_casualties"
    untouched = confirm_coherency(g, "B", [{"unit": "b4", "models": [0]}], status=422)
    assert untouched["refusal"] == "bad_casualties"
    bad = g.b.send({"type": "confirm_coherency", "removals": [{"unit": "b3"}]}, status=422)
    assert bad["refusal"] == "bad_command"
    assert g.b.view()["pending"]["coherency"] == ["B"]


def test_start_move_is_offered_and_opens_fire_overwatch(new_game: Callable[..., Game]) -> None:
    g = new_game()
    setup_battle(g)
    g.a.send({"type": "end_phase"})  # command -> movement
    starts = [a["command"] for a in g.a.actions() if a["command"]["type"] == "start_move"]
    assert {"type": "start_move", "unit": "a2", "mode": "normal"} in starts
    assert all(c["mode"] in ("normal", "advance", "fall_back") for c in starts)
    g.a.send({"type": "start_move", "unit": "a2", "mode": "normal"})
    overwatch = [
        a["command"]
        for a in g.b.actions()
        if a["command"]["type"] == "use_stratagem" and a["command"]["stratagem"] == "fire_overwatch"
    ]
    assert overwatch
    assert all(c["enemy"] == "a2" for c in overwatch)


def test_a_match_stored_before_the_check_ends_its_turns_as_it_did(
    new_game: Callable[..., Game], db: Any
) -> None:
    """A match_created event stored without ``coherency_check`` (before the check existed)
    plays on: the turn ends at once, as it did when the match was recorded."""
    from sqlalchemy import select

    from app.matches import reads
    from app.matches.models import MatchEvent

    g = new_game()
    created = (
        db.execute(
            select(MatchEvent).where(MatchEvent.match_id == g.match_id).order_by(MatchEvent.seq)
        )
        .scalars()
        .first()
    )
    event = dict(created.event)
    options = dict(event["setup"]["options"])
    assert options.pop("coherency_check") is True  # what creating a match records now
    event["setup"] = {**event["setup"], "options": options}
    created.event = event
    db.flush()
    reads.cache.clear()
    setup_battle(g)
    _a_kills_three_kommandos(g)
    view = _to_the_end_of_a_turn(g)
    assert view["pending"]["coherency"] == []
    assert (view["round"], view["active"], view["phase"]) == (1, "B", "command")
