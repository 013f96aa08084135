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
from collections.abc import Sequence
from dataclasses import replace

from app.engine.black_reach.battle.commands import (
    COMMAND_CODEC,
    ApproveUndo,
    Assault,
    Burst,
    Command,
    CreateBattle,
    Demolish,
    DoubleShot,
    DrawCards,
    Flame,
    Grenade,
    KeepRoll,
    Kombi,
    Manifest,
    Move,
    PlaceOrders,
    RefuseUndo,
    Reroll,
    Shoot,
    Snipe,
    TemplateFire,
    Undo,
    VehicleFire,
)
from app.engine.black_reach.battle.rules import RULE_BOOK
from app.engine.black_reach.battle.setup import BattleSetup
from app.engine.black_reach.battle.state import BattleState, Stage
from app.engine.black_reach.battle.views import legal_actions, render
from app.engine.match.battle import BattleGame, decode_command
from app.engine.match.codec import JsonObject
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Envelope, Viewer
from app.engine.match.game import GameStage, GameStatus
from app.engine.match.log import RuleBook

__all__ = [
    "ACTIVATION_KINDS",
    "MATCH_DICE_KINDS",
    "SEED_SCHEME",
    "BlackReachBattle",
    "command_from_json",
    "headline",
    "roll_identity",
]

SEED_SCHEME = "auspex-black-reach-roll/1"
# the commands that spell a unit's one action of its activation: their rolls share one
# identity, so an undone action sent again another way (a heavy vehicle's shoot or its
# vehicle_fire, the same Shooting Action [L563-L577]; a shot or a template, a move with
# fire_at) draws the same dice (rulings 86)
ACTIVATION_KINDS = frozenset(
    c.kind
    for c in (
        Move,
        Shoot,
        VehicleFire,
        TemplateFire,
        Flame,
        Grenade,
        Kombi,
        Demolish,
        DoubleShot,
        Snipe,
        Burst,
        Manifest,
        Assault,
    )
)

# the commands whose dice the match always rolls from the seat's own seed, never given by hand:
# a draw's dice pick secret cards from a deck whose order the forces file tells, so dice given
# by hand would let the drawer choose the hand, unseen by the opponent (rulings 94)
MATCH_DICE_KINDS = frozenset({DrawCards.kind})


def command_from_json(data: object) -> Command:
    """Decode a command (``{"type": kind, ...}``); a malformed one is a 422 refusal."""
    return decode_command(COMMAND_CODEC, data, Command)


def roll_identity(
    state: BattleState, command: Command, seat: str | None = None
) -> tuple[str | int, ...]:
    """What a roll *is*: the turn and phase, the command's kind (``activation`` for every
    spelling of a unit's action, :data:`ACTIVATION_KINDS`), the seat, the unit and how many
    rolls that unit made this turn. Never the log position, nor the target: an undone roll
    sent again, even at another target or by another command, draws the same dice. The dice
    of a log are in its events: a new identity changes only the rolls made after it."""
    turn = state.turn
    unit = getattr(command, "unit", "")
    unit = unit if isinstance(unit, str) else ""
    if not unit and state.pending is not None:  # no En Alerte: the declared move's own rolls
        unit = state.pending.unit
    answered: tuple[int, ...] = ()
    if state.reroll is not None and command.kind in (Reroll.kind, KeepRoll.kind):
        # the answer about a paused command's roll: its unit, and how many answers came
        # before; "reroll" and "keep_roll" draw apart, so an answer undone and given the
        # other way learns nothing of the dice it would have drawn (rulings 155)
        unit = state.reroll.unit
        answered = (len(state.reroll.answers),)
    return (
        SEED_SCHEME,
        "activation" if command.kind in ACTIVATION_KINDS else command.kind,
        0 if turn is None else turn.turn,
        "" if turn is None else str(turn.phase),
        seat or "",
        unit,
        state.rolls.get(unit, 0),
        *answered,
    )


def headline(game: BlackReachBattle) -> dict[str, str | None]:
    """The stage, the seat the battle waits for and the phase (for the match streams)."""
    state = game.state
    return {"stage": str(state.stage), "active": state.active_seat, "phase": state.phase}


class BlackReachBattle(BattleGame[BattleState, Command, BattleSetup]):
    """One Heroes of Black Reach match: its log, its state, its views."""

    undo_command = Undo
    approve_command = ApproveUndo
    undo_answers = (ApproveUndo, RefuseUndo)

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
        return command_from_json(data)

    def prepared(self, command: Command) -> Command:
        """A face-down token sent without a nonce gets a random one here (kept in the log, so
        replay stays deterministic)."""
        if not isinstance(command, PlaceOrders):
            return command
        return PlaceOrders(
            tuple(o if o.nonce else replace(o, nonce=secrets.token_hex(16)) for o in command.orders)
        )

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
        """Run ``command`` (:meth:`BattleGame.execute`); the dice of a command of
        :data:`MATCH_DICE_KINDS` given by hand are refused (422) before anything is rolled."""
        if dice is not None and command.kind in MATCH_DICE_KINDS:
            raise Refusal(
                "match_dice_only",
                f"{command.kind} is always rolled by the match from your seat's own seed: "
                "dice given by hand would choose the cards (rulings 94)",
                kind=RefusalKind.INPUT,
                details={"field": "dice"},
            )
        return super().execute(
            command, actor, expected_version=expected_version, seed=seed, dice=dice, at=at
        )

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
