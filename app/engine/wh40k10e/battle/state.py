"""The state of a 10th-edition battle: a frozen value, rebuilt by replaying the match log.

Everything derivable is derived, not stored: a unit is destroyed when none of its models has a
wound left; an Attached unit is its Bodyguard unit plus its Leader unit while both live
([L877-906], [L3211-3255]); Below Half-strength follows [L856-868]; a unit is engaged while one
of the enemy units it was reported engaged with is alive.

Speed: the classes that change with every event (the battle, its units, players, markers...)
are frozen dataclasses *without* ``__slots__``, so that ``evolve`` copies one with a single
C-level ``__dict__`` update instead of a Python loop over its fields: replaying a 5,000-event
log stays far below 200 ms (``bench/bench_match.py``). The vocabulary types (events,
commands, specs) keep ``slots=True``.
"""

from __future__ import annotations

import enum
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from app.engine.match.dice import Roll
from app.engine.match.turns import PhaseSpec, TurnPosition, TurnStructure
from app.engine.wh40k10e.battle.setup import Ability, MatchSetup, Seat, UnitSpec, other

if TYPE_CHECKING:
    from app.engine.wh40k10e.battle.narrative import NarrativeState

__all__ = [
    "TURN",
    "BattleState",
    "ChargeInProgress",
    "DieLoss",
    "Effect",
    "FightState",
    "Formation",
    "Location",
    "MarkerState",
    "ModelDamage",
    "MoveMode",
    "Phase",
    "PlayerState",
    "Presence",
    "ReserveKind",
    "Result",
    "Stage",
    "Step",
    "Trigger",
    "TriggerKind",
    "UnitState",
    "WeaponUse",
]


class Stage(enum.StrEnum):
    CREATED = "created"  # before the MatchCreated event
    ROLL_OFF = "roll_off"
    PLACE_OBJECTIVES = "place_objectives"
    DECLARE_FORMATIONS = "declare_formations"
    DEPLOY = "deploy"
    SCOUTS = "scouts"
    NARRATIVE = "narrative"  # a narrative mission's own set-up step (battle/narrative.py)
    BATTLE = "battle"
    ENDED = "ended"


class Phase(enum.StrEnum):
    COMMAND = "command"
    MOVEMENT = "movement"
    SHOOTING = "shooting"
    CHARGE = "charge"
    FIGHT = "fight"


class Step(enum.StrEnum):
    BATTLE_SHOCK = "battle_shock"
    MOVE_UNITS = "move_units"
    REINFORCEMENTS = "reinforcements"
    SHOOT = "shoot"
    CHARGE = "charge"
    FIGHTS_FIRST = "fights_first"
    REMAINING_COMBATS = "remaining_combats"


# [L743-761], [L968-980], [L2611-2621]; the Command step itself (CP) is automatic.
TURN = TurnStructure(
    phases=(
        PhaseSpec(Phase.COMMAND, (Step.BATTLE_SHOCK,)),
        PhaseSpec(Phase.MOVEMENT, (Step.MOVE_UNITS, Step.REINFORCEMENTS)),
        PhaseSpec(Phase.SHOOTING, (Step.SHOOT,)),
        PhaseSpec(Phase.CHARGE, (Step.CHARGE,)),
        PhaseSpec(Phase.FIGHT, (Step.FIGHTS_FIRST, Step.REMAINING_COMBATS)),
    ),
    turns_per_round=2,
)


class Location(enum.StrEnum):
    UNDECLARED = "undeclared"  # before Battle Formations are revealed
    TO_DEPLOY = "to_deploy"
    BATTLEFIELD = "battlefield"
    RESERVES = "reserves"
    EMBARKED = "embarked"
    HELD_BACK = "held_back"  # an empty Dedicated Transport: cannot be deployed [L4346-4353]
    ESCAPED = "escaped"  # left by the escape route of a narrative mission (Ambush [L217])


class ReserveKind(enum.StrEnum):
    DEEP_STRIKE = "deep_strike"  # [L3146-3164]
    STRATEGIC = "strategic"  # [L3541-3651]
    AIRCRAFT = "aircraft"  # must start in Reserves, then as Strategic Reserves [L4053-4062]


