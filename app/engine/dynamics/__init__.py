"""The Dynamics turn (rules/dynamics.md, seed 004) as a turn structure of PEN battles: one
common turn, hidden orders committed by hash, revealed from Initiative 1 to 10 and resolved
from 10 to 1, every attack rolled by the PEN battle engine (:mod:`app.engine.pen.battle`).

- :class:`DynamicsBattle` (``game``): the members of :class:`app.engine.match.game.MatchGame`
  (create, import_log, fork, decode, command_seed, execute/execute_json, view, legal_actions,
  log_for, log_json, audit, export_log, status) plus export_for(seat);
- :class:`DynamicsSetup` (``setup``); the orders and their commitments (``orders``);
  the legal actions (``actions``).

A PEN match plays it when created with ``options.turn_structure = "dynamics"`` (PEN's entry in
the registry lists its turn structures; the match feature's PEN system holds either game).
"""

from app.engine.dynamics.commands import COMMAND_CODEC
from app.engine.dynamics.events import EVENT_CODEC
from app.engine.dynamics.game import DynamicsBattle, command_from_json
from app.engine.dynamics.orders import Order, commitment, order_nonce, verify
from app.engine.dynamics.rules import DynamicsRuleBook
from app.engine.dynamics.setup import DynamicsSetup, tokens_needed
from app.engine.dynamics.state import Declaration, DynamicsState, DynStage, Slot

__all__ = [
    "COMMAND_CODEC",
    "EVENT_CODEC",
    "Declaration",
    "DynStage",
    "DynamicsBattle",
    "DynamicsRuleBook",
    "DynamicsSetup",
    "DynamicsState",
    "Order",
    "Slot",
    "command_from_json",
    "commitment",
    "order_nonce",
    "tokens_needed",
    "verify",
]
