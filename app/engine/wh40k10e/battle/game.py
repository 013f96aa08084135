"""``Battle``: the object the service layer drives (create, execute, undo, view, export).

A thin façade over :class:`app.engine.match.log.Match` with the 10th-edition rule book::

    battle = Battle.create(setup)                      # version 2: created + first set-up step
    battle.execute(RollOff(), "A", seed=1234)          # or dice=[4, 2] rolled by hand
    battle.execute_json({"type": "end_phase"}, "A", expected_version=17)
    battle.view("B")                                   # what B may see (no secrets of A)
    battle.log_json("B")                               # B's copy of the log
    Battle.import_log(battle.export_log())             # replays to an equal state

Every write may name ``expected_version``; a stale one raises ``StaleVersion`` (409).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from app.engine.match.codec import CodecError, JsonObject
from app.engine.match.dice import Roll, audit_roll, derive_seed
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Envelope, Viewer
from app.engine.match.game import GameStatus
from app.engine.match.log import Match
from app.engine.roller import Roller
from app.engine.wh40k10e.battle.commands import (
    COMMAND_CODEC,
    ApproveUndo,
    Command,
    RefuseUndo,
    ResolveAttack,
    Undo,
    UseStratagem,
)
from app.engine.wh40k10e.battle.eligibility import head
from app.engine.wh40k10e.battle.events import AttackResolved
from app.engine.wh40k10e.battle.rules import RULE_BOOK, CreateMatch
from app.engine.wh40k10e.battle.setup import MatchSetup, Seat
from app.engine.wh40k10e.battle.state import BattleState, Stage
from app.engine.wh40k10e.battle.views import legal_actions, render

__all__ = ["Battle", "command_from_json", "command_seed", "roll_identity"]

SEED_SCHEME = "auspex-roll/2"
"""Names the way seeds are derived (:func:`roll_identity`); a new scheme gets a new name.

