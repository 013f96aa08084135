"""The alarm of Rescue after the API playthrough (issue 15, rulings 81): Silenced Weapons
raises it when a model of the target is wounded and alive; a shot raises a pending alarm at
once and ends the Attacker's turn. Every battle's exported log replays to the same state."""

from __future__ import annotations

import json

from app.engine.narrative8e.match import match_missions
from app.engine.wh40k10e.battle import ArmySpec, Battle, BattleOptions, MatchSetup, Seat
from app.engine.wh40k10e.battle.state import Phase, Stage
from tests.engine.wh40k10e.battle.table import unit

MISSIONS = match_missions()


def rescue() -> Battle:
    """A (350 points) attacks B; B's only sentry b1 is two 2-wound models; all deployed; A
    has the first turn, with 3 CP (+1 in its Command phase)."""
    att = ArmySpec("att", (unit("a1", "Raiders", points=200), unit("a2", "Rangers", points=150)))
    dfn = ArmySpec(
        "dfn",
        (
            unit("b1", "Nobz", models=2, wounds=2, points=100),
            unit("b2", "Wardens", points=100),
        ),
    )
    setup = MatchSetup(
        {Seat.A: att, Seat.B: dfn}, "strike_force", MISSIONS["rescue"], BattleOptions(starting_cp=3)
    )
    bt = Battle.create(setup)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "deploy_forces", "units": ["b1"], "reserves": ["b2"]}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    assert (bt.state.stage, bt.state.active, bt.state.round) == (Stage.BATTLE, Seat.A, 1)
    return bt


def to_phase(bt: Battle, phase: Phase) -> None:
    while bt.state.phase is not phase:
        if bt.state.window is not None:
            bt.execute_json({"type": "pass"}, str(bt.state.window), dice=[])
            continue
        bt.execute_json({"type": "end_phase"}, "A", dice=[])


def shoot(bt: Battle, shooter: str, damage: list[int]) -> None:
    bt.execute_json({"type": "shoot", "unit": shooter, "targets": ["b1"]}, "A")
    bt.execute_json(
        {"type": "resolve_attack", "attacker": shooter, "target": "b1", "damage": damage}, "A"
    )


def alarm(bt: Battle) -> tuple[str, str | None, int | None]:
    n = bt.state.narrative
    assert n is not None
    return (
        n.alarm.state.value,
        None if n.alarm.cause is None else n.alarm.cause.value,
        n.alarm.round,
    )


def replays(bt: Battle) -> None:
    assert Battle.import_log(json.loads(json.dumps(bt.export_log()))).state == bt.state


def silenced(bt: Battle) -> None:
    to_phase(bt, Phase.SHOOTING)
    cp = bt.state.players[Seat.A].cp
    bt.execute_json({"type": "use_mission_stratagem", "stratagem": "silenced-weapons"}, "A")
    assert bt.state.players[Seat.A].cp == cp - 1


def test_silenced_weapons_wounding_a_sentry_that_survives_raises_the_alarm() -> None:
    bt = rescue()
    silenced(bt)
    shoot(bt, "a2", [1])  # one Nob loses 1 of its 2 wounds and lives
    assert bt.state.units["b1"].wounds == (1, 2)
    assert alarm(bt) == ("raised", "ranged_attack", 1)
    assert (bt.state.active, bt.state.round) == (Seat.B, 1)  # A's turn ended [L106]
    replays(bt)


def test_silenced_weapons_slaying_the_model_or_missing_stays_silent() -> None:
    bt = rescue()
    silenced(bt)
    shoot(bt, "a2", [2])  # the Nob wounded is slain: silent
    assert bt.state.units["b1"].wounds == (0, 2)
    assert alarm(bt) == ("calm", None, None)
    shoot(bt, "a1", [])  # no wound lost: silent
    assert alarm(bt) == ("calm", None, None)
    assert (bt.state.active, bt.state.phase) == (Seat.A, Phase.SHOOTING)
    replays(bt)


def test_silenced_weapons_one_wounded_survivor_among_the_slain_raises_it() -> None:
    bt = rescue()
    silenced(bt)
    shoot(bt, "a2", [2, 1])  # the first Nob slain, the second wounded and alive
    assert bt.state.units["b1"].wounds == (0, 1)
    assert alarm(bt) == ("raised", "ranged_attack", 1)
    assert bt.state.active is Seat.B
    replays(bt)


def test_a_shot_without_silenced_weapons_raises_it_even_if_it_kills() -> None:
    bt = rescue()
    to_phase(bt, Phase.SHOOTING)
    shoot(bt, "a2", [2, 2])
    assert bt.state.units["b1"].wounds == (0, 0)
    assert alarm(bt) == ("raised", "ranged_attack", 1)
    assert bt.state.active is Seat.B
    replays(bt)


