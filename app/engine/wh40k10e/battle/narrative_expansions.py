"""The four expansions of the 8th-edition book [L671-L919] as an option of a narrative mission.

A narrative match may be played with one expansion (``BattleOptions.expansion``: its id); its
numbers, as the shipped pack gives them, are recorded at creation in the mission's options
(``options["expansion"]``), so a replay never reads a pack. This module holds the state
(:class:`ExpansionState`, inside :class:`~.narrative.NarrativeState`), the events and their
state changes, and the view; the decisions are in :mod:`.narrative_expansion_rules`.

- Planetstrike: the Firestorm Attacks, Planetary Assault (the Attacker's reserves, orbit or
  landing zone), Bastions and Defence Emplacements as tracked buildings.
- Stronghold Assault: Bunkers and Fortresses (wounds, garrison, control changing hands,
  Demolitions, the garrison roll of a destroyed building, *Escape Hatch*).
- Death from the Skies: leaving combat airspace and the return roll, the Dogfight picks with
  their arc modifier, *Evasive Manoeuvres*, *Refuel, Rearm, Repair*.
- Cities of Death: *Sewer Rats* (a reserve), *Booby Traps* (a SECRET ruin: its event is sent to
  its owner only, and the view shows it to that seat only, until it triggers), *Medical Centre*
  and *Plunging Fire* recorded.

Readings where the seed is silent: docs/rulings/narrative-8e.md (61-70, 76-80).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from app.engine.match.codec import RawJson, decoder_for
from app.engine.match.dice import Roll
from app.engine.match.events import Event
from app.engine.narrative8e.pack import Expansion
from app.engine.wh40k10e.battle.setup import Seat
from app.engine.wh40k10e.battle.state import Location, ModelDamage, WeaponUse

if TYPE_CHECKING:
    from app.engine.wh40k10e.battle.state import BattleState

__all__ = [
    "EXPANSION_EVENTS",
    "EXPANSION_HANDLERS",
    "Building",
    "ExpansionState",
    "building_weapons",
    "expansion_of",
    "expansion_view",
    "stratagem_used",
]

PLANETSTRIKE = "planetstrike"
STRONGHOLD = "stronghold-assault"
SKIES = "death-from-the-skies"
CITIES = "cities-of-death"


# -- state -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Building:
    """A fortification set up by the Defender: its wounds, who controls it, who is inside."""

    id: str
    kind: str
    controller: Seat
    wounds: int
    max_wounds: int
    capacity: int
    weapon: str | None = None
    occupants: tuple[tuple[str, int], ...] = ()  # (unit, models), in the order they entered
    destroyed: bool = False
    garrison_due: tuple[tuple[str, int], ...] = ()  # destroyed with these inside: roll pending

    @property
    def models_inside(self) -> int:
        return sum(m for _, m in self.occupants)


@dataclass(frozen=True, slots=True)
class Pick:
    """One Dogfight pick: in ``round``'s turn of ``active``, ``seat``'s aircraft shoots
    ``target`` with ``modifier`` to hit."""

    round: int
    active: Seat
    seat: Seat
    aircraft: str
    target: str
    arc: str
    modifier: int


@dataclass(frozen=True)  # no slots: see "Speed" in state.py
class ExpansionState:
    expansion: Expansion
    buildings: tuple[Building, ...] = ()
    # Planetstrike
    firestorm_done: bool = False
    firestorm_extra: int = 0  # Scorched Skies: the D3 rolled
    rapid_drop_left: int = 0  # Rapid Drop Assault: units that still arrive with no roll
    placements: Mapping[str, str] = field(default_factory=dict)  # unit -> orbit/landing_zone
    orbit_arrivals: tuple[tuple[str, int], ...] = ()  # (unit, round) arrived from orbit
    # Death from the Skies
    off_airspace: Mapping[str, int] = field(default_factory=dict)  # aircraft -> round it left
    refuelled: Mapping[str, int] = field(default_factory=dict)  # aircraft -> tier (1-3)
    picks: tuple[Pick, ...] = ()
    passes: tuple[tuple[int, Seat, Seat], ...] = ()  # (round, active, seat that passed)
    evasive: tuple[tuple[int, Seat, str], ...] = ()  # (round, active, aircraft): -1 to hit
    never_returned: tuple[str, ...] = ()
    returns_tried: tuple[tuple[str, int], ...] = ()  # (aircraft, round) return rolls made
    # Cities of Death: traps are SECRET (seat, ruin) until triggered
    traps: tuple[tuple[Seat, str], ...] = ()
    triggered: tuple[tuple[Seat, str, str], ...] = ()  # (seat, ruin, unit)
    medical: tuple[tuple[Seat, str], ...] = ()
    # Medical Centre: per unit, the wounds it lost that were rolled for already (ruling 76)
    medical_covered: Mapping[str, int] = field(default_factory=dict)
    sewer: frozenset[str] = frozenset()
    # attacks the match rolled (ruling 91): (round, active, phase, unit, building) on a
    # building; (round, active, building, weapon) fired by a building
    attacks_on: tuple[tuple[int, Seat | None, str, str, str], ...] = ()
    fired: tuple[tuple[int, Seat | None, str, str], ...] = ()
    # Refuel, Rearm, Repair at 2 CP or more: aircraft -> the round its One Shot weapons
    # were re-armed (ruling 92)
    rearmed: Mapping[str, int] = field(default_factory=dict)
    # Death from the Skies: the One Shot weapons each aircraft fired (ruling 92) and the
    # Dogfight picks whose shot was made, as (round, active, aircraft) (ruling 93)
    one_shots: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    dogfight_shots: tuple[tuple[int, Seat | None, str], ...] = ()
    # Sappers as used: (round, active, phase, unit named): +1 to wound that phase (ruling 99)
    sappers: tuple[tuple[int, Seat | None, str, str], ...] = ()

    @property
    def id(self) -> str:
        return self.expansion.id

    def building(self, building_id: str) -> Building | None:
        return next((x for x in self.buildings if x.id == building_id), None)

    def structure(self, kind: str) -> Mapping[str, RawJson] | None:
        return next((s for s in self.expansion.structures if s.get("id") == kind), None)

    def occupied_by(self, unit: str) -> Building | None:
        return next(
            (x for x in self.buildings if any(u == unit for u, _ in x.occupants)),
            None,
        )


def living_occupants(state: BattleState, b: Building) -> tuple[tuple[str, int], ...]:
    """``b``'s occupants still alive, with their models alive now (ruling 77): a building whose
    garrison was all slain is unoccupied."""
    return tuple((u, state.units[u].models_alive) for u, _ in b.occupants if state.units[u].alive)


def wounds_lost(state: BattleState, unit: str) -> int:
    """The wounds ``unit``'s models have lost (a slain model: all of its wounds)."""
    spec = state.specs[unit]
    return sum(spec.wounds_of(i) - w for i, w in enumerate(state.units[unit].wounds))


