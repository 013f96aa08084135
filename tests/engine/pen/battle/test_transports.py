"""Transports the PEN battle used to leave to the table (pen rulings B31-B33): a squad kept in
reserve inside a transport kept in reserve [L854-L867], passengers shooting from the fire
points [L295], [L315], and the fast transport that moved over 12 ps [L305-L309]. Dice given by
hand; replay equals the live state."""

import json
from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.pen.battle import (
    ArmySpec,
    BattleSetup,
    PenBattle,
    Place,
    UnitSpec,
    WeaponSpec,
    command_from_json,
)
from app.engine.pen.battle.commands import (
    Arrive,
    Charge,
    ChooseFirst,
    DeclareReserve,
    Deploy,
    Disembark,
    Embark,
    EndActivation,
    EndPhase,
    EndStep,
    Move,
    RollOff,
    Shoot,
    StartTurn,
)
from app.engine.pen.battle.events import ReservesRolled, UnitShot
from app.engine.pen.battle.rules import fire_points_left
from app.engine.pen.battle.state import Speed
from app.engine.pen.battle.views import legal_actions
from tests.engine.pen.battle.profiles import GUARD, MARINE

RHINO: dict[str, Any] = {"armour": {"front": 11, "side": 11, "rear": 10}, "hull_points": 3}
OPEN = RHINO | {"types": ["open-topped", "transport"]}
FAST = RHINO | {"types": ["fast", "transport"]}
BOLTER = WeaponSpec(
    "bolter", {"kind": "ranged", "type": "rapid fire", "shots": 1, "strength": 4, "ap": 5}
)
LASGUN = WeaponSpec("lasgun", {"kind": "ranged", "type": "assault", "shots": 1, "strength": 3})
MISSILE = WeaponSpec(
    "missile", {"kind": "ranged", "type": "heavy", "shots": 1, "strength": 8, "ap": 3}
)


def replayed(battle: PenBattle) -> PenBattle:
    return PenBattle.import_log(battle.export_json())


def deployed(b_units: tuple[UnitSpec, ...], *, a_points: int = 100) -> PenBattle:
    """A: ten Marines; B: ``b_units``, the ``in-`` ones in the transport ``t``. A plays
    first; A's first turn is over (no shooting), B's turn starts (no reserves)."""
    a = ArmySpec("A", "Alpha", (UnitSpec("tac", "Tac", a_points, 10, MARINE, (BOLTER,)),))
    b = ArmySpec("B", "Beta", b_units)
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    battle.execute(Deploy("tac"), "A")
    battle.execute(EndStep(), "A")
    for spec in b_units:
        if spec.id.startswith("in-"):
            battle.execute(Embark(spec.id, "t"), "B")
        else:
            battle.execute(Deploy(spec.id), "B")
    battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(EndPhase(), "A")
    battle.execute(EndPhase(), "A")
    battle.execute(StartTurn(), "B")
    return battle


def refused(battle: PenBattle, command: Any, seat: str = "B") -> str:
    with pytest.raises(Refusal) as err:
        battle.execute(command, seat)
    return err.value.code


# -- B31: reserves with passengers -----------------------------------------------------------


