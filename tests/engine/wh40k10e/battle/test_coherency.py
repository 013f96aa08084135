"""Issue 12: the end-of-turn coherency check [L449-456], played through the engine.

At the end of every turn each player removes models from their units that are out of Unit
Coherency; the models removed count as destroyed but never trigger "when destroyed" rules
[L454-456]. Set-ups and moves end in coherency [L433-447], so only a unit that lost models
this turn can be out of it: the tracker asks the owners of those units, and nobody else.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from app.engine.wh40k10e.battle import Battle, BattleOptions, Seat
from app.engine.wh40k10e.battle.commands import (
    Concede,
    ConfirmCoherency,
    EndPhase,
    Move,
    Removal,
    ReportObjective,
    ResolveAttack,
    Shoot,
    StartMove,
)
from app.engine.wh40k10e.battle.events import (
    CoherencyCheckOpened,
    CoherencyConfirmed,
    DeadlyDemiseRolled,
    ModelsRemoved,
    TurnEnded,
)
from app.engine.wh40k10e.battle.rules import shock_tests_pending
from app.engine.wh40k10e.battle.state import MoveMode, Phase, Presence, Stage
from app.engine.wh40k10e.battle.views import legal_actions, render
from tests.engine.wh40k10e.battle.table import (
    Table,
    active,
    events,
    goto,
    marines,
    orks,
    phase,
    with_changes,
)


def _shoot_three_boyz(t: Table, dice: list[int] | None = None) -> None:
    """A's Intercessors kill 3 of the 10 Boyz in A's first Shooting phase."""
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-int", ("b-boyz",)))
    t.do("A", ResolveAttack("a-int", "b-boyz", damage=(1, 1, 1)), dice=dice)
    assert t.unit("b-boyz").models_alive == 7


def _to_end_of_turn(t: Table) -> None:
    """End the phases of A's turn up to the end of its Fight phase."""
    while phase(t) is not Phase.FIGHT:
        t.do("A", EndPhase())
    t.do("A", EndPhase())


