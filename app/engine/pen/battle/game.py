"""``PenBattle``: the object a match layer drives (create, execute, undo, view, export), a
thin façade over :class:`app.engine.match.log.Match` with the PEN rule book."""

from __future__ import annotations

from app.engine.match.battle import BattleGame, decode_command
from app.engine.match.codec import JsonObject
from app.engine.match.dice import derive_seed
from app.engine.match.events import Viewer
from app.engine.match.game import GameStatus
from app.engine.match.log import RuleBook
from app.engine.pen.battle.commands import (
    COMMAND_CODEC,
    ApproveUndo,
    Command,
    CreateBattle,
    RefuseUndo,
    Undo,
)
from app.engine.pen.battle.rules import RULE_BOOK, victory_points
from app.engine.pen.battle.setup import BattleSetup
from app.engine.pen.battle.state import BattleState, Stage
from app.engine.pen.battle.views import legal_actions, render

__all__ = ["SEED_SCHEME", "PenBattle", "command_from_json", "command_seed", "roll_identity"]

SEED_SCHEME = "pen-1"


def command_from_json(data: object) -> Command:
    """Decode a command (``{"type": kind, ...}``); a malformed one is a 422 refusal."""
    return decode_command(COMMAND_CODEC, data, Command)


def roll_identity(
    state: BattleState, command: Command, seat: str | None = None
) -> tuple[str | int, ...]:
    """What a roll *is*: where the battle stands (stage, round, turn, phase), the command's
    kind, who rolls, the squad and how many rolls that squad made this turn. Nothing an undo
    leaves behind (the log position) enters it, so an undone roll sent again draws the same
    dice."""
    unit = getattr(command, "unit", None)
    subject, ordinal = "", 0
    if isinstance(unit, str) and unit in state.units:
        subject, ordinal = unit, state.units[unit].rolls
    where = (
        str(state.stage),
        state.round,
        state.turn,
        "" if state.phase is None else str(state.phase),
    )
    return (SEED_SCHEME, command.kind, *where, seat or "", subject, ordinal)


def command_seed(
    secret: str | bytes, state: BattleState, command: Command, seat: str | None = None
) -> int:
    """A seed for ``command`` from a server-side match secret and the roll's identity."""
    return derive_seed(secret, *roll_identity(state, command, seat))


class PenBattle(BattleGame[BattleState, Command, BattleSetup]):
    """One PEN battle: its log, its state, its views.

    Satisfies :class:`app.engine.match.game.MatchGame` (ADR 0013)."""

    undo_command = Undo
    approve_command = ApproveUndo
    undo_answers = (RefuseUndo, ApproveUndo)

    def rule_book(self) -> RuleBook[BattleState]:
        return RULE_BOOK

    @classmethod
    def creation(cls, setup: BattleSetup) -> Command:
        return CreateBattle(setup)

    def render(self, viewer: Viewer) -> JsonObject:
        return render(self.state, viewer)

    def actions(self, seat: str) -> list[JsonObject]:
        return legal_actions(self.state, seat)

    def roll_identity(self, command: Command, seat: str | None = None) -> tuple[str | int, ...]:
        return roll_identity(self.state, command, seat)

    @classmethod
    def decode(cls, data: object) -> Command:
        """A command from its JSON form (a 422 refusal when malformed)."""
        return command_from_json(data)

    def status(self) -> GameStatus:
        """Where the battle stands, in the match feature's shared words. PEN has no
        confirmation step: the result is computed from the objectives both players reported
        on the table, so an ended battle is confirmed."""
        state = self.state
        if state.stage is Stage.ENDED:
            return GameStatus(
                "ended",
                confirmed=True,
                winner=state.winner or "draw",
                scores=dict(state.result),
                round=state.round,
            )
        if state.stage in (Stage.BATTLE, Stage.SCORING):
            return GameStatus("battle", scores=victory_points(state), round=state.round)
        return GameStatus("setup", round=state.round)
