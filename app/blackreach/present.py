"""A board drawn as SVG, read from the engine's own board (squares, terrain, edges).

Coordinates are in squares (the SVG's ``viewBox`` does the scaling, so the drawing fits a
phone's width). Each square is filled with the colour of its strongest terrain: impassable,
then blocking sight, then a defence shield's colour, then difficult ground, then an obstacle
that only reduces sight. Walls, elevation lines and barricades are drawn on the edges between
squares. A scenario's picture adds the two deployment zones and the objectives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from app.engine.black_reach.board import Board, DefenceColour, EdgeKind, Square, TerrainElement
from app.engine.black_reach.scenario import Scenario

OPEN = "#f3efe0"
TERRAIN_FILL = {
    "impassable": "#2b2b2b",
    "blocks_los": "#5a5a5a",
    DefenceColour.YELLOW.value: "#f2d45c",
    DefenceColour.VIOLET.value: "#b48ad9",
    DefenceColour.GREY.value: "#a9b0b7",
    "difficult": "#c9a36b",
    "reduces_los": "#9cc48a",
}
EDGE_STROKE = {
    EdgeKind.WALL.value: "#1d1d1d",
    EdgeKind.ELEVATION_LINE.value: "#8b5a2b",
    EdgeKind.BARRICADE.value: "#d2691e",
}
ZONE_FILL = ("#2f6fdb", "#d23c3c")  # the first and second side's deployment zones
OBJECTIVE_FILL = "#f5a623"


@dataclass(frozen=True, slots=True)
class Cell:
    x: int
    y: int
    fill: str
    terrain: str  # the element ids on the square, for its tooltip ("" when open ground)
    kind: str  # which colour it took: a TERRAIN_FILL key, or "open"


@dataclass(frozen=True, slots=True)
class Line:
    x1: int
    y1: int
    x2: int
    y2: int
    kind: str  # an EdgeKind value
    stroke: str


@dataclass(frozen=True, slots=True)
class Mark:
    """A square of a deployment zone or an objective, drawn over the terrain."""

    x: int
    y: int
    fill: str
    label: str


@dataclass(frozen=True, slots=True)
class Picture:
    name: str
    min_x: int
    min_y: int
    width: int
    height: int
    cells: tuple[Cell, ...]
    lines: tuple[Line, ...]
    marks: tuple[Mark, ...] = ()

    @property
    def view_box(self) -> str:
        return f"{self.min_x} {self.min_y} {self.width} {self.height}"


def _kind(elements: Sequence[TerrainElement]) -> str:
    if any(e.impassable for e in elements):
        return "impassable"
    if any(e.blocks_los for e in elements):
        return "blocks_los"
    for colour in (DefenceColour.YELLOW, DefenceColour.VIOLET, DefenceColour.GREY):
        if any(e.defence_bonus and colour in e.defence_colours for e in elements):
            return colour.value
    if any(e.difficult for e in elements):
        return "difficult"
    if any(e.reduces_los for e in elements):
        return "reduces_los"
    return "open"


def board_picture(board: Board, marks: Sequence[Mark] = ()) -> Picture:
    squares = sorted(board.squares, key=lambda s: (s.y, s.x))
    if not squares:
        return Picture(board.name, 0, 0, 1, 1, (), (), tuple(marks))
    xs = [s.x for s in squares]
    ys = [s.y for s in squares]
    cells = []
    for sq in squares:
        elements = board.elements_at(sq)
        kind = _kind(elements)
        cells.append(
            Cell(
                sq.x,
                sq.y,
                TERRAIN_FILL.get(kind, OPEN),
                ", ".join(sorted(e.id for e in elements)),
                kind,
            )
        )
    lines = []
    for element in board.edge_elements:
        for edge in sorted(element.edges):
            (x1, y1), (x2, y2) = edge.ends
            lines.append(Line(x1, y1, x2, y2, element.kind.value, EDGE_STROKE[element.kind.value]))
    return Picture(
        name=board.name,
        min_x=min(xs),
        min_y=min(ys),
        width=max(xs) - min(xs) + 1,
        height=max(ys) - min(ys) + 1,
        cells=tuple(cells),
        lines=tuple(lines),
        marks=tuple(marks),
    )


def _marks(squares: frozenset[Square], fill: str, label: str) -> list[Mark]:
    return [Mark(s.x, s.y, fill, label) for s in sorted(squares, key=lambda s: (s.y, s.x))]


def scenario_picture(scenario: Scenario) -> Picture:
    """The assembled battlefield with both deployment zones and the objectives."""
    marks: list[Mark] = []
    for side, fill in zip(scenario.sides, ZONE_FILL, strict=True):
        marks.extend(_marks(side.deployment, fill, side.id))
    for objective in scenario.objectives:
        marks.extend(_marks(objective.squares, OBJECTIVE_FILL, objective.id))
    picture = board_picture(scenario.board, marks)
    return Picture(
        scenario.name,
        picture.min_x,
        picture.min_y,
        picture.width,
        picture.height,
        picture.cells,
        picture.lines,
        picture.marks,
    )
