"""The battlefield of *Heroes of Black Reach*: squares, intercases, edges, terrain elements and
boards assembled with an offset and a rotation (note §2.4 and §9.3; seed [L767-L913]).

Coordinates: square ``(x, y)`` covers ``[x, x+1] × [y, y+1]``; x grows to the right, y
downwards. Intercase ``(x, y)`` is the corner point shared by squares ``(x-1, y-1)``,
``(x, y-1)``, ``(x-1, y)`` and ``(x, y)`` [L789-L790]. An :class:`Edge` is the side shared by two
orthogonally adjacent squares.

A :class:`TerrainElement` is a set of squares (and possibly intercases) with effect symbols: a
defence bonus for the shield colours it shows [L806-L813], LoS obstacle (blocking ``X`` or
reducing ``-N`` [L847-L864]), Difficult Ground [L881-L887], impassable [L828-L833], forbidden to
some classes [L835-L845], barricade [L800-L804], structure with Destruction points [L894-L905].
An :class:`EdgeElement` lies on edges only: a wall (reducing or blocking [L866-L879]), an
elevation line [L815-L825] or a barricade.

Printed boards are not in the seed: the sample boards in ``data/black_reach/boards.json`` are
our own. :func:`board_from_dict` reads one, :func:`assemble` places boards and terrain tiles.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

from app.engine.errors import ProfileError

__all__ = [
    "DATA_DIR",
    "Board",
    "DefenceColour",
    "Edge",
    "EdgeElement",
    "EdgeKind",
    "Intercase",
    "Placed",
    "Square",
    "TerrainElement",
    "UnitClass",
    "assemble",
    "board_from_dict",
    "chebyshev",
    "load_sample_boards",
]

DATA_DIR = Path(__file__).resolve().parents[3] / "data" / "black_reach"
MAX_BOARD_SIDE = 60  # bounds every board read from data (squares per side)


class DefenceColour(StrEnum):
    """The colour of a defence shield, hence of the CV used against the unit [L445-L465]."""

    YELLOW = "yellow"  # infantry
    VIOLET = "violet"  # light vehicles
    GREY = "grey"  # heavy vehicles


class UnitClass(StrEnum):
    INFANTRY = "infantry"
    LIGHT_VEHICLE = "light_vehicle"
    HEAVY_VEHICLE = "heavy_vehicle"

    @property
    def colour(self) -> DefenceColour:
        return _CLASS_COLOUR[self]

    @property
    def is_vehicle(self) -> bool:
        return self is not UnitClass.INFANTRY


_CLASS_COLOUR = {
    UnitClass.INFANTRY: DefenceColour.YELLOW,
    UnitClass.LIGHT_VEHICLE: DefenceColour.VIOLET,
    UnitClass.HEAVY_VEHICLE: DefenceColour.GREY,
}


class Square(NamedTuple):
    x: int
    y: int

    def neighbours(self) -> tuple[Square, ...]:
        """The 8 adjacent squares (diagonals included) [L265, L401]."""
        return tuple(
            Square(self.x + dx, self.y + dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dx or dy
        )

    def corners(self) -> tuple[Intercase, ...]:
        x, y = self.x, self.y
        return (Intercase(x, y), Intercase(x + 1, y), Intercase(x, y + 1), Intercase(x + 1, y + 1))


class Intercase(NamedTuple):
    x: int
    y: int


def chebyshev(a: Square, b: Square) -> int:
    """Squares counted with diagonals on the shortest path, the start square not counted
    [L538-L540] (note §8 item 21)."""
    return max(abs(a.x - b.x), abs(a.y - b.y))


@dataclass(frozen=True, order=True)
class Edge:
    """The side shared by two orthogonally adjacent squares (``a`` < ``b``)."""

    a: Square
    b: Square

    @staticmethod
    def between(p: Square, q: Square) -> Edge:
        if abs(p.x - q.x) + abs(p.y - q.y) != 1:
            raise ValueError(f"{p} and {q} share no edge")
        return Edge(min(p, q), max(p, q))

    @property
    def ends(self) -> tuple[Intercase, Intercase]:
        """The two intercases at the ends of the edge."""
        a, b = self.a, self.b
        if a.x != b.x:  # a vertical edge at x = b.x
            return Intercase(b.x, a.y), Intercase(b.x, a.y + 1)
        return Intercase(a.x, b.y), Intercase(a.x + 1, b.y)


class EdgeKind(StrEnum):
    WALL = "wall"
    ELEVATION_LINE = "elevation_line"
    BARRICADE = "barricade"


@dataclass(frozen=True)
class TerrainElement:
    """A terrain element over squares and intercases; effects apply to every square and every
    member intercase [L786-L790]."""

    id: str
    squares: frozenset[Square]
    intercases: frozenset[Intercase] = frozenset()
    defence_bonus: int = 0
    defence_colours: frozenset[DefenceColour] = frozenset()
    blocks_los: bool = False
    reduces_los: int = 0  # N of a "-N" obstacle, per square crossed [L855-L864]
    difficult: bool = False
    impassable: bool = False
    forbidden_to: frozenset[UnitClass] = frozenset()
    barricade: int = 0
    structure: int | None = None  # Destruction points to destroy it [L894-L905]

    def bonus_for(self, unit_class: UnitClass) -> int:
        """Its defence bonus for a unit of that class (the colour must match) [L806-L813]."""
        return self.defence_bonus if unit_class.colour in self.defence_colours else 0

    def forbids(self, unit_class: UnitClass) -> bool:
        return self.impassable or unit_class in self.forbidden_to


@dataclass(frozen=True)
class EdgeElement:
    """A terrain element lying on edges between squares: wall, elevation line, barricade."""

    id: str
    kind: EdgeKind
    edges: frozenset[Edge]
    blocks_los: bool = False
    reduces_los: int = 0
    barricade: int = 0
    impassable: bool = False  # no move across it (a sample-board choice; see rulings)

    @cached_property
    def intercases(self) -> frozenset[Intercase]:
        """The intercases the element reaches (the ends of its edges) [L937-L938]."""
        return frozenset(end for edge in self.edges for end in edge.ends)

    def touches(self, square: Square) -> bool:
        """``square`` is directly adjacent to the element (one of its edges is a side of it)."""
        return any(square in (e.a, e.b) for e in self.edges)


@dataclass(frozen=True)
class Board:
    """An assembled battlefield: its squares and terrain."""

    name: str
    squares: frozenset[Square]
    elements: tuple[TerrainElement, ...] = ()
    edge_elements: tuple[EdgeElement, ...] = ()
    sample: bool = False  # our own sample content, not a printed board

    @cached_property
    def _by_square(self) -> Mapping[Square, tuple[TerrainElement, ...]]:
        index: dict[Square, list[TerrainElement]] = {}
        for element in self.elements:
            for sq in element.squares:
                index.setdefault(sq, []).append(element)
        return {k: tuple(v) for k, v in index.items()}

    @cached_property
    def _by_intercase(self) -> Mapping[Intercase, tuple[TerrainElement, ...]]:
        index: dict[Intercase, list[TerrainElement]] = {}
        for element in self.elements:
            for ic in element.intercases:
                index.setdefault(ic, []).append(element)
        return {k: tuple(v) for k, v in index.items()}

    @cached_property
    def _by_edge(self) -> Mapping[Edge, tuple[EdgeElement, ...]]:
        index: dict[Edge, list[EdgeElement]] = {}
        for element in self.edge_elements:
            for edge in element.edges:
                index.setdefault(edge, []).append(element)
        return {k: tuple(v) for k, v in index.items()}

    @cached_property
    def _walls_at_intercase(self) -> Mapping[Intercase, tuple[EdgeElement, ...]]:
        index: dict[Intercase, list[EdgeElement]] = {}
        for element in self.edge_elements:
            if element.kind is EdgeKind.ELEVATION_LINE:
                continue
            for ic in element.intercases:
                index.setdefault(ic, []).append(element)
        return {k: tuple(v) for k, v in index.items()}

    def on_board(self, square: Square) -> bool:
        return square in self.squares

    def elements_at(self, square: Square) -> tuple[TerrainElement, ...]:
        return self._by_square.get(square, ())

    def elements_at_intercase(self, intercase: Intercase) -> tuple[TerrainElement, ...]:
        return self._by_intercase.get(intercase, ())

    def edge_elements_at(self, edge: Edge) -> tuple[EdgeElement, ...]:
        return self._by_edge.get(edge, ())

    def walls_reaching(self, intercase: Intercase) -> tuple[EdgeElement, ...]:
        """Walls and barricades (not elevation lines) that reach ``intercase``."""
        return self._walls_at_intercase.get(intercase, ())

    def element(self, element_id: str) -> TerrainElement | EdgeElement:
        for e in self.elements:
            if e.id == element_id:
                return e
        for ee in self.edge_elements:
            if ee.id == element_id:
                return ee
        raise KeyError(element_id)

    def defence_bonus(self, footprint: Iterable[Square], unit_class: UnitClass) -> int:
        """The terrain defence bonus of a unit on ``footprint``: from the elements that hold
        every square of it (a unit must be completely inside [L790-L792], note §8 item 48), of
        its shield colour; several such elements: the best one (rulings)."""
        squares = frozenset(footprint)
        best = 0
        for element in self.elements:
            if squares <= element.squares:
                best = max(best, element.bonus_for(unit_class))
        return best


# -- assembly ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    """A board or terrain tile placed on the battlefield: rotated clockwise by ``rotation``
    degrees (a multiple of 90) about its own origin, then moved by ``offset``."""

    board: Board
    offset: tuple[int, int] = (0, 0)
    rotation: int = 0
    prefix: str = field(default="")

    def __post_init__(self) -> None:
        if self.rotation % 90:
            raise ValueError("a board turns by quarter turns")

    @property
    def _size(self) -> tuple[int, int]:
        xs = [s.x for s in self.board.squares]
        ys = [s.y for s in self.board.squares]
        return max(xs) + 1, max(ys) + 1

    def _turn_point(self, x: int, y: int) -> tuple[int, int]:
        """A lattice point (intercase coordinates) after the rotation and the offset."""
        w, h = self._size
        for _ in range((self.rotation // 90) % 4):
            x, y = h - y, x
            w, h = h, w
        return x + self.offset[0], y + self.offset[1]

    def square(self, sq: Square) -> Square:
        # a square is named by its top-left corner; after turning, take the new top-left one
        xs, ys = zip(*(self._turn_point(c.x, c.y) for c in sq.corners()), strict=True)
        return Square(min(xs), min(ys))

    def intercase(self, ic: Intercase) -> Intercase:
        return Intercase(*self._turn_point(ic.x, ic.y))

    def edge(self, e: Edge) -> Edge:
        return Edge.between(self.square(e.a), self.square(e.b))

    def placed_squares(self) -> frozenset[Square]:
        return frozenset(self.square(s) for s in self.board.squares)

    def placed_elements(self) -> tuple[TerrainElement, ...]:
        return tuple(
            TerrainElement(
                id=self.prefix + e.id,
                squares=frozenset(self.square(s) for s in e.squares),
                intercases=frozenset(self.intercase(i) for i in e.intercases),
                defence_bonus=e.defence_bonus,
                defence_colours=e.defence_colours,
                blocks_los=e.blocks_los,
                reduces_los=e.reduces_los,
                difficult=e.difficult,
                impassable=e.impassable,
                forbidden_to=e.forbidden_to,
                barricade=e.barricade,
                structure=e.structure,
            )
            for e in self.board.elements
        )

    def placed_edge_elements(self) -> tuple[EdgeElement, ...]:
        return tuple(
            EdgeElement(
                id=self.prefix + e.id,
                kind=e.kind,
                edges=frozenset(self.edge(x) for x in e.edges),
                blocks_los=e.blocks_los,
                reduces_los=e.reduces_los,
                barricade=e.barricade,
                impassable=e.impassable,
            )
            for e in self.board.edge_elements
        )


def assemble(name: str, boards: Sequence[Placed], tiles: Sequence[Placed] = ()) -> Board:
    """The battlefield made of ``boards`` and the terrain ``tiles`` laid over them [L767-L784].

    A tile replaces what lies under it (rulings): the elements of the boards lose the squares
    and intercases the tile covers (an element left with nothing is dropped), edge elements
    lose the edges inside the tile, then the tile's own elements are added. Two boards may not
    overlap; a tile must lie on the boards.
    """
    squares: set[Square] = set()
    elements: list[TerrainElement] = []
    edge_elements: list[EdgeElement] = []
    for placed in boards:
        mine = placed.placed_squares()
        if mine & squares:
            raise ValueError(f"board {placed.board.name!r} overlaps another board")
        squares |= mine
        elements.extend(placed.placed_elements())
        edge_elements.extend(placed.placed_edge_elements())
    for tile in tiles:
        covered = tile.placed_squares()
        if not covered <= squares:
            raise ValueError(f"tile {tile.board.name!r} does not lie on the boards")
        inner = {c for sq in covered for c in sq.corners()}
        kept: list[TerrainElement] = []
        for e in elements:
            rest = e.squares - covered
            if rest:
                kept.append(
                    _replace_squares(e, rest, frozenset(i for i in e.intercases if i not in inner))
                )
        elements = [*kept, *tile.placed_elements()]
        kept_edges: list[EdgeElement] = []
        for ee in edge_elements:
            left = frozenset(x for x in ee.edges if not (x.a in covered and x.b in covered))
            if left:
                kept_edges.append(
                    EdgeElement(
                        id=ee.id,
                        kind=ee.kind,
                        edges=left,
                        blocks_los=ee.blocks_los,
                        reduces_los=ee.reduces_los,
                        barricade=ee.barricade,
                        impassable=ee.impassable,
                    )
                )
        edge_elements = [*kept_edges, *tile.placed_edge_elements()]
    ids = [e.id for e in elements] + [ee.id for ee in edge_elements]
    if len(ids) != len(set(ids)):
        raise ValueError("two terrain elements share an id: give the pieces prefixes")
    return Board(
        name=name,
        squares=frozenset(squares),
        elements=tuple(elements),
        edge_elements=tuple(edge_elements),
        sample=any(p.board.sample for p in (*boards, *tiles)),
    )


def _replace_squares(
    e: TerrainElement, squares: frozenset[Square], intercases: frozenset[Intercase]
) -> TerrainElement:
    return TerrainElement(
        id=e.id,
        squares=squares,
        intercases=intercases,
        defence_bonus=e.defence_bonus,
        defence_colours=e.defence_colours,
        blocks_los=e.blocks_los,
        reduces_los=e.reduces_los,
        difficult=e.difficult,
        impassable=e.impassable,
        forbidden_to=e.forbidden_to,
        barricade=e.barricade,
        structure=e.structure,
    )


# -- data -------------------------------------------------------------------------------------

_ELEMENT_FIELDS = frozenset(
    {
        "id",
        "squares",
        "intercases",
        "defence_bonus",
        "defence_colours",
        "blocks_los",
        "reduces_los",
        "difficult",
        "impassable",
        "forbidden_to",
        "barricade",
        "structure",
    }
)
_EDGE_FIELDS = frozenset(
    {"id", "kind", "edges", "blocks_los", "reduces_los", "barricade", "impassable"}
)
_BOARD_FIELDS = frozenset({"name", "width", "height", "elements", "edges", "sample", "note"})


def _pairs(raw: Any, where: str) -> list[tuple[int, int]]:
    if not isinstance(raw, list) or len(raw) > MAX_BOARD_SIDE**2:
        raise ProfileError(where, "a list of [x, y] pairs")
    out: list[tuple[int, int]] = []
    for i, item in enumerate(raw):
        ok = (
            isinstance(item, list)
            and len(item) == 2
            and all(isinstance(v, int) and not isinstance(v, bool) for v in item)
        )
        if not ok:
            raise ProfileError(f"{where}[{i}]", "an [x, y] pair of integers")
        out.append((item[0], item[1]))
    return out


def _int(raw: Mapping[str, Any], name: str, where: str, lo: int, hi: int, default: int) -> int:
    value = raw.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise ProfileError(f"{where}.{name}", f"an integer from {lo} to {hi}")
    return value


def _bool(raw: Mapping[str, Any], name: str, where: str) -> bool:
    value = raw.get(name, False)
    if not isinstance(value, bool):
        raise ProfileError(f"{where}.{name}", "true or false")
    return value


def _unknown(raw: Mapping[str, Any], allowed: frozenset[str], where: str) -> None:
    extra = sorted(set(raw) - allowed)
    if extra:
        raise ProfileError(f"{where}.{extra[0]}", "unknown field")


def _element(raw: Any, where: str, squares: frozenset[Square]) -> TerrainElement:
    if not isinstance(raw, dict):
        raise ProfileError(where, "an object")
    _unknown(raw, _ELEMENT_FIELDS, where)
    ident = raw.get("id")
    if not isinstance(ident, str) or not ident:
        raise ProfileError(f"{where}.id", "a name")
    cells = frozenset(Square(x, y) for x, y in _pairs(raw.get("squares", []), f"{where}.squares"))
    if not cells or not cells <= squares:
        raise ProfileError(f"{where}.squares", "at least one square, all on the board")
    try:
        colours = frozenset(DefenceColour(c) for c in raw.get("defence_colours", []))
        forbidden = frozenset(UnitClass(c) for c in raw.get("forbidden_to", []))
    except (TypeError, ValueError) as exc:
        raise ProfileError(where, "unknown colour or unit class") from exc
    structure = raw.get("structure")
    if structure is not None:
        structure = _int(raw, "structure", where, 1, 20, 1)
    return TerrainElement(
        id=ident,
        squares=cells,
        intercases=frozenset(
            Intercase(x, y) for x, y in _pairs(raw.get("intercases", []), f"{where}.intercases")
        ),
        defence_bonus=_int(raw, "defence_bonus", where, 0, 10, 0),
        defence_colours=colours,
        blocks_los=_bool(raw, "blocks_los", where),
        reduces_los=_int(raw, "reduces_los", where, 0, 10, 0),
        difficult=_bool(raw, "difficult", where),
        impassable=_bool(raw, "impassable", where),
        forbidden_to=forbidden,
        barricade=_int(raw, "barricade", where, 0, 10, 0),
        structure=structure,
    )


def _edge_element(raw: Any, where: str, squares: frozenset[Square]) -> EdgeElement:
    if not isinstance(raw, dict):
        raise ProfileError(where, "an object")
    _unknown(raw, _EDGE_FIELDS, where)
    ident = raw.get("id")
    if not isinstance(ident, str) or not ident:
        raise ProfileError(f"{where}.id", "a name")
    try:
        kind = EdgeKind(str(raw.get("kind")))
    except ValueError as exc:
        raise ProfileError(f"{where}.kind", "wall, elevation_line or barricade") from exc
    edges: set[Edge] = set()
    items = raw.get("edges", [])
    if not isinstance(items, list) or not items:
        raise ProfileError(f"{where}.edges", "a list of [[x, y], [x, y]] square pairs")
    for i, pair in enumerate(items):
        cells = _pairs(pair, f"{where}.edges[{i}]")
        try:
            p, q = (Square(x, y) for x, y in cells)
            edge = Edge.between(p, q)
        except ValueError as exc:
            raise ProfileError(f"{where}.edges[{i}]", "two orthogonally adjacent squares") from exc
        if edge.a not in squares or edge.b not in squares:
            raise ProfileError(f"{where}.edges[{i}]", "both squares on the board")
        edges.add(edge)
    return EdgeElement(
        id=ident,
        kind=kind,
        edges=frozenset(edges),
        blocks_los=_bool(raw, "blocks_los", where),
        reduces_los=_int(raw, "reduces_los", where, 0, 10, 0),
        barricade=_int(raw, "barricade", where, 0, 10, 0),
        impassable=_bool(raw, "impassable", where),
    )


def board_from_dict(raw: Mapping[str, Any]) -> Board:
    """A board (or terrain tile) from plain JSON-like values; a bad field raises
    :class:`ProfileError` naming it."""
    _unknown(raw, _BOARD_FIELDS, "board")
    name = raw.get("name")
    if not isinstance(name, str) or not name:
        raise ProfileError("board.name", "a name")
    width = _int(raw, "width", "board", 1, MAX_BOARD_SIDE, 0)
    height = _int(raw, "height", "board", 1, MAX_BOARD_SIDE, 0)
    squares = frozenset(Square(x, y) for x in range(width) for y in range(height))
    elements = raw.get("elements", [])
    edges = raw.get("edges", [])
    if not isinstance(elements, list) or not isinstance(edges, list):
        raise ProfileError("board", "elements and edges are lists")
    return Board(
        name=name,
        squares=squares,
        elements=tuple(
            _element(e, f"board.elements[{i}]", squares) for i, e in enumerate(elements)
        ),
        edge_elements=tuple(
            _edge_element(e, f"board.edges[{i}]", squares) for i, e in enumerate(edges)
        ),
        sample=_bool(raw, "sample", "board"),
    )


def load_sample_boards(path: Path | None = None) -> dict[str, Board]:
    """Our own sample boards and tiles (``data/black_reach/boards.json``), by name."""
    raw = json.loads((path or DATA_DIR / "boards.json").read_text(encoding="utf-8"))
    boards = [board_from_dict(b) for b in raw["boards"]]
    return {b.name: b for b in boards}