def test_a_shot_while_the_alarm_is_pending_raises_it_and_ends_the_turn() -> None:
    bt = rescue()
    to_phase(bt, Phase.MOVEMENT)
    scan = {"type": "use_mission_stratagem", "stratagem": "beacon-scan", "target": "3"}
    bt.execute_json(scan, "A", dice=[6])  # the spy found at place 3: pending
    assert alarm(bt) == ("pending", "spy_found", None)
    to_phase(bt, Phase.SHOOTING)
    shoot(bt, "a2", [1])
    assert alarm(bt) == ("raised", "ranged_attack", 1)
    assert (bt.state.active, bt.state.round) == (Seat.B, 1)  # the rest of A's turn is lost
    n = bt.state.narrative
    assert n is not None
    assert n.spy_found_at == "3"
    replays(bt)


def test_a_silenced_miss_leaves_a_pending_alarm_for_the_end_of_the_turn() -> None:
    bt = rescue()
    to_phase(bt, Phase.MOVEMENT)
    bt.execute_json(
        {"type": "use_mission_stratagem", "stratagem": "beacon-scan", "target": "3"}, "A", dice=[6]
    )
    silenced(bt)
    shoot(bt, "a2", [])
    assert alarm(bt) == ("pending", "spy_found", None)
    assert bt.state.active is Seat.A
    while bt.state.active is Seat.A:
        if bt.state.window is not None:
            bt.execute_json({"type": "pass"}, str(bt.state.window), dice=[])
            continue
        bt.execute_json({"type": "end_phase"}, "A", dice=[])
    assert alarm(bt) == ("raised", "spy_found", 1)
    replays(bt)


# -- the deployment the legal actions suggest ------------------------------------------------------


def test_the_suggested_deployment_of_the_sentries_step_is_accepted() -> None:
    from app.engine.match.codec import to_json
    from app.engine.wh40k10e.battle.narrative_rules import deploy_suggestion

    att = ArmySpec("att", (unit("a1", "Raiders", points=200), unit("a2", "Rangers", points=150)))
    dfn = ArmySpec(
        "dfn",
        (
            unit("b1", "Horde", models=20, points=120),  # too many models to be a sentry
            unit("b2", "Wardens", points=100),
            unit("b3", "Guards", points=90),
        ),
    )
    setup = MatchSetup(
        {Seat.A: att, Seat.B: dfn}, "strike_force", MISSIONS["rescue"], BattleOptions(starting_cp=3)
    )
    bt = Battle.create(setup)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    suggested = to_json(deploy_suggestion(bt.state, Seat.B))
    assert suggested == {"units": ["b2"], "reserves": ["b1", "b3"]}
    bt.execute_json({"type": "deploy_forces", **suggested}, "B")
    assert [u for u in ("b1", "b2", "b3") if bt.state.on_battlefield(u)] == ["b2"]
    # the Attacker's step: every unit set up
    suggested = to_json(deploy_suggestion(bt.state, Seat.A))
    assert suggested == {"units": ["a1", "a2"], "reserves": []}
    bt.execute_json({"type": "deploy_forces", **suggested}, "A")
    assert bt.state.stage is Stage.ROLL_OFF
    replays(bt)


# -- the spy that cannot be placed (rulings 82) ----------------------------------------------------


def test_the_spy_not_placed_ends_the_battle_with_the_defenders_victory() -> None:
    import pytest

    from app.engine.match.errors import Refusal
    from app.engine.roller import Roller
    from app.engine.wh40k10e.battle.flow import Builder
    from app.engine.wh40k10e.battle.narrative import NarrativeEvaluated, SpyKilled
    from app.engine.wh40k10e.battle.narrative_rules import report_spy_unplaced

    bt = rescue()
    to_phase(bt, Phase.MOVEMENT)
    with pytest.raises(Refusal, match="not found"):  # no spy found yet
        report_spy_unplaced(Builder(bt.state, Seat.A, Roller(1)))
    bt.execute_json(
        {"type": "use_mission_stratagem", "stratagem": "beacon-scan", "target": "3"}, "A", dice=[6]
    )
    with pytest.raises(Refusal, match="your opponent's turn"):
        report_spy_unplaced(Builder(bt.state, Seat.B, Roller(1)))
    b = Builder(bt.state, Seat.A, Roller(1))
    report_spy_unplaced(b)
    kinds = [o.event.kind for o in b.out]
    assert kinds[0] == SpyKilled.kind
    assert kinds[-2:] == ["narrative_evaluated", "battle_ended"]
    (evaluated,) = [o.event for o in b.out if isinstance(o.event, NarrativeEvaluated)]
    assert evaluated.breakdown == (
        {"side": "defender", "item": "spy_could_not_be_placed", "vp": 0, "detail": ""},
    )
    assert (evaluated.winner, evaluated.result, evaluated.vp) == (Seat.B, "victory", None)
    assert b.state.stage is Stage.ENDED
    assert b.state.result is not None
    assert (b.state.result.reason, b.state.result.winner) == ("spy_not_placed", Seat.B)
    n = b.state.narrative
    assert n is not None
    assert not n.spy_alive
    # in its own turn the Defender does not report it either
    while bt.state.active is Seat.A:
        if bt.state.window is not None:
            bt.execute_json({"type": "pass"}, str(bt.state.window), dice=[])
            continue
        bt.execute_json({"type": "end_phase"}, "A", dice=[])
    with pytest.raises(Refusal, match="the Attacker places the spy it found"):
        report_spy_unplaced(Builder(bt.state, Seat.B, Roller(1)))
