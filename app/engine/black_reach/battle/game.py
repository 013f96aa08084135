"""``BlackReachBattle``: the object the match layer drives (create, execute, undo, view,
export), a thin façade over :class:`app.engine.match.log.Match` with the Black Reach rule
book. It has the members of :class:`app.engine.match.game.MatchGame`::

    battle = BlackReachBattle.create(sample_setup())       # turn 1, Order phase
    battle.execute_json({"type": "place_orders", "orders": [...]}, "A")
    battle.execute_json({"type": "shoot", "unit": u, "target": t}, "B", dice=[5])
    battle.view("A")          # A's face-down tokens, never B's
    BlackReachBattle.import_log(battle.export_log())      # replays to an equal state
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from app.engine.black_reach.battle.commands import (
    COMMAND_CODEC,
    ApproveUndo,
    Command,
    CreateBattle,
    PlaceOrders,
    RefuseUndo,
    Undo,
)
from app.engine.black_reach.battle.rules import RULE_BOOK
from app.engine.black_reach.battle.setup import BattleSetup
from app.engine.black_reach.battle.state import BattleState, Stage
from app.engine.black_reach.battle.views import legal_actions, render
from app.engine.match.codec import CodecError, JsonObject
from app.engine.match.dice import Roll, audit_roll, derive_seed
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Envelope, Viewer
from app.engine.match.game import GameStage, GameStatus
from app.engine.match.log import Match
from app.engine.roller import Roller

__all__ = ["SEED_SCHEME", "BlackReachBattle", "command_from_json", "headline", "roll_identity"]

SEED_SCHEME = "auspex-black-reach-roll/1"


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
    """What a roll *is*: the turn and phase, the command's kind, the seat, the unit and how
    many rolls that unit made this turn. Never the log position, nor the target: an undone
    roll sent again, even at another target, draws the same dice."""
    turn = state.turn
    unit = getattr(command, "unit", "")
    unit = unit if isinstance(unit, str) else ""
    return (
        SEED_SCHEME,
        command.kind,
        0 if turn is None else turn.turn,
        "" if turn is None else str(turn.phase),
        seat or "",
        unit,
        state.rolls.get(unit, 0),
    )


def headline(game: BlackReachBattle) -> dict[str, str | None]:
    """The stage, the seat the battle waits for and the phase (for the match streams)."""
    state = game.state
    return {"stage": str(state.stage), "active": state.active_seat, "phase": state.phase}


class BlackReachBattle:
    """One Heroes of Black Reach match: its log, its state, its views."""

    def __init__(self, envelopes: Iterable[Envelope] = ()) -> None:
        self.match: Match[BattleState] = Match(RULE_BOOK, envelopes)

    @classmethod
    def create(
        cls, setup: BattleSetup, *, actor: str = "A", at: str | None = None
    ) -> BlackReachBattle:
        battle = cls()
        battle.match.execute(CreateBattle(setup), actor, at=at)
        return battle

    @classmethod
    def import_log(cls, data: object) -> BlackReachBattle:
        battle = cls()
        battle.match = Match.import_log(RULE_BOOK, data)
        return battle

    def fork(self) -> BlackReachBattle:
        clone = BlackReachBattle.__new__(BlackReachBattle)
        clone.match = self.match.fork()
        return clone

    @classmethod
    def decode(cls, data: object) -> Command:
        return command_from_json(data)

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
        actions = legal_actions(self.state, seat)
        request = self.match.undo_request
        if request is not None and request.actor != seat:
            answers = (ApproveUndo(request.batch), RefuseUndo(request.batch))
            actions[:0] = [{"command": COMMAND_CODEC.encode(a)} for a in answers]
        return actions

    def log_for(self, viewer: Viewer) -> list[Envelope]:
        return self.match.log_for(viewer)

    def log_json(self, viewer: Viewer, since: int = 0) -> list[JsonObject]:
        codec = RULE_BOOK.event_codec
        return [e.to_json(codec) for e in self.log_for(viewer) if e.seq > since]

    def audit(self) -> list[JsonObject]:
        out: list[JsonObject] = []
        for env in self.envelopes:
            roll = getattr(env.event, "roll", None)
            if isinstance(roll, Roll) and roll.dice:
                out.append({"seq": env.seq, "event": env.event.kind, "ok": audit_roll(roll)})
        return out

    def export_log(self) -> JsonObject:
        return self.match.export_log()

    def export_json(self) -> str:
        return self.match.export_json()

    def command_seed(self, secret: str | bytes, command: Command, seat: str | None = None) -> int:
        """A seed for ``command`` from the server-side match secret and the roll's identity
        (:func:`roll_identity`): undoing a roll and sending it again draws the same dice."""
        return derive_seed(secret, *roll_identity(self.state, command, seat))

    def status(self) -> GameStatus:
        state = self.state
        scores = {seat: state.vp.get(side, 0) for seat, side in state.seats.items()}
        if state.stage is not Stage.ENDED:
            stage: GameStage = "battle" if state.stage is Stage.BATTLE else "setup"
            round_ = state.turn.turn if state.turn is not None else 0
            return GameStatus(stage, scores=scores, round=round_)
        winner = "draw" if state.winner is None else state.seat_of(state.winner)
        return GameStatus(
            "ended",
            confirmed=set(state.confirmed) >= set(state.seats),
            winner=winner,
            scores=scores,
            round=state.turn.turn if state.turn is not None else 0,
        )

    # -- writing ----------------------------------------------------------------------------

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
        """Run ``command`` for seat ``actor``; dice come from ``seed`` or were rolled by hand.
        A face-down token sent without a nonce gets a random one here (kept in the log, so
        replay stays deterministic)."""
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
        if isinstance(command, PlaceOrders):
            command = PlaceOrders(
                tuple(
                    o if o.nonce else replace(o, nonce=secrets.token_hex(16))
                    for o in command.orders
                )
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
