"""Typed events, the envelope that records who did what and when, and who may see it.

A rule system's events are frozen dataclasses deriving from :class:`Event`, each with a unique
``kind`` tag. An :class:`Envelope` wraps one event in the log: its sequence number (1-based; the
match version after it is applied), its batch (the sequence number of the first event of the
command that produced it, so one command = one batch), the seat that acted, an optional
timestamp given by the caller (never read by the rules, so replay stays deterministic) and its
audience (``None`` for everybody, else the seats that may see it: a secret stays absent, not
masked, from everybody else's copy of the log).

:class:`Undone` is the compensating event of the shared machinery: it names a batch whose
events no longer count. Nothing is ever deleted from the log. Undoing a batch that rolled dice
takes two players: :class:`UndoRequested` (by the batch's actor), then :class:`Undone` appended
by the opponent who approves it, or :class:`UndoRefused`. These three are the log's own
bookkeeping (:data:`UNDO_EVENTS`): a rule system's ``evolve`` never sees them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from app.engine.match.codec import CodecError, JsonObject, Tagged, TaggedCodec
from app.engine.match.dice import Roll

__all__ = [
    "UNDO_EVENTS",
    "Emitted",
    "Envelope",
    "Event",
    "UndoRefused",
    "UndoRequested",
    "Undone",
    "Viewer",
    "visible_to",
]

Viewer = str | None
"""A seat id, or ``None`` for a spectator."""


class Event(Tagged):
    """Base of every event. ``undoable = False`` marks a barrier no undo may cross."""

    __slots__ = ()
    undoable: ClassVar[bool] = True

    def rolled_dice(self) -> bool:
        """Whether this event records dice (its ``roll``); undoing it then takes the
        opponent's approval. An event that keeps its dice elsewhere overrides this."""
        roll = getattr(self, "roll", None)
        return isinstance(roll, Roll) and bool(roll.dice)


@dataclass(frozen=True, slots=True)
class Undone(Event):
    """The batch starting at ``batch`` is undone (a compensating event)."""

    kind: ClassVar[str] = "undone"
    undoable: ClassVar[bool] = False
    batch: int


@dataclass(frozen=True, slots=True)
class UndoRequested(Event):
    """The actor of batch ``batch`` asks to undo it (it rolled dice): the opponent answers."""

    kind: ClassVar[str] = "undo_requested"
    undoable: ClassVar[bool] = False
    batch: int


@dataclass(frozen=True, slots=True)
class UndoRefused(Event):
    """The opponent refused to undo batch ``batch``: it stands."""

    kind: ClassVar[str] = "undo_refused"
    undoable: ClassVar[bool] = False
    batch: int


UNDO_EVENTS: tuple[type[Event], ...] = (Undone, UndoRequested, UndoRefused)


@dataclass(frozen=True, slots=True)
class Emitted:
    """An event a rule book decided, with its audience (``None`` = public)."""

    event: Event
    audience: tuple[str, ...] | None = None


_ENVELOPE_KEYS = frozenset({"seq", "batch", "actor", "at", "audience", "event"})


@dataclass(frozen=True, slots=True)
class Envelope:
    """One event as logged."""

    seq: int
    batch: int
    actor: str
    event: Event
    at: str | None = None
    audience: tuple[str, ...] | None = None

    def to_json(self, codec: TaggedCodec) -> JsonObject:
        return {
            "seq": self.seq,
            "batch": self.batch,
            "actor": self.actor,
            "at": self.at,
            "audience": None if self.audience is None else list(self.audience),
            "event": codec.encode(self.event),
        }

    @classmethod
    def from_json(cls, data: object, codec: TaggedCodec, path: str = "") -> Envelope:
        if type(data) is not dict and not isinstance(data, Mapping):
            raise CodecError(path, "an event record must be an object")
        if not _ENVELOPE_KEYS.issuperset(data):
            unknown = sorted(str(k) for k in data if k not in _ENVELOPE_KEYS)
            raise CodecError(path, f"unknown field(s): {', '.join(unknown)}")
        get = data.get
        seq, batch, actor, at, audience = (
            get("seq"),
            get("batch"),
            get("actor"),
            get("at"),
            get("audience"),
        )
        if type(seq) is not int or seq < 1:
            raise CodecError(f"{path}.seq", "expected a positive integer")
        if type(batch) is not int or not 1 <= batch <= seq:
            raise CodecError(f"{path}.batch", "expected an integer between 1 and seq")
        if type(actor) is not str:
            raise CodecError(f"{path}.actor", "expected a string")
        if at is not None and not isinstance(at, str):
            raise CodecError(f"{path}.at", "expected a string or null")
        aud: tuple[str, ...] | None = None
        if audience is not None:
            if not isinstance(audience, list) or not all(isinstance(s, str) for s in audience):
                raise CodecError(f"{path}.audience", "expected a list of seats or null")
            aud = tuple(audience)
        event = codec.decode(get("event"), path + ".event")
        assert isinstance(event, Event)
        return cls(seq, batch, actor, event, at, aud)


def visible_to(envelope: Envelope, viewer: Viewer) -> bool:
    """Whether ``viewer`` (a seat, or ``None`` for a spectator) may see this event at all."""
    return envelope.audience is None or (viewer is not None and viewer in envelope.audience)
