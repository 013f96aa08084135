"""The 10th-edition combat request (DESIGN.md, "The 10th-edition combat contract in full").

The model mirrors exactly what the engine's parser accepts
(:func:`app.engine.wh40k10e.profiles.request_from_dict`), with the engine's own bounds, so
OpenAPI documents the body and FastAPI refuses a malformed one before the engine runs. The
engine still checks the rules-level constraints (abilities, Torrent without skill, totals).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, ConfigDict, Field
from pydantic_core import PydanticCustomError

from app.combat.schemas import DiceText, StrictRequest
from app.engine.wh40k10e import exact
from app.engine.wh40k10e import profiles as p
from app.engine.wh40k10e.abilities import MAX_ABILITY_TEXT, UnknownAbility, parse_ability

SYSTEM_ID = "wh40k-10e"
MAX_ABILITIES = 12

Name = Annotated[str, Field(max_length=p.MAX_NAME)]
Keyword = Annotated[str, Field(min_length=1, max_length=p.MAX_NAME)]
Keywords = Annotated[
    list[Keyword] | None,
    Field(max_length=p.MAX_KEYWORDS, description="Keywords such as INFANTRY, VEHICLE..."),
]
Save = Annotated[int, Field(ge=2, le=7, description="The number before '+' (7: no save).")]
OptionalSave = Annotated[int, Field(ge=2, le=6)] | None
Modifier = Annotated[int, Field(ge=-p.MAX_MODIFIER, le=p.MAX_MODIFIER)]
Reroll = Literal["none", "ones", "failed", "non_critical"]


def _known_ability(text: str) -> str:
    """A misspelt ability is named with the other bad fields, not in a second round trip."""
    try:
        parse_ability(text)
    except UnknownAbility as exc:
        # the engine's message rides along (not a str: never in the problem document) for the
        # page to show it in the reader's language (service.validation_errors)
        raise PydanticCustomError(
            "unknown_ability",
            str(exc.message),
            {"suggestion": exc.suggestion, "template": exc.templates[0]},
        ) from None
    return text


class Wh40k10eWeapon(StrictRequest):
    """A weapon profile."""

    name: Name = "weapon"
    kind: Literal["ranged", "melee"]
    attacks: DiceText
    skill: Annotated[int, Field(ge=2, le=6)] | None = Field(
        description="BS/WS: the number before '+'; null only for a Torrent weapon."
    )
    strength: Annotated[int, Field(ge=1, le=p.MAX_STRENGTH)]
    ap: Annotated[int, Field(ge=-6, le=0)] = 0
    damage: DiceText
    abilities: list[
        Annotated[str, Field(max_length=MAX_ABILITY_TEXT), AfterValidator(_known_ability)]
    ] = Field(
        default_factory=list,
        max_length=MAX_ABILITIES,
        description='As players write them: "Sustained Hits 1", "Anti-Infantry 4+", '
        '"Twin-linked"... (case-insensitive, BattleScribe spellings accepted).',
        examples=[["Rapid Fire 1", "Lethal Hits"]],
    )
    range: Annotated[int, Field(ge=1, le=120)] | None = Field(
        default=None, description="Range in inches (informational)."
    )


class Wh40k10eAttackEntry(StrictRequest):
    models: Annotated[int, Field(ge=1, le=p.MAX_MODELS_PER_ENTRY)] = Field(
        description="How many models attack with this weapon."
    )
    weapon: Wh40k10eWeapon


class Wh40k10eTargetGroup(StrictRequest):
    """Models of the target with their own profile (a sergeant, an attached CHARACTER)."""

    name: Annotated[str, Field(min_length=1, max_length=p.MAX_NAME)]
    models: Annotated[int, Field(ge=1, le=p.MAX_GROUP_MODELS)]
    wounds: Annotated[int, Field(ge=1, le=p.MAX_WOUNDS)]
    save: Save
    invulnerable_save: OptionalSave = None
    feel_no_pain: OptionalSave = None
    keywords: Keywords = Field(default_factory=list)


class Wh40k10eTarget(StrictRequest):
    """The target unit; its models are allocated first, then the groups in order (CHARACTER
    groups last)."""

    models: Annotated[int, Field(ge=1, le=p.MAX_TARGET_MODELS)]
    toughness: Annotated[int, Field(ge=1, le=p.MAX_TOUGHNESS)]
    save: Save
    wounds: Annotated[int, Field(ge=1, le=p.MAX_WOUNDS)] = Field(
        description=f"Per model; the whole unit has at most {p.MAX_TOTAL_WOUNDS} wounds."
    )
    invulnerable_save: OptionalSave = None
    feel_no_pain: OptionalSave = None
    keywords: Keywords = Field(default_factory=list)
    groups: list[Wh40k10eTargetGroup] | None = Field(default_factory=list, max_length=p.MAX_GROUPS)


class Wh40k10eSituation(StrictRequest):
    """The moment of the attack; every field is optional (nothing applies by default)."""

    half_range: bool = False
    remained_stationary: bool = False
    charged: bool = False
    cover: bool = Field(default=False, description="The target has the Benefit of Cover.")
    target_not_visible: bool = Field(
        default=False, description="No target model is visible (Indirect Fire only)."
    )
    stealth: bool = False
    hit_modifier: Modifier = 0
    wound_modifier: Modifier = 0
    save_modifier: Modifier = 0
    damage_modifier: Modifier = 0
    damage_reduction: Annotated[int, Field(ge=0, le=p.MAX_MODIFIER)] = 0
    reroll_hits: Reroll = "none"
    reroll_wounds: Reroll = "none"
    reroll_saves: Literal["none", "ones", "failed"] = Field(
        default="none",
        description="Saving throws re-rolled: unmodified 1s, or failed saves.",
    )
    twin_linked_reroll: Literal["failed", "non_critical"] = Field(
        default="failed",
        description="What Twin-linked re-rolls: failed wound rolls, or every non-critical one.",
    )
    overwatch: bool = Field(default=False, description="Fire Overwatch: hits on unmodified 6s.")
    go_to_ground: bool = False
    smokescreen: bool = False
    big_guns_never_tire: bool = False


class Wh40k10eCombatRequest(StrictRequest):
    """Weapons resolved in order against one target unit, in one situation."""

    attacks: list[Wh40k10eAttackEntry] = Field(min_length=1, max_length=p.MAX_ATTACK_ENTRIES)
    target: Wh40k10eTarget
    situation: Wh40k10eSituation | None = Field(default_factory=Wh40k10eSituation)

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "attacks": [
                        {
                            "models": 10,
                            "weapon": {
                                "name": "Bolt rifle",
                                "kind": "ranged",
                                "attacks": "2",
                                "skill": 3,
                                "strength": 4,
                                "ap": -1,
                                "damage": "1",
                                "abilities": ["Heavy", "Assault"],
                            },
                        }
                    ],
                    "target": {
                        "models": 5,
                        "toughness": 4,
                        "save": 3,
                        "wounds": 2,
                        "invulnerable_save": None,
                        "feel_no_pain": None,
                        "keywords": ["INFANTRY"],
                    },
                    "situation": {"remained_stationary": True},
                }
            ]
        }
    )


LIMITS = {
    "attack entries (weapons)": p.MAX_ATTACK_ENTRIES,
    "models per attack entry": p.MAX_MODELS_PER_ENTRY,
    "target models (main body)": p.MAX_TARGET_MODELS,
    "target model groups": p.MAX_GROUPS,
    "models per group": p.MAX_GROUP_MODELS,
    "wounds per model": p.MAX_WOUNDS,
    "wounds of the whole target unit": p.MAX_TOTAL_WOUNDS,
    "abilities per weapon": MAX_ABILITIES,
    "attacks one entry can make (models x most A, with Blast / Rapid Fire)": (
        exact.MAX_ATTACKS_PER_ENTRY
    ),
    "hits one entry can score (with Sustained Hits)": exact.MAX_HITS_PER_ENTRY,
    "attacks in all": exact.MAX_TOTAL_ATTACKS,
    "hits in all": exact.MAX_TOTAL_HITS,
    "keywords": p.MAX_KEYWORDS,
}
LIMITS_NOTE = (
    "Within these bounds the engine also refuses, with a 422 naming `attacks`, an activation "
    "whose exact analysis would exceed its work budget (thousands of random attacks into "
    "dozens of multi-wound models): such a request could not be answered in under a second. "
    f"It refuses the same way an activation whose exact probabilities would be fractions of "
    f"more than {exact.MAX_EXACT_DIGITS:,} digits (thousands of dice in one attack)."
)
