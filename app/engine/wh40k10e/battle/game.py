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

from app.engine.match.battle import BattleGame, decode_command
from app.engine.match.codec import JsonObject
from app.engine.match.dice import Roll, derive_seed
from app.engine.match.events import Event, Viewer
from app.engine.match.game import GameStatus
from app.engine.match.log import RuleBook
from app.engine.wh40k10e.battle.commands import (
    COMMAND_CODEC,
    ApproveUndo,
    Command,
    GarrisonRoll,
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
    return decode_command(COMMAND_CODEC, data, Command)


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
    elif isinstance(command, GarrisonRoll):
        # a building is rolled for once: its id tells two garrisons of one phase apart
        subject, unit = f"building:{command.building}", None
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


class Battle(BattleGame[BattleState, Command, MatchSetup]):
    """One 10th-edition match: its log, its state, its views.

    Satisfies :class:`app.engine.match.game.MatchGame` (ADR 0013)."""

    undo_command = Undo
    approve_command = ApproveUndo
    undo_answers = (RefuseUndo, ApproveUndo)

    def rule_book(self) -> RuleBook[BattleState]:
        return RULE_BOOK

    @classmethod
    def creation(cls, setup: MatchSetup) -> CreateMatch:
        return CreateMatch(setup)

    def render(self, viewer: Viewer) -> JsonObject:
        return render(self.state, viewer)

    def actions(self, seat: str) -> list[JsonObject]:
        return legal_actions(self.state, Seat(seat))

    def roll_identity(self, command: Command, seat: str | None = None) -> tuple[str | int, ...]:
        return roll_identity(self.state, command, seat)

    @classmethod
    def decode(cls, data: object) -> Command:
        return command_from_json(data)

    def roll_of(self, event: Event) -> Roll | None:
        """An attack's dice are re-drawn too, and a roll that drew no die is listed as well."""
        if isinstance(event, AttackResolved) and event.dice:
            return Roll(event.seed, event.dice)
        roll = getattr(event, "roll", None)
        return roll if isinstance(roll, Roll) else None

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
