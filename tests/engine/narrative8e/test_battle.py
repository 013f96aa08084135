"""During the battle, with dice given by hand: game length, reserves, sentries, the alarm state
machine, sustained assault."""

from __future__ import annotations

import pytest

from app.engine.narrative8e.battle import (
    Alarm,
    AlarmCause,
    AlarmState,
    SustainedAssault,
    battle_continues,
    detection_range,
    may_cull,
    reserve_roll,
    sentry_moves,
)
from app.engine.narrative8e.pack import MissionPack, ReserveMode, ReservePolicy, Side
from app.engine.narrative8e.setup import NarrativeError
from app.engine.roller import Roller


def test_random_game_length(pack: MissionPack) -> None:
    """[L70]: after round 5 the first player goes on on 3+, after 6 the second on 4+, 7 ends."""
    rules = pack.rules
    empty = Roller.from_values([])
    assert battle_continues(rules, 4, empty).continues
    assert empty.remaining_given == 0
    r5 = battle_continues(rules, 5, Roller.from_values([3]))
    assert (r5.continues, r5.roller, r5.die) == (True, "first", 3)
    assert not battle_continues(rules, 5, Roller.from_values([2])).continues
    r6 = battle_continues(rules, 6, Roller.from_values([3]))
    assert (r6.continues, r6.roller) == (False, "second")
    assert battle_continues(rules, 6, Roller.from_values([4])).continues
    assert not battle_continues(rules, 7, Roller.from_values([])).continues


def test_default_reserves_from_own_second_movement_phase_on_three(pack: MissionPack) -> None:
    """[L78]."""
    policy = pack.mission("meat-grinder").reserve_policy(Side.ATTACKER)
    early = reserve_roll(policy, "u", round_=1, own_phase=1, roller=Roller.from_values([]))
    assert (early.arrives, early.reason) == (False, "too_early")
    assert not reserve_roll(
        policy, "u", round_=2, own_phase=2, roller=Roller.from_values([2])
    ).arrives
    assert reserve_roll(policy, "u", round_=2, own_phase=2, roller=Roller.from_values([3])).arrives


def test_meat_grinder_defender_never_arrives_late(pack: MissionPack) -> None:
    """[L135]."""
    policy = pack.mission("meat-grinder").reserve_policy(Side.DEFENDER)
    r = reserve_roll(
        policy, "u", round_=3, own_phase=3, roller=Roller.from_values([]), automatic=True
    )
    assert (r.arrives, r.reason) == (False, "not_allowed")


def test_patrol_reserves_and_their_stratagems(pack: MissionPack) -> None:
    """[L283] from round 2, Attacker 4+, Defender 3+, automatic at the 4th own Movement phase;
    [L305] +1; [L323] -1/-2; [L317] automatic."""
    patrol = pack.mission("patrol")
    att, dfn = patrol.reserve_policy(Side.ATTACKER), patrol.reserve_policy(Side.DEFENDER)
    assert reserve_roll(att, "u", round_=1, own_phase=1, roller=Roller(1)).reason == "too_early"
    assert not reserve_roll(att, "u", round_=2, own_phase=2, roller=Roller.from_values([3])).arrives
    plus = reserve_roll(att, "u", round_=2, own_phase=2, roller=Roller.from_values([3]), modifier=1)
    assert (plus.arrives, plus.die, plus.modifier) == (True, 3, 1)
    assert reserve_roll(dfn, "u", round_=3, own_phase=3, roller=Roller.from_values([3])).arrives
    assert not reserve_roll(
        dfn, "u", round_=3, own_phase=3, roller=Roller.from_values([4]), modifier=-2
    ).arrives
    assert (
        reserve_roll(dfn, "u", round_=2, own_phase=2, roller=Roller(1), automatic=True).reason
        == "stratagem"
    )
    auto = reserve_roll(att, "u", round_=4, own_phase=4, roller=Roller.from_values([]))
    assert (auto.arrives, auto.reason) == (True, "automatic")