def medical_pending(state: BattleState, x: ExpansionState, unit: str) -> int:
    """The wounds ``unit`` lost that no *Medical Centre* roll was made for yet (ruling 76)."""
    return max(0, wounds_lost(state, unit) - x.medical_covered.get(unit, 0))


def building_weapons(x: ExpansionState, b: Building) -> dict[str, int]:
    """The weapons ``b`` carries, by id, with how many of each: the structure's own (a
    Bastion's four heavy bolters, a Fortress's two Icarus lascannons and missile silo), the
    emplacement's chosen gun, a Fortress's extra heavy bolters (``heavy-bolter:N``)."""
    spec = x.structure(b.kind) or {}
    out: dict[str, int] = {}
    own = spec.get("weapons")
    for w in own if isinstance(own, list) else []:
        out[str(w)] = out.get(str(w), 0) + 1
    if b.weapon is not None:
        m = re.fullmatch(r"heavy-bolter:([0-9])", b.weapon)
        if m is None:
            out[b.weapon] = out.get(b.weapon, 0) + 1
        elif int(m.group(1)):
            out["heavy-bolter"] = out.get("heavy-bolter", 0) + int(m.group(1))
    return out


def expansion_of(options: Mapping[str, RawJson]) -> ExpansionState | None:
    """The expansion recorded in a match mission's options (``None``: none)."""
    raw = options.get("expansion")
    if not isinstance(raw, dict):
        return None
    x = decoder_for(Expansion)(raw, "mission.options.expansion")
    assert isinstance(x, Expansion)
    return ExpansionState(expansion=x)


