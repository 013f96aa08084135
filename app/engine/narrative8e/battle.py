"""During the battle: random game length, reserves, sentries and the alarm, sustained assault.

The alarm of Sabotage and Rescue is :class:`Alarm`, an immutable state machine (calm, pending
until the end of a turn, raised); :class:`SustainedAssault` keeps the Attacker's destroyed units
and every destruction (Blitz scores each one). Dice come from a
:class:`~app.engine.roller.Roller`.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace

from app.engine.narrative8e.pack import (
    DetectionBand,
    NarrativeRules,
    ReserveMode,
    ReservePolicy,
    Side,
    SustainedAssaultRule,
)
from app.engine.narrative8e.setup import NarrativeError
from app.engine.roller import Roller

__all__ = [
    "Alarm",
    "AlarmCause",
    "AlarmEffect",
    "AlarmState",
    "GameLengthRoll",
    "ReserveRoll",
    "SentryMove",
    "SustainedAssault",
    "battle_continues",
    "detection_range",
    "may_cull",
    "reserve_roll",
    "sentry_moves",
]


# -- random game length ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GameLengthRoll:
    round: int
    continues: bool
    roller: str | None = None
    die: int | None = None


def battle_continues(rules: NarrativeRules, round_: int, roller: Roller) -> GameLengthRoll:
    """At the end of ``round_``: round 5, the player who had the first turn rolls, 3+ goes on;
    round 6, the second player, 4+; the battle always ends after round 7 [L70]. Other rounds
    before the last go on without a roll."""
    if round_ >= rules.game_length_last_round:
        return GameLengthRoll(round_, False)
    for check in rules.game_length:
        if check.after_round == round_:
            die = roller.d6(f"game length after round {round_}", stage="game_length")
            return GameLengthRoll(round_, die >= check.continue_on, check.roller, die)
    return GameLengthRoll(round_, True)


# -- reserves -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ReserveRoll:
    unit: str
    arrives: bool
    die: int | None = None
    modifier: int = 0
    reason: str = ""
    """``"rolled"``, ``"automatic"``, ``"free"``, ``"too_early"``, ``"not_allowed"``,
    ``"before_alarm"``, ``"stratagem"``."""


def reserve_roll(
    policy: ReservePolicy,
    unit: str,
    *,
    round_: int,
    own_phase: int,
    roller: Roller,
    modifier: int = 0,
    automatic: bool = False,
    alarm_turns: int | None = None,
) -> ReserveRoll:
    """Whether one reserve unit (a transport rolls once for itself and its passengers [L78])
    arrives at the end of its side's Movement phase number ``own_phase`` of battle round
    ``round_``.

    - ``roll``: from ``from_round`` and ``from_own_phase``, a D6 + ``modifier`` (*Signal the
      Attack!* +1 [L305], *Delayed Reserves* -1/-2 [L323]) at or above ``arrive_on``; at
      ``automatic_at_own_phase`` the unit arrives without a roll (Patrol [L283]); the default
      policy is from the own 2nd Movement phase on 3+ [L78];
    - ``free``: any unit may arrive (Sabotage, Rescue Attacker [L427, L511]);
    - ``alarm``: nothing before the alarm; in the side's first turn after it (``alarm_turns``
      = 1) a D6 at or above ``first_turn_after_alarm_on``; later turns freely [L431, L515];
    - ``none``: never (Meat Grinder Defender [L135]).

    ``automatic`` is a stratagem that brings the unit in without rolling (*Rapid
    Reinforcements* [L317], *Rapid Reaction* [L555]); it never beats ``none`` or the alarm.
    """
    if policy.mode is ReserveMode.NONE:
        return ReserveRoll(unit, False, reason="not_allowed")
    if policy.mode is ReserveMode.FREE:
        return ReserveRoll(unit, True, reason="free")
    if policy.mode is ReserveMode.ALARM:
        if alarm_turns is None or alarm_turns < 1:
            return ReserveRoll(unit, False, reason="before_alarm")
        if alarm_turns > 1:
            return ReserveRoll(unit, True, reason="free")
        if automatic:
            return ReserveRoll(unit, True, reason="stratagem")
        assert policy.first_turn_after_alarm_on is not None
        die = roller.d6(f"reserve roll: {unit}", stage="reserves")
        total = die + modifier
        return ReserveRoll(
            unit, total >= policy.first_turn_after_alarm_on, die, modifier, reason="rolled"
        )
    if round_ < policy.from_round or own_phase < policy.from_own_phase:
        return ReserveRoll(unit, False, reason="too_early")
    if policy.automatic_at_own_phase is not None and own_phase >= policy.automatic_at_own_phase:
        return ReserveRoll(unit, True, reason="automatic")
    if automatic:
        return ReserveRoll(unit, True, reason="stratagem")
    assert policy.arrive_on is not None
    die = roller.d6(f"reserve roll: {unit}", stage="reserves")
    return ReserveRoll(unit, die + modifier >= policy.arrive_on, die, modifier, reason="rolled")


# -- sentries -------------------------------------------------------------------------------


def detection_range(
    bands: Iterable[DetectionBand],
    unit_value: int,
    *,
    camouflage: bool = False,
    sensors: int = 0,
    halved: bool = False,
) -> float:
    """How close an Attacker model may come to a sentry before it is detected [L96-L104]: the
    band of its unit's value (points, or Power Level); *Camouflage* halves the value first,
    rounding down [L459]; *Sensors* then add 3" [L469]; *Night Raid* halves the result in the
    first round [L541] (rulings A20)."""
    value = unit_value // 2 if camouflage else unit_value
    for band in bands:
        if band.up_to is None or value <= band.up_to:
            reach = float(band.range + sensors)
            return reach / 2 if halved else reach
    raise NarrativeError("the detection bands have no open last band")


@dataclass(frozen=True, slots=True)
class SentryMove:
    sentry: str
    attacker_die: int
    defender_die: int
    mover: Side | None
    """``None`` on a tie: the sentry does not move [L88]."""
    inches: int


def sentry_moves(order: Iterable[str], roller: Roller) -> tuple[SentryMove, ...]:
    """Before the alarm, at the start of each Defender Movement phase, the players roll off for
    each sentry model, in the Defender's order; the winner may move it up to their die in
    inches (no Advance); a tie, no move [L88]. After the alarm the Defender controls the sentries
    and moves them normally (rulings A5): call this only while the alarm is calm."""
    out: list[SentryMove] = []
    for sentry in order:
        att = roller.d6(f"sentry {sentry}: Attacker", stage="sentries")
        dfn = roller.d6(f"sentry {sentry}: Defender", stage="sentries")
        if att == dfn:
            out.append(SentryMove(sentry, att, dfn, None, 0))
        elif att > dfn:
            out.append(SentryMove(sentry, att, dfn, Side.ATTACKER, att))
        else:
            out.append(SentryMove(sentry, att, dfn, Side.DEFENDER, dfn))
    return tuple(out)


# -- the alarm ------------------------------------------------------------------------------


class AlarmState(enum.StrEnum):
    CALM = "calm"
    PENDING = "pending"
    """A trigger that raises the alarm at the end of the current turn (first sabotage attempt
    [L439], spy found [L521])."""
    RAISED = "raised"


class AlarmCause(enum.StrEnum):
    RANGED_ATTACK = "ranged_attack"
    PSYCHIC_POWER = "psychic_power"
    SENTRY_SURVIVED_FIGHT = "sentry_survived_fight"
    DETECTED = "detected"
    SABOTAGE_ATTEMPT = "sabotage_attempt"
    SPY_FOUND = "spy_found"


@dataclass(frozen=True, slots=True)
class AlarmEffect:
    """What raising the alarm does now [L106]."""

    cause: AlarmCause
    truncate_turn: bool
    """The Attacker's turn ends once the triggering action is finished."""
    defender_extra_turn: bool
    """Raised in the Defender's turn: the Defender may start a new turn at once."""


