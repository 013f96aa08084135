"""Per-mission victory evaluation at the end of the battle, with its VP breakdown.

Each mission names an evaluator (``pack.Evaluator``); :func:`evaluate` takes the mission and
the facts that evaluator needs (one small dataclass each) and returns a :class:`Victory`: the
winner (``None`` for a draw), the kind of result (major victory, victory, draw) and the lines
that explain it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from app.engine.narrative8e.pack import Evaluator, Mission, ResultKind, Side
from app.engine.narrative8e.setup import NarrativeError
from app.engine.roller import Roller

__all__ = [
    "BlitzFacts",
    "EscapeFacts",
    "LastStandFacts",
    "PatrolFacts",
    "RescueFacts",
    "SabotageFacts",
    "ScoreLine",
    "Victory",
    "blitz_vp",
    "evaluate",
    "patrol_vp",
]


@dataclass(frozen=True, slots=True)
class ScoreLine:
    side: Side
    item: str
    vp: int = 0
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Victory:
    winner: Side | None
    result: ResultKind
    vp: tuple[int, int] | None = None
    """(Attacker, Defender) when the mission scores VP."""
    breakdown: tuple[ScoreLine, ...] = ()
    dice: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class LastStandFacts:
    """Meat Grinder: the Defender's models still on the battlefield [L155]."""

    defender_models_on_table: int


@dataclass(frozen=True, slots=True)
class EscapeFacts:
    """Ambush: the value (points or PL) of each Defender unit that escaped, counted whole
    [L225]; the Defender army's value at list building (rulings A12)."""

    escaped: Mapping[str, int]
    defender_army_value: int


@dataclass(frozen=True, slots=True)
class PatrolFacts:
    """Patrol: the enemy units each side destroyed; every unit not on the battlefield at the
    end counts as destroyed [L293] (embarked units count as on it, rulings A15)."""

    attacker_units: Iterable[str]
    defender_units: Iterable[str]
    destroyed: Iterable[str]
    on_battlefield: Iterable[str]


@dataclass(frozen=True, slots=True)
class BlitzFacts:
    """Blitz: Attacker units with a model wholly within the Defender's First or Second Line
    zone [L369], and the number of times an Attacker unit was destroyed [L371]."""

    in_first_line: Iterable[str]
    in_second_line: Iterable[str]
    attacker_destructions: int


@dataclass(frozen=True, slots=True)
class SabotageFacts:
    """Sabotage: attempts made, *Cut the Wires* used [L473]; the final D6 is rolled here."""

    attempts: int
    cut_the_wires: bool = False


@dataclass(frozen=True, slots=True)
class RescueFacts:
    spy_found: bool
    spy_alive: bool
    placement_failed: bool = False


Facts = LastStandFacts | EscapeFacts | PatrolFacts | BlitzFacts | SabotageFacts | RescueFacts

_FACTS: dict[Evaluator, type] = {
    Evaluator.LAST_STAND: LastStandFacts,
    Evaluator.ESCAPE: EscapeFacts,
    Evaluator.UNITS_DESTROYED: PatrolFacts,
    Evaluator.BREAKTHROUGH: BlitzFacts,
    Evaluator.SABOTAGE: SabotageFacts,
    Evaluator.RESCUE: RescueFacts,
}


