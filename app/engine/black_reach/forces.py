"""Counters, recruitment tiles, options and their state (note §2.2-§2.8, §3.8; seed [L45-L55],
[L607-L647], [L2243-L2255], [L2265-L2709], [L2921-L3046]).

The printed counters and tiles are not in the seed: every value here comes from data (our own
samples in ``data/black_reach/forces.json``). Readings: docs/rulings/black-reach.md.

- :class:`Counter` is a two-sided unit counter: each :class:`Face` has its own DV, MV, CV
  against each target class (``None`` is the printed ``X``), abilities and step-loss symbol;
  a face's values never borrow from the other face [L1126-L1127].
- :func:`apply_step` takes step losses on a counter: Hit Point markers first
  (:func:`~.tables.absorb_steps`), then a flip to the reduced face, destruction on the next
  step; a light vehicle becomes its wreck; a heavy vehicle takes the Damage markers its
  location rolls gave (:class:`~.tables.VehicleDamage`), a Coup Double wrecks it [L607-L699].
- :class:`Tile` (recruitment, support, command, aviation) and :class:`RecruitmentOption`
  (support, equipment, personalisation, psychic power, ordnance) as value objects, the
  latter's payload an :class:`Equipment`, :class:`Ordnance` or :class:`PsychicPower`.
- :class:`Group` tallies a tile's destroyed counters against its Breaking Point and gives its
  VP to the opponent when it breaks (:func:`~.tables.tile_broken`).

Army building and its validator live in :mod:`.armies`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from app.engine.black_reach.board import TerrainElement, UnitClass
from app.engine.black_reach.tables import (
    ArmourColour,
    DamageFace,
    DamageMarker,
    SniperEffect,
    VehicleDamage,
    absorb_steps,
    tile_broken,
)

__all__ = [
    "Ability",
    "AbilityRef",
    "ArmourSave",
    "Counter",
    "CounterState",
    "DamageSet",
    "Equipment",
    "Face",
    "FaceKind",
    "Faction",
    "Group",
    "OptionType",
    "Ordnance",
    "PerilsEffect",
    "PerilsMarker",
    "PoleBonus",
    "PowerEffect",
    "PsychicPower",
    "PsykerKind",
    "RecruitmentOption",
    "Role",
    "Slot",
    "StepLoss",
    "StepResult",
    "Tile",
    "TileKind",
    "Weapon",
    "WeaponSlot",
    "apply_step",
    "fresh_state",
    "weapon_lost",
]


class Faction(StrEnum):
    ULTRAMARINES = "ultramarines"
    ORKS = "orks"


class Role(StrEnum):
    """The border of an infantry counter [L940-L946]."""

    BASIC = "basic"
    HEAVY_WEAPON = "heavy_weapon"
    OFFICER = "officer"


class FaceKind(StrEnum):
    INTACT = "intact"
    REDUCED = "reduced"
    ACTIVE = "active"
    INACTIVE = "inactive"
    AMBUSH = "ambush"
    FLIGHT = "flight"
    WRECK = "wreck"


class StepLoss(StrEnum):
    """The step-loss symbol printed on a face [L607-L615]."""

    FLIP = "flip"  # to the reduced face
    DESTROY = "destroy"


class Ability(StrEnum):
    """The special abilities of §2.3 (ids of note §2.3; param in :class:`AbilityRef`)."""

    STATE_CHANGE = "state_change"
    RAM = "ram"
    FLIGHT_MOVE = "flight_move"
    LIMITED_ARC = "limited_arc"
    TWIN_LINKED = "twin_linked"
    DESTRUCTION = "destruction"
    DOUBLE_SHOT = "double_shot"
    OVERWATCH = "overwatch"
    FLAMER = "flamer"
    OPTICS = "optics"
    PIERCING = "piercing"
    LIMITED_RANGE = "limited_range"
    AMMO_BEARER = "ammo_bearer"
    BURST = "burst"
    SPOTTER = "spotter"
    SNIPER = "sniper"
    SUPPRESSIVE_FIRE = "suppressive_fire"
    DIRECT_FIRE = "direct_fire"
    TERRIFYING_FIRE = "terrifying_fire"
    SHOOT_ON_MOVE = "shoot_on_move"
    INDIRECT_FIRE = "indirect_fire"
    ASSAULT = "assault"
    RANGED_ASSAULT = "ranged_assault"
    CHARGE = "charge"
    DEMOLISHER = "demolisher"
    ASSAULT_PIERCING = "assault_piercing"
    ASSAULT_SUPPRESS = "assault_suppress"
    FRONT_ARMOUR = "front_armour"
    AUSPEX = "auspex"
    AMBUSH = "ambush"
    BODYGUARD = "bodyguard"
    MEKANIAK = "mekaniak"
    GROT_OILER = "grot_oiler"
    NO_WEAK_POINT = "no_weak_point"
    TECHMARINE = "techmarine"
    FRAGILE = "fragile"
    INSPIRATION = "inspiration"
    ORDERS = "orders"
    PERSONAL_ORDER = "personal_order"
    SCOUT = "scout"
    PSYKER = "psyker"
    AVIATION = "aviation"
    UNSTABLE = "unstable"
    LARGE = "large"
    TRANSPORT = "transport"


@dataclass(frozen=True)
class AbilityRef:
    """An ability as printed on a face: its id and the number or letter in its symbol."""

    ability: Ability
    param: int | str | None = None


class WeaponSlot(StrEnum):
    MAIN = "main"
    SECONDARY = "secondary"


@dataclass(frozen=True)
class Weapon:
    """A heavy vehicle's weapon: main (numbered when several) or secondary [L1031-L1038]."""

    slot: WeaponSlot
    cv: Mapping[UnitClass, int | None]
    abilities: tuple[AbilityRef, ...] = ()
    number: int = 1

    @property
    def name(self) -> str:
        """``main_1``, ``secondary_2``: how commands and views name it."""
        return f"{self.slot.value}_{self.number}"

    def ability(self, ability: Ability) -> AbilityRef | None:
        for ref in self.abilities:
            if ref.ability is ability:
                return ref
        return None

    def has(self, ability: Ability) -> bool:
        return self.ability(ability) is not None


