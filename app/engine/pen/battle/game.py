"""``PenBattle``: the object a match layer drives (create, execute, undo, view, export), a
thin façade over :class:`app.engine.match.log.Match` with the PEN rule book."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from app.engine.match.codec import CodecError, JsonObject
from app.engine.match.dice import Roll, audit_roll, derive_seed
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Envelope, Viewer
from app.engine.match.game import GameStatus
from app.engine.match.log import Match
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
from app.engine.roller import Roller

__all__ = ["SEED_SCHEME", "PenBattle", "command_from_json", "command_seed", "roll_identity"]

SEED_SCHEME = "pen-1"


def command_from_json(data: object) -> Command:
    try:
        cmd = COMMAND_CODEC.decode(data)
    except CodecError as exc:
        raise Refusal(
            "bad_command", str(exc), kind=RefusalKind.INPUT, details={"field": exc.path}
        ) from None
    assert isinstance(cmd, Command)
    return cmd


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


class PenBattle:
    def __init__(self, envelopes: Iterable[Envelope] = ()) -> None:
        self.match: Match[BattleState] = Match(RULE_BOOK, envelopes)

    @classmethod
    def create(cls, setup: BattleSetup, *, actor: str = "A", at: str | None = None) -> PenBattle:
        battle = cls()
        battle.match.execute(CreateBattle(setup), actor, at=at)
        return battle

    def fork(self) -> PenBattle:
        """A copy that can execute commands without touching this battle."""
        clone = type(self).__new__(type(self))  # a subclass keeps its type
        clone.match = self.match.fork()
        return clone

    @classmethod
    def decode(cls, data: object) -> Command:
        """A command from its JSON form (a 422 :class:`Refusal` when malformed)."""
        return command_from_json(data)

    def command_seed(self, secret: str | bytes, command: Command, seat: str | None = None) -> int:
        return command_seed(secret, self.state, command, seat)

    @classmethod
    def import_log(cls, data: object) -> PenBattle:
        battle = cls()
        battle.match = Match.import_log(RULE_BOOK, data)
        return battle

    @property
    def state(self) -> BattleState:
        return self.match.state

    @property
    def version(self) -> int:
        return self.match.version

    @property
    def envelopes(self) -> tuple[Envelope, ...]:
        return self.match.envelopes

    def log_for(self, viewer: Viewer) -> list[Envelope]:
        return self.match.log_for(viewer)

    def view(self, viewer: Viewer) -> JsonObject:
        view = render(self.state, viewer)
        view["version"] = self.version
        undo = self.match.undo_candidate()
        view["can_undo"] = (
            undo is not None
            and viewer is not None
            and undo[1] == viewer
            and self.match.undo_request is None
        )
        view["undo_needs_approval"] = bool(view["can_undo"]) and self.match.undo_needs_approval()
        request = self.match.undo_request
        view["undo_request"] = (
            None if request is None else {"batch": request.batch, "by": request.actor}
        )
        return view

    def legal_actions(self, seat: str) -> list[JsonObject]:
        actions = legal_actions(self.state, seat)
        request = self.match.undo_request
        if request is not None and request.actor != seat:
            for answer in (ApproveUndo(request.batch), RefuseUndo(request.batch)):
                actions.insert(0, {"command": COMMAND_CODEC.encode(answer)})
        return actions

    def log_json(self, viewer: Viewer, since: int = 0) -> list[JsonObject]:
        codec = RULE_BOOK.event_codec
        return [e.to_json(codec) for e in self.log_for(viewer) if e.seq > since]

    def audit(self) -> list[JsonObject]:
        out: list[JsonObject] = []
        for env in self.match.envelopes:
            roll = getattr(env.event, "roll", None)
            if isinstance(roll, Roll) and roll.dice:
                out.append({"seq": env.seq, "event": env.event.kind, "ok": audit_roll(roll)})
        return out

    def export_log(self) -> JsonObject:
        return self.match.export_log()

    def export_json(self) -> str:
        return self.match.export_json()

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

    def execute(
        self,
        command: Command,
        actor: str,
        *,
        expected_version: int | None = None,
        seed: int | None = None,
        dice: Sequence[int] | None = None,
        at: str | None = None,
    ) -> list[Envelope]:
        if isinstance(command, Undo):
            return self.match.undo(actor, expected_version=expected_version, at=at)
        if isinstance(command, ApproveUndo | RefuseUndo):
            return self.match.answer_undo(
                actor,
                command.batch,
                approve=isinstance(command, ApproveUndo),
                expected_version=expected_version,
                at=at,
            )
        roller = Roller.from_values(dice) if dice is not None else None
        return self.match.execute(
            command, actor, expected_version=expected_version, dice=roller, seed=seed, at=at
        )

    def execute_json(
        self,
        data: Mapping[str, object],
        actor: str,
        *,
        expected_version: int | None = None,
        seed: int | None = None,
        dice: Sequence[int] | None = None,
        at: str | None = None,
    ) -> list[Envelope]:
        return self.execute(
            command_from_json(data),
            actor,
            expected_version=expected_version,
            seed=seed,
            dice=dice,
            at=at,
        )