# -- events ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BuildingPlaced(Event):
    kind: ClassVar[str] = "expansion_building_placed"
    building: str
    structure: str
    controller: Seat
    wounds: int
    capacity: int
    weapon: str | None = None


@dataclass(frozen=True, slots=True)
class BuildingOccupied(Event):
    """``units`` (one unit, or an Attached unit) entered; ``captured``: control changed."""

    kind: ClassVar[str] = "expansion_building_occupied"
    building: str
    units: tuple[str, ...]
    models: int
    seat: Seat
    captured: bool = False


@dataclass(frozen=True, slots=True)
class BuildingLeft(Event):
    kind: ClassVar[str] = "expansion_building_left"
    building: str
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BuildingDamaged(Event):
    """``wounds`` lost by the building (``demolitions`` of them the Attacker's Demolitions
    mortal wounds); ``source``: ``attacks``, ``firestorm``; ``destroyed`` at 0."""

    kind: ClassVar[str] = "expansion_building_damaged"
    building: str
    wounds: int
    source: str
    demolitions: int = 0
    destroyed: bool = False


@dataclass(frozen=True, slots=True)
class BuildingWoundsRaised(Event):
    """*Consolidated Stronghold*: the Bastion has ``wounds`` instead [L735-L737]."""

    kind: ClassVar[str] = "expansion_building_wounds_raised"
    building: str
    wounds: int


@dataclass(frozen=True, slots=True)
class GarrisonRolled(Event):
    """A D6 per model of a destroyed building's garrison; each up to ``slain_up_to`` slays one
    (``damage``: the models slain, in the controller's order) [L703, L839, L867]."""

    kind: ClassVar[str] = "expansion_garrison_rolled"
    building: str
    roll: Roll
    slain_up_to: int
    slain: int
    damage: tuple[ModelDamage, ...] = ()


@dataclass(frozen=True, slots=True)
class FirestormAttacked(Event):
    """One Firestorm Attack [L681]: ``die`` the numbered die the D6 picked, then a damage die
    per unit or building within 3" of it (``hits``: (target, mortal wounds) in dice order)."""

    kind: ClassVar[str] = "expansion_firestorm_attack"
    number: int
    die: int
    roll: Roll
    hits: tuple[tuple[str, int], ...] = ()
    damage: tuple[ModelDamage, ...] = ()
    grounded: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class FirestormFinished(Event):
    kind: ClassVar[str] = "expansion_firestorm_finished"
    attacks: int


@dataclass(frozen=True, slots=True)
class StratagemRolled(Event):
    """The die an expansion stratagem needs: *Scorched Skies* D3 more attacks, *Rapid Drop
    Assault* D3 units, *Refuel, Rearm, Repair* (3 CP) D3 wounds back (``damage``)."""

    kind: ClassVar[str] = "expansion_stratagem_rolled"
    stratagem: str
    seat: Seat
    roll: Roll
    value: int
    target: str | None = None
    damage: tuple[ModelDamage, ...] = ()


@dataclass(frozen=True, slots=True)
class AirspaceChanged(Event):
    """An aircraft ``left`` combat airspace, or tried to return (``roll`` None: no die was
    needed; ``returned`` False: delayed) [L905]."""

    kind: ClassVar[str] = "expansion_airspace"
    unit: str
    left: bool
    round: int
    returned: bool = False
    roll: Roll | None = None
    refuelled: bool = False


@dataclass(frozen=True, slots=True)
class AircraftLost(Event):
    """Aircraft that left combat airspace and never came back count as destroyed [L907]."""

    kind: ClassVar[str] = "expansion_aircraft_lost"
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DogfightPicked(Event):
    kind: ClassVar[str] = "expansion_dogfight_pick"
    seat: Seat
    aircraft: str
    target: str
    arc: str
    modifier: int
    round: int
    active: Seat


