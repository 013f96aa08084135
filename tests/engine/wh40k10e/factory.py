"""Concise construction of 10th-edition combat requests for the tests."""

from __future__ import annotations

from typing import Any

from app.engine.wh40k10e.profiles import CombatRequest, request_from_dict

BASE_WEAPON: dict[str, Any] = {
    "name": "gun",
    "kind": "ranged",
    "attacks": "1",
    "skill": 3,
    "strength": 4,
    "ap": 0,
    "damage": "1",
    "abilities": [],
}
BASE_TARGET: dict[str, Any] = {"models": 10, "toughness": 4, "save": 7, "wounds": 1}


def weapon(**kw: Any) -> dict[str, Any]:
    return {**BASE_WEAPON, **kw}


def request(
    *weapons: dict[str, Any],
    models: int = 1,
    target: dict[str, Any] | None = None,
    situation: dict[str, Any] | None = None,
    **target_kw: Any,
) -> CombatRequest:
    ws = weapons or (weapon(),)
    return request_from_dict(
        {
            "attacks": [{"models": models, "weapon": w} for w in ws],
            "target": {**BASE_TARGET, **(target or {}), **target_kw},
            "situation": situation or {},
        }
    )
