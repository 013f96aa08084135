"""League standings: tally confirmed results, score them, break ties in a chosen order.

Pure logic (stdlib only, no database, no web): the league service loads the CONFIRMED results
of a league and hands them here; pending or disputed games must not be passed in.

- :class:`GameResult` (one confirmed game) and :class:`Bye` are the shared input vocabulary of
  the whole ``app.leagues`` logic (pairing and Elo use them too).
- :class:`Scoring` says how many points a win, a draw, a loss and a bye are worth.
- :func:`tally` builds each player's :class:`Record`; :func:`compute_standings` ranks them:
  points first, then the configured :class:`TieBreaker` s in order, then a stable final order
  (player id or name). Players still equal after every criterion share a rank ("1, 2, 2, 4").

Every number that can be a fraction (points, strength of schedule, win rates) is an exact
:class:`~fractions.Fraction`. Rulings on the open questions: ``docs/rulings/leagues.md``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from typing import TypeAlias

__all__ = [
    "Bye",
    "FinalOrder",
    "GameResult",
    "LeagueError",
    "PlayerId",
    "Points",
    "Record",
    "Scoring",
    "Standing",
    "StandingsConfig",
    "TieBreaker",
    "compute_standings",
    "opponents_win_rate",
    "strength_of_schedule",
    "tally",
]

PlayerId: TypeAlias = int
"""A player as the league knows them (e.g. a registration id). Ids must be orderable ints."""

Points: TypeAlias = int | Fraction
"""A number of league points; exact (an int or a Fraction, e.g. ``Fraction(1, 2)`` for a draw)."""

MAX_VICTORY_POINTS = 10_000
"""Bound on the victory points of one side of one game (a 40k game scores at most ~100)."""


class LeagueError(ValueError):
    """Bad input to the league logic (a malformed result, an impossible configuration...)."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """One confirmed game between two players.

    ``winner`` is ``player_a``, ``player_b`` or ``None`` for a draw. ``vp_a``/``vp_b`` are the
    victory points each side scored (0 when the league does not record them).
    """

    player_a: PlayerId
    player_b: PlayerId
    winner: PlayerId | None
    vp_a: int = 0
    vp_b: int = 0

    def __post_init__(self) -> None:
        if self.player_a == self.player_b:
            raise LeagueError(f"a game needs two different players (got {self.player_a} twice)")
        if self.winner is not None and self.winner not in (self.player_a, self.player_b):
            raise LeagueError(
                f"the winner {self.winner} did not play this game "
                f"({self.player_a} v {self.player_b})"
            )
        for vp in (self.vp_a, self.vp_b):
            if not 0 <= vp <= MAX_VICTORY_POINTS:
                raise LeagueError(f"victory points must be 0..{MAX_VICTORY_POINTS} (got {vp})")

    @property
    def players(self) -> tuple[PlayerId, PlayerId]:
        return (self.player_a, self.player_b)

    def involves(self, player: PlayerId) -> bool:
        return player in (self.player_a, self.player_b)

    def opponent(self, player: PlayerId) -> PlayerId:
        """The other player of the game (``player`` must have played it)."""
        if player == self.player_a:
            return self.player_b
        if player == self.player_b:
            return self.player_a
        raise LeagueError(f"player {player} did not play {self.player_a} v {self.player_b}")

    def score(self, player: PlayerId) -> Fraction:
        """The game score of ``player``: 1 for a win, 1/2 for a draw, 0 for a loss."""
        self.opponent(player)  # validates that the player played
        if self.winner is None:
            return Fraction(1, 2)
        return Fraction(1) if self.winner == player else Fraction(0)

    def victory_points(self, player: PlayerId) -> tuple[int, int]:
        """(scored, conceded) victory points of ``player`` in this game."""
        if player == self.player_a:
            return (self.vp_a, self.vp_b)
        if player == self.player_b:
            return (self.vp_b, self.vp_a)
        raise LeagueError(f"player {player} did not play {self.player_a} v {self.player_b}")


@dataclass(frozen=True, slots=True)
class Bye:
    """A round in which ``player`` had no opponent (Swiss or odd round robin)."""

    player: PlayerId
    round: int | None = None


def _as_fraction(value: Points, name: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | Fraction):
        raise LeagueError(f"{name} must be an int or a Fraction (got {value!r})")
    return Fraction(value)


@dataclass(frozen=True, slots=True)
class Scoring:
    """League points per game outcome. ``bye`` defaults to the points of a win.

    ``bye_victory_points`` are the victory points a bye scores (conceding none); 0 by default,
    so a bye never moves the victory-point tie-breakers unless the league says so.
    """

    win: Points = 3
    draw: Points = 1
    loss: Points = 0
    bye: Points | None = None
    bye_victory_points: int = 0

    def __post_init__(self) -> None:
        win = _as_fraction(self.win, "win")
        draw = _as_fraction(self.draw, "draw")
        loss = _as_fraction(self.loss, "loss")
        if not 0 <= loss <= draw <= win:
            raise LeagueError(
                f"points must satisfy 0 <= loss <= draw <= win (got {win}/{draw}/{loss})"
            )
        if self.bye is not None and _as_fraction(self.bye, "bye") < 0:
            raise LeagueError(f"bye points must not be negative (got {self.bye})")
        if not 0 <= self.bye_victory_points <= MAX_VICTORY_POINTS:
            raise LeagueError(
                f"bye victory points must be 0..{MAX_VICTORY_POINTS} "
                f"(got {self.bye_victory_points})"
            )

    @property
    def bye_points(self) -> Fraction:
        return Fraction(self.win if self.bye is None else self.bye)

    def points(self, game: GameResult, player: PlayerId) -> Fraction:
        """League points ``player`` earned in ``game``."""
        score = game.score(player)
        if score == 1:
            return Fraction(self.win)
        if score == 0:
            return Fraction(self.loss)
        return Fraction(self.draw)


@dataclass(frozen=True, slots=True)
class Record:
    """What one player did: games (byes excluded), outcomes, points, victory points, opponents.

    ``opponents`` lists one entry per game (a player met twice appears twice), in input order.
    """

    player: PlayerId
    games: int
    wins: int
    draws: int
    losses: int
    byes: int
    points: Fraction
    vp_for: int
    vp_against: int
    opponents: tuple[PlayerId, ...]

    @property
    def vp_difference(self) -> int:
        return self.vp_for - self.vp_against

    @property
    def win_rate(self) -> Fraction:
        """(wins + draws/2) / games, byes excluded; 0 for a player with no game."""
        if self.games == 0:
            return Fraction(0)
        return (self.wins + Fraction(self.draws, 2)) / self.games


@dataclass(slots=True)
class _Tally:
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    byes: int = 0
    vp_for: int = 0
    vp_against: int = 0
    opponents: list[PlayerId] = field(default_factory=list)


def _entry(acc: dict[PlayerId, _Tally], player: PlayerId) -> _Tally:
    t = acc.get(player)
    if t is None:
        t = acc[player] = _Tally()
    return t


def tally(
    results: Iterable[GameResult],
    byes: Iterable[Bye] = (),
    scoring: Scoring | None = None,
    players: Iterable[PlayerId] = (),
) -> dict[PlayerId, Record]:
    """Every player's :class:`Record`: those of ``players`` plus anyone in a result or a bye."""
    scoring = scoring or Scoring()
    acc: dict[PlayerId, _Tally] = {p: _Tally() for p in players}
    for game in results:
        a = acc.get(game.player_a)
        if a is None:
            a = acc[game.player_a] = _Tally()
        b = acc.get(game.player_b)
        if b is None:
            b = acc[game.player_b] = _Tally()
        a.games += 1
        b.games += 1
        if game.winner is None:
            a.draws += 1
            b.draws += 1
        elif game.winner == game.player_a:
            a.wins += 1
            b.losses += 1
        else:
            b.wins += 1
            a.losses += 1
        a.vp_for += game.vp_a
        a.vp_against += game.vp_b
        b.vp_for += game.vp_b
        b.vp_against += game.vp_a
        a.opponents.append(game.player_b)
        b.opponents.append(game.player_a)
    for bye in byes:
        t = _entry(acc, bye.player)
        t.byes += 1
        t.vp_for += scoring.bye_victory_points
    # Points from the counts, not game by game: integer weights over a common denominator,
    # so each player costs one Fraction (the arithmetic stays exact).
    weights = (
        Fraction(scoring.win),
        Fraction(scoring.draw),
        Fraction(scoring.loss),
        scoring.bye_points,
    )
    denominator = math.lcm(*(w.denominator for w in weights))
    win, draw, loss, bye_ = (w.numerator * (denominator // w.denominator) for w in weights)
    return {
        p: Record(
            player=p,
            games=t.games,
            wins=t.wins,
            draws=t.draws,
            losses=t.losses,
            byes=t.byes,
            points=Fraction(
                t.wins * win + t.draws * draw + t.losses * loss + t.byes * bye_, denominator
            ),
            vp_for=t.vp_for,
            vp_against=t.vp_against,
            opponents=tuple(t.opponents),
        )
        for p, t in acc.items()
    }


def _exact_sums(
    records: Mapping[PlayerId, Record], value: Mapping[PlayerId, Fraction]
) -> dict[PlayerId, Fraction]:
    """For each player, the exact sum of ``value`` over their opponents (one term per game),
    summed as integers over a common denominator."""
    denominator = math.lcm(1, *(v.denominator for v in value.values()))
    scaled = {p: v.numerator * (denominator // v.denominator) for p, v in value.items()}
    return {
        p: Fraction(sum(scaled[o] for o in r.opponents), denominator) for p, r in records.items()
    }


def strength_of_schedule(records: Mapping[PlayerId, Record]) -> dict[PlayerId, Fraction]:
    """Sum of the current points of every opponent faced, once per game (byes add nothing)."""
    return _exact_sums(records, {p: r.points for p, r in records.items()})


def opponents_win_rate(records: Mapping[PlayerId, Record]) -> dict[PlayerId, Fraction]:
    """Mean, over the games played, of the opponent's win rate (0 with no game)."""
    totals = _exact_sums(records, {p: r.win_rate for p, r in records.items()})
    return {
        p: totals[p] / len(r.opponents) if r.opponents else Fraction(0) for p, r in records.items()
    }


class TieBreaker(StrEnum):
    """Criteria that separate players level on points, applied in the order a league chooses."""

    STRENGTH_OF_SCHEDULE = "strength_of_schedule"
    """Sum of the points of every opponent faced (higher first)."""
    OPPONENTS_WIN_RATE = "opponents_win_rate"
    """Mean win rate of the opponents faced (higher first)."""
    HEAD_TO_HEAD = "head_to_head"
    """Points earned in the games among exactly the tied players (only if all of them met)."""
    VP_DIFFERENCE = "vp_difference"
    """Victory points scored minus conceded (higher first)."""
    VP_SCORED = "vp_scored"
    """Victory points scored (higher first)."""


class FinalOrder(StrEnum):
    """How players still level after every tie-breaker are listed (they share a rank)."""

    PLAYER_ID = "player_id"
    NAME = "name"


DEFAULT_TIE_BREAKERS: tuple[TieBreaker, ...] = (
    TieBreaker.STRENGTH_OF_SCHEDULE,
    TieBreaker.HEAD_TO_HEAD,
    TieBreaker.VP_DIFFERENCE,
    TieBreaker.VP_SCORED,
)


@dataclass(frozen=True, slots=True)
class StandingsConfig:
    """Scoring, tie-breakers (in order, each at most once) and the final display order."""

    scoring: Scoring = field(default_factory=Scoring)
    tie_breakers: tuple[TieBreaker, ...] = DEFAULT_TIE_BREAKERS
    final_order: FinalOrder = FinalOrder.PLAYER_ID

    def __post_init__(self) -> None:
        criteria = tuple(TieBreaker(t) for t in self.tie_breakers)
        if len(set(criteria)) != len(criteria):
            raise LeagueError(f"a tie-breaker is listed twice: {[str(t) for t in criteria]}")
        object.__setattr__(self, "tie_breakers", criteria)
        object.__setattr__(self, "final_order", FinalOrder(self.final_order))


@dataclass(frozen=True, slots=True)
class Standing:
    """One row of the standings table.

    ``rank`` is shared by players level on points and every tie-breaker (``tied`` is then
    true). ``decided_by`` names the tie-breaker that put this row above the next one; it is
    ``None`` when points alone did, when the two rows are tied, and on the last row.
    """

    rank: int
    player: PlayerId
    tied: bool
    points: Fraction
    games: int
    wins: int
    draws: int
    losses: int
    byes: int
    vp_for: int
    vp_against: int
    strength_of_schedule: Fraction
    opponents_win_rate: Fraction
    decided_by: TieBreaker | None

    @property
    def vp_difference(self) -> int:
        return self.vp_for - self.vp_against


class _Ranker:
    """Splits groups of players level on points with the configured tie-breakers."""

    def __init__(
        self,
        records: Mapping[PlayerId, Record],
        results: Sequence[GameResult],
        config: StandingsConfig,
    ) -> None:
        self.records = records
        self.config = config
        self.criteria = config.tie_breakers
        self.sos = strength_of_schedule(records)
        self.owr = opponents_win_rate(records)
        # Exact integer images (over a common denominator) to sort and compare: same order as
        # the fractions, far cheaper than Fraction comparisons.
        self.sos_key = _scaled(self.sos)
        self.owr_key = _scaled(self.owr)
        self.games_of: dict[PlayerId, list[GameResult]] = {p: [] for p in records}
        for game in results:
            for player in game.players:
                self.games_of[player].append(game)

    def value(self, criterion: TieBreaker, player: PlayerId) -> int:
        """An integer with the order of the criterion's value (higher is better)."""
        if criterion is TieBreaker.STRENGTH_OF_SCHEDULE:
            return self.sos_key[player]
        if criterion is TieBreaker.OPPONENTS_WIN_RATE:
            return self.owr_key[player]
        if criterion is TieBreaker.VP_DIFFERENCE:
            return self.records[player].vp_difference
        if criterion is TieBreaker.VP_SCORED:
            return self.records[player].vp_for
        raise AssertionError(f"not a value criterion: {criterion}")

    def head_to_head(self, group: Sequence[PlayerId]) -> list[list[PlayerId]] | None:
        """The group split by points earned in games among its members, best first.

        ``None`` when some two members never met (the mini-table would compare players who
        played different numbers of games among the group; the next tie-breaker decides).
        """
        members = set(group)
        met: set[frozenset[PlayerId]] = set()
        mini: dict[PlayerId, Fraction] = dict.fromkeys(group, Fraction(0))
        for player in group:
            for game in self.games_of[player]:
                other = game.opponent(player)
                if other in members:
                    met.add(frozenset((player, other)))
                    mini[player] += self.config.scoring.points(game, player)
        size = len(group)
        if len(met) != size * (size - 1) // 2:
            return None
        return _split_desc(group, mini.__getitem__)

    def refine(
        self, group: list[PlayerId], index: int
    ) -> tuple[list[list[PlayerId]], list[TieBreaker]]:
        """Ordered sub-groups of ``group`` from criterion ``index`` on, with the criterion that
        separates each consecutive pair of sub-groups."""
        if len(group) == 1 or index == len(self.criteria):
            return [group], []
        criterion = self.criteria[index]
        if criterion is TieBreaker.HEAD_TO_HEAD:
            parts = self.head_to_head(group)
            if parts is None or len(parts) == 1:
                return self.refine(group, index + 1)
            # A smaller group still level is examined again among ITS members only (their own
            # mini-table) before the next criterion: see docs/rulings/leagues.md.
            return self._concat(parts, index, criterion)
        parts = _split_desc(group, lambda p: self.value(criterion, p))
        return self._concat(parts, index + 1, criterion)

    def _concat(
        self, parts: list[list[PlayerId]], index: int, criterion: TieBreaker
    ) -> tuple[list[list[PlayerId]], list[TieBreaker]]:
        groups: list[list[PlayerId]] = []
        separators: list[TieBreaker] = []
        for i, part in enumerate(parts):
            if i:
                separators.append(criterion)
            sub_groups, sub_separators = self.refine(part, index)
            groups.extend(sub_groups)
            separators.extend(sub_separators)
        return groups, separators


def _scaled(values: Mapping[PlayerId, Fraction]) -> dict[PlayerId, int]:
    """Exact fractions as integers over their common denominator (same order and ties)."""
    denominator = math.lcm(1, *(v.denominator for v in values.values()))
    return {p: v.numerator * (denominator // v.denominator) for p, v in values.items()}


def _split_desc(
    group: Sequence[PlayerId], key: Callable[[PlayerId], Fraction | int]
) -> list[list[PlayerId]]:
    """``group`` cut into runs of equal ``key``, highest key first (each run keeps input order)."""
    keys = {player: key(player) for player in group}
    ordered = sorted(group, key=keys.__getitem__, reverse=True)
    parts: list[list[PlayerId]] = []
    last: Fraction | int | None = None
    for player in ordered:
        k = keys[player]
        if parts and k == last:
            parts[-1].append(player)
        else:
            parts.append([player])
            last = k
    return parts


def compute_standings(
    players: Iterable[PlayerId],
    results: Sequence[GameResult],
    byes: Sequence[Bye] = (),
    config: StandingsConfig | None = None,
    names: Mapping[PlayerId, str] | None = None,
) -> tuple[Standing, ...]:
    """The standings table, best first.

    ``players`` are the registered players (listed even with no game); anyone appearing in
    ``results`` or ``byes`` is listed too. ``results`` must be the confirmed games only.
    ``names`` is used by :attr:`FinalOrder.NAME` (case-insensitive, then id).
    """
    config = config or StandingsConfig()
    records = tally(results, byes, config.scoring, players)
    if not records:  # nobody registered yet: an empty table
        return ()
    ranker = _Ranker(records, results, config)

    def final_key(player: PlayerId) -> tuple[str, str, PlayerId]:
        if config.final_order is FinalOrder.NAME and names is not None:
            name = names.get(player, "")
            return (name.casefold(), name, player)
        return ("", "", player)

    groups: list[list[PlayerId]] = []
    separators: list[TieBreaker | None] = []
    points = _scaled({p: r.points for p, r in records.items()})
    for i, point_group in enumerate(_split_desc(sorted(records), points.__getitem__)):
        if i:
            separators.append(None)
        sub_groups, sub_separators = ranker.refine(point_group, 0)
        groups.extend(sub_groups)
        separators.extend(sub_separators)
    separators.append(None)  # after the last group

    table: list[Standing] = []
    for group, after in zip(groups, separators, strict=True):
        rank = len(table) + 1
        members = sorted(group, key=final_key)
        for j, player in enumerate(members):
            r = records[player]
            table.append(
                Standing(
                    rank=rank,
                    player=player,
                    tied=len(members) > 1,
                    points=r.points,
                    games=r.games,
                    wins=r.wins,
                    draws=r.draws,
                    losses=r.losses,
                    byes=r.byes,
                    vp_for=r.vp_for,
                    vp_against=r.vp_against,
                    strength_of_schedule=ranker.sos[player],
                    opponents_win_rate=ranker.owr[player],
                    decided_by=after if j == len(members) - 1 else None,
                )
            )
    return tuple(table)
