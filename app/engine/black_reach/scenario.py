"""Scenarios as data and the end-of-turn checks (note §3.2, §5; seed [L36-L38], [L97-L103],
[L639-L647], [L750-L759], [L2318-L2325]).

The rulebook has no scenario: it defers to "the scenario" for forces, objectives, board, turn
limit and hand size. A :class:`Scenario` holds those (format: docs/black-reach-data.md, loader:
:func:`~.loaders.scenario_from_dict`). The checks are pure functions of what the board shows:

- :func:`broken_groups` (Breaking Points: which groups broke, and the VP each gives the
  opponent);
- :func:`objective_holder` (who holds an objective);
- :func:`sudden_death` (a player with no Order token to place loses at once [L97-L99]);
- :func:`end_of_turn` (after the Reserve phase: a player who reached the scenario's VP wins, or
  at the turn limit the most VP wins [L101-L103]).

Readings: docs/rulings/black-reach.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from app.engine.black_reach.armies import Army, Catalogue, Tokens
from app.engine.black_reach.board import Board, Square
from app.engine.black_reach.forces import Group

__all__ = [
    "Objective",
    "Outcome",
    "Scenario",
    "Side",
    "Verdict",
    "broken_groups",
    "end_of_turn",
    "objective_holder",
    "score",
    "sudden_death",
]


@dataclass(frozen=True)
class Side:
    id: str
    army: Army
    points: int | None
    deployment: frozenset[Square]


@dataclass(frozen=True)
class Objective:
    """An objective: squares, the VP it gives its holder at each check, and whether holding it
    at an end-of-turn check wins the game outright (scenario data)."""

    id: str
    squares: frozenset[Square]
    vp: int = 0
    wins: bool = False


@dataclass(frozen=True)
class Scenario:
    id: str
    name: str
    board: Board
    sides: tuple[Side, Side]
    objectives: tuple[Objective, ...]
    turns: int
    hand_size: int
    first_initiative: str
    vp_to_win: int | None
    catalogue: Catalogue
    sample: bool = False

    def side(self, side_id: str) -> Side:
        for s in self.sides:
            if s.id == side_id:
                return s
        raise KeyError(side_id)

    def opponent(self, side_id: str) -> str:
        a, b = self.sides
        if side_id == a.id:
            return b.id
        if side_id == b.id:
            return a.id
        raise KeyError(side_id)


class Outcome(StrEnum):
    PLAY_ON = "play_on"
    WIN = "win"
    DRAW = "draw"


@dataclass(frozen=True)
class Verdict:
    outcome: Outcome
    winner: str | None
    reason: str  # "sudden_death", "objective", "victory_points", "turn_limit", ""
    vp: Mapping[str, int]


def broken_groups(groups: Iterable[Group]) -> tuple[Group, ...]:
    """The groups whose destroyed counters reached their Breaking Point [L639-L647]."""
    return tuple(g for g in groups if g.broken)


def objective_holder(objective: Objective, positions: Mapping[str, Iterable[Square]]) -> str | None:
    """The side holding ``objective``: the only side with a unit on one of its squares
    (``positions``: the squares each side's units stand on, embarked units left out); nobody
    when both or neither are there (rulings)."""
    present = [side for side, squares in positions.items() if objective.squares & set(squares)]
    return present[0] if len(present) == 1 else None


def score(
    scenario: Scenario, groups: Iterable[Group], holders: Mapping[str, str | None]
) -> dict[str, int]:
    """VP of each side: the VP of every broken enemy group [L2318-L2325] and of every objective
    it holds (``holders``: objective id → side or None)."""
    vp = {s.id: 0 for s in scenario.sides}
    for group in broken_groups(groups):
        vp[scenario.opponent(group.side)] += group.victory_points
    for objective in scenario.objectives:
        holder = holders.get(objective.id)
        if holder is not None:
            vp[holder] += objective.vp
    return vp


def sudden_death(scenario: Scenario, tokens: Mapping[str, Tokens]) -> Verdict | None:
    """At the Order phase, a player with no numbered or Special token to place (Bluff tokens do
    not count) loses at once [L97-L99], [L3065-L3066]; both at once: a draw (rulings)."""
    out = [s.id for s in scenario.sides if tokens[s.id].numbered + tokens[s.id].special == 0]
    vp = {s.id: 0 for s in scenario.sides}
    if len(out) == 2:
        return Verdict(Outcome.DRAW, None, "sudden_death", vp)
    if out:
        return Verdict(Outcome.WIN, scenario.opponent(out[0]), "sudden_death", vp)
    return None


def end_of_turn(
    scenario: Scenario,
    turn: int,
    groups: Sequence[Group],
    holders: Mapping[str, str | None],
) -> Verdict:
    """The check after the Reserve phase of ``turn`` [L101-L103], in this order:

    1. a side holding an objective marked ``wins`` wins (both: go on);
    2. a side with at least ``vp_to_win`` VP wins; both: the higher, equal: go on;
    3. at the turn limit, the most VP wins; equal VP is a draw.
    """
    if not 1 <= turn <= scenario.turns:
        raise ValueError(f"turn {turn} is outside the scenario's 1..{scenario.turns}")
    vp = score(scenario, groups, holders)
    winners = {holders.get(o.id) for o in scenario.objectives if o.wins} - {None}
    if len(winners) == 1:
        return Verdict(Outcome.WIN, winners.pop(), "objective", vp)
    ranked = sorted(vp.items(), key=lambda kv: kv[1], reverse=True)
    (first, top), (_, second) = ranked[0], ranked[1]
    if scenario.vp_to_win is not None and top >= scenario.vp_to_win and top > second:
        return Verdict(Outcome.WIN, first, "victory_points", vp)
    if turn < scenario.turns:
        return Verdict(Outcome.PLAY_ON, None, "", vp)
    if top > second:
        return Verdict(Outcome.WIN, first, "turn_limit", vp)
    return Verdict(Outcome.DRAW, None, "turn_limit", vp)
