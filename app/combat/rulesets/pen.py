"""The PEN combat request (DESIGN.md, "The PEN combat contract").

The model mirrors exactly what the engine's parser accepts
(:func:`app.engine.pen.requests.request_from_dict`), with the engine's bounds; names (weapon
types, properties, unit and vehicle types, facings) stay strings: the engine resolves them in
French or English and suggests the closest known one. A target with ``armour`` is a vehicle
(its own fields), otherwise a unit; the engine refuses a field of the other kind.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from app.combat.schemas import StrictRequest
from app.engine.pen import profiles as p
from app.engine.pen import requests as r

SYSTEM_ID = "pen"

Characteristic = Annotated[int, Field(ge=1, le=10)] | None
Save = Annotated[int, Field(ge=1, le=6, description="The number before '+' (1: better than 2+).")]
Name = Annotated[str, Field(max_length=80)]
Names = Annotated[list[Name] | None, Field(max_length=r.MAX_NAMES)]
Models = Annotated[int, Field(ge=1, le=p.MAX_MODELS)]


class PenWeapon(StrictRequest):
    """A ranged or melee weapon (§2.5-§2.7)."""

    name: Name | None = None
    kind: Annotated[str, Field(max_length=20)] | None = Field(
        default=None, description='"ranged" (default) or "melee" (French accepted).'
    )
    type: Name | None = Field(
        default=None,
        description='Ranged: "assault 2", "rapid fire", "heavy 1 blast", "salvo 2/4", "pistol",'
        ' "grenade", "template", "large blast", "barrage"... (French accepted). Melee: omitted, '
        '"melee", or a close-combat weapon of §2.7 ("power fist", "gantelet energetique"...).',
        examples=["rapid fire"],
    )
    shots: Annotated[int, Field(ge=1, le=p.MAX_SHOTS)] | None = Field(
        default=None, description="Shots per model (or the N of the type)."
    )
    salvo_moved: Annotated[int, Field(ge=1, le=p.MAX_SHOTS)] | None = None
    strength: Characteristic = None
    ap: Annotated[int, Field(ge=1, le=6)] | None = Field(default=None, description='null for "-"')
    template: Name | None = None
    properties: Names = Field(
        default=None, description="PenWeapon properties of §2.9, French or English."
    )
    strength_multiplier: Annotated[int, Field(ge=1, le=2)] | None = None
    initiative: Characteristic = None
    wounds_on: Annotated[int, Field(ge=2, le=6)] | None = None
    strength_vs_vehicles: Characteristic = None
    single_attack: bool | None = None


class PenUnit(StrictRequest):
    """A squad of identical non-vehicle models: the attacker, or a target without armour."""

    models: Models | None = None
    ws: Characteristic = None
    bs: Characteristic = None
    strength: Characteristic = None
    toughness: Characteristic = None
    wounds: Annotated[int, Field(ge=1, le=10)] | None = None
    initiative: Characteristic = None
    attacks: Annotated[int, Field(ge=0, le=10)] | None = None
    leadership: Characteristic = None
    save: Save | None = None
    invulnerable_save: Save | None = None
    cover_save: Annotated[int, Field(ge=2, le=6)] | None = None
    feel_no_pain: bool | None = Field(
        default=None, description="PEN Feel No Pain has no value (6 / 5+ / 4+ by S vs T)."
    )
    unit_type: Name | None = None
    rules: Names = Field(default=None, description="Universal special rules, French or English.")
    weapon: PenWeapon | None = Field(
        default=None, description="The melee weapon it strikes back with (combat result)."
    )
    two_weapons: bool | None = None


class PenArmour(StrictRequest):
    front: Annotated[int, Field(ge=1, le=14)]
    side: Annotated[int, Field(ge=1, le=14)]
    rear: Annotated[int, Field(ge=1, le=14)]


class PenTarget(PenUnit):
    """A unit target (the fields of a unit), or a vehicle when ``armour`` is given (then only
    the vehicle fields: ``armour``, ``facing``, ``hull_points``, ``types``, ``ws``,
    ``weapons``, ``invulnerable_save``, ``cover_save``, ``reinforced_armour``, ``rules``,
    ``damage_bonus``, ``hull_points_lost``, ``weapons_damaged``, ``reduced_mobility``,
    ``immobilised``, ``results_this_turn``, ``models``)."""

    armour: PenArmour | None = None
    facing: Annotated[str, Field(max_length=20)] | None = Field(
        default=None, description='"front", "side" or "rear" (French accepted).'
    )
    hull_points: Annotated[int, Field(ge=1, le=p.MAX_HULL_POINTS)] | None = None
    types: Names = Field(default=None, description="Vehicle types: tank, walker, skimmer...")
    weapons: Annotated[int, Field(ge=0, le=10)] | None = None
    reinforced_armour: bool | None = None
    damage_bonus: Annotated[int, Field(ge=0, le=20)] | None = None
    hull_points_lost: Annotated[int, Field(ge=0, le=p.MAX_HULL_POINTS)] | None = None
    weapons_damaged: bool | None = None
    reduced_mobility: bool | None = None
    immobilised: bool | None = None
    results_this_turn: Annotated[list[Name] | None, Field(max_length=p.MAX_RESULTS_THIS_TURN)] = (
        Field(
            default=None,
            description="Vehicles: damage results it already suffered earlier this turn, by the "
            'row its die read ("shaken", "secoué", "weapons damaged"...): a repeated result moves '
            "one row down per earlier one.",
        )
    )


class PenSituation(StrictRequest):
    """The moment of the attack: the BS modifiers of §5.1 and the rest, all optional."""

    half_range: bool | None = None
    stationary: bool | None = None
    target_moved: Annotated[int, Field(ge=0, le=100)] | None = Field(
        default=None, description="Inches the target moved (BS modifier)."
    )
    target_invisible: bool | None = None
    target_shrouded: bool | None = None
    target_stealthy: bool | None = None
    target_aircraft: bool | None = None
    target_locked_in_combat: bool | None = Field(
        default=None, description="Both of the next two (kept for older requests)."
    )
    target_in_melee: bool | None = Field(
        default=None, description="The target is locked in combat: no range or speed modifiers."
    )
    into_melee_malus: bool | None = Field(
        default=None, description="-1 BS: the target is not twice the friendly squads engaged."
    )
    defender_charged: bool | None = Field(
        default=None, description="The charged squad strikes back with the charge bonus."
    )
    target_gone_to_ground: bool | None = None
    target_giant: bool | None = None
    flying_mc_rapid_move: bool | None = None
    snap_fire: bool | None = None
    indirect: bool | None = None
    blinded: bool | None = None
    terrified: bool | None = None
    night: bool | None = None
    range_inches: Annotated[int, Field(ge=0, le=240)] | None = None
    target_lit: bool | None = None
    target_hidden: bool | None = None
    target_visible_50: bool | None = None
    target_visible_75: bool | None = None
    models_under_template: Annotated[int, Field(ge=1, le=p.MAX_TEMPLATE_HITS)] | None = None
    twin_linked: Annotated[str, Field(max_length=20)] | None = Field(
        default=None, description='"double_shots" (default) or "double_hits".'
    )
    charged: bool | None = None
    target_in_cover: bool | None = None
    offensive_grenades: bool | None = None
    defensive_grenades: bool | None = None
    target_already_locked: bool | None = None
    furious_charge_initiative: bool | None = None
    smash: bool | None = None
    engaged_enemies: Annotated[int, Field(ge=1, le=p.MAX_MODELS)] | None = None
    announced_location: Annotated[str, Field(max_length=20)] | None = Field(
        default=None, description='Vehicles: "hull", "weapons" or "mobility" (French accepted).'
    )
    blast_centre_on_vehicle: bool | None = None
    target_rapid_move: bool | None = None


class PenCombatRequest(StrictRequest):
    """One PEN attack: the attacking squad, its weapon, the target, the situation."""

    attacker: PenUnit
    weapon: PenWeapon
    target: PenTarget
    situation: PenSituation | None = None

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "attacker": {
                        "models": 10,
                        "ws": 4,
                        "bs": 4,
                        "strength": 4,
                        "attacks": 1,
                        "initiative": 4,
                    },
                    "weapon": {
                        "name": "Bolter",
                        "kind": "ranged",
                        "type": "rapid fire",
                        "shots": 1,
                        "strength": 4,
                        "ap": 5,
                        "properties": [],
                    },
                    "target": {
                        "models": 10,
                        "ws": 4,
                        "toughness": 4,
                        "wounds": 1,
                        "save": 4,
                        "invulnerable_save": None,
                        "cover_save": None,
                        "feel_no_pain": None,
                    },
                    "situation": {"half_range": False, "stationary": False, "target_moved": 0},
                },
                {
                    "attacker": {"models": 1, "bs": 4},
                    "weapon": {"name": "Lascannon", "type": "heavy 1", "strength": 9, "ap": 2},
                    "target": {
                        "armour": {"front": 14, "side": 13, "rear": 10},
                        "facing": "side",
                        "hull_points": 3,
                        "types": ["tank"],
                    },
                },
            ]
        }
    )


LIMITS = {
    "models per unit": p.MAX_MODELS,
    "shots per model": p.MAX_SHOTS,
    "models under a template": p.MAX_TEMPLATE_HITS,
    "hull points": p.MAX_HULL_POINTS,
    "names per list (properties, rules, types)": r.MAX_NAMES,
}
LIMITS_NOTE = (
    "A vehicle target is one vehicle (split the shots between the vehicles of a squad before "
    "rolling), and a monstrous creature target is one model."
)
