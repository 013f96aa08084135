"""A structure's ruin face (issue 16, rulings 134): at its Destruction value a board's
structure turns over to its ruin face when the board's data gives one [L894-L905],
[L1186-L1194]; its squares stay, its terrain symbols become the ruin's; without one it stays
as printed (rulings 104).

The board is the one of ``test_structures`` (the bunker (structure 2) on (4, 3), the hut
(structure 3) on (5, 5) where the Orks' Boyz stand) with a ruin face given to the hut.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from app.blackreach.present import scenario_picture
from app.engine.black_reach.battle import BlackReachBattle
from app.engine.black_reach.board import (
    DefenceColour,
    Square,
    TerrainElement,
    UnitClass,
    board_from_dict,
    boards_from_dict,
    with_ruins,
)
from app.engine.errors import ProfileError
from tests.engine.black_reach.battle import test_structures as st

RUIN = {"defence_bonus": 1, "defence_colours": ["yellow", "violet", "grey"], "difficult": True}


def ruin_board() -> dict[str, Any]:
    board = copy.deepcopy(st.BOARD)
    hut = next(e for e in board["boards"][0]["elements"] if e["id"] == "hut")
    hut["ruin"] = RUIN
    return board


def battle_with_ruin() -> BlackReachBattle:
    setup = replace(st.setup([{"id": "destruction", "param": 3}]), boards=ruin_board())
    battle = BlackReachBattle.create(setup)
    orders = [st.order(st.SHOOTAS, 1), st.order(st.NOB, 2)]
    battle.execute_json({"type": "place_orders", "orders": orders}, st.B)
    mine = [st.order(st.TACTICAL, 1), st.order(st.SERGEANT, 2)]
    battle.execute_json({"type": "place_orders", "orders": mine}, st.A)
    return battle


def hut(battle: BlackReachBattle) -> TerrainElement:
    return next(e for e in battle.state.board.elements if e.id == "hut")


def test_the_hut_turns_over_to_its_ruin_face_at_its_value() -> None:
    battle = battle_with_ruin()
    before = hut(battle)
    assert (before.difficult, before.defence_bonus, before.structure) == (False, 0, 3)
    assert before.ruin is not None
    assert before.ruin.difficult
    boyz = UnitClass.INFANTRY
    assert battle.state.board.defence_bonus({Square(5, 5)}, boyz) == 0
    shot = {"type": "demolish", "unit": st.TACTICAL, "structure": "hut"}
    new = battle.execute_json(shot, st.A, dice=[4, 5, 6])
    assert st.dealt(new) == [("hut", 3, 3, True, (4, 5, 6))]
    assert battle.state.ruined == frozenset({"hut"})
    after = hut(battle)
    # same place, the ruin's symbols; it is no structure any more (takes no more points)
    assert after.squares == before.squares
    assert after.intercases == before.intercases
    assert (after.difficult, after.defence_bonus, after.ruin) == (True, 1, None)
    assert st.structure_of(battle.state, "hut") is None
    # the Boyz inside stay, and now have the ruin's +1 (infantry's shield is among its colours)
    assert battle.state.units[st.BOYZ1].placement is not None
    assert battle.state.board.defence_bonus({Square(5, 5)}, boyz) == 1
    view = {
        v["id"]: (v["points"], v["standing"], v["ruin"]) for v in battle.view(st.B)["structures"]
    }
    assert view == {"bunker": (0, True, False), "hut": (3, False, True)}
    # the page's picture draws the ruin face (difficult ground, a yellow shield first)
    scenario = battle.state.scenario
    assert scenario is not None
    drawn = scenario_picture(
        replace(scenario, board=with_ruins(scenario.board, battle.state.ruined))
    )
    cell = next(c for c in drawn.cells if (c.x, c.y) == (5, 5))
    assert cell.kind == "yellow"


def test_a_structure_without_a_ruin_face_stays_as_printed() -> None:
    battle = battle_with_ruin()
    shot = {"type": "demolish", "unit": st.TACTICAL, "structure": "bunker"}
    battle.execute_json(shot, st.A, dice=[4, 4, 1])
    assert battle.state.ruined == frozenset({"bunker"})
    bunker = next(e for e in battle.state.board.elements if e.id == "bunker")
    assert (bunker.structure, bunker.difficult, bunker.ruin) == (2, False, None)
    view = {v["id"]: (v["standing"], v["ruin"]) for v in battle.view(st.A)["structures"]}
    assert view["bunker"] == (False, False)


def test_a_ruin_face_is_read_with_the_board_and_survives_assembly() -> None:
    boards = boards_from_dict(ruin_board())
    element = next(e for e in boards["flat"].elements if e.id == "hut")
    assert element.ruin == TerrainElement(
        id="ruin",
        squares=frozenset({Square(0, 0)}),
        defence_bonus=1,
        defence_colours=frozenset(DefenceColour),
        difficult=True,
    )
    assert with_ruins(boards["flat"], frozenset()) is boards["flat"]
    assert with_ruins(boards["flat"], frozenset({"bunker"})) is boards["flat"]  # no ruin face


@pytest.mark.parametrize(
    ("element", "where", "problem"),
    [
        (
            {"id": "a", "squares": [[0, 0]], "ruin": {"difficult": True}},
            "board.elements[0].ruin",
            "a ruin face needs a structure value",
        ),
        (
            {"id": "a", "squares": [[0, 0]], "structure": 2, "ruin": {"structure": 1}},
            "board.elements[0].ruin.structure",
            "unknown field",
        ),
        (
            {"id": "a", "squares": [[0, 0]], "structure": 2, "ruin": {"ruin": {}}},
            "board.elements[0].ruin.ruin",
            "unknown field",
        ),
        (
            {"id": "a", "squares": [[0, 0]], "structure": 2, "ruin": {"squares": [[1, 1]]}},
            "board.elements[0].ruin.squares",
            "unknown field",
        ),
        (
            {"id": "a", "squares": [[0, 0]], "structure": 2, "ruin": {"impassable": True}},
            "board.elements[0].ruin",
            "may not be impassable",
        ),
        (
            {
                "id": "a",
                "squares": [[0, 0]],
                "structure": 2,
                "ruin": {"forbidden_to": ["infantry"]},
            },
            "board.elements[0].ruin",
            "may not be impassable",
        ),
        (
            {"id": "a", "squares": [[0, 0]], "structure": 2, "ruin": [1]},
            "board.elements[0].ruin",
            "an object",
        ),
        (
            {"id": "a", "squares": [[0, 0]], "structure": 2, "ruin": {"defence_bonus": 11}},
            "board.elements[0].ruin.defence_bonus",
            "",
        ),
    ],
)
def test_bad_ruin_faces_are_refused_where_they_are(
    element: dict[str, Any], where: str, problem: str
) -> None:
    raw = {"name": "b", "width": 2, "height": 2, "elements": [element]}
    with pytest.raises(ProfileError) as info:
        board_from_dict(raw)
    text = str(info.value)
    assert where in text
    assert problem in text