@dataclass(frozen=True, slots=True)
class DogfightPassed(Event):
    kind: ClassVar[str] = "expansion_dogfight_pass"
    seat: Seat
    round: int
    active: Seat


@dataclass(frozen=True, slots=True)
class PlanetfallRecorded(Event):
    """Planetary Assault [L687-L691]: where each Attacker unit in Reserve arrives from (orbit:
    INFANTRY and FLY; landing zone: the others)."""

    kind: ClassVar[str] = "expansion_planetfall"
    placements: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class ExpansionArrival(Event):
    """An expansion reserve set up: ``how`` orbit, landing_zone, rapid_drop or sewer_rats."""

    kind: ClassVar[str] = "expansion_arrival"
    unit: str
    how: str
    round: int


@dataclass(frozen=True, slots=True)
class SewerRatsSent(Event):
    kind: ClassVar[str] = "expansion_sewer_rats"
    units: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RuinDesignated(Event):
    """*Medical Centre* (public) or *Booby Traps* (SECRET: sent to ``seat`` only)."""

    kind: ClassVar[str] = "expansion_ruin_designated"
    seat: Seat
    stratagem: str
    ruin: str


@dataclass(frozen=True, slots=True)
class TrapTriggered(Event):
    """The booby-trapped ruin made public as it triggers: D3 mortal wounds (D6 if the unit
    Advanced) [L787-L789]."""

    kind: ClassVar[str] = "expansion_trap_triggered"
    seat: Seat
    ruin: str
    unit: str
    advanced: bool
    roll: Roll
    mortal_wounds: int
    damage: tuple[ModelDamage, ...] = ()


@dataclass(frozen=True, slots=True)
class MedicalRolled(Event):
    """*Medical Centre* [L783-L785]: a D6 per wound ``unit`` lost in the ruin; each 6 keeps
    one (``damage``: the wounds given back)."""

    kind: ClassVar[str] = "expansion_medical_rolled"
    unit: str
    roll: Roll
    kept: int
    damage: tuple[ModelDamage, ...] = ()


@dataclass(frozen=True, slots=True)
class BuildingAttacked(Event):
    """``unit``'s attacks on an enemy building, rolled by the match against the pack's profile
    (ruling 91): ``hits``, the wounds the building lost (``demolitions`` of them the
    Attacker's Demolitions mortal wounds); a :class:`BuildingDamaged` follows when it lost any."""

    kind: ClassVar[str] = "expansion_building_attacked"
    unit: str
    building: str
    phase: str
    roll: Roll
    hits: int
    wounds: int
    demolitions: int = 0
    weapons: str = ""
    uses: tuple[WeaponUse, ...] = ()  # each used once a phase, as in any attack
    request: RawJson = None  # the profiles rolled, target and situation (ruling 99)


@dataclass(frozen=True, slots=True)
class BuildingFired(Event):
    """A building's ``weapon`` (every copy of it) shot ``target``, rolled by the match with the
    pack's profile and BS (ruling 91): ``damage`` the target's models took."""

    kind: ClassVar[str] = "expansion_building_fired"
    building: str
    weapon: str
    target: str
    roll: Roll
    hits: int
    modifier: int = 0
    damage: tuple[ModelDamage, ...] = ()


@dataclass(frozen=True, slots=True)
class DogfightTargeted(Event):
    """The picked AIRCRAFT may now make its Dogfight attack at ``target`` (ruling 93): its
    attack is resolved as any, with the match's dice, in either player's turn."""

    kind: ClassVar[str] = "expansion_dogfight_targeted"
    aircraft: tuple[str, ...]
    target: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class DogfightShot(Event):
    """The Dogfight attack was made [L887]: the aircraft may still shoot ground targets in
    the Shooting phase with its weapons [L899] (ruling 93)."""

    kind: ClassVar[str] = "expansion_dogfight_shot"
    aircraft: tuple[str, ...]
    target: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class OneShotFired(Event):
    """An AIRCRAFT fired One Shot ``weapons``: spent until *Refuel, Rearm, Repair* re-arms it
    (ruling 92)."""

    kind: ClassVar[str] = "expansion_one_shot_fired"
    unit: str
    weapons: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AircraftRearmed(Event):
    """*Refuel, Rearm, Repair* at 2 CP or more [L919]: ``weapons`` (the One Shot weapons it had
    fired) may fire again."""

    kind: ClassVar[str] = "expansion_aircraft_rearmed"
    unit: str
    weapons: tuple[str, ...]
    round: int


