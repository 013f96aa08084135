"""The append-only match log, replay, optimistic versions and undo, for any rule system.

A rule system supplies a :class:`RuleBook`: an empty state, ``evolve(state, event)`` (pure,
deterministic: the same events always give an equal state) and ``decide(state, command, actor,
dice)`` which either raises a :class:`~app.engine.match.errors.Refusal` or returns the events
the command produces. :class:`Match` holds the log and the current state:

- ``execute(command, actor, expected_version=..., dice=...)`` validates and appends one batch;
  a write naming a stale version is refused (:class:`StaleVersion`) before anything else;
- ``undo(actor)`` appends an :class:`Undone` event for the latest effective batch (only its own
  actor may undo it, and never across a barrier event such as a reveal); the state becomes the
  replay of the log without the undone batches. Nothing is deleted;
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
from app.engine.match.events import Emitted, Envelope, Event, Undone, Viewer, visible_to
from app.engine.roller import Roller

__all__ = [
    "LOG_FORMAT",
    "Decision",
    "Match",
    "Replayed",
    "RuleBook",
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


@dataclass(frozen=True, slots=True)
class Replayed(Generic[S]):
    """A replayed log: the state, the undone batches and the stack of effective batches."""

    state: S
    undone: frozenset[int]
    stack: tuple[_Batch, ...]


def _check_shape(envelopes: Sequence[Envelope]) -> None:
    prev_batch = 0
    for i, env in enumerate(envelopes, start=1):
        if env.seq != i:
            raise LogError(f"expected sequence number {i}, found {env.seq}", seq=env.seq)
        if env.batch != prev_batch and env.batch != env.seq:
            raise LogError("a batch must start at its own sequence number", seq=env.seq)
        prev_batch = env.batch


def _undo_plan(envelopes: Sequence[Envelope]) -> tuple[frozenset[int], tuple[_Batch, ...]]:
    """Which batches are undone, and the stack of effective batches left (latest last)."""
    stack: list[_Batch] = []
    undone: set[int] = set()
    current: _Batch | None = None  # the batch being read (not an undo)
    for env in envelopes:
        event = env.event
        if isinstance(event, Undone):
            if env.batch != env.seq:
                raise LogError("an undo must be alone in its batch", seq=env.seq)
            if current is not None:
                stack.append(current)
                current = None
            if not stack or stack[-1].batch != event.batch or not stack[-1].undoable:
                raise LogError(
                    f"undo of batch {event.batch}, which is not the latest undoable batch",
                    seq=env.seq,
                )
            undone.add(stack.pop().batch)
            continue
        undoable, public = type(event).undoable, env.audience is None
        if current is not None and current.batch == env.batch:
            if not (undoable and public):
                current = _Batch(
                    current.batch,
                    current.actor,
                    current.undoable and undoable,
                    current.public and public,
                )
            continue
        if current is not None:
            stack.append(current)
        current = _Batch(env.batch, env.actor, undoable, public)
    if current is not None:
        stack.append(current)
    return frozenset(undone), tuple(stack)


def replay(book: RuleBook[S], envelopes: Sequence[Envelope]) -> Replayed[S]:
    """The state of a log: every event of every batch that is not undone, evolved in order."""
    _check_shape(envelopes)
    undone, stack = _undo_plan(envelopes)
    state = book.initial_state()
    evolve = book.evolve
    for env in envelopes:
        if env.batch in undone or isinstance(env.event, Undone):
            continue
        try:
            state = evolve(state, env.event)
        except (EngineError, KeyError, IndexError, TypeError, ValueError) as exc:
            raise LogError(f"cannot replay {env.event.kind}: {exc}", seq=env.seq) from exc
    return Replayed(state=state, undone=undone, stack=stack)


class Match(Generic[S]):
    """A match: its append-only log and the state that is its replay."""

    def __init__(self, book: RuleBook[S], envelopes: Iterable[Envelope] = ()) -> None:
        self.book = book
        self._log: list[Envelope] = list(envelopes)
        replayed = replay(book, self._log)
        self._state = replayed.state
        self._stack = list(replayed.stack)

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

    def log_for(self, viewer: Viewer) -> list[Envelope]:
        """The events ``viewer`` may see (secret events of other seats are absent)."""
        return [env for env in self._log if visible_to(env, viewer)]

    def undo_candidate(self) -> tuple[int, str] | None:
        """(batch, actor) of the batch an undo would remove, or ``None`` if none can be."""
        if not self._stack:
            return None
        top = self._stack[-1]
        return (top.batch, top.actor) if top.undoable and top.public else None

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
            )
        )
        return new

    def undo(
        self, actor: str, *, expected_version: int | None = None, at: str | None = None
    ) -> list[Envelope]:
        """Undo the latest effective batch, if ``actor`` made it and no barrier is in the way."""
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
        new = self._append([Emitted(Undone(batch=top.batch))], actor, at)
        self._stack.pop()
        self._state = replay(self.book, self._log).state
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
