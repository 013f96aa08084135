"""The append-only match log, replay, optimistic versions and undo, for any rule system.

A rule system supplies a :class:`RuleBook`: an empty state, ``evolve(state, event)`` (pure,
deterministic: the same events always give an equal state) and ``decide(state, command, actor,
dice)`` which either raises a :class:`~app.engine.match.errors.Refusal` or returns the events
the command produces. :class:`Match` holds the log and the current state:

- ``execute(command, actor, expected_version=..., dice=...)`` validates and appends one batch;
  a write naming a stale version is refused (:class:`StaleVersion`) before anything else;
- ``undo(actor)`` appends an :class:`Undone` event for the latest effective batch (only its own
  actor may undo it, and never across a barrier event such as a reveal); the state becomes the
  replay of the log without the undone batches. Nothing is deleted. A batch that rolled dice
  is not undone at once: ``undo`` appends an :class:`UndoRequested`, and only the opponent's
  ``answer_undo(actor, batch, approve=True)`` appends the :class:`Undone` (``approve=False``
  appends an :class:`UndoRefused`). Any other batch appended meanwhile voids the request;
- ``replay(book, envelopes)`` rebuilds the state of any log, and ``export_log`` /
  ``Match.import_log`` round-trip the whole log through JSON.

The version of a match is the number of events in its log.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from app.engine.errors import DiceExhausted, EngineError, RollerError
from app.engine.match.codec import CodecError, JsonObject, Tagged, TaggedCodec
from app.engine.match.errors import LogError, Refusal, RefusalKind, StaleVersion
from app.engine.match.events import (
    UNDO_EVENTS,
    Emitted,
    Envelope,
    Event,
    Undone,
    UndoRefused,
    UndoRequested,
    Viewer,
    visible_to,
)
from app.engine.roller import Roller

__all__ = [
    "LOG_FORMAT",
    "Decision",
    "Match",
    "Replayed",
    "RuleBook",
    "UndoRequest",
    "replay",
]

LOG_FORMAT = "auspex-match-log/1"

S = TypeVar("S")


@dataclass(frozen=True, slots=True)
class Decision(Generic[S]):
    """The events a command produced and the state after them (as ``evolve`` computes it)."""

    events: tuple[Emitted, ...]
    state: S


class RuleBook(Protocol[S]):
    """What a rule system gives the shared match machinery."""

    @property
    def rule_system(self) -> str: ...

    @property
    def event_codec(self) -> TaggedCodec: ...

    @property
    def command_codec(self) -> TaggedCodec: ...

    def initial_state(self) -> S: ...

    def evolve(self, state: S, event: Event) -> S: ...

    def decide(self, state: S, command: Tagged, actor: str, dice: Roller) -> Decision[S]: ...


@dataclass(frozen=True, slots=True)
class _Batch:
    batch: int
    actor: str
    undoable: bool
    public: bool
    rolled: bool = False  # recorded dice: undoing it takes the opponent's approval


@dataclass(frozen=True, slots=True)
class UndoRequest:
    """A pending request by ``actor`` to undo batch ``batch`` (it rolled dice)."""

    batch: int
    actor: str


@dataclass(frozen=True, slots=True)
class Replayed(Generic[S]):
    """A replayed log: the state, the undone batches, the stack of effective batches and the
    undo request waiting for an answer, if any."""

    state: S
    undone: frozenset[int]
    stack: tuple[_Batch, ...]
    pending: UndoRequest | None = None


def _check_shape(envelopes: Sequence[Envelope], start: int = 1, prev_batch: int = 0) -> None:
    """Sequence numbers from ``start`` without a gap, each batch starting at its own number
    (``prev_batch``: the batch of the event before ``start``, when the log goes on)."""
    for i, env in enumerate(envelopes, start=start):
        if env.seq != i:
            raise LogError(f"expected sequence number {i}, found {env.seq}", seq=env.seq)
        if env.batch != prev_batch and env.batch != env.seq:
            raise LogError("a batch must start at its own sequence number", seq=env.seq)
        prev_batch = env.batch


def _undo_plan(
    envelopes: Sequence[Envelope],
    stack0: Sequence[_Batch] = (),
    pending0: UndoRequest | None = None,
) -> tuple[frozenset[int], tuple[_Batch, ...], UndoRequest | None]:
    """Which batches are undone, the stack of effective batches left (latest last) and the
    pending undo request. ``stack0`` and ``pending0`` go on from the log before
    ``envelopes`` (its stack and pending request, as this returned them), when ``envelopes``
    starts a new batch: the undone batches returned are then only those ``envelopes`` undo."""
    stack: list[_Batch] = list(stack0)
    undone: set[int] = set()
    current: _Batch | None = None  # the batch being read (not an undo)
    pending: UndoRequest | None = pending0
    for env in envelopes:
        event = env.event
        if isinstance(event, UNDO_EVENTS):
            if env.batch != env.seq:
                raise LogError(f"{event.kind} must be alone in its batch", seq=env.seq)
            if current is not None:
                stack.append(current)
                current = None
            batch = event.batch  # type: ignore[attr-defined]
            if isinstance(event, UndoRefused):
                if pending is None or pending.batch != batch:
                    raise LogError(f"no request to undo batch {batch} to refuse", seq=env.seq)
                pending = None
                continue
            if not stack or stack[-1].batch != batch or not stack[-1].undoable:
                raise LogError(
                    f"undo of batch {batch}, which is not the latest undoable batch",
                    seq=env.seq,
                )
            if isinstance(event, UndoRequested):
                if stack[-1].actor != env.actor:
                    raise LogError("only the batch's actor may ask to undo it", seq=env.seq)
                pending = UndoRequest(batch, env.actor)
                continue
            undone.add(stack.pop().batch)
            pending = None
            continue
        undoable, public = type(event).undoable, env.audience is None
        rolled = event.rolled_dice()
        if current is not None and current.batch == env.batch:
            if not (undoable and public) or (rolled and not current.rolled):
                current = _Batch(
                    current.batch,
                    current.actor,
                    current.undoable and undoable,
                    current.public and public,
                    current.rolled or rolled,
                )
            continue
        if current is not None:
            stack.append(current)
        current = _Batch(env.batch, env.actor, undoable, public, rolled)
        pending = None  # a new action voids a request to undo an older one
    if current is not None:
        stack.append(current)
    return frozenset(undone), tuple(stack), pending


def replay(book: RuleBook[S], envelopes: Sequence[Envelope]) -> Replayed[S]:
    """The state of a log: every event of every batch that is not undone, evolved in order."""
    _check_shape(envelopes)
    undone, stack, pending = _undo_plan(envelopes)
    state = book.initial_state()
    evolve = book.evolve
    for env in envelopes:
        if env.batch in undone or isinstance(env.event, UNDO_EVENTS):
            continue
        try:
            state = evolve(state, env.event)
        except (EngineError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise LogError(f"cannot replay {env.event.kind}: {exc}", seq=env.seq) from exc
    return Replayed(state=state, undone=undone, stack=stack, pending=pending)


class Match(Generic[S]):
    """A match: its append-only log and the state that is its replay."""

    def __init__(self, book: RuleBook[S], envelopes: Iterable[Envelope] = ()) -> None:
        self.book = book
        self._log: list[Envelope] = list(envelopes)
        replayed = replay(book, self._log)
        self._state = replayed.state
        self._stack = list(replayed.stack)
        self._pending = replayed.pending

    def fork(self) -> Match[S]:
        """A copy that can execute commands without touching this one (the log list and the
        undo stack are copied; the state and the envelopes are immutable values)."""
        clone: Match[S] = Match.__new__(Match)
        clone.book = self.book
        clone._log = list(self._log)
        clone._state = self._state
        clone._stack = list(self._stack)
        clone._pending = self._pending
        return clone

    def extend(self, envelopes: Sequence[Envelope]) -> None:
        """Append stored ``envelopes`` that follow this log, as a reader catching up with
        another process's writes: afterwards the state, the undo stack and the pending request
        are what ``Match(book, log + envelopes)`` would replay (``evolve`` is pure), but only
        the new events are evolved, unless they undo a batch of the log already held (then
        the state is replayed from the envelopes in memory, as :meth:`undo` does).

        Only for a match nobody else reads (a :meth:`fork`). Raises :class:`LogError`, this
        match unchanged, when ``envelopes`` do not go on from the log: a gap or overlap in the
        sequence numbers, the first one not starting a new batch, an undo or an event that the
        log's replay refuses."""
        if not envelopes:
            return
        log = self._log
        start = len(log) + 1
        if envelopes[0].batch != envelopes[0].seq:
            raise LogError("the events do not start a new batch", seq=envelopes[0].seq)
        _check_shape(envelopes, start, log[-1].batch if log else 0)
        undone, stack, pending = _undo_plan(envelopes, self._stack, self._pending)
        if any(batch < start for batch in undone):  # a batch already evolved is undone
            full = replay(self.book, [*log, *envelopes])
            state, stack, pending = full.state, full.stack, full.pending
        else:
            state = self._state
            evolve = self.book.evolve
            for env in envelopes:
                if env.batch in undone or isinstance(env.event, UNDO_EVENTS):
                    continue
                try:
                    state = evolve(state, env.event)
                except (EngineError, KeyError, IndexError, TypeError, ValueError) as exc:
                    raise LogError(f"cannot replay {env.event.kind}: {exc}", seq=env.seq) from exc
        log.extend(envelopes)
        self._state = state
        self._stack = list(stack)
        self._pending = pending

    # -- reading ----------------------------------------------------------------------------

    @property
    def state(self) -> S:
        return self._state

    @property
    def version(self) -> int:
        return len(self._log)

    @property
    def envelopes(self) -> tuple[Envelope, ...]:
        return tuple(self._log)

    def envelope(self, index: int) -> Envelope:
        """The envelope at ``index`` (0-based), without copying the log."""
        return self._log[index]

    def log_for(self, viewer: Viewer) -> list[Envelope]:
        """The events ``viewer`` may see (secret events of other seats are absent)."""
        return [env for env in self._log if visible_to(env, viewer)]

    def undo_candidate(self) -> tuple[int, str] | None:
        """(batch, actor) of the batch an undo would remove, or ``None`` if none can be."""
        if not self._stack:
            return None
        top = self._stack[-1]
        return (top.batch, top.actor) if top.undoable and top.public else None

    def undo_needs_approval(self) -> bool:
        """Whether undoing the undo candidate takes the opponent's approval (it rolled dice)."""
        return bool(self._stack) and self._stack[-1].rolled

    @property
    def undo_request(self) -> UndoRequest | None:
        """The request to undo the latest batch that waits for the opponent's answer."""
        return self._pending

    # -- writing ----------------------------------------------------------------------------

    def _check_version(self, expected_version: int | None) -> None:
        if expected_version is not None and expected_version != self.version:
            raise StaleVersion(expected_version, self.version)

    def _append(self, emitted: Sequence[Emitted], actor: str, at: str | None) -> list[Envelope]:
        batch = self.version + 1
        new = [
            Envelope(
                seq=batch + i, batch=batch, actor=actor, event=e.event, at=at, audience=e.audience
            )
            for i, e in enumerate(emitted)
        ]
        self._log.extend(new)
        return new

    def execute(
        self,
        command: Tagged,
        actor: str,
        *,
        expected_version: int | None = None,
        dice: Roller | None = None,
        seed: int | None = None,
        at: str | None = None,
    ) -> list[Envelope]:
        """Validate ``command`` for ``actor`` and append its events; returns the new envelopes.

        Dice come from ``dice`` (e.g. ``Roller.from_values([...])`` for dice rolled by hand,
        which must all be used), else from ``Roller(seed)``; a command that rolls nothing needs
        neither. Raises a :class:`Refusal` and appends nothing when the command is refused.
        """
        self._check_version(expected_version)
        if dice is not None:
            roller = dice
        elif seed is not None:
            roller = Roller(seed)
        else:
            roller = Roller.from_values(())
        try:
            decision = self.book.decide(self._state, command, actor, roller)
        except DiceExhausted as exc:
            if dice is None and seed is None:
                raise Refusal(
                    "dice_needed",
                    "this command rolls dice: give a seed, or the dice rolled by hand",
                    kind=RefusalKind.INPUT,
                ) from None
            raise Refusal("not_enough_dice", str(exc), kind=RefusalKind.INPUT) from None
        except RollerError as exc:
            raise Refusal("bad_die", str(exc), kind=RefusalKind.INPUT) from None
        if roller.remaining_given:
            raise Refusal(
                "unused_dice",
                f"{roller.remaining_given} of the dice given were not needed by this command",
                kind=RefusalKind.INPUT,
            )
        if not decision.events:
            return []
        new = self._append(decision.events, actor, at)
        self._state = decision.state
        self._stack.append(
            _Batch(
                batch=new[0].batch,
                actor=actor,
                undoable=all(type(e.event).undoable for e in new),
                public=all(e.audience is None for e in new),
                rolled=any(e.event.rolled_dice() for e in new),
            )
        )
        self._pending = None
        return new

    def undo(
        self, actor: str, *, expected_version: int | None = None, at: str | None = None
    ) -> list[Envelope]:
        """Undo the latest effective batch, if ``actor`` made it and no barrier is in the way;
        a batch that rolled dice is only asked for (:class:`UndoRequested`)."""
        self._check_version(expected_version)
        if not self._stack:
            raise Refusal("nothing_to_undo", "there is nothing to undo")
        top = self._stack[-1]
        if not top.undoable or not top.public:
            raise Refusal(
                "cannot_undo",
                "the last action cannot be undone (it revealed or settled something)",
            )
        if top.actor != actor:
            raise Refusal(
                "not_your_action",
                "only the player who made the last action can undo it",
                kind=RefusalKind.FORBIDDEN,
            )
        if top.rolled:
            if self._pending is not None:
                raise Refusal(
                    "undo_already_requested",
                    "you have asked to undo this action: your opponent must answer",
                )
            new = self._append([Emitted(UndoRequested(batch=top.batch))], actor, at)
            self._pending = UndoRequest(top.batch, actor)
            return new
        return self._undo_top(actor, at)

    def _undo_top(self, actor: str, at: str | None) -> list[Envelope]:
        top = self._stack.pop()
        new = self._append([Emitted(Undone(batch=top.batch))], actor, at)
        self._pending = None
        self._state = replay(self.book, self._log).state
        return new

    def answer_undo(
        self,
        actor: str,
        batch: int,
        *,
        approve: bool,
        expected_version: int | None = None,
        at: str | None = None,
    ) -> list[Envelope]:
        """The opponent's answer to the pending undo request of ``batch``: approving appends
        the :class:`Undone`, refusing an :class:`UndoRefused` (the batch stands)."""
        self._check_version(expected_version)
        pending = self._pending
        if pending is None:
            raise Refusal("no_undo_request", "nobody is asking to undo an action")
        if pending.batch != batch:
            raise Refusal(
                "undo_request_changed",
                f"the undo request is for action #{pending.batch}, not #{batch}",
                kind=RefusalKind.CONFLICT,
                details={"batch": pending.batch},
            )
        if pending.actor == actor:
            raise Refusal(
                "not_your_answer",
                "your opponent answers your undo request",
                kind=RefusalKind.FORBIDDEN,
            )
        if approve:
            return self._undo_top(actor, at)
        new = self._append([Emitted(UndoRefused(batch=batch))], actor, at)
        self._pending = None
        return new

    # -- export / import --------------------------------------------------------------------

    def export_log(self) -> JsonObject:
        """The whole log as JSON-ready data (every event, secrets included: server side only)."""
        codec = self.book.event_codec
        return {
            "format": LOG_FORMAT,
            "rule_system": self.book.rule_system,
            "events": [env.to_json(codec) for env in self._log],
        }

    def export_json(self) -> str:
        return json.dumps(self.export_log(), ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def import_log(cls, book: RuleBook[S], data: object) -> Match[S]:
        """A match replayed from exported data (a ``dict`` or a JSON string)."""
        if isinstance(data, str | bytes):
            try:
                data = json.loads(data)
            except ValueError as exc:
                raise LogError(f"not JSON: {exc}") from None
        if not isinstance(data, Mapping):
            raise LogError("a match log must be a JSON object")
        if data.get("format") != LOG_FORMAT:
            raise LogError(f"unknown log format {data.get('format')!r} (expected {LOG_FORMAT!r})")
        if data.get("rule_system") != book.rule_system:
            raise LogError(
                f"this log is for rule system {data.get('rule_system')!r}, not {book.rule_system!r}"
            )
        raw = data.get("events")
        if not isinstance(raw, list):
            raise LogError("'events' must be a list")
        codec = book.event_codec
        try:
            envelopes = [Envelope.from_json(e, codec, f"events[{i}]") for i, e in enumerate(raw)]
        except CodecError as exc:
            raise LogError(str(exc)) from None
        return cls(book, envelopes)
