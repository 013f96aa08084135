"""The 10th-edition battle: an event-sourced match from set-up to the confirmed result.

Entry points for the service layer:

- :class:`Battle` (``game``): ``Battle.create(setup)``, ``execute`` / ``execute_json``
  (commands from ``commands``; ``Undo`` appends a compensating event), ``view(seat)``,
  ``legal_actions(seat)``, ``log_json(seat)``, ``export_log`` / ``Battle.import_log``;
- the inputs (``setup``): :class:`MatchSetup`, :class:`ArmySpec`, :class:`UnitSpec`;
- the refusal codes (``errors.Code``), the core Stratagems as data (``stratagems``).
"""

from app.engine.wh40k10e.battle.commands import COMMAND_CODEC, Command
from app.engine.wh40k10e.battle.errors import Code
from app.engine.wh40k10e.battle.events import EVENT_CODEC
from app.engine.wh40k10e.battle.game import Battle, command_from_json, command_seed
from app.engine.wh40k10e.battle.rules import RULE_BOOK, check_mission
from app.engine.wh40k10e.battle.setup import (
    Ability,
    ArmySpec,
    BattleOptions,
    MatchSetup,
    Seat,
    UnitSpec,
)
from app.engine.wh40k10e.battle.state import BattleState, Formation, Presence, ReserveKind
from app.engine.wh40k10e.battle.stratagems import CORE_STRATAGEMS, STRATAGEMS

__all__ = [
    "COMMAND_CODEC",
    "CORE_STRATAGEMS",
    "EVENT_CODEC",
    "RULE_BOOK",
    "STRATAGEMS",
    "Ability",
    "ArmySpec",
    "Battle",
    "BattleOptions",
    "BattleState",
    "Code",
    "Command",
    "Formation",
    "MatchSetup",
    "Presence",
    "ReserveKind",
    "Seat",
    "UnitSpec",
    "check_mission",
    "command_from_json",
    "command_seed",
]
