"""``BattleGame``: the half of a battle façade that every rule system shares (ADR 0013).

A rule system's façade (the 10th edition's ``Battle``, ``PenBattle``, ``DynamicsBattle``,
``BlackReachBattle``) is a :class:`~app.engine.match.log.Match` over its rule book plus a few
things of its own. This base holds the rest, once: the log's readers (``state``, ``version``,
``envelopes``, ``log_for``, ``log_json``, ``audit``, ``export_log``), ``view``'s undo fields,
the undo answers offered in ``legal_actions``, ``fork``, ``import_log``, the undo dispatch of
``execute`` and ``execute_json``. A system subclasses it with its state, command and set-up
types and fills in what differs:

- the class attributes ``undo_command``, ``approve_command`` and ``undo_answers`` (its own
  undo commands, the answers in the order it offers them);
- the hooks ``rule_book`` (the rule book a new log is replayed with), ``creation`` (the
  command that starts a battle from a set-up), ``render`` and ``actions`` (its views),
  ``roll_identity`` (what a roll *is*, for undo-stable seeds), ``decode`` and ``status``;
- optionally ``roll_of`` (which roll of an event an audit re-draws) and ``prepared`` (a
  command completed before it runs).

The protocol the match feature reads stays :class:`~app.engine.match.game.MatchGame`: a
subclass satisfies it, and a façade may still satisfy it without this base.
"""

from __future__ import annotations

import copy
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import ClassVar, Generic, Protocol, Self, TypeVar

from app.engine.match.codec import CodecError, JsonObject, Tagged, TaggedCodec
from app.engine.match.dice import Roll, audit_roll, derive_seed
from app.engine.match.errors import Refusal, RefusalKind
from app.engine.match.events import Envelope, Event, Viewer
from app.engine.match.game import GameStatus
from app.engine.match.log import Match, RuleBook
from app.engine.roller import Roller

__all__ = ["BattleGame", "UndoAnswer", "decode_command"]

S = TypeVar("S")
C = TypeVar("C", bound=Tagged)
P = TypeVar("P")
T = TypeVar("T", bound=Tagged)


def decode_command(codec: TaggedCodec, data: object, family: type[T]) -> T:
    """The command in ``data`` (``{"type": kind, ...}``) by ``codec``, whose classes are all of
    ``family``; a malformed one is a 422 :class:`Refusal` (``bad_command``) naming the field
    at fault."""
    try:
        command = codec.decode(data)
    except CodecError as exc:
        raise Refusal(
            "bad_command", str(exc), kind=RefusalKind.INPUT, details={"field": exc.path}
        ) from None
    assert isinstance(command, family)
    return command


class UndoAnswer(Protocol):
    """A system's answer to a pending undo request (its ``ApproveUndo`` or ``RefuseUndo``),
    built from the batch it answers."""

    def __init__(self, batch: int) -> None: ...

    @property
    def batch(self) -> int: ...