class MoveMode(enum.StrEnum):
    NORMAL = "normal"
    ADVANCE = "advance"
    FALL_BACK = "fall_back"
    REMAIN_STATIONARY = "remain_stationary"


class Effect(enum.StrEnum):
    """Until-end-of-phase effects the attack engine needs to know about."""

    GO_TO_GROUND = "go_to_ground"  # 6+ invulnerable and Benefit of Cover [L3479-3481]
    SMOKESCREEN = "smokescreen"  # Benefit of Cover and Stealth [L3496-3498]
    PRECISION = "precision"  # Epic Challenge: melee attacks have [PRECISION] [L3338-3340]
    OVERWATCH = "overwatch"  # hits only on an unmodified 6 [L3439-3443]


class TriggerKind(enum.StrEnum):
    MOVE_STARTED = "move_started"  # about to start a Normal, Advance or Fall Back move
    UNIT_MOVED = "unit_moved"  # Normal, Advance or Fall Back move
    UNIT_SET_UP = "unit_set_up"  # arrived from Reserves
    CHARGE_ROLLED = "charge_rolled"  # about to start its Charge move
    CHARGE_ENDED = "charge_ended"
    TARGETS_SELECTED = "targets_selected"  # shooting
    SELECTED_TO_FIGHT = "selected_to_fight"
    UNIT_FOUGHT = "unit_fought"
    BATTLE_SHOCK_FAILED = "battle_shock_failed"
    ROLLED = "rolled"  # a roll a Command Re-roll may re-roll


@dataclass(frozen=True, slots=True)
class ModelDamage:
    """``damage`` wounds lost by model slot ``model`` (0-based) of ``unit``."""

    unit: str
    model: int
    damage: int


@dataclass(frozen=True, slots=True)
class WeaponUse:
    """``models`` models of part ``unit`` (of an Attached unit, else the unit) attack with
    ``weapon``; ``profile`` names the profile used when the weapon has several (a model uses
    one weapon once per phase, whichever profile [L1424-1433], [L2697-2733])."""

    unit: str
    weapon: str
    models: int
    profile: str = ""


@dataclass(frozen=True, slots=True)
class DieLoss:
    """What one failed test die (index ``die`` of its roll) cost: the damage it caused."""

    die: int
    damage: tuple[ModelDamage, ...]


@dataclass(frozen=True)  # no slots: see "Speed" in the module docstring
class Trigger:
    """The latest thing the other player (or a Stratagem) may react to "just after"."""

    kind: TriggerKind
    seat: Seat  # the controller of the unit that did it
    unit: str
    targets: tuple[str, ...] = ()
    roll_kind: str | None = None  # "advance", "charge", "desperate_escape", "hazardous"
    roll: Roll | None = None  # the re-rollable dice, if any
    losses: tuple[DieLoss, ...] = ()  # per failed test die, what it cost
    rerolled: bool = False


@dataclass(frozen=True, slots=True)
class Formation:
    """A player's Battle Formations (secret until both are submitted) [L4453-4485]."""

    attachments: tuple[tuple[str, str], ...] = ()  # (leader unit, bodyguard unit)
    embarked: tuple[tuple[str, str], ...] = ()  # (unit, transport unit)
    reserves: tuple[tuple[str, ReserveKind], ...] = ()
    hover: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        reserves = tuple((unit, ReserveKind(kind)) for unit, kind in self.reserves)
        object.__setattr__(self, "reserves", reserves)


@dataclass(frozen=True, slots=True)
class Presence:
    """Models of a unit reported within range of an objective marker (``None`` = all)."""

    unit: str
    models: int | None = None


@dataclass(frozen=True)  # no slots: see "Speed" in the module docstring
class MarkerState:
    id: str
    x: float | None = None
    y: float | None = None
    placed_by: Seat | None = None
    controller: Seat | None = None  # None: contested (nobody controls it) [L4589-4602]


