"""*Heroes of Black Reach*, the board game on a square grid (rules/black-reach.md, seed
002_65108e9bfa55dd01).

What exists today: the exact odds of one shot, one suppression fire or one assault, from numbers
the caller has gathered at the board (issue 16, "Exact odds"), and one live roll of the same
with the injected roller. Readings where the rules are silent: docs/rulings/black-reach.md.

Public API:

- :func:`request_from_dict` (plain JSON-like values -> :class:`OddsRequest`, raising one
  ``ProfileError`` that lists every bad field);
- :func:`outcome_odds` (named outcomes with exact probabilities), :func:`analyze`
  (-> ``CombatAnalysis``) and :func:`resolve` (-> ``CombatResolution``, every die recorded);
- :mod:`.pipeline`: one pure function per step of the shot and assault pipelines.

- :mod:`.board` (squares, intercases, edges, terrain elements, boards as data and their
  assembly), :mod:`.los` (line of sight, range, fire arcs), :mod:`.movement` (reachable
  placements and a path validator), :mod:`.tables` (the other dice tables of §9.1).

- :mod:`.forces` (two-sided counters, step losses, tiles, options, Breaking Points),
  :mod:`.armies` (army building by points and its validator), :mod:`.scenario` (scenarios and
  the sudden-death and end-of-turn checks), :mod:`.loaders` (the JSON formats of
  docs/black-reach-data.md), :mod:`.turn` (the Order / Activation / Reserve skeleton with
  hidden Order tokens committed by hash).

- :mod:`.battle`: the whole battle as an event-sourced match (``BlackReachBattle``, a
  :class:`~app.engine.match.game.MatchGame`: set-up from a scenario and its two forces,
  hidden Order tokens, activations, reserves, the victory check); the capability ``match``
  says the match feature plays it (``app/matches/systems/black_reach``).

Importing the package registers the rule system ``black-reach``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.engine.black_reach import pipeline
from app.engine.black_reach.live import resolve
from app.engine.black_reach.odds import analyze, best_of, outcome_odds
from app.engine.black_reach.requests import (
    Attacker,
    Kind,
    OddsRequest,
    Situation,
    Target,
    request_from_dict,
)
from app.engine.combat import CombatAnalysis, CombatResolution
from app.engine.errors import RollerError
from app.engine.registry import RuleSystem, register
from app.engine.roller import Roller

__all__ = [
    "CAPABILITIES",
    "SYSTEM",
    "SYSTEM_ID",
    "Attacker",
    "Kind",
    "OddsRequest",
    "Situation",
    "Target",
    "analyze",
    "analyze_combat",
    "best_of",
    "outcome_odds",
    "pipeline",
    "request_from_dict",
    "resolve",
    "resolve_combat",
]

SYSTEM_ID = "black-reach"

CAPABILITIES: tuple[str, ...] = ("combat.analyze", "combat.resolve", "match")


def analyze_combat(request: Mapping[str, Any]) -> CombatAnalysis:
    """Registry hook: exact odds of a plain request (see :func:`request_from_dict`)."""
    return analyze(request_from_dict(request))


def resolve_combat(request: Mapping[str, Any], roller: Roller) -> CombatResolution:
    """Registry hook: one live roll of a plain request with ``roller``; dice given by hand
    that the roll does not use are refused (``RollerError``: a 422 naming the dice)."""
    resolution = resolve(request_from_dict(request), roller)
    if roller.remaining_given:
        raise RollerError(
            f"{roller.remaining_given} of the dice given were not needed by this roll"
        )
    return resolution


SYSTEM = register(
    RuleSystem(
        id=SYSTEM_ID,
        name="Heroes of Black Reach — the board game",
        capabilities=CAPABILITIES,
        description=(
            "The board game on a square grid: exact odds of a shot (miss, step, Coup Double), "
            "a suppression fire (Suppressed markers placed) or an assault (win, tie, loss) from "
            "the numbers gathered at the board, one live roll with every die recorded, and "
            "whole battles played as matches from a scenario and its two forces."
        ),
        order=50,
        analyze_combat=analyze_combat,
        resolve_combat=resolve_combat,
    )
)
