"""``DynamicsBattle``: the object a match layer drives, a thin façade over
:class:`app.engine.match.log.Match` with the Dynamics rule book. Every reader takes the
viewer's seat: ``view``, ``log_json``, ``export_for`` and ``audit`` never hold an opponent's
unrevealed order; ``export_log`` (the whole log, secrets included) is for the server only."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from app.engine.dynamics.commands import COMMAND_CODEC, CreateDynamics
from app.engine.dynamics.rules import DynamicsRuleBook
from app.engine.dynamics.setup import DynamicsSetup
from app.engine.dynamics.state import DynamicsState
from app.engine.dynamics.views import render
from app.engine.match.codec import CodecError, JsonObject, Tagged
from app.engine.match.dice import Roll, audit_roll
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Envelope, Viewer
from app.engine.match.log import LOG_FORMAT, Match
from app.engine.pen.battle.commands import ApproveUndo, RefuseUndo, Undo
from app.engine.roller import Roller

__all__ = ["DynamicsBattle", "command_from_json"]


def command_from_json(data: object) -> Tagged:
    try:
        return COMMAND_CODEC.decode(data)
    except CodecError as exc:
        raise Refusal(
            "bad_command", str(exc), kind=RefusalKind.INPUT, details={"field": exc.path}
        ) from None


class DynamicsBattle:
    def __init__(self, envelopes: Iterable[Envelope] = (), *, secret: str | bytes | None = None):
        self.match: Match[DynamicsState] = Match(DynamicsRuleBook(secret), envelopes)

    @classmethod
    def create(
        cls, setup: DynamicsSetup, *, secret: str | bytes, actor: str = "A", at: str | None = None
    ) -> DynamicsBattle:
        battle = cls(secret=secret)
        battle.match.execute(CreateDynamics(setup), actor, at=at)
        return battle

    @classmethod
    def import_log(cls, data: object, *, secret: str | bytes | None = None) -> DynamicsBattle:
        battle = cls(secret=secret)
        battle.match = Match.import_log(DynamicsRuleBook(secret), data)
        return battle

    @property
    def state(self) -> DynamicsState:
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

    def log_json(self, viewer: Viewer, since: int = 0) -> list[JsonObject]:
        codec = self.match.book.event_codec
        return [e.to_json(codec) for e in self.match.log_for(viewer) if e.seq > since]

    def export_for(self, viewer: Viewer) -> JsonObject:
        """The log as ``viewer`` may read it (not replayable: secret events are absent)."""
        return {
            "format": LOG_FORMAT,
            "rule_system": self.match.book.rule_system,
            "viewer": viewer,
            "events": self.log_json(viewer),
        }

    def audit(self, viewer: Viewer) -> list[JsonObject]:
        out: list[JsonObject] = []
        for env in self.match.log_for(viewer):
            roll = getattr(env.event, "roll", None)
            if isinstance(roll, Roll) and roll.dice:
                out.append({"seq": env.seq, "event": env.event.kind, "ok": audit_roll(roll)})
        return out

    def export_log(self) -> JsonObject:
        return self.match.export_log()

    def execute(
        self,
        command: Tagged,
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
