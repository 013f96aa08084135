"""Movement Actions on small boards (note §3.5; seed [L257-L431], [L2017-L2032])."""

from __future__ import annotations

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
from app.engine.black_reach.los import Facing
from app.engine.black_reach.movement import (
    BoardUnit,
    Footprint,
    Mover,
    Passenger,
    Placement,
    can_embark,
    check_path,
    movement_budget,
    reachable,
    transport_has_room,
    zone_of_control,
)

INF, LIGHT, HEAVY = UnitClass.INFANTRY, UnitClass.LIGHT_VEHICLE, UnitClass.HEAVY_VEHICLE


def grid(w: int, h: int, *elements: TerrainElement, edges: tuple[EdgeElement, ...] = ()) -> Board:
    return Board("t", frozenset(Square(x, y) for x in range(w) for y in range(h)), elements, edges)


def unit(
    name: str, x: int, y: int, cls: UnitClass = INF, side: str = "A", **kw: object
) -> BoardUnit:
    return BoardUnit(name, side, cls, Placement(Square(x, y)), **kw)  # type: ignore[arg-type]


def squares(reach: dict[Placement, object]) -> set[tuple[int, int]]:
    return {(p.anchor.x, p.anchor.y) for p in reach}


def test_mv_squares_with_diagonals_and_the_null_move() -> None:
    # [L258-L265]: 0..MV squares, diagonals cost 1
    me = unit("me", 2, 2)
    reach = reachable(grid(7, 7), Mover(me, 2), [me])
    assert squares(reach) == {(x, y) for x in range(5) for y in range(5)}
    assert reach[Placement(Square(2, 2))].cost == 0
    assert reach[Placement(Square(4, 4))].cost == 2


def test_suppressed_markers_and_mv_x() -> None:
    # [L274-L280]: -2 MV per marker, immobilised at 0; [L302-L314] MV X takes no bonus
    me = unit("me", 0, 0, suppressed=1)
    assert movement_budget(Mover(me, 3)) == 1
    assert movement_budget(Mover(me, 2)) == 0
    assert squares(reachable(grid(3, 3), Mover(me, 2), [me])) == {(0, 0)}
    assert movement_budget(Mover(unit("x", 0, 0), None, mv_bonus=2)) == 0
    check = check_path(grid(3, 3), Mover(unit("x", 0, 0), None), [], [Placement(Square(1, 0))])
    assert "a unit with MV X cannot move" in check.problems


def test_infantry_crosses_friends_but_not_enemies_or_vehicles() -> None:
    # [L281-L285]
    board = grid(5, 1)
    me = unit("me", 0, 0)
    friend = unit("friend", 1, 0)
    foe = unit("foe", 1, 0, side="B")
    rhino = unit("rhino", 1, 0, LIGHT)
    assert squares(reachable(board, Mover(me, 3), [me, friend])) == {(0, 0), (2, 0), (3, 0)}
    assert squares(reachable(board, Mover(me, 3), [me, foe])) == {(0, 0)}
    assert squares(reachable(board, Mover(me, 3), [me, rhino])) == {(0, 0)}


def test_a_vehicle_crosses_infantry_and_pushes_what_it_stops_on() -> None:
    # [L353-L366]
    board = grid(4, 1)
    truck = unit("truck", 0, 0, LIGHT)
    foe = unit("foe", 1, 0, side="B")
    reach = reachable(board, Mover(truck, 3), [truck, foe])
    assert squares(reach) == {(0, 0), (1, 0), (2, 0), (3, 0)}
    assert reach[Placement(Square(1, 0))].pushes == ("foe",)


def test_zone_of_control_square_to_square() -> None:
    # [L409-L411]: in and out freely, never from one square of the ZoC to another
    board = grid(5, 5)
    foe = unit("foe", 2, 2, side="B")
    me = unit("me", 1, 0)
    path = [Placement(Square(1, 1)), Placement(Square(2, 1))]
    check = check_path(board, Mover(me, 4), [me, foe], path)
    assert not check.ok
    assert "zone of control" in check.problems[0]
    assert check_path(board, Mover(me, 4), [me, foe], [Placement(Square(1, 1))]).ok
    # a Suppressed unit's ZoC is ignored by enemy infantry [L426-L431]
    quiet = unit("foe", 2, 2, side="B", suppressed=1)
    assert check_path(board, Mover(me, 4), [me, quiet], path).ok
    # vehicles ignore ZoC [L419-L424]
    bike = BoardUnit("bike", "A", LIGHT, Placement(Square(1, 0)))
    assert check_path(board, Mover(bike, 4), [bike, foe], path).ok