_SLOT_MARKER = {"main": DamageMarker.MAIN_WEAPON, "secondary": DamageMarker.SECONDARY_WEAPON}


def weapon_lost(weapons: Sequence[Weapon], weapon: Weapon, damage: VehicleDamage) -> bool:
    """Whether a Damage marker destroyed ``weapon``: a marker of its slot naming its number; a
    vehicle's only weapon is both its main and its secondary weapon, so either marker destroys
    it [L1036-L1038], [L683-L692]."""
    if damage.weapon_hit(_SLOT_MARKER[weapon.slot.value], weapon.number):
        return True
    if len(weapons) == 1:
        return any(damage.weapon_hit(m, weapon.number) for m in _SLOT_MARKER.values())
    return False


@dataclass(frozen=True)
class DamageSet:
    """One of the four sets of Damage markers [L663-L668]: the marker each location result
    1..6 places. The printed sets are not in the seed: sets are data (ours are samples)."""

    id: str
    faces: tuple[DamageFace, ...]  # faces[0] for a result of 1 ... faces[5] for 6

    def face(self, result: int) -> DamageFace:
        return self.faces[result - 1]


@dataclass(frozen=True)
class Face:
    """One side of a counter; its values and abilities are its own [L1126-L1127]."""

    kind: FaceKind
    dv: int
    mv: int | None  # None: the blue arrow "X", never moves [L302-L314]
    cv: Mapping[UnitClass, int | None]  # None: "X", cannot attack that class [L445-L465]
    abilities: tuple[AbilityRef, ...] = ()
    on_step_loss: StepLoss = StepLoss.DESTROY
    weapons: tuple[Weapon, ...] = ()
    # a wreck face's terrain symbols (its squares are the wreck's) [L633-L637], [L896-L905]
    terrain: TerrainElement | None = None

    def cv_against(self, target: UnitClass) -> int | None:
        return self.cv.get(target)

    def ability(self, ability: Ability) -> AbilityRef | None:
        for ref in self.abilities:
            if ref.ability is ability:
                return ref
        return None

    def has(self, ability: Ability) -> bool:
        return self.ability(ability) is not None

    def order_tokens(self) -> int:
        """Numbered tokens the face gives: its Ordre stars and 1 for Ordre Personnel
        [L1926-L1942]."""
        total = 0
        orders = self.ability(Ability.ORDERS)
        if orders is not None:
            total += orders.param if isinstance(orders.param, int) else 1
        if self.has(Ability.PERSONAL_ORDER):
            total += 1
        return total


