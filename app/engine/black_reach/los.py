"""Line of sight, range and fire arcs on the board (note §3.6, §9.3; seed [L467-L558]).

The line runs from the centre of the shooter's square to the centre of the target's square
[L471-L475]; a vehicle of two or more squares may use either centre or any point between them,
as shooter or as target [L522-L529]: :func:`best_line_of_sight` tries both centres and the
midpoint and keeps the best. Geometry is exact: points are counted in half squares, so every
centre and midpoint has integer coordinates.

What the line meets (rulings in docs/rulings/black-reach.md):

- a square is *crossed* when the line runs through its inside for a positive length; the
  shooter's and the target's squares never count [L515-L517];
- a line through an intercase exactly meets that intercase (its terrain membership applies),
  not the squares around it (note §8 item 17);
- cell obstacles: ``X`` blocks, ``-N`` takes N off the final result per square crossed,
  cumulative [L503-L517]; an intercase that belongs to an obstacle counts like one square;
- walls on edges: blocking walls block; reducing walls take N off unless the shooter or the
  target is directly adjacent to the wall [L866-L879]; a line through an intercase a wall
  reaches is blocked [L937-L938];
- elevation lines: the line reaches only one square beyond; a unit directly adjacent to the
  line ignores it [L815-L825]; so a crossed elevation line blocks unless the shooter or the
  target touches it;
- units: infantry blocks only when the shooter and the target are both infantry, every
  vehicle blocks [L487-L492]; ambushed units never block [L1790]; infantry does not block an
  embarked shooter [L2049-L2050].

Line of sight is symmetric [L519-L520]: :func:`line_of_sight` gives the same answer both ways.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import Enum, StrEnum
from fractions import Fraction

from app.engine.black_reach.board import (
    Board,
    Edge,
    EdgeKind,
    Intercase,
    Square,
    UnitClass,
    chebyshev,
)

__all__ = [
    "LONG_RANGE",
    "Arc",
    "Blocker",
    "Facing",
    "LineOfSight",
    "Sight",
    "best_line_of_sight",
    "crossings",
    "distance",
    "in_arc",
    "is_long_range",
    "line_of_sight",
    "sight_to_intercase",
]

LONG_RANGE = 7  # beyond 7 squares: long range, -2 on the final result [L533-L536]

Point = tuple[int, int]  # in half squares


class Sight(StrEnum):
    CLEAR = "clear"
    REDUCED = "reduced"
    BLOCKED = "blocked"


@dataclass(frozen=True)
class LineOfSight:
    sight: Sight
    penalty: int = 0  # taken off the final result (reducing obstacles)
    why: str = ""  # what blocked it, for a screen

    @property
    def can_shoot(self) -> bool:
        return self.sight is not Sight.BLOCKED


BLOCKED = Sight.BLOCKED


@dataclass(frozen=True)
class Blocker:
    """A unit standing between the shooter and the target."""

    squares: frozenset[Square]
    unit_class: UnitClass
    ambushed: bool = False


class Facing(Enum):
    """Eight directions, 45° apart (y grows downwards)."""

    N = (0, -1)
    NE = (1, -1)
    E = (1, 0)
    SE = (1, 1)
    S = (0, 1)
    SW = (-1, 1)
    W = (-1, 0)
    NW = (-1, -1)

    @property
    def dx(self) -> int:
        return self.value[0]

    @property
    def dy(self) -> int:
        return self.value[1]

    @property
    def diagonal(self) -> bool:
        return self.dx != 0 and self.dy != 0

    def turned(self, eighths: int) -> Facing:
        """Turned clockwise by ``eighths`` × 45°."""
        order = list(Facing)
        return order[(order.index(self) + eighths) % 8]


class Arc(StrEnum):
    """Fire arcs [L548-L558, L1159-L1168]; the diagram is not in the seed (note §8 item 23)."""

    NARROW = "90"
    HALF = "180"
    FULL = "360"


def centre(square: Square) -> Point:
    return 2 * square.x + 1, 2 * square.y + 1


def distance(a: Iterable[Square], b: Iterable[Square]) -> int:
    """Range between two footprints: the shortest square count [L538-L545]."""
    bs = list(b)
    return min(chebyshev(p, q) for p in a for q in bs)


def is_long_range(a: Iterable[Square], b: Iterable[Square]) -> bool:
    return distance(a, b) > LONG_RANGE


def in_arc(shooter: Square, facing: Facing, target: Square, arc: Arc) -> bool:
    """Is ``target``'s centre inside the arc of a unit on ``shooter`` facing ``facing``?
    90°: within 45° of the facing, edges included; 180°: the front half-plane, its edge
    included (note §8 item 23)."""
    if arc is Arc.FULL or shooter == target:
        return True
    vx, vy = target.x - shooter.x, target.y - shooter.y
    dot = vx * facing.dx + vy * facing.dy
    if arc is Arc.HALF:
        return dot >= 0
    # cos(angle) >= cos 45°  <=>  dot > 0 and 2 dot² >= |v|² |f|²
    return dot > 0 and 2 * dot * dot >= (vx * vx + vy * vy) * (facing.dx**2 + facing.dy**2)


@dataclass(frozen=True)
class Crossings:
    squares: frozenset[Square]
    intercases: frozenset[Intercase]
    edges: frozenset[Edge]


def crossings(p: Point, q: Point) -> Crossings:
    """The squares, intercases and edges the open segment ``p``→``q`` (half squares) meets."""
    (px, py), (qx, qy) = p, q
    dx, dy = qx - px, qy - py
    squares: set[Square] = set()
    lo_x, hi_x = min(px, qx) // 2, max(px, qx) // 2
    lo_y, hi_y = min(py, qy) // 2, max(py, qy) // 2
    for sx in range(lo_x - 1, hi_x + 2):
        for sy in range(lo_y - 1, hi_y + 2):
            if _crosses_square(p, dx, dy, sx, sy):
                squares.add(Square(sx, sy))
    intercases: set[Intercase] = set()
    edges: set[Edge] = set()
    if dx:
        for gx in range(min(px, qx), max(px, qx) + 1):
            if gx % 2:
                continue
            t = Fraction(gx - px, dx)
            if not 0 < t < 1:
                continue
            y = py + t * dy
            if y.denominator == 1 and y.numerator % 2 == 0:
                intercases.add(Intercase(gx // 2, y.numerator // 2))
            else:
                row = int(y // 2)
                edges.add(Edge(Square(gx // 2 - 1, row), Square(gx // 2, row)))
    if dy:
        for gy in range(min(py, qy), max(py, qy) + 1):
            if gy % 2:
                continue
            t = Fraction(gy - py, dy)
            if not 0 < t < 1:
                continue
            x = px + t * dx
            if x.denominator == 1 and x.numerator % 2 == 0:
                if not dx:  # a line along a grid line (between two midpoints)
                    intercases.add(Intercase(x.numerator // 2, gy // 2))
                continue  # otherwise an intercase found above
            col = int(x // 2)
            edges.add(Edge(Square(col, gy // 2 - 1), Square(col, gy // 2)))
    return Crossings(frozenset(squares), frozenset(intercases), frozenset(edges))


def _crosses_square(p: Point, dx: int, dy: int, sx: int, sy: int) -> bool:
    """Does the segment run through the open square ``(sx, sy)`` for a positive length?"""
    t0, t1 = Fraction(0), Fraction(1)
    for start, delta, low in ((p[0], dx, 2 * sx), (p[1], dy, 2 * sy)):
        if delta == 0:
            if not low < start < low + 2:
                return False
            continue
        a, b = Fraction(low - start, delta), Fraction(low + 2 - start, delta)
        if a > b:
            a, b = b, a
        t0, t1 = max(t0, a), min(t1, b)
    return t0 < t1


def _line(
    board: Board,
    p: Point,
    q: Point,
    shooter: frozenset[Square],
    target: frozenset[Square],
    shooter_class: UnitClass,
    target_class: UnitClass,
    blockers: Iterable[Blocker],
    embarked_shooter: bool,
) -> LineOfSight:
    cross = crossings(p, q)
    ends = shooter | target
    inside = cross.squares - ends
    penalty = 0
    # cell obstacles, once per square crossed (several elements on one square: the worst)
    for sq in sorted(inside):
        elements = board.elements_at(sq)
        if any(e.blocks_los for e in elements):
            return LineOfSight(BLOCKED, why=f"obstacle at {tuple(sq)}")
        penalty += max((e.reduces_los for e in elements), default=0)
    for ic in sorted(cross.intercases):
        elements = board.elements_at_intercase(ic)
        if any(e.blocks_los for e in elements):
            return LineOfSight(BLOCKED, why=f"obstacle at intercase {tuple(ic)}")
        penalty += max((e.reduces_los for e in elements), default=0)
        if board.walls_reaching(ic):
            return LineOfSight(BLOCKED, why=f"wall reaching intercase {tuple(ic)}")
    # edge elements, once per element crossed
    met = {ee for edge in cross.edges for ee in board.edge_elements_at(edge)}
    met |= {
        ee
        for ic in cross.intercases
        for ee in board.edge_elements
        if ee.kind is EdgeKind.ELEVATION_LINE and ic in ee.intercases
    }
    for ee in sorted(met, key=lambda e: e.id):
        adjacent = any(ee.touches(s) for s in ends)
        if ee.kind is EdgeKind.ELEVATION_LINE:
            if not adjacent:
                return LineOfSight(BLOCKED, why=f"elevation line {ee.id}")
            continue
        if ee.blocks_los:
            return LineOfSight(BLOCKED, why=f"wall {ee.id}")
        if not adjacent:
            penalty += ee.reduces_los
    # units in the way
    both_infantry = shooter_class is UnitClass.INFANTRY and target_class is UnitClass.INFANTRY
    for b in blockers:
        if b.ambushed or not (b.squares & inside):
            continue
        if b.unit_class.is_vehicle or (both_infantry and not embarked_shooter):
            return LineOfSight(BLOCKED, why="a unit in the way")
    return LineOfSight(Sight.REDUCED if penalty else Sight.CLEAR, penalty)


def _aim_points(footprint: frozenset[Square]) -> list[Point]:
    """Centres of the footprint's squares and the midpoints of adjacent pairs [L522-L529]."""
    cells = sorted(footprint)
    points = [centre(s) for s in cells]
    for i, a in enumerate(cells):
        for b in cells[i + 1 :]:
            if chebyshev(a, b) == 1:
                (ax, ay), (bx, by) = centre(a), centre(b)
                points.append(((ax + bx) // 2, (ay + by) // 2))
    return points


_RANK = {Sight.CLEAR: 0, Sight.REDUCED: 1, Sight.BLOCKED: 2}


def line_of_sight(
    board: Board,
    shooter: Square,
    target: Square,
    *,
    shooter_class: UnitClass = UnitClass.INFANTRY,
    target_class: UnitClass = UnitClass.INFANTRY,
    blockers: Iterable[Blocker] = (),
    embarked_shooter: bool = False,
) -> LineOfSight:
    """The line of sight between two one-square units (centre to centre)."""
    return _line(
        board,
        centre(shooter),
        centre(target),
        frozenset({shooter}),
        frozenset({target}),
        shooter_class,
        target_class,
        tuple(blockers),
        embarked_shooter,
    )


def best_line_of_sight(
    board: Board,
    shooter: Iterable[Square],
    target: Iterable[Square],
    *,
    shooter_class: UnitClass = UnitClass.INFANTRY,
    target_class: UnitClass = UnitClass.INFANTRY,
    blockers: Iterable[Blocker] = (),
    embarked_shooter: bool = False,
) -> LineOfSight:
    """The best line between two footprints (clear before reduced, then the smallest penalty),
    over the centres and the midpoints of their squares (note §8 item 19)."""
    sh, tg = frozenset(shooter), frozenset(target)
    units = tuple(blockers)
    best: LineOfSight | None = None
    for p in _aim_points(sh):
        for q in _aim_points(tg):
            los = _line(board, p, q, sh, tg, shooter_class, target_class, units, embarked_shooter)
            if best is None or (_RANK[los.sight], los.penalty) < (_RANK[best.sight], best.penalty):
                best = los
    assert best is not None
    return best


def sight_to_intercase(
    board: Board,
    shooter: Iterable[Square],
    intercase: Intercase,
    *,
    blockers: Iterable[Blocker] = (),
    embarked_shooter: bool = False,
) -> LineOfSight:
    """The best line from a unit to an intercase (Tir Direct's target [L1381-L1416]): from
    the centres and midpoints of its squares to that grid point. Only vehicles block it (the
    target is no infantry unit [L487-L492])."""
    sh = frozenset(shooter)
    units = tuple(b for b in blockers if b.unit_class.is_vehicle)
    q = (2 * intercase.x, 2 * intercase.y)
    best: LineOfSight | None = None
    for p in _aim_points(sh):
        los = _line(
            board,
            p,
            q,
            sh,
            frozenset(),
            UnitClass.INFANTRY,
            UnitClass.LIGHT_VEHICLE,
            units,
            embarked_shooter,
        )
        if best is None or (_RANK[los.sight], los.penalty) < (_RANK[best.sight], best.penalty):
            best = los
    assert best is not None
    return best
