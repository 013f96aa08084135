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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

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
    "boards_from_dict",
    "chebyshev",
    "load_sample_boards",
    "terrain_from_dict",
    "with_elements",
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
    # a structure's ruin face (its terrain symbols once destroyed [L894-L905]; rulings 134)
    ruin: TerrainElement | None = None

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
                ruin=e.ruin,
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
        ruin=e.ruin,
    )


def with_ruins(board: Board, ruined: frozenset[str]) -> Board:
    """The board with each destroyed structure of ``ruined`` (element ids) that has a ruin
    face turned over: its squares and intercases keep their place, its terrain symbols are
    the ruin's (rulings 134); one without a ruin face stays as printed. Cached."""
    if not ruined or not any(e.ruin is not None and e.id in ruined for e in board.elements):
        return board
    return _with_ruins(board, ruined)


@lru_cache(maxsize=64)
def _with_ruins(board: Board, ruined: frozenset[str]) -> Board:
    return replace(
        board,
        elements=tuple(
            replace(
                e.ruin, id=e.id, squares=e.squares, intercases=e.intercases, structure=e.structure
            )
            if e.ruin is not None and e.id in ruined
            else e
            for e in board.elements
        ),
    )


# -- reading data -----------------------------------------------------------------------------

MAX_ID = 64
MAX_LIST = 32  # abilities, weapons, slots, bands, tile counters, fielded tiles, objectives
MAX_SQUARES = 3600
MAX_NOTE = 2000  # characters of a free-text ``note``
MAX_BOARDS = 32  # boards and terrain tiles in a boards file
MAX_EDGES = 2 * MAX_BOARD_SIDE**2  # every edge of the largest board

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)


