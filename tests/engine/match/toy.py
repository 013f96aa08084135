"""A toy rule book for testing the shared match machinery without any real rule system.

Two seats add numbers to a shared total; ``Add(0)`` rolls a D6 and adds it; ``Hide`` keeps a
secret for its seat; ``Reveal`` is a barrier no undo may cross.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import ClassVar

from app.engine.match.codec import Tagged, TaggedCodec
from app.engine.match.dice import Roll, take_roll
from app.engine.match.errors import Refusal
from app.engine.match.events import Emitted, Event, Undone, UndoRefused, UndoRequested
from app.engine.match.log import Decision
from app.engine.roller import Roller


@dataclass(frozen=True, slots=True)
class Add(Tagged):
    kind: ClassVar[str] = "add"
    n: int


@dataclass(frozen=True, slots=True)
class Hide(Tagged):
    kind: ClassVar[str] = "hide"
    secret: str


@dataclass(frozen=True, slots=True)
class Reveal(Tagged):
    kind: ClassVar[str] = "reveal"


@dataclass(frozen=True, slots=True)
class Added(Event):
    kind: ClassVar[str] = "added"
    seat: str
    n: int
    roll: Roll | None = None


@dataclass(frozen=True, slots=True)
class Hidden(Event):
    kind: ClassVar[str] = "hidden"
    undoable: ClassVar[bool] = False
    seat: str
    secret: str


@dataclass(frozen=True, slots=True)
class Revealed(Event):
    kind: ClassVar[str] = "revealed"
    undoable: ClassVar[bool] = False
    secrets: dict[str, str]


@dataclass(frozen=True, slots=True)
class Toy:
    total: int = 0
    history: tuple[int, ...] = ()
    secrets: dict[str, str] = field(default_factory=dict)
    revealed: bool = False


class ToyBook:
    rule_system = "toy"
    event_codec = TaggedCodec(
        "event", [Undone, UndoRequested, UndoRefused, Added, Hidden, Revealed]
    )
    command_codec = TaggedCodec("command", [Add, Hide, Reveal])

    def initial_state(self) -> Toy:
        return Toy()

    def evolve(self, state: Toy, event: Event) -> Toy:
        if isinstance(event, Added):
            return replace(state, total=state.total + event.n, history=(*state.history, event.n))
        if isinstance(event, Hidden):
            return replace(state, secrets={**state.secrets, event.seat: event.secret})
        if isinstance(event, Revealed):
            return replace(state, revealed=True)
        raise TypeError(event)

    def decide(self, state: Toy, command: Tagged, actor: str, dice: Roller) -> Decision[Toy]:
        if actor not in ("A", "B"):
            raise Refusal("not_a_player", "who are you?")
        out: list[Emitted] = []
        if isinstance(command, Add):
            if command.n < 0:
                raise Refusal("negative", "only positive numbers")
            roll = None
            n = command.n
            if n == 0:
                start = len(dice.records)
                dice.d6("add")
                roll = take_roll(dice, start)
                n = roll.total
            out.append(Emitted(Added(actor, n, roll)))
        elif isinstance(command, Hide):
            out.append(Emitted(Hidden(actor, command.secret), audience=(actor,)))
        elif isinstance(command, Reveal):
            out.append(Emitted(Revealed(dict(state.secrets))))
        new = state
        for e in out:
            new = self.evolve(new, e.event)
        return Decision(tuple(out), new)


BOOK = ToyBook()
