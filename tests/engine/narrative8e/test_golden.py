"""Two scenarios played through the engine to their victory, dice given by hand."""

from __future__ import annotations

from app.engine.narrative8e.battle import (
    Alarm,
    AlarmCause,
    SustainedAssault,
    battle_continues,
    reserve_roll,
)
from app.engine.narrative8e.objectives import Sabotage
from app.engine.narrative8e.pack import MissionPack, ResultKind, Side
from app.engine.narrative8e.setup import (
    BombardmentTarget,
    HiddenDeployment,
    Player,
    choose_roles,
    first_turn,
    preliminary_bombardment,
)
from app.engine.narrative8e.victory import LastStandFacts, SabotageFacts, evaluate
from app.engine.roller import Roller


def test_meat_grinder_from_tokens_to_a_defender_major_victory(pack: MissionPack) -> None:
    mg = pack.mission("meat-grinder")
    roles = choose_roles(mg, 2000, 1500, Roller.from_values([]))
    assert roles.attacker is Player.A
    hd = HiddenDeployment.for_mission(mg).place(
        ["bunker-squad", "heavy"], {"1": "bunker-squad", "2": "heavy"}
    )
    assert "heavy" not in str(hd.public_view())
    hd = hd.reveal_all()
    hits = preliminary_bombardment(
        pack.rules.bombardment,
        [
            BombardmentTarget("bunker-squad", infantry=True, go_to_ground=True),
            BombardmentTarget("heavy"),
        ],
        Roller.from_values([6, 2, 1]),
    )
    assert [(h.unit, h.mortal_wounds) for h in hits] == [("bunker-squad", 2), ("heavy", 0)]
    assert first_turn(mg, Roller.from_values([2])).first is Side.ATTACKER
    sa = SustainedAssault().destroy("assault-squad")
    sa, rolls = sa.end_of_movement_phase(
        pack.rules.sustained_assault, troops=["assault-squad"], roller=Roller.from_values([2])
    )
    assert rolls[0].returns
    assert sa.returned == ("assault-squad",)
    end = battle_continues(pack.rules, 5, Roller.from_values([2]))
    assert not end.continues
    result = evaluate(mg, LastStandFacts(defender_models_on_table=3))
    assert (result.winner, result.result) == (Side.DEFENDER, ResultKind.MAJOR_VICTORY)


def test_sabotage_alarm_reserves_and_the_final_roll(pack: MissionPack) -> None:
    sab = pack.mission("sabotage")
    alarm = Alarm()
    alarm, effect = alarm.end_of_movement_phase(1, Side.ATTACKER, {"scout": (7.0, 6.0)})
    assert effect is None
    sabotage = Sabotage().attempt("infiltrators", 2, distance=2.0)
    alarm = alarm.at_end_of_turn(AlarmCause.SABOTAGE_ATTEMPT)
    alarm, effect = alarm.end_turn(2, Side.ATTACKER)
    assert alarm.raised
    assert effect is not None
    assert not effect.defender_extra_turn
    alarm = alarm.defender_turn_starts()
    dfn = sab.reserve_policy(Side.DEFENDER)
    arrivals = [
        reserve_roll(
            dfn, u, round_=2, own_phase=2, roller=r, alarm_turns=alarm.defender_turns_since
        )
        for u, r in (("guard", Roller.from_values([3])), ("tank", Roller.from_values([2])))
    ]
    assert [a.arrives for a in arrivals] == [True, False]
    sabotage = sabotage.attempt("commandos", 3, distance=1.0)
    result = evaluate(sab, SabotageFacts(attempts=sabotage.count), Roller.from_values([5]))
    assert (result.winner, result.result, result.dice) == (
        Side.ATTACKER,
        ResultKind.MAJOR_VICTORY,
        (5,),
    )