An attack's ordinal is the number of attacks the unit resolved this phase (a unit may now
attack a target again with weapons it has not used). In every log this scheme accepted
before, a unit attacked each target once, so that number equals the number of targets it had
attacked, the ordinal it was: the same seeds, the same name."""


def command_from_json(data: object) -> Command:
    """Decode a command (``{"type": kind, ...}``); a malformed one is a 422 refusal."""
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
    """What a roll *is*, whatever the command carries besides: where the battle stands (set-up
    step, round, turn, phase), the command's kind, who rolls and for which unit, and the
    ordinal of the roll. For an attack: the attacking unit and how many attacks it has already
    resolved this phase, never the weapons, the target or the situation; for another unit's
    roll: the unit and how many rolls it made this phase; for a Stratagem: its id.

    Nothing that an undo leaves behind changes it (the log position, the match's roll count),
    so an undone roll sent again, even dressed differently, draws the same dice."""
    pos = state.position
    where: tuple[str | int, ...] = (
        str(state.stage),
        state.setup_index,
        state.round,
        -1 if pos is None else pos.turn,
        "" if pos is None else pos.phase,
    )
    subject: str = ""
    ordinal = 0
    unit: object
    if isinstance(command, ResolveAttack):
        unit = command.attacker
    elif isinstance(command, UseStratagem):
        subject, unit = f"stratagem:{command.stratagem}", None
    else:
        unit = getattr(command, "unit", None)
    if isinstance(unit, str) and unit in state.units:
        first = head(state, unit)
        u = state.units[first]
        subject = first
        ordinal = u.attacks if isinstance(command, ResolveAttack) else u.rolled
    return (SEED_SCHEME, command.kind, *where, seat or "", subject, ordinal)


def command_seed(
    secret: str | bytes, state: BattleState, command: Command, seat: str | None = None
) -> int:
    """A seed for ``command`` from a server-side match secret and the roll's identity
    (:func:`roll_identity`): undoing a roll and sending it again draws the same dice."""
    return derive_seed(secret, *roll_identity(state, command, seat))


class Battle:
    """One 10th-edition match: its log, its state, its views.

    Satisfies :class:`app.engine.match.game.MatchGame` (ADR 0013)."""

    def __init__(self, envelopes: Iterable[Envelope] = ()) -> None:
        self.match: Match[BattleState] = Match(RULE_BOOK, envelopes)

    @classmethod
    def create(cls, setup: MatchSetup, *, actor: str = "A", at: str | None = None) -> Battle:
        battle = cls()
        battle.match.execute(CreateMatch(setup), actor, at=at)
        return battle

    def fork(self) -> Battle:
        """A copy that can execute commands without touching this battle."""
        clone = Battle.__new__(Battle)
        clone.match = self.match.fork()
        return clone

    @classmethod
    def import_log(cls, data: object) -> Battle:
        """A battle replayed from ``export_log()`` data (or its JSON text)."""
        battle = cls()
        battle.match = Match.import_log(RULE_BOOK, data)
        return battle

    # -- reading ----------------------------------------------------------------------------

    @property
    def state(self) -> BattleState:
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
        view["undo_needs_approval"] = view["can_undo"] and self.match.undo_needs_approval()
        view["undo_request"] = (
            None if request is None else {"batch": request.batch, "by": request.actor}
        )
        return view

    def legal_actions(self, seat: str) -> list[JsonObject]:
        actions = legal_actions(self.state, Seat(seat))
        request = self.match.undo_request
        if request is not None and request.actor != seat:
            for answer in (ApproveUndo(request.batch), RefuseUndo(request.batch)):
                actions.insert(0, {"command": COMMAND_CODEC.encode(answer)})
        return actions

    def log_for(self, viewer: Viewer) -> list[Envelope]:
        return self.match.log_for(viewer)

    def log_json(self, viewer: Viewer, since: int = 0) -> list[JsonObject]:
        """``viewer``'s copy of the log after version ``since`` (for SSE and the timeline)."""
        codec = RULE_BOOK.event_codec
        return [e.to_json(codec) for e in self.log_for(viewer) if e.seq > since]

    def audit(self) -> list[JsonObject]:
        """Every roll in the log re-drawn from its seed: ``ok`` is true when the recorded dice
        are the seed's, false when they are not, null when they cannot be checked (dice rolled
        by hand, or re-rolled in place by the attack engine)."""
        out: list[JsonObject] = []
        for env in self.envelopes:
            event = env.event
            roll = getattr(event, "roll", None)
            if isinstance(event, AttackResolved) and event.dice:
                roll = Roll(event.seed, event.dice)
            if isinstance(roll, Roll):
                out.append({"seq": env.seq, "event": event.kind, "ok": audit_roll(roll)})
        return out

    def export_log(self) -> JsonObject:
        return self.match.export_log()

    def status(self) -> GameStatus:
        """Where the battle stands, in the match feature's shared words."""
        state = self.state
        stage = state.stage
        scores = {str(seat): p.vp for seat, p in state.players.items()}
        if stage is Stage.ENDED:
            players = state.players.values()
            winner = None
            if state.result is not None:
                winner = str(state.result.winner) if state.result.winner else "draw"
            return GameStatus(
                "ended",
                confirmed=bool(players) and all(p.result == "confirmed" for p in players),
                winner=winner,
                scores=scores,
                round=state.round,
            )
        return GameStatus(
            "battle" if stage is Stage.BATTLE else "setup", scores=scores, round=state.round
        )

    def export_json(self) -> str:
        return self.match.export_json()

    # -- writing ----------------------------------------------------------------------------

    @classmethod
    def decode(cls, data: object) -> Command:
        """The command in ``data``; a malformed one is a 422 refusal."""
        return command_from_json(data)

    def command_seed(self, secret: str | bytes, command: Command, seat: str | None = None) -> int:
        """The undo-stable seed of ``command`` here (:func:`roll_identity`)."""
        return command_seed(secret, self.state, command, seat)

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
        """Run ``command`` for seat ``actor``; dice come from ``seed`` or were rolled by hand."""
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
