"""An independent brute-force oracle for the Black Reach odds: every face of every die.

Written from the rule text, not from the engine: it shares no code with
``app.engine.black_reach`` (only the request's plain-dict shape), so an error in the engine's
pipeline shows up as a disagreement.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from itertools import product
from typing import Any


def _get(section: Mapping[str, Any] | None, name: str, default: Any = 0) -> Any:
    return (section or {}).get(name, default)


def classify(request: Mapping[str, Any], faces: tuple[int, ...]) -> str:
    """The outcome of ``request`` when the dice show ``faces`` (attacker's dice first)."""
    kind = request["kind"]
    a, t, s = request["attacker"], request["target"], request.get("situation")
    if kind in ("shot", "suppression_fire"):
        cv = a["cv"] - _get(a, "moving_penalty") + _get(a, "bonuses")
        if kind == "suppression_fire":
            cv *= 2  # the CV and every bonus, not the penalties on the final result
        final = max(faces) + cv
        final -= 2 * _get(a, "suppressed") + _get(a, "penalties")
        final -= 2 if _get(s, "long_range", False) else 0
        dv = t["dv"] + _get(t, "defence_bonus")
        if kind == "suppression_fire":
            k = 0
            while final >= (k + 1) * dv:
                k += 1
            return f"suppressed_{k}"
        if final >= 2 * dv:
            return "coup_double"
        return "step" if final >= dv else "miss"
    attacker = max(faces[:2]) + a["cv"] + _get(a, "assault_bonus") + _get(a, "support")
    attacker += _get(a, "bonuses") - 2 * _get(a, "suppressed") - _get(a, "penalties")
    defender = max(faces[2:]) + t["cv"] + _get(t, "defence_bonus") + _get(t, "assault_bonus")
    defender += _get(t, "bonuses") - 2 * _get(t, "suppressed") - _get(t, "penalties")
    if attacker > defender:
        return "attacker_wins"
    return "defender_wins" if defender > attacker else "tie"


def dice_count(request: Mapping[str, Any]) -> int:
    if request["kind"] == "assault":
        return 2 + (2 if _get(request["target"], "has_assault", False) else 1)
    return int(_get(request["attacker"], "dice", 1))


def all_faces(request: Mapping[str, Any]) -> Iterator[tuple[int, ...]]:
    return product(range(1, 7), repeat=dice_count(request))


def oracle(request: Mapping[str, Any]) -> dict[str, Fraction]:
    """P(outcome) for every outcome of positive probability."""
    counts: dict[str, int] = {}
    total = 0
    for faces in all_faces(request):
        outcome = classify(request, faces)
        counts[outcome] = counts.get(outcome, 0) + 1
        total += 1
    return {k: Fraction(v, total) for k, v in counts.items()}