def test_a_squad_kept_in_reserve_inside_its_transport_comes_on_with_it() -> None:
    a = ArmySpec("A", "Alpha", (UnitSpec("tac", "Tac", 100, 10, MARINE, (BOLTER,)),))
    b = ArmySpec(
        "B",
        "Beta",
        (
            UnitSpec("t", "Rhino", 50, 1, RHINO, capacity=10),
            UnitSpec("vet", "Veterans", 60, 5, GUARD, (LASGUN,)),
            UnitSpec("inf", "Guard", 100, 10, GUARD, (LASGUN,)),
        ),
    )
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    assert refused(battle, Embark("vet", "t")) == "not_in_reserve"  # keep the Rhino back first
    battle.execute(DeclareReserve("t"), "B")
    assert {"command": {"type": "embark", "unit": "vet", "transport": "t"}} in legal_actions(
        battle.state, "B"
    )
    assert refused(battle, Embark("t", "t")) == "no_transport"
    battle.execute(Embark("vet", "t"), "B")
    vet = battle.state.units["vet"]
    assert (vet.place, vet.transport) == (Place.EMBARKED, "t")
    assert refused(battle, DeclareReserve("vet")) == "embarked"  # it comes with its transport
    assert refused(battle, Embark("inf", "t")) == "transport_full"  # 5 + 10 > 10 [L290]
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    # 50 + 60 of B's 210 pts wait in reserve: over half, B plays second [L834]
    assert refused(battle, ChooseFirst("B"), "A") == "must_play_second"
    battle.execute(ChooseFirst("A"), "A")
    battle.execute(Deploy("tac"), "A")
    battle.execute(EndStep(), "A")
    battle.execute(Deploy("inf"), "B")
    battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])
    battle.execute(EndPhase(), "A")
    battle.execute(EndPhase(), "A")
    # one reserve roll, for the transport: 5 on turn 1 arrives on 5+ [L862]
    done = battle.execute(StartTurn(), "B", dice=[5])
    rolled = [e.event for e in done if isinstance(e.event, ReservesRolled)]
    assert [(r.roll.values, r.arrived) for r in rolled] == [((5,), ("t",))]
    assert battle.state.units["vet"].place is Place.EMBARKED
    assert refused(battle, Disembark("vet")) == "not_on_table"  # the Rhino comes on first
    battle.execute(Arrive("t", Speed.NORMAL, 6), "B")
    battle.execute(Disembark("vet"), "B")  # at the end of its move: a normal move [L282]
    vet = battle.state.units["vet"]
    assert (vet.place, vet.speed, vet.transport) == (Place.TABLE, Speed.NORMAL, None)
    battle.execute(EndActivation("t"), "B")
    battle.execute(Shoot("vet", "tac", "lasgun", 20), "B", seed=3)
    assert replayed(battle).state == battle.state


def test_a_transport_left_in_reserve_to_the_end_takes_its_passengers_along() -> None:
    a = ArmySpec("A", "Alpha", (UnitSpec("tac", "Tac", 100, 10, MARINE, (BOLTER,)),))
    b = ArmySpec(
        "B",
        "Beta",
        (
            UnitSpec("t", "Rhino", 50, 1, RHINO, capacity=10),
            UnitSpec("vet", "Veterans", 60, 5, GUARD, (LASGUN,)),
        ),
    )
    battle = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    battle.execute(DeclareReserve("vet"), "B")  # declared first, then put in the Rhino
    battle.execute(DeclareReserve("t"), "B")
    battle.execute(command_from_json({"type": "embark", "unit": "vet", "transport": "t"}), "B")
    vet = battle.state.units["vet"]
    assert (vet.place, vet.reserve, vet.transport) == (Place.EMBARKED, None, "t")
    view = battle.view("A")
    units = {u["id"]: u for u in view["units"]}
    assert (units["vet"]["place"], units["vet"]["transport"]) == ("embarked", "t")
    assert replayed(battle).state == battle.state


# -- B32: fire points ------------------------------------------------------------------------


