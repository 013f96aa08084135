"""The Heroes of Black Reach battle (rules/black-reach.md §3-§5): an event-sourced match from
the scenario's set-up to its victory check, on the neutral machinery of
:mod:`app.engine.match`.

- :class:`BlackReachBattle` (``game``): the :class:`~app.engine.match.game.MatchGame` façade;
- the inputs (``setup``): :class:`BattleSetup`, :class:`Deploy`, :func:`sample_setup`;
- the commands (``commands``) and the events (``events``).
"""

from app.engine.black_reach.battle.commands import COMMAND_CODEC, Command
from app.engine.black_reach.battle.events import EVENT_CODEC
from app.engine.black_reach.battle.game import BlackReachBattle, command_from_json
from app.engine.black_reach.battle.rules import RULE_BOOK, plan_shot
from app.engine.black_reach.battle.setup import BattleSetup, Deploy, parse_setup, sample_setup
from app.engine.black_reach.battle.state import BattleState, Stage

__all__ = [
    "COMMAND_CODEC",
    "EVENT_CODEC",
    "RULE_BOOK",
    "BattleSetup",
    "BattleState",
    "BlackReachBattle",
    "Command",
    "Deploy",
    "Stage",
    "command_from_json",
    "parse_setup",
    "plan_shot",
    "sample_setup",
]
