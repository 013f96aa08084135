"""The characteristics of the squads the PEN battle tests play: a Space Marine and a
Guardsman (numbers only)."""

from __future__ import annotations

from typing import Any

MARINE: dict[str, Any] = {
    "ws": 4,
    "bs": 4,
    "strength": 4,
    "toughness": 4,
    "wounds": 1,
    "initiative": 4,
    "attacks": 1,
    "leadership": 8,
    "save": 3,
}
GUARD: dict[str, Any] = {
    "ws": 3,
    "bs": 3,
    "strength": 3,
    "toughness": 3,
    "wounds": 1,
    "initiative": 3,
    "attacks": 1,
    "leadership": 7,
    "save": 5,
}
