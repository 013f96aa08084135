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
from app.engine.match.log import Match
from app.engine.roller import Roller
from app.engine.wh40k10e.battle.commands import COMMAND_CODEC, Command, Undo
from app.engine.wh40k10e.battle.events import AttackResolved
from app.engine.wh40k10e.battle.rules import RULE_BOOK, CreateMatch
from app.engine.wh40k10e.battle.setup import MatchSetup, Seat
from app.engine.wh40k10e.battle.state import BattleState
from app.engine.wh40k10e.battle.views import legal_actions, render

__all__ = ["Battle", "command_from_json", "command_seed"]


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


def command_seed(secret: str | bytes, state: BattleState, command: Command) -> int:
    """A seed for ``command`` from a server-side match secret: the same command at the same
    roll count gets the same dice, so undoing a roll and rolling again changes nothing."""
    encoded = COMMAND_CODEC.encode(command)
    return derive_seed(secret, state.rolls, repr(sorted(encoded.items())))


class Battle:
    """One 10th-edition match: its log, its state, its views."""

    def __init__(self, envelopes: Iterable[Envelope] = ()) -> None:
        self.match: Match[BattleState] = Match(RULE_BOOK, envelopes)

    @classmethod
    def create(cls, setup: MatchSetup, *, actor: str = "A", at: str | None = None) -> Battle:
        battle = cls()
        battle.match.execute(CreateMatch(setup), actor, at=at)
        return battle

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
        view["can_undo"] = undo is not None and viewer is not None and undo[1] == viewer
        return view

    def legal_actions(self, seat: str) -> list[JsonObject]:
        return legal_actions(self.state, Seat(seat))

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

    def export_json(self) -> str:
        return self.match.export_json()

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
        """Run ``command`` for seat ``actor``; dice come from ``seed`` or were rolled by hand."""
        if isinstance(command, Undo):
            return self.match.undo(actor, expected_version=expected_version, at=at)
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