class Reader:
    """Collects every problem of a data file; each getter returns a usable default after
    recording one, so a reader reports them all at once (docs/black-reach-data.md)."""

    def __init__(self) -> None:
        self.problems: list[ProfileError] = []

    def fail(self, where: str, message: str) -> None:
        self.problems.append(ProfileError(where, message))

    def raise_if_any(self) -> None:
        if self.problems:
            raise ProfileError.collect(self.problems)

    def obj(self, raw: Any, where: str, allowed: frozenset[str]) -> Mapping[str, Any]:
        if not isinstance(raw, dict):
            self.fail(where, "an object")
            return {}
        for extra in sorted(set(raw) - allowed):
            self.fail(at(where, str(extra)), "unknown field")
        return raw

    def items(self, raw: Mapping[str, Any], name: str, where: str, most: int) -> list[Any]:
        value = raw.get(name, [])
        if not isinstance(value, list):
            self.fail(at(where, name), "a list")
            return []
        if len(value) > most:
            self.fail(at(where, name), f"at most {most} items")
            return []
        return value

    def text(self, raw: Mapping[str, Any], name: str, where: str, *, most: int = MAX_ID) -> str:
        value = raw.get(name)
        if not isinstance(value, str) or not value.strip() or len(value) > most:
            self.fail(at(where, name), f"a text of 1 to {most} characters")
            return ""
        return value

    def note(self, raw: Mapping[str, Any], where: str) -> str | None:
        """The optional free-text ``note``: a string of at most :data:`MAX_NOTE` characters."""
        value = raw.get("note")
        if value is None:
            return None
        if not isinstance(value, str) or len(value) > MAX_NOTE:
            self.fail(at(where, "note"), f"a text of at most {MAX_NOTE} characters")
            return None
        return value

    def integer(
        self,
        raw: Mapping[str, Any],
        name: str,
        where: str,
        lo: int,
        hi: int,
        default: int | None = None,
    ) -> int:
        value = raw.get(name, default)
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            self.fail(at(where, name), f"an integer from {lo} to {hi}")
            return lo
        return value

    def flag(self, raw: Mapping[str, Any], name: str, where: str) -> bool:
        value = raw.get(name, False)
        if not isinstance(value, bool):
            self.fail(at(where, name), "true or false")
            return False
        return value

    def choice(
        self,
        raw: Mapping[str, Any],
        name: str,
        where: str,
        kind: Callable[[str], T],
        default: T | None = None,
    ) -> T | None:
        value = raw.get(name)
        if value is None and default is not None:
            return default
        if isinstance(value, str):
            try:
                return kind(value)
            except ValueError:
                pass
        members = getattr(kind, "__members__", {})
        options = ", ".join(str(getattr(m, "value", m)) for m in members.values())
        self.fail(at(where, name), f"one of {options}" if options else "a known value")
        return None

    def choices(self, raw: Mapping[str, Any], name: str, where: str, kind: type[E]) -> frozenset[E]:
        """A list of values of the enum ``kind``, each bad one reported at its index."""
        out: set[E] = set()
        for i, item in enumerate(self.items(raw, name, where, MAX_LIST)):
            try:
                out.add(kind(item))
            except (TypeError, ValueError):
                options = ", ".join(m.value for m in kind)
                self.fail(f"{at(where, name)}[{i}]", f"one of {options}")
        return frozenset(out)

    def bands(self, raw: Mapping[str, Any], name: str, where: str) -> frozenset[str]:
        out: set[str] = set()
        for i, band in enumerate(self.items(raw, name, where, MAX_LIST)):
            if not isinstance(band, str) or not band or len(band) > MAX_ID:
                self.fail(f"{at(where, name)}[{i}]", "a band colour name")
            else:
                out.add(band)
        return frozenset(out)

    def ids(self, raw: Mapping[str, Any], name: str, where: str) -> tuple[str, ...]:
        out: list[str] = []
        for i, item in enumerate(self.items(raw, name, where, MAX_LIST)):
            if not isinstance(item, str) or not item or len(item) > MAX_ID:
                self.fail(f"{at(where, name)}[{i}]", "an id")
            else:
                out.append(item)
        return tuple(out)

    def squares(self, raw: Any, where: str) -> frozenset[Square]:
        """Squares as ``[x, y]`` pairs or ``{"from": [x, y], "to": [x, y]}`` rectangles."""
        if not isinstance(raw, list) or len(raw) > MAX_SQUARES:
            self.fail(where, f"a list of at most {MAX_SQUARES} [x, y] pairs or rectangles")
            return frozenset()
        out: set[Square] = set()
        for i, item in enumerate(raw):
            here = f"{where}[{i}]"
            if isinstance(item, dict):
                rect = self.obj(item, here, frozenset({"from", "to"}))
                a, b = (
                    self.pair(rect.get("from"), f"{here}.from"),
                    self.pair(rect.get("to"), f"{here}.to"),
                )
                if a is None or b is None:
                    continue
                xs, ys = sorted((a[0], b[0])), sorted((a[1], b[1]))
                if (xs[1] - xs[0] + 1) * (ys[1] - ys[0] + 1) > MAX_SQUARES:
                    self.fail(here, f"at most {MAX_SQUARES} squares")
                    continue
                out |= {
                    Square(x, y) for x in range(xs[0], xs[1] + 1) for y in range(ys[0], ys[1] + 1)
                }
            else:
                p = self.pair(item, here)
                if p is not None:
                    out.add(Square(*p))
        return frozenset(out)

    def pairs(self, raw: Any, where: str, most: int) -> list[tuple[int, int]]:
        """A list of ``[x, y]`` pairs, each bad one reported at its index."""
        if not isinstance(raw, list) or len(raw) > most:
            self.fail(where, f"a list of at most {most} [x, y] pairs")
            return []
        return [p for i, item in enumerate(raw) if (p := self.pair(item, f"{where}[{i}]"))]

    def pair(self, raw: Any, where: str) -> tuple[int, int] | None:
        ok = (
            isinstance(raw, list)
            and len(raw) == 2
            and all(
                isinstance(v, int) and not isinstance(v, bool) and -999 <= v <= 999 for v in raw
            )
        )
        if not ok:
            self.fail(where, "an [x, y] pair of integers")
            return None
        return raw[0], raw[1]


def at(where: str, name: str) -> str:
    """The path of field ``name`` inside ``where`` (``""`` is the top of the file)."""
    return f"{where}.{name}" if where else name


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
        "ruin",
    }
)
_EDGE_FIELDS = frozenset(
    {"id", "kind", "edges", "blocks_los", "reduces_los", "barricade", "impassable"}
)
_BOARD_FIELDS = frozenset({"name", "width", "height", "elements", "edges", "sample", "note"})
_BOARDS_FILE = frozenset({"note", "sample", "boards"})