class PsykerKind(StrEnum):
    LIBRARIAN = "librarian"
    WEIRDBOY = "weirdboy"


@dataclass(frozen=True)
class Counter:
    """A unit counter: its printed faces (the first is the one it deploys on) and the facts
    that do not change with the face (note §2.2)."""

    id: str
    name: str
    faction: Faction
    unit_class: UnitClass
    faces: tuple[Face, ...]
    role: Role = Role.BASIC
    footprint: int = 1
    character: bool = False
    large: bool = False
    hit_points: int = 0
    psyker: PsykerKind | None = None
    psyker_level: int = 0

    def face(self, kind: FaceKind) -> Face | None:
        for f in self.faces:
            if f.kind is kind:
                return f
        return None

    @property
    def first_face(self) -> Face:
        return self.faces[0]

    def order_tokens(self, face: FaceKind | None = None) -> int:
        """Numbered tokens the counter gives on ``face``: its Ordre stars and 1 for Ordre
        Personnel [L1926-L1942]."""
        f = self.face(face) if face else self.first_face
        return f.order_tokens() if f is not None else 0


# -- step losses ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CounterState:
    """A counter on the battlefield: the face it shows, its Hit Point markers left, its Damage
    markers (heavy vehicles), and whether it is destroyed (a wreck stays on the board as a
    terrain element; any other destroyed counter goes back on its tile [L630-L637])."""

    counter: str
    face: FaceKind
    hit_points: int = 0
    damage: VehicleDamage = field(default_factory=VehicleDamage)
    destroyed: bool = False

    @property
    def on_board(self) -> bool:
        return not self.destroyed or self.face is FaceKind.WRECK


def fresh_state(counter: Counter, face: FaceKind | None = None) -> CounterState:
    """A counter as deployed: on ``face`` (its first face by default; a Changement d'état unit
    may deploy on either face [L1123-L1124]), with all its Hit Point markers."""
    kind = face or counter.first_face.kind
    if counter.face(kind) is None:
        raise ValueError(f"counter {counter.id!r} has no {kind.value} face")
    return CounterState(counter.id, kind, counter.hit_points)


@dataclass(frozen=True)
class StepResult:
    state: CounterState
    steps_taken: int  # after Hit Point markers
    hit_points_used: int
    flipped: bool = False
    destroyed: bool = False  # this call destroyed it (removed, or now a wreck)
    markers: tuple[DamageMarker, ...] = ()  # Damage markers placed (heavy vehicles)


