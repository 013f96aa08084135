"""Concise construction of 10th-edition combat requests for the tests."""

from __future__ import annotations

from typing import Any, Literal

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


def captain(feel_no_pain: int | None) -> dict[str, Any]:
    """Issue 18's attached CHARACTER: a Captain W5 Sv2 inv4 with ``feel_no_pain``."""
    return {
        "name": "Captain",
        "models": 1,
        "wounds": 5,
        "save": 2,
        "invulnerable_save": 4,
        "feel_no_pain": feel_no_pain,
        "keywords": ["Character"],
    }


def mixed_unit(
    models: int = 18,
    *,
    wounds: int = 3,
    save: int = 4,
    feel_no_pain: int | None = 5,
    sergeant_save: int = 3,
    captain_fnp: int | Literal["same"] | None = "same",
) -> dict[str, Any]:
    """Issue 18's mixed target: ``models`` x W``wounds`` Sv``save`` (T4), a sergeant of the
    same wounds and Feel No Pain who saves on ``sergeant_save``, and a Captain
    (:func:`captain`) whose Feel No Pain is the bodyguard's unless ``captain_fnp`` is given."""
    fnp = feel_no_pain if isinstance(captain_fnp, str) else captain_fnp
    return {
        "models": models,
        "toughness": 4,
        "save": save,
        "wounds": wounds,
        "feel_no_pain": feel_no_pain,
        "groups": [
            {
                "name": "sgt",
                "models": 1,
                "wounds": wounds,
                "save": sergeant_save,
                "feel_no_pain": feel_no_pain,
            },
            captain(fnp),
        ],
    }