def test_passengers_shoot_from_the_fire_points_once_the_transport_has_moved() -> None:
    battle = deployed(
        (
            UnitSpec("t", "Chimera", 60, 1, RHINO, capacity=10, fire_points=2),
            UnitSpec("in-vet", "Veterans", 50, 3, GUARD, (MISSILE,)),
            UnitSpec("in-cmd", "Command", 40, 2, GUARD, (LASGUN,)),
        )
    )
    assert refused(battle, Shoot("in-vet", "tac", "missile", 20)) == "transport_first"
    battle.execute(Move("t", Speed.NORMAL, 6), "B")
    assert refused(battle, Shoot("in-vet", "tac", "missile", 20)) == "activation_open"
    battle.execute(EndActivation("t"), "B")
    offered = [a for a in legal_actions(battle.state, "B") if a["command"]["type"] == "shoot"]
    assert [(a["command"]["unit"], a["fire_points"]) for a in offered] == [
        ("in-cmd", 2),
        ("in-vet", 2),
    ]
    assert refused(battle, Shoot("in-vet", "tac", "missile", 20)) == "fire_points"  # 3 > 2
    # two missiles; the Chimera moved, so its passengers count as having moved [L282]: a
    # heavy weapon snap fires [L494] (BS1: only a 6 hits), both miss on 5s
    done = battle.execute(Shoot("in-vet", "tac", "missile", 20, models=2), "B", dice=[5, 5])
    shot = next(e.event for e in done if isinstance(e.event, UnitShot))
    assert (shot.fire_points, shot.models_left, shot.roll.values) == (2, 10, (5, 5))
    assert fire_points_left(battle.state, battle.state.units["t"]) == 0
    battle.execute(EndActivation("in-vet"), "B")
    assert refused(battle, Shoot("in-cmd", "tac", "lasgun", 20, models=1)) == "fire_points"
    assert refused(battle, Disembark("in-vet")) == "shot_from_transport"
    assert not [a for a in legal_actions(battle.state, "B") if a["command"]["type"] == "shoot"]
    assert battle.state.units["in-vet"].place is Place.EMBARKED
    assert replayed(battle).state == battle.state


def test_a_stationary_transport_s_passengers_fire_a_heavy_weapon_at_full_bs() -> None:
    battle = deployed(
        (
            UnitSpec("t", "Chimera", 60, 1, RHINO, capacity=10, fire_points=1),
            UnitSpec("in-vet", "Veterans", 50, 3, GUARD, (MISSILE,)),
        )
    )
    battle.execute(Move("t", Speed.STATIONARY), "B")
    battle.execute(EndActivation("t"), "B")
    # BS3 hits on 4+ [L1293] (10 ps: no night malus [L946]): the 4 hits, wounds T4 with S8
    # on 2+ (the 2), AP3 leaves the 3+ save a 6+ [L620]: the 5 fails, one Marine less
    battle.execute(Shoot("in-vet", "tac", "missile", 10, models=1), "B", dice=[4, 2, 5])
    assert battle.state.units["tac"].models == 9
    assert replayed(battle).state == battle.state


def test_every_passenger_of_an_open_topped_transport_may_shoot() -> None:
    battle = deployed(
        (
            UnitSpec("t", "Trukk", 60, 1, OPEN, capacity=10),
            UnitSpec("in-vet", "Veterans", 50, 3, GUARD, (LASGUN,)),
            UnitSpec("in-cmd", "Command", 40, 2, GUARD, (LASGUN,)),
        )
    )
    battle.execute(Move("t", Speed.NORMAL, 6), "B")
    battle.execute(EndActivation("t"), "B")
    assert fire_points_left(battle.state, battle.state.units["t"]) == 5  # [L315]
    battle.execute(Shoot("in-vet", "tac", "lasgun", 20), "B", seed=1)
    battle.execute(EndActivation("in-vet"), "B")
    battle.execute(Shoot("in-cmd", "tac", "lasgun", 20), "B", seed=2)
    assert battle.state.units["in-cmd"].fired_models == 2
    assert replayed(battle).state == battle.state


def test_a_squad_that_got_in_this_turn_does_not_shoot_from_the_transport() -> None:
    battle = deployed(
        (
            UnitSpec("t", "Chimera", 60, 1, RHINO, capacity=10, fire_points=2),
            UnitSpec("vet", "Veterans", 50, 2, GUARD, (LASGUN,)),
        )
    )
    battle.execute(Embark("vet", "t"), "B")  # at the start of its move [L278]
    battle.execute(Move("t", Speed.NORMAL, 6), "B")
    battle.execute(EndActivation("t"), "B")
    assert refused(battle, Shoot("vet", "tac", "lasgun", 20)) == "embarked_this_turn"


# -- B33: the fast transport ------------------------------------------------------------------


