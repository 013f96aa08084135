"""``PenBattle``: the object a match layer drives (create, execute, undo, view, export), a
thin façade over :class:`app.engine.match.log.Match` with the PEN rule book."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from app.engine.match.codec import CodecError, JsonObject
from app.engine.match.dice import Roll, audit_roll
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Envelope, Viewer
from app.engine.match.log import Match
from app.engine.pen.battle.commands import (
    COMMAND_CODEC,
    ApproveUndo,
    Command,
    CreateBattle,
    RefuseUndo,
    Undo,
)
from app.engine.pen.battle.rules import RULE_BOOK
from app.engine.pen.battle.setup import BattleSetup
from app.engine.pen.battle.state import BattleState
from app.engine.pen.battle.views import legal_actions, render
from app.engine.roller import Roller

__all__ = ["PenBattle", "command_from_json"]


def command_from_json(data: object) -> Command:
    try:
        cmd = COMMAND_CODEC.decode(data)
    except CodecError as exc:
        raise Refusal(
            "bad_command", str(exc), kind=RefusalKind.INPUT, details={"field": exc.path}
        ) from None
    assert isinstance(cmd, Command)
    return cmd


class PenBattle:
    def __init__(self, envelopes: Iterable[Envelope] = ()) -> None:
        self.match: Match[BattleState] = Match(RULE_BOOK, envelopes)

    @classmethod
    def create(cls, setup: BattleSetup, *, actor: str = "A", at: str | None = None) -> PenBattle:
        battle = cls()
        battle.match.execute(CreateBattle(setup), actor, at=at)
        return battle

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
        return [e.to_json(codec) for e in self.match.log_for(viewer) if e.seq > since]

    def audit(self) -> list[JsonObject]:
        out: list[JsonObject] = []
        for env in self.match.envelopes:
            roll = getattr(env.event, "roll", None)
            if isinstance(roll, Roll) and roll.dice:
                out.append({"seq": env.seq, "event": env.event.kind, "ok": audit_roll(roll)})
        return out

    def export_log(self) -> JsonObject:
        return self.match.export_log()

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

    def execute_json(self, data: Mapping[str, object], actor: str, **kw: object) -> list[Envelope]:
        return self.execute(command_from_json(data), actor, **kw)  # type: ignore[arg-type]