def test_zone_of_control_skips_impassable_and_unseen_squares() -> None:
    # [L401-L405]
    pit = TerrainElement("pit", frozenset({Square(1, 1)}), impassable=True)
    wall = EdgeElement(
        "wall",
        EdgeKind.WALL,
        frozenset({Edge.between(Square(2, 2), Square(3, 2))}),
        blocks_los=True,
    )
    board = grid(5, 5, pit, edges=(wall,))
    zone = zone_of_control(board, unit("foe", 2, 2, side="B"))
    assert Square(1, 1) not in zone
    assert Square(3, 2) not in zone
    # the wall reaches intercases (3, 2) and (3, 3): the diagonals across them are unseen too
    assert zone == {Square(2, 1), Square(1, 2), Square(1, 3), Square(2, 3)}


def test_the_assault_target_square_may_be_entered_from_its_zoc() -> None:
    # [L413-L415], [L1528-L1530]
    board = grid(5, 5)
    foe = unit("foe", 2, 2, side="B")
    me = unit("me", 1, 0)
    path = [Placement(Square(1, 1)), Placement(Square(2, 2))]
    assert not check_path(board, Mover(me, 4), [me, foe], path).ok
    check = check_path(board, Mover(me, 4, assault_target="foe"), [me, foe], path)
    assert check.ok
    assert check.reach is not None
    assert check.reach.assault
    reach = reachable(board, Mover(me, 4, assault_target="foe"), [me, foe])
    assert reach[Placement(Square(2, 2))].assault


def test_difficult_ground_stops_the_move() -> None:
    # [L881-L887]: stop on entering; inside, one square at a time
    mud = TerrainElement("mud", frozenset({Square(2, 0), Square(3, 0)}), difficult=True)
    board = grid(6, 1, mud)
    me = unit("me", 0, 0)
    assert squares(reachable(board, Mover(me, 5), [me])) == {(0, 0), (1, 0), (2, 0)}
    inside = unit("me", 2, 0)
    assert squares(reachable(board, Mover(inside, 5), [inside])) == {(1, 0), (2, 0), (3, 0)}
    # Scout ignores it [L1944-L1965]
    assert len(reachable(board, Mover(me, 5, ignore_difficult=True), [me])) == 6


def test_forbidden_impassable_and_walls() -> None:
    # [L828-L845], [L909-L913], [L937-L938]
    rocks = TerrainElement(
        "rocks", frozenset({Square(1, 0)}), forbidden_to=frozenset({HEAVY, LIGHT})
    )
    wall = EdgeElement(
        "wall",
        EdgeKind.WALL,
        frozenset({Edge.between(Square(0, 1), Square(1, 1))}),
        reduces_los=1,
        impassable=True,
    )
    board = grid(3, 3, rocks, edges=(wall,))
    me, tank = unit("me", 0, 0), unit("tank", 0, 0, HEAVY)
    assert (1, 0) in squares(reachable(board, Mover(me, 1), [me]))
    assert (1, 0) not in squares(reachable(board, Mover(tank, 1), [tank]))
    # the wall reaches intercase (1, 1): no diagonal from (0, 0) to (1, 1)
    check = check_path(board, Mover(me, 3), [me], [Placement(Square(1, 1))])
    assert "no diagonal move" in check.problems[0]
    blocked = check_path(
        board, Mover(me, 3), [me], [Placement(Square(0, 1)), Placement(Square(1, 1))]
    )
    assert "no move across the edge" in blocked.problems[0]
    # an intercase member of Difficult Ground stops a diagonal through it [L923-L924]
    bog = TerrainElement(
        "bog", frozenset({Square(2, 2)}), intercases=frozenset({Intercase(1, 1)}), difficult=True
    )
    board = grid(3, 3, bog)
    assert squares(reachable(board, Mover(me, 3), [me])) >= {(1, 1)}
    assert not check_path(
        board, Mover(me, 3), [me], [Placement(Square(1, 1)), Placement(Square(1, 2))]
    ).ok


