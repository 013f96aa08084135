"""Boards as data: terrain elements, edges, the sample boards, assembly with offset and
rotation (note §2.4, §9.3; seed [L767-L913])."""

from __future__ import annotations

import pytest

from app.engine.black_reach.board import (
    Board,
    Edge,
    EdgeElement,
    EdgeKind,
    Intercase,
    Placed,
    Square,
    TerrainElement,
    UnitClass,
    assemble,
    board_from_dict,
    load_sample_boards,
)
from app.engine.errors import ProfileError


def grid(w: int, h: int, *elements: TerrainElement, edges: tuple[EdgeElement, ...] = ()) -> Board:
    squares = frozenset(Square(x, y) for x in range(w) for y in range(h))
    return Board("test", squares, tuple(elements), edges)


def test_the_sample_boards_load_and_say_they_are_samples() -> None:
    boards = load_sample_boards()
    assert set(boards) == {"sample-ruins", "sample-ridge", "sample-barricade-tile"}
    assert all(b.sample for b in boards.values())
    ruins = boards["sample-ruins"]
    assert len(ruins.squares) == 48
    assert ruins.element("ruin").structure == 3
    assert Intercase(3, 2) in ruins.element("ruin").intercases  # type: ignore[union-attr]


def test_defence_bonus_needs_the_colour_and_the_whole_footprint_inside() -> None:
    # [L806-L813]: the bonus only for the matching shield colour; [L790-L792] fully inside
    woods = TerrainElement(
        "woods",
        frozenset({Square(1, 1), Square(2, 1)}),
        defence_bonus=2,
        defence_colours=frozenset({UnitClass.INFANTRY.colour}),
    )
    board = grid(4, 4, woods)
    assert board.defence_bonus([Square(1, 1)], UnitClass.INFANTRY) == 2
    assert board.defence_bonus([Square(1, 1)], UnitClass.LIGHT_VEHICLE) == 0
    assert board.defence_bonus([Square(1, 1), Square(2, 1)], UnitClass.INFANTRY) == 2
    assert board.defence_bonus([Square(2, 1), Square(3, 1)], UnitClass.INFANTRY) == 0


def test_forbidden_and_impassable() -> None:
    rocks = TerrainElement(
        "rocks", frozenset({Square(0, 0)}), forbidden_to=frozenset({UnitClass.HEAVY_VEHICLE})
    )
    pit = TerrainElement("pit", frozenset({Square(1, 0)}), impassable=True)
    assert rocks.forbids(UnitClass.HEAVY_VEHICLE)
    assert not rocks.forbids(UnitClass.INFANTRY)
    assert all(pit.forbids(c) for c in UnitClass)


def test_edges_are_canonical_and_know_their_ends() -> None:
    e = Edge.between(Square(3, 2), Square(2, 2))
    assert e == Edge(Square(2, 2), Square(3, 2))
    assert e.ends == (Intercase(3, 2), Intercase(3, 3))
    h = Edge.between(Square(1, 1), Square(1, 2))
    assert h.ends == (Intercase(1, 2), Intercase(2, 2))
    with pytest.raises(ValueError):
        Edge.between(Square(0, 0), Square(1, 1))


def test_rotation_by_a_quarter_turn_and_offset() -> None:
    boards = load_sample_boards()
    ruins = boards["sample-ruins"]  # 8 x 6
    turned = assemble("turned", [Placed(ruins, offset=(10, 0), rotation=90)])
    xs = {s.x for s in turned.squares}
    ys = {s.y for s in turned.squares}
    assert (min(xs), max(xs), min(ys), max(ys)) == (10, 15, 0, 7)  # now 6 wide, 8 high
    # clockwise: square (x, y) of a board 6 high goes to (5 - y, x)
    assert turned.element("ruin").squares == {  # type: ignore[union-attr]
        Square(14, 2),
        Square(14, 3),
        Square(13, 2),
        Square(13, 3),
    }
    wall = turned.element("low-wall")
    assert isinstance(wall, EdgeElement)
    assert Edge.between(Square(10, 4), Square(11, 4)) in wall.edges
    # four quarter turns give the board back
    back = assemble("back", [Placed(ruins, rotation=360)])
    assert back.element("ruin") == ruins.element("ruin")


def test_a_tile_replaces_what_lies_under_it() -> None:
    boards = load_sample_boards()
    ruins, tile = boards["sample-ruins"], boards["sample-barricade-tile"]
    field = assemble(
        "field",
        [Placed(ruins, prefix="a/"), Placed(boards["sample-ridge"], offset=(8, 0), prefix="b/")],
        [Placed(tile, offset=(2, 1), prefix="t/")],
    )
    assert len(field.squares) == 96
    ruin = field.element("a/ruin")
    assert isinstance(ruin, TerrainElement)
    assert ruin.squares == {Square(2, 2), Square(3, 2)}  # the tile took the top row
    assert field.element("t/sandbags").barricade == 1  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="overlaps"):
        assemble("bad", [Placed(ruins), Placed(ruins, offset=(7, 0))])
    with pytest.raises(ValueError, match="does not lie"):
        assemble("bad", [Placed(ruins)], [Placed(tile, offset=(7, 0))])
    with pytest.raises(ValueError, match="share an id"):
        assemble("bad", [Placed(ruins), Placed(ruins, offset=(8, 0))])


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        ({"name": "b", "width": 0, "height": 3}, "board.width"),
        ({"name": "b", "width": 3, "height": 3, "colour": 1}, "board.colour"),
        (
            {"name": "b", "width": 3, "height": 3, "elements": [{"id": "e", "squares": [[5, 5]]}]},
            "board.elements[0].squares",
        ),
        (
            {
                "name": "b",
                "width": 3,
                "height": 3,
                "edges": [{"id": "w", "kind": "wall", "edges": [[[0, 0], [1, 1]]]}],
            },
            "board.edges[0].edges[0]",
        ),
        (
            {
                "name": "b",
                "width": 3,
                "height": 3,
                "edges": [{"id": "w", "kind": "moat", "edges": [[[0, 0], [1, 0]]]}],
            },
            "board.edges[0].kind",
        ),
    ],
)
def test_bad_boards_are_refused_naming_the_field(raw: dict[str, object], field: str) -> None:
    with pytest.raises(ProfileError) as err:
        board_from_dict(raw)
    assert err.value.field == field


def test_edge_kinds_from_data() -> None:
    ridge = load_sample_boards()["sample-ridge"]
    line = ridge.element("ridge")
    assert isinstance(line, EdgeElement)
    assert line.kind is EdgeKind.ELEVATION_LINE
    assert line.touches(Square(3, 1))
    assert not line.touches(Square(2, 1))