def test_alarm_gated_reserves_of_sabotage_and_rescue(pack: MissionPack) -> None:
    """[L427-L431] Sabotage: Attacker free; Defender after the alarm, 3+ in the first turn after,
    then free. [L515] Rescue: 4+."""
    sab = pack.mission("sabotage")
    free = reserve_roll(
        sab.reserve_policy(Side.ATTACKER), "u", round_=1, own_phase=1, roller=Roller(1)
    )
    assert (free.arrives, free.reason) == (True, "free")
    dfn = sab.reserve_policy(Side.DEFENDER)
    assert reserve_roll(dfn, "u", round_=3, own_phase=3, roller=Roller(1)).reason == "before_alarm"
    assert reserve_roll(
        dfn, "u", round_=3, own_phase=3, roller=Roller.from_values([3]), alarm_turns=1
    ).arrives
    assert (
        reserve_roll(dfn, "u", round_=4, own_phase=4, roller=Roller(1), alarm_turns=2).reason
        == "free"
    )
    rescue = pack.mission("rescue").reserve_policy(Side.DEFENDER)
    assert not reserve_roll(
        rescue, "u", round_=3, own_phase=3, roller=Roller.from_values([3]), alarm_turns=1
    ).arrives
    assert reserve_roll(
        rescue, "u", round_=3, own_phase=3, roller=Roller(1), alarm_turns=1, automatic=True
    ).arrives


def test_detection_range_bands_and_modifiers(pack: MissionPack) -> None:
    """[L98-L104] bands; [L459] Camouflage halves the value; [L469] +3"; [L541] halved."""
    power = pack.rules.sentries.detection_power
    points = pack.rules.sentries.detection_points
    assert [detection_range(power, v) for v in (5, 6, 10, 11, 19, 20)] == [3, 6, 6, 9, 9, 12]
    assert [detection_range(points, v) for v in (99, 100, 199, 200, 399, 400)] == [
        3,
        6,
        6,
        9,
        9,
        12,
    ]
    assert detection_range(power, 21, camouflage=True) == 6  # 21 // 2 = 10
    assert detection_range(power, 21, camouflage=True, sensors=3) == 9
    assert detection_range(power, 21, sensors=3, halved=True) == 7.5


def test_sentries_move_by_roll_off_and_a_tie_stays() -> None:
    """[L88]: the winner moves the sentry up to their die; a tie, no move."""
    moves = sentry_moves(["s1", "s2", "s3"], Roller.from_values([5, 2, 3, 3, 1, 4]))
    assert [(m.sentry, m.mover, m.inches) for m in moves] == [
        ("s1", Side.ATTACKER, 5),
        ("s2", None, 0),
        ("s3", Side.DEFENDER, 4),
    ]


def test_alarm_from_a_shot_truncates_the_attackers_turn() -> None:
    """[L92], [L106]: shooting raises it; the Attacker's turn ends after that action; the
    Defender then controls the sentries."""
    alarm = Alarm()
    assert alarm.sentries_controlled_by is None
    raised, effect = alarm.ranged_attack(2)
    assert raised.state is AlarmState.RAISED
    assert raised.round == 2
    assert effect is not None
    assert effect.truncate_turn
    assert not effect.defender_extra_turn
    assert raised.sentries_controlled_by is Side.DEFENDER
    again, none = raised.psychic_power(2)
    assert again is raised
    assert none is None


def test_silenced_weapons_only_a_survivor_that_lost_a_wound_raises_it() -> None:
    """[L455]."""
    calm, effect = Alarm().ranged_attack(1, silenced=True)
    assert calm.state is AlarmState.CALM
    assert effect is None
    raised, _ = Alarm().ranged_attack(1, silenced=True, target_wounded_and_alive=True)
    assert raised.cause is AlarmCause.RANGED_ATTACK


