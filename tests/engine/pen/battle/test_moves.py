"""Move distances by unit type (pen.md §2.2, §5.2, pen rulings B37): the seed's table
[L1062-L1077] decides how far a squad goes, at a normal and at a rapid move; a vehicle with
"Mobilité réduite" makes no rapid move [L1444]; a log recorded before keeps its flat limits."""

import json
from dataclasses import replace
from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.pen.battle import ArmySpec, BattleSetup, PenBattle, UnitSpec
from app.engine.pen.battle.commands import (
    Arrive,
    ChooseFirst,
    DeclareReserve,
    Deploy,
    EndActivation,
    EndStep,
    Move,
    Ram,
    RollOff,
    ScoutMove,
    StartTurn,
)
from app.engine.pen.battle.moves import moves
from app.engine.pen.battle.rules import decide
from app.engine.pen.battle.setup import profile_of
from app.engine.pen.battle.state import Place, Speed
from app.engine.pen.battle.views import tokens
from app.engine.roller import Roller
from tests.engine.pen.battle.profiles import GUARD, MARINE

RHINO: dict[str, Any] = {"armour": {"front": 11, "side": 11, "rear": 10}, "hull_points": 3}


def _of(profile: dict[str, Any]) -> tuple[int, int]:
    return moves(profile_of(UnitSpec("x", "X", 10, 1, profile)))


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        (GUARD, (6, 9)),  # Infanterie [L1065]
        (GUARD | {"rules": ["Course"]}, (6, 12)),  # x2 with Course [L1052]
        (GUARD | {"unit_type": "creature monstrueuse"}, (6, 9)),  # [L1066]
        (GUARD | {"unit_type": "plateforme de tir"}, (6, 9)),  # moves as infantry [L184]
        (GUARD | {"unit_type": "jet pack"}, (6, 12)),  # [L1067]
        (GUARD | {"unit_type": "cavalerie"}, (9, 18)),  # [L1068]
        (GUARD | {"unit_type": "bete"}, (9, 18)),  # [L1069]
        (GUARD | {"unit_type": "unite de saut"}, (12, 24)),  # [L1070]
        (GUARD | {"unit_type": "moto"}, (12, 24)),  # [L1071]
        (GUARD | {"unit_type": "motojet"}, (12, 24)),  # [L1072]
        (GUARD | {"unit_type": "creature monstrueuse volante"}, (12, 24)),  # best [L127]
        (RHINO, (6, 12)),  # Véhicule [L196], [L1074]
        (RHINO | {"types": ["skimmer"]}, (6, 12)),  # [L1075]
        (RHINO | {"types": ["fast"]}, (9, 18)),  # [L1076]
        (RHINO | {"types": ["fast", "skimmer"]}, (12, 24)),  # [L233], [L1077]
        (RHINO | {"types": ["walker"]}, (6, 9)),  # [L1073]
        (RHINO | {"types": ["walker", "fast", "skimmer"]}, (12, 24)),  # [L239-L243]
        (RHINO | {"types": ["flyer"]}, (12, 24)),  # a fast skimmer [L247]
        (RHINO | {"types": ["aircraft"]}, (12, 36)),  # supersonic flyer [L253], [L461]
    ],
)
def test_the_seed_table_gives_each_type_its_moves(
    profile: dict[str, Any], expected: tuple[int, int]
) -> None:
    assert _of(profile) == expected


BIKE = GUARD | {"unit_type": "moto"}