@dataclass(frozen=True)  # no slots: see "Speed" in the module docstring
class UnitState:
    id: str
    owner: Seat
    wounds: tuple[int, ...]  # wounds left per model slot; 0 = destroyed
    location: Location = Location.UNDECLARED
    reserve: ReserveKind | None = None
    embarked_in: str | None = None
    leader: str | None = None  # (on a Bodyguard unit) its attached Leader unit
    bodyguard: str | None = None  # (on a Leader unit) the Bodyguard unit it leads
    hover: bool = False
    battle_shocked: bool = False
    # this turn
    move: MoveMode | None = None
    arrived: bool = False  # set up from Reserves this turn: counts as a Normal move
    disembarked: bool = False  # cannot Remain Stationary [L1257-1258]
    cannot_charge: bool = False
    charge_moved: bool = False
    charge_bonus: bool = False  # Fights First until end of turn [L2492-2495]
    # this phase
    shot: bool = False
    charge_declared: bool = False
    fought: bool = False
    shock_tested: bool = False
    embarked_this_phase: bool = False
    targets: frozenset[str] = frozenset()
    attacked: frozenset[str] = frozenset()  # target units attacked this phase
    # weapons that have attacked this phase, per (part, weapon): a weapon is used once
    weapons_used: tuple[WeaponUse, ...] = ()
    all_weapons_used: bool = False  # an attack that named no weapon took the whole unit's
    attacks: int = 0  # attacks resolved this phase (the ordinal of the next attack's seed)
    rolled: int = 0  # rolls made for this unit (the ordinal of its next roll's seed)
    effects: frozenset[Effect] = frozenset()
    # other
    engaged_with: frozenset[str] = frozenset()
    must_arrive: int | None = None  # the round an Aircraft that left must arrive [L4089-4091]
    transport_destroyed: bool = False  # embarked in a destroyed Transport: must disembark
    # destroyed models whose Deadly Demise was rolled (or that never trigger it: coherency)
    demise_rolled: int = 0
    scouted: bool = False

    @property
    def alive(self) -> bool:
        return any(w > 0 for w in self.wounds)

    def models_used(self, part: str, weapon: str) -> int:
        """How many models of ``part`` have attacked with ``weapon`` this phase."""
        return sum(w.models for w in self.weapons_used if w.unit == part and w.weapon == weapon)

    @property
    def models_alive(self) -> int:
        return sum(1 for w in self.wounds if w > 0)


@dataclass(frozen=True)  # no slots: see "Speed" in the module docstring
class PlayerState:
    cp: int = 0
    vp: int = 0
    extra_cp_this_round: bool = False  # [L843-849]
    formation_submitted: bool = False
    used_this_phase: frozenset[str] = frozenset()  # Stratagems [L3272-3274]
    overwatch_this_turn: bool = False  # [L3444]
    scouts_done: bool = False
    result: str = "pending"  # "confirmed" / "disputed"
    dispute: str = ""


@dataclass(frozen=True)  # no slots: see "Speed" in the module docstring
class ChargeInProgress:
    unit: str
    seat: Seat
    targets: tuple[str, ...]
    roll: int
    heroic: bool = False  # Heroic Intervention: no Charge Bonus [L3522-3524]


@dataclass(frozen=True)  # no slots: see "Speed" in the module docstring
class FightState:
    step: Step = Step.FIGHTS_FIRST
    last_selector: Seat | None = None
    current: str | None = None  # the unit fighting now (until it consolidates)
    next_unit: str | None = None  # Counter-offensive: this unit fights next [L3323]
    # the units eligible to fight at the start of the phase: only they fight in the Fights
    # First step; one that becomes eligible later fights in Remaining Combats [L2617-2621]
    eligible_at_start: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Result:
    reason: str  # "rounds_complete", "army_destroyed", "concession"
    winner: Seat | None  # None: a draw
    vp: Mapping[Seat, int]
    destroyed_in_reserve: tuple[str, ...] = ()


