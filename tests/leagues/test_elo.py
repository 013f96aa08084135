"""Elo: hand-computed updates (even game, upset, draw), K schedule, chronological replay."""

from __future__ import annotations

import random
from collections.abc import Iterator
from decimal import Decimal, localcontext

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from app.leagues.elo import EloConfig, Rating, expected_score, rate, update
from app.leagues.standings import GameResult, LeagueError

ONE, HALF, ZERO = Decimal(1), Decimal("0.5"), Decimal(0)


@pytest.fixture(autouse=True)
def _precise() -> Iterator[None]:
    """Hand computations in the tests run at 60 digits (the module itself uses its own 34)."""
    with localcontext() as ctx:
        ctx.prec = 60
        yield


def _sqrt10() -> Decimal:
    return Decimal(10).sqrt()


def _close(a: Decimal, b: Decimal, digits: int = 28) -> bool:
    return abs(a - b) < Decimal(10) ** -digits


def test_even_game_win_with_k32_is_exactly_16_points() -> None:
    # E = 1 / (1 + 10^0) = 1/2 exactly; 32 * (1 - 1/2) = 16.
    assert expected_score(1500, 1500) == HALF
    a, b = update(1500, 1500, ONE, 32)
    assert (a, b) == (Decimal(1516), Decimal(1484))
    result = rate([GameResult(1, 2, 1)])
    assert [(r.player, r.value, r.display, r.games) for r in result.ratings] == [
        (1, Decimal(1516), 1516, 1),
        (2, Decimal(1484), 1484, 1),
    ]
    change = result.changes[0]
    assert (change.before_a, change.expected_a, change.delta_a, change.delta_b) == (
        Decimal(1500),
        HALF,
        Decimal(16),
        Decimal(-16),
    )


def test_upset_win_by_hand() -> None:
    # 1400 beats 1600: E = 1 / (1 + 10^(200/400)) = 1 / (1 + sqrt 10) = 0.24025307...
    # gain = 32 * (1 - E) = 24.31190165...; the favourite loses as much (same K).
    e = 1 / (1 + _sqrt10())
    gain = 32 * (1 - e)
    assert _close(expected_score(1400, 1600), e)
    a, b = update(1400, 1600, ONE, 32)
    assert _close(a, 1400 + gain)
    assert _close(b, 1600 - gain)
    assert str(gain)[:11] == "24.31190165"
    result = rate(
        [GameResult(1, 2, 1)], start={1: Rating(1, Decimal(1400)), 2: Rating(2, Decimal(1600))}
    )
    assert {r.player: r.display for r in result.ratings} == {1: 1424, 2: 1576}


def test_draw_by_hand() -> None:
    # 1600 draws 1400: E(1600) = sqrt10 / (1 + sqrt10) = 0.75974692...;
    # the favourite loses 32 * (E - 1/2) = 8.31190165..., the underdog gains it.
    e = _sqrt10() / (1 + _sqrt10())
    loss = 32 * (e - HALF)
    a, b = update(1600, 1400, HALF, 32)
    assert _close(a, 1600 - loss)
    assert _close(b, 1400 + loss)
    assert (Rating(1, a).display, Rating(2, b).display) == (1592, 1408)
    # a draw between equals changes nothing
    assert update(1500, 1500, HALF, 32) == (Decimal(1500), Decimal(1500))


def test_exact_when_the_expectation_is_rational() -> None:
    # 400 points apart: E = 1 / (1 + 10) = 1/11 for the underdog. With K = 11 a win is
    # worth 11 * 10/11 = 10 exactly.
    a, b = update(1100, 1500, ONE, 11)
    assert (a, b) == (Decimal(1110), Decimal(1490))


def test_reduced_k_after_n_games() -> None:
    config = EloConfig(k=40, reduced_k=20, reduced_k_after=2)
    assert [config.k_for(g) for g in range(4)] == [40, 40, 20, 20]
    # 1 plays three even-ish games; the third uses K = 20 for 1 but K = 40 for newcomer 4.
    games = [GameResult(1, 2, None), GameResult(1, 3, None), GameResult(1, 4, 1)]
    result = rate(games, config)
    last = result.changes[-1]
    assert last.before_a == last.before_b == Decimal(1500)
    assert (last.delta_a, last.delta_b) == (Decimal(10), Decimal(-20))  # not zero-sum
    assert result.as_dict()[1].games == 3


def test_order_matters_and_replay_is_chronological() -> None:
    g1, g2 = GameResult(1, 2, 1), GameResult(2, 3, 2)
    forward = rate([g1, g2]).as_dict()
    backward = rate([g2, g1]).as_dict()
    assert forward[2].value != backward[2].value
    # continuing from a checkpoint is the same as replaying everything
    assert rate([g2], start=rate([g1]).as_dict()).as_dict() == forward


def test_unrated_player_gets_initial_rating() -> None:
    result = rate([], EloConfig(initial=1200))
    assert result.ratings == ()
    assert result.rating_of(7, EloConfig(initial=1200)) == Rating(7, Decimal(1200), 0)


def test_bad_config_is_refused() -> None:
    with pytest.raises(LeagueError, match="go together"):
        EloConfig(reduced_k=16)
    with pytest.raises(LeagueError, match="k must be"):
        EloConfig(k=0)
    with pytest.raises(LeagueError, match="game score"):
        update(1500, 1500, Decimal("0.7"), 32)


@settings(max_examples=60)
@given(n=st.integers(2, 8), games=st.integers(0, 40), seed=st.integers(0, 2**32 - 1))
def test_equal_k_is_zero_sum_and_winners_gain(n: int, games: int, seed: int) -> None:
    rng = random.Random(seed)
    results = []
    for _ in range(games):
        a, b = rng.sample(range(1, n + 1), 2)
        results.append(GameResult(a, b, rng.choice([a, b, None])))
    result = rate(results)
    total = sum((r.value for r in result.ratings), Decimal(0))
    assert abs(total - 1500 * len(result.ratings)) < Decimal("1e-25")
    for change in result.changes:
        game = change.game
        if game.winner == game.player_a:
            assert change.delta_a > 0 > change.delta_b
        elif game.winner == game.player_b:
            assert change.delta_b > 0 > change.delta_a
        else:  # a draw moves the better-rated player down, the other up
            assert change.delta_a * (change.before_b - change.before_a) >= 0
        assert 0 < change.expected_a < 1
        assert abs(change.delta_a) < 32
    # deterministic
    assert rate(results) == result


@settings(max_examples=60)
@given(a=st.integers(0, 4000), b=st.integers(0, 4000))
def test_expected_scores_sum_to_one(a: int, b: int) -> None:
    assert abs(expected_score(a, b) + expected_score(b, a) - 1) < Decimal("1e-30")
    assert (expected_score(a, b) > HALF) == (a > b)