EXPANSION_EVENTS: tuple[type[Event], ...] = (
    DogfightTargeted,
    DogfightShot,
    OneShotFired,
    AircraftRearmed,
    BuildingAttacked,
    BuildingFired,
    BuildingPlaced,
    BuildingOccupied,
    BuildingLeft,
    BuildingDamaged,
    BuildingWoundsRaised,
    GarrisonRolled,
    FirestormAttacked,
    FirestormFinished,
    StratagemRolled,
    AirspaceChanged,
    AircraftLost,
    DogfightPicked,
    DogfightPassed,
    PlanetfallRecorded,
    ExpansionArrival,
    SewerRatsSent,
    RuinDesignated,
    TrapTriggered,
    MedicalRolled,
)


# -- state changes ---------------------------------------------------------------------------


def _x(state: BattleState) -> ExpansionState:
    n = state.narrative
    assert n is not None
    assert n.expansion is not None
    return n.expansion


def _set(state: BattleState, **changes: Any) -> BattleState:
    n = state.narrative
    assert n is not None
    assert n.expansion is not None
    x = dataclasses.replace(n.expansion, **changes)
    return dataclasses.replace(state, narrative=dataclasses.replace(n, expansion=x))


def _building(state: BattleState, building: str, **changes: Any) -> BattleState:
    x = _x(state)
    out = tuple(dataclasses.replace(b, **changes) if b.id == building else b for b in x.buildings)
    return _set(state, buildings=out)


def _hurt(state: BattleState, damage: tuple[ModelDamage, ...], *, restore: bool = False) -> Any:
    units = dict(state.units)
    for d in damage:
        u = units[d.unit]
        wounds = list(u.wounds)
        if restore:
            top = state.specs[d.unit].wounds_of(d.model)
            wounds[d.model] = min(top, wounds[d.model] + d.damage)
        else:
            wounds[d.model] = max(0, wounds[d.model] - d.damage)
        units[d.unit] = dataclasses.replace(u, wounds=tuple(wounds))
    return units


def _rolled(state: BattleState, roll: Roll | None) -> BattleState:
    return state if roll is None else dataclasses.replace(state, rolls=state.rolls + 1)


def _placed(state: BattleState, e: BuildingPlaced) -> BattleState:
    b = Building(e.building, e.structure, e.controller, e.wounds, e.wounds, e.capacity, e.weapon)
    return _set(state, buildings=(*_x(state).buildings, b))


def _occupied(state: BattleState, e: BuildingOccupied) -> BattleState:
    b = _x(state).building(e.building)
    assert b is not None
    # a slain occupant leaves no one inside (ruling 77)
    kept = tuple((u, m) for u, m in b.occupants if state.units[u].alive)
    inside = (*kept, *((u, state.units[u].models_alive) for u in e.units))
    return _building(state, e.building, occupants=inside, controller=e.seat)


def _left(state: BattleState, e: BuildingLeft) -> BattleState:
    b = _x(state).building(e.building)
    assert b is not None
    inside = tuple((u, m) for u, m in b.occupants if u not in e.units)
    return _building(state, e.building, occupants=inside)


def _damaged(state: BattleState, e: BuildingDamaged) -> BattleState:
    b = _x(state).building(e.building)
    assert b is not None
    wounds = max(0, b.wounds - e.wounds)
    if not e.destroyed:
        return _building(state, e.building, wounds=wounds)
    # the garrison disembarks [L703, L839]: the models alive inside are rolled for
    due = tuple((u, state.units[u].models_alive) for u, _ in b.occupants if state.units[u].alive)
    return _building(state, e.building, wounds=0, destroyed=True, occupants=(), garrison_due=due)