class BattleGame(ABC, Generic[S, C, P]):
    """One battle of some rule system: state ``S``, commands ``C``, set-up ``P``.

    Satisfies :class:`app.engine.match.game.MatchGame`. ``match`` is the log itself."""

    undo_command: ClassVar[type[Tagged]]
    """The system's ``Undo``: asks to undo the sender's latest action."""
    approve_command: ClassVar[type[UndoAnswer]]
    """The system's ``ApproveUndo`` (the other answer refuses)."""
    undo_answers: ClassVar[tuple[type[UndoAnswer], ...]]
    """The answers to a pending undo request, in the order ``legal_actions`` offers them."""

    def __init__(self, envelopes: Iterable[Envelope] = ()) -> None:
        self.match: Match[S] = Match(self.rule_book(), envelopes)

    # -- what each system brings ------------------------------------------------------------

    @abstractmethod
    def rule_book(self) -> RuleBook[S]:
        """The rule book this battle's log is replayed with."""

    @classmethod
    @abstractmethod
    def creation(cls, setup: P) -> Tagged:
        """The command that starts a battle from ``setup``."""

    @abstractmethod
    def render(self, viewer: Viewer) -> JsonObject:
        """The state as ``viewer`` may see it (``view`` adds the version and undo fields)."""

    @abstractmethod
    def actions(self, seat: str) -> list[JsonObject]:
        """What ``seat`` may do by the rules (``legal_actions`` adds the undo answers)."""

    @abstractmethod
    def roll_identity(self, command: C, seat: str | None = None) -> tuple[str | int, ...]:
        """What a roll of ``command`` *is* in the current state: never the log position, so
        an undone roll sent again draws the same dice."""

    @classmethod
    @abstractmethod
    def decode(cls, data: object) -> C:
        """The command in ``data``; a malformed one is a 422 refusal (:func:`decode_command`)."""

    @abstractmethod
    def status(self) -> GameStatus:
        """Where the battle stands, in the match feature's shared words."""

    def roll_of(self, event: Event) -> Roll | None:
        """The roll of ``event`` that ``audit`` re-draws from its seed: its ``roll`` when dice
        were drawn."""
        roll = getattr(event, "roll", None)
        return roll if isinstance(roll, Roll) and roll.dice else None

    def prepared(self, command: C) -> C:
        """``command`` as it runs (a system may complete it first, e.g. with a nonce)."""
        return command

    # -- making one -------------------------------------------------------------------------

    @classmethod
    def create(cls, setup: P, *, actor: str = "A", at: str | None = None) -> Self:
        """A new battle from ``setup``."""
        return cls().started(setup, actor=actor, at=at)

    def started(self, setup: P, *, actor: str = "A", at: str | None = None) -> Self:
        """This (empty) battle started from ``setup``."""
        self.match.execute(self.creation(setup), actor, at=at)
        return self

    @classmethod
    def import_log(cls, data: object) -> Self:
        """A battle replayed from ``export_log()`` data (or its JSON text)."""
        return cls().replaced(data)

    def replaced(self, data: object) -> Self:
        """This battle with the log of ``export_log()`` data instead of its own."""
        self.match = Match.import_log(self.match.book, data)
        return self

    def fork(self) -> Self:
        """A copy that can execute commands without touching this battle (a subclass keeps
        its type)."""
        clone = copy.copy(self)
        clone.match = self.match.fork()
        return clone

    # -- reading ----------------------------------------------------------------------------

    @property
    def state(self) -> S:
        return self.match.state

    @property
    def version(self) -> int:
        return self.match.version

    @property
    def envelopes(self) -> tuple[Envelope, ...]:
        return self.match.envelopes

    def view(self, viewer: Viewer) -> JsonObject:
        """What ``viewer`` may see, with ``version`` and where an undo stands: ``can_undo``,
        ``undo_needs_approval`` and the pending ``undo_request``."""
        view = self.render(viewer)
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
        """What ``seat`` may do: the answers to the opponent's pending undo request first."""
        actions = self.actions(seat)
        request = self.match.undo_request
        if request is not None and request.actor != seat:
            codec = self.match.book.command_codec
            offered: list[JsonObject] = []
            for answer in self.undo_answers:
                command = answer(request.batch)
                assert isinstance(command, Tagged)
                offered.append({"command": codec.encode(command)})
            actions[:0] = offered
        return actions

    def log_for(self, viewer: Viewer) -> list[Envelope]:
        """The envelopes ``viewer`` may see (the other seat's secrets left out)."""
        return self.match.log_for(viewer)

    def log_json(self, viewer: Viewer, since: int = 0) -> list[JsonObject]:
        """``viewer``'s copy of the log after version ``since`` (for SSE and the timeline)."""
        codec = self.match.book.event_codec
        return [e.to_json(codec) for e in self.log_for(viewer) if e.seq > since]

    def audit(self) -> list[JsonObject]:
        """Every roll in the log re-drawn from its seed (:meth:`roll_of`): ``ok`` is true when
        the recorded dice are the seed's, false when not, null when they cannot be checked."""
        out: list[JsonObject] = []
        for env in self.envelopes:
            roll = self.roll_of(env.event)
            if roll is not None:
                out.append({"seq": env.seq, "event": env.event.kind, "ok": audit_roll(roll)})
        return out

    def export_log(self) -> JsonObject:
        """The whole log (every event, secrets included: server side only)."""
        return self.match.export_log()

    def export_json(self) -> str:
        return self.match.export_json()

    # -- writing ----------------------------------------------------------------------------

    def command_seed(self, secret: str | bytes, command: C, seat: str | None = None) -> int:
        """A seed for ``command`` from the server-side match secret and the roll's identity
        (:meth:`roll_identity`): undoing a roll and sending it again draws the same dice."""
        return derive_seed(secret, *self.roll_identity(command, seat))

    def execute(
        self,
        command: C,
        actor: str,
        *,
        expected_version: int | None = None,
        seed: int | None = None,
        dice: Sequence[int] | None = None,
        at: str | None = None,
    ) -> list[Envelope]:
        """Run ``command`` for seat ``actor``; dice come from ``seed`` or were rolled by hand.
        The undo commands go to the log's undo, the rest to the rule book."""
        if isinstance(command, self.undo_command):
            return self.match.undo(actor, expected_version=expected_version, at=at)
        if isinstance(command, self.undo_answers):
            return self.match.answer_undo(
                actor,
                command.batch,
                approve=isinstance(command, self.approve_command),
                expected_version=expected_version,
                at=at,
            )
        roller = Roller.from_values(dice) if dice is not None else None
        return self.match.execute(
            self.prepared(command),
            actor,
            expected_version=expected_version,
            dice=roller,
            seed=seed,
            at=at,
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
            self.decode(data),
            actor,
            expected_version=expected_version,
            seed=seed,
            dice=dice,
            at=at,
        )
