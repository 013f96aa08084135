"""The PEN battle (rules/pen.md §3-§5, §9.2): an event-sourced match from set-up to the
victory points, on the neutral machinery of :mod:`app.engine.match`.

- :class:`PenBattle` (``game``): create, execute / execute_json, undo, view(seat),
  legal_actions(seat), log_json, audit, export_log / import_log;
- the inputs (``setup``): :class:`BattleSetup`, :class:`ArmySpec`, :class:`UnitSpec`,
  :class:`WeaponSpec`; the commands (``commands``) and events (``events``).

Not registered as a ``match`` capability: the match feature cannot drive it yet.
"""

from app.engine.pen.battle.commands import COMMAND_CODEC, Command
from app.engine.pen.battle.events import EVENT_CODEC
from app.engine.pen.battle.game import PenBattle, command_from_json
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
    "PenBattle",
    "Phase",
    "Place",
    "ReserveMode",
    "Speed",
    "Stage",
    "UnitSpec",
    "WeaponSpec",
    "command_from_json",
    "victory_points",
]
