"""Movement Actions on the grid (note §3.5, §9.3; seed [L257-L431], [L2017-L2067]).

:func:`reachable` gives every placement a unit may end its Movement Action on, with its
cheapest cost; :func:`check_path` validates a given path step by step and reports every problem
at once. Rules applied (rulings in docs/rulings/black-reach.md):

- 0..MV squares, diagonals allowed, 1 square each [L258-L265]; −2 MV per Suppressed marker,
  immobilised at 0 or less [L274-L280]; MV ``X`` never moves and takes no bonus [L302-L314];
- infantry may not cross enemy infantry or any vehicle, may cross friendly infantry, and may
  not end on another unit [L281-L285, L267-L268]; vehicles may cross infantry, and a vehicle
  that stops on infantry pushes it (the placement lists it in ``pushes``) [L353-L366];
- impassable and forbidden squares may not be entered, even partly [L828-L845]; a diagonal step
  through an intercase that belongs to an element takes its effects, and through an intercase a
  wall reaches is forbidden [L909-L913, L937-L938];
- Difficult Ground: a step into, through or out of it ends the move [L881-L887];
- zones of control: an infantry unit may not step from one square of an enemy infantry unit's
  ZoC to another square of the same ZoC [L409-L411]; vehicles ignore ZoCs and theirs is ignored
  [L419-L424]; a Suppressed unit's ZoC is ignored by enemy infantry [L426-L431]; embarked
  units have none [L2055-L2056]; the declared assault target's square may be entered from its
  ZoC [L413-L415];
- footprints: a 1-square unit moves like infantry and chooses its facing freely at the end; a
  2-square vehicle moves forwards counting from its front edge and backwards from its rear,
  and pivots on its front or rear square, 1 square per 45°; a 4-square vehicle moves forwards or
  backwards only, never diagonally, and pivots in place, 1 square per 90° [L317-L351];
- transports: an embarked unit leaves from a free square adjacent to its transport, which is
  the first square of its move; capacity counts 1 for a reduced face or a Character, 2 for any
  other unit; a Large unit needs a red Transport [L2017-L2032].
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from functools import cached_property

from app.engine.black_reach.board import Board, Edge, Intercase, Square, UnitClass
from app.engine.black_reach.los import Facing, line_of_sight

__all__ = [
    "SUPPRESSED_MV",
    "BoardUnit",
    "Footprint",
    "Mover",
    "Passenger",
    "PathCheck",
    "Placement",
    "Reach",
    "can_embark",
    "cheapest_paths",
    "check_path",
    "movement_budget",
    "passenger_load",
    "reachable",
    "transport_has_room",
    "zone_of_control",
]

SUPPRESSED_MV = 2  # MV lost per Suppressed marker [L274-L280]


class Footprint(IntEnum):
    ONE = 1
    TWO = 2
    FOUR = 4


def _add(s: Square, dx: int, dy: int) -> Square:
    return Square(s.x + dx, s.y + dy)


@dataclass(frozen=True)
class Placement:
    """Where a unit stands. ``anchor`` is the front square of a 2-square vehicle (its rear is
    one square behind it) and the top-left square of a 4-square one."""

    anchor: Square
    facing: Facing = Facing.N
    footprint: Footprint = Footprint.ONE

    def __post_init__(self) -> None:
        if self.footprint is Footprint.FOUR and self.facing.diagonal:
            raise ValueError("a 4-square vehicle never stands diagonally")

    @cached_property
    def squares(self) -> frozenset[Square]:
        a, f = self.anchor, self.facing
        if self.footprint is Footprint.ONE:
            return frozenset({a})
        if self.footprint is Footprint.TWO:
            return frozenset({a, _add(a, -f.dx, -f.dy)})
        return frozenset({a, _add(a, 1, 0), _add(a, 0, 1), _add(a, 1, 1)})


@dataclass(frozen=True)
class BoardUnit:
    id: str
    side: str
    unit_class: UnitClass
    placement: Placement
    suppressed: int = 0
    ambushed: bool = False
    embarked_in: str | None = None

    @property
    def squares(self) -> frozenset[Square]:
        return frozenset() if self.embarked_in else self.placement.squares


@dataclass(frozen=True)
class Mover:
    """The unit making the Movement Action and what changes its move."""

    unit: BoardUnit
    mv: int | None  # None: MV "X"
    mv_bonus: int = 0  # cards, Red Paint Job, Boss Pole "Zag"...
    assault_target: str | None = None
    ignore_difficult: bool = False  # Scout [L1944-L1965]


def movement_budget(mover: Mover) -> int:
    """Squares the unit may move: MV + bonuses − 2 per Suppressed, at least 0; MV X: 0."""
    if mover.mv is None:
        return 0
    return max(0, mover.mv + mover.mv_bonus - SUPPRESSED_MV * mover.unit.suppressed)


def zone_of_control(board: Board, unit: BoardUnit) -> frozenset[Square]:
    """The 8 squares around a one-square unit that it sees (clear or reduced), minus the
    impassable ones [L401-L405]; empty for embarked units."""
    if unit.embarked_in:
        return frozenset()
    zone: set[Square] = set()
    for own in unit.squares:
        for sq in own.neighbours():
            if sq in unit.squares or not board.on_board(sq):
                continue
            if any(e.impassable for e in board.elements_at(sq)):
                continue
            if line_of_sight(board, own, sq).can_shoot:
                zone.add(sq)
    return frozenset(zone)


@dataclass(frozen=True)
class Reach:
    cost: int
    pushes: tuple[str, ...] = ()  # infantry a vehicle stops on (forced move + 1 Suppressed)
    assault: bool = False  # the move ends in the assault target's square


@dataclass(frozen=True)
class _Context:
    board: Board
    mover: Mover
    others: tuple[BoardUnit, ...]
    zones: tuple[frozenset[Square], ...] = field(default=())

    @property
    def cls(self) -> UnitClass:
        return self.mover.unit.unit_class

    def occupants(self, sq: Square) -> list[BoardUnit]:
        return [u for u in self.others if sq in u.squares]

    def target_squares(self) -> frozenset[Square]:
        for u in self.others:
            if u.id == self.mover.assault_target:
                return u.squares
        return frozenset()


def _zones(
    board: Board, mover: Mover, others: Sequence[BoardUnit]
) -> tuple[frozenset[Square], ...]:
    if mover.unit.unit_class.is_vehicle:
        return ()
    return tuple(
        zone_of_control(board, u)
        for u in others
        if u.side != mover.unit.side
        and u.unit_class is UnitClass.INFANTRY
        and not u.suppressed
        and not u.ambushed
        and not u.embarked_in
    )


def _square_allowed(ctx: _Context, sq: Square) -> str | None:
    if not ctx.board.on_board(sq):
        return f"{tuple(sq)} is off the board"
    if any(e.forbids(ctx.cls) for e in ctx.board.elements_at(sq)):
        return f"{tuple(sq)} is forbidden to {ctx.cls.value}"
    return None


def _part_step(ctx: _Context, a: Square, b: Square) -> tuple[str | None, bool]:
    """(problem, difficult) of one square of the footprint moving from ``a`` to ``b``."""
    problem = _square_allowed(ctx, b)
    if problem:
        return problem, False
    board = ctx.board
    difficult = any(e.difficult for e in (*board.elements_at(a), *board.elements_at(b)))
    if a.x != b.x and a.y != b.y:
        ic = Intercase(max(a.x, b.x), max(a.y, b.y))
        if board.walls_reaching(ic):
            return f"a wall reaches the intercase {tuple(ic)}: no diagonal move", False
        members = board.elements_at_intercase(ic)
        if any(e.forbids(ctx.cls) for e in members):
            return f"the intercase {tuple(ic)} is forbidden to {ctx.cls.value}", False
        difficult = difficult or any(e.difficult for e in members)
    elif any(ee.impassable for ee in board.edge_elements_at(Edge.between(a, b))):
        return f"no move across the edge between {tuple(a)} and {tuple(b)}", False
    return None, difficult


def _units_step(ctx: _Context, old: Placement, new: Placement) -> str | None:
    """Can the unit pass through the squares it enters?"""
    target = ctx.target_squares()
    for sq in new.squares - old.squares:
        for u in ctx.occupants(sq):
            if sq in target:
                continue
            if u.unit_class.is_vehicle:
                return f"{u.id} (a vehicle) stands on {tuple(sq)}"
            if ctx.cls is UnitClass.INFANTRY and u.side != ctx.mover.unit.side:
                return f"infantry may not cross the enemy infantry {u.id}"
    return None


def _zoc_step(ctx: _Context, a: Square, b: Square) -> str | None:
    if b in ctx.target_squares():
        return None
    for zone in ctx.zones:
        if a in zone and b in zone:
            return f"from {tuple(a)} to {tuple(b)}: within one enemy zone of control"
    return None


def _step(ctx: _Context, old: Placement, new: Placement) -> tuple[int, str | None, bool]:
    """(cost, problem, ends the move) of one step from ``old`` to ``new``."""
    if old.footprint is not new.footprint:
        return 0, "the footprint cannot change", False
    moves = _moves(old)
    if new not in moves:
        return 0, "not one square forward, back or one pivot", False
    dx, dy = moves[new]
    stop = False
    if (dx, dy) != (0, 0):
        for part in old.squares:
            problem, difficult = _part_step(ctx, part, _add(part, dx, dy))
            if problem:
                return 1, problem, False
            stop = stop or (difficult and not ctx.mover.ignore_difficult)
        if old.footprint is Footprint.ONE:
            problem = _zoc_step(ctx, old.anchor, new.anchor)
            if problem:
                return 1, problem, False
    else:  # a pivot: the squares it comes to must be allowed
        for sq in new.squares - old.squares:
            problem = _square_allowed(ctx, sq)
            if problem:
                return 1, problem, False
    problem = _units_step(ctx, old, new)
    if problem:
        return 1, problem, False
    if new.squares & ctx.target_squares():
        stop = True
    return 1, None, stop


def _moves(p: Placement) -> dict[Placement, tuple[int, int]]:
    """Every placement one step away, with the translation it makes ((0, 0) for a pivot)."""
    out: dict[Placement, tuple[int, int]] = {}
    f = p.facing
    if p.footprint is Footprint.ONE:
        for d in Facing:
            out[Placement(_add(p.anchor, d.dx, d.dy), f, p.footprint)] = (d.dx, d.dy)
        return out
    for sign in (1, -1):
        out[Placement(_add(p.anchor, sign * f.dx, sign * f.dy), f, p.footprint)] = (
            sign * f.dx,
            sign * f.dy,
        )
    if p.footprint is Footprint.TWO:
        rear = _add(p.anchor, -f.dx, -f.dy)
        for turn in (1, -1):
            g = f.turned(turn)
            out.setdefault(Placement(p.anchor, g, p.footprint), (0, 0))  # on its front
            out.setdefault(Placement(_add(rear, g.dx, g.dy), g, p.footprint), (0, 0))  # rear
    else:
        for turn in (2, -2):
            out.setdefault(Placement(p.anchor, f.turned(turn), p.footprint), (0, 0))
    return out


def _end(ctx: _Context, p: Placement) -> tuple[str | None, Reach | None]:
    """Can the move end on ``p``? (problem, or the Reach flags without the cost)."""
    target = ctx.target_squares()
    if p.squares & target:
        return None, Reach(0, assault=True)
    pushes: list[str] = []
    for sq in p.squares:
        for u in ctx.occupants(sq):
            if ctx.cls.is_vehicle and u.unit_class is UnitClass.INFANTRY:
                pushes.append(u.id)
            else:
                return f"{u.id} already stands on {tuple(sq)}", None
    return None, Reach(0, pushes=tuple(sorted(set(pushes))))


def _context(board: Board, mover: Mover, units: Iterable[BoardUnit]) -> _Context:
    others = tuple(u for u in units if u.id != mover.unit.id and not u.embarked_in)
    return _Context(board, mover, others, _zones(board, mover, others))


def _starts(ctx: _Context, units: Iterable[BoardUnit]) -> list[tuple[int, Placement]]:
    """(cost, placement) the move starts from: the unit's own, or for an embarked unit each
    free square adjacent to its transport, the first square of the move."""
    unit = ctx.mover.unit
    if not unit.embarked_in:
        return [(0, unit.placement)]
    transport = next((u for u in units if u.id == unit.embarked_in), None)
    if transport is None:
        raise ValueError(f"{unit.id} is in an unknown transport")
    starts: list[tuple[int, Placement]] = []
    around = {n for s in transport.squares for n in s.neighbours()} - transport.squares
    for sq in sorted(around):
        p = Placement(sq, unit.placement.facing, unit.placement.footprint)
        if _square_allowed(ctx, sq) is None and not ctx.occupants(sq):
            starts.append((1, p))
    return starts


_Key = tuple[Placement, bool]  # a placement, and whether the move had to stop there


def _search(
    board: Board, mover: Mover, units: Iterable[BoardUnit]
) -> tuple[_Context, dict[_Key, int], dict[_Key, _Key | None]]:
    """Dijkstra over the placements: the cheapest cost of each (placement, stopped) and the
    state it was reached from (``None``: a start)."""
    units = tuple(units)
    ctx = _context(board, mover, units)
    budget = movement_budget(mover)
    best: dict[_Key, int] = {}
    parents: dict[_Key, _Key | None] = {}
    heap: list[tuple[int, int, bool, Placement, _Key | None]] = []
    tie = 0  # placements do not compare; pop in insertion order among equal costs
    for cost, p in _starts(ctx, units):
        if cost <= budget or cost == 0:
            heapq.heappush(heap, (cost, tie, False, p, None))
            tie += 1
    while heap:
        cost, _, stopped, p, parent = heapq.heappop(heap)
        if best.get((p, stopped), cost + 1) <= cost:
            continue
        best[(p, stopped)] = cost
        parents[(p, stopped)] = parent
        if stopped or p.squares & ctx.target_squares():
            continue
        for q in _moves(p):
            step_cost, problem, stop = _step(ctx, p, q)
            if problem is None and cost + step_cost <= budget:
                heapq.heappush(heap, (cost + step_cost, tie, stop, q, (p, stopped)))
                tie += 1
    return ctx, best, parents


def _ends(ctx: _Context, best: dict[_Key, int]) -> dict[Placement, tuple[Reach, _Key]]:
    out: dict[Placement, tuple[Reach, _Key]] = {}
    for (p, stopped), cost in sorted(best.items(), key=lambda kv: kv[1]):
        if p in out:
            continue
        problem, reach = _end(ctx, p)
        if problem is None and reach is not None:
            out[p] = (Reach(cost, reach.pushes, reach.assault), (p, stopped))
    return out


def reachable(board: Board, mover: Mover, units: Iterable[BoardUnit]) -> dict[Placement, Reach]:
    """Every placement the Movement Action may end on, with its cheapest cost. The start
    (a null move) is included at cost 0 for a unit on the board."""
    ctx, best, _parents = _search(board, mover, units)
    return {p: reach for p, (reach, _key) in _ends(ctx, best).items()}


def cheapest_paths(
    board: Board, mover: Mover, units: Iterable[BoardUnit]
) -> dict[Placement, tuple[Reach, tuple[Placement, ...]]]:
    """Every placement :func:`reachable` lists, with its :class:`Reach` and a cheapest path
    to it as :func:`check_path` takes it: the placements after each step (for an embarked
    unit, the first one is the square it disembarks onto; the null move of a unit on the
    board is an empty path)."""
    ctx, best, parents = _search(board, mover, units)
    embarked = bool(mover.unit.embarked_in)
    out: dict[Placement, tuple[Reach, tuple[Placement, ...]]] = {}
    for p, (reach, key) in _ends(ctx, best).items():
        chain: list[Placement] = []
        at: _Key | None = key
        while at is not None:
            chain.append(at[0])
            at = parents[at]
        chain.reverse()
        out[p] = (reach, tuple(chain if embarked else chain[1:]))
    return out


@dataclass(frozen=True)
class PathCheck:
    cost: int
    problems: tuple[str, ...]
    reach: Reach | None = None

    @property
    def ok(self) -> bool:
        return not self.problems


def check_path(
    board: Board, mover: Mover, units: Iterable[BoardUnit], path: Sequence[Placement]
) -> PathCheck:
    """Validate a Movement Action given as the placements after each step (for an embarked
    unit, the first one is the square it disembarks onto). Every problem is reported."""
    units = tuple(units)
    ctx = _context(board, mover, units)
    budget = movement_budget(mover)
    problems: list[str] = []
    cost, stopped = 0, False
    if mover.mv is None and any(p.squares != mover.unit.placement.squares for p in path):
        problems.append("a unit with MV X cannot move")
    current: Placement | None = None
    if mover.unit.embarked_in:
        if path:
            starts = {p: c for c, p in _starts(ctx, units)}
            if path[0] not in starts:
                problems.append("step 1: not a free square next to the transport")
            current, cost, path = path[0], 1, path[1:]
    else:
        current = mover.unit.placement
    for i, nxt in enumerate(path, start=1 + (1 if mover.unit.embarked_in else 0)):
        if current is None:
            break
        if stopped:
            problems.append(f"step {i}: the move had to stop (difficult ground or assault)")
        step_cost, problem, stop = _step(ctx, current, nxt)
        if problem:
            problems.append(f"step {i}: {problem}")
        cost += step_cost
        stopped = stopped or stop
        current = nxt
    if cost > budget:
        problems.append(f"the path costs {cost}, the unit may move {budget}")
    reach = None
    if current is not None:
        problem, flags = _end(ctx, current)
        if problem:
            problems.append(f"end: {problem}")
        elif flags is not None:
            reach = Reach(cost, flags.pushes, flags.assault)
    return PathCheck(cost, tuple(problems), reach if not problems else None)


# -- transports -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Passenger:
    reduced: bool = False
    character: bool = False
    large: bool = False


def passenger_load(p: Passenger) -> int:
    """1 for a unit on its reduced face or a Character, 2 otherwise (note §8 item 34)."""
    return 1 if p.reduced or p.character else 2


def transport_has_room(
    capacity: int, red: bool, aboard: Iterable[Passenger], boarding: Passenger
) -> bool:
    """May ``boarding`` get in a transport of ``capacity`` holding ``aboard``?"""
    if boarding.large and not red:
        return False
    return sum(map(passenger_load, aboard)) + passenger_load(boarding) <= capacity


def can_embark(transport: BoardUnit, square: Square) -> bool:
    """An infantry unit ending its move on ``square`` may get in: the square is adjacent to
    the transport [L2026-L2028]."""
    return any(square in s.neighbours() for s in transport.squares)