def _raised(state: BattleState, e: BuildingWoundsRaised) -> BattleState:
    b = _x(state).building(e.building)
    assert b is not None
    gained = e.wounds - b.max_wounds
    return _building(state, e.building, max_wounds=e.wounds, wounds=b.wounds + gained)


def _garrison(state: BattleState, e: GarrisonRolled) -> BattleState:
    new = dataclasses.replace(state, units=_hurt(state, e.damage), rolls=state.rolls + 1)
    return _building(new, e.building, garrison_due=())


def _firestorm(state: BattleState, e: FirestormAttacked) -> BattleState:
    new = dataclasses.replace(state, units=_hurt(state, e.damage), rolls=state.rolls + 1)
    n = new.narrative
    assert n is not None
    if e.grounded:
        new = dataclasses.replace(
            new, narrative=dataclasses.replace(n, grounded=n.grounded | set(e.grounded))
        )
    return new


def _firestorm_done(state: BattleState, e: FirestormFinished) -> BattleState:
    return _set(state, firestorm_done=True)


def _strat_rolled(state: BattleState, e: StratagemRolled) -> BattleState:
    new = _rolled(state, e.roll)
    if e.damage:
        new = dataclasses.replace(new, units=_hurt(new, e.damage, restore=True))
    if e.stratagem == "scorched-skies":
        return _set(new, firestorm_extra=_x(new).firestorm_extra + e.value)
    if e.stratagem == "rapid-drop-assault":
        return _set(new, rapid_drop_left=_x(new).rapid_drop_left + e.value)
    return new


def _airspace(state: BattleState, e: AirspaceChanged) -> BattleState:
    x = _x(state)
    new = _rolled(state, e.roll)
    ids = new.group(e.unit)
    units = dict(new.units)
    if e.left:
        for i in ids:
            units[i] = dataclasses.replace(units[i], location=Location.RESERVES, reserve=None)
        new = dataclasses.replace(new, units=units)
        return _set(new, off_airspace={**x.off_airspace, e.unit: e.round})
    new = _set(new, returns_tried=(*x.returns_tried, (e.unit, e.round)))
    if not e.returned:
        return new
    for i in ids:
        units[i] = dataclasses.replace(units[i], location=Location.BATTLEFIELD, arrived=True)
    new = dataclasses.replace(new, units=units)
    off = {u: r for u, r in x.off_airspace.items() if u != e.unit}
    refuelled = {u: t for u, t in x.refuelled.items() if u != e.unit}
    return _set(new, off_airspace=off, refuelled=refuelled)


def _lost(state: BattleState, e: AircraftLost) -> BattleState:
    units = dict(state.units)
    for i in e.units:
        units[i] = dataclasses.replace(units[i], wounds=(0,) * len(units[i].wounds))
    new = dataclasses.replace(state, units=units)
    return _set(new, never_returned=(*_x(state).never_returned, *e.units))


def _picked(state: BattleState, e: DogfightPicked) -> BattleState:
    p = Pick(e.round, e.active, e.seat, e.aircraft, e.target, e.arc, e.modifier)
    return _set(state, picks=(*_x(state).picks, p))


def _passed(state: BattleState, e: DogfightPassed) -> BattleState:
    return _set(state, passes=(*_x(state).passes, (e.round, e.active, e.seat)))


def _planetfall(state: BattleState, e: PlanetfallRecorded) -> BattleState:
    return _set(state, placements={**_x(state).placements, **e.placements})


def _arrival(state: BattleState, e: ExpansionArrival) -> BattleState:
    x = _x(state)
    changes: dict[str, Any] = {}
    if e.how == "orbit":
        changes["orbit_arrivals"] = (*x.orbit_arrivals, (e.unit, e.round))
    if e.how == "rapid_drop":
        changes["rapid_drop_left"] = max(0, x.rapid_drop_left - 1)
        if x.placements.get(e.unit) == "orbit":
            changes["orbit_arrivals"] = (*x.orbit_arrivals, (e.unit, e.round))
    if e.how == "sewer_rats":
        changes["sewer"] = x.sewer - {e.unit}
    return _set(state, **changes)


def _sewer(state: BattleState, e: SewerRatsSent) -> BattleState:
    return _set(state, sewer=_x(state).sewer | set(e.units))


