"""Standings: scoring, tie-breakers in the chosen order (hand-built tables where each one
decides), head-to-head among exactly the tied players, shared ranks, stable final order."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.leagues.standings import (
    Bye,
    FinalOrder,
    GameResult,
    LeagueError,
    Scoring,
    Standing,
    StandingsConfig,
    TieBreaker,
    compute_standings,
    opponents_win_rate,
    strength_of_schedule,
    tally,
)

SOS = TieBreaker.STRENGTH_OF_SCHEDULE
OWR = TieBreaker.OPPONENTS_WIN_RATE
H2H = TieBreaker.HEAD_TO_HEAD
VPD = TieBreaker.VP_DIFFERENCE
VPS = TieBreaker.VP_SCORED


def win(a: int, b: int, vp_a: int = 0, vp_b: int = 0) -> GameResult:
    return GameResult(a, b, a, vp_a, vp_b)


def draw(a: int, b: int, vp_a: int = 0, vp_b: int = 0) -> GameResult:
    return GameResult(a, b, None, vp_a, vp_b)


def order(
    results: list[GameResult], *criteria: TieBreaker, players: tuple[int, ...] = ()
) -> list[Standing]:
    return list(compute_standings(players, results, config=StandingsConfig(tie_breakers=criteria)))


def row(table: list[Standing], player: int) -> Standing:
    return next(s for s in table if s.player == player)


# --------------------------------------------------------------------------- scoring


def test_tally_and_default_scoring() -> None:
    results = [win(1, 2, 60, 40), draw(2, 3, 50, 50), GameResult(3, 1, 3, 70, 20)]
    table = list(compute_standings([1, 2, 3, 4], results, [Bye(4, 3)]))
    assert [s.player for s in table] == [3, 1, 4, 2]
    three, one, four, two = table
    assert (three.points, three.wins, three.draws, three.losses) == (F(4), 1, 1, 0)
    assert (three.vp_for, three.vp_against, three.vp_difference) == (120, 70, 50)
    # 1 and 4 both have 3 points (a win / a bye, worth a win by default); 1's opponents have
    # 1 + 4 = 5 points, 4 has no opponent: strength of schedule puts 1 above.
    assert (one.points, four.points) == (F(3), F(3))
    assert (one.strength_of_schedule, four.strength_of_schedule) == (F(5), F(0))
    assert one.decided_by is SOS
    assert (four.games, four.byes, four.vp_for) == (0, 1, 0)
    assert (two.points, two.rank, one.rank, four.rank) == (F(1), 4, 2, 3)
    assert not any(s.tied for s in table)


def test_custom_scoring_exact_fractions_and_bye_points() -> None:
    scoring = Scoring(win=1, draw=Fraction(1, 2), loss=0, bye=Fraction(1, 2), bye_victory_points=20)
    records = tally([draw(1, 2), win(1, 3)], [Bye(2, 2)], scoring)
    assert records[1].points == Fraction(3, 2)
    assert records[2].points == Fraction(1)
    assert records[2].vp_for == 20
    assert records[3].points == 0
    assert records[1].win_rate == Fraction(3, 4)
    assert records[2].win_rate == Fraction(1, 2)  # byes are not games
    sos = strength_of_schedule(records)
    assert sos == {1: Fraction(1), 2: Fraction(3, 2), 3: Fraction(3, 2)}
    owr = opponents_win_rate(records)
    assert owr == {1: Fraction(1, 4), 2: Fraction(3, 4), 3: Fraction(3, 4)}
    assert Scoring().bye_points == 3
    assert Scoring(win=2, bye=1).bye_points == 1


def test_bad_scoring_and_results_are_refused() -> None:
    with pytest.raises(LeagueError, match="loss <= draw <= win"):
        Scoring(win=1, draw=2)
    with pytest.raises(LeagueError, match="int or a Fraction"):
        Scoring(win=2.5)  # type: ignore[arg-type]
    with pytest.raises(LeagueError, match="bye points"):
        Scoring(bye=-1)
    with pytest.raises(LeagueError, match="two different players"):
        GameResult(1, 1, None)
    with pytest.raises(LeagueError, match="did not play"):
        GameResult(1, 2, 3)
    with pytest.raises(LeagueError, match="victory points"):
        GameResult(1, 2, 1, -1, 0)
    with pytest.raises(LeagueError, match="listed twice"):
        StandingsConfig(tie_breakers=(SOS, SOS))
    with pytest.raises(ValueError, match="not a valid TieBreaker"):
        StandingsConfig(tie_breakers=("coin_toss",))  # type: ignore[arg-type]


# --------------------------------------------------------------------------- each tie-breaker

# 1 and 2 both have one win (3 points) and never met:
#   1 beat 3 30-25 and 3 beat 5 and 6 (3 has 6 points, win rate 2/3);
#   2 beat 4 10-0 and 4 has nothing else (0 points, win rate 0).
# So strength of schedule, opponents' win rate and VP scored favour 1; VP difference favours 2.
TWO_TIED = [win(1, 3, 30, 25), win(2, 4, 10, 0), win(3, 5), win(3, 6)]


@pytest.mark.parametrize(
    ("criteria", "first", "decider"),
    [
        ((SOS, VPD), 1, SOS),
        ((OWR, VPD), 1, OWR),
        ((VPS, VPD), 1, VPS),
        ((VPD, SOS), 2, VPD),
        ((VPD, VPS), 2, VPD),
        ((H2H, VPD, SOS), 2, VPD),  # they never met: head-to-head cannot decide
        ((H2H, SOS), 1, SOS),
    ],
)
def test_each_tie_breaker_decides_in_the_chosen_order(
    criteria: tuple[TieBreaker, ...], first: int, decider: TieBreaker
) -> None:
    table = order(TWO_TIED, *criteria)
    top_two = [s for s in table if s.points == 3]
    assert [s.player for s in top_two] == [first, 3 - first]
    assert top_two[0].decided_by is decider
    assert (top_two[0].rank, top_two[1].rank) == (2, 3)  # 3 leads with 6 points
    assert not top_two[0].tied


def test_tie_breaker_values() -> None:
    table = order(TWO_TIED, SOS)
    one, two = row(table, 1), row(table, 2)
    assert (one.strength_of_schedule, two.strength_of_schedule) == (F(6), F(0))
    assert (one.opponents_win_rate, two.opponents_win_rate) == (F(2, 3), F(0))
    assert (one.vp_difference, two.vp_difference) == (5, 10)
    assert (one.vp_for, two.vp_for) == (30, 10)


def test_strength_of_schedule_and_opponents_win_rate_can_disagree() -> None:
    # 1: one win over 3 (3: a win and a loss: 3 points, win rate 1/2).
    # 2: three draws against 4, 6, 7; each of those drew again and lost once
    #    (2 points, win rate 1/3). Both 1 and 2 have 3 points.
    results = [win(1, 3), win(3, 5), draw(2, 4), draw(2, 6), draw(2, 7)]
    results += [draw(4, 8), win(9, 4), draw(6, 10), win(11, 6), draw(7, 12), win(13, 7)]
    by_sos = order(results, SOS, OWR)
    by_owr = order(results, OWR, SOS)
    assert row(by_sos, 2).strength_of_schedule == 6
    assert row(by_sos, 1).strength_of_schedule == 3
    assert row(by_sos, 2).opponents_win_rate == Fraction(1, 3)
    assert row(by_sos, 1).opponents_win_rate == Fraction(1, 2)
    tied_sos = [s.player for s in by_sos if s.player in (1, 2)]
    tied_owr = [s.player for s in by_owr if s.player in (1, 2)]
    assert tied_sos == [2, 1]
    assert row(by_sos, 2).decided_by is SOS
    assert tied_owr == [1, 2]
    # (1 stays level with 3, who also has 3 points, SoS 3 and opponents' win rate 1/2)
    assert row(by_owr, 1).rank == row(by_owr, 3).rank


def test_head_to_head_between_two_players_beats_a_later_criterion() -> None:
    # 1 beat 2; 2 beat 3; 4 beat 1. Only 1 and 2 have 3 points. 3 beat 5, 6, 8 (9 points),
    # 4 beat 7 (6 points): 2's opponents are stronger (SoS 12 v 9), but 1 won their game.
    results = [win(1, 2), win(2, 3), win(4, 1), win(3, 5), win(3, 6), win(3, 8), win(4, 7)]
    h2h_first = order(results, H2H, SOS)
    sos_first = order(results, SOS, H2H)
    pair = [s.player for s in h2h_first if s.player in (1, 2)]
    assert pair == [1, 2]
    assert row(h2h_first, 1).decided_by is H2H
    assert row(sos_first, 2).strength_of_schedule == 12
    assert row(sos_first, 1).strength_of_schedule == 9
    assert [s.player for s in sos_first if s.player in (1, 2)] == [2, 1]
    assert row(sos_first, 2).decided_by is SOS


def test_head_to_head_among_three_tied_players_uses_only_their_games() -> None:
    # 1, 2, 3 end on 6 points each. Among themselves: 1 beat 2 and 3, 2 beat 3.
    # Against others: 4 beat 1 (by a lot), 2 beat 4, 3 beat 4 and 5 (by a lot).
    results = [win(1, 2, 20, 15), win(1, 3, 20, 15), win(2, 3, 20, 15)]
    results += [win(4, 1, 90, 0), win(2, 4, 21, 20), win(3, 4, 90, 0), win(3, 5, 90, 0)]
    h2h = order(results, H2H, VPD)
    assert [s.player for s in h2h[:3]] == [1, 2, 3]
    assert all(s.points == 6 for s in h2h[:3])
    assert [s.decided_by for s in h2h[:3]] == [H2H, H2H, None]  # 3 is above 4 on points
    # by VP difference the order is reversed (3: +170, 2: +1, 1: -80)
    vpd = order(results, VPD, H2H)
    assert [s.player for s in vpd[:3]] == [3, 2, 1]
    assert [s.vp_difference for s in vpd[:3]] == [170, 1, -80]


def test_head_to_head_cycle_leaves_the_next_criterion_to_decide() -> None:
    # 1 beat 2, 2 beat 3, 3 beat 1: each has 3 points in the mini-table, no split.
    results = [win(1, 2, 10, 0), win(2, 3, 30, 0), win(3, 1, 25, 0)]
    table = order(results, H2H, VPD)
    assert [s.player for s in table] == [2, 3, 1]
    assert [s.vp_difference for s in table] == [20, -5, -15]
    assert [s.decided_by for s in table] == [VPD, VPD, None]
    # and with nothing after head-to-head, the three share first place, listed by id
    table = order(results, H2H)
    assert [(s.rank, s.player, s.tied) for s in table] == [(1, 1, True), (1, 2, True), (1, 3, True)]


def test_head_to_head_skipped_when_the_tied_players_did_not_all_meet() -> None:
    # 1, 2, 3, 6 all have 3 points; 1 beat 2 and lost to 6, but 3 met none of them: a
    # mini-table would compare unequal schedules, so VP difference decides instead.
    results = [win(1, 2, 10, 9), win(2, 4, 50, 0), win(3, 5, 20, 0), win(6, 1, 30, 0)]
    table = order(results, H2H, VPD)
    assert [s.player for s in table[:4]] == [2, 6, 3, 1]
    assert [s.vp_difference for s in table[:4]] == [49, 30, 20, -29]
    assert [s.decided_by for s in table[:4]] == [VPD, VPD, VPD, None]


def test_head_to_head_is_reapplied_to_the_players_still_level() -> None:
    # 1..4 tie on 13 points. Among them: 1 beat 2 and 4, drew 3; 2 beat 3; 3 beat 4; 4 beat 2.
    # Mini-table: 1: 7, 3: 4, 2 and 4: 3 each. Between 2 and 4 alone, 4 won: 4 above 2.
    results = [win(1, 2), draw(1, 3), win(1, 4), win(2, 3), win(3, 4), win(4, 2)]
    extra = {1: "WW", 3: "WWW", 2: "WWWD", 4: "WWWD"}
    outsider = 100
    for player, games in extra.items():
        for kind in games:
            results.append(win(player, outsider) if kind == "W" else draw(player, outsider))
            outsider += 1
    table = order(results, H2H)
    top = table[:4]
    assert all(s.points == 13 for s in top)
    assert [s.player for s in top] == [1, 3, 4, 2]
    assert [s.rank for s in top] == [1, 2, 3, 4]
    assert [s.decided_by for s in top] == [H2H, H2H, H2H, None]


def test_shared_rank_when_everything_ties() -> None:
    # 2 and 3 are identical (3 points, same opponents' points, never met): they share 2nd.
    results = [win(1, 2), win(1, 3), win(2, 4), win(3, 4)]
    table = list(compute_standings([4, 3, 2, 1], results))
    assert [(s.rank, s.player, s.tied) for s in table] == [
        (1, 1, False),
        (2, 2, True),
        (2, 3, True),
        (4, 4, False),
    ]
    assert [s.decided_by for s in table] == [None, None, None, None]


def test_stable_final_order_by_id_or_name() -> None:
    by_id = compute_standings([3, 1, 2], [])
    assert [(s.rank, s.player) for s in by_id] == [(1, 1), (1, 2), (1, 3)]
    assert all(s.tied for s in by_id)
    names = {1: "zed", 2: "Amy", 3: "bob"}
    config = StandingsConfig(final_order=FinalOrder.NAME)
    by_name = compute_standings([3, 1, 2], [], config=config, names=names)
    assert [s.player for s in by_name] == [2, 3, 1]
    # a player who is not registered but appears in a result is listed too
    assert [s.player for s in compute_standings([1], [win(2, 1)])] == [2, 1]


# --------------------------------------------------------------------------- properties


def _random_league(seed: int, n: int, games: int) -> list[GameResult]:
    rng = random.Random(seed)
    out = []
    for _ in range(games):
        a, b = rng.sample(range(1, n + 1), 2)
        out.append(GameResult(a, b, rng.choice([a, b, None]), rng.randint(0, 3), rng.randint(0, 3)))
    return out


VALUE_CRITERIA = st.lists(st.sampled_from([SOS, OWR, VPD, VPS]), unique=True, max_size=4)


@settings(max_examples=60)
@given(
    n=st.integers(2, 9),
    games=st.integers(0, 20),
    seed=st.integers(0, 2**32 - 1),
    criteria=VALUE_CRITERIA,
)
def test_value_tie_breakers_match_a_plain_sort(
    n: int, games: int, seed: int, criteria: list[TieBreaker]
) -> None:
    """Without head-to-head, the standings are a sort on (points, criteria...) with equal keys
    sharing a rank, then player id."""
    results = _random_league(seed, n, games)
    table = compute_standings(
        range(1, n + 1), results, config=StandingsConfig(tie_breakers=tuple(criteria))
    )
    records = tally(results, (), Scoring(), range(1, n + 1))
    sos, owr = strength_of_schedule(records), opponents_win_rate(records)
    value: dict[TieBreaker, Callable[[int], Fraction | int]] = {
        SOS: lambda p: sos[p],
        OWR: lambda p: owr[p],
        VPD: lambda p: records[p].vp_difference,
        VPS: lambda p: records[p].vp_for,
    }

    def key(p: int) -> tuple[Fraction | int, ...]:
        return (records[p].points, *(value[c](p) for c in criteria))

    expected = sorted(records, key=lambda p: (tuple(-k for k in key(p)), p))
    assert [s.player for s in table] == expected
    for s in table:
        assert s.rank == 1 + sum(1 for p in records if key(p) > key(s.player))
        assert s.tied == (sum(1 for p in records if key(p) == key(s.player)) > 1)


@settings(max_examples=60)
@given(
    n=st.integers(2, 9),
    games=st.integers(0, 24),
    seed=st.integers(0, 2**32 - 1),
    criteria=st.permutations([SOS, OWR, H2H, VPD, VPS]).map(tuple),
    cut=st.integers(0, 5),
)
def test_standings_do_not_depend_on_input_order(
    n: int, games: int, seed: int, criteria: tuple[TieBreaker, ...], cut: int
) -> None:
    results = _random_league(seed, n, games)
    config = StandingsConfig(tie_breakers=criteria[:cut])
    table = compute_standings(range(1, n + 1), results, config=config)
    shuffled = list(results)
    random.Random(seed).shuffle(shuffled)
    assert compute_standings(reversed(range(1, n + 1)), shuffled, config=config) == table
    # ranks are consistent: non-decreasing, points non-increasing, ties share a rank,
    # decided_by only on a row strictly above the next
    for i, s in enumerate(table):
        if i and table[i - 1].rank == s.rank:
            assert s.tied
            assert table[i - 1].tied
            assert table[i - 1].decided_by is None
        else:
            assert s.rank == i + 1
        if i:
            assert table[i - 1].points >= s.points
        nxt = table[i + 1] if i + 1 < len(table) else None
        if s.decided_by is not None:
            assert nxt is not None
            assert nxt.rank > s.rank
            assert nxt.points == s.points
            assert s.decided_by in config.tie_breakers