def battle(*, seed_moves: bool | None = None, b_rules: tuple[str, ...] = ()) -> PenBattle:
    a = ArmySpec(
        "A",
        "Alpha",
        (
            UnitSpec("inf", "Guard", 50, 5, GUARD),
            UnitSpec("rhino", "Rhino", 50, 1, RHINO),
            UnitSpec("bikes", "Bikes", 50, 2, BIKE),
        ),
    )
    b = ArmySpec("B", "Beta", (UnitSpec("tac", "Tac", 50, 5, MARINE | {"rules": list(b_rules)}),))
    setup = BattleSetup((a, b), points_limit=400, objectives=0)
    if seed_moves is not None:
        setup = BattleSetup((a, b), points_limit=400, objectives=0, seed_moves=seed_moves)
    game = PenBattle.create(setup)
    game.execute(EndStep(), "A")
    game.execute(EndStep(), "B")
    game.execute(RollOff(), "A", dice=[6, 1])
    game.execute(ChooseFirst("A"), "A")
    for unit in ("inf", "rhino", "bikes"):
        game.execute(Deploy(unit), "A")
    game.execute(EndStep(), "A")
    game.execute(Deploy("tac"), "B")
    game.execute(EndStep(), "B")
    return game


def refused(game: PenBattle, command: object, seat: str = "A") -> str:
    with pytest.raises(Refusal) as err:
        game.execute(command, seat)  # type: ignore[arg-type]
    return err.value.code


def test_creating_a_battle_records_the_seed_moves() -> None:
    game = battle()
    first = json.loads(game.export_json())["events"][0]["event"]
    assert first["setup"]["seed_moves"] is True


def test_moves_follow_the_unit_type() -> None:
    game = battle()
    game.execute(StartTurn(), "A", dice=[6])
    assert refused(game, Move("rhino", Speed.NORMAL, 7)) == "too_far"  # 6 ps [L196]
    assert refused(game, Move("rhino", Speed.RAPID, 13)) == "too_far"  # 12 ps [L1074]
    assert refused(game, Move("inf", Speed.RAPID, 10)) == "too_far"  # 9 ps [L1065]
    assert refused(game, Move("bikes", Speed.RAPID, 25)) == "too_far"  # 24 ps [L1071]
    for unit, speed, inches in (
        ("bikes", Speed.NORMAL, 12),  # 12 ps (6 before B37)
        ("inf", Speed.RAPID, 9),
        ("rhino", Speed.RAPID, 12),
    ):
        game.execute(Move(unit, speed, inches), "A")
        game.execute(EndActivation(unit), "A")
    units = game.state.units
    assert [(units[u].speed, units[u].moved) for u in ("bikes", "inf", "rhino")] == [
        (Speed.NORMAL, 12),
        (Speed.RAPID, 9),
        (Speed.RAPID, 12),
    ]
    # a rapid move of 12 ps or less has no M1/M2 token: the squad shows "rapid" instead
    assert [tokens(game.state, units[u]) for u in ("bikes", "inf", "rhino")] == [
        [],
        ["rapid"],
        ["rapid"],
    ]


def test_the_view_gives_each_squad_its_moves() -> None:
    game = battle()
    seen = {u["id"]: u["moves"] for u in game.view("B")["units"]}  # type: ignore[index]
    assert seen == {
        "inf": {"normal": 6, "rapid": 9},
        "rhino": {"normal": 6, "rapid": 12},
        "bikes": {"normal": 12, "rapid": 24},
        "tac": {"normal": 6, "rapid": 9},
    }
    old = battle(seed_moves=False)  # flat limits, as a log recorded before B37
    seen = {u["id"]: u["moves"] for u in old.view("B")["units"]}  # type: ignore[index]
    assert (seen["rhino"], seen["bikes"]) == (
        {"normal": 12, "rapid": 36},
        {"normal": 6, "rapid": 12},
    )


def test_a_bike_at_its_rapid_move_counts_as_moving_over_18_ps() -> None:
    game = battle()
    game.execute(StartTurn(), "A", dice=[6])
    game.execute(Move("bikes", Speed.RAPID, 24), "A")
    bikes = game.state.units["bikes"]
    assert (bikes.moved, bikes.distance_token) == (24, "moved_over_18")  # -2 BS [L1335]


def test_a_ram_beyond_the_normal_move_is_rapid() -> None:
    game = battle()
    game.execute(StartTurn(), "A", dice=[6])
    assert refused(game, Ram("rhino", 13)) == "too_far"
    game.execute(Ram("rhino", 7), "A")  # beyond its 6 ps normal move: rapid (B16)
    assert game.state.units["rhino"].speed is Speed.RAPID


