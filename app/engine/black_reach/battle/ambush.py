"""Embuscade and spotting [L1782-L1824], Auspex [L1776-L1780] (rulings 114-117).

An ambushed unit shows its Ambush face (``FaceKind.AMBUSH``, an Active face): it cannot be
shot, templates pass it by, it blocks no line of sight and exerts no zone of control. It
turns to its Inactive face (a Forced and Null Move, ``UnitSpotted``) when:

- an enemy unit other than a heavy vehicle sees it with a clear line of sight, within
  2 squares when it stands in a terrain element: checked after each square it moves
  through, and at the end of every enemy unit's Movement Action for every unit of the
  mover's side [L1810-L1820], [L3142], [L3156-L3157];
- an enemy unit with Auspex (N) is activated within N squares of it [L1776-L1780];
- it is engaged in an assault, either side [L1791-L1792];
- it makes a Shooting Action (a Sniper whose Ambush face has the symbol stays
  ambushed [L1342-L1344]) [L1793-L1795].

Once spotted it is no longer ambushed, so it is flipped once per Movement Action; the move
it makes goes on with the MV of the face it started with (the path was checked with it)
[L1821-L1824].
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Protocol

from app.engine.black_reach.battle.commands import (
    Burst,
    Demolish,
    DoubleShot,
    Flame,
    Grenade,
    Kombi,
    Manifest,
    Shoot,
    Snipe,
    TemplateFire,
    VehicleFire,
)
from app.engine.black_reach.battle.events import UnitMoved, UnitSpotted
from app.engine.black_reach.battle.evolve import evolve
from app.engine.black_reach.battle.state import BattleState, UnitState
from app.engine.black_reach.board import UnitClass
from app.engine.black_reach.forces import Ability, FaceKind
from app.engine.black_reach.los import Blocker, Sight, best_line_of_sight, distance
from app.engine.match.codec import Tagged
from app.engine.match.events import Event

__all__ = [
    "SPOT_IN_TERRAIN",
    "ambushed",
    "as_spotted",
    "auspex_spots",
    "blockers",
    "deploy_faces",
    "spot_after_move",
    "spot_on_the_way",
    "spotter_of",
    "unmask",
    "unmask_to_shoot",
    "unmasked",
]

SPOT_IN_TERRAIN = 2  # squares, inside a terrain element [L1812-L1813]

SPOTTED = "spotted"
AUSPEX = "auspex"
ASSAULT = "assault"
SHOOTS = "shoots"

# the commands that are a Shooting Action of the unit revealed (an Alternative one included)
SHOOTING = (
    Shoot,
    DoubleShot,
    Burst,
    Snipe,
    VehicleFire,
    TemplateFire,
    Flame,
    Grenade,
    Kombi,
    Demolish,
    Manifest,
)


class Out(Protocol):
    state: BattleState

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None: ...


def ambushed(u: UnitState) -> bool:
    """On its Ambush face on the battlefield."""
    return u.alive and u.status.face is FaceKind.AMBUSH and u.placement is not None


def deploy_faces(u: UnitState) -> dict[str, list[str]]:
    """A counter with an Ambush face deploys on it or on its first face (``faces``, for the
    set-up's legal actions); ``{}`` for any other."""
    if u.counter.face(FaceKind.AMBUSH) is None:
        return {}
    kinds = dict.fromkeys([u.counter.first_face.kind, FaceKind.AMBUSH])
    return {"faces": [str(k) for k in kinds]}


def revealed_face(u: UnitState) -> FaceKind:
    """The face an ambushed unit turns to: its Inactive face (its first other face when the
    counter has none)."""
    if u.counter.face(FaceKind.INACTIVE) is not None:
        return FaceKind.INACTIVE
    return next(f.kind for f in u.counter.faces if f.kind is not FaceKind.AMBUSH)


def unmasked(u: UnitState) -> UnitState:
    """``u`` as it fights once flipped (an assault's odds)."""
    if not ambushed(u):
        return u
    return replace(u, status=replace(u.status, face=revealed_face(u)))


def blockers(state: BattleState, leave_out: Iterable[str]) -> list[Blocker]:
    """The units that may stand in a line of sight (an ambushed one never blocks
    [L1790])."""
    skip = set(leave_out)
    return [
        Blocker(u.placement.squares, u.counter.unit_class, ambushed(u))
        for u in state.on_board()
        if u.uid not in skip and u.placement is not None
    ]


def _sees(state: BattleState, spotter: UnitState, target: UnitState) -> bool:
    if (
        spotter.side == target.side
        or not spotter.alive
        or spotter.placement is None
        or spotter.counter.unit_class is UnitClass.HEAVY_VEHICLE  # [L1816-L1817]
    ):
        return False
    assert target.placement is not None
    here, there = spotter.placement.squares, target.placement.squares
    if any(state.board.elements_at(sq) for sq in there) and distance(here, there) > SPOT_IN_TERRAIN:
        return False
    los = best_line_of_sight(
        state.board,
        here,
        there,
        shooter_class=spotter.counter.unit_class,
        target_class=target.counter.unit_class,
        blockers=blockers(state, (spotter.uid, target.uid)),
    )
    return los.sight is Sight.CLEAR


def spotter_of(
    state: BattleState, target: UnitState, among: Iterable[UnitState] | None = None
) -> str | None:
    """The first unit (by id) of ``among`` (every enemy unit) that spots the ambushed
    ``target`` now; ``None`` when none does."""
    if not ambushed(target):
        return None
    pool = state.on_board() if among is None else list(among)
    for s in sorted(pool, key=lambda s: s.uid):
        if _sees(state, s, target):
            return s.uid
    return None


def unmask(out: Out, uid: str, why: str, by: str = "", after: int | None = None) -> None:
    u = out.state.units[uid]
    if ambushed(u):
        out.emit(UnitSpotted(uid, str(revealed_face(u)), why, by, after))


def spot_on_the_way(out: Out, before: BattleState, event: UnitMoved) -> None:
    """After an ambushed unit's move (or part of it): spotted at the first square of it
    where an enemy unit sees it [L1818-L1820]."""
    u = before.units[event.unit]
    if not ambushed(u):
        return
    for k in range(1, len(event.path) + 1):
        probe = evolve(before, UnitMoved(u.uid, event.path[:k], 0))
        by = spotter_of(probe, probe.units[u.uid])
        if by is not None:
            unmask(out, u.uid, SPOTTED, by, k)
            return


def spot_step(state: BattleState, uid: str, path: tuple[object, ...]) -> int | None:
    """The step (1..) of ``path`` after which the moving ambushed unit ``uid`` is spotted
    (``None``: it is not): what the other side's En Alerte may shoot at."""
    u = state.units[uid]
    if not ambushed(u):
        return None
    for k in range(1, len(path) + 1):
        probe = evolve(state, UnitMoved(uid, path[:k], 0))  # type: ignore[arg-type]
        if spotter_of(probe, probe.units[uid]) is not None:
            return k
    return None


def as_spotted(state: BattleState, uid: str) -> BattleState:
    """The state with the ambushed ``uid`` turned to its Inactive face (a probe)."""
    u = state.units[uid]
    if not ambushed(u):
        return state
    return evolve(state, UnitSpotted(uid, str(revealed_face(u)), SPOTTED))


def spot_after_move(out: Out, mover: str) -> None:
    """The end of ``mover``'s Movement Action: the enemy ambushed units that a unit of its
    side now sees are spotted [L3156-L3157]."""
    state = out.state
    side = state.units[mover].side
    mine = [u for u in state.on_board() if u.side == side]
    for t in sorted(state.on_board(), key=lambda t: t.uid):
        if t.side == side or not ambushed(out.state.units[t.uid]):
            continue
        by = spotter_of(out.state, out.state.units[t.uid], mine)
        if by is not None:
            unmask(out, t.uid, SPOTTED, by)


def auspex_spots(out: Out, uid: str) -> None:
    """Auspex (N): activated, the unit spots every enemy ambushed unit within N squares,
    line of sight or not [L1776-L1780]."""
    u = out.state.units[uid]
    ref = u.face.ability(Ability.AUSPEX)
    if ref is None or not isinstance(ref.param, int) or u.placement is None or not u.alive:
        return
    for t in sorted(out.state.on_board(), key=lambda t: t.uid):
        if t.side == u.side or not ambushed(t):
            continue
        assert t.placement is not None
        if distance(u.placement.squares, t.placement.squares) <= ref.param:
            unmask(out, t.uid, AUSPEX, uid)


def unmask_to_shoot(out: Out, uid: str, command: Tagged | None) -> None:
    """An ambushed unit turns to its Inactive face before its Shooting Action; a Sniper
    whose Ambush face has the symbol shoots from it and stays ambushed [L1342-L1344]."""
    u = out.state.units[uid]
    if not isinstance(command, SHOOTING) or not ambushed(u):
        return
    if isinstance(command, Snipe) and u.face.has(Ability.SNIPER):
        return
    unmask(out, uid, SHOOTS)