def with_elements(board: Board, extra: tuple[TerrainElement, ...]) -> Board:
    """The board with more terrain elements on it (wrecks [L633-L637]); cached."""
    return _with_elements(board, extra) if extra else board


@lru_cache(maxsize=64)
def _with_elements(board: Board, extra: tuple[TerrainElement, ...]) -> Board:
    return replace(board, elements=(*board.elements, *extra))


def terrain_from_dict(r: Reader, raw: Any, where: str) -> TerrainElement | None:
    """A wreck face's terrain symbols: an element's fields without ``id``, ``squares`` and
    ``intercases`` (the wreck's squares are where it lies)."""
    if not isinstance(raw, dict):
        r.fail(where, "an object")
        return None
    for key in ("id", "squares", "intercases"):
        if key in raw:
            r.fail(f"{where}.{key}", "unknown field")
    placeholder = {**raw, "id": "wreck", "squares": [[0, 0]]}
    return _element(r, placeholder, where, None)


def _element(
    r: Reader, raw: Any, where: str, squares: frozenset[Square] | None
) -> TerrainElement | None:
    if not isinstance(raw, dict):
        r.fail(where, "an object")
        return None
    obj = r.obj(raw, where, _ELEMENT_FIELDS)
    ident = r.text(obj, "id", where)
    cells = frozenset(
        Square(x, y) for x, y in r.pairs(obj.get("squares", []), f"{where}.squares", MAX_SQUARES)
    )
    if not cells or (squares is not None and not cells <= squares):
        r.fail(f"{where}.squares", "at least one square, all on the board")
    intercases = frozenset(
        Intercase(x, y)
        for x, y in r.pairs(obj.get("intercases", []), f"{where}.intercases", MAX_SQUARES)
    )
    structure = None
    if obj.get("structure") is not None:
        structure = r.integer(obj, "structure", where, 1, 20)
    ruin = _ruin(r, obj, where, board=squares is not None, structure=structure)
    element = TerrainElement(
        id=ident,
        squares=cells,
        intercases=intercases,
        defence_bonus=r.integer(obj, "defence_bonus", where, 0, 10, 0),
        defence_colours=r.choices(obj, "defence_colours", where, DefenceColour),
        blocks_los=r.flag(obj, "blocks_los", where),
        reduces_los=r.integer(obj, "reduces_los", where, 0, 10, 0),
        difficult=r.flag(obj, "difficult", where),
        impassable=r.flag(obj, "impassable", where),
        forbidden_to=r.choices(obj, "forbidden_to", where, UnitClass),
        barricade=r.integer(obj, "barricade", where, 0, 10, 0),
        structure=structure,
        ruin=ruin,
    )
    return element if ident and cells else None


def _ruin(
    r: Reader, obj: Mapping[str, Any], where: str, *, board: bool, structure: int | None
) -> TerrainElement | None:
    """A board structure's ruin face (rulings 134): its terrain symbols, an element's fields
    without ``id``, ``squares``, ``intercases``, ``structure`` and ``ruin``. A wreck has none
    (it is removed), nor has an element that is no structure."""
    raw = obj.get("ruin")
    if raw is None:
        return None
    here = f"{where}.ruin"
    if not board:
        r.fail(here, "unknown field (a wreck is removed, it has no ruin face)")
        return None
    if structure is None:
        r.fail(here, "a ruin face needs a structure value")
        return None
    if not isinstance(raw, dict):
        r.fail(here, "an object")
        return None
    for key in ("id", "squares", "intercases", "structure", "ruin"):
        if key in raw:
            r.fail(f"{here}.{key}", "unknown field")
    placeholder = {k: v for k, v in raw.items() if k not in ("structure", "ruin")} | {
        "id": "ruin",
        "squares": [[0, 0]],
    }
    ruin = _element(r, placeholder, here, None)
    if ruin is not None and (ruin.impassable or ruin.forbidden_to):
        # units may stand inside when it falls: a ruin they could not be in is refused
        r.fail(here, "a ruin face may not be impassable or forbidden to any unit")
        return None
    return ruin