def apply_step(
    counter: Counter,
    state: CounterState,
    steps: int = 1,
    damage: Sequence[DamageMarker | DamageFace] = (),
) -> StepResult:
    """Take ``steps`` step losses (2 for a Coup Double) on a counter [L607-L699].

    Hit Point markers cancel steps one for one first [L2243-L2255]. Each step left then:

    - infantry (and any counter whose face shows the flip symbol): flip to the reduced face;
      on a face with the destroy symbol, destroyed (back on its tile) [L607-L615];
    - a light vehicle: destroyed, on its wreck face if it has one [L617-L620];
    - a heavy vehicle: one Damage marker per step, from its location roll, given in ``damage``
      (the caller rolls with :func:`~.tables.damage_location`); a second marker of a kind or an
      Explosion makes it a wreck, and so does a Coup Double whatever the markers [L658-L699].
    """
    if not 0 <= steps <= 2:
        raise ValueError("a shot or an assault takes 0 to 2 steps")
    if state.counter != counter.id:
        raise ValueError("the state belongs to another counter")
    if state.destroyed:
        raise ValueError(f"counter {counter.id!r} is already destroyed")
    left, hp = absorb_steps(steps, state.hit_points)
    used = state.hit_points - hp
    current = replace(state, hit_points=hp)
    if left == 0:
        if damage:
            raise ValueError("no step was taken: no Damage marker may be placed")
        return StepResult(current, 0, used)
    if counter.unit_class is UnitClass.HEAVY_VEHICLE:
        return _heavy_step(counter, current, left, used, damage)
    if damage:
        raise ValueError("only heavy vehicles take Damage markers")
    flipped = False
    for _ in range(left):
        face = counter.face(current.face)
        assert face is not None
        reduced = counter.face(FaceKind.REDUCED)
        if face.on_step_loss is StepLoss.FLIP and reduced is not None:
            current = replace(current, face=FaceKind.REDUCED)
            flipped = True
            continue
        wreck = counter.unit_class is UnitClass.LIGHT_VEHICLE and counter.face(FaceKind.WRECK)
        current = replace(current, destroyed=True, face=FaceKind.WRECK if wreck else current.face)
        return StepResult(current, left, used, flipped=flipped, destroyed=True)
    return StepResult(current, left, used, flipped=flipped)


def _heavy_step(
    counter: Counter,
    state: CounterState,
    steps: int,
    used: int,
    damage: Sequence[DamageMarker | DamageFace],
) -> StepResult:
    wreck_face = FaceKind.WRECK if counter.face(FaceKind.WRECK) else state.face
    if steps >= 2:  # a Coup Double destroys a heavy vehicle [L697-L699]
        if damage:
            raise ValueError("a Coup Double wrecks a heavy vehicle: no location roll")
        wrecked = replace(
            state, destroyed=True, face=wreck_face, damage=replace(state.damage, wreck=True)
        )
        return StepResult(wrecked, steps, used, destroyed=True)
    if len(damage) != 1:
        raise ValueError("a heavy vehicle's step needs the Damage marker of its location roll")
    placed = damage[0] if isinstance(damage[0], DamageFace) else DamageFace(damage[0])
    taken = state.damage.take(placed.marker, placed.number)
    current = replace(state, damage=taken)
    if taken.wreck:
        current = replace(current, destroyed=True, face=wreck_face)
    return StepResult(current, steps, used, destroyed=taken.wreck, markers=(placed.marker,))


# -- tiles and options ------------------------------------------------------------------------


class TileKind(StrEnum):
    RECRUITMENT = "recruitment"
    SUPPORT = "support"  # attaches to a slot with identical bands [L2337-L2352]
    COMMAND = "command"  # laurel badge: its options serve the whole army [L2395-L2404]
    AVIATION = "aviation"  # no counter on the board [L2356-L2361]


@dataclass(frozen=True)
class Slot:
    """An option slot (*Emplacement*) and the colour bands framing it [L2271-L2289]."""

    bands: frozenset[str]


@dataclass(frozen=True)
class ArmourSave:
    value: int
    colour: ArmourColour


