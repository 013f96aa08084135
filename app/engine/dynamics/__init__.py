"""The Dynamics turn (rules/dynamics.md, seed 004) as a turn structure of PEN battles: one
common turn, hidden orders committed by hash, revealed from Initiative 1 to 10 and resolved
from 10 to 1, every attack rolled by the PEN battle engine (:mod:`app.engine.pen.battle`).

- :class:`DynamicsBattle` (``game``): create(setup, secret=...), execute, undo, view(seat),
  log_json(seat), export_for(seat), audit(seat), export_log (server only), import_log;
- :class:`DynamicsSetup` (``setup``); the orders and their commitments (``orders``).

Not registered as a ``match`` capability yet: the match feature cannot drive it.
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
