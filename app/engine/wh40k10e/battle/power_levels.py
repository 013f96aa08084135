"""Power Level in a narrative mission whose value measure is ``"power"`` (the match setting
``value_measure``, or its pack's; docs/rulings/narrative-8e.md, 1 and 85).

The 10th edition has no Power Level: the players enter their units' Power Levels with
``declare_power_levels`` while the Attacker is not chosen yet (every unit of their army, 1 to
100 each, again to correct them), and the roll-off for the Attacker is refused until both
players have. Wherever the scenario compares a value (who attacks, the sentries' limit, the
escapes of Ambush) it then reads :func:`unit_value`: the unit's points, or its Power Level. A
match that counts points (every match recorded before this setting) never reaches the levels:
its state keeps none and reads the points as it always did, and so does a match of a
``"power"`` pack whose Attacker was chosen before the levels could be entered.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from app.engine.match.codec import Tagged
from app.engine.match.events import Event
from app.engine.narrative8e.setup import NarrativeError, check_power_levels
from app.engine.wh40k10e.battle.commands import DeclarePowerLevels
from app.engine.wh40k10e.battle.errors import Code, refuse
from app.engine.wh40k10e.battle.setup import Seat
from app.engine.wh40k10e.battle.state import Stage

if TYPE_CHECKING:
    from app.engine.wh40k10e.battle.flow import Builder
    from app.engine.wh40k10e.battle.narrative import NarrativeState
    from app.engine.wh40k10e.battle.state import BattleState

__all__ = [
    "POWER",
    "POWER_COMMANDS",
    "POWER_EVENTS",
    "POWER_HANDLERS",
    "PowerLevelsDeclared",
    "army_value",
    "may_declare",
    "missing_levels",
    "sentry_limit",
    "unit_value",
]

POWER = "power"


@dataclass(frozen=True, slots=True)
class PowerLevelsDeclared(Event):
    """Public: ``seat`` entered the Power Level of each of its units (replacing any before)."""

    kind: ClassVar[str] = "narrative_power_levels_declared"
    seat: Seat
    levels: Mapping[str, int]


POWER_EVENTS: tuple[type[Event], ...] = (PowerLevelsDeclared,)


def _declared(state: BattleState, e: PowerLevelsDeclared) -> BattleState:
    n = state.narrative
    assert n is not None
    kept = {u: v for u, v in n.power.items() if state.units[u].owner is not e.seat}
    return replace(state, narrative=replace(n, power={**kept, **e.levels}))


POWER_HANDLERS: dict[type[Event], Callable[[BattleState, Any], BattleState]] = {
    PowerLevelsDeclared: _declared,
}


# -- reading a value -------------------------------------------------------------------------


def _power(n: NarrativeState) -> bool:
    return n.value_measure == POWER


def missing_levels(state: BattleState, seat: Seat) -> list[str]:
    """``seat``'s units whose Power Level is not entered (none when the match counts points)."""
    n = state.narrative
    if n is None or not _power(n):
        return []
    return [u.id for u in state.units_of(seat) if u.id not in n.power]


def unit_value(state: BattleState, unit: str) -> int:
    """What a unit is worth in this match: its points, or the Power Level its player entered
    (refused, naming the units, while one is missing)."""
    n = state.narrative
    if n is None or not _power(n) or (not n.power and state.attacker is not None):
        # a match of a "power" pack recorded before Power Levels could be entered chose its
        # Attacker by points: it keeps counting them
        return state.specs[unit].points
    level = n.power.get(unit)
    if level is None:
        owner = state.units[unit].owner
        missing = ", ".join(missing_levels(state, owner)[:10])
        raise refuse(
            Code.BAD_COMMAND,
            f"this match counts Power Level: player {owner} enters the Power Level of every "
            f"unit first (declare_power_levels; missing: {missing})",
        )
    return level


def army_value(state: BattleState, seat: Seat) -> int:
    """The army's value: the sum of its units' (:func:`unit_value`)."""
    return sum(unit_value(state, u.id) for u in state.units_of(seat))


def sentry_limit(n: NarrativeState) -> tuple[int, str]:
    """The most a sentry unit may be worth, and its unit: the pack's ``max_power`` (Power
    Level) or ``max_points``."""
    rule = n.rules.sentries
    return (rule.max_power, "Power Level") if _power(n) else (rule.max_points, "points")


# -- the command -----------------------------------------------------------------------------


def may_declare(state: BattleState) -> bool:
    """Power Levels are entered before the roll-off for the Attacker (not after it)."""
    n = state.narrative
    return (
        n is not None
        and _power(n)
        and state.attacker is None
        and state.stage in (Stage.CREATED, Stage.ROLL_OFF)
    )


def declare_power_levels(b: Builder, cmd: DeclarePowerLevels) -> None:
    n = b.state.narrative
    if n is None:
        raise refuse(Code.WRONG_STAGE, "this match does not play a narrative mission")
    if not _power(n):
        raise refuse(Code.BAD_COMMAND, "this match counts points, not Power Level")
    if not may_declare(b.state):
        raise refuse(Code.WRONG_STAGE, "Power Levels are entered before the Attacker is chosen")
    units = [u.id for u in b.state.units_of(b.actor)]
    try:
        levels = check_power_levels(units, cmd.levels)
    except NarrativeError as exc:
        raise refuse(Code.BAD_COMMAND, f"Power Level: {exc}") from None
    b.emit(PowerLevelsDeclared(b.actor, levels))


POWER_COMMANDS: dict[type[Tagged], Callable[[Builder, Any], None]] = {
    DeclarePowerLevels: declare_power_levels,
}