@dataclass(frozen=True)
class Tile:
    """A recruitment tile (or support, command, aviation tile) [L2265-L2404]."""

    id: str
    name: str
    faction: Faction
    kind: TileKind
    cost: int
    counters: tuple[str, ...]
    breaking_point: int = 1  # 1 when none is printed [L639-L647]
    victory_points: int = 0  # on its back, scored by the opponent when broken [L2318-L2325]
    order_stars: int = 0  # stars of the tile itself, not the reminders beside units [L91-L95]
    bands: frozenset[str] = frozenset()
    slots: tuple[Slot, ...] = ()
    armour_save: ArmourSave | None = None
    damage_set: str | None = None  # heavy vehicles: the colour of their Damage-marker set
    # a sniper table printed on the tile replaces the rulebook's [L1339-L1340]: (lowest
    # result, effect) rows; below every row, no effect
    sniper_table: tuple[tuple[int, SniperEffect], ...] | None = None


class OptionType(StrEnum):
    SUPPORT = "support"  # adds units to the group [L2424-L2439]
    EQUIPMENT = "equipment"
    PERSONALISATION = "personalisation"  # Characters only [L2606-L2619]
    PSYCHIC_POWER = "psychic_power"  # Psykers only [L2921-L2929]
    ORDNANCE = "ordnance"  # army-wide [L2691-L2709]


class PoleBonus(StrEnum):
    """What a Boss Pole marker gives, chosen by its owner as it is spent (note §8 item 28)
    [L2625-L2644]."""

    DAKKA = "dakka"  # +1 to any die roll
    BOSS = "boss"  # an automatic armour save 4+
    ZAG = "zag"  # +1 MV
    GRIM = "grim"  # reroll any roll (the rerolls are not played yet)


@dataclass(frozen=True)
class Equipment:
    """Single-use markers (announced before the action and its dice, at most 3 identical per
    action unless it is an Alternative action) or a permanent gift [L2469-L2496]."""

    markers: int = 0
    restriction: frozenset[UnitClass] = frozenset()  # classes that may use it; empty: any
    alternative: bool = False  # an Alternative Shooting Action (Grenades, Tankbusta Bombs)
    grants: tuple[AbilityRef, ...] = ()
    dv_bonus: int = 0
    mv_bonus: int = 0
    order_tokens: int = 0  # Boss / Planning: +1 numbered token [L2621-L2623]
    armour_save: ArmourSave | None = None
    template: str | None = None  # Grenades, Tankbusta Bombs: the template a marker throws
    range: int | None = None  # and how many intercases away it may land (Portée Limitée)
    dv: int | None = None  # the DV it sets (Combat Shield [L2646-L2647])
    # what one marker adds to the roll of the action it is readied for [L2498-L2575]
    shot_bonus: int = 0  # Ammo: +1 to a Shooting Action's die (Alternative or not)
    assault_bonus: int = 0  # Rokkit Hammers: +1 to the assault roll
    hull_suppressed: int | None = None  # Grot Rigger: a Hull marker's Suppressed (1, not 2)
    # a marker rerolls one roll, the holder's or the opponent's, after it is seen: Purity Seals
    # [L2541-L2548] (the Boss Pole's Grim: ``bonuses``) (rulings 153)
    reroll: bool = False
    # a Character's aura: the allied units within ``aura`` squares of him are served (Boss
    # Pole 3 [L2625-L2630], Waaagh! Banner 2 [L2685-L2689]); None: his tile's rule
    aura: int | None = None
    # Boss Pole: the bonuses a marker may give, one chosen per use (note §8 item 28)
    bonuses: tuple[PoleBonus, ...] = ()

    @property
    def permanent(self) -> bool:
        """A gift for the whole game (no marker to spend, no Alternative action)."""
        return self.markers == 0 and not self.alternative


@dataclass(frozen=True)
class Ordnance:
    """Army-wide options and the order-token options [L2691-L2709], [L172-L182]."""

    bluff_tokens: int = 0
    special_tokens: int = 0
    order_tokens: int = 0
    extra_draw: int = 0  # Gork's Blessing: draw 1 beyond the hand size, then discard 1