def test_out_of_a_fast_transport_over_12_ps_only_an_emergency_disembark_as_a_rapid_move() -> None:
    battle = deployed(
        (
            UnitSpec("t", "Wave Serpent", 60, 1, FAST, capacity=10, fire_points=2),
            UnitSpec("in-vet", "Veterans", 50, 3, GUARD, (LASGUN,)),
        )
    )
    battle.execute(Move("t", Speed.RAPID, 18), "B")
    assert refused(battle, Disembark("in-vet")) == "emergency_only"  # [L309]
    battle.execute(EndActivation("t"), "B")
    assert {"command": {"type": "disembark", "unit": "in-vet", "emergency": True}} in (
        legal_actions(battle.state, "B")
    )
    battle.execute(Disembark("in-vet", emergency=True), "B")
    vet = battle.state.units["in-vet"]
    assert vet.speed is Speed.RAPID  # counts as a rapid move [L309]
    assert battle.state.gone_to_ground(vet)  # an emergency disembark [L299]
    battle.execute(EndPhase(), "B")
    assert refused(battle, Charge("in-vet", "tac", 3)) == "cannot_charge"
    assert replayed(battle).state == battle.state


def test_passengers_of_a_fast_transport_over_12_ps_snap_fire() -> None:
    battle = deployed(
        (
            UnitSpec("t", "Wave Serpent", 60, 1, FAST, capacity=10, fire_points=2),
            UnitSpec("in-vet", "Veterans", 50, 3, GUARD, (LASGUN,)),
        )
    )
    battle.execute(Move("t", Speed.RAPID, 18), "B")
    battle.execute(EndActivation("t"), "B")
    # a rapid move [L309]: snap fire, a 5 misses where BS3 would hit on 4+
    battle.execute(Shoot("in-vet", "tac", "lasgun", 10, models=1), "B", dice=[5])
    assert battle.state.units["tac"].models == 10


def test_a_fast_transport_within_12_ps_lets_its_passengers_out_normally() -> None:
    battle = deployed(
        (
            UnitSpec("t", "Wave Serpent", 60, 1, FAST, capacity=10),
            UnitSpec("in-vet", "Veterans", 50, 3, GUARD, (LASGUN,)),
        )
    )
    battle.execute(Move("t", Speed.RAPID, 12), "B")  # a rapid move, not over 12 ps [L309]
    battle.execute(Disembark("in-vet"), "B")
    assert battle.state.units["in-vet"].speed is Speed.NORMAL
    assert refused(battle, Shoot("in-vet", "tac", "lasgun", 10)) == "activation_open"


def test_fire_points_above_the_capacity_are_refused() -> None:
    spec = UnitSpec("t", "Chimera", 60, 1, RHINO, capacity=4, fire_points=5)
    setup = BattleSetup(
        (
            ArmySpec("A", "Alpha", (UnitSpec("tac", "Tac", 100, 10, MARINE, (BOLTER,)),)),
            ArmySpec("B", "Beta", (spec,)),
        ),
        points_limit=400,
    )
    assert any("fire_points" in m for _, m in setup.problems())


def test_logs_written_before_fire_points_alert_and_fast_transports_replay_unchanged() -> None:
    """The fields these rules added to the set-up and the events (``fire_points``,
    ``alert``, ``rapid``) are optional: a log without them replays to the same state."""
    battle = deployed(
        (
            UnitSpec("t", "Chimera", 60, 1, RHINO, capacity=10),
            UnitSpec("in-vet", "Veterans", 50, 3, GUARD, (LASGUN,)),
        )
    )
    battle.execute(Move("t", Speed.NORMAL, 6), "B")
    battle.execute(Disembark("in-vet"), "B")
    battle.execute(EndActivation("t"), "B")
    battle.execute(Shoot("in-vet", "tac", "lasgun", 10), "B", seed=2)
    data = json.loads(battle.export_json())
    stripped = 0

    def strip(node: object) -> None:
        nonlocal stripped
        if isinstance(node, dict):
            for key, default in (("fire_points", 0), ("alert", False), ("rapid", False)):
                if key in node and node[key] == default:
                    del node[key]
                    stripped += 1
            for value in node.values():
                strip(value)
        elif isinstance(node, list):
            for value in node:
                strip(value)

    strip(data)
    assert stripped >= 4  # two squads' fire points, the disembark, the shot
    assert PenBattle.import_log(json.dumps(data)).state == battle.state
