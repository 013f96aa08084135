"""Assaults and transports (issue 16, rulings 121) [L1507-L1510], [L2034-L2038]: a unit
aboard assaults from the transport's square next to the defender, or along a path out of it;
a beaten infantry defender with nowhere else to go retreats into an allied transport.

The board is built here: 8 x 8, flat. The Ultramarines' transport stands on (3, 3)-(2, 3)
facing E with the tactical squad aboard (put there by hand: the state is built directly);
the Ork shootas on (4, 3), right in front of it; the other counters far away.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.events import ForcedMove, UnitEmbarked, UnitMoved
from app.engine.black_reach.battle.game import command_from_json
from app.engine.black_reach.battle.rules import decide
from app.engine.black_reach.battle.state import BattleState
from app.engine.black_reach.battle.views import legal_actions
from app.engine.match.errors import Refusal
from app.engine.match.log import Decision
from app.engine.roller import Roller

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
TRANSPORT = "ultramarines:tiles[0].slots[0]/0:sample-um-transport"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
A, B = "A", "B"
BOARD = {"boards": [{"name": "flat", "width": 8, "height": 8, "sample": True}]}


def setup(
    deploy: dict[str, tuple[int, int, str]] | None = None, *, overwatch: str | None = None
) -> BattleSetup:
    """The battle; ``overwatch``: a counter id given En Alerte."""
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    for c in catalogue["counters"]:
        if c["id"] == overwatch:
            c["faces"][0].setdefault("abilities", []).append({"id": "overwatch"})
    scenario = {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-transport-assaults",
        "name": "Test transport assaults",
        "turns": 3,
        "hand_size": 0,
        "first_initiative": "ultramarines",
        "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [3, 7]}],
                "army": {
                    "faction": "ultramarines",
                    "tiles": [
                        {
                            "tile": "sample-um-squad",
                            "slots": [{"slot": 1, "tile": {"tile": "sample-um-transport"}}],
                        }
                    ],
                },
            },
            {
                "id": "orks",
                "deployment": [{"from": [4, 0], "to": [7, 7]}],
                "army": {"faction": "orks", "tiles": [{"tile": "sample-ork-mob"}]},
            },
        ],
        "objectives": [],
    }
    spots = {
        TRANSPORT: (3, 3, "E"),
        TACTICAL: (1, 3, "E"),
        SERGEANT: (0, 0, "E"),
        BOLTER: (0, 7, "E"),
        SHOOTAS: (4, 3, "W"),
        NOB: (7, 7, "W"),
        BOYZ1: (7, 0, "W"),
        BOYZ2: (6, 0, "W"),
    } | (deploy or {})
    deployment = tuple(Deploy(u, x, y, f) for u, (x, y, f) in spots.items())
    return BattleSetup(scenario, catalogue, BOARD, {"A": "ultramarines", "B": "orks"}, deployment)


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def aboard(**deploy: tuple[int, int, str]) -> BattleState:
    battle = BlackReachBattle.create(setup({k.replace("_", ":"): v for k, v in deploy.items()}))
    if TRANSPORT not in battle.state.units:
        pytest.fail(f"no transport: {sorted(battle.state.units)}")
    mine = [order(TACTICAL, 1), order(TRANSPORT, 2)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    state = battle.state
    inside = dataclasses.replace(state.units[TACTICAL], placement=None, embarked_in=TRANSPORT)
    return dataclasses.replace(state, units={**state.units, TACTICAL: inside})


def run(state: BattleState, seat: str, command: dict[str, Any], dice: list[int]) -> Decision[Any]:
    return decide(state, command_from_json(command), seat, Roller.from_values(dice))


ASSAULT = {"type": "assault", "unit": TACTICAL, "target": SHOOTAS}


def test_an_assault_from_the_transports_square_is_offered_and_taken() -> None:
    state = aboard()
    offered = [
        a
        for a in legal_actions(state, A)
        if a["command"]["type"] == "assault" and a["command"]["unit"] == TACTICAL
    ]
    at_shootas = next(a for a in offered if a["command"]["target"] == SHOOTAS)
    assert at_shootas["from"][0] == {"square": [3, 3], "path": []}  # the transport's square
    assert all(a["from"][0]["path"] for a in offered if a is not at_shootas)  # out of it
    # best of 6 and 1 + CV 2 + Assaut 1 = 9 against the shootas' best of 1 and 1 + 2 = 3
    decision = run(state, A, ASSAULT, [6, 1, 1, 1])
    kinds = [e.event.kind for e in decision.events]
    assert "unit_moved" not in kinds  # no square of move before the assault: it is aboard
    resolved = next(e.event for e in decision.events if e.event.kind == "assault_resolved")
    assert (resolved.start.x, resolved.start.y) == (3, 3)
    assert kinds[-1] == "square_awaited"  # the Orks' square, straight back offered first
    answer = {"type": "choose_square", "unit": SHOOTAS, "x": 5, "y": 3}
    decision = run(decision.state, B, answer, [])
    moves = [(e.event.unit, e.event.to.x, e.event.to.y) for e in decision.events
             if isinstance(e.event, ForcedMove)]  # fmt: skip
    # the shootas retreat straight back from (3, 3); the squad gets out into their square
    assert moves == [(SHOOTAS, 5, 3), (TACTICAL, 4, 3)]
    after = decision.state.units[TACTICAL]
    assert after.embarked_in is None
    assert after.placement is not None
    assert (after.placement.anchor.x, after.placement.anchor.y) == (4, 3)


def test_a_beaten_attacker_from_the_transport_stays_aboard() -> None:
    # 1 + 3 = 4 against the shootas' 6 + 2 = 8: the squad takes its step, still aboard
    decision = run(aboard(), A, ASSAULT, [1, 1, 6, 1])
    after = decision.state.units[TACTICAL]
    assert after.embarked_in == TRANSPORT
    assert str(after.status.face) == "reduced"


def test_an_assault_along_a_path_out_of_the_transport() -> None:
    # the shootas away on (6, 5): out onto (4, 4), then (5, 4), next to them
    state = aboard(**{"orks:tiles[0]/3:sample-ork-shootas": (6, 5, "W")})
    command = {**ASSAULT, "path": [{"x": 4, "y": 4}, {"x": 5, "y": 4}]}
    decision = run(state, A, command, [6, 1, 1, 1])
    moved = next(e.event for e in decision.events if isinstance(e.event, UnitMoved))
    assert [(s.x, s.y) for s in moved.path] == [(4, 4), (5, 4)]
    resolved = next(e.event for e in decision.events if e.event.kind == "assault_resolved")
    assert (resolved.start.x, resolved.start.y) == (5, 4)


def test_a_transport_far_from_the_defender_gives_no_assault_without_a_path() -> None:
    state = aboard(**{"orks:tiles[0]/3:sample-ork-shootas": (6, 5, "W")})
    with pytest.raises(Refusal) as info:
        run(state, A, ASSAULT, [6, 1, 1, 1])
    assert info.value.code == "not_adjacent"


def test_a_beaten_defender_with_nowhere_to_go_retreats_into_its_transport() -> None:
    # the nob on (4, 2) assaults the squad on (3, 2): its retreat squares (2, 1), (2, 2) and
    # (2, 3) are the sergeant's and the transport's (on (2, 2)-(2, 3), facing N)
    battle = BlackReachBattle.create(
        setup(
            {
                TACTICAL: (3, 2, "E"),
                TRANSPORT: (2, 2, "N"),
                SERGEANT: (2, 1, "E"),
                NOB: (4, 2, "W"),
                SHOOTAS: (7, 3, "W"),
            }
        )
    )
    mine = [order(TACTICAL, 1), order(TRANSPORT, 2)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    battle.execute_json({"type": "place_orders", "orders": [order(NOB, 1), order(SHOOTAS, 2)]}, B)
    battle.execute_json({"type": "hold", "unit": TACTICAL}, A)
    # the nob's best of 6 and 1 + CV 3 + Assaut 3 = 12 against the squad's best of 1 and 1 + 2
    # + Assaut 1 = 4
    new = battle.execute_json({"type": "assault", "unit": NOB, "target": TACTICAL}, B,
                              dice=[6, 1, 1, 1])  # fmt: skip
    got_in = [e.event for e in new if isinstance(e.event, UnitEmbarked)]
    assert [(e.unit, e.transport) for e in got_in] == [(TACTICAL, TRANSPORT)]
    after = battle.state.units[TACTICAL]
    assert after.embarked_in == TRANSPORT
    assert str(after.status.face) == "reduced"
    assert battle.state.units[NOB].placement.anchor.x == 3  # type: ignore[union-attr]