@dataclass(frozen=True, slots=True)
class Alarm:
    """The alarm of Sabotage and Rescue: calm, then raised (with its round, turn side and
    cause). While calm the sentries move by roll-off; once raised the Defender controls them
    and its reserves may come in (counted by :attr:`defender_turns_since`)."""

    state: AlarmState = AlarmState.CALM
    cause: AlarmCause | None = None
    round: int | None = None
    during: Side | None = None
    defender_turns_since: int = 0
    """Defender turns begun since the alarm was raised (1: the first one, its reserves roll)."""

    @property
    def raised(self) -> bool:
        return self.state is AlarmState.RAISED

    @property
    def sentries_controlled_by(self) -> Side | None:
        """``DEFENDER`` once raised; ``None`` while calm (sentries move by roll-off)."""
        return Side.DEFENDER if self.raised else None

    def _raise(self, cause: AlarmCause, round_: int, during: Side) -> tuple[Alarm, AlarmEffect]:
        alarm = replace(self, state=AlarmState.RAISED, cause=cause, round=round_, during=during)
        effect = AlarmEffect(
            cause,
            truncate_turn=during is Side.ATTACKER,
            defender_extra_turn=during is Side.DEFENDER,
        )
        return alarm, effect

    def ranged_attack(
        self,
        round_: int,
        *,
        silenced: bool = False,
        target_wounded_and_alive: bool = False,
    ) -> tuple[Alarm, AlarmEffect | None]:
        """An Attacker model shoots [L92]; with *Silenced Weapons* only if the target lost a
        wound and survived [L455]."""
        if self.raised or (silenced and not target_wounded_and_alive):
            return self, None
        return self._raise(AlarmCause.RANGED_ATTACK, round_, Side.ATTACKER)

    def psychic_power(self, round_: int) -> tuple[Alarm, AlarmEffect | None]:
        """An Attacker model manifests a power [L92] (10th edition: uses a PSYCHIC ability)."""
        if self.raised:
            return self, None
        return self._raise(AlarmCause.PSYCHIC_POWER, round_, Side.ATTACKER)

    def fought_sentry(self, round_: int, *, killed: bool) -> tuple[Alarm, AlarmEffect | None]:
        """An Attacker model attacked a sentry in the Fight phase; the alarm if it lives [L94]."""
        if self.raised or killed:
            return self, None
        return self._raise(AlarmCause.SENTRY_SURVIVED_FIGHT, round_, Side.ATTACKER)

    def end_of_movement_phase(
        self, round_: int, during: Side, distances: Mapping[str, tuple[float, float]]
    ) -> tuple[Alarm, AlarmEffect | None]:
        """At the end of any Movement phase: ``distances`` maps each Attacker model to (its
        distance to the nearest sentry, its detection range); within range, even unseen, it is
        detected [L96]."""
        if self.raised:
            return self, None
        if any(d <= reach for d, reach in distances.values()):
            return self._raise(AlarmCause.DETECTED, round_, during)
        return self, None

    def at_end_of_turn(self, cause: AlarmCause) -> Alarm:
        """The first sabotage attempt [L439] or the spy found [L521]: raised at the end of this
        turn, even with no sentry left."""
        if self.state is not AlarmState.CALM:
            return self
        return replace(self, state=AlarmState.PENDING, cause=cause)

    def end_turn(self, round_: int, during: Side) -> tuple[Alarm, AlarmEffect | None]:
        """The end of a player turn: a pending alarm is raised (nothing left of the turn to
        truncate)."""
        if self.state is not AlarmState.PENDING:
            return self, None
        assert self.cause is not None
        alarm = replace(self, state=AlarmState.RAISED, round=round_, during=during)
        return alarm, AlarmEffect(self.cause, False, during is Side.DEFENDER)

    def defender_turn_starts(self) -> Alarm:
        """A Defender turn begins (the extra turn of [L106] included)."""
        if not self.raised:
            return self
        return replace(self, defender_turns_since=self.defender_turns_since + 1)