def test_fight_and_detection_triggers() -> None:
    """[L94] a sentry attacked and not killed; [L96] detection at the end of a Movement
    phase, in the Defender's turn too (then the Defender may start a new turn)."""
    assert Alarm().fought_sentry(1, killed=True)[0].state is AlarmState.CALM
    assert Alarm().fought_sentry(1, killed=False)[0].cause is AlarmCause.SENTRY_SURVIVED_FIGHT
    calm, _ = Alarm().end_of_movement_phase(1, Side.ATTACKER, {"m1": (6.5, 6.0)})
    assert calm.state is AlarmState.CALM
    raised, effect = Alarm().end_of_movement_phase(1, Side.DEFENDER, {"m1": (6.0, 6.0)})
    assert raised.cause is AlarmCause.DETECTED
    assert effect is not None
    assert effect.defender_extra_turn
    assert not effect.truncate_turn


def test_pending_alarm_is_raised_at_the_end_of_the_turn_and_unlocks_reserves(
    pack: MissionPack,
) -> None:
    """[L439] the first sabotage attempt (or [L521] the spy found) raises it at the end of the
    turn; the Defender's next turn is its first after the alarm (3+), the next one free."""
    alarm = Alarm().at_end_of_turn(AlarmCause.SABOTAGE_ATTEMPT)
    assert alarm.state is AlarmState.PENDING
    assert not alarm.raised
    alarm, effect = alarm.end_turn(3, Side.ATTACKER)
    assert alarm.raised
    assert effect is not None
    assert not effect.truncate_turn
    dfn = pack.mission("sabotage").reserve_policy(Side.DEFENDER)
    alarm = alarm.defender_turn_starts()
    r = reserve_roll(
        dfn,
        "u",
        round_=3,
        own_phase=3,
        roller=Roller.from_values([2]),
        alarm_turns=alarm.defender_turns_since,
    )
    assert (r.arrives, r.die) == (False, 2)
    alarm = alarm.defender_turn_starts()
    r = reserve_roll(
        dfn,
        "u",
        round_=4,
        own_phase=4,
        roller=Roller.from_values([]),
        alarm_turns=alarm.defender_turns_since,
    )
    assert (r.arrives, r.reason) == (True, "free")


def test_quarter_rule(pack: MissionPack) -> None:
    """[L112]: a quarter or less of the starting models (single model: wounds)."""
    rule = pack.rules.sustained_assault
    assert may_cull(rule, starting_models=10, models_left=2)
    assert not may_cull(rule, starting_models=10, models_left=3)
    assert may_cull(rule, starting_models=4, models_left=1)
    assert may_cull(rule, starting_models=1, models_left=1, starting_wounds=12, wounds_left=3)
    assert not may_cull(rule, starting_models=1, models_left=1, starting_wounds=12, wounds_left=4)
    with pytest.raises(NarrativeError):
        may_cull(rule, starting_models=1, models_left=1)


def test_sustained_assault_returns_units_on_four_with_troops_bonus(pack: MissionPack) -> None:
    """[L112]: D6 per destroyed unit, +2 for Troops, 4+ returns."""
    rule = pack.rules.sustained_assault
    sa = SustainedAssault().destroy("tanks").destroy("guard").destroy("scouts", culled=True)
    sa, rolls = sa.end_of_movement_phase(
        rule, troops=["guard"], roller=Roller.from_values([3, 2, 4])
    )
    assert [(r.unit, r.die, r.bonus, r.returns) for r in rolls] == [
        ("tanks", 3, 0, False),
        ("guard", 2, 2, True),
        ("scouts", 4, 0, True),
    ]
    assert sa.destroyed == ("tanks",)
    assert sa.returned == ("guard", "scouts")
    sa = sa.destroy("guard")
    assert sa.destructions == ("tanks", "guard", "scouts", "guard")
    assert sa.culled == ("scouts",)
    with pytest.raises(NarrativeError, match="already destroyed"):
        sa.destroy("guard")


def test_reserve_policy_none_is_data() -> None:
    assert (
        reserve_roll(
            ReservePolicy(ReserveMode.NONE), "u", round_=1, own_phase=1, roller=Roller(1)
        ).reason
        == "not_allowed"
    )
