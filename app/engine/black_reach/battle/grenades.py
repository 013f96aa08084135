"""Grenades and Tankbusta Bombs (rulings 101): equipment markers thrown as an Alternative
Shooting Action of infantry [L2486-L2496], [L2515-L2564].

An equipment option with ``alternative`` and a ``template`` is a grenade: each of its
markers throws that template once for the game, on an intercase at most ``range``
intercases from a corner of the thrower's square (Portée Limitée in intercases
[L1278-L1287]); it never scatters and is thrown over the terrain (no line of sight, no
obstacle penalty). Tankbusta Bombs "affect one square only": their template has one square.
A unit may use the options of its own group and those of its side's command tiles
[L2473-L2484], [L2395-L2404].
"""

from __future__ import annotations

from dataclasses import dataclass

from app.engine.black_reach.battle.powers import silenced
from app.engine.black_reach.battle.state import BattleState, UnitState
from app.engine.black_reach.board import Intercase, Square
from app.engine.black_reach.forces import Equipment, Group, TileKind
from app.engine.black_reach.templates import QUARTERS, Template
from app.engine.match.errors import Refusal, RefusalKind

__all__ = ["GrenadePlan", "grenade_options", "markers_left", "plan_grenade"]


@dataclass(frozen=True)
class GrenadePlan:
    group: str  # the group holding the option (its markers)
    option: str
    template: Template
    squares: frozenset[Square]


def _refuse(code: str, message: str, kind: RefusalKind = RefusalKind.RULES) -> Refusal:
    return Refusal(code, message, kind=kind)


def _holders(state: BattleState, u: UnitState) -> list[Group]:
    """The groups whose options ``u`` may use: its own, and its side's command tiles."""
    own = [g for g in state.groups.values() if u.uid in g.units]
    command = [
        g
        for g in state.groups.values()
        if g.side == u.side
        and g not in own
        and (tile := state.catalogue.tiles.get(g.tile)) is not None
        and tile.kind is TileKind.COMMAND
    ]
    return own + command


def _grenade(state: BattleState, option_id: str) -> Equipment | None:
    option = state.catalogue.options.get(option_id)
    e = option.equipment if option is not None else None
    return e if e is not None and e.alternative and e.template is not None else None


def markers_left(state: BattleState, group: Group, option_id: str) -> int:
    e = _grenade(state, option_id)
    used = state.equipment_used.get(f"{group.id}|{option_id}", 0)
    return 0 if e is None else max(0, e.markers - used)


def grenade_options(state: BattleState, u: UnitState) -> list[tuple[Group, str]]:
    """The grenade options ``u`` may throw now (a marker left), with the group holding each."""
    return [
        (g, o)
        for g in _holders(state, u)
        for o in g.options
        if _grenade(state, o) is not None and markers_left(state, g, o) > 0
    ]


def plan_grenade(
    state: BattleState, u: UnitState, option_id: str, at: Intercase, facing: str
) -> GrenadePlan:
    """Check a throw before any die: an infantry unit on the battlefield (not Objurated), a
    grenade option it may use with a marker left, the template in the data, the intercase on
    the battlefield and within range."""
    e = _grenade(state, option_id)
    if e is None:
        raise _refuse("no_grenade", f"{option_id!r} is no grenade option", RefusalKind.INPUT)
    if e.restriction and u.counter.unit_class not in e.restriction:
        raise _refuse("infantry_only", f"{u.uid} may not use {option_id} [L2515-L2517]")
    holders = [g for g in _holders(state, u) if option_id in g.options]
    if not holders:
        raise _refuse("not_your_option", f"{u.uid}'s group does not hold {option_id}")
    group = next((g for g in holders if markers_left(state, g, option_id) > 0), None)
    if group is None:
        raise _refuse("no_marker_left", f"every {option_id} marker is used [L2488-L2490]")
    if silenced(state, u.uid):
        raise _refuse("objuration", f"{u.uid} cannot shoot: Objuration Mechanicum [L3031-L3036]")
    if u.placement is None:
        raise _refuse("not_supported", "a grenade is not thrown from a transport yet")
    assert e.template is not None
    template = state.catalogue.templates.get(e.template)
    if template is None:
        raise _refuse("no_template", f"{option_id}'s template {e.template!r} is not in the data")
    if facing not in QUARTERS:
        raise _refuse("bad_facing", "a template faces N, E, S or W", RefusalKind.INPUT)
    board = state.board
    if not any(at in sq.corners() for sq in board.squares):
        raise _refuse("off_board", "the intercase must be on the battlefield", RefusalKind.INPUT)
    if e.range is not None:
        corners = [c for sq in u.placement.squares for c in sq.corners()]
        reach = min(max(abs(c.x - at.x), abs(c.y - at.y)) for c in corners)
        if reach > e.range:
            raise _refuse("out_of_range", f"the intercase is beyond {e.range} intercases")
    squares = template.squares(at, facing) & board.squares
    return GrenadePlan(group.id, option_id, template, squares)
