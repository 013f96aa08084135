"""League pairing formats: round robin, Swiss rounds, and the open ladder's game check.

Pure logic (stdlib only). Randomness is injected: :func:`swiss_round` takes a seeded
``random.Random`` and uses it only to order players who are level on points and strength of
schedule, so the same seed and the same results give the same round.

- :func:`round_robin`: the circle method. Every pair meets exactly once per leg, over n-1
  rounds (n even) or n rounds with one bye each (n odd); who is listed first alternates so
  each player is "player A" in half their games (give or take one).
- :func:`swiss_round`: rank by points, then strength of schedule, then at random; pair top
  down (the best unpaired player takes the best-ranked opponent that still lets the rest of the
  field be paired), which pairs within score groups and floats the odd player down. A
  maximum-matching oracle (Edmonds' blossom algorithm) makes the search exact and polynomial:
  no rematch is ever made while a rematch-free pairing exists, and when none exists the round
  has the fewest rematches possible and says so. With an odd count, the bye goes to the
  lowest-ranked player among those with the fewest byes (who has not had one, when anyone
  hasn't). Speed without changing a pairing: while few enough meetings remain among the
  players left (Dirac's degree condition, :class:`_Field`), every opponent is provably
  completable and no matching is needed; after that the matching is repaired around the two
  players taken out, and when a player's best choice fails, one search finds every completable
  opponent at once (:meth:`_Matcher.completable`). 200 players after 10 rounds pair in a few
  milliseconds whatever the seed (``bench/bench_leagues.py``).
- :func:`check_ladder_game`: whether a proposed open-ladder game is allowed, every problem
  reported at once.

Choices are written up in ``docs/rulings/leagues.md``.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction

from app.leagues.standings import (
    Bye,
    GameResult,
    LeagueError,
    PlayerId,
    Scoring,
    strength_of_schedule,
    tally,
)

__all__ = [
    "MAX_PLAYERS",
    "LadderCode",
    "LadderRules",
    "LadderViolation",
    "Pairing",
    "PairingError",
    "Round",
    "SwissRound",
    "check_ladder_game",
    "round_robin",
    "swiss_round",
]

MAX_PLAYERS = 1000
"""Bound on the players of one league (keeps every request's work bounded)."""

MAX_LEGS = 4
"""Bound on the legs of a round robin (double round robin = 2)."""


class PairingError(LeagueError):
    """A round cannot be paired from this input (too few players, duplicates...)."""


@dataclass(frozen=True, slots=True)
class Pairing:
    """One game of a round. ``table`` counts from 1 (top table first in Swiss);
    ``rematch`` is true when the two players have already met in this league."""

    table: int
    player_a: PlayerId
    player_b: PlayerId
    rematch: bool = False

    @property
    def players(self) -> tuple[PlayerId, PlayerId]:
        return (self.player_a, self.player_b)


@dataclass(frozen=True, slots=True)
class Round:
    """One round of a round robin: its number (from 1), its games and the player with a bye."""

    number: int
    pairings: tuple[Pairing, ...]
    bye: PlayerId | None = None


@dataclass(frozen=True, slots=True)
class SwissRound:
    """The next Swiss round.

    ``ranking`` is the order used to pair (best first: points, strength of schedule, then
    the seeded draw among equals). ``rematches`` counts the pairings of players who already
    met; it is non-zero only when no rematch-free pairing exists, and then it is the fewest
    possible (:attr:`note` says so in words).
    """

    pairings: tuple[Pairing, ...]
    bye: PlayerId | None
    ranking: tuple[PlayerId, ...]
    rematches: int = 0

    @property
    def note(self) -> str | None:
        if not self.rematches:
            return None
        games = "rematch" if self.rematches == 1 else "rematches"
        return (
            f"No pairing without a rematch exists: {self.rematches} {games}, the fewest possible."
        )


def _distinct(players: Iterable[PlayerId]) -> list[PlayerId]:
    seen: list[PlayerId] = []
    found: set[PlayerId] = set()
    for player in players:
        if isinstance(player, bool) or not isinstance(player, int):
            raise PairingError(f"player ids must be ints (got {player!r})")
        if player in found:
            raise PairingError(f"player {player} is listed twice")
        found.add(player)
        seen.append(player)
    if len(seen) > MAX_PLAYERS:
        raise PairingError(f"at most {MAX_PLAYERS} players can be paired (got {len(seen)})")
    return seen


# --------------------------------------------------------------------------- round robin


def round_robin(players: Sequence[PlayerId], *, legs: int = 1) -> tuple[Round, ...]:
    """Every round of a round robin among ``players`` (in the given order), by the circle method.

    With ``legs=2`` the second leg repeats the first with players A and B swapped.
    Deterministic: the same list gives the same schedule.
    """
    field_ = _distinct(players)
    if len(field_) < 2:
        raise PairingError("a round robin needs at least 2 players")
    if not 1 <= legs <= MAX_LEGS:
        raise PairingError(f"legs must be 1..{MAX_LEGS} (got {legs})")
    circle: list[PlayerId | None] = list(field_)
    if len(circle) % 2:
        circle.append(None)  # whoever meets the phantom has the bye
    n = len(circle)
    one_leg: list[tuple[list[tuple[PlayerId, PlayerId]], PlayerId | None]] = []
    for r in range(n - 1):
        games: list[tuple[PlayerId, PlayerId]] = []
        bye: PlayerId | None = None
        for i in range(n // 2):
            first, second = circle[i], circle[n - 1 - i]
            if i == 0 and r % 2:
                first, second = second, first  # the fixed player alternates sides
            if first is None:
                bye = second
            elif second is None:
                bye = first
            else:
                games.append((first, second))
        one_leg.append((games, bye))
        circle = [circle[0], circle[-1], *circle[1:-1]]  # rotate all but the fixed player
    rounds: list[Round] = []
    for leg in range(legs):
        for games, bye in one_leg:
            pairs = games if leg % 2 == 0 else [(b, a) for a, b in games]
            rounds.append(
                Round(
                    number=len(rounds) + 1,
                    pairings=tuple(
                        Pairing(table=t, player_a=a, player_b=b, rematch=leg > 0)
                        for t, (a, b) in enumerate(pairs, start=1)
                    ),
                    bye=bye,
                )
            )
    return tuple(rounds)


# --------------------------------------------------------------------------- matching oracle


class _Matcher:
    """A maximum matching of the "may play each other" graph on the still-unpaired players.

    Vertices are rank positions 0..n-1 (``vertices``, default all of them, are the ones in
    play); ``forbidden[v]`` are the players ``v`` already met. The allowed neighbours of each
    vertex are listed once, best-ranked first, and shared by every copy. Augmenting paths are
    found with Edmonds' blossom search (the classic single-root BFS with blossom contraction
    through a ``base`` array, relabelling only the vertices of the search tree).
    """

    __slots__ = ("adj", "alive", "mate", "n", "size")

    def __init__(
        self, n: int, forbidden: Sequence[Collection[int]], vertices: Sequence[int] | None = None
    ) -> None:
        in_play = list(range(n)) if vertices is None else sorted(vertices)
        self.n = n
        self.alive = [False] * n
        for v in in_play:
            self.alive[v] = True
        self.adj: list[list[int]] = [[] for _ in range(n)]
        for v in in_play:
            banned = forbidden[v]
            self.adj[v] = [u for u in in_play if u != v and u not in banned]
        self.mate = [-1] * n
        self.size = 0

    def copy(self) -> _Matcher:
        other = _Matcher.__new__(_Matcher)
        other.n = self.n
        other.adj = self.adj
        other.alive = list(self.alive)
        other.mate = list(self.mate)
        other.size = self.size
        return other

    def greedy(self) -> None:
        """Top-down greedy start: each exposed player takes the first exposed one allowed."""
        alive, mate, adj = self.alive, self.mate, self.adj
        for v in range(self.n):
            if not alive[v] or mate[v] != -1:
                continue
            for u in adj[v]:
                if u > v and alive[u] and mate[u] == -1:
                    mate[v], mate[u] = u, v
                    self.size += 1
                    break

    def maximise(self, limit: int | None = None) -> None:
        """Search once from every exposed vertex (Berge: a vertex with no augmenting path never
        gets one by later augmentations), stopping early once ``limit`` edges are matched."""
        alive, mate = self.alive, self.mate
        for v in range(self.n):
            if limit is not None and self.size >= limit:
                return
            if alive[v] and mate[v] == -1:
                self._search(v)

    def remove(self, *vertices: int) -> None:
        """Take ``vertices`` out of the graph and restore a maximum matching."""
        self._remove(vertices, None)

    def without(self, vertices: Iterable[int], target: int) -> _Matcher:
        """A copy without ``vertices``, its matching repaired until it has ``target`` edges or
        is maximum (whichever comes first: callers pass a ``target`` no matching can exceed)."""
        trial = self.copy()
        trial._remove(vertices, target)
        return trial

    def drop_pair(self, v: int, u: int) -> None:
        """Take out ``v`` and its mate ``u``: the rest of a maximum matching stays maximum."""
        assert self.mate[v] == u
        self.alive[v] = self.alive[u] = False
        self.mate[v] = self.mate[u] = -1
        self.size -= 1

    def _remove(self, vertices: Iterable[int], target: int | None) -> None:
        alive, mate = self.alive, self.mate
        widowed: list[int] = []
        for v in vertices:
            if not alive[v]:
                continue
            alive[v] = False
            partner = mate[v]
            if partner != -1:
                mate[v] = mate[partner] = -1
                self.size -= 1
                widowed.append(partner)
        limit = sum(alive) // 2 if target is None else target
        # The old matching was maximum, so every augmenting path now ends at a widowed vertex
        # (one joining two vertices exposed before would have augmented the old matching too).
        found = False
        for v in widowed:
            if self.size >= limit:
                return
            if alive[v] and mate[v] == -1 and self._search(v):
                found = True
        if found and self.size < limit:
            # After an augmentation, look again from every exposed vertex (exact, rarely run:
            # only when the matching must grow by two and the second path did not show up).
            self.maximise(limit)

    def _search(self, root: int) -> bool:
        parent = [-1] * self.n
        end = self._find_path(root, parent)
        if end == -1:
            return False
        self._augment(end, parent)
        return True

    def _augment(self, end: int, parent: list[int]) -> None:
        mate = self.mate
        v = end
        while v != -1:
            pv = parent[v]
            nxt = mate[pv]
            mate[v], mate[pv] = pv, v
            v = nxt
        self.size += 1

    def even_from(self, root: int) -> list[bool]:
        """Which vertices an even alternating path from ``root`` reaches (``root`` included),
        for a maximum matching whose only exposed vertex is ``root``.

        With no augmenting path to find, the search labels the whole tree: its outer
        vertices are exactly those ends, i.e. the vertices ``v`` for which some maximum
        matching leaves ``v`` exposed instead of ``root`` (Gallai-Edmonds).
        """
        outer = [False] * self.n
        end = self._find_path(root, [-1] * self.n, outer)
        assert end == -1, "even_from needs a maximum matching"
        return outer

    def completable(self, top: int) -> list[bool]:
        """For a perfect matching: which ``q`` leave a field that still pairs perfectly once
        ``top`` and ``q`` are out (all of them at once, by one search).

        ``G - top - q`` has a perfect matching exactly when some maximum matching of
        ``G - top`` (whose only exposed vertex is ``top``'s mate) leaves ``q`` exposed.
        """
        trial = self.copy()
        partner = trial.mate[top]
        assert partner != -1
        assert 2 * trial.size == sum(trial.alive)
        trial.alive[top] = False
        trial.mate[top] = trial.mate[partner] = -1
        trial.size -= 1
        return trial.even_from(partner)

    def _find_path(self, root: int, parent: list[int], used: list[bool] | None = None) -> int:
        """An exposed vertex reachable from exposed ``root`` by an augmenting path, or -1
        (``parent`` then holds the path for :meth:`_augment`; ``used``, if given, the outer
        vertices of the search)."""
        mate, adj, alive = self.mate, self.adj, self.alive
        if used is None:
            used = [False] * self.n  # outer (even) vertices, blossoms included
        base = list(range(self.n))
        used[root] = True
        tree = [root]  # every vertex the search has labelled: only they can be in a blossom
        queue = [root]

        def lca(a: int, b: int) -> int:
            seen: set[int] = set()
            while True:
                a = base[a]
                seen.add(a)
                if mate[a] == -1:
                    break
                a = parent[mate[a]]
            while True:
                b = base[b]
                if b in seen:
                    return b
                b = parent[mate[b]]

        def mark(v: int, b: int, child: int, blossom: set[int]) -> None:
            while base[v] != b:
                blossom.add(base[v])
                blossom.add(base[mate[v]])
                parent[v] = child
                child = mate[v]
                v = parent[mate[v]]

        head = 0
        while head < len(queue):
            v = queue[head]
            head += 1
            for to in adj[v]:
                if not alive[to] or base[v] == base[to] or mate[v] == to:
                    continue
                if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                    current = lca(v, to)
                    blossom: set[int] = set()
                    mark(v, current, to, blossom)
                    mark(to, current, v, blossom)
                    for i in tree:
                        if base[i] in blossom:
                            base[i] = current
                            if not used[i]:
                                used[i] = True
                                queue.append(i)
                elif parent[to] == -1:
                    parent[to] = v
                    if mate[to] == -1:
                        return to
                    tree.append(to)
                    tree.append(mate[to])
                    used[mate[to]] = True
                    queue.append(mate[to])
        return -1


class _Field:
    """The players still to pair and, for each, how many of the others they have already met.

    A cheap sound certificate stands in for the matching while it holds (Dirac: a graph on an
    even number ``m`` of vertices whose every vertex has at least ``m / 2`` neighbours has a
    Hamiltonian cycle, hence a perfect matching). In the "have not met" graph a player's
    degree is at least ``m - 1 - most``, where ``most`` is the largest count of meetings among
    the players left, so ``most <= m / 2 - 1`` proves the field pairs without a rematch.
    """

    __slots__ = ("alive", "forbidden", "met", "most", "remaining", "tally")

    def __init__(self, n: int, forbidden: list[set[int]]) -> None:
        self.forbidden = forbidden
        self.alive = [True] * n
        self.remaining = n
        self.met = [len(f) for f in forbidden]
        self.most = max(self.met, default=0)
        self.tally = [0] * (self.most + 1)  # how many players left have met that many others
        for count in self.met:
            self.tally[count] += 1

    def remove(self, v: int) -> None:
        alive, met, tally = self.alive, self.met, self.tally
        alive[v] = False
        self.remaining -= 1
        tally[met[v]] -= 1
        for u in self.forbidden[v]:
            if alive[u]:
                tally[met[u]] -= 1
                met[u] -= 1
                tally[met[u]] += 1
        while self.most and not tally[self.most]:
            self.most -= 1

    def pairs_cleanly_without(self, removed: int) -> bool:
        """Whether the field, once any ``removed`` more players are out, surely pairs without
        a rematch (``False`` only means "not proved": the matching then decides)."""
        m = self.remaining - removed
        return m == 0 or (m % 2 == 0 and self.most <= m // 2 - 1)


# --------------------------------------------------------------------------- Swiss


def _scaled(values: dict[PlayerId, Fraction]) -> dict[PlayerId, int]:
    """Exact fractions as integers over their common denominator (same order, cheap to sort)."""
    denominator = math.lcm(1, *(v.denominator for v in values.values()))
    return {p: v.numerator * (denominator // v.denominator) for p, v in values.items()}


def swiss_round(
    players: Sequence[PlayerId],
    results: Sequence[GameResult],
    byes: Sequence[Bye],
    rng: random.Random,
    *,
    scoring: Scoring | None = None,
) -> SwissRound:
    """Pair the next Swiss round among ``players`` (the active players of the league).

    ``results`` and ``byes`` are the league's confirmed games and past byes (they may name
    players who have since dropped: their points still count for their opponents' strength of
    schedule). ``rng`` orders players level on points and strength of schedule.
    """
    active = _distinct(players)
    if len(active) < 2:
        raise PairingError("a Swiss round needs at least 2 players")
    records = tally(results, byes, scoring, active)
    sos = strength_of_schedule(records)
    points_key = _scaled({p: records[p].points for p in active})
    sos_key = _scaled({p: sos[p] for p in active})
    ranking = sorted(active)
    rng.shuffle(ranking)
    ranking.sort(key=lambda p: (-points_key[p], -sos_key[p]))  # stable: the draw breaks ties
    n = len(ranking)
    rank = {p: i for i, p in enumerate(ranking)}

    meetings: Counter[tuple[int, int]] = Counter()
    for game in results:
        a, b = rank.get(game.player_a), rank.get(game.player_b)
        if a is not None and b is not None:
            meetings[(a, b) if a < b else (b, a)] += 1
    forbidden: list[set[int]] = [set() for _ in range(n)]
    for a, b in meetings:
        forbidden[a].add(b)
        forbidden[b].add(a)
    bye_count = [records[p].byes for p in ranking]

    # While the certificate of _Field holds, every opponent is completable and the best-ranked
    # unplayed one is taken directly; the maximum-matching oracle takes over (on the players
    # left) once it does not, which gives exactly the same round, only faster.
    field_ = _Field(n, forbidden)
    matcher: _Matcher | None = None

    bye: PlayerId | None = None
    if n % 2:
        fewest = min(bye_count)
        candidates = [i for i in range(n - 1, -1, -1) if bye_count[i] == fewest]
        if field_.pairs_cleanly_without(1):
            bye_index = candidates[0]  # any bye leaves a field that pairs without a rematch
        else:
            matcher = _Matcher(n, forbidden)
            matcher.greedy()
            matcher.maximise()
            matcher = _choose_bye(matcher, candidates)
            bye_index = next(i for i in range(n) if not matcher.alive[i])
        field_.remove(bye_index)
        bye = ranking[bye_index]

    unpaired = [i for i in range(n) if field_.alive[i]]
    if matcher is None and not field_.pairs_cleanly_without(0):
        matcher = _matcher_on(n, forbidden, unpaired)
    budget = 0 if matcher is None else len(unpaired) // 2 - matcher.size  # fewest rematches
    total_rematches = budget
    pairs: list[tuple[int, int, bool]] = []
    while unpaired:
        top, rest = unpaired[0], unpaired[1:]
        if matcher is None:
            if field_.pairs_cleanly_without(2):
                chosen = next(q for q in rest if q not in forbidden[top])
                field_.remove(top)
                field_.remove(chosen)
                pairs.append((top, chosen, False))
                unpaired = [q for q in rest if q != chosen]
                continue
            # The field left pairs without a rematch (proved when its last pair was chosen).
            matcher = _matcher_on(n, forbidden, unpaired)
            assert 2 * matcher.size == len(unpaired)
        fresh = [q for q in rest if q not in forbidden[top]]
        again: list[int] = []
        if budget:
            again = sorted(
                (q for q in rest if q in forbidden[top]),
                key=lambda q: (meetings[(top, q)], q),
            )
        chosen = -1
        completable: list[bool] | None = None
        for q in fresh + again:
            if completable is not None and not completable[q]:
                continue
            rematch = q in forbidden[top]
            if matcher.mate[top] == q:  # an edge of the maximum matching: always completable
                matcher.drop_pair(top, q)
                chosen = q
                break
            # No matching of the rest can be larger than ``needed`` (the fewest rematches).
            needed = (len(unpaired) - 2) // 2 - (budget - rematch)
            trial = matcher.without((top, q), needed)
            if trial.size >= needed:
                matcher = trial
                budget -= rematch
                chosen = q
                break
            if not budget and completable is None:
                # The best choice failed: find every completable opponent by one search
                # rather than trying them one at a time (each failure costs a full search).
                completable = matcher.completable(top)
        if chosen == -1:  # pragma: no cover - the oracle guarantees a completable choice
            raise AssertionError("Swiss pairing found no completable opponent")
        pairs.append((top, chosen, chosen in forbidden[top]))
        unpaired = [q for q in rest if q != chosen]

    return SwissRound(
        pairings=tuple(
            Pairing(table=t, player_a=ranking[a], player_b=ranking[b], rematch=again_)
            for t, (a, b, again_) in enumerate(pairs, start=1)
        ),
        bye=bye,
        ranking=tuple(ranking),
        rematches=total_rematches,
    )


def _matcher_on(n: int, forbidden: list[set[int]], vertices: list[int]) -> _Matcher:
    """A maximum matching of the "have not met" graph on ``vertices``."""
    matcher = _Matcher(n, forbidden, vertices)
    matcher.greedy()
    matcher.maximise()
    return matcher


def _choose_bye(matcher: _Matcher, candidates: list[int]) -> _Matcher:
    """Give the bye to the first candidate whose absence keeps the matching as large as it can
    be (so the bye never forces an extra rematch), else to the first candidate."""
    best = matcher.size
    exposed = [v for v in range(matcher.n) if matcher.alive[v] and matcher.mate[v] == -1]
    if len(exposed) == 1:
        # One search finds every vertex some maximum matching leaves exposed: exactly the
        # candidates whose bye keeps the matching as large (the others lose an edge).
        spare = matcher.even_from(exposed[0])
        chosen = next((c for c in candidates if spare[c]), candidates[0])
        return matcher.without((chosen,), best)
    first: _Matcher | None = None
    for c in candidates:
        trial = matcher.without((c,), best)
        if trial.size == best:
            return trial
        if first is None:
            first = trial
    assert first is not None
    return first


# --------------------------------------------------------------------------- open ladder


class LadderCode(StrEnum):
    """Why an open-ladder game is refused (stable codes for the API)."""

    SAME_PLAYER = "same_player"
    NOT_REGISTERED = "not_registered"
    MEETING_LIMIT = "meeting_limit"
    GAME_LIMIT = "game_limit"
    BACK_TO_BACK = "back_to_back"


@dataclass(frozen=True, slots=True)
class LadderRules:
    """Limits of an open ladder (``None``/``False``: no limit).

    ``max_meetings``: how many games the same two players may play each other.
    ``max_games``: how many games one player may play in the league.
    ``no_back_to_back``: two players may not play each other again when their last game
    (for either of them) was against each other.
    """

    max_meetings: int | None = None
    max_games: int | None = None
    no_back_to_back: bool = False

    def __post_init__(self) -> None:
        for name in ("max_meetings", "max_games"):
            limit = getattr(self, name)
            if limit is not None and limit < 1:
                raise LeagueError(f"{name} must be at least 1 (got {limit})")


@dataclass(frozen=True, slots=True)
class LadderViolation:
    """One reason a proposed game is refused: a stable code, a message, the player concerned."""

    code: LadderCode
    message: str
    player: PlayerId | None = None


def check_ladder_game(
    player_a: PlayerId,
    player_b: PlayerId,
    *,
    players: Collection[PlayerId],
    games: Sequence[GameResult],
    rules: LadderRules | None = None,
) -> tuple[LadderViolation, ...]:
    """Every reason the open-ladder game ``player_a`` v ``player_b`` is not allowed (empty: ok).

    ``players`` are the registered players; ``games`` the games that count against the limits,
    in chronological order (the service decides whether pending games count: passing them
    stops two players from booking past a limit before confirming).
    """
    rules = rules or LadderRules()
    problems: list[LadderViolation] = []
    if player_a == player_b:
        problems.append(
            LadderViolation(LadderCode.SAME_PLAYER, "a player cannot play themselves", player_a)
        )
    for player in dict.fromkeys((player_a, player_b)):
        if player not in players:
            problems.append(
                LadderViolation(
                    LadderCode.NOT_REGISTERED,
                    f"player {player} is not registered in this league",
                    player,
                )
            )
    if player_a == player_b:
        return tuple(problems)
    pair = {player_a, player_b}
    if rules.max_meetings is not None:
        met = sum(1 for g in games if set(g.players) == pair)
        if met >= rules.max_meetings:
            problems.append(
                LadderViolation(
                    LadderCode.MEETING_LIMIT,
                    f"these players have already played each other {met} times "
                    f"(limit {rules.max_meetings})",
                )
            )
    if rules.max_games is not None:
        for player in (player_a, player_b):
            played = sum(1 for g in games if g.involves(player))
            if played >= rules.max_games:
                problems.append(
                    LadderViolation(
                        LadderCode.GAME_LIMIT,
                        f"player {player} has already played {played} games "
                        f"(limit {rules.max_games})",
                        player,
                    )
                )
    if rules.no_back_to_back:
        last = _last_game_of(games)
        for player in (player_a, player_b):
            game = last.get(player)
            if game is not None and set(game.players) == pair:
                problems.append(
                    LadderViolation(
                        LadderCode.BACK_TO_BACK,
                        f"player {player}'s last game was already against this opponent",
                        player,
                    )
                )
                break
    return tuple(problems)


def _last_game_of(games: Sequence[GameResult]) -> dict[PlayerId, GameResult]:
    last: dict[PlayerId, GameResult] = {}
    for game in games:
        for player in game.players:
            last[player] = game
    return last
