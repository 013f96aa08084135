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

from collections.abc import Iterable, Mapping, Sequence

from app.engine.dynamics.actions import legal_actions
from app.engine.dynamics.commands import COMMAND_CODEC, CreateDynamics, PlaceOrder
from app.engine.dynamics.rules import DynamicsRuleBook
from app.engine.dynamics.setup import DynamicsSetup
from app.engine.dynamics.state import DynamicsState, DynStage
from app.engine.dynamics.views import render
from app.engine.match.codec import CodecError, JsonObject, Tagged
from app.engine.match.dice import Roll, audit_roll, derive_seed
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Envelope, Viewer
from app.engine.match.game import GameStatus
from app.engine.match.log import LOG_FORMAT, Match
from app.engine.pen.battle.commands import ApproveUndo, RefuseUndo, Undo
from app.engine.pen.battle.rules import victory_points
from app.engine.pen.battle.state import Stage
from app.engine.roller import Roller

__all__ = ["SEED_SCHEME", "DynamicsBattle", "command_from_json", "roll_identity"]

SEED_SCHEME = "dynamics-1"


def command_from_json(data: object) -> Tagged:
    try:
        return COMMAND_CODEC.decode(data)
    except CodecError as exc:
        raise Refusal(
            "bad_command", str(exc), kind=RefusalKind.INPUT, details={"field": exc.path}
        ) from None


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


class DynamicsBattle:
    def __init__(self, envelopes: Iterable[Envelope] = (), *, secret: str | bytes | None = None):
        self.match: Match[DynamicsState] = Match(DynamicsRuleBook(secret), envelopes)

    @classmethod
    def create(
        cls,
        setup: DynamicsSetup,
        *,
        actor: str = "A",
        at: str | None = None,
        secret: str | bytes | None = None,
    ) -> DynamicsBattle:
        battle = cls(secret=secret)
        battle.match.execute(CreateDynamics(setup), actor, at=at)
        return battle

    @classmethod
    def import_log(cls, data: object, *, secret: str | bytes | None = None) -> DynamicsBattle:
        battle = cls(secret=secret)
        battle.match = Match.import_log(DynamicsRuleBook(secret), data)
        return battle

    def fork(self) -> DynamicsBattle:
        """A copy that can execute commands without touching this battle."""
        clone = DynamicsBattle.__new__(DynamicsBattle)
        clone.match = self.match.fork()
        return clone

    @staticmethod
    def decode(data: object) -> Tagged:
        """A command from its JSON form (a 422 :class:`Refusal` when malformed)."""
        return command_from_json(data)

    def command_seed(self, secret: str | bytes, command: Tagged, seat: str | None = None) -> int:
        """The seed of ``command`` from the match secret and its roll identity."""
        return derive_seed(secret, *roll_identity(self.state, command, seat))

    # -- reading ----------------------------------------------------------------------------

    @property
    def state(self) -> DynamicsState:
        return self.match.state

    @property
    def version(self) -> int:
        return self.match.version

    @property
    def envelopes(self) -> tuple[Envelope, ...]:
        return self.match.envelopes

    def view(self, viewer: Viewer) -> JsonObject:
        view = render(self.state, viewer)
        view["version"] = self.version
        undo = self.match.undo_candidate()
        request = self.match.undo_request
        view["can_undo"] = (
            undo is not None and viewer is not None and undo[1] == viewer and request is None
        )
        view["undo_needs_approval"] = bool(view["can_undo"]) and self.match.undo_needs_approval()
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

    def log_for(self, viewer: Viewer) -> list[Envelope]:
        return self.match.log_for(viewer)

    def log_json(self, viewer: Viewer, since: int = 0) -> list[JsonObject]:
        codec = self.match.book.event_codec
        return [e.to_json(codec) for e in self.log_for(viewer) if e.seq > since]

    def export_for(self, viewer: Viewer) -> JsonObject:
        """The log as ``viewer`` may read it (not replayable: secret events are absent)."""
        return {
            "format": LOG_FORMAT,
            "rule_system": self.match.book.rule_system,
            "viewer": viewer,
            "events": self.log_json(viewer),
        }

    def audit(self) -> list[JsonObject]:
        """Every roll re-drawn from its seed. Only dice are listed: no hidden order is a roll,
        and its sequence number is one every player sees as a gap anyway."""
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
        s = self.state
        b = s.battle
        if s.setup is None or s.stage is DynStage.SETUP:
            return GameStatus("setup")
        scores = dict(b.result) if b.result else victory_points(b)
        if b.stage is Stage.ENDED:
            winner = b.winner or "draw"
            return GameStatus("ended", winner=winner, scores=scores, round=s.turn)
        return GameStatus("battle", scores=scores, round=s.turn)

    # -- writing ----------------------------------------------------------------------------

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