def test_a_vehicle_with_reduced_mobility_makes_no_rapid_move() -> None:
    game = battle()
    game.execute(StartTurn(), "A", dice=[6])
    rhino = game.state.units["rhino"]
    state = game.state.with_unit(replace(rhino, reduced_mobility=True))
    with pytest.raises(Refusal) as err:
        decide(state, Move("rhino", Speed.RAPID, 8), "A", Roller.from_values([]))
    assert err.value.code == "no_rapid_move"  # [L1444]
    decide(state, Move("rhino", Speed.NORMAL, 6), "A", Roller.from_values([]))


def test_a_scout_moves_up_to_its_rapid_move() -> None:
    a = ArmySpec("A", "Alpha", (UnitSpec("sc", "Scouts", 50, 5, GUARD | {"rules": ["Scout"]}),))
    b = ArmySpec("B", "Beta", (UnitSpec("tac", "Tac", 50, 5, MARINE),))
    game = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    game.execute(EndStep(), "A")
    game.execute(EndStep(), "B")
    game.execute(RollOff(), "A", dice=[6, 1])
    game.execute(ChooseFirst("A"), "A")
    game.execute(Deploy("sc"), "A")
    game.execute(EndStep(), "A")
    game.execute(Deploy("tac"), "B")
    game.execute(EndStep(), "B")
    assert refused(game, ScoutMove("sc", 10)) == "too_far"  # infantry: 9 ps (12 before B37)
    game.execute(ScoutMove("sc", 9), "A")


def test_an_arrival_from_reserve_moves_as_its_type() -> None:
    a = ArmySpec(
        "A",
        "Alpha",
        (UnitSpec("inf", "Guard", 50, 5, GUARD), UnitSpec("rhino", "Rhino", 50, 1, RHINO)),
    )
    b = ArmySpec("B", "Beta", (UnitSpec("tac", "Tac", 50, 5, MARINE),))
    game = PenBattle.create(BattleSetup((a, b), points_limit=400, objectives=0))
    game.execute(DeclareReserve("rhino"), "A")
    game.execute(EndStep(), "A")
    game.execute(EndStep(), "B")
    game.execute(RollOff(), "A", dice=[6, 1])
    game.execute(ChooseFirst("A"), "A")
    game.execute(Deploy("inf"), "A")
    game.execute(EndStep(), "A")
    game.execute(Deploy("tac"), "B")
    game.execute(EndStep(), "B")
    game.execute(StartTurn(), "A", dice=[6, 6])  # dawn, then the reserve roll: 6 arrives
    assert game.state.units["rhino"].place is Place.AVAILABLE
    assert refused(game, Arrive("rhino", Speed.NORMAL, 7)) == "too_far"
    game.execute(Arrive("rhino", Speed.NORMAL, 6), "A")


def test_a_log_recorded_before_keeps_its_flat_limits() -> None:
    """A battle created before B37 has no ``seed_moves`` in its set-up: it goes on with the
    limits it was played with (6/12 ps, a vehicle 12/36), so a game in progress keeps its
    rules; a new battle is held to the seed's table."""
    old = battle(seed_moves=False)
    data = json.loads(old.export_json())
    del data["events"][0]["event"]["setup"]["seed_moves"]
    game = PenBattle.import_log(json.dumps(data))
    assert game.state.setup is not None
    assert game.state.setup.seed_moves is None
    game.execute(StartTurn(), "A", dice=[6])
    game.execute(Move("rhino", Speed.NORMAL, 12), "A")
    game.execute(EndActivation("rhino"), "A")
    game.execute(Move("inf", Speed.RAPID, 12), "A")
    game.execute(EndActivation("inf"), "A")
    assert refused(game, Move("bikes", Speed.NORMAL, 7)) == "too_far"
    assert PenBattle.import_log(game.export_json()).state == game.state
    new = battle()
    new.execute(StartTurn(), "A", dice=[6])
    assert refused(new, Move("rhino", Speed.NORMAL, 12)) == "too_far"
