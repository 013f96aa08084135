"""Typed PEN profiles: units, vehicles, weapons and the situation of one attack.

Field names follow the PEN combat contract of ``DESIGN.md``; every value is checked by
``validate()``, which raises :class:`~app.engine.errors.ProfileError` naming the field.
Characteristics are 1..10 and armour 1..14 [L123]; saves are written as the number before "+"
(2..6; 1 for a save better than 2+, brought back to "2+ re 4+" [L1412]).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from app.engine.errors import N_, ProfileError
from app.engine.pen.names import Rule, RuleRef, normalise
from app.engine.pen.tables import DamageResult, Location

__all__ = [
    "MAX_MODELS",
    "MAX_SHOTS",
    "Armour",
    "AttackRequest",
    "Facing",
    "Situation",
    "Template",
    "TwinLinkedMode",
    "Unit",
    "UnitType",
    "Vehicle",
    "VehicleType",
    "Weapon",
    "WeaponKind",
    "WeaponType",
]

MAX_MODELS = 50  # bounds keep every request cheap (CONVENTIONS "every input has bounds")
MAX_SHOTS = 10  # per model
MAX_TEMPLATE_HITS = 30
MAX_HULL_POINTS = 10
MAX_RESULTS_THIS_TURN = 20


class WeaponKind(StrEnum):
    RANGED = "ranged"
    MELEE = "melee"


class WeaponType(StrEnum):
    """Weapon types of §2.6 [L486-L513] (and melee)."""

    ASSAULT = "assault"  # Assaut N [L488]
    PISTOL = "pistol"  # Pistolet [L490]
    RAPID_FIRE = "rapid fire"  # Tir rapide [L492]
    HEAVY = "heavy"  # Lourde N [L494]
    ARTILLERY = "artillery"  # Artillerie [L496]
    GRENADE = "grenade"  # Grenades [L498]
    SALVO = "salvo"  # Salve X/Y [L507]
    SWEEP = "sweep"  # Balayage X [L509]
    MELEE = "melee"


class Template(StrEnum):
    """Templates of [L529-L542]."""

    BLAST = "blast"  # Explosion, 3 ps
    LARGE_BLAST = "large blast"  # Grande explosion, 5 ps
    FLAME = "template"  # Souffle: hits on 2+, anti-couvert


WEAPON_TYPE_ALIASES: dict[str, WeaponType] = {
    normalise(k): v
    for k, v in {
        "assault": WeaponType.ASSAULT,
        "assaut": WeaponType.ASSAULT,
        "pistol": WeaponType.PISTOL,
        "pistolet": WeaponType.PISTOL,
        "rapid fire": WeaponType.RAPID_FIRE,
        "tir rapide": WeaponType.RAPID_FIRE,
        "heavy": WeaponType.HEAVY,
        "lourde": WeaponType.HEAVY,
        "lourd": WeaponType.HEAVY,
        "artillery": WeaponType.ARTILLERY,
        "artillerie": WeaponType.ARTILLERY,
        "grenade": WeaponType.GRENADE,
        "grenades": WeaponType.GRENADE,
        "salvo": WeaponType.SALVO,
        "salve": WeaponType.SALVO,
        "sweep": WeaponType.SWEEP,
        "balayage": WeaponType.SWEEP,
        "melee": WeaponType.MELEE,
        "close combat": WeaponType.MELEE,
        "corps a corps": WeaponType.MELEE,
        "cac": WeaponType.MELEE,
    }.items()
}
TEMPLATE_ALIASES: dict[str, Template] = {
    normalise(k): v
    for k, v in {
        "blast": Template.BLAST,
        "explosion": Template.BLAST,
        "large blast": Template.LARGE_BLAST,
        "grande explosion": Template.LARGE_BLAST,
        "template": Template.FLAME,
        "flame template": Template.FLAME,
        "souffle": Template.FLAME,
        "flamer": Template.FLAME,
    }.items()
}


class UnitType(StrEnum):
    """Non-vehicle unit types of §2.2 [L125-L188]."""

    INFANTRY = "infantry"  # Infanterie [L129]
    CAVALRY = "cavalry"  # Cavalerie [L133]
    BEAST = "beast"  # Bête [L138]
    JET_PACK = "jet pack"  # Unité à répulseurs / Jet-pack [L143]
    JUMP = "jump"  # Unité volante / de saut [L148]
    BIKE = "bike"  # Moto [L154]
    JETBIKE = "jetbike"  # Motojet [L161]
    MONSTROUS_CREATURE = "monstrous creature"  # Créature monstrueuse [L168]
    FLYING_MONSTROUS_CREATURE = "flying monstrous creature"  # [L176]
    FIRING_PLATFORM = "firing platform"  # Plateforme de tir [L182]


UNIT_TYPE_ALIASES: dict[str, UnitType] = {
    normalise(k): v
    for k, v in {
        "infantry": UnitType.INFANTRY,
        "infanterie": UnitType.INFANTRY,
        "cavalry": UnitType.CAVALRY,
        "cavalerie": UnitType.CAVALRY,
        "beast": UnitType.BEAST,
        "bete": UnitType.BEAST,
        "jet pack": UnitType.JET_PACK,
        "jetpack": UnitType.JET_PACK,
        "unite a repulseurs": UnitType.JET_PACK,
        "repulseurs": UnitType.JET_PACK,
        "jump": UnitType.JUMP,
        "jump infantry": UnitType.JUMP,
        "flying": UnitType.JUMP,
        "unite volante": UnitType.JUMP,
        "unite de saut": UnitType.JUMP,
        "bike": UnitType.BIKE,
        "moto": UnitType.BIKE,
        "jetbike": UnitType.JETBIKE,
        "motojet": UnitType.JETBIKE,
        "monstrous creature": UnitType.MONSTROUS_CREATURE,
        "mc": UnitType.MONSTROUS_CREATURE,
        "creature monstrueuse": UnitType.MONSTROUS_CREATURE,
        "flying monstrous creature": UnitType.FLYING_MONSTROUS_CREATURE,
        "creature monstrueuse volante": UnitType.FLYING_MONSTROUS_CREATURE,
        "fmc": UnitType.FLYING_MONSTROUS_CREATURE,
        "firing platform": UnitType.FIRING_PLATFORM,
        "plateforme de tir": UnitType.FIRING_PLATFORM,
        "weapon team": UnitType.FIRING_PLATFORM,
    }.items()
}

# Rules each unit type grants [L136], [L141], [L146], [L151], [L158], [L165], [L171], [L180]
UNIT_TYPE_RULES: dict[UnitType, frozenset[Rule]] = {
    UnitType.INFANTRY: frozenset(),
    UnitType.CAVALRY: frozenset({Rule.FLEET}),
    UnitType.BEAST: frozenset({Rule.FLEET, Rule.MOVE_THROUGH_COVER}),
    UnitType.JET_PACK: frozenset(
        {Rule.DEEP_STRIKE, Rule.SKIMMER, Rule.RELENTLESS, Rule.SHOOT_ON_THE_MOVE}
    ),
    UnitType.JUMP: frozenset({Rule.DEEP_STRIKE, Rule.FLEET, Rule.SKIMMER, Rule.FLYBY_ATTACK}),
    UnitType.BIKE: frozenset({Rule.RELENTLESS, Rule.FLEET, Rule.FLYBY_ATTACK}),
    UnitType.JETBIKE: frozenset({Rule.SKIMMER, Rule.RELENTLESS, Rule.FLEET, Rule.FLYBY_ATTACK}),
    UnitType.MONSTROUS_CREATURE: frozenset(
        {Rule.MOVE_THROUGH_COVER, Rule.RELENTLESS, Rule.TERRIFYING, Rule.SMASH}
    ),
    UnitType.FLYING_MONSTROUS_CREATURE: frozenset(
        {
            Rule.MOVE_THROUGH_COVER,
            Rule.RELENTLESS,
            Rule.TERRIFYING,
            Rule.SMASH,
            Rule.DEEP_STRIKE,
            Rule.FLEET,
            Rule.SKIMMER,
            Rule.FLYBY_ATTACK,
            Rule.METEOR_ATTACK,
        }
    ),
    UnitType.FIRING_PLATFORM: frozenset(),
}


class VehicleType(StrEnum):
    """Vehicle types of §2.3 [L217-L268]."""

    TANK = "tank"  # [L219]
    OPEN_TOPPED = "open-topped"  # Ouvert [L223]
    SKIMMER = "skimmer"  # Antigrav [L227]
    FAST = "fast"  # Rapide [L231]
    WALKER = "walker"  # Marcheur [L235]
    FLYER = "flyer"  # Volant [L245] (a fast skimmer)
    AIRCRAFT = "aircraft"  # Aéronef [L251] (a supersonic flyer)
    TRANSPORT = "transport"  # [L270]


VEHICLE_TYPE_ALIASES: dict[str, VehicleType] = {
    normalise(k): v
    for k, v in {
        "tank": VehicleType.TANK,
        "char d assaut": VehicleType.TANK,
        "open topped": VehicleType.OPEN_TOPPED,
        "open": VehicleType.OPEN_TOPPED,
        "ouvert": VehicleType.OPEN_TOPPED,
        "transport ouvert": VehicleType.OPEN_TOPPED,
        "skimmer": VehicleType.SKIMMER,
        "antigrav": VehicleType.SKIMMER,
        "fast": VehicleType.FAST,
        "rapide": VehicleType.FAST,
        "walker": VehicleType.WALKER,
        "marcheur": VehicleType.WALKER,
        "flyer": VehicleType.FLYER,
        "volant": VehicleType.FLYER,
        "aircraft": VehicleType.AIRCRAFT,
        "aeronef": VehicleType.AIRCRAFT,
        "transport": VehicleType.TRANSPORT,
    }.items()
}


DAMAGE_RESULT_ALIASES: dict[str, DamageResult] = {
    normalise(k): v
    for k, v in {
        **{r.value.replace("_", " "): r for r in DamageResult},
        "aucun effet": DamageResult.NO_EFFECT,
        "secoue": DamageResult.SHAKEN,
        "armes endommagees": DamageResult.WEAPONS_DAMAGED,
        "arme detruite": DamageResult.WEAPON_DESTROYED,
        "arme explosee": DamageResult.WEAPON_EXPLODES,
        "pilote sonne": DamageResult.DRIVER_STUNNED,
        "stunned": DamageResult.DRIVER_STUNNED,
        "mobilite reduite": DamageResult.REDUCED_MOBILITY,
        "immobilise": DamageResult.IMMOBILISED,
        "immobilized": DamageResult.IMMOBILISED,
        "endommage": DamageResult.DAMAGED,
        "tres endommage": DamageResult.HEAVILY_DAMAGED,
        "crash violent": DamageResult.VIOLENT_CRASH,
        "detruit": DamageResult.DESTROYED,
        "explose": DamageResult.EXPLODED,
    }.items()
}
# Results that do not move one row down when repeated in a turn [L1460] (markers instead), and
# the ones after which the vehicle is gone.
NOT_REPEATED = frozenset(
    {DamageResult.NO_EFFECT, DamageResult.DAMAGED, DamageResult.HEAVILY_DAMAGED}
)
FINAL_RESULTS = frozenset({DamageResult.DESTROYED, DamageResult.EXPLODED})


class Facing(StrEnum):
    FRONT = "front"
    SIDE = "side"
    REAR = "rear"


FACING_ALIASES: dict[str, Facing] = {
    normalise(k): v
    for k, v in {
        "front": Facing.FRONT,
        "avant": Facing.FRONT,
        "side": Facing.SIDE,
        "lateral": Facing.SIDE,
        "flanc": Facing.SIDE,
        "rear": Facing.REAR,
        "arriere": Facing.REAR,
    }.items()
}


class TwinLinkedMode(StrEnum):
    """Jumelée [L671]: double the shots, or each hit counts double (simultaneous fire)."""

    DOUBLE_SHOTS = "double_shots"
    DOUBLE_HITS = "double_hits"


def _check_range(
    problems: list[ProfileError],
    name: str,
    value: int | None,
    lo: int,
    hi: int,
    *,
    optional: bool = True,
) -> None:
    if value is None:
        if not optional:
            problems.append(ProfileError(name, N_("is required")))
        return
    if isinstance(value, bool) or not isinstance(value, int):
        problems.append(
            ProfileError(name, N_("must be an integer, got %(value)s"), value=repr(value))
        )
    elif not lo <= value <= hi:
        problems.append(
            ProfileError(
                name, N_("must be %(lo)s..%(hi)s, got %(value)s"), lo=lo, hi=hi, value=value
            )
        )


def _raise(problems: Iterable[ProfileError]) -> None:
    found = list(problems)
    if found:
        raise ProfileError.collect(found)


@dataclass(frozen=True, slots=True)
class Weapon:
    """A ranged or melee weapon profile (§2.5-§2.7).

    ``shots``: N of "Assaut N" / "Lourde N", the shots at max range of "Tir rapide" (doubled
    at half range), Y of "Salve X/Y"; ``salvo_moved``: X of "Salve X/Y".
    ``strength``: None is "F -" for a ranged weapon, "the user's strength" for a melee one;
    ``strength_multiplier``: 2 for power fists and Dreadnought weapons (max 10) [L609], [L615].
    ``ap``: 1..6, None for "PA -".
    """

    name: str = "weapon"
    kind: WeaponKind = WeaponKind.RANGED
    type: WeaponType = WeaponType.ASSAULT
    shots: int = 1
    salvo_moved: int | None = None
    strength: int | None = None
    ap: int | None = None
    template: Template | None = None
    properties: tuple[RuleRef, ...] = ()
    strength_multiplier: int = 1
    initiative: int | None = None  # strikes at this I (power fist: 1 [L609])
    wounds_on: int | None = None  # always wounds on X+ (Lame sorcière 2+ [L601])
    strength_vs_vehicles: int | None = None  # Lame sorcière S9 against vehicles [L601]
    single_attack: bool = False  # anti-vehicle grenades / bombs: one attack [L1196-L1197]

    def has(self, rule: Rule) -> bool:
        return any(p.rule is rule for p in self.properties)

    def value_of(self, rule: Rule) -> int | None:
        for p in self.properties:
            if p.rule is rule:
                return p.value
        return None

    def validate(self) -> None:
        problems: list[ProfileError] = []
        melee = self.kind is WeaponKind.MELEE
        if melee != (self.type is WeaponType.MELEE):
            problems.append(
                ProfileError(
                    "type", N_("a melee weapon has type 'melee' and a ranged one does not")
                )
            )
        _check_range(problems, "shots", self.shots, 1, MAX_SHOTS, optional=False)
        _check_range(problems, "salvo_moved", self.salvo_moved, 1, MAX_SHOTS)
        if self.type is WeaponType.SALVO and self.salvo_moved is None:
            problems.append(ProfileError("type", N_("a salvo weapon needs X/Y, e.g. 'salvo 2/4'")))
        _check_range(problems, "strength", self.strength, 1, 10)
        _check_range(problems, "ap", self.ap, 1, 6)
        _check_range(problems, "strength_multiplier", self.strength_multiplier, 1, 2)
        _check_range(problems, "initiative", self.initiative, 1, 10)
        _check_range(problems, "wounds_on", self.wounds_on, 2, 6)
        _check_range(problems, "strength_vs_vehicles", self.strength_vs_vehicles, 1, 10)
        if melee and self.template is not None:
            problems.append(
                ProfileError("template", N_("templates cannot be used in melee [L1219]"))
            )
        for i, prop in enumerate(self.properties):
            if prop.info.scope.value == "unit" and not prop.info.changes_attack_dice:
                problems.append(
                    ProfileError(
                        f"properties[{i}]", N_("%(name)s is a unit rule"), name=prop.info.french
                    )
                )
        _raise(problems)


@dataclass(frozen=True, slots=True)
class Unit:
    """A squad of identical non-vehicle models (§2.1): attacker, target, or both in melee."""

    models: int = 1
    ws: int | None = None
    bs: int | None = None
    strength: int | None = None
    toughness: int | None = None
    wounds: int = 1
    initiative: int | None = None
    attacks: int = 1
    leadership: int | None = None
    save: int | None = None
    invulnerable_save: int | None = None
    cover_save: int | None = None
    unit_type: UnitType = UnitType.INFANTRY
    rules: tuple[RuleRef, ...] = ()
    weapon: Weapon | None = None  # the melee weapon it strikes with (melee combat result)
    two_weapons: bool = False  # +1 A for a second close-combat weapon or pistol [L584], [L593]

    def has(self, rule: Rule) -> bool:
        if rule in UNIT_TYPE_RULES[self.unit_type]:
            return True
        if rule is Rule.FEARLESS and self.has_own(Rule.DAEMON):
            return True  # Démon: sans peur [L388]
        if rule is Rule.VULNERABLE_TO_TEMPLATES and self.has_own(Rule.SWARM):
            return True  # Essaim [L402]
        if rule is Rule.RELENTLESS and self.has_own(Rule.SLOW_AND_PURPOSEFUL):
            return True  # [L432]
        return self.has_own(rule)

    def has_own(self, rule: Rule) -> bool:
        return any(r.rule is rule for r in self.rules)

    def value_of(self, rule: Rule) -> int | None:
        for r in self.rules:
            if r.rule is rule:
                return r.value
        return None

    @property
    def effective_toughness(self) -> int | None:
        """T with the bike / jetbike +1 [L157], [L164], capped at 10 [L123]."""
        if self.toughness is None:
            return None
        bonus = 1 if self.unit_type in (UnitType.BIKE, UnitType.JETBIKE) else 0
        return min(10, self.toughness + bonus)

    @property
    def effective_invulnerable(self) -> int | None:
        """The invulnerable save, with Démon's 5+ [L388] when it is better."""
        inv = self.invulnerable_save
        if self.has_own(Rule.DAEMON):
            inv = 5 if inv is None else min(inv, 5)
        return inv

    @property
    def is_monstrous(self) -> bool:
        return self.unit_type in (UnitType.MONSTROUS_CREATURE, UnitType.FLYING_MONSTROUS_CREATURE)

    def validate(self) -> None:
        problems: list[ProfileError] = []
        _check_range(problems, "models", self.models, 1, MAX_MODELS, optional=False)
        for name in ("ws", "bs", "strength", "toughness", "initiative", "leadership"):
            _check_range(problems, name, getattr(self, name), 1, 10)
        _check_range(problems, "wounds", self.wounds, 1, 10, optional=False)
        _check_range(problems, "attacks", self.attacks, 0, 10, optional=False)
        _check_range(problems, "save", self.save, 1, 6)
        _check_range(problems, "invulnerable_save", self.invulnerable_save, 1, 6)
        _check_range(problems, "cover_save", self.cover_save, 2, 6)
        if self.weapon is not None:
            try:
                self.weapon.validate()
            except ProfileError as err:
                problems.append(err.with_prefix("weapon"))
        _raise(problems)