def test_two_square_vehicle_moves_along_its_facing_and_pivots() -> None:
    # [L286-L296], [L331-L351]: forward from the front edge, back from the rear, 1 per 45°
    tank = BoardUnit("tank", "A", HEAVY, Placement(Square(2, 2), Facing.E, Footprint.TWO))
    board = grid(6, 5)
    reach = reachable(board, Mover(tank, 2), [tank])
    assert reach[Placement(Square(4, 2), Facing.E, Footprint.TWO)].cost == 2
    assert reach[Placement(Square(1, 2), Facing.E, Footprint.TWO)].cost == 1  # backwards
    assert reach[Placement(Square(2, 2), Facing.NE, Footprint.TWO)].cost == 1  # on its front
    assert reach[Placement(Square(2, 1), Facing.NE, Footprint.TWO)].cost == 1  # on its rear
    assert reach[Placement(Square(3, 1), Facing.NE, Footprint.TWO)].cost == 2  # then forward
    # no sideways step: a shift to the side takes two pivots (rear, then front)
    assert reach[Placement(Square(2, 3), Facing.E, Footprint.TWO)].cost == 2
    assert Placement(Square(2, 3), Facing.E, Footprint.TWO) not in reachable(
        board, Mover(tank, 1), [tank]
    )
    diag = Placement(Square(3, 1), Facing.NE, Footprint.TWO)
    assert diag.squares == {Square(3, 1), Square(2, 2)}


def test_two_square_vehicle_may_go_diagonally_between_forbidden_squares() -> None:
    # [L290-L292]: even if both flanking squares are forbidden
    walls = TerrainElement(
        "rocks", frozenset({Square(2, 1), Square(1, 2)}), forbidden_to=frozenset({HEAVY})
    )
    tank = BoardUnit("tank", "A", HEAVY, Placement(Square(1, 1), Facing.SE, Footprint.TWO))
    reach = reachable(grid(4, 4, walls), Mover(tank, 1), [tank])
    assert Placement(Square(2, 2), Facing.SE, Footprint.TWO) in reach


def test_four_square_vehicle_never_goes_diagonally_and_pivots_by_quarter_turns() -> None:
    # [L331-L333]
    big = BoardUnit("big", "A", HEAVY, Placement(Square(1, 1), Facing.N, Footprint.FOUR))
    reach = reachable(grid(5, 5), Mover(big, 2), [big])
    assert reach[Placement(Square(1, 1), Facing.E, Footprint.FOUR)].cost == 1
    assert reach[Placement(Square(1, 1), Facing.S, Footprint.FOUR)].cost == 2
    assert reach[Placement(Square(1, 0), Facing.N, Footprint.FOUR)].cost == 1
    assert Placement(Square(2, 0), Facing.N, Footprint.FOUR) not in reach
    # every square of the footprint must be allowed
    rocks = TerrainElement("rocks", frozenset({Square(3, 2)}), forbidden_to=frozenset({HEAVY}))
    reach = reachable(grid(5, 5, rocks), Mover(big, 2), [big])
    assert Placement(Square(2, 1), Facing.E, Footprint.FOUR) not in reach


def test_embarked_units_leave_from_an_adjacent_square() -> None:
    # [L2026-L2028]: disembark from an adjacent square, the first square of the move
    rhino = BoardUnit("rhino", "A", LIGHT, Placement(Square(2, 2)))
    squad = BoardUnit("squad", "A", INF, Placement(Square(2, 2)), embarked_in="rhino")
    reach = reachable(grid(7, 7), Mover(squad, 2), [rhino, squad])
    assert reach[Placement(Square(1, 1))].cost == 1
    assert reach[Placement(Square(0, 0))].cost == 2
    assert Placement(Square(2, 2)) not in reach
    assert can_embark(rhino, Square(3, 3))
    assert not can_embark(rhino, Square(4, 4))


def test_transport_capacity() -> None:
    # [L2020-L2025]: reduced faces and Characters count 1, others 2; Large needs red
    whole, reduced, hero = Passenger(), Passenger(reduced=True), Passenger(character=True)
    assert transport_has_room(4, False, [whole], whole)
    assert not transport_has_room(4, False, [whole, reduced], whole)
    assert transport_has_room(4, False, [whole, reduced], hero)
    assert not transport_has_room(8, False, [], Passenger(large=True))
    assert transport_has_room(8, True, [], Passenger(large=True))


def test_check_path_reports_every_problem() -> None:
    board = grid(3, 1)
    me = unit("me", 0, 0)
    friend = unit("friend", 2, 0)
    path = [Placement(Square(1, 0)), Placement(Square(2, 0))]
    check = check_path(board, Mover(me, 1), [me, friend], path)
    assert check.problems == (
        "the path costs 2, the unit may move 1",
        "end: friend already stands on (2, 0)",
    )
