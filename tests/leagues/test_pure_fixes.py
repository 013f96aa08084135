"""Fixes made to the pure league logic while building the league pages."""

from __future__ import annotations

from app.leagues.standings import StandingsConfig, TieBreaker, compute_standings


def test_standings_of_an_empty_league_are_empty() -> None:
    # A league nobody has registered in yet: its page shows an empty table (this crashed).
    assert compute_standings([], []) == ()
    config = StandingsConfig(tie_breakers=(TieBreaker.HEAD_TO_HEAD,))
    assert compute_standings([], [], [], config, names={}) == ()