def test_only_the_owner_of_a_unit_that_lost_models_is_asked_and_the_turn_waits(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table(a=marines(), b=orks())
    setup_battle(t)
    _shoot_three_boyz(t)
    _to_end_of_turn(t)
    s = t.state
    assert s.coherency == (Seat.B,)
    (opened,) = events(t, CoherencyCheckOpened)
    assert opened.seats == (Seat.B,)
    assert opened.units == ("b-boyz",)
    # the turn has not ended: nothing else happens until B answers
    assert (active(t), phase(t)) == (Seat.A, Phase.FIGHT)
    assert not events(t, TurnEnded)
    t.refused("A", EndPhase(), "coherency_pending")
    t.refused("B", ReportObjective("o1", (Presence("b-nobz"),)), "coherency_pending")
    t.refused("A", ConfirmCoherency(), "no_coherency_check")
    view = render(s, "B")
    assert view["pending"]["coherency"] == ["B"]
    assert view["pending"]["coherency_units"] == ["b-boyz"]
    assert legal_actions(s, Seat.A) == []
    assert legal_actions(s, Seat.B) == [
        {"command": {"type": "confirm_coherency", "removals": []}, "choices": {"units": ["b-boyz"]}}
    ]
    t.do("B", ConfirmCoherency())
    assert t.state.coherency == ()
    assert (t.state.round, active(t), phase(t)) == (1, Seat.B, Phase.COMMAND)
    (confirmed,) = events(t, CoherencyConfirmed)
    assert confirmed == CoherencyConfirmed(Seat.B, 0)
    t.check_replay()


def test_models_removed_count_as_destroyed_without_when_destroyed_rules(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Three Boyz removed leave 4 of 10: Below Half-strength, a Battle-shock test in B's
    Command phase; the Boyz' Deadly Demise (given for the test) is never rolled for them."""
    t = new_table(a=marines(), b=with_changes(orks(), b_boyz={"deadly_demise": "1"}))
    setup_battle(t)
    _shoot_three_boyz(t, dice=[1, 1, 1])  # their Deadly Demise: no 6
    rolled = len(events(t, DeadlyDemiseRolled))
    assert rolled == 1
    _to_end_of_turn(t)
    alive = [i for i, w in enumerate(t.unit("b-boyz").wounds) if w > 0]
    t.do("B", ConfirmCoherency((Removal("b-boyz", tuple(alive[:3])),)))
    removed = events(t, ModelsRemoved)[-1]
    assert removed == ModelsRemoved("b-boyz", tuple(alive[:3]), "coherency")
    assert events(t, CoherencyConfirmed)[-1].removed == 3
    assert t.unit("b-boyz").models_alive == 4
    assert len(events(t, DeadlyDemiseRolled)) == rolled
    assert (active(t), phase(t)) == (Seat.B, Phase.COMMAND)
    assert shock_tests_pending(t.state) == ["b-boyz"]
    t.check_replay()


def test_both_players_answer_when_both_lost_models_in_any_order(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table(a=marines(), b=orks())
    setup_battle(t)
    _shoot_three_boyz(t)
    # A loses a Hellblaster (its own Hazardous roll, say): A is asked too
    t.do("A", Shoot("a-hell", ("b-nobz",)))
    t.do("A", ResolveAttack("a-hell", "b-nobz", damage=(2,)))
    from app.engine.wh40k10e.battle.commands import RemoveModels

    t.do("A", RemoveModels("a-hell", (4,), cause="hazardous"))
    _to_end_of_turn(t)
    assert t.state.coherency == (Seat.A, Seat.B)
    t.do("B", ConfirmCoherency())
    assert t.state.coherency == (Seat.A,)
    assert phase(t) is Phase.FIGHT
    t.refused("B", ConfirmCoherency(), "no_coherency_check")
    t.do("A", ConfirmCoherency())
    assert (active(t), phase(t)) == (Seat.B, Phase.COMMAND)


def test_bad_removals_are_refused(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table(a=marines(), b=orks())
    setup_battle(t)
    _shoot_three_boyz(t)
    _to_end_of_turn(t)
    alive = tuple(i for i, w in enumerate(t.unit("b-boyz").wounds) if w > 0)
    dead = next(i for i, w in enumerate(t.unit("b-boyz").wounds) if w <= 0)
    # one coherent group always remains: never the whole unit
    t.refused("B", ConfirmCoherency((Removal("b-boyz", alive),)), "bad_casualties")
    # a unit that lost no models is in coherency
    t.refused("B", ConfirmCoherency((Removal("b-nobz", (0,)),)), "bad_casualties")
    t.refused("B", ConfirmCoherency((Removal("a-int", (0,)),)), "not_your_unit")
    t.refused("B", ConfirmCoherency((Removal("b-boyz", (dead,)),)), "bad_casualties")
    t.refused("B", ConfirmCoherency((Removal("b-boyz", ()),)), "bad_casualties")
    t.refused("B", ConfirmCoherency((Removal("b-boyz", (alive[0], alive[0])),)), "bad_casualties")
    t.refused(
        "B",
        ConfirmCoherency((Removal("b-boyz", (alive[0],)), Removal("b-boyz", (alive[1],)))),
        "bad_command",
    )
    t.refused("B", ConfirmCoherency((Removal("b-nope", (0,)),)), "unknown_unit")
    # conceding is still possible
    t.do("B", Concede())
    assert t.state.stage is Stage.ENDED


def test_no_check_when_nobody_lost_models(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table(a=marines(), b=orks())
    setup_battle(t)
    goto(t, "A", "fight", round_=1)
    t.do("A", EndPhase())
    assert not events(t, CoherencyCheckOpened)
    assert (active(t), phase(t)) == (Seat.B, Phase.COMMAND)


def test_a_match_recorded_before_the_check_never_asks(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Creating a match records the option (True); a log recorded before it existed has no
    such key and plays on without the check, as it did when it was recorded."""
    t = new_table(a=marines(), b=orks())
    created = t.battle.export_log()
    text = json.dumps(created)
    assert '"coherency_check": true' in text
    old = _without(json.loads(text), "coherency_check")
    assert "coherency_check" not in json.dumps(old)
    replayed = Battle.import_log(old)
    assert replayed.state.setup is not None
    assert replayed.state.setup.options.coherency_check is None
    old_table = Table(replayed)
    setup_battle(old_table)
    _shoot_three_boyz(old_table)
    _to_end_of_turn(old_table)
    assert old_table.state.coherency == ()
    assert (active(old_table), phase(old_table)) == (Seat.B, Phase.COMMAND)
    # and a match created with the check turned off does not ask either
    off = new_table(options=BattleOptions(coherency_check=False))
    setup_battle(off)
    _shoot_three_boyz(off)
    _to_end_of_turn(off)
    assert not events(off, CoherencyCheckOpened)


def _without(data: object, key: str) -> object:
    """``data`` (JSON) with every ``key`` entry dropped."""
    if isinstance(data, dict):
        return {k: _without(v, key) for k, v in data.items() if k != key}
    if isinstance(data, list):
        return [_without(v, key) for v in data]
    return data


def test_start_move_is_a_legal_action_in_the_movement_phase(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Issue 12: ``start_move`` (Fire Overwatch as a move starts) was API-only."""
    t = new_table(a=marines(), b=orks())
    setup_battle(t)
    goto(t, "A", "movement", round_=1)
    starts = [
        a["command"] for a in legal_actions(t.state, Seat.A) if a["command"]["type"] == "start_move"
    ]
    assert {"type": "start_move", "unit": "a-int", "mode": "normal"} in starts
    assert {"type": "start_move", "unit": "a-int", "mode": "advance"} in starts
    assert not any(c["mode"] == "remain_stationary" for c in starts)
    assert not any(c["mode"] == "fall_back" for c in starts)  # nothing is engaged
    assert not any(a["command"]["type"] == "start_move" for a in legal_actions(t.state, Seat.B))
    t.do("A", Move("a-int", MoveMode.NORMAL))
    starts = [
        a["command"] for a in legal_actions(t.state, Seat.A) if a["command"]["type"] == "start_move"
    ]
    assert not any(c["unit"] == "a-int" for c in starts)
    t.do("A", StartMove("a-hell", MoveMode.NORMAL))
    assert t.state.trigger is not None
    assert t.state.trigger.unit == "a-hell"