@dataclass(frozen=True)
class PsychicPower:
    """A psychic power (note §2.8): its discipline's psyker, its cost in Suppressed markers,
    the sight it needs, its range and whether it is persistent."""

    psyker: PsykerKind
    discipline: str
    cost: int
    line_of_sight: str = "none"  # "none", "clear", "clear_or_reduced"
    range: int | None = None  # squares; None: self or the psyker's ZoC
    persistent: bool = False
    effect: PowerEffect | None = None  # what it does (note §2.8); None: not playable
    template: str | None = None  # a template power's template (Da Krunch)
    # Killbolt: the CVs printed on the power's tile, absent from the seed (rulings 129)
    cv: Mapping[UnitClass, int | None] | None = None
    # Telekinetic Dome (its effect is lost at a page join, rulings 130): the text the players
    # apply, and the DV bonus it gives the psyker and his side's units within ``range``
    text: str = ""
    dv_bonus: int = 0


class PowerEffect(StrEnum):
    """The powers of note §2.8 by what they do (the match plays some of them)."""

    DA_JUMP = "da_jump"
    WARPATH = "warpath"
    DA_KRUNCH = "da_krunch"
    KILLBOLT = "killbolt"
    ENFEEBLE = "enfeeble"
    ENDURANCE = "endurance"
    PERFECT_TIMING = "perfect_timing"
    SCRIERS_GAZE = "scriers_gaze"
    OBJURATION = "objuration_mechanicum"
    TELEKINETIC_DOME = "telekinetic_dome"


class PerilsEffect(StrEnum):
    """What a Librarian's Perils of the Warp marker does [L2820-L2851] (note §4.6)."""

    CANCELLED = "cancelled"  # no effect, the power lost for the game, Suppressed discarded
    STEPS = "steps"  # the power works; the Librarian takes ``value`` steps, Suppressed discarded
    SUPPRESSED = "suppressed"  # the power works; ``value`` more Suppressed markers
    AGAIN = "again"  # the power works, Suppressed discarded, it may be used again


@dataclass(frozen=True)
class PerilsMarker:
    """One kind of Perils of the Warp marker and how many the pool holds (data: the count of
    each is not in the seed)."""

    effect: PerilsEffect
    value: int = 0
    count: int = 1


@dataclass(frozen=True)
class RecruitmentOption:
    """A Recruitment Option: its type, cost, side bands [L2418-L2422], and its payload."""

    id: str
    name: str
    faction: Faction
    type: OptionType
    cost: int
    bands: frozenset[str]
    counters: tuple[str, ...] = ()  # a Support option's units [L2437-L2439]
    replaces: tuple[str, ...] = ()  # tile counters its units replace (same icon) [L2448-L2466]
    equipment: Equipment | None = None
    ordnance: Ordnance | None = None
    power: PsychicPower | None = None
    damage_set: str | None = None  # a support option's heavy vehicles: their Damage set [L666]


# -- Breaking Points --------------------------------------------------------------------------


@dataclass(frozen=True)
class Group:
    """A fielded tile's combat group: its counters (uids), destroyed ones and whether the
    group has broken (it then gives ``victory_points`` to the opponent and loses its benefits,
    its Order stars included [L639-L647], [L2318-L2325])."""

    id: str
    tile: str
    side: str
    units: tuple[str, ...]
    breaking_point: int = 1
    victory_points: int = 0
    destroyed: frozenset[str] = frozenset()
    damage_sets: Mapping[str, str] = field(default_factory=dict)  # heavy vehicle uid -> set id
    options: tuple[str, ...] = ()  # the options in the tile's slots (psychic powers...)

    @property
    def broken(self) -> bool:
        return tile_broken(len(self.destroyed), self.breaking_point)

    def lose(self, unit: str) -> Group:
        """The group after its counter ``unit`` is destroyed."""
        if unit not in self.units:
            raise ValueError(f"{unit!r} is not in group {self.id!r}")
        return replace(self, destroyed=self.destroyed | {unit})

    def restore(self, unit: str) -> Group:
        """A destroyed counter comes back (Fils de Gork [L2196-L2202]); the group may mend."""
        return replace(self, destroyed=self.destroyed - {unit})
