"""Mekaniak, Grot Oiler and Techmarine (rulings 102): the mechanics who change an allied
heavy vehicle's location roll [L1831-L1859], [L1890-L1902].

The roll is the attacker's, made in the attacker's command: the owner cannot answer it, so
a mechanic is **readied** beforehand (``ready_repair``, at any time of the battle, as the
rulebook has the Mekaniak announce his change before the roll): a Mekaniak with the change
he makes (+1 or −1; +2 or −2 when a Grot Oiler helps), a Techmarine with the die his side
keeps of the two then rolled (the lower or the higher). The first location roll of an
allied heavy vehicle within 3 squares of him (or the one he rides in) while he is not yet
activated this turn nor Suppressed uses him: he takes an Activated marker (his token is
then played with no effect), as does the Grot Oiler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from app.engine.black_reach.battle.commands import ReadyRepair
from app.engine.black_reach.battle.events import RepairReadied
from app.engine.black_reach.battle.state import BattleState, Stage, UnitState
from app.engine.black_reach.forces import Ability
from app.engine.black_reach.los import distance
from app.engine.black_reach.movement import zone_of_control
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Event

__all__ = ["MECHANIC_RANGE", "Repair", "find_repair", "ready_repair"]

MECHANIC_RANGE = 3  # an allied heavy vehicle within 3 squares [L1836-L1838], [L1894-L1896]


class Out(Protocol):
    state: BattleState

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None: ...


@dataclass(frozen=True)
class Repair:
    """The mechanic who acts on a location roll: a Mekaniak's ``modifier`` (with the Grot
    Oiler ``oiler`` when it is ±2) or a Techmarine's ``pick`` of two dice."""

    unit: str
    modifier: int = 0
    oiler: str | None = None
    pick: str = ""  # Techmarine: "low" or "high"


def _refuse(code: str, message: str, kind: RefusalKind = RefusalKind.RULES) -> Refusal:
    return Refusal(code, message, kind=kind)


def ready_repair(out: Out, command: ReadyRepair, side: str) -> None:
    state = out.state
    if state.stage is not Stage.BATTLE:
        raise _refuse("wrong_stage", "mechanics are readied during the battle")
    u = state.units.get(command.unit)
    if u is None:
        raise _refuse("unknown_unit", f"there is no unit {command.unit!r}", RefusalKind.INPUT)
    if u.side != side:
        raise _refuse("not_your_unit", f"{u.uid} is not yours", RefusalKind.FORBIDDEN)
    if not u.alive:
        raise _refuse("destroyed", f"{u.uid} is destroyed")
    if u.face.has(Ability.MEKANIAK):
        if command.modifier not in (-2, -1, 1, 2) or command.pick:
            raise _refuse(
                "bad_repair",
                "a Mekaniak raises or lowers the roll: modifier -1 or +1 (-2 or +2 with a Grot "
                "Oiler)",
                RefusalKind.INPUT,
            )
    elif u.face.has(Ability.TECHMARINE):
        if command.pick not in ("low", "high") or command.modifier:
            raise _refuse(
                "bad_repair", "a Techmarine keeps the low or the high die", RefusalKind.INPUT
            )
    else:
        raise _refuse("no_mechanic", f"{u.uid} is neither a Mekaniak nor a Techmarine")
    out.emit(RepairReadied(u.uid, command.modifier, command.pick))


def _available(state: BattleState, u: UnitState) -> bool:
    """Not yet activated this turn (no token revealed, no Activated marker), not Suppressed."""
    return (
        u.alive
        and u.uid not in state.acted
        and u.uid not in state.activated
        and u.suppressed == 0
        and (u.placement is not None or u.embarked_in is not None)
    )


def _near(state: BattleState, u: UnitState, vehicle: UnitState) -> bool:
    if u.embarked_in == vehicle.uid:
        return True  # the vehicle he rides in [L1844-L1845], [L1901-L1902]
    if u.placement is None or vehicle.placement is None:
        return False
    return distance(u.placement.squares, vehicle.placement.squares) <= MECHANIC_RANGE


def _oiler(state: BattleState, mekaniak: UnitState) -> str | None:
    """A non-activated Grot Oiler whose zone of control holds the Mekaniak [L1847-L1859]."""
    if mekaniak.placement is None:
        return None
    for g in sorted(state.units.values(), key=lambda x: x.uid):
        if g.side != mekaniak.side or g.uid == mekaniak.uid or not g.face.has(Ability.GROT_OILER):
            continue
        if not _available(state, g) or g.placement is None:
            continue
        if mekaniak.placement.squares & zone_of_control(state.board, g.board_unit()):
            return g.uid
    return None


def find_repair(state: BattleState, vehicle: UnitState) -> Repair | None:
    """The readied mechanic who acts on ``vehicle``'s location roll, if any (the first in
    the order of the units' ids). A Mekaniak readied for ±2 without a Grot Oiler at hand
    changes the roll by 1."""
    for uid in sorted(state.repairs):
        u = state.units.get(uid)
        if u is None or u.side != vehicle.side or not _available(state, u):
            continue
        if not _near(state, u, vehicle):
            continue
        modifier, pick = state.repairs[uid]
        if u.face.has(Ability.MEKANIAK):
            oiler = _oiler(state, u) if abs(modifier) == 2 else None
            if abs(modifier) == 2 and oiler is None:
                modifier //= 2
            return Repair(uid, modifier, oiler)
        if u.face.has(Ability.TECHMARINE):
            return Repair(uid, pick=pick)
    return None
