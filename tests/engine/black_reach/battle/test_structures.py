"""Destruction points in the Black Reach battle (issue 16, rulings 104): Démolisseur (N) at the
end of a Movement Action next to a structure, Destruction (N) after a shot at a unit inside
one and as a Shooting Action at the structure itself; each die at 4 or more is a point, and
at its value the structure is destroyed [L1174-L1194], [L1746-L1753].

The board is built here: 8 x 8, with an empty bunker (structure 2) on (4, 3) and a hut
(structure 3) on (5, 5) where the Orks' Boyz stand. The Tactical squad on (1, 3) is given
Démolisseur (2) and Destruction (1) as each test says.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.events import Demolished, DestructionDealt
from app.engine.black_reach.battle.structures import structure_of
from app.engine.match.errors import Refusal

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
A, B = "A", "B"

BOARD = {
    "boards": [
        {
            "name": "flat",
            "width": 8,
            "height": 8,
            "sample": True,
            "elements": [
                {"id": "bunker", "squares": [[4, 3]], "structure": 2},
                {"id": "hut", "squares": [[5, 5]], "structure": 3},
            ],
        }
    ]
}


def setup(abilities: list[dict[str, Any]]) -> BattleSetup:
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    tactical = next(c for c in catalogue["counters"] if c["id"] == "sample-um-tactical")
    tactical["faces"][0]["abilities"] += abilities
    scenario = {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-structures",
        "name": "Test structures",
        "turns": 3,
        "hand_size": 0,
        "first_initiative": "ultramarines",
        "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [2, 7]}],
                "army": {"faction": "ultramarines", "tiles": [{"tile": "sample-um-squad"}]},
            },
            {
                "id": "orks",
                "deployment": [{"from": [5, 0], "to": [7, 7]}],
                "army": {"faction": "orks", "tiles": [{"tile": "sample-ork-mob"}]},
            },
        ],
        "objectives": [],
    }
    deployment = (
        Deploy(SERGEANT, 0, 0, "E"),
        Deploy(TACTICAL, 1, 3, "E"),
        Deploy(BOLTER, 0, 7, "E"),
        Deploy(NOB, 7, 7, "W"),
        Deploy(BOYZ1, 5, 5, "W"),
        Deploy(BOYZ2, 7, 0, "W"),
        Deploy(SHOOTAS, 7, 2, "W"),
    )
    return BattleSetup(scenario, catalogue, BOARD, {"A": "ultramarines", "B": "orks"}, deployment)


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def ordered(*abilities: dict[str, Any]) -> BlackReachBattle:
    battle = BlackReachBattle.create(setup(list(abilities)))
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    mine = [order(TACTICAL, 1), order(SERGEANT, 2)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    return battle


DEMOLISHER = {"id": "demolisher", "param": 2}
DESTRUCTION = {"id": "destruction", "param": 1}
TO_BUNKER = [{"x": 2, "y": 3}, {"x": 3, "y": 3}]


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any], **kw: Any) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, **kw)
    assert battle.version == version
    return info.value


def dealt(envelopes: Any) -> list[tuple[str, int, int, bool, tuple[int, ...]]]:
    return [
        (e.event.wreck, e.event.points, e.event.total, e.event.removed, e.event.roll.values)
        for e in envelopes
        if isinstance(e.event, DestructionDealt) and e.event.roll is not None
    ]


def test_a_demolisher_ends_its_move_next_to_the_bunker_and_destroys_it() -> None:
    battle = ordered(DEMOLISHER)
    move = {"type": "move", "unit": TACTICAL, "path": TO_BUNKER, "demolish": "bunker"}
    new = battle.execute_json(move, A, dice=[4, 6])
    assert [e.event.kind for e in new][-3:] == ["unit_moved", "demolished", "destruction_dealt"]
    assert dealt(new) == [("bunker", 2, 2, True, (4, 6))]
    assert battle.state.ruined == frozenset({"bunker"})
    # a destroyed structure takes no more points
    assert structure_of(battle.state, "bunker") is None
    assert structure_of(battle.state, "hut") is not None
    view = {v["id"]: (v["points"], v["standing"]) for v in battle.view(B)["structures"]}
    assert view == {"bunker": (2, False), "hut": (0, True)}


def test_bad_demolitions_are_refused_before_any_die() -> None:
    battle = ordered(DEMOLISHER)
    short = {"type": "move", "unit": TACTICAL, "path": TO_BUNKER[:1], "demolish": "bunker"}
    assert refused(battle, A, short, dice=[6, 6]).code == "not_adjacent"
    nothing = {**short, "path": TO_BUNKER, "demolish": "castle"}
    assert refused(battle, A, nothing, dice=[6, 6]).code == "no_structure"
    battle = ordered()
    move = {"type": "move", "unit": TACTICAL, "path": TO_BUNKER, "demolish": "bunker"}
    assert refused(battle, A, move, dice=[6, 6]).code == "no_demolisher"


def test_destruction_after_a_shot_at_a_unit_inside_a_structure() -> None:
    battle = ordered(DESTRUCTION)
    shot = {"type": "shoot", "unit": TACTICAL, "target": BOYZ1}
    # the shot first (6 + CV 2 against DV 4: a step), then the hut's die
    new = battle.execute_json(shot, A, dice=[6, 4])
    kinds = [e.event.kind for e in new]
    assert kinds.index("steps_taken") < kinds.index("destruction_dealt")
    assert dealt(new) == [("hut", 1, 1, False, (4,))]


def test_destruction_as_a_shooting_action_at_the_structure_itself() -> None:
    battle = ordered({"id": "destruction", "param": 2})
    entry = next(a for a in battle.actions(A) if a["command"]["type"] == "demolish")
    assert entry["structures"] == ["bunker", "hut"]
    new = battle.execute_json(
        {"type": "demolish", "unit": TACTICAL, "structure": "bunker"}, A, dice=[3, 5]
    )
    assert any(isinstance(e.event, Demolished) and e.event.how == "shot" for e in new)
    assert dealt(new) == [("bunker", 1, 1, False, (3, 5))]
    assert battle.state.destruction["bunker"] == 1


def test_only_a_unit_with_destruction_shoots_a_structure() -> None:
    battle = ordered()
    command = {"type": "demolish", "unit": TACTICAL, "structure": "bunker"}
    assert refused(battle, A, command, dice=[6]).code == "no_destruction"
