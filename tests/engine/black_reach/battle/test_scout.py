"""Scout in the Black Reach battle (issue 16): after deployment, before the first turn, each
side with Scout units makes their free Movement Actions of N squares, the Initiative side
first (note §8 item 40): Difficult Ground ignored, never ending in or next to an objective
[L1944-L1965]. The sample counters have no Scout: the test gives it to some of them. The
relay objective covers (3, 5) to (4, 6); the crater at (5, 3) is Difficult Ground."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, sample_setup
from app.engine.black_reach.battle.game import command_from_json
from app.engine.black_reach.battle.rules import decide, scout_mover
from app.engine.black_reach.battle.state import BattleState
from app.engine.black_reach.battle.views import legal_actions
from app.engine.black_reach.movement import Mover, check_path
from app.engine.match.errors import Refusal
from app.engine.roller import Roller

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
A, B = "A", "B"  # A: ultramarines, B: orks (the Initiative on turn 1)


def with_scouts(scouts: dict[str, int]) -> BattleSetup:
    setup = sample_setup()
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    for counter in catalogue["counters"]:
        if counter["id"] in scouts:
            counter["faces"][0].setdefault("abilities", []).append(
                {"id": "scout", "param": scouts[counter["id"]]}
            )
    return BattleSetup(setup.scenario, catalogue, setup.boards, setup.seats, setup.deployment)


def path(*squares: tuple[int, int]) -> list[dict[str, int]]:
    return [{"x": x, "y": y} for x, y in squares]


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any]) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat)
    assert battle.version == version
    return info.value


def test_scout_moves_come_after_deployment_the_initiative_side_first() -> None:
    battle = BlackReachBattle.create(
        with_scouts({"sample-um-sergeant": 3, "sample-ork-shootas": 2})
    )
    assert battle.state.scouting == ("orks", "ultramarines")
    assert battle.state.turn is None
    assert battle.state.active_seat == B
    sergeant = {"type": "scout_move", "unit": SERGEANT, "path": path((0, 2), (0, 3), (0, 4))}
    assert refused(battle, A, sergeant).code == "not_your_turn"
    assert refused(battle, B, {"type": "place_orders", "orders": []}).code == "scouting"
    kinds = [a["command"]["type"] for a in battle.actions(B)]
    assert kinds == ["scout_move", "end_scouting"]
    moved = battle.execute_json(
        {"type": "scout_move", "unit": SHOOTAS, "path": path((2, 10), (2, 9))}, B
    )
    assert (moved[0].event.kind, moved[0].event.cost) == ("scout_moved", 2)
    again = {"type": "scout_move", "unit": SHOOTAS, "path": path((2, 8))}
    assert refused(battle, B, again).code == "scouted"
    assert [e.event.kind for e in battle.execute_json({"type": "end_scouting"}, B)] == [
        "scouting_ended"
    ]
    assert battle.state.active_seat == A
    # not next to the relay (3..4, 5..6)
    near = {"type": "scout_move", "unit": SERGEANT, "path": path((1, 2), (2, 3), (2, 4))}
    assert refused(battle, A, near).code == "near_objective"
    offered = next(a for a in battle.actions(A) if a["command"]["type"] == "scout_move")
    assert [2, 4] not in offered["to"]
    assert [0, 4] in offered["to"]
    far = {"type": "scout_move", "unit": SERGEANT, "path": path((0, 2), (0, 3), (0, 4), (0, 5))}
    assert refused(battle, A, far).code == "illegal_move"  # Scout (3): 3 squares
    battle.execute_json(sergeant, A)
    ended = battle.execute_json({"type": "end_scouting"}, A)
    assert [e.event.kind for e in ended] == ["scouting_ended", "turn_started"]
    placement = battle.state.units[SERGEANT].placement
    assert placement is not None
    assert (placement.anchor.x, placement.anchor.y) == (0, 4)
    again_battle = BlackReachBattle.import_log(battle.export_log())
    assert again_battle.state == battle.state


def test_a_scout_move_ignores_difficult_ground() -> None:
    battle = BlackReachBattle.create(with_scouts({"sample-um-tactical": 4}))
    assert battle.state.scouting == ("ultramarines",)  # the Orks have no scout
    assert battle.state.active_seat == A
    through = path((3, 2), (4, 3), (5, 3), (6, 4))  # (5, 3): the crater
    state = battle.state
    tactical = state.units[TACTICAL]
    mover = scout_mover(state, tactical)
    assert mover is not None
    assert tactical.placement is not None
    steps = _placements(through, tactical.placement.facing)
    plain = Mover(state.mover(TACTICAL), 4)
    assert not check_path(state.board, plain, state.board_units(), steps).ok
    assert check_path(state.board, mover, state.board_units(), steps).ok
    events = battle.execute_json({"type": "scout_move", "unit": TACTICAL, "path": through}, A)
    assert events[0].event.cost == 4


def _placements(steps: list[dict[str, int]], facing: Any) -> list[Any]:
    from app.engine.black_reach.battle.commands import Step
    from app.engine.black_reach.battle.evolve import placement_of

    return [placement_of(Step(s["x"], s["y"], None), 1, facing) for s in steps]


def test_without_scouts_the_first_turn_starts_at_once() -> None:
    battle = BlackReachBattle.create(sample_setup())
    assert battle.state.scouting == ()
    assert battle.state.turn is not None


TRANSPORT = "ultramarines:tiles[0].slots[1]/0:sample-um-transport"


def _aboard(state: BattleState, *units: str) -> BattleState:
    """``units`` put aboard the transport by hand (the match deploys nobody aboard yet)."""
    moved = {u: dataclasses.replace(state.units[u], placement=None, embarked_in=TRANSPORT)
             for u in units}  # fmt: skip
    return dataclasses.replace(state, units={**state.units, **moved})


def _refused(state: BattleState, seat: str, command: dict[str, Any]) -> Refusal:
    with pytest.raises(Refusal) as info:
        decide(state, command_from_json(command), seat, Roller(1))
    return info.value


def test_scout_from_a_transport_rulings_118() -> None:
    battle = BlackReachBattle.create(
        with_scouts({"sample-um-sergeant": 3, "sample-um-transport": 4, "sample-ork-shootas": 2})
    )
    battle.execute_json({"type": "end_scouting"}, B)
    # a unit aboard never uses its own Scout [L1963-L1965]
    state = _aboard(battle.state, SERGEANT)
    move = {"type": "scout_move", "unit": SERGEANT, "path": path((0, 2))}
    assert _refused(state, A, move).code == "embarked_scout"
    assert all(a["command"].get("unit") != SERGEANT for a in legal_actions(state, A))
    # the transport carries only units with Scout on its Scout move [L1960-L1963]
    offered = next(
        a
        for a in legal_actions(state, A)
        if a["command"]["type"] == "scout_move" and a["command"]["unit"] == TRANSPORT
    )
    steps = next(iter(offered["paths"].values()))
    go = {
        "type": "scout_move",
        "unit": TRANSPORT,
        "path": [{"x": s[0], "y": s[1], "facing": s[2]} for s in steps],
    }
    decide(state, command_from_json(go), A, Roller(1))  # the sergeant: Scout
    crowded = _aboard(state, TACTICAL)
    assert all(a["command"].get("unit") != TRANSPORT for a in legal_actions(crowded, A))
    err = _refused(crowded, A, go)
    assert err.code == "scout_passengers"
    assert TACTICAL in err.message
