"""Turn structures as data: battle rounds, player turns, phases and steps.

A :class:`TurnStructure` lists the phases of a player turn (each with its ordered steps) and how
many player turns make a battle round. A :class:`TurnPosition` says where the battle is; the
structure moves it forward one step or one phase and reports which boundaries it crossed (end
of phase, of turn, of round), so a rule system hangs its own hooks on those boundaries (gain
CP at the start of a phase, score at the end of a turn...) without re-writing the counting.
Whether the battle goes on after a round is the rule system's call (its mission decides).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

__all__ = ["Advance", "Boundary", "PhaseSpec", "TurnPosition", "TurnStructure"]


class Boundary(enum.StrEnum):
    STEP = "step"
    PHASE = "phase"
    TURN = "turn"
    ROUND = "round"


@dataclass(frozen=True, slots=True)
class PhaseSpec:
    name: str
    steps: tuple[str, ...]

    def __post_init__(self) -> None:
        if not self.steps:
            raise ValueError(f"phase {self.name!r} needs at least one step")
        if len(set(self.steps)) != len(self.steps):
            raise ValueError(f"phase {self.name!r} repeats a step")


@dataclass(frozen=True, slots=True)
class TurnPosition:
    """Battle round (1-based), player turn within the round (0-based), phase and step."""

    round: int
    turn: int
    phase: str
    step: str


@dataclass(frozen=True, slots=True)
class Advance:
    position: TurnPosition
    crossed: tuple[Boundary, ...]

    def crossed_boundary(self, boundary: Boundary) -> bool:
        return boundary in self.crossed


@dataclass(frozen=True, slots=True)
class TurnStructure:
    phases: tuple[PhaseSpec, ...]
    turns_per_round: int = 2

    def __post_init__(self) -> None:
        if not self.phases:
            raise ValueError("a turn needs at least one phase")
        names = [p.name for p in self.phases]
        if len(set(names)) != len(names):
            raise ValueError("phase names must be unique")
        if self.turns_per_round < 1:
            raise ValueError("a round needs at least one turn")

    def phase(self, name: str) -> PhaseSpec:
        for p in self.phases:
            if p.name == name:
                return p
        raise KeyError(name)

    def phase_index(self, name: str) -> int:
        return [p.name for p in self.phases].index(name)

    def start(self, round_: int = 1, turn: int = 0) -> TurnPosition:
        first = self.phases[0]
        return TurnPosition(round=round_, turn=turn, phase=first.name, step=first.steps[0])

    def next_step(self, pos: TurnPosition) -> Advance:
        """The next step of the phase, or the first step of the next phase."""
        steps = self.phase(pos.phase).steps
        i = steps.index(pos.step)
        if i + 1 < len(steps):
            return Advance(
                TurnPosition(pos.round, pos.turn, pos.phase, steps[i + 1]), (Boundary.STEP,)
            )
        return self.next_phase(pos)

    def next_phase(self, pos: TurnPosition) -> Advance:
        """The first step of the next phase, turn or round, with the boundaries crossed."""
        i = self.phase_index(pos.phase)
        if i + 1 < len(self.phases):
            nxt = self.phases[i + 1]
            return Advance(
                TurnPosition(pos.round, pos.turn, nxt.name, nxt.steps[0]),
                (Boundary.STEP, Boundary.PHASE),
            )
        if pos.turn + 1 < self.turns_per_round:
            return Advance(
                self.start(pos.round, pos.turn + 1), (Boundary.STEP, Boundary.PHASE, Boundary.TURN)
            )
        return Advance(
            self.start(pos.round + 1, 0),
            (Boundary.STEP, Boundary.PHASE, Boundary.TURN, Boundary.ROUND),
        )

    def with_step(self, pos: TurnPosition, step: str) -> TurnPosition:
        """The same phase at ``step`` (which must belong to it)."""
        if step not in self.phase(pos.phase).steps:
            raise ValueError(f"{step!r} is not a step of the {pos.phase} phase")
        return TurnPosition(pos.round, pos.turn, pos.phase, step)