@dataclass(frozen=True, slots=True)
class Armour:
    front: int
    side: int
    rear: int

    def value(self, facing: Facing) -> int:
        return {Facing.FRONT: self.front, Facing.SIDE: self.side, Facing.REAR: self.rear}[facing]


@dataclass(frozen=True, slots=True)
class Vehicle:
    """One vehicle (§2.3): armour per facing, hull points, types, and damage already taken.

    A vehicle squad splits its shots between members before rolling [L1291]: analyse one
    vehicle at a time. ``damage_bonus`` is the sum of its Endommagé (+1) / Très endommagé (+2)
    markers [L1450-L1451]; ``hull_points`` None disables hull-point destruction (note §8.48).
    ``results_this_turn``: the damage results it already suffered earlier in this turn, each
    named by the row its die read (before moving down): a repeated result moves one row down
    per earlier one [L1460] (pen rulings 26).
    """

    armour: Armour
    facing: Facing = Facing.FRONT
    hull_points: int | None = None
    types: frozenset[VehicleType] = frozenset()
    ws: int | None = None
    bs: int | None = None  # its own shooting [L103]; as a target it is not read
    weapons: int = 1
    invulnerable_save: int | None = None
    cover_save: int | None = None
    reinforced_armour: bool = False  # Blindage renforcé [L349]
    rules: tuple[RuleRef, ...] = ()
    damage_bonus: int = 0
    hull_points_lost: int = 0
    weapons_damaged: bool = False
    reduced_mobility: bool = False
    immobilised: bool = False
    models: int = 1
    results_this_turn: tuple[DamageResult, ...] = ()

    def has(self, rule: Rule) -> bool:
        if rule is Rule.SKIMMER and self.types & {
            VehicleType.SKIMMER,
            VehicleType.FLYER,
            VehicleType.AIRCRAFT,
        }:
            return True
        return any(r.rule is rule for r in self.rules)

    def is_(self, kind: VehicleType) -> bool:
        if kind is VehicleType.SKIMMER and self.types & {VehicleType.FLYER, VehicleType.AIRCRAFT}:
            return True  # a flyer is a fast skimmer [L247], an aircraft a flyer [L253]
        if kind is VehicleType.FAST and self.types & {VehicleType.FLYER, VehicleType.AIRCRAFT}:
            return True
        if kind is VehicleType.FLYER and VehicleType.AIRCRAFT in self.types:
            return True
        return kind in self.types

    def validate(self) -> None:
        problems: list[ProfileError] = []
        for name in ("front", "side", "rear"):
            _check_range(
                problems, f"armour.{name}", getattr(self.armour, name), 1, 14, optional=False
            )
        _check_range(problems, "hull_points", self.hull_points, 1, MAX_HULL_POINTS)
        _check_range(problems, "ws", self.ws, 1, 10)
        _check_range(problems, "bs", self.bs, 1, 10)
        _check_range(problems, "weapons", self.weapons, 0, 10, optional=False)
        _check_range(problems, "invulnerable_save", self.invulnerable_save, 1, 6)
        _check_range(problems, "cover_save", self.cover_save, 2, 6)
        _check_range(problems, "damage_bonus", self.damage_bonus, 0, 20, optional=False)
        _check_range(
            problems, "hull_points_lost", self.hull_points_lost, 0, MAX_HULL_POINTS, optional=False
        )
        if self.hull_points is not None and 0 < self.hull_points <= self.hull_points_lost:
            problems.append(
                ProfileError("hull_points_lost", N_("the vehicle is already destroyed"))
            )
        for i, result in enumerate(self.results_this_turn):
            if result in NOT_REPEATED:
                problems.append(
                    ProfileError(
                        f"results_this_turn[{i}]",
                        N_(
                            "%(result)s does not move down when repeated [L1460]: give "
                            "Endommagé / Très endommagé as damage_bonus and hull_points_lost"
                        ),
                        result=result.value,
                    )
                )
            elif result in FINAL_RESULTS:
                problems.append(
                    ProfileError(f"results_this_turn[{i}]", N_("the vehicle is already destroyed"))
                )
        if len(self.results_this_turn) > MAX_RESULTS_THIS_TURN:
            problems.append(
                ProfileError(
                    "results_this_turn", N_("at most %(most)s results"), most=MAX_RESULTS_THIS_TURN
                )
            )
        if self.models != 1:
            problems.append(
                ProfileError(
                    "models",
                    N_(
                        "split the shots between the vehicles before rolling [L1291]: "
                        "analyse one vehicle"
                    ),
                )
            )
        _raise(problems)