# -- sustained assault ----------------------------------------------------------------------


def may_cull(
    rule: SustainedAssaultRule,
    *,
    starting_models: int,
    models_left: int,
    starting_wounds: int = 0,
    wounds_left: int = 0,
) -> bool:
    """At the end of its turn the Attacker may remove a unit down to a quarter or less of its
    starting models (a single-model unit: of its starting wounds); it counts as destroyed
    [L112]."""
    if starting_models < 1:
        raise NarrativeError("a unit starts with at least one model")
    n, d = rule.cull_numerator, rule.cull_denominator
    if starting_models == 1:
        if starting_wounds < 1:
            raise NarrativeError("a single-model unit needs its starting wounds")
        return wounds_left > 0 and wounds_left * d <= starting_wounds * n
    return models_left > 0 and models_left * d <= starting_models * n


@dataclass(frozen=True, slots=True)
class ReturnRoll:
    unit: str
    die: int
    bonus: int
    returns: bool


@dataclass(frozen=True, slots=True)
class SustainedAssault:
    """The Attacker's destroyed units, which may come back [L112]; ``destructions`` counts every
    time an Attacker unit was destroyed or culled (Blitz scores each [L371], rulings A14)."""

    destroyed: tuple[str, ...] = ()
    destructions: tuple[str, ...] = ()
    culled: tuple[str, ...] = ()
    returned: tuple[str, ...] = ()

    def destroy(self, unit: str, *, culled: bool = False) -> SustainedAssault:
        """An Attacker unit is destroyed (``culled``: removed at a quarter strength)."""
        if unit in self.destroyed:
            raise NarrativeError(f"unit {unit!r} is already destroyed")
        return replace(
            self,
            destroyed=(*self.destroyed, unit),
            destructions=(*self.destructions, unit),
            culled=(*self.culled, unit) if culled else self.culled,
        )

    def end_of_movement_phase(
        self, rule: SustainedAssaultRule, troops: Iterable[str], roller: Roller
    ) -> tuple[SustainedAssault, tuple[ReturnRoll, ...]]:
        """A D6 per destroyed unit (+2 for Troops: BATTLELINE or INFANTRY in the 10th edition,
        rulings); 4+ sets it up again within 6" of the mission's edge."""
        troop_set = set(troops)
        rolls: list[ReturnRoll] = []
        for unit in self.destroyed:
            die = roller.d6(f"sustained assault: {unit}", stage="sustained_assault")
            bonus = rule.troops_bonus if unit in troop_set else 0
            rolls.append(ReturnRoll(unit, die, bonus, die + bonus >= rule.return_on))
        back = tuple(r.unit for r in rolls if r.returns)
        state = replace(
            self,
            destroyed=tuple(u for u in self.destroyed if u not in back),
            returned=(*self.returned, *back),
        )
        return state, tuple(rolls)
