"""Complete scripted battles of "Only War", played command by command.

Each battle checks, along the way and at the end, that the state is the replay of the log and
that the exported JSON log replays to the same state.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from app.engine.match.errors import Refusal
from app.engine.wh40k10e.battle import Code, Formation, Presence, ReserveKind, Seat
from app.engine.wh40k10e.battle.commands import (
    ArriveFromReserves,
    BattleShockTest,
    CompleteCharge,
    Concede,
    ConfirmResult,
    Consolidate,
    DeclareCharge,
    Disembark,
    DisputeResult,
    EndPhase,
    Fight,
    Move,
    Pass,
    ReportObjective,
    ResolveAttack,
    Shoot,
    Undo,
    UseStratagem,
)
from app.engine.wh40k10e.battle.state import Location, MoveMode, Phase, Stage, Step
from tests.engine.wh40k10e.battle.table import (
    Table,
    active,
    confirm_coherency,
    phase,
    result,
    stage,
)


def finish_turn(t: Table, seat: str) -> None:
    """End phases until the other player's turn (or the battle) starts."""
    start = (t.state.round, active(t))
    while stage(t) is Stage.BATTLE and (t.state.round, active(t)) == start:
        if t.state.window is not None:
            t.do(str(t.state.window), Pass())
            continue
        if phase(t) is Phase.COMMAND:
            from app.engine.wh40k10e.battle.rules import shock_tests_pending

            for u in shock_tests_pending(t.state):
                t.do(seat, BattleShockTest(u), dice=[6, 6])
        t.do(seat, EndPhase())


