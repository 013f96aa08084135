"""The PEN battle (rules/pen.md §3-§5, §9.2): an event-sourced match from set-up to the
victory points, on the neutral machinery of :mod:`app.engine.match`.

- :class:`PenBattle` (``game``): create, execute / execute_json, undo, view(seat),
  legal_actions(seat), log_json, audit, export_log / import_log;
- the inputs (``setup``): :class:`BattleSetup`, :class:`ArmySpec`, :class:`UnitSpec`,
  :class:`WeaponSpec`; the commands (``commands``) and events (``events``).

``PenBattle`` satisfies :class:`app.engine.match.game.MatchGame` (fork, decode,
command_seed, status...); what the engine leaves to the table is listed in
``docs/rulings/pen.md`` (B1-B36).
"""

from app.engine.pen.battle.commands import (
    COMMAND_CODEC,
    Command,
    Pairing,
    RamTarget,
    WeaponGroup,
)
from app.engine.pen.battle.events import EVENT_CODEC
from app.engine.pen.battle.game import PenBattle, command_from_json, command_seed
from app.engine.pen.battle.rules import RULE_BOOK, victory_points
from app.engine.pen.battle.setup import ArmySpec, BattleSetup, UnitSpec, WeaponSpec
from app.engine.pen.battle.state import BattleState, Phase, Place, ReserveMode, Speed, Stage

__all__ = [
    "COMMAND_CODEC",
    "EVENT_CODEC",
    "RULE_BOOK",
    "ArmySpec",
    "BattleSetup",
    "BattleState",
    "Command",
    "Pairing",
    "PenBattle",
    "Phase",
    "Place",
    "RamTarget",
    "ReserveMode",
    "Speed",
    "Stage",
    "UnitSpec",
    "WeaponGroup",
    "WeaponSpec",
    "command_from_json",
    "command_seed",
    "victory_points",
]