@dataclass(frozen=True, slots=True)
class Situation:
    """Everything about the moment of the attack (§5.1 BS modifiers, cover, melee, vehicles).

    Every field is optional; the defaults describe a plain shot at full range by day.
    """

    # range and movement [L1333-L1338]
    half_range: bool = False
    stationary: bool = False
    target_moved: int = 0
    # BS modifiers of [L1311-L1324] as named booleans
    target_invisible: bool = False
    target_shrouded: bool = False
    target_stealthy: bool = False
    target_aircraft: bool = False
    # shooting into a melee [L1130-L1134]: ``target_in_melee`` drops the range and speed
    # modifiers [L1329]; ``into_melee_malus`` is the -1 BS when the target is not twice the
    # friendly squads in that combat [L1132]. The older ``target_locked_in_combat`` means both.
    target_locked_in_combat: bool = False
    target_in_melee: bool = False
    into_melee_malus: bool = False
    target_gone_to_ground: bool = False
    target_giant: bool = False
    flying_mc_rapid_move: bool = False
    snap_fire: bool = False
    indirect: bool = False
    blinded: bool = False  # Aveuglant failed: WS and BS 1 [L636]
    terrified: bool = False  # Terrifiant failed: WS and BS halved [L474]
    # night fighting [L946], [L353], [L463]
    night: bool = False
    range_inches: int | None = None
    target_lit: bool = False
    # cover [L1363-L1370], [L1099], [L762]
    target_hidden: bool = False
    target_visible_50: bool = False
    target_visible_75: bool = False
    # templates, twin-linked
    models_under_template: int | None = None
    twin_linked: TwinLinkedMode = TwinLinkedMode.DOUBLE_SHOTS
    # melee [L1183-L1197], [L1234]
    charged: bool = False
    target_in_cover: bool = False
    offensive_grenades: bool = False
    defensive_grenades: bool = False
    target_already_locked: bool = False
    # the charged squad charged too: its strike back has the charge bonus (a mutual assault
    # in one pass of the Dynamics variant, Dyn [L96]); PEN itself never sets it
    defender_charged: bool = False
    furious_charge_initiative: bool = False
    smash: bool = False
    engaged_enemies: int | None = None
    # vehicles [L1420], [L536], [L1465]
    announced_location: Location = Location.HULL
    blast_centre_on_vehicle: bool = True
    target_rapid_move: bool = False

    def validate(self) -> None:
        problems: list[ProfileError] = []
        _check_range(problems, "target_moved", self.target_moved, 0, 100, optional=False)
        _check_range(problems, "range_inches", self.range_inches, 0, 240)
        _check_range(
            problems, "models_under_template", self.models_under_template, 1, MAX_TEMPLATE_HITS
        )
        _check_range(problems, "engaged_enemies", self.engaged_enemies, 1, MAX_MODELS)
        if self.night and self.range_inches is None:
            problems.append(ProfileError("range_inches", N_("night fighting needs the range")))
        _raise(problems)


