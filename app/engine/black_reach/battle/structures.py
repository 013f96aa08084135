"""Structures and their Destruction points (rulings 104): Destruction (N) on a Shooting
Action or an Assault at a unit inside a structure or at the structure itself, and Démolisseur
(N) at the end of a Movement Action [L1174-L1194], [L1746-L1753].

A structure is a terrain element with a ``structure`` value: a board's building, or a wreck
(its wreck face's terrain). Its points are kept under the element's id, a wreck's under its
unit's; at its value a wreck is removed, a board's structure is destroyed and takes no more
points: the board turns it over to its ruin face when the data gives one (rulings 134,
``board.with_ruins``), else it stays as printed.
"""

from __future__ import annotations

from typing import Protocol

from app.engine.black_reach.battle.events import DestructionDealt
from app.engine.black_reach.battle.state import BattleState, UnitState
from app.engine.black_reach.board import Square, TerrainElement
from app.engine.black_reach.forces import Ability, AbilityRef
from app.engine.black_reach.tables import DESTRUCTION_SUCCESS, structure_destroyed
from app.engine.black_reach.templates import Template
from app.engine.match.dice import take_roll
from app.engine.match.events import Event
from app.engine.roller import Roller

__all__ = [
    "MAX_DESTRUCTION_DICE",
    "destruction_dice",
    "roll_destruction",
    "structure_holding",
    "structure_key",
    "structure_of",
    "structures",
    "structures_under",
    "template_destruction",
]

MAX_DESTRUCTION_DICE = 10


class Out(Protocol):
    state: BattleState
    roller: Roller

    def emit(self, event: Event, audience: tuple[str, ...] | None = None) -> None: ...


def structure_key(element: TerrainElement) -> str:
    """Where its points are kept: a wreck's under its unit, a board element's under its id."""
    return element.id.removeprefix("wreck:")


def structures(state: BattleState) -> dict[str, TerrainElement]:
    """The structures standing on the battlefield, by element id."""
    return {
        e.id: e
        for e in state.board.elements
        if e.structure is not None and structure_key(e) not in state.ruined
    }


def structure_of(state: BattleState, element_id: str) -> TerrainElement | None:
    return structures(state).get(element_id)


def structure_holding(state: BattleState, u: UnitState) -> TerrainElement | None:
    """The structure the unit stands in (every square of it inside, note §8 item 48)."""
    if u.placement is None:
        return None
    for e in structures(state).values():
        if u.placement.squares <= e.squares and not e.id.startswith("wreck:"):
            return e
    return None


def structures_under(state: BattleState, squares: frozenset[Square]) -> list[TerrainElement]:
    """The structures standing with a square under a template, even partly (a board's
    building or a wreck), by element id."""
    return sorted(
        (e for e in structures(state).values() if e.squares & squares), key=lambda e: e.id
    )


def destruction_dice(ref: AbilityRef | None) -> int:
    """The dice of a Destruction or Démolisseur symbol (0: none)."""
    if ref is None or not isinstance(ref.param, int):
        return 0
    return max(0, min(ref.param, MAX_DESTRUCTION_DICE))


def roll_destruction(out: Out, element: TerrainElement, dice: int, by: str) -> None:
    """``dice`` dice, each at 4 or more one Destruction point (never Suppressed [L1468]); at
    the structure's value it is destroyed [L1186-L1194]."""
    assert element.structure is not None
    key = structure_key(element)
    start = len(out.roller.records)
    points = sum(
        out.roller.d6(f"destruction of {element.id} by {by}", stage="destruction")
        >= DESTRUCTION_SUCCESS
        for _ in range(dice)
    )
    total = out.state.destruction.get(key, 0) + points
    removed = structure_destroyed(total, element.structure)
    out.emit(DestructionDealt(key, points, total, removed, by, take_roll(out.roller, start)))


def template_destruction(out: Out, template: Template, squares: frozenset[Square], by: str) -> None:
    """A template whose data holds Destruction (N) hits every structure under it, even
    partly, once, after the units under it are resolved: N dice at each, in order of their
    ids [L1174-L1194], [L1397-L1405] (rulings 106). Without the ability it rolls nothing."""
    ref = next((a for a in template.abilities if a.ability == Ability.DESTRUCTION), None)
    dice = destruction_dice(ref)
    if dice == 0:
        return
    for element in structures_under(out.state, squares):
        if element.id in structures(out.state):  # not fallen meanwhile
            roll_destruction(out, element, dice, by)
