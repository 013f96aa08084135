"""Pairing formats: round robin (complete, balanced), Swiss (no avoidable rematch, fair byes,
exactly the specified pairing, deterministic by seed) and the open ladder's game check.

The Swiss oracle is a brute force over every perfect matching of small fields, written from
the specification in docs/rulings/leagues.md, independent of the matching algorithm. On larger
fields a plain reference search (every candidate checked by a maximum matching computed from
scratch) shows that the fast paths (Dirac certificate, incremental repair, one-search
completable sets) change no round.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Iterator, Sequence

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from app.leagues.pairing import (
    MAX_PLAYERS,
    LadderCode,
    LadderRules,
    Pairing,
    PairingError,
    SwissRound,
    _Field,
    _Matcher,
    check_ladder_game,
    round_robin,
    swiss_round,
)
from app.leagues.standings import (
    Bye,
    GameResult,
    Scoring,
    strength_of_schedule,
    tally,
)

# --------------------------------------------------------------------------- round robin


def test_round_robin_four_players_by_hand() -> None:
    rounds = round_robin([1, 2, 3, 4])
    as_pairs = [[p.players for p in r.pairings] for r in rounds]
    # circle method: 1 fixed, the others rotate clockwise; 1 alternates sides.
    assert as_pairs == [
        [(1, 4), (2, 3)],
        [(3, 1), (4, 2)],
        [(1, 2), (3, 4)],
    ]
    assert [r.number for r in rounds] == [1, 2, 3]
    assert all(r.bye is None for r in rounds)
    assert [p.table for p in rounds[0].pairings] == [1, 2]


def test_round_robin_three_players_each_gets_one_bye() -> None:
    rounds = round_robin([7, 8, 9])
    assert len(rounds) == 3
    assert sorted(r.bye for r in rounds if r.bye is not None) == [7, 8, 9]
    assert Counter(frozenset(p.players) for r in rounds for p in r.pairings) == Counter(
        frozenset(c) for c in itertools.combinations([7, 8, 9], 2)
    )


@settings(max_examples=40)
@given(n=st.integers(2, 40), legs=st.integers(1, 2), data=st.data())
def test_round_robin_complete_and_balanced(n: int, legs: int, data: st.DataObject) -> None:
    players = data.draw(st.permutations(range(100, 100 + n)))
    rounds = round_robin(players, legs=legs)
    per_leg = n - 1 if n % 2 == 0 else n
    assert len(rounds) == per_leg * legs
    meetings: Counter[frozenset[int]] = Counter()
    for r in rounds:
        seen = [x for p in r.pairings for x in p.players] + ([r.bye] if r.bye is not None else [])
        assert sorted(seen) == sorted(players)  # everyone exactly once per round
        assert (r.bye is not None) == (n % 2 == 1)
        meetings.update(frozenset(p.players) for p in r.pairings)
    # every pair meets exactly once per leg
    assert set(meetings) == {frozenset(c) for c in itertools.combinations(players, 2)}
    assert set(meetings.values()) == {legs}
    byes = Counter(r.bye for r in rounds if r.bye is not None)
    if n % 2:
        assert byes == dict.fromkeys(players, legs)
    # each player is player A in half their games, give or take one, per leg
    first_leg = rounds[:per_leg]
    as_a = Counter(p.player_a for r in first_leg for p in r.pairings)
    as_b = Counter(p.player_b for r in first_leg for p in r.pairings)
    assert all(abs(as_a[p] - as_b[p]) <= 1 for p in players)
    if legs == 2:
        second = [p.players for r in rounds[per_leg:] for p in r.pairings]
        assert second == [(b, a) for r in first_leg for a, b in (p.players for p in r.pairings)]
    assert round_robin(players, legs=legs) == rounds  # deterministic


def test_round_robin_refuses_bad_input() -> None:
    with pytest.raises(PairingError, match="at least 2"):
        round_robin([1])
    with pytest.raises(PairingError, match="listed twice"):
        round_robin([1, 2, 1])
    with pytest.raises(PairingError, match="legs"):
        round_robin([1, 2], legs=0)
    with pytest.raises(PairingError, match="at most"):
        round_robin(list(range(MAX_PLAYERS + 1)))


# --------------------------------------------------------------------------- Swiss helpers


def _play(
    sr: SwissRound, rng: random.Random, results: list[GameResult], byes: list[Bye], number: int
) -> None:
    """Record random outcomes (win/draw/loss, random victory points) for a paired round."""
    if sr.bye is not None:
        byes.append(Bye(sr.bye, number))
    for p in sr.pairings:
        winner = rng.choice([p.player_a, p.player_b, p.player_a, p.player_b, None])
        results.append(GameResult(p.player_a, p.player_b, winner, rng.randint(0, 90), 45))


def _check_round(
    sr: SwissRound, players: Sequence[int], results: Sequence[GameResult], byes: Sequence[Bye]
) -> None:
    """Invariants every Swiss round must satisfy."""
    seen = [x for p in sr.pairings for x in p.players] + ([sr.bye] if sr.bye is not None else [])
    assert sorted(seen) == sorted(players)
    assert (sr.bye is not None) == (len(players) % 2 == 1)
    met = {frozenset(g.players) for g in results}
    for p in sr.pairings:
        assert p.rematch == (frozenset(p.players) in met)
    assert sr.rematches == sum(p.rematch for p in sr.pairings)
    assert [p.table for p in sr.pairings] == list(range(1, len(sr.pairings) + 1))
    if sr.bye is not None:
        counts = Counter(b.player for b in byes)
        assert counts[sr.bye] == min(counts[p] for p in players)  # fewest byes get it


def _matchings(items: Sequence[int]) -> Iterator[list[tuple[int, int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for i, other in enumerate(rest):
        for tail in _matchings([*rest[:i], *rest[i + 1 :]]):
            yield [(first, other), *tail]


def _brute_force(
    ranking: Sequence[int], results: Sequence[GameResult], byes: Sequence[Bye]
) -> tuple[int | None, list[tuple[int, int]]]:
    """The specified round, by enumeration: bye to the lowest-ranked of the fewest-byes players
    whose absence allows the fewest rematches; then, among the pairings with the fewest
    rematches, the one whose top-down sequence of opponents is lexicographically smallest,
    each opponent keyed (rematch?, times met, rank)."""
    met = Counter(frozenset(g.players) for g in results)
    rank = {p: i for i, p in enumerate(ranking)}

    def rematches(m: list[tuple[int, int]]) -> int:
        return sum(1 for a, b in m if met[frozenset((a, b))])

    def sequence(m: list[tuple[int, int]]) -> list[tuple[int, int, int]]:
        partner = dict(m) | {b: a for a, b in m}
        order = sorted(partner, key=rank.__getitem__)
        done: set[int] = set()
        seq = []
        for p in order:
            if p in done:
                continue
            q = partner[p]
            done |= {p, q}
            times = met[frozenset((p, q))]
            seq.append((1 if times else 0, times, rank[q]))
        return seq

    field = list(ranking)
    bye = None
    if len(field) % 2:
        bye_counts = Counter(b.player for b in byes)
        fewest = min(bye_counts[p] for p in field)
        candidates = [p for p in reversed(field) if bye_counts[p] == fewest]
        best = {
            c: min(rematches(m) for m in _matchings([p for p in field if p != c]))
            for c in candidates
        }
        target = min(best.values())
        bye = next(c for c in candidates if best[c] == target)
        field = [p for p in field if p != bye]
    all_m = list(_matchings(field))
    least = min(rematches(m) for m in all_m)
    chosen = min((m for m in all_m if rematches(m) == least), key=sequence)
    ordered = sorted(
        ((a, b) if rank[a] < rank[b] else (b, a) for a, b in chosen), key=lambda e: rank[e[0]]
    )
    return bye, ordered


# --------------------------------------------------------------------------- Swiss properties


@settings(max_examples=60)
@given(
    n=st.integers(2, 10),
    extra_rounds=st.integers(0, 3),
    seed=st.integers(0, 2**32 - 1),
)
def test_swiss_matches_the_brute_force_specification(n: int, extra_rounds: int, seed: int) -> None:
    """Over n-1+extra rounds (so rematches eventually become unavoidable), every round is
    exactly the brute-force round: no avoidable rematch, fewest rematches, fair byes."""
    players = list(range(1, n + 1))
    outcomes = random.Random(seed)
    results: list[GameResult] = []
    byes: list[Bye] = []
    for number in range(1, n + extra_rounds):
        sr = swiss_round(players, results, byes, random.Random(seed + number))
        _check_round(sr, players, results, byes)
        bye, pairs = _brute_force(sr.ranking, results, byes)
        assert sr.bye == bye
        assert [p.players for p in sr.pairings] == pairs
        assert sr.rematches == sum(
            1 for a, b in pairs if any({a, b} == set(g.players) for g in results)
        )
        assert (sr.note is None) == (sr.rematches == 0)
        _play(sr, outcomes, results, byes, number)
    counts = Counter(b.player for b in byes)
    assert max(counts[p] for p in players) - min(counts[p] for p in players) <= 1


@settings(max_examples=15)
@given(n=st.integers(10, 30), seed=st.integers(0, 2**32 - 1))
def test_swiss_never_rematches_over_many_rounds(n: int, seed: int) -> None:
    """While the field allows it (rounds < half the field, so every remaining player has at
    least half the field still unplayed, Dirac), no round has a rematch; byes stay fair."""
    players = list(range(1, n + 1))
    outcomes = random.Random(seed)
    results: list[GameResult] = []
    byes: list[Bye] = []
    paired = n - n % 2
    for number in range(1, paired // 2 + 1):  # previous rounds <= paired/2 - 1
        sr = swiss_round(players, results, byes, random.Random(seed ^ number))
        _check_round(sr, players, results, byes)
        assert sr.rematches == 0
        _play(sr, outcomes, results, byes, number)
    met = Counter(frozenset(g.players) for g in results)
    assert set(met.values()) == {1}
    counts = Counter(b.player for b in byes)
    assert max(counts[p] for p in players) <= 1


@settings(max_examples=20)
@given(n=st.integers(2, 24), rounds=st.integers(0, 5), seed=st.integers(0, 2**32 - 1))
def test_swiss_ranking_is_points_then_strength_of_schedule(n: int, rounds: int, seed: int) -> None:
    players = list(range(1, n + 1))
    outcomes = random.Random(seed)
    results: list[GameResult] = []
    byes: list[Bye] = []
    scoring = Scoring(win=2, draw=1, loss=0, bye=1)
    for number in range(1, rounds + 1):
        sr = swiss_round(players, results, byes, random.Random(number), scoring=scoring)
        _play(sr, outcomes, results, byes, number)
    sr = swiss_round(players, results, byes, random.Random(seed), scoring=scoring)
    records = tally(results, byes, scoring, players)
    sos = strength_of_schedule(records)
    keys = [(records[p].points, sos[p]) for p in sr.ranking]
    assert keys == sorted(keys, reverse=True)
    assert sorted(sr.ranking) == players


def test_swiss_same_seed_same_round_and_input_order_does_not_matter() -> None:
    players = list(range(1, 21))
    outcomes = random.Random(5)
    results: list[GameResult] = []
    byes: list[Bye] = []
    for number in range(1, 4):
        _play(
            swiss_round(players, results, byes, random.Random(number)),
            outcomes,
            results,
            byes,
            number,
        )
    a = swiss_round(players, results, byes, random.Random(42))
    b = swiss_round(list(reversed(players)), list(reversed(results)), byes, random.Random(42))
    assert a == b


def test_swiss_random_only_among_equals() -> None:
    """Round 1: everyone is equal, the seed decides; different seeds give different rounds."""
    players = list(range(1, 13))
    firsts = {swiss_round(players, [], [], random.Random(s)).ranking for s in range(10)}
    assert len(firsts) > 1
    # With a strict order (distinct points), the seed changes nothing.
    results = [GameResult(1, 2, 1), GameResult(3, 4, None), GameResult(5, 6, 6)]
    rankings = {
        swiss_round([1, 2, 3, 4, 5, 6], results, [], random.Random(s)).ranking[:2]
        for s in range(10)
    }
    # 1 and 6 won (3 points, SoS 0 each): they are the top two in a seed-chosen order.
    assert {frozenset(r) for r in rankings} == {frozenset({1, 6})}


# --------------------------------------------------------------------------- Swiss by hand


def _ranked_field(order: Sequence[int], extra: Sequence[GameResult] = ()) -> list[GameResult]:
    """Results giving players strictly decreasing points in ``order`` (so the ranking is
    exactly ``order``): player i of k beats k-1-i dummies numbered from 1000."""
    results: list[GameResult] = list(extra)
    dummy = 1000
    k = len(order)
    for i, p in enumerate(order):
        for _ in range(k - 1 - i):
            results.append(GameResult(p, dummy, p))
            dummy += 1
    return results


def test_swiss_score_group_pairs_top_down_and_floats_around_a_rematch() -> None:
    # 1 and 2 already met: 1 takes 3 (the next best), 2 takes 4.
    results = _ranked_field([1, 2, 3, 4], [GameResult(1, 2, None)])
    sr = swiss_round([1, 2, 3, 4], results, [], random.Random(0))
    assert sr.ranking == (1, 2, 3, 4)
    assert [p.players for p in sr.pairings] == [(1, 3), (2, 4)]
    assert sr.rematches == 0
    assert sr.note is None


def test_swiss_backtracks_when_greedy_would_force_a_rematch() -> None:
    # Greedy: 1-2, 3-4, then 5-6 already met. The search keeps 1-2 and re-pairs the rest:
    # 3 takes 5 (4 would strand 5 and 6), then 4-6.
    results = _ranked_field([1, 2, 3, 4, 5, 6], [GameResult(5, 6, 5)])
    sr = swiss_round([1, 2, 3, 4, 5, 6], results, [], random.Random(0))
    _, pairs = _brute_force(sr.ranking, results, [])
    assert [p.players for p in sr.pairings] == pairs
    assert sr.rematches == 0
    met = {frozenset(g.players) for g in results}
    assert not any(frozenset(p.players) in met for p in sr.pairings)


def test_swiss_backtracking_hand_case_exact() -> None:
    results = _ranked_field([1, 2, 3, 4, 5, 6])
    results += [GameResult(5, 6, None), GameResult(5, 6, None)]  # draws keep 5 above 6
    sr = swiss_round([1, 2, 3, 4, 5, 6], results, [], random.Random(0))
    assert sr.ranking == (1, 2, 3, 4, 5, 6)
    assert [p.players for p in sr.pairings] == [(1, 2), (3, 5), (4, 6)]


def test_swiss_unavoidable_rematch_is_minimised_and_reported() -> None:
    # 1 has met 2, 3 and 4: one rematch is unavoidable; 1 replays the opponent met least
    # often (4, once; 2 and 3 twice), and 2-3 have not met.
    met = [
        GameResult(1, 2, 1),
        GameResult(1, 2, 1),
        GameResult(1, 3, 1),
        GameResult(1, 3, 1),
        GameResult(1, 4, 1),
    ]
    sr = swiss_round([1, 2, 3, 4], met, [], random.Random(0))
    assert sr.rematches == 1
    assert sr.note == "No pairing without a rematch exists: 1 rematch, the fewest possible."
    assert {frozenset(p.players): p.rematch for p in sr.pairings} == {
        frozenset({1, 4}): True,
        frozenset({2, 3}): False,
    }
    assert sr.pairings[0].players == (1, 4)


def test_swiss_everyone_met_everyone() -> None:
    players = [1, 2, 3, 4]
    results = [GameResult(a, b, a) for a, b in itertools.combinations(players, 2)]
    sr = swiss_round(players, results, [], random.Random(0))
    assert sr.rematches == 2
    assert sr.note is not None
    assert "2 rematches" in sr.note
    assert all(p.rematch for p in sr.pairings)


def test_swiss_bye_goes_to_lowest_ranked_without_one() -> None:
    results = _ranked_field([1, 2, 3, 4, 5])
    sr = swiss_round([1, 2, 3, 4, 5], results, [], random.Random(0))
    assert sr.bye == 5
    # 5 already had a bye: the lowest-ranked of the others gets it.
    sr = swiss_round([1, 2, 3, 4, 5], results, [Bye(5, 1)], random.Random(0))
    assert sr.bye == [p for p in sr.ranking if p != 5][-1]
    # everyone had one: back to the lowest-ranked.
    everyone = [Bye(p, 1) for p in (1, 2, 3, 4, 5)]
    sr = swiss_round([1, 2, 3, 4, 5], results, everyone, random.Random(0))
    assert sr.bye == sr.ranking[-1]


def test_swiss_bye_moves_up_rather_than_force_a_rematch() -> None:
    # 1 has met 2, 3 and 4. If 5 (lowest) sits out, 1 must replay someone; with 4 out,
    # 1-5 and 2-3 are new games. So the bye goes to 4, the lowest-ranked that avoids a rematch.
    extra = [GameResult(1, 2, None), GameResult(1, 3, None), GameResult(1, 4, None)]
    results = _ranked_field([1, 2, 3, 4, 5], extra)
    sr = swiss_round([1, 2, 3, 4, 5], results, [], random.Random(0))
    assert sr.ranking == (1, 2, 3, 4, 5)
    assert sr.bye == 4
    assert sr.rematches == 0
    assert [p.players for p in sr.pairings] == [(1, 5), (2, 3)]
    # Only 1 and 5 have had no bye: 5 sitting out would force 1 into a rematch, so even the
    # top player takes the bye (no rematch while a rematch-free pairing exists).
    had = [Bye(2, 1), Bye(3, 2), Bye(4, 3)]
    sr = swiss_round([1, 2, 3, 4, 5], results, had, random.Random(0))
    assert sr.ranking == (1, 2, 3, 4, 5)
    assert sr.bye == 1
    assert sr.rematches == 0
    # Fairness first: when only 5 has had no bye, 5 gets it and the one rematch is made.
    sr = swiss_round([1, 2, 3, 4, 5], results, [*had, Bye(1, 4)], random.Random(0))
    assert sr.bye == 5
    assert sr.rematches == 1
    assert sr.pairings[0].rematch


def test_swiss_dropped_players_count_for_strength_but_are_not_paired() -> None:
    results = [GameResult(1, 9, 1), GameResult(2, 3, 2), GameResult(9, 4, 9)]
    sr = swiss_round([1, 2, 3, 4], results, [], random.Random(0))
    assert 9 not in sr.ranking
    # 1 and 2 have 3 points; 1's opponent 9 has 3 points, 2's opponent 3 has none.
    assert sr.ranking[:2] == (1, 2)


def test_swiss_refuses_bad_input() -> None:
    with pytest.raises(PairingError, match="at least 2"):
        swiss_round([1], [], [], random.Random(0))
    with pytest.raises(PairingError, match="listed twice"):
        swiss_round([1, 1], [], [], random.Random(0))
    with pytest.raises(PairingError, match="ints"):
        swiss_round(["a", "b"], [], [], random.Random(0))  # type: ignore[list-item]


def test_swiss_large_field_is_rematch_free_after_ten_rounds() -> None:
    players = list(range(1, 201))
    outcomes = random.Random(11)
    results: list[GameResult] = []
    byes: list[Bye] = []
    for number in range(1, 12):
        sr = swiss_round(players, results, byes, random.Random(number))
        assert sr.rematches == 0
        _play(sr, outcomes, results, byes, number)
    assert set(Counter(frozenset(g.players) for g in results).values()) == {1}


# --------------------------------------------------------------------------- open ladder


def test_ladder_allows_any_game_without_limits() -> None:
    games = [GameResult(1, 2, 1)] * 5
    assert check_ladder_game(1, 2, players={1, 2, 3}, games=games) == ()


def test_ladder_reports_every_problem() -> None:
    games = [GameResult(1, 2, 1), GameResult(2, 1, None), GameResult(1, 3, 3)]
    rules = LadderRules(max_meetings=2, max_games=3, no_back_to_back=True)
    problems = check_ladder_game(1, 2, players={1, 2, 3}, games=games, rules=rules)
    # met twice already; 1 has played 3 games; 2's last game was against 1 (1's was v 3).
    assert [v.code for v in problems] == [
        LadderCode.MEETING_LIMIT,
        LadderCode.GAME_LIMIT,
        LadderCode.BACK_TO_BACK,
    ]
    assert [v.player for v in problems] == [None, 1, 2]
    # both players' last games were against each other: reported once.
    problems = check_ladder_game(
        2, 1, players={1, 2, 3}, games=games[:2], rules=LadderRules(no_back_to_back=True)
    )
    assert [v.code for v in problems] == [LadderCode.BACK_TO_BACK]
    # once 2 has played someone else, they may meet again.
    later = [*games, GameResult(2, 3, 2)]
    assert (
        check_ladder_game(
            1, 2, players={1, 2, 3}, games=later, rules=LadderRules(no_back_to_back=True)
        )
        == ()
    )


def test_ladder_refuses_self_and_strangers() -> None:
    problems = check_ladder_game(4, 4, players={1, 2}, games=[])
    assert [v.code for v in problems] == [LadderCode.SAME_PLAYER, LadderCode.NOT_REGISTERED]
    problems = check_ladder_game(1, 5, players={1, 2}, games=[])
    assert [(v.code, v.player) for v in problems] == [(LadderCode.NOT_REGISTERED, 5)]


def test_ladder_limits_must_be_positive() -> None:
    with pytest.raises(ValueError, match="max_meetings"):
        LadderRules(max_meetings=0)


# --------------------------------------------------------------------------- matching oracle


def _max_matching_size(n: int, allowed: set[frozenset[int]], alive: set[int]) -> int:
    """Brute force: the largest matching of the allowed edges among ``alive`` vertices."""
    vertices = sorted(alive)
    if not vertices:
        return 0
    first, rest = vertices[0], set(vertices[1:])
    best = _max_matching_size(n, allowed, rest)  # leave ``first`` exposed
    for other in rest:
        if frozenset((first, other)) in allowed:
            best = max(best, 1 + _max_matching_size(n, allowed, rest - {other}))
    return best


@settings(max_examples=80)
@given(
    n=st.integers(1, 11),
    density=st.floats(0.1, 0.9),
    seed=st.integers(0, 2**32 - 1),
    greedy_start=st.booleans(),
)
def test_matcher_finds_a_maximum_matching(
    n: int, density: float, seed: int, greedy_start: bool
) -> None:
    """Edmonds' search against brute force on random graphs (odd cycles force blossoms),
    from an empty or a greedy start, and again after removing vertices."""
    rng = random.Random(seed)
    allowed = {frozenset(e) for e in itertools.combinations(range(n), 2) if rng.random() < density}
    forbidden = [
        {u for u in range(n) if u != v and frozenset((u, v)) not in allowed} for v in range(n)
    ]
    matcher = _Matcher(n, forbidden)
    if greedy_start:
        matcher.greedy()
    matcher.maximise()
    alive = set(range(n))
    assert matcher.size == _max_matching_size(n, allowed, alive)
    while alive:
        gone = rng.sample(sorted(alive), min(len(alive), rng.choice([1, 2])))
        matcher.remove(*gone)
        alive -= set(gone)
        assert matcher.size == _max_matching_size(n, allowed, alive)
        for v in range(n):  # a real matching of allowed edges among the alive vertices
            u = matcher.mate[v]
            if u != -1:
                assert matcher.mate[u] == v
                assert {u, v} <= alive
                assert frozenset((u, v)) in allowed
        assert sum(1 for v in range(n) if matcher.mate[v] != -1) == 2 * matcher.size


def _has_augmenting_path(root: int, mate: list[int], allowed: set[frozenset[int]]) -> bool:
    """Brute force over simple alternating paths from exposed ``root``."""
    n = len(mate)

    def walk(v: int, used: frozenset[int]) -> bool:
        for u in range(n):
            if u in used or frozenset((u, v)) not in allowed or mate[v] == u:
                continue
            if mate[u] == -1:
                return True
            w = mate[u]
            if w not in used and walk(w, used | {u, w}):
                return True
        return False

    return walk(root, frozenset({root}))


@settings(max_examples=200)
@given(n=st.integers(2, 13), density=st.floats(0.15, 0.8), seed=st.integers(0, 2**32 - 1))
@example(n=13, density=0.328125, seed=89643)  # needs both halves of a blossom relabelled
def test_matcher_search_finds_every_augmenting_path(n: int, density: float, seed: int) -> None:
    """From a random (non-maximum) matching, the blossom search finds an augmenting path from
    a root exactly when one exists, and augmenting along it grows the matching by one."""
    rng = random.Random(seed)
    allowed = {frozenset(e) for e in itertools.combinations(range(n), 2) if rng.random() < density}
    forbidden = [
        {u for u in range(n) if u != v and frozenset((u, v)) not in allowed} for v in range(n)
    ]
    matcher = _Matcher(n, forbidden)
    edges = sorted(allowed, key=sorted)
    rng.shuffle(edges)
    for edge in edges:  # a random maximal-or-less matching
        a, b = sorted(edge)
        if matcher.mate[a] == -1 and matcher.mate[b] == -1 and rng.random() < 0.7:
            matcher.mate[a], matcher.mate[b] = b, a
            matcher.size += 1
    for root in range(n):
        if matcher.mate[root] != -1:
            continue
        expected = _has_augmenting_path(root, matcher.mate, allowed)
        parent = [-1] * n
        end = matcher._find_path(root, parent)
        assert (end != -1) == expected
        if end != -1:
            before = matcher.size
            matcher._augment(end, parent)
            assert matcher.size == before + 1
            for v in range(n):
                u = matcher.mate[v]
                if u != -1:
                    assert matcher.mate[u] == v
                    assert frozenset((u, v)) in allowed
            assert matcher.mate[root] != -1


def _random_graph(
    n: int, density: float, rng: random.Random, plant: bool
) -> tuple[set[frozenset[int]], list[set[int]]]:
    """Random allowed edges on 0..n-1 (with a planted perfect or near-perfect matching when
    ``plant``), and the matching ``forbidden`` sets."""
    allowed = {frozenset(e) for e in itertools.combinations(range(n), 2) if rng.random() < density}
    if plant:
        order = list(range(n))
        rng.shuffle(order)
        allowed |= {frozenset(order[i : i + 2]) for i in range(0, n - 1, 2)}
    forbidden = [
        {u for u in range(n) if u != v and frozenset((u, v)) not in allowed} for v in range(n)
    ]
    return allowed, forbidden


@settings(max_examples=80)
@given(half=st.integers(1, 6), density=st.floats(0.1, 0.8), seed=st.integers(0, 2**32 - 1))
def test_completable_is_every_opponent_leaving_a_perfect_field(
    half: int, density: float, seed: int
) -> None:
    """One search gives, for a player, every opponent whose removal with them leaves a field
    that still pairs perfectly: checked against brute force for every player and opponent."""
    n = 2 * half
    rng = random.Random(seed)
    allowed, forbidden = _random_graph(n, density, rng, plant=True)
    matcher = _Matcher(n, forbidden)
    matcher.maximise()
    assert 2 * matcher.size == n
    everyone = set(range(n))
    for top in range(n):
        completable = matcher.completable(top)
        for q in everyone - {top}:
            expected = _max_matching_size(n, allowed, everyone - {top, q}) == half - 1
            assert completable[q] == expected, (top, q)
    assert 2 * matcher.size == n  # the matcher itself is untouched


@settings(max_examples=80)
@given(half=st.integers(0, 5), density=st.floats(0.1, 0.8), seed=st.integers(0, 2**32 - 1))
def test_even_from_finds_every_vertex_a_maximum_matching_can_leave_out(
    half: int, density: float, seed: int
) -> None:
    """Odd field, one exposed vertex: the vertices reached by even alternating paths are
    exactly those whose absence keeps the matching as large (brute force)."""
    n = 2 * half + 1
    rng = random.Random(seed)
    allowed, forbidden = _random_graph(n, density, rng, plant=True)
    matcher = _Matcher(n, forbidden)
    matcher.maximise()
    assert matcher.size == half
    exposed = [v for v in range(n) if matcher.mate[v] == -1]
    assert len(exposed) == 1
    spare = matcher.even_from(exposed[0])
    everyone = set(range(n))
    for v in range(n):
        assert spare[v] == (_max_matching_size(n, allowed, everyone - {v}) == half), v


@settings(max_examples=60)
@given(n=st.integers(0, 12), density=st.floats(0.3, 1.0), seed=st.integers(0, 2**32 - 1))
def test_field_certificate_never_claims_a_pairing_that_does_not_exist(
    n: int, density: float, seed: int
) -> None:
    """Whenever the cheap (Dirac) certificate says the field left pairs without a rematch,
    brute force agrees, as players leave one by one (in any order, any count removed)."""
    rng = random.Random(seed)
    allowed, forbidden = _random_graph(n, density, rng, plant=False)
    field_ = _Field(n, forbidden)
    alive = set(range(n))
    claims = 0
    while True:
        for removed in (0, 1, 2):
            if removed > len(alive) or not field_.pairs_cleanly_without(removed):
                continue
            for gone in itertools.combinations(sorted(alive), removed):
                left = alive - set(gone)
                assert len(left) % 2 == 0
                assert _max_matching_size(n, allowed, left) == len(left) // 2
                claims += 1
        if not alive:
            break
        v = rng.choice(sorted(alive))
        field_.remove(v)
        alive.remove(v)
        met = [len(forbidden[u] & alive) for u in alive]
        assert field_.most == max(met, default=0)
    assert claims >= 1  # at least the empty field


def _reference_round(
    ranking: Sequence[int], results: Sequence[GameResult], byes: Sequence[Bye]
) -> tuple[int | None, list[tuple[int, int, bool]], int]:
    """The Swiss search of docs/rulings/leagues.md (L16-L19) without any shortcut: every
    candidate (bye or opponent) is checked by a maximum matching computed from scratch."""
    n = len(ranking)
    rank = {p: i for i, p in enumerate(ranking)}
    times = Counter(frozenset((rank[g.player_a], rank[g.player_b])) for g in results)
    forbidden = [{u for u in range(n) if times[frozenset((u, v))]} for v in range(n)]

    def most_fresh_games(vertices: list[int]) -> int:
        matcher = _Matcher(n, forbidden, vertices)
        matcher.maximise()
        return matcher.size

    field_ = list(range(n))
    bye = None
    if n % 2:
        bye_counts = Counter(b.player for b in byes)
        fewest = min(bye_counts[p] for p in ranking)
        candidates = [i for i in reversed(field_) if bye_counts[ranking[i]] == fewest]
        best = most_fresh_games(field_)
        bye = next(
            (c for c in candidates if most_fresh_games([v for v in field_ if v != c]) == best),
            candidates[0],
        )
        field_.remove(bye)
    budget = total = len(field_) // 2 - most_fresh_games(field_)
    pairs = []
    while field_:
        top, rest = field_[0], field_[1:]
        fresh = [q for q in rest if q not in forbidden[top]]
        again = sorted(
            (q for q in rest if q in forbidden[top]),
            key=lambda q: (times[frozenset((top, q))], q),
        )
        for q in fresh + (again if budget else []):
            left = [v for v in rest if v != q]
            rematch = q in forbidden[top]
            if most_fresh_games(left) >= len(left) // 2 - (budget - rematch):
                budget -= rematch
                pairs.append((ranking[top], ranking[q], rematch))
                field_ = left
                break
        else:  # pragma: no cover - some candidate is always completable
            raise AssertionError("no completable opponent")
    return None if bye is None else ranking[bye], pairs, total


@settings(max_examples=40)
@given(
    n=st.integers(8, 36),
    rounds=st.integers(0, 40),
    messy=st.floats(0.0, 0.5),
    seed=st.integers(0, 2**32 - 1),
)
def test_swiss_fast_paths_match_the_plain_reference_search(
    n: int, rounds: int, messy: float, seed: int
) -> None:
    """Over whole seasons (some rounds paired at random to make odd histories, rematch-free
    or not), every round is exactly the reference search's round."""
    players = list(range(1, n + 1))
    rng = random.Random(seed)
    results: list[GameResult] = []
    byes: list[Bye] = []
    for number in range(1, min(rounds, n + 4) + 1):
        sr = swiss_round(players, results, byes, random.Random(f"{seed}:{number}"))
        _check_round(sr, players, results, byes)
        bye, pairs, total = _reference_round(sr.ranking, results, byes)
        assert sr.bye == bye
        assert [(p.player_a, p.player_b, p.rematch) for p in sr.pairings] == pairs
        assert sr.rematches == total
        if rng.random() < messy:  # a round paired at random instead
            shuffled = rng.sample(players, n)
            pairing = SwissRound(
                pairings=tuple(
                    Pairing(table=i // 2 + 1, player_a=shuffled[i], player_b=shuffled[i + 1])
                    for i in range(0, n - 1, 2)
                ),
                bye=shuffled[-1] if n % 2 else None,
                ranking=tuple(shuffled),
            )
            _play(pairing, rng, results, byes, number)
        else:
            _play(sr, rng, results, byes, number)


def test_matcher_repair_looks_again_when_the_first_path_takes_the_other_widow() -> None:
    """0-1 and 2-3 matched, 4 and 5 exposed (maximum: 4 and 5 only know 1 and 3). Remove 0
    and 2: the search from 1 pairs it with 3 (its first free neighbour), which leaves 4-1=3-5
    to find from elsewhere; the repaired matching has 2 edges (4-1, 3-5)."""
    allowed = {frozenset(e) for e in [(0, 1), (2, 3), (1, 3), (1, 4), (3, 5)]}
    forbidden = [
        {u for u in range(6) if u != v and frozenset((u, v)) not in allowed} for v in range(6)
    ]
    matcher = _Matcher(6, forbidden)
    matcher.mate = [1, 0, 3, 2, -1, -1]
    matcher.size = 2
    assert _max_matching_size(6, allowed, set(range(6))) == 2  # so the start is maximum
    trial = matcher.without((0, 2), 2)
    assert trial.size == 2
    assert sorted((v, trial.mate[v]) for v in range(6) if trial.mate[v] > v) == [(1, 4), (3, 5)]
    assert matcher.mate == [1, 0, 3, 2, -1, -1]  # the original is untouched
    matcher.remove(0, 2)
    assert matcher.size == 2
