"""``DynamicsBattle``: the object a match layer drives, a thin façade over
:class:`app.engine.match.log.Match` with the Dynamics rule book; it has the members of
:class:`app.engine.match.game.MatchGame`. Every reader takes the viewer's seat: ``view``,
``log_for``, ``log_json`` and ``export_for`` never hold an opponent's unrevealed order;
``audit`` lists rolls only (no order is a roll); ``export_log`` (the whole log, secrets
included) is for the server only.

The orders' nonces come from the match secret: either the ``secret`` given to the battle, or
(the match feature's way) the seed :meth:`DynamicsBattle.command_seed` derives from it for
the placement, which names the unit, the order and the placement's running number."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Self

from app.engine.dynamics.actions import legal_actions
from app.engine.dynamics.commands import COMMAND_CODEC, CreateDynamics, PlaceOrder
from app.engine.dynamics.rules import DynamicsRuleBook
from app.engine.dynamics.setup import DynamicsSetup
from app.engine.dynamics.state import DynamicsState, DynStage
from app.engine.dynamics.views import render
from app.engine.match.battle import BattleGame, decode_command
from app.engine.match.codec import JsonObject, Tagged
from app.engine.match.events import Envelope, Viewer
from app.engine.match.game import GameStatus
from app.engine.match.log import LOG_FORMAT
from app.engine.pen.battle.commands import ApproveUndo, RefuseUndo, Undo
from app.engine.pen.battle.rules import victory_points
from app.engine.pen.battle.state import Stage

__all__ = ["SEED_SCHEME", "DynamicsBattle", "command_from_json", "roll_identity"]

SEED_SCHEME = "dynamics-1"


def command_from_json(data: object) -> Tagged:
    """Decode a command (``{"type": kind, ...}``); a malformed one is a 422 refusal."""
    return decode_command(COMMAND_CODEC, data, Tagged)


def roll_identity(
    state: DynamicsState, command: Tagged, seat: str | None = None
) -> tuple[str | int, ...]:
    """What a roll *is*: where the turn stands (stage, turn, Initiative step), the command's
    kind, who sends it, its unit and how many dice events that unit had this turn. A
    placement adds its order and the running placement number (the nonce's source), so an
    order placed again gets a fresh nonce, and the same one after an undo. An advantage test
    is the same roll whether or not the +1 is spent. The log position never enters it: an
    undone roll sent again draws the same dice."""
    unit = getattr(command, "unit", None)
    subject, ordinal = "", 0
    if isinstance(unit, str):
        subject, ordinal = unit, state.rolls.get(unit, 0)
    extra: tuple[str | int, ...] = ()
    if isinstance(command, PlaceOrder):
        extra = (str(command.order), state.placements)
    where = (str(state.stage), str(state.battle.stage), state.turn, state.step)
    return (SEED_SCHEME, command.kind, *where, seat or "", subject, ordinal, *extra)


class DynamicsBattle(BattleGame[DynamicsState, Tagged, DynamicsSetup]):
    """One Dynamics battle; ``secret`` (the match's, server side), when given, seals the
    orders' nonces, else each placement's seed does. Its audit lists dice only: no hidden
    order is a roll, and its sequence number is one every player sees as a gap anyway."""

    undo_command = Undo
    approve_command = ApproveUndo
    undo_answers = (RefuseUndo, ApproveUndo)

    def __init__(
        self, envelopes: Iterable[Envelope] = (), *, secret: str | bytes | None = None
    ) -> None:
        self._secret = secret
        super().__init__(envelopes)

    @classmethod
    def create(
        cls,
        setup: DynamicsSetup,
        *,
        actor: str = "A",
        at: str | None = None,
        secret: str | bytes | None = None,
    ) -> Self:
        return cls(secret=secret).started(setup, actor=actor, at=at)

    @classmethod
    def import_log(cls, data: object, *, secret: str | bytes | None = None) -> Self:
        return cls(secret=secret).replaced(data)

    def rule_book(self) -> DynamicsRuleBook:
        return DynamicsRuleBook(self._secret)

    @classmethod
    def creation(cls, setup: DynamicsSetup) -> Tagged:
        return CreateDynamics(setup)

    def render(self, viewer: Viewer) -> JsonObject:
        return render(self.state, viewer)

    def actions(self, seat: str) -> list[JsonObject]:
        return legal_actions(self.state, seat)

    def roll_identity(self, command: Tagged, seat: str | None = None) -> tuple[str | int, ...]:
        return roll_identity(self.state, command, seat)

    @classmethod
    def decode(cls, data: object) -> Tagged:
        """A command from its JSON form (a 422 refusal when malformed)."""
        return command_from_json(data)

    def export_for(self, viewer: Viewer) -> JsonObject:
        """The log as ``viewer`` may read it (not replayable: secret events are absent)."""
        return {
            "format": LOG_FORMAT,
            "rule_system": self.match.book.rule_system,
            "viewer": viewer,
            "events": self.log_json(viewer),
        }

    def status(self) -> GameStatus:
        s = self.state
        b = s.battle
        if s.setup is None or s.stage is DynStage.SETUP:
            return GameStatus("setup")
        scores = dict(b.result) if b.result else victory_points(b)
        if b.stage is Stage.ENDED:
            winner = b.winner or "draw"
            return GameStatus("ended", winner=winner, scores=scores, round=s.turn)
        return GameStatus("battle", scores=scores, round=s.turn)