def _edge_element(
    r: Reader, raw: Any, where: str, squares: frozenset[Square] | None
) -> EdgeElement | None:
    if not isinstance(raw, dict):
        r.fail(where, "an object")
        return None
    obj = r.obj(raw, where, _EDGE_FIELDS)
    ident = r.text(obj, "id", where)
    kind = r.choice(obj, "kind", where, EdgeKind)
    edges: set[Edge] = set()
    items = obj.get("edges", [])
    if not isinstance(items, list) or not items or len(items) > MAX_EDGES:
        r.fail(f"{where}.edges", f"a list of 1 to {MAX_EDGES} [[x, y], [x, y]] square pairs")
        items = []
    for i, item in enumerate(items):
        here = f"{where}.edges[{i}]"
        before = len(r.problems)
        cells = r.pairs(item, here, 2)
        (ax, ay), (bx, by) = cells if len(cells) == 2 else ((0, 0), (0, 0))
        if abs(ax - bx) + abs(ay - by) != 1:
            if len(r.problems) == before:  # not already reported as a bad pair
                r.fail(here, "two orthogonally adjacent squares")
            continue
        edge = Edge.between(Square(*cells[0]), Square(*cells[1]))
        if squares is not None and (edge.a not in squares or edge.b not in squares):
            r.fail(here, "both squares on the board")
        edges.add(edge)
    element = EdgeElement(
        id=ident,
        kind=kind or EdgeKind.WALL,
        edges=frozenset(edges),
        blocks_los=r.flag(obj, "blocks_los", where),
        reduces_los=r.integer(obj, "reduces_los", where, 0, 10, 0),
        barricade=r.integer(obj, "barricade", where, 0, 10, 0),
        impassable=r.flag(obj, "impassable", where),
    )
    return element if ident and kind and edges else None


def _board(r: Reader, raw: Any, where: str) -> Board | None:
    if not isinstance(raw, dict):
        r.fail(where, "an object")
        return None
    obj = r.obj(raw, where, _BOARD_FIELDS)
    name = r.text(obj, "name", where, most=120)
    problems = len(r.problems)
    width = r.integer(obj, "width", where, 1, MAX_BOARD_SIDE)
    height = r.integer(obj, "height", where, 1, MAX_BOARD_SIDE)
    # a board of unknown size: its elements are read, but not checked against its squares
    squares = (
        frozenset(Square(x, y) for x in range(width) for y in range(height))
        if len(r.problems) == problems
        else None
    )
    elements = [
        e
        for i, item in enumerate(r.items(obj, "elements", where, MAX_SQUARES))
        if (e := _element(r, item, f"{where}.elements[{i}]", squares)) is not None
    ]
    edge_elements = [
        ee
        for i, item in enumerate(r.items(obj, "edges", where, MAX_SQUARES))
        if (ee := _edge_element(r, item, f"{where}.edges[{i}]", squares)) is not None
    ]
    r.note(obj, where)
    sample = r.flag(obj, "sample", where)
    if not name or squares is None:
        return None
    return Board(
        name=name,
        squares=squares,
        elements=tuple(elements),
        edge_elements=tuple(edge_elements),
        sample=sample,
    )


def board_from_dict(raw: Any) -> Board:
    """A board (or terrain tile) from plain JSON-like values; raises one
    :class:`ProfileError` listing every problem, each located under ``board``."""
    r = Reader()
    board = _board(r, raw, "board")
    r.raise_if_any()
    assert board is not None
    return board


def boards_from_dict(raw: Any) -> dict[str, Board]:
    """A boards file (``{"note", "sample", "boards": [...]}``), by name; raises one
    :class:`ProfileError` listing every problem, each located (``boards[1].width``)."""
    r = Reader()
    obj = r.obj(raw, "", _BOARDS_FILE)
    r.note(obj, "")
    r.flag(obj, "sample", "")
    out: dict[str, Board] = {}
    for i, item in enumerate(r.items(obj, "boards", "", MAX_BOARDS)):
        where = f"boards[{i}]"
        board = _board(r, item, where)
        if board is None:
            continue
        if board.name in out:
            r.fail(f"{where}.name", f"{board.name!r} is used twice")
        out[board.name] = board
    r.raise_if_any()
    return out


def load_sample_boards(path: Path | None = None) -> dict[str, Board]:
    """Our own sample boards and tiles (``data/black_reach/boards.json``), by name."""
    return boards_from_dict(json.loads((path or DATA_DIR / "boards.json").read_text("utf-8")))