def _designated(state: BattleState, e: RuinDesignated) -> BattleState:
    x = _x(state)
    if e.stratagem == "booby-trapped-ruin":
        return _set(state, traps=(*x.traps, (e.seat, e.ruin)))
    return _set(state, medical=(*x.medical, (e.seat, e.ruin)))


def _trap(state: BattleState, e: TrapTriggered) -> BattleState:
    new = dataclasses.replace(state, units=_hurt(state, e.damage), rolls=state.rolls + 1)
    x = _x(new)
    traps = tuple(t for t in x.traps if t != (e.seat, e.ruin))
    return _set(new, traps=traps, triggered=(*x.triggered, (e.seat, e.ruin, e.unit)))


def stratagem_used(
    state: BattleState, seat: Seat, stratagem: str, cp: int, target: str | None
) -> BattleState:
    """An expansion stratagem's lasting mark: *Evasive Manoeuvres* (-1 to the aircraft's hit
    rolls until the end of the turn [L915]), *Refuel, Rearm, Repair* (its tier [L919]),
    *Sappers* (the unit, round, turn and phase it was used in [L861-L863])."""
    n = state.narrative
    if n is None or n.expansion is None or target is None:
        return state
    x = n.expansion
    if stratagem == "evasive-manoeuvres" and state.active is not None:
        return _set(state, evasive=(*x.evasive, (state.round, state.active, target)))
    if stratagem == "refuel-rearm-repair":
        return _set(state, refuelled={**x.refuelled, target: cp})
    if stratagem == "sappers":  # that unit, this phase [L861-L863] (ruling 99)
        use = (state.round, state.active, str(state.phase), target)
        return _set(state, sappers=(*x.sappers, use))
    return state


def _medical(state: BattleState, e: MedicalRolled) -> BattleState:
    """The wounds rolled for and not kept stay covered: a later roll is for a new loss only
    (ruling 76)."""
    x = _x(state)
    rolled = len(e.roll.dice)
    covered = x.medical_covered.get(e.unit, 0) + rolled - e.kept
    units = _hurt(state, e.damage, restore=True)
    new = dataclasses.replace(state, units=units, rolls=state.rolls + 1)
    covered = max(0, min(covered, wounds_lost(new, e.unit)))
    return _set(new, medical_covered={**x.medical_covered, e.unit: covered})


def _attacked(state: BattleState, e: BuildingAttacked) -> BattleState:
    units = dict(state.units)
    for i in state.group(e.unit):  # the weapons used this phase, as an attack on a unit
        u = units[i]
        units[i] = dataclasses.replace(
            u, weapons_used=u.weapons_used + e.uses, attacks=u.attacks + 1
        )
    new = dataclasses.replace(state, units=units, rolls=state.rolls + 1)
    mark = (state.round, state.active, e.phase, e.unit, e.building)
    return _set(new, attacks_on=(*_x(state).attacks_on, mark))


def _fired(state: BattleState, e: BuildingFired) -> BattleState:
    new = dataclasses.replace(state, units=_hurt(state, e.damage), rolls=state.rolls + 1)
    mark = (state.round, state.active, e.building, e.weapon)
    return _set(new, fired=(*_x(state).fired, mark))


def _dogfight_targeted(state: BattleState, e: DogfightTargeted) -> BattleState:
    units = dict(state.units)
    for i in e.aircraft:
        units[i] = dataclasses.replace(units[i], targets=units[i].targets | set(e.target))
    return dataclasses.replace(state, units=units)


def _dogfight_shot(state: BattleState, e: DogfightShot) -> BattleState:
    """The Dogfight's weapons are free again for the Shooting phase [L899]; the picked
    target is no longer one (a second Dogfight attack is refused)."""
    units = dict(state.units)
    for i in e.aircraft:
        u = units[i]
        units[i] = dataclasses.replace(
            u,
            targets=u.targets - set(e.target),
            weapons_used=(),
            all_weapons_used=False,
            attacks=0,
        )
    new = dataclasses.replace(state, units=units)
    mark = (state.round, state.active, e.aircraft[0])
    return _set(new, dogfight_shots=(*_x(state).dogfight_shots, mark))