@dataclass(frozen=True, slots=True)
class AttackRequest:
    """One PEN attack: who attacks, with what, whom, and in which situation."""

    attacker: Unit
    weapon: Weapon
    target: Unit | Vehicle
    situation: Situation = field(default_factory=Situation)

    @property
    def melee(self) -> bool:
        return self.weapon.kind is WeaponKind.MELEE

    @property
    def against_vehicle(self) -> bool:
        return isinstance(self.target, Vehicle)

    def validate(self) -> None:
        problems: list[ProfileError] = []
        for prefix, part in (
            ("attacker", self.attacker),
            ("weapon", self.weapon),
            ("target", self.target),
            ("situation", self.situation),
        ):
            try:
                part.validate()
            except ProfileError as err:
                problems.append(err.with_prefix(prefix))
        if not problems:
            problems.extend(self._cross_checks())
        _raise(problems)

    def _cross_checks(self) -> list[ProfileError]:
        problems: list[ProfileError] = []
        a, w, t = self.attacker, self.weapon, self.target
        if self.melee:
            if a.ws is None:
                problems.append(ProfileError("attacker.ws", N_("a melee attack needs the WS")))
            if w.strength is None and a.strength is None:
                problems.append(
                    ProfileError("attacker.strength", N_("a melee attack needs the strength"))
                )
        else:
            if a.bs is None and w.template is not Template.FLAME:
                problems.append(ProfileError("attacker.bs", N_("a ranged attack needs the BS")))
        if isinstance(t, Unit):
            if t.toughness is None:
                problems.append(ProfileError("target.toughness", N_("is required")))
            if self.melee and t.ws is None:
                problems.append(
                    ProfileError("target.ws", N_("a melee attack needs the target's WS"))
                )
            if t.is_monstrous and t.models > 1:
                problems.append(
                    ProfileError(
                        "target.models",
                        N_(
                            "split the attacks between monstrous creatures before rolling "
                            "[L1291]: analyse one model"
                        ),
                    )
                )
        return problems
