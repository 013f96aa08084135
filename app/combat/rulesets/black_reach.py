"""The Black Reach odds request (DESIGN.md, "The Black Reach odds contract").

The model mirrors exactly what the engine's parser accepts
(:func:`app.engine.black_reach.requests.request_from_dict`), with the engine's bounds. Every
field but ``attacker.cv`` and the target's ``dv`` (a shot) or ``cv`` (an assault) defaults to 0
or false; the engine refuses a situational number the kind cannot use (a moving penalty in an
assault, the defender's own bonuses on a shot...) when it is not zero.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field, conlist

from app.combat.schemas import StrictRequest
from app.engine.black_reach import requests as r

SYSTEM_ID = "black-reach"


def _bounded(name: str, description: str) -> object:
    lo, hi = r.BOUNDS[name]
    return Field(ge=lo, le=hi, description=description)


Cv = Annotated[int, _bounded("cv", "CV against the other side's class (an X CV cannot attack).")]
Dv = Annotated[int, _bounded("dv", "The Defence Value printed on the target's face.")]
Bonuses = Annotated[int, _bounded("bonuses", "The sum of the bonuses (each positive).")]
Suppressed = Annotated[int, _bounded("suppressed", "Suppressed markers: -2 each on the result.")]
Penalties = Annotated[
    int, _bounded("penalties", "Other penalties taken off the final result (a positive number).")
]
AssaultBonus = Annotated[int, _bounded("assault_bonus", "The +N of the Assaut ability.")]
DefenceBonus = Annotated[
    int,
    _bounded(
        "defence_bonus",
        "Added to the DV on a shot (terrain of its colour, Camo Cloak, armour...) and to the "
        "defender's roll in an assault (the terrain it stands in).",
    ),
]


class BlackReachAttacker(StrictRequest):
    """The shooter, or the unit that launches the assault."""

    cv: Cv
    bonuses: Bonuses = 0
    moving_penalty: Annotated[
        int,
        _bounded("moving_penalty", "Shots: the Tir en Mouvement penalty, taken off the CV."),
    ] = 0
    dice: Annotated[
        int, _bounded("dice", "Shots: 1 die, or 2 keep the best (Armes Jumelées, a card).")
    ] = 1
    suppressed: Suppressed = 0
    penalties: Penalties = 0
    assault_bonus: AssaultBonus = 0
    support: Annotated[
        int, _bounded("support", "Assaults: supporting units, +1 each to the attacker.")
    ] = 0
    piercing: bool = Field(
        default=False,
        description="Shots with a damage_set: Perforant, +1 on the heavy vehicle's location roll.",
    )


DamageMarkerName = Literal[r.DAMAGE_MARKERS]  # type: ignore[valid-type]


class BlackReachDamageFace(StrictRequest):
    """A weapon marker naming the number of the weapon it hits."""

    marker: DamageMarkerName
    number: int = Field(default=1, ge=1, le=r.MAX_WEAPON_NUMBER)


class BlackReachTarget(StrictRequest):
    """The unit shot at, or the defender of the assault."""

    dv: Dv | None = Field(default=None, description="Required for a shot or a suppression fire.")
    defence_bonus: DefenceBonus = 0
    cv: Cv | None = Field(
        default=None, description="Assaults (required): its CV against the attacker's class."
    )
    assault_bonus: AssaultBonus = 0
    has_assault: bool = Field(
        default=False, description="Assaults: it rolls 2 dice and keeps the best instead of 1."
    )
    bonuses: Bonuses = 0
    suppressed: Suppressed = 0
    penalties: Penalties = 0
    damage_set: (
        conlist(DamageMarkerName | BlackReachDamageFace, min_length=6, max_length=6) | None  # type: ignore[valid-type]
    ) = Field(
        default=None,
        description="Shots at a heavy vehicle: the marker of each location result 1 to 6 (as "
        "a Damage set of the forces file); the analysis adds each marker's exact odds "
        "(damage_markers) and a resolution rolls the location die after a step.",
    )


class BlackReachSituation(StrictRequest):
    long_range: bool = Field(
        default=False, description="Shots beyond 7 squares: -2 on the final result."
    )


class BlackReachCombatRequest(StrictRequest):
    """One shot, one suppression fire or one assault of Heroes of Black Reach."""

    kind: Literal["shot", "suppression_fire", "assault"]
    attacker: BlackReachAttacker
    target: BlackReachTarget
    situation: BlackReachSituation | None = None

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "kind": "shot",
                    "attacker": {
                        "cv": 4,
                        "bonuses": 1,
                        "moving_penalty": 0,
                        "dice": 1,
                        "suppressed": 0,
                        "penalties": 0,
                        "assault_bonus": 0,
                        "support": 0,
                    },
                    "target": {
                        "dv": 6,
                        "defence_bonus": 0,
                        "cv": 3,
                        "assault_bonus": 0,
                        "has_assault": False,
                        "bonuses": 0,
                        "suppressed": 0,
                        "penalties": 0,
                    },
                    "situation": {"long_range": False},
                },
                {
                    "kind": "assault",
                    "attacker": {"cv": 3, "assault_bonus": 1, "support": 1},
                    "target": {"cv": 3, "has_assault": True, "assault_bonus": 1},
                },
            ]
        }
    )


LIMITS = {f"{name} (from {lo})": hi for name, (lo, hi) in r.BOUNDS.items()}
LIMITS_NOTE = (
    "An analysis enumerates at most 6 x 6 dice faces; a resolution rolls at most 4 dice. The "
    "answer's `outcomes` lists `miss`/`step`/`coup_double`, `suppressed_0`... or "
    "`attacker_wins`/`tie`/`defender_wins` with exact fractions. Rulings: "
    "/rulings/black-reach."
)