def _one_shot(state: BattleState, e: OneShotFired) -> BattleState:
    x = _x(state)
    fired = tuple(dict.fromkeys((*x.one_shots.get(e.unit, ()), *e.weapons)))
    return _set(state, one_shots={**x.one_shots, e.unit: fired})


def _rearmed(state: BattleState, e: AircraftRearmed) -> BattleState:
    x = _x(state)
    left = {u: w for u, w in x.one_shots.items() if u != e.unit}
    return _set(state, one_shots=left, rearmed={**x.rearmed, e.unit: e.round})


EXPANSION_HANDLERS: dict[type[Event], Any] = {
    DogfightTargeted: _dogfight_targeted,
    DogfightShot: _dogfight_shot,
    OneShotFired: _one_shot,
    AircraftRearmed: _rearmed,
    BuildingAttacked: _attacked,
    BuildingFired: _fired,
    BuildingPlaced: _placed,
    BuildingOccupied: _occupied,
    BuildingLeft: _left,
    BuildingDamaged: _damaged,
    BuildingWoundsRaised: _raised,
    GarrisonRolled: _garrison,
    FirestormAttacked: _firestorm,
    FirestormFinished: _firestorm_done,
    StratagemRolled: _strat_rolled,
    AirspaceChanged: _airspace,
    AircraftLost: _lost,
    DogfightPicked: _picked,
    DogfightPassed: _passed,
    PlanetfallRecorded: _planetfall,
    ExpansionArrival: _arrival,
    SewerRatsSent: _sewer,
    RuinDesignated: _designated,
    TrapTriggered: _trap,
    MedicalRolled: _medical,
}


# -- view --------------------------------------------------------------------------------------


def expansion_view(state: BattleState, x: ExpansionState, viewer: str | None) -> dict[str, Any]:
    """The expansion as ``viewer`` may see it: a *Booby Traps* ruin only for its seat until it
    triggers."""
    out: dict[str, Any] = {
        "id": x.id,
        "buildings": [
            {
                "id": b.id,
                "kind": b.kind,
                "controller": str(b.controller),
                "wounds": b.wounds,
                "max_wounds": b.max_wounds,
                "capacity": b.capacity,
                "models_inside": sum(m for _, m in living_occupants(state, b)),
                "occupants": [u for u, _ in living_occupants(state, b)],
                "weapon": b.weapon,
                "weapons": building_weapons(x, b),  # what it fires (ruling 91)
                "destroyed": b.destroyed,
                "garrison_due": sum(m for _, m in b.garrison_due),
            }
            for b in x.buildings
        ],
        "firestorm_done": x.firestorm_done,
        "firestorm_extra": x.firestorm_extra,
        "rapid_drop_left": x.rapid_drop_left if state.round == 1 else 0,  # ruling 78
        "placements": dict(sorted(x.placements.items())),
        "orbit_arrivals": [[u, r] for u, r in x.orbit_arrivals],
        "off_airspace": dict(sorted(x.off_airspace.items())),
        "refuelled": dict(sorted(x.refuelled.items())),
        "never_returned": list(x.never_returned),
        "one_shots_fired": {u: list(w) for u, w in sorted(x.one_shots.items())},
        "rearmed": dict(sorted(x.rearmed.items())),
        "dogfight": [
            {
                "round": p.round,
                "seat": str(p.seat),
                "aircraft": p.aircraft,
                "target": p.target,
                "arc": p.arc,
                "modifier": p.modifier,
                "shot": (p.round, p.active, p.aircraft) in x.dogfight_shots,
            }
            for p in x.picks
            if p.round == state.round and p.active is state.active
        ],
        "triggered": [{"seat": str(s), "ruin": r, "unit": u} for s, r, u in x.triggered],
        "medical_centre": [{"seat": str(s), "ruin": r} for s, r in x.medical],
        "sewer_rats": sorted(x.sewer),
    }
    if viewer is not None:
        mine = [r for s, r in x.traps if str(s) == viewer]
        if mine:
            out["my_traps"] = mine
    return out
