"""Templates (*Gabarits*) and indirect-fire dispersion (note §2.3, §4.9, §8 item 25; seed
[L1381-L1477], [L3305-L3308]).

The printed templates (shapes, letters, CVs, dispersion diagrams) are not in the seed: a
:class:`Template` is data (``templates`` in the forces file; ours are samples). Its footprint
is the set of squares it covers, even partly, given as offsets from the intercase it is
placed on (the square ``(dx, dy)`` of an intercase ``(x, y)`` is the square ``(x + dx,
y + dy)``: the intercase is that square's top-left corner), drawn facing N; a template is
turned by quarter turns. Its dispersion diagram names the intercase direction of the faces 1
to 4 (none: it never scatters). Readings: docs/rulings/black-reach.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from app.engine.black_reach.board import Intercase, Square, UnitClass
from app.engine.black_reach.forces import Ability, AbilityRef
from app.engine.black_reach.tables import dispersion_odds

__all__ = [
    "MAX_TEMPLATE_REACH",
    "QUARTERS",
    "TEMPLATE_ABILITIES",
    "Template",
    "landing",
    "landing_odds",
    "parse_template_param",
    "template_distance",
    "template_name",
    "turn_cell",
    "turn_direction",
]

QUARTERS = ("N", "E", "S", "W")  # a template turns by quarter turns, clockwise
TEMPLATE_ABILITIES = frozenset({Ability.DIRECT_FIRE, Ability.INDIRECT_FIRE})


MAX_TEMPLATE_REACH = 12  # a template's squares lie within 12 squares of its intercase
MAX_PARAM = 8  # an ability's param is a short text
# a template ability's param: the template's letters, then "/" and 1-2 ASCII digits (Tir
# Indirect: the intercases it scatters by); [A-Za-z] and [0-9] are ASCII only, unlike
# str.isalpha / str.isdigit ("²".isdigit() is True)
_PARAM = re.compile(r"([A-Za-z]+)(?:/([0-9]{1,2}))?")


def parse_template_param(param: object) -> tuple[str, int | None] | None:
    """The template a Tir Direct / Tir Indirect symbol names and the distance it gives
    (``"B"``: ``("B", None)``; ``"L/2"``: ``("L", 2)``), the distance capped at the furthest
    a template reaches; ``None`` for any other shape (the reader refuses it, located)."""
    if not isinstance(param, str) or len(param) > MAX_PARAM:
        return None
    match = _PARAM.fullmatch(param)
    if match is None:
        return None
    number = match.group(2)
    return match.group(1), None if number is None else min(int(number), MAX_TEMPLATE_REACH)


def template_name(param: object) -> str:
    """The template an ability's symbol names: ``"B"``, or ``"B/2"`` (Tir Indirect: the letter
    and the intercases it scatters by); ``""`` (no template) for a param of another shape."""
    parsed = parse_template_param(param)
    return "" if parsed is None else parsed[0]


def template_distance(param: object, template: Template) -> int:
    """The intercases an indirect shot scatters by: the number after the letter in the
    ability's symbol, else the template's own, never more than a template reaches."""
    parsed = parse_template_param(param)
    number = None if parsed is None else parsed[1]
    return min(template.distance if number is None else number, MAX_TEMPLATE_REACH)


def turn_cell(dx: int, dy: int, quarters: int) -> tuple[int, int]:
    """A square offset from an intercase turned clockwise (y down) by ``quarters``: the
    square's centre (dx + ½, dy + ½) goes to (-(dy + ½), dx + ½)."""
    for _ in range(quarters % 4):
        dx, dy = -dy - 1, dx
    return dx, dy


def turn_direction(dx: int, dy: int, quarters: int) -> tuple[int, int]:
    for _ in range(quarters % 4):
        dx, dy = -dy, dx
    return dx, dy


@dataclass(frozen=True)
class Template:
    """A template: its id (the letter in the ability's symbol), the squares it covers, its
    CVs against each class (``None``: X), its abilities (Perforant...), its dispersion
    directions for the faces 1-4 (``None``: no diagram, it always lands on target) and the
    number of intercases it scatters by (the ability may give another)."""

    id: str
    cells: tuple[tuple[int, int], ...]
    cv: Mapping[UnitClass, int | None] = field(default_factory=dict)
    abilities: tuple[AbilityRef, ...] = ()
    dispersion: tuple[tuple[int, int], ...] | None = None
    distance: int = 1

    def squares(self, at: Intercase, facing: str = "N") -> frozenset[Square]:
        q = QUARTERS.index(facing)
        return frozenset(
            Square(at.x + dx, at.y + dy) for dx, dy in (turn_cell(x, y, q) for x, y in self.cells)
        )

    def directions(self, facing: str = "N") -> tuple[tuple[int, int], ...] | None:
        if self.dispersion is None:
            return None
        q = QUARTERS.index(facing)
        return tuple(turn_direction(x, y, q) for x, y in self.dispersion)

    def has(self, ability: object) -> bool:
        return any(a.ability == ability for a in self.abilities)


def landing(
    template: Template, at: Intercase, facing: str, die: int, distance: int, spotter: bool
) -> Intercase:
    """Where an indirect shot lands: 5-6 on target; 1-4 ``distance`` intercases (one fewer
    with a Sighum spotter, never below 0) in the direction printed for that face
    [L1450-L1469], [L1318-L1322]; no dispersion diagram: on target [L1470-L1477]."""
    directions = template.directions(facing)
    if directions is None or die >= 5:
        return at
    step = max(0, distance - (1 if spotter else 0))
    dx, dy = directions[die - 1]
    return Intercase(at.x + dx * step, at.y + dy * step)


def landing_odds(
    template: Template, at: Intercase, facing: str, distance: int, spotter: bool
) -> dict[Intercase, Fraction]:
    """Exact odds of each landing intercase (the dispersion die is never Suppressed)."""
    return dispersion_odds(at, template.directions(facing), distance, spotter)
