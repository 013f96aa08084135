"""En Alerte in the Black Reach battle (issue 16): a Movement Action an enemy unit with En
Alerte could shoot along is declared with its path and waits; that side fires after the step
it picks (or lets it pass), its unit takes an Activated marker, and the mover goes on without
stopping even after a step lost, unless destroyed [L1202-L1212].

The sample heavy-weapon team (3, 1) is given En Alerte here. The Boyz' move (4, 9), (4, 8),
(4, 7), (4, 6) is in its sight after steps 1, 3 and 4: its shot is 3 + the die - 3 at (4, 9)
(long range and one reducing square), - 2 at (4, 7) and (4, 6), against DV 4.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, sample_setup
from app.engine.match.errors import Refusal

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
A, B = "A", "B"
MOVE = {"type": "move", "unit": BOYZ1, "path": [{"x": 4, "y": y} for y in (9, 8, 7, 6)]}


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def watched(*, fragile_boyz: bool = False, ability: str = "overwatch") -> BlackReachBattle:
    """Both sides' tokens placed; the Boyz' token 1 is due."""
    setup = sample_setup()
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    team = next(c for c in catalogue["counters"] if c["id"] == "sample-um-heavy-bolter")
    team["faces"][0]["abilities"].append({"id": ability})
    if fragile_boyz:  # one step destroys them
        boyz = next(c for c in catalogue["counters"] if c["id"] == "sample-ork-boyz")
        boyz["faces"][0]["on_step_loss"] = "destroy"
    battle = BlackReachBattle.create(
        BattleSetup(setup.scenario, catalogue, setup.boards, setup.seats, setup.deployment)
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    return battle


def kinds(envelopes: Any) -> list[str]:
    return [e.event.kind for e in envelopes]


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any]) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, dice=[6])
    assert battle.version == version
    return info.value


def at(battle: BlackReachBattle, unit: str) -> tuple[int, int]:
    placement = battle.state.units[unit].placement
    assert placement is not None
    return placement.anchor.x, placement.anchor.y


def test_a_move_in_sight_of_en_alerte_waits_for_the_answer() -> None:
    battle = watched()
    assert kinds(battle.execute_json(MOVE, B)) == ["order_revealed", "move_declared"]
    assert at(battle, BOYZ1) == (4, 10)  # not moved yet
    assert battle.state.active_seat == A
    assert battle.actions(B) == []
    assert refused(battle, B, {"type": "hold", "unit": BOYZ2}).code == "waiting_overwatch"
    assert refused(battle, A, {"type": "hold", "unit": BOLTER}).code == "waiting_overwatch"
    offered = [
        (a["command"]["after"], a["square"], a["odds"])
        for a in battle.actions(A)
        if a["command"]["type"] == "overwatch" and not a["command"]["suppression"]
    ]
    assert offered == [
        (1, [4, 9], {"miss": "1/2", "step": "1/2", "coup_double": "0"}),  # 3 + d - 3 >= 4
        (3, [4, 7], {"miss": "1/3", "step": "2/3", "coup_double": "0"}),  # 3 + d - 2 >= 4
        (4, [4, 6], {"miss": "1/3", "step": "2/3", "coup_double": "0"}),
    ]
    assert {"type": "pass_overwatch"} in [a["command"] for a in battle.actions(A)]


def test_en_alerte_fires_partway_and_the_move_goes_on() -> None:
    battle = watched()
    battle.execute_json(MOVE, B)
    fire = {"type": "overwatch", "unit": BOLTER, "after": 1}
    events = battle.execute_json(fire, A, dice=[6])
    assert kinds(events) == [
        "overwatch_answered",
        "unit_moved",
        "unit_shot",
        "steps_taken",
        "units_activated",
        "unit_moved",
    ]
    first, shot, rest = events[1].event, events[2].event, events[5].event
    assert ([(s.x, s.y) for s in first.path], first.cost) == ([(4, 9)], 1)
    assert (shot.unit, shot.target, shot.final, shot.outcome) == (BOLTER, BOYZ1, 6, "step")
    assert ([(s.x, s.y) for s in rest.path], rest.cost) == ([(4, 8), (4, 7), (4, 6)], 3)
    # the Boyz lost a step and still went the whole way
    assert at(battle, BOYZ1) == (4, 6)
    assert str(battle.state.units[BOYZ1].status.face) == "reduced"
    assert battle.state.pending is None
    # the team has its Activated marker: its token is played with no effect
    assert BOLTER in battle.state.activated
    assert refused(battle, A, {"type": "shoot", "unit": BOLTER, "target": BOYZ1}).code == (
        "activated"
    )
    assert kinds(battle.execute_json({"type": "hold", "unit": BOLTER}, A)) == ["order_revealed"]


def test_a_mover_destroyed_by_en_alerte_goes_no_further() -> None:
    battle = watched(fragile_boyz=True)
    battle.execute_json(MOVE, B)
    events = battle.execute_json({"type": "overwatch", "unit": BOLTER, "after": 3}, A, dice=[3])
    assert kinds(events) == [
        "overwatch_answered",
        "unit_moved",
        "unit_shot",
        "steps_taken",
        "units_activated",
    ]
    assert events[3].event.destroyed
    assert not battle.state.units[BOYZ1].alive
    assert battle.state.active_seat == A  # the team's token 1 is due (it holds)


def test_letting_it_pass_makes_the_move() -> None:
    battle = watched()
    battle.execute_json(MOVE, B)
    events = battle.execute_json({"type": "pass_overwatch"}, A)
    assert kinds(events) == ["overwatch_answered", "unit_moved"]
    assert (events[0].event.unit, events[1].event.cost) == ("", 4)
    assert at(battle, BOYZ1) == (4, 6)
    # the team was not activated: its token 1 shoots as usual
    shot = battle.execute_json({"type": "shoot", "unit": BOLTER, "target": BOYZ1}, A, dice=[4])
    assert shot[1].event.final == 5


def test_bad_en_alerte_is_refused() -> None:
    battle = watched()
    battle.execute_json(MOVE, B)
    off = {"type": "overwatch", "unit": BOLTER, "after": 2}  # (4, 8): out of sight
    assert refused(battle, A, off).code == "no_shot_there"
    plain = {"type": "overwatch", "unit": TACTICAL, "after": 4}
    assert refused(battle, A, plain).code == "no_overwatch"
    mine = {"type": "overwatch", "unit": NOB, "after": 1}
    assert refused(battle, B, mine).code == "not_your_turn"
    assert refused(battle, B, {"type": "pass_overwatch"}).code == "not_your_turn"


def test_without_en_alerte_in_sight_the_move_is_made_at_once() -> None:
    battle = watched(ability="optics")
    assert kinds(battle.execute_json(MOVE, B)) == ["order_revealed", "unit_moved"]
    assert refused(battle, A, {"type": "pass_overwatch"}).code == "no_move_declared"


def test_a_declared_move_and_its_en_alerte_replay() -> None:
    battle = watched()
    battle.execute_json(MOVE, B)
    waiting = BlackReachBattle.import_log(battle.export_log())
    assert waiting.state == battle.state
    assert waiting.state.pending is not None
    battle.execute_json({"type": "overwatch", "unit": BOLTER, "after": 4}, A, dice=[2])
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state