def _param(mission: Mission, name: str, default: int) -> int:
    value = mission.params.get(name, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise NarrativeError(f"{mission.id}: parameter {name} must be an integer")
    return value


def _most_vp(a: int, d: int, lines: tuple[ScoreLine, ...]) -> Victory:
    if a == d:
        return Victory(None, ResultKind.DRAW, (a, d), lines)
    winner = Side.ATTACKER if a > d else Side.DEFENDER
    return Victory(winner, ResultKind.MAJOR_VICTORY, (a, d), lines)


def patrol_vp(facts: PatrolFacts) -> tuple[ScoreLine, ...]:
    """1 VP per enemy unit destroyed or not on the battlefield at the end [L293]."""
    destroyed = set(facts.destroyed)
    on_table = set(facts.on_battlefield)
    lines: list[ScoreLine] = []
    for scorer, units in (
        (Side.DEFENDER, facts.attacker_units),
        (Side.ATTACKER, facts.defender_units),
    ):
        for u in units:
            if u in destroyed:
                lines.append(ScoreLine(scorer, "unit_destroyed", 1, u))
            elif u not in on_table:
                lines.append(ScoreLine(scorer, "unit_off_battlefield", 1, u))
    return tuple(lines)


def blitz_vp(mission: Mission, facts: BlitzFacts) -> tuple[ScoreLine, ...]:
    """Breakthrough: 1 VP per Attacker unit in the First Line zone, 2 instead in the Second
    Line (a unit scores once, the better zone) [L369]; Contested Approach: 1 VP to the Defender
    each time an Attacker unit is destroyed [L371]."""
    first = _param(mission, "first_line_vp", 1)
    second = _param(mission, "second_line_vp", 2)
    per_kill = _param(mission, "destroyed_vp", 1)
    seconds = list(dict.fromkeys(facts.in_second_line))
    firsts = [u for u in dict.fromkeys(facts.in_first_line) if u not in seconds]
    lines = [ScoreLine(Side.ATTACKER, "second_line", second, u) for u in seconds]
    lines += [ScoreLine(Side.ATTACKER, "first_line", first, u) for u in firsts]
    if facts.attacker_destructions < 0:
        raise NarrativeError("destructions cannot be negative")
    if facts.attacker_destructions:
        lines.append(
            ScoreLine(
                Side.DEFENDER,
                "contested_approach",
                per_kill * facts.attacker_destructions,
                f"{facts.attacker_destructions} destroyed",
            )
        )
    return tuple(lines)


def _total(lines: tuple[ScoreLine, ...], side: Side) -> int:
    return sum(line.vp for line in lines if line.side is side)


def evaluate(mission: Mission, facts: Facts, roller: Roller | None = None) -> Victory:
    """The result of ``mission`` at the end of the battle from ``facts`` (Sabotage rolls its
    final D6 with ``roller``)."""
    expected = _FACTS[mission.evaluator]
    if not isinstance(facts, expected):
        raise NarrativeError(
            f"{mission.id} is decided by {expected.__name__}, not {type(facts).__name__}"
        )
    major = ResultKind.MAJOR_VICTORY
    if isinstance(facts, LastStandFacts):
        alive = facts.defender_models_on_table
        line = ScoreLine(Side.DEFENDER, "models_on_battlefield", 0, str(alive))
        winner = Side.DEFENDER if alive >= 1 else Side.ATTACKER
        return Victory(winner, major, breakdown=(line,))
    if isinstance(facts, EscapeFacts):
        num = _param(mission, "escape_numerator", 1)
        den = _param(mission, "escape_denominator", 3)
        total = sum(facts.escaped.values())
        lines = tuple(
            ScoreLine(Side.DEFENDER, "escaped", 0, f"{u}: {v}") for u, v in facts.escaped.items()
        )
        lines += (
            ScoreLine(Side.DEFENDER, "escaped_total", 0, f"{total} of {facts.defender_army_value}"),
        )
        winner = Side.DEFENDER if total * den >= facts.defender_army_value * num else Side.ATTACKER
        return Victory(winner, major, breakdown=lines)
    if isinstance(facts, PatrolFacts):
        lines = patrol_vp(facts)
        return _most_vp(_total(lines, Side.ATTACKER), _total(lines, Side.DEFENDER), lines)
    if isinstance(facts, BlitzFacts):
        lines = blitz_vp(mission, facts)
        return _most_vp(_total(lines, Side.ATTACKER), _total(lines, Side.DEFENDER), lines)
    if isinstance(facts, SabotageFacts):
        if roller is None:
            raise NarrativeError("sabotage: the final roll needs dice")
        attempts = max(0, facts.attempts - (1 if facts.cut_the_wires else 0))
        die = roller.d6("sabotage: is the Objective destroyed?", stage="victory")
        total = die + attempts
        needed = _param(mission, "destroyed_on", 7)
        lines = (
            ScoreLine(Side.ATTACKER, "attempts", 0, str(attempts)),
            ScoreLine(Side.ATTACKER, "roll", 0, f"{die} + {attempts} = {total} (needs {needed})"),
        )
        winner = Side.ATTACKER if total >= needed else Side.DEFENDER
        return Victory(winner, major, breakdown=lines, dice=(die,))
    assert isinstance(facts, RescueFacts)
    if facts.placement_failed:
        line = ScoreLine(Side.DEFENDER, "spy_could_not_be_placed")
        return Victory(Side.DEFENDER, ResultKind.VICTORY, breakdown=(line,))
    ok = facts.spy_found and facts.spy_alive
    line = ScoreLine(Side.ATTACKER, "spy", 0, "found and alive" if ok else "not found or not alive")
    return Victory(Side.ATTACKER if ok else Side.DEFENDER, ResultKind.VICTORY, breakdown=(line,))
