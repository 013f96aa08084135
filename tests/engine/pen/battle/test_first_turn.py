"""The first-turn protection in the classic and alternation turns [L1337] (pen rulings B8):
during the first player's first turn, an enemy squad that has not moved and made no scout move
counts as having made its maximum rapid move (B37); in the alternation mode, during the whole
first round, whoever shoots (as dynamics D3). A battle records it when created; a log
recorded before replays with the targets' real moves. Dice given by hand."""

import json

from app.engine.pen.battle import ArmySpec, BattleSetup, PenBattle, UnitSpec, WeaponSpec
from app.engine.pen.battle.commands import (
    ChooseFirst,
    Deploy,
    EndActivation,
    EndPhase,
    EndStep,
    Move,
    RollOff,
    ScoutMove,
    Shoot,
    StartTurn,
)
from app.engine.pen.battle.state import Speed
from tests.engine.pen.battle.profiles import MARINE

# heavy: no stationary bonus [L1334], so the to-hit roll shows the target's speed alone
BOLTER = WeaponSpec(
    "bolter", {"kind": "ranged", "type": "heavy", "shots": 1, "strength": 4, "ap": 5}
)
# Marines on bikes: a rapid move of 24 ps, -2 to hit it [L1335]. Every shot here is at
# night (the targets stealthy, -1): BS4 hits on 4+, on 6+ with the -2
BIKE = MARINE | {"unit_type": "moto"}


def _armies(scout: bool = False) -> tuple[ArmySpec, ArmySpec]:
    bike = BIKE | {"rules": ["Scout"]} if scout else BIKE
    a = ArmySpec(
        "A",
        "Alpha",
        (
            UnitSpec("tac", "Tac", 100, 5, MARINE, (BOLTER,)),
            UnitSpec("jump", "Jump", 100, 5, MARINE | {"unit_type": "unite de saut"}, (BOLTER,)),
        ),
    )
    b = ArmySpec(
        "B",
        "Beta",
        (
            UnitSpec("bikes", "Bikes", 60, 5, bike, (BOLTER,)),
            UnitSpec("riders", "Riders", 60, 5, BIKE, (BOLTER,)),
        ),
    )
    return a, b


def _classic(protection: bool | None = None, scout: bool = False) -> PenBattle:
    """A plays first; both armies deployed (B's bikes scout 6 ps when ``scout``); A's turn 1
    starts (dawn 1)."""
    setup = BattleSetup(
        _armies(scout), points_limit=400, objectives=0, first_turn_protection=protection
    )
    battle = PenBattle.create(setup)
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    battle.execute(Deploy("tac"), "A")
    battle.execute(Deploy("jump"), "A")
    battle.execute(EndStep(), "A")
    battle.execute(Deploy("bikes"), "B")
    battle.execute(Deploy("riders"), "B")
    battle.execute(EndStep(), "B")
    if scout:
        battle.execute(ScoutMove("bikes", 6), "B")
        battle.execute(EndStep(), "A")
        battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])
    return battle


def _to_hit(battle: PenBattle, shooter: str, target: str, seat: str, hits: bool) -> list[str]:
    """``shooter``'s five models fire at ``target`` with five 4s to hit (then 1s to wound
    when ``hits``): the to-hit outcomes."""
    dice = [4] * 5 + ([1] * 5 if hits else [])
    envs = battle.execute(Shoot(shooter, target, "bolter", 20), seat, dice=dice)
    shot = envs[-1].event
    assert shot.kind == "unit_shot"
    return [d.outcome for d in shot.roll.dice if d.label == "to hit"]  # type: ignore[attr-defined]


def test_the_first_players_targets_count_their_maximum_rapid_move() -> None:
    # bikes that have not moved count as having made their 24 ps rapid move: -2 to hit,
    # the 4s miss
    assert _to_hit(_classic(), "tac", "bikes", "A", hits=False) == ["miss"] * 5


def test_a_squad_that_made_a_scout_move_counts_that_move() -> None:
    # 6 ps of scout move: no malus, the 4s hit [L1337] "except those that made a scout move"
    assert _to_hit(_classic(scout=True), "tac", "bikes", "A", hits=True) == ["hit"] * 5
    # the other squad of bikes did not scout: protected
    assert _to_hit(_classic(scout=True), "tac", "riders", "A", hits=False) == ["miss"] * 5


def _second_turn(battle: PenBattle) -> PenBattle:
    """A's first turn passes with nothing done; B's first turn starts, its bikes stand still."""
    battle.execute(EndPhase(), "A")
    battle.execute(EndPhase(), "A")
    battle.execute(StartTurn(), "B")
    battle.execute(Move("bikes", Speed.STATIONARY), "B")
    return battle


def test_the_second_player_shoots_at_real_moves() -> None:
    # B's first turn is not the first player's: A's jump squad that did not move counts 0 ps,
    # the 4s hit
    battle = _second_turn(_classic())
    assert _to_hit(battle, "bikes", "jump", "B", hits=True) == ["hit"] * 5


def test_creating_a_battle_records_the_protection_and_an_old_log_keeps_real_moves() -> None:
    battle = _classic()
    first = json.loads(battle.match.export_json())["events"][0]["event"]
    assert first["setup"]["first_turn_protection"] is True
    data = json.loads(battle.match.export_json())
    del data["events"][0]["event"]["setup"]["first_turn_protection"]
    old = PenBattle.import_log(json.dumps(data))
    assert old.state.setup is not None
    assert old.state.setup.first_turn_protection is None
    # the old log's turn 1 reads the bikes' real move (none): the 4s hit, as it was played
    assert _to_hit(old, "tac", "bikes", "A", hits=True) == ["hit"] * 5
    assert _to_hit(_classic(protection=False), "tac", "bikes", "A", hits=True) == ["hit"] * 5


def _alternation() -> PenBattle:
    setup = BattleSetup(_armies(), points_limit=400, objectives=0, alternation=True)
    battle = PenBattle.create(setup)
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "A", dice=[6, 1])
    battle.execute(ChooseFirst("A"), "A")
    battle.execute(Deploy("tac"), "A")
    battle.execute(Deploy("bikes"), "B")
    battle.execute(Deploy("jump"), "A")
    battle.execute(Deploy("riders"), "B")
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(StartTurn(), "A", dice=[1])  # round 1; dawn 1
    return battle


def _played(battle: PenBattle, seat: str, unit: str) -> None:
    battle.execute(EndActivation(unit), seat)
    battle.execute(EndPhase(), seat)
    battle.execute(EndPhase(), seat)


def test_in_the_alternation_mode_the_whole_first_round_is_protected() -> None:
    battle = _alternation()
    battle.execute(Move("tac", Speed.STATIONARY), "A")
    assert _to_hit(battle, "tac", "bikes", "A", hits=False) == ["miss"] * 5
    _played(battle, "A", "tac")
    # B's bikes shoot A's jump squad, not played yet (it has not moved): protected as well,
    # the 4s miss
    battle.execute(Move("bikes", Speed.STATIONARY), "B")
    assert _to_hit(battle, "bikes", "jump", "B", hits=False) == ["miss"] * 5
    _played(battle, "B", "bikes")
    battle.execute(Move("jump", Speed.NORMAL, 6), "A")
    _played(battle, "A", "jump")
    # a squad played this round is shot at its real move: 6 ps, no malus, the 4s hit
    battle.execute(Move("riders", Speed.STATIONARY), "B")
    assert _to_hit(battle, "riders", "jump", "B", hits=True) == ["hit"] * 5