@dataclass(frozen=True)  # no slots: see "Speed" in the module docstring
class BattleState:
    setup: MatchSetup | None = None
    specs: Mapping[str, UnitSpec] = field(default_factory=dict)
    stage: Stage = Stage.CREATED
    setup_index: int = 0
    roll_offs: Mapping[str, Seat] = field(default_factory=dict)
    attacker: Seat | None = None
    first_player: Seat | None = None
    players: Mapping[Seat, PlayerState] = field(default_factory=dict)
    units: Mapping[str, UnitState] = field(default_factory=dict)
    markers: Mapping[str, MarkerState] = field(default_factory=dict)
    presence: Mapping[str, Mapping[Seat, tuple[Presence, ...]]] = field(default_factory=dict)
    formations: Mapping[Seat, Formation] = field(default_factory=dict)  # SECRET until revealed
    revealed: bool = False
    next_seat: Seat | None = None  # who places / deploys / scouts next in set-up
    position: TurnPosition | None = None
    charge: ChargeInProgress | None = None
    fight: FightState | None = None
    window: Seat | None = None  # end-of-Movement reaction window open for this seat
    trigger: Trigger | None = None
    rolls: int = 0  # how many rolls the match has made (for derived seeds)
    # destroyed units whose Deadly Demise rolled a 6, one entry per 6, in order: their
    # controller names the units within 6" before anything else happens [L1876-1893]
    demises: tuple[str, ...] = ()
    # the end-of-turn coherency check [L449-456]: the seats that must still confirm it
    coherency: tuple[Seat, ...] = ()
    # each unit's living models when the turn started: a unit that lost none cannot have
    # left coherency (moves and set-ups end in coherency [L433-447])
    models_at_turn_start: Mapping[str, int] = field(default_factory=dict)
    result: Result | None = None
    # a narrative mission's state (None: any other mission, e.g. Only War)
    narrative: NarrativeState | None = None
    # a combat zone's mysterious objectives: marker -> the result it was identified as
    mysterious: Mapping[str, str] = field(default_factory=dict)
    # Night Fight's fog of war outside a narrative mission (Only War): the units that rolled
    # it on their first arrival [L591] (a narrative mission keeps its own, narrative.fog_rolled)
    fog_rolled: frozenset[str] = frozenset()

    # -- reading helpers --------------------------------------------------------------------

    @property
    def active(self) -> Seat | None:
        """The player whose turn it is (during the battle)."""
        if self.position is None or self.first_player is None:
            return None
        return self.first_player if self.position.turn == 0 else other(self.first_player)

    @property
    def phase(self) -> Phase | None:
        return None if self.position is None else Phase(self.position.phase)

    @property
    def step(self) -> Step | None:
        return None if self.position is None else Step(self.position.step)

    @property
    def round(self) -> int:
        return 0 if self.position is None else self.position.round

    def unit(self, unit_id: str) -> UnitState:
        return self.units[unit_id]

    def spec(self, unit_id: str) -> UnitSpec:
        return self.specs[unit_id]

    def units_of(self, seat: Seat) -> Iterator[UnitState]:
        return (u for u in self.units.values() if u.owner is seat)

    def group(self, unit_id: str) -> tuple[str, ...]:
        """The living units acting as one: an Attached unit (Bodyguard first), else the unit."""
        u = self.units[unit_id]
        if u.leader is not None:
            ids = (u.id, u.leader)
        elif u.bodyguard is not None:
            ids = (u.bodyguard, u.id)
        else:
            return (u.id,)
        alive = tuple(i for i in ids if self.units[i].alive)
        return alive or (u.id,)

    def firing_deck_riders(self, unit_id: str) -> tuple[str, ...]:
        """The units embarked in ``unit_id`` whose ranged weapons it may use when it shoots:
        a Transport with Firing Deck x, outside the Fight phase [L1292-1308]."""
        if self.specs[unit_id].firing_deck <= 0 or self.phase is Phase.FIGHT:
            return ()
        return tuple(
            sorted(i for i, u in self.units.items() if u.embarked_in == unit_id and u.alive)
        )

    def firing_deck_left(self, unit_id: str) -> int:
        """How many more embarked models ``unit_id``'s Firing Deck x may pick this phase (each
        picked model lends one ranged weapon) [L1292-1308]."""
        riders = set(self.firing_deck_riders(unit_id))
        lent = sum(w.models for w in self.units[unit_id].weapons_used if w.unit in riders)
        return max(0, self.specs[unit_id].firing_deck - lent) if riders else 0

    def all_have(self, unit_id: str, ability: Ability) -> bool:
        return all(ability in self.specs[i].abilities for i in self.group(unit_id))

    def all_have_keyword(self, unit_id: str, keyword: str) -> bool:
        return all(self.specs[i].has(keyword) for i in self.group(unit_id))

    def any_keyword(self, unit_id: str, keyword: str) -> bool:
        return any(self.specs[i].has(keyword) for i in self.group(unit_id))

    def on_battlefield(self, unit_id: str) -> bool:
        u = self.units[unit_id]
        return u.alive and u.location is Location.BATTLEFIELD

    def engaged(self, unit_id: str) -> bool:
        return any(self.units[e].alive for e in self.units[unit_id].engaged_with)

    def engaged_units(self, unit_id: str) -> tuple[str, ...]:
        return tuple(sorted(e for e in self.units[unit_id].engaged_with if self.units[e].alive))

    def starting_strength(self, unit_id: str) -> int:
        return sum(self.specs[i].models for i in self.group(unit_id))

    def below_half_strength(self, unit_id: str) -> bool:
        """[L856-868]: a one-model unit by wounds (strictly below half), else by models."""
        ids = self.group(unit_id)
        ss = sum(self.specs[i].models for i in ids)
        if ss == 1:
            (only,) = ids
            return 2 * self.units[only].wounds[0] < self.specs[only].wounds_of(0)
        alive = sum(self.units[i].models_alive for i in ids)
        return 2 * alive < ss

    def best_leadership(self, unit_id: str) -> int:
        """The best (lowest) Leadership of the unit [L789-791], [L3093-3100]."""
        return min(self.specs[i].leadership for i in self.group(unit_id))

    def remained_stationary(self, unit_id: str) -> bool:
        """Whether ``unit_id``'s unit Remained Stationary this turn (for [HEAVY] [L2227-2233]):
        it chose to, or it is its controller's turn, the Movement phase is over and it did not
        move at all (no move [L948-950]; set up from Reserves counts as a Normal move, and a
        unit that disembarked cannot Remain Stationary [L1173-1176], [L1257-1258]). In the
        opponent's turn (Fire Overwatch) it did not."""
        ids = self.group(unit_id)
        if any(self.units[i].move is MoveMode.REMAIN_STATIONARY for i in ids):
            return True
        if self.active is not self.units[unit_id].owner:
            return False
        if self.phase in (None, Phase.COMMAND, Phase.MOVEMENT):
            return False
        return all(
            u.move is None and not u.arrived and not u.disembarked
            for u in (self.units[i] for i in ids)
        )

    def is_attached(self, unit_id: str) -> bool:
        return len(self.group(unit_id)) > 1

    def coherency_units(self, seat: Seat) -> list[str]:
        """The units of ``seat`` (each Attached unit once, by its first living part) that the
        end-of-turn coherency check names: on the battlefield, two or more models left, and
        models lost since the turn started (set-ups and moves end in Unit Coherency [L433-447],
        so only a unit that lost models can be out of it) [L449-456]."""
        out: list[str] = []
        for u in self.units_of(seat):
            ids = self.group(u.id)
            if ids[0] != u.id or not self.on_battlefield(u.id):
                continue
            alive = sum(self.units[i].models_alive for i in ids)
            before = sum(self.models_at_turn_start.get(i, 0) for i in ids)
            if alive >= 2 and alive < before:
                out.append(u.id)
        return out

    def army_alive(self, seat: Seat) -> bool:
        """Whether any model of the army is not destroyed (in Reserves or embarked counts)."""
        return any(u.alive for u in self.units_of(seat))
