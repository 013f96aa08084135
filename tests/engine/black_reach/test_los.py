"""Line of sight over cells, edges and elevation; range; fire arcs (note §3.6; [L467-L558])."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from app.engine.black_reach.board import (
    Board,
    Edge,
    EdgeElement,
    EdgeKind,
    Intercase,
    Square,
    TerrainElement,
    UnitClass,
)
from app.engine.black_reach.los import (
    Arc,
    Blocker,
    Facing,
    Sight,
    best_line_of_sight,
    crossings,
    distance,
    in_arc,
    is_long_range,
    line_of_sight,
)

INF, LIGHT, HEAVY = UnitClass.INFANTRY, UnitClass.LIGHT_VEHICLE, UnitClass.HEAVY_VEHICLE


def grid(w: int, h: int, *elements: TerrainElement, edges: tuple[EdgeElement, ...] = ()) -> Board:
    return Board("t", frozenset(Square(x, y) for x in range(w) for y in range(h)), elements, edges)


def cell(name: str, *squares: tuple[int, int], **effects: object) -> TerrainElement:
    return TerrainElement(name, frozenset(Square(*s) for s in squares), **effects)  # type: ignore[arg-type]


def test_reducing_squares_add_up_and_the_end_squares_do_not_count() -> None:
    # [L509-L517]: -N per square crossed, cumulative; shooter's and target's squares excluded
    board = grid(6, 1, cell("hedge", (1, 0), (2, 0), (4, 0), reduces_los=1))
    los = line_of_sight(board, Square(0, 0), Square(4, 0))
    assert (los.sight, los.penalty) == (Sight.REDUCED, 2)
    assert line_of_sight(board, Square(1, 0), Square(3, 0)).penalty == 1


def test_a_blocking_obstacle_blocks() -> None:
    board = grid(5, 1, cell("rock", (2, 0), blocks_los=True))
    assert line_of_sight(board, Square(0, 0), Square(4, 0)).sight is Sight.BLOCKED
    assert line_of_sight(board, Square(0, 0), Square(1, 0)).sight is Sight.CLEAR


def test_a_line_through_an_intercase_crosses_no_square_beside_it() -> None:
    # a diagonal line meets the corner of (1, 0) and (0, 1): neither is crossed (rulings)
    board = grid(3, 3, cell("bush", (1, 0), (0, 1), reduces_los=1))
    assert line_of_sight(board, Square(0, 0), Square(2, 2)).sight is Sight.CLEAR
    cross = crossings((1, 1), (5, 5))
    assert cross.intercases == {Intercase(1, 1), Intercase(2, 2)}
    # the intercase belongs to an element: its effect applies once
    board = grid(
        3, 3, cell("bush", (1, 0), (0, 1), reduces_los=1, intercases=frozenset({Intercase(1, 1)}))
    )
    assert line_of_sight(board, Square(0, 0), Square(2, 2)).penalty == 1


def test_a_wall_is_ignored_by_adjacent_units_and_counts_for_the_others() -> None:
    # [L866-L879]
    wall = EdgeElement(
        "wall", EdgeKind.WALL, frozenset({Edge.between(Square(2, 0), Square(3, 0))}), reduces_los=1
    )
    board = grid(6, 1, edges=(wall,))
    assert line_of_sight(board, Square(0, 0), Square(5, 0)).penalty == 1
    assert line_of_sight(board, Square(2, 0), Square(5, 0)).sight is Sight.CLEAR
    assert line_of_sight(board, Square(0, 0), Square(3, 0)).sight is Sight.CLEAR


def test_a_wall_reaching_an_intercase_blocks_the_diagonal() -> None:
    # [L937-L938]: the wall reaches the intercase, so the diagonal LoS is blocked
    wall = EdgeElement(
        "wall", EdgeKind.WALL, frozenset({Edge.between(Square(0, 0), Square(1, 0))}), reduces_los=1
    )
    board = grid(2, 2, edges=(wall,))
    assert line_of_sight(board, Square(0, 1), Square(1, 0)).sight is Sight.BLOCKED
    assert line_of_sight(board, Square(0, 1), Square(1, 1)).sight is Sight.CLEAR


def test_an_elevation_line_lets_the_sight_one_square_beyond() -> None:
    # [L815-L825]: reaches one square beyond the line; units adjacent to it ignore it
    ridge = EdgeElement(
        "ridge",
        EdgeKind.ELEVATION_LINE,
        frozenset({Edge.between(Square(2, y), Square(3, y)) for y in range(3)}),
    )
    board = grid(7, 3, edges=(ridge,))
    assert line_of_sight(board, Square(0, 1), Square(3, 1)).sight is Sight.CLEAR
    assert line_of_sight(board, Square(2, 1), Square(6, 1)).sight is Sight.CLEAR
    assert line_of_sight(board, Square(0, 1), Square(4, 1)).sight is Sight.BLOCKED


def test_units_in_the_way() -> None:
    # [L487-L492]: infantry blocks only infantry against infantry; every vehicle blocks;
    # ambushed units never block [L1790]; infantry does not block embarked shooters [L2049]
    board = grid(5, 1)
    a, b = Square(0, 0), Square(4, 0)
    squad = Blocker(frozenset({Square(2, 0)}), INF)
    tank = Blocker(frozenset({Square(2, 0)}), HEAVY)
    hidden = Blocker(frozenset({Square(2, 0)}), HEAVY, ambushed=True)
    assert line_of_sight(board, a, b, blockers=[squad]).sight is Sight.BLOCKED
    assert line_of_sight(board, a, b, target_class=LIGHT, blockers=[squad]).can_shoot
    assert not line_of_sight(board, a, b, target_class=LIGHT, blockers=[tank]).can_shoot
    assert line_of_sight(board, a, b, blockers=[hidden]).can_shoot
    assert line_of_sight(board, a, b, blockers=[squad], embarked_shooter=True).can_shoot


def test_a_two_square_vehicle_may_aim_from_its_other_square() -> None:
    # [L522-L529]: either centre or any point between
    board = grid(5, 3, cell("rock", (2, 0), blocks_los=True))
    tank = [Square(0, 1), Square(0, 2)]
    assert not line_of_sight(board, Square(0, 1), Square(4, 0)).can_shoot
    assert best_line_of_sight(board, tank, [Square(4, 0)], shooter_class=HEAVY).can_shoot


squares = st.builds(Square, st.integers(0, 5), st.integers(0, 5))


@given(squares, squares, st.sets(squares, max_size=6), st.sets(squares, max_size=4))
def test_line_of_sight_is_symmetric(
    a: Square, b: Square, reducing: set[Square], blocking: set[Square]
) -> None:
    # [L519-L520]
    board = grid(
        6,
        6,
        cell("r", *reducing, reduces_los=1) if reducing else cell("r", (0, 0)),
        cell("x", *blocking, blocks_los=True) if blocking else cell("x", (0, 0)),
    )
    assert line_of_sight(board, a, b) == line_of_sight(board, b, a)


def test_range_and_long_range() -> None:
    # [L533-L545]: diagonals count 1, the shooter's square not counted; beyond 7: long range
    assert distance([Square(0, 0)], [Square(3, 7)]) == 7
    assert not is_long_range([Square(0, 0)], [Square(7, 2)])
    assert is_long_range([Square(0, 0)], [Square(8, 0)])
    # a 2-square target: the shortest distance [L543-L545]
    assert distance([Square(0, 0)], [Square(9, 0), Square(8, 0)]) == 8


def test_fire_arcs() -> None:
    # note §8 item 23: 90° = within 45° of the facing, 180° = the front half-plane
    here = Square(5, 5)
    assert in_arc(here, Facing.N, Square(5, 0), Arc.NARROW)
    assert in_arc(here, Facing.N, Square(8, 2), Arc.NARROW)  # exactly 45°
    assert not in_arc(here, Facing.N, Square(8, 3), Arc.NARROW)
    assert in_arc(here, Facing.N, Square(9, 5), Arc.HALF)
    assert not in_arc(here, Facing.N, Square(9, 6), Arc.HALF)
    assert in_arc(here, Facing.NE, Square(9, 5), Arc.NARROW)
    assert in_arc(here, Facing.S, Square(5, 0), Arc.FULL)
