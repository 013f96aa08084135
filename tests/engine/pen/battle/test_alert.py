"""État d'alerte [L957-L969] (pen rulings B35): a squad that does nothing in its turn shoots in
the next enemy movement phase; its fire cannot make a squad retreat, it stops it instead (no
shooting, no charge until the end of the turn) [L966]. Dice given by hand; replay equals the
live state."""

from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.pen.battle import (
    ArmySpec,
    BattleSetup,
    PenBattle,
    UnitSpec,
    WeaponSpec,
    command_from_json,
    events,
)
from app.engine.pen.battle.commands import (
    Charge,
    ChooseFirst,
    Deploy,
    EndActivation,
    EndPhase,
    EndStep,
    GoOnAlert,
    GoToGround,
    Move,
    RollOff,
    Shoot,
    StartTurn,
)
from app.engine.pen.battle.state import Speed
from app.engine.pen.battle.views import legal_actions
from tests.engine.pen.battle.profiles import GUARD, MARINE

BOLTER = WeaponSpec(
    "bolter", {"kind": "ranged", "type": "rapid fire", "shots": 1, "strength": 4, "ap": 5}
)
LASGUN = WeaponSpec("lasgun", {"kind": "ranged", "type": "assault", "shots": 1, "strength": 3})


def refused(battle: PenBattle, command: Any, seat: str) -> str:
    with pytest.raises(Refusal) as err:
        battle.execute(command, seat)
    return err.value.code


def on_alert() -> PenBattle:
    """A's ten Marines go on alert in A's first turn; B's turn starts and its ten Guardsmen
    move."""
    a = ArmySpec("A", "Alpha", (UnitSpec("tac", "Tac", 100, 10, MARINE, (BOLTER,)),))
    b = ArmySpec("B", "Beta", (UnitSpec("inf", "Guard", 60, 10, GUARD, (LASGUN,)),))
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    battle.execute(Deploy("tac"), "A")
    battle.execute(EndStep(), "A")
    battle.execute(Deploy("inf"), "B")
    battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])
    assert {"command": {"type": "go_on_alert", "unit": "tac"}} in legal_actions(battle.state, "A")
    battle.execute(command_from_json({"type": "go_on_alert", "unit": "tac"}), "A")
    assert refused(battle, Move("tac", Speed.NORMAL, 6), "A") == "already_moved"
    assert refused(battle, Shoot("tac", "inf", "bolter", 10), "A") == "on_alert"
    battle.execute(EndPhase(), "A")
    assert refused(battle, Charge("tac", "inf", 3), "A") == "cannot_charge"  # it does nothing
    battle.execute(EndPhase(), "A")
    battle.execute(StartTurn(), "B")
    battle.execute(Move("inf", Speed.NORMAL, 6), "B")
    return battle


def test_alert_fire_stops_the_squad_it_would_make_retreat() -> None:
    battle = on_alert()
    offered = [a for a in legal_actions(battle.state, "A") if a["command"]["type"] == "shoot"]
    assert [(a["command"]["unit"], a["alert"]) for a in offered] == [("tac", True)]
    # two Marines stationary at half range: 2 bolter shots each [L492]; hits on 2+ (BS4, +1
    # half range, +1 stationary [L1323]), S4
    # wounds T3 on 3+, the 5+ save against AP5 is a 6+ [L620]: four 1s fail, 4 of 10 die
    battle.execute(
        Shoot("tac", "inf", "bolter", 10, half_range=True, models=2),
        "A",
        dice=[6, 6, 6, 6, 6, 6, 6, 6, 1, 1, 1, 1],
    )
    assert battle.state.units["inf"].models == 6
    assert battle.state.active_unit == "inf"  # B's squad is still moving
    # 40% lost: a morale test at Ld7; 12 fails, but alert fire cannot make it retreat [L966]
    done = battle.execute(EndActivation("tac"), "A", dice=[6, 6])
    assert [type(e.event) for e in done] == [events.TestTaken, events.Stopped, events.AlertEnded]
    inf = battle.state.units["inf"]
    assert (inf.retreating, inf.stopped, battle.state.units["tac"].alert) == (False, True, False)
    assert refused(battle, Shoot("inf", "tac", "lasgun", 10), "B") == "stopped"
    battle.execute(EndActivation("inf"), "B")
    battle.execute(EndPhase(), "B")
    assert refused(battle, Charge("inf", "tac", 3), "B") == "cannot_charge"
    battle.execute(EndPhase(), "B")  # the turn ends: the stop with it
    assert not battle.state.units["inf"].stopped
    assert PenBattle.import_log(battle.export_json()).state == battle.state


def test_the_enemy_movement_phase_ending_closes_the_alert_fire() -> None:
    battle = on_alert()
    battle.execute(GoToGround("inf"), "B")  # shot at on alert: it may go to ground [L1136]
    # one Marine, 2 shots at half range: BS4 +1 half range, +1 stationary [L1323], -1 the
    # squad gone to ground [L1320]: 2+, both 1s miss
    battle.execute(Shoot("tac", "inf", "bolter", 10, half_range=True, models=1), "A", dice=[1, 1])
    battle.execute(EndActivation("inf"), "B")
    done = battle.execute(EndPhase(), "B")
    assert [e.event.kind for e in done] == ["alert_ended", "phase_started"]
    assert not battle.state.units["tac"].alert
    assert PenBattle.import_log(battle.export_json()).state == battle.state


def test_an_unused_alert_ends_with_the_squad_s_next_turn() -> None:
    battle = on_alert()
    battle.execute(EndActivation("inf"), "B")
    battle.execute(EndPhase(), "B")
    assert battle.state.units["tac"].alert  # through the enemy's turn
    battle.execute(EndPhase(), "B")  # B's turn ends, A's begins [L959]
    assert not battle.state.units["tac"].alert
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(Move("tac", Speed.NORMAL, 6), "A")
    battle.execute(EndActivation("tac"), "A")
    assert refused(battle, GoOnAlert("tac"), "A") == "cannot_go_on_alert"  # it moved [L959]