def test_full_battle_with_reserves_stratagems_undo_and_result(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(
        t,
        {
            "A": Formation(
                attachments=(("a-cap", "a-int"),),
                embarked=(("a-tac", "a-rhino"),),
                reserves=(("a-term", ReserveKind.DEEP_STRIKE),),
            ),
            "B": Formation(
                reserves=(("b-dakka", ReserveKind.AIRCRAFT), ("b-nobz", ReserveKind.STRATEGIC)),
            ),
        },
    )
    s = t.state
    assert (s.round, s.active, s.phase) == (1, Seat.A, Phase.COMMAND)
    assert s.players[Seat.A].cp == 1
    assert s.players[Seat.B].cp == 1
    assert s.units["a-cap"].bodyguard == "a-int"
    assert s.units["a-int"].leader == "a-cap"
    assert s.units["a-term"].location is Location.RESERVES
    t.do("A", EndPhase())
    assert phase(t) is Phase.MOVEMENT

    # -- round 1, A: movement -------------------------------------------------------------
    t.do("A", Move("a-int", MoveMode.NORMAL))
    assert t.state.units["a-cap"].move is MoveMode.NORMAL  # the Attached unit moves as one
    t.refused("A", Move("a-cap", MoveMode.ADVANCE), "already_moved")
    t.do("A", Move("a-rhino", MoveMode.NORMAL))
    t.do("A", Disembark("a-tac"))  # the Transport moved: counts as a Normal move [L1260-1266]
    assert t.unit("a-tac").cannot_charge
    assert t.unit("a-tac").move is MoveMode.NORMAL
    # undo the disembark, then do it again: the state is back as it was
    before = t.state
    t.battle.execute(Undo(), "A")
    assert t.unit("a-tac").location is Location.EMBARKED
    t.refused("B", Undo(), "not_your_action")
    t.do("A", Disembark("a-tac"))
    assert t.state == before
    t.do("A", ArriveFromReserves("a-term"))  # Deep Strike: no round limit in this seed
    assert t.state.step is Step.REINFORCEMENTS
    assert t.unit("a-term").move is MoveMode.NORMAL
    assert t.unit("a-term").arrived
    # B reacts with Fire Overwatch just after the Terminators are set up [L3422-3444]
    t.do("B", UseStratagem("fire_overwatch", unit="b-boyz", enemy="a-term"))
    assert t.state.players[Seat.B].cp == 0
    t.do("B", ResolveAttack("b-boyz", "a-term", damage=(1,), seed=77))
    assert t.unit("a-term").wounds == (2, 3, 3, 3, 3)
    t.refused(
        "B",
        UseStratagem("fire_overwatch", unit="b-komm", enemy="a-term"),
        "stratagem_used_this_phase",
    )
    t.do("A", EndPhase())

    # -- shooting: Hellblasters kill five Boyz; B cannot afford Go to Ground ----------------
    t.do("A", Shoot("a-hell", ("b-boyz",)))
    t.refused("B", UseStratagem("go_to_ground", unit="b-boyz"), "not_enough_cp")
    t.do("A", ResolveAttack("a-hell", "b-boyz", damage=(1, 1, 1, 1, 1), seed=5))
    assert t.unit("b-boyz").models_alive == 5
    t.refused("A", Shoot("a-hell", ("b-boyz",)), "already_shot")
    t.do("A", EndPhase())

    # -- charge: the Intercessors and their Captain charge the Boyz -------------------------
    t.refused("A", DeclareCharge("a-tac", ("b-boyz",)), "cannot_charge")
    t.do("A", DeclareCharge("a-int", ("b-boyz",)), dice=[4, 5])
    t.refused("A", CompleteCharge("a-int", True, needed=10), "charge_roll_too_low")
    t.do("A", CompleteCharge("a-int", True, needed=7))
    assert set(t.state.engaged_units("a-int")) == {"b-boyz"}
    assert set(t.state.engaged_units("b-boyz")) == {"a-int", "a-cap"}
    t.do("A", EndPhase())

    # -- fight: Fights First for the chargers, then the Boyz ------------------------------
    assert phase(t) is Phase.FIGHT
    t.refused("B", Fight("b-boyz"), "not_your_turn")
    t.do("A", Fight("a-int", ("b-boyz",)))
    t.refused("A", EndPhase(), "fight_in_progress")
    t.do("A", ResolveAttack("a-int", "b-boyz", damage=(1, 1, 1)))
    t.do("A", Consolidate("a-int"))
    t.refused("A", EndPhase(), "fight_units_remaining")
    t.do("B", Fight("b-boyz", ("a-int",)))
    t.do("B", ResolveAttack("b-boyz", "a-int", damage=(1, 1, 1)))
    assert t.unit("a-int").wounds == (0, 1, 2, 2, 2)  # wounded model first, excess lost
    assert t.unit("a-cap").wounds == (5,)  # Bodyguard first [L3238-3242]
    t.do("B", Consolidate("b-boyz"))
    t.check_replay()
    t.do("A", EndPhase())
    # the end of the turn: both players lost models, both confirm coherency [L449-456]
    assert t.state.coherency == (Seat.A, Seat.B)
    assert phase(t) is Phase.FIGHT
    t.refused("A", EndPhase(), "coherency_pending")
    confirm_coherency(t, "B", "A")

    # -- round 1, B -----------------------------------------------------------------------
    assert (t.state.round, active(t), phase(t)) == (1, Seat.B, Phase.COMMAND)
    assert t.state.players[Seat.A].cp == 2
    assert t.state.players[Seat.B].cp == 1
    # Boyz: 2 of 10 left is Below Half-strength -> test; fail on 2D6 = 5 vs Ld 7
    assert t.unit("b-boyz").models_alive == 2
    t.refused("B", EndPhase(), "shock_tests_pending")
    t.do("B", BattleShockTest("b-boyz"), dice=[2, 3])
    assert t.unit("b-boyz").battle_shocked
    t.refused("B", UseStratagem("insane_bravery", unit="b-nobz"), "stratagem_bad_target")
    t.do("B", UseStratagem("insane_bravery", unit="b-boyz"))  # allowed although shocked
    assert not t.unit("b-boyz").battle_shocked
    t.do("B", EndPhase())
    t.refused("B", ArriveFromReserves("b-nobz"), "reserves_not_yet")  # SR: not in round 1
    t.refused("B", Move("b-boyz", MoveMode.NORMAL), "unit_engaged")
    t.do("B", Move("b-boyz", MoveMode.FALL_BACK))
    assert not t.state.engaged("a-int")
    t.do("B", EndPhase())
    t.refused("B", Shoot("b-boyz", ("a-int",)), "unit_fell_back")
    finish_turn(t, "B")

    # -- round 2: objectives and Take and Hold -------------------------------------------
    assert (t.state.round, active(t)) == (2, Seat.A)
    t.do("A", ReportObjective("1", (Presence("a-hell"),)))
    t.do("A", ReportObjective("2", (Presence("a-int", 2), Presence("a-cap"))))
    t.do("B", ReportObjective("2", (Presence("b-boyz"),)))
    t.do("A", EndPhase())  # end of Command: control, then 1 VP per marker [L4705-4709]
    assert t.state.markers["1"].controller is Seat.A
    assert t.state.markers["2"].controller is Seat.A  # 2x2 + 1x1 = 5 > 2x2 = 4
    assert t.state.players[Seat.A].vp == 2
    finish_turn(t, "A")
    assert active(t) is Seat.B
    t.do("B", BattleShockTest("b-boyz"), dice=[6, 6])  # still Below Half-strength: test again
    assert not t.unit("b-boyz").battle_shocked
    t.do("B", EndPhase())
    assert t.state.players[Seat.B].vp == 0
    t.do("B", ArriveFromReserves("b-nobz"))
    t.do("B", ArriveFromReserves("b-dakka"))
    t.do("B", EndPhase())
    finish_turn(t, "B")

    # -- rounds 3-5 -----------------------------------------------------------------------
    while stage(t) is Stage.BATTLE:
        finish_turn(t, str(active(t)))
    assert stage(t) is Stage.ENDED
    outcome = result(t)
    assert outcome.reason == "rounds_complete"
    # A held 2 markers at the end of each of its Command phases in rounds 2-5 -> 8 VP
    assert outcome.vp == {Seat.A: 8, Seat.B: 0}
    assert outcome.winner is Seat.A
    t.check_replay()

    # -- both confirm, or a dispute is recorded -------------------------------------------
    t.refused("A", Undo(), "cannot_undo")
    t.refused("A", EndPhase(), "battle_over")
    t.do("B", ConfirmResult())
    t.refused("B", ConfirmResult(), "result_settled")
    t.do("A", DisputeResult("marker 2 was out of range"))
    assert t.state.players[Seat.A].result == "disputed"
    assert t.state.players[Seat.B].result == "confirmed"
    t.check_replay()


def test_wipe_out_ends_the_battle_and_the_survivor_wins(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t, {"B": Formation(reserves=(("b-dakka", ReserveKind.AIRCRAFT),))})
    t.do("A", EndPhase())
    t.do("A", EndPhase())
    # A shoots everything on the battlefield of B to death (the Dakkajet is in Reserve)
    for shooter, target in (
        ("a-hell", "b-boyz"),
        ("a-int", "b-nobz"),
        ("a-cap", "b-komm"),
        ("a-term", "b-wagon"),
    ):
        t.do("A", Shoot(shooter, (target,)))
        t.do("A", ResolveAttack(shooter, target, mortal_wounds=100))
    assert stage(t) is Stage.BATTLE  # the Dakkajet in Reserves still lives
    t.refused("A", Shoot("a-rhino", ("b-dakka",)), "bad_target")
    finish_turn(t, "A")
    # B concedes nothing: play on to round 2, the Dakkajet arrives and is shot down
    finish_turn(t, "B")
    finish_turn(t, "A")
    assert t.state.round == 2
    assert active(t) is Seat.B
    t.do("B", EndPhase())
    t.do("B", ArriveFromReserves("b-dakka"))
    for _ in range(4):  # movement, shooting, charge, fight -> round 3, A
        t.do("B", EndPhase())
    assert active(t) is Seat.A
    t.do("A", EndPhase())
    t.do("A", EndPhase())
    t.do("A", Shoot("a-hell", ("b-dakka",)))
    t.do("A", ResolveAttack("a-hell", "b-dakka", damage=(6, 6)))
    assert stage(t) is Stage.ENDED
    assert result(t).reason == "army_destroyed"
    assert result(t).winner is Seat.A
    t.refused("B", Move("b-boyz", MoveMode.NORMAL), "battle_over")
    t.check_replay()


def test_units_still_in_reserve_count_as_destroyed_at_the_end(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(
        t,
        {
            "A": Formation(
                embarked=(("a-tac", "a-rhino"),), reserves=(("a-term", ReserveKind.DEEP_STRIKE),)
            )
        },
    )
    while stage(t) is Stage.BATTLE:
        finish_turn(t, str(active(t)))
    assert result(t).destroyed_in_reserve == ("a-term", "b-dakka")
    assert not t.unit("a-term").alive
    assert not t.unit("b-dakka").alive
    assert result(t).winner is None  # 0-0: a draw [L4808-4810]
    t.check_replay()


def test_concession_ends_the_battle(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    t.do("B", Concede())
    assert result(t).winner is Seat.A
    assert result(t).reason == "concession"
    t.check_replay()


def test_rapid_ingress_window_at_the_end_of_the_opponents_movement(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(
        t,
        {
            "B": Formation(
                reserves=(("b-dakka", ReserveKind.AIRCRAFT), ("b-nobz", ReserveKind.STRATEGIC))
            )
        },
    )
    for _ in range(2):
        finish_turn(t, str(active(t)))
    assert (t.state.round, active(t)) == (2, Seat.A)
    t.do("A", EndPhase())
    t.refused("B", UseStratagem("rapid_ingress", unit="b-nobz"), "stratagem_wrong_time")
    t.do("A", EndPhase())  # B has 2 CP and units that may arrive: the phase waits for B
    assert t.state.window is Seat.B
    assert phase(t) is Phase.MOVEMENT
    t.refused("A", EndPhase(), "waiting_for_reaction")
    cp = t.state.players[Seat.B].cp
    t.do("B", UseStratagem("rapid_ingress", unit="b-nobz"))
    assert t.unit("b-nobz").location is Location.BATTLEFIELD
    assert t.state.players[Seat.B].cp == cp - 1
    assert phase(t) is Phase.SHOOTING
    assert t.state.window is None
    t.check_replay()


def test_every_refusal_leaves_the_log_untouched_and_has_a_code(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    codes = {str(c) for c in Code}
    t = new_table()
    setup_battle(t)
    for seat, cmd in (
        ("B", EndPhase()),
        ("A", Move("b-boyz", MoveMode.NORMAL)),
        ("A", Shoot("a-hell", ("b-boyz",))),
        ("C", EndPhase()),
        ("A", Move("nope", MoveMode.NORMAL)),
    ):
        version = t.battle.version
        with pytest.raises(Refusal) as info:
            t.battle.execute(cmd, seat, seed=3)
        assert info.value.code in codes
        assert info.value.message
        assert t.battle.version == version
