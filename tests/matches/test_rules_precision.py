"""Issue 12: Epic Challenge gave [PRECISION] to every melee weapon of the Attached unit; it is
the CHARACTER's attacks only [L3338-3340]."""

from __future__ import annotations

from dataclasses import replace

from app.engine.match.turns import TurnPosition
from app.engine.wh40k10e.battle.state import Effect
from app.matches import combat
from tests.matches.test_combat import snapshots, state_with


def test_epic_challenge_gives_precision_to_the_character_only() -> None:
    snaps = snapshots()
    state = state_with(
        snaps,
        a1={"bodyguard": "a2", "effects": frozenset({Effect.PRECISION})},  # the Captain
        a2={"leader": "a1"},
    )
    state = replace(state, position=TurnPosition(1, 0, "fight", "fights_first"))
    built = combat.build_request(
        snaps,
        state,
        "a2",
        "b2",
        [
            {"unit": "a2", "weapon": "Close combat weapon", "models": 5},
            {"unit": "a1", "weapon": "Close combat weapon", "models": 1},
        ],
    )
    bodyguard, captain = built.request["attacks"]
    assert "Precision" not in bodyguard["weapon"]["abilities"]
    assert "Precision" in captain["weapon"]["abilities"]
