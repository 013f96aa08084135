"""A heavy vehicle's Double Tir and Rafale during a move (issue 16, rulings 140)
[L563-L577], [L1196-L1200], [L1296-L1317], [L1428-L1436]: on the move the vehicle fires its
weapons with Tir en Mouvement, one Shooting Action at one firing point (``weapons``, the shots
of ``vehicle_fire``): a Double Tir weapon twice at two targets, a Rafale weapon its modified
CV split, each weapon's own Tir en Mouvement penalty taken off its CV.

The board and forces of ``test_heavy_vehicles``: the sample battle tank on (2, 3) facing N;
here its main weapon (CV 3 against infantry) gets Tir en Mouvement (-1) and Rafale, its
secondary (CV 2, Tir en Mouvement -2) Double Tir. The Boyz (DV 4) stand on (7, 0) and (7, 1),
the Nob (DV 5, a Hit Point) on (6, 4). The tank moves one square to (2, 2).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.black_reach.battle.events import BurstDeclared, UnitMoved, UnitShot
from app.engine.match.errors import Refusal
from tests.engine.black_reach.battle.test_heavy_vehicles import (
    BOYZ1,
    BOYZ2,
    NOB,
    SHOOTAS,
    TANK,
    order,
    setup,
)

A, B = "A", "B"
PATH = [{"x": 2, "y": 2, "facing": "N"}]


def gunned(main: bool = True, base: BattleSetup | None = None, double: bool = True) -> BattleSetup:
    base = base or setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    tank = next(c for c in catalogue["counters"] if c["id"] == "sample-um-battle-tank")
    weapons = tank["faces"][0]["weapons"]
    if main:
        weapons[0]["abilities"] += [{"id": "shoot_on_move", "param": -1}, {"id": "burst"}]
    if double:
        weapons[1]["abilities"].append({"id": "double_shot"})
    return BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)


def ready(main: bool = True, double: bool = True) -> BlackReachBattle:
    battle = BlackReachBattle.create(gunned(main, double=double))
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    return battle


def move(*shots: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"type": "move", "unit": TANK, "path": PATH, "weapons": list(shots), **extra}


def shot(weapon: str, target: str, share: int | None = None, **kw: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"weapon": weapon, "target": target, **kw}
    if share is not None:
        out["share"] = share
    return out


def refused(battle: BlackReachBattle, command: dict[str, Any]) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, A, dice=[6, 6, 6, 6])
    assert battle.version == version
    return info.value


def test_a_vehicle_fires_its_rafale_and_its_double_tir_during_its_move() -> None:
    battle = ready()
    command = move(
        shot("main_1", BOYZ1, 1),
        shot("main_1", BOYZ2, 1),
        shot("secondary_1", BOYZ2),
        shot("secondary_1", NOB),
    )
    new = battle.execute_json(command, A, dice=[3, 2, 4, 5])
    events = [e.event for e in new]
    assert isinstance(events[1], UnitMoved)  # the move first (the fire at its end)
    declared = next(e for e in events if isinstance(e, BurstDeclared))
    # main CV 3 - 1 (Tir en Mouvement) = 2, split +1 / +1
    assert (declared.weapon, declared.modified_cv) == ("main_1", 2)
    shots = [
        (e.weapon, e.target, e.cv, e.moving_penalty, e.modified_cv, e.final)
        for e in events
        if isinstance(e, UnitShot)
    ]
    assert shots == [
        ("main_1", BOYZ1, 1, 0, 1, 4),  # the share already had the penalty off
        ("main_1", BOYZ2, 1, 0, 1, 3),
        ("secondary_1", BOYZ2, 2, 2, 0, 4),  # CV 2 - 2 = 0: 4 against DV 4
        ("secondary_1", NOB, 2, 2, 0, 5),
    ]
    assert TANK in battle.state.acted


def test_the_shots_on_the_move_are_fired_where_fire_after_says() -> None:
    battle = ready()
    command = move(shot("secondary_1", BOYZ1), shot("secondary_1", BOYZ2), fire_after=0)
    new = battle.execute_json(command, A, dice=[6, 1])
    assert [e.event.kind for e in new][1:4] == ["unit_shot", "steps_taken", "unit_shot"]
    assert new[-1].event.kind == "unit_moved"


def test_bad_weapon_shots_on_the_move_are_refused_before_any_die() -> None:
    battle = ready(main=False)
    # the main weapon has no Tir en Mouvement here: it does not fire on the move
    assert refused(battle, move(shot("main_1", BOYZ1))).code == "no_shoot_on_move"
    battle = ready()
    assert refused(battle, move(shot("main_1", BOYZ1, suppression=True))).code == (
        "move_suppression"
    )
    # the shares add up to the moving modified CV (2), not the CV (3)
    two_one = move(shot("main_1", BOYZ1, 2), shot("main_1", BOYZ2, 1))
    assert refused(battle, two_one).code == "burst_total"
    same = move(shot("secondary_1", BOYZ1), shot("secondary_1", BOYZ1))
    assert refused(battle, same).code == "double_shot_targets"
    both = move(shot("secondary_1", BOYZ1), fire_at=BOYZ2)
    assert refused(battle, both).code == "fire_or_weapons"
    # a vehicle's Rafale on the move names its weapons' shares
    burst = {"type": "move", "unit": TANK, "path": PATH,
             "burst": [{"target": BOYZ1, "cv": 1}, {"target": BOYZ2, "cv": 1}]}  # fmt: skip
    assert refused(battle, burst).code == "weapons_on_move"
    second = {"type": "move", "unit": TANK, "path": PATH, "fire_at": BOYZ1}
    assert refused(battle, second | {"fire_second": BOYZ1}).code == "same_target"
    battle = ready(main=False, double=False)
    assert refused(battle, second | {"fire_second": NOB}).code == "no_double_shot"


def test_fire_at_and_fire_second_of_a_vehicle_fire_its_double_tir_weapons_twice() -> None:
    """The move's form sends ``fire_at`` and ``fire_second``: every Tir en Mouvement weapon
    at the first target, those with Double Tir at the second too."""
    battle = ready()
    move = {"type": "move", "unit": TANK, "path": PATH, "fire_at": BOYZ1, "fire_second": NOB}
    new = battle.execute_json(move, A, dice=[3, 1, 5])
    shots = [
        (e.event.weapon, e.event.target, e.event.modified_cv, e.event.final)
        for e in new
        if isinstance(e.event, UnitShot)
    ]
    assert shots == [
        ("main_1", BOYZ1, 2, 5),
        ("secondary_1", BOYZ1, 0, 1),
        ("secondary_1", NOB, 0, 5),
    ]
    entry = next(a for a in ready().actions(A) if a["command"]["type"] == "move")
    assert entry["double_shot"] is True
    assert entry["burst"] is False  # a vehicle's Rafale goes through the API (weapons)


def test_a_unit_without_weapons_fires_with_fire_at() -> None:
    battle = ready()
    battle.execute_json({"type": "hold", "unit": TANK}, A)
    nob = {"type": "move", "unit": NOB, "path": [{"x": 6, "y": 3}],
           "weapons": [{"weapon": "main_1", "target": TANK}]}  # fmt: skip
    with pytest.raises(Refusal) as info:
        battle.execute_json(nob, B, dice=[6])
    assert info.value.code == "no_weapons"


def test_a_declared_move_fires_its_weapons_after_the_en_alerte_answer() -> None:
    battle = BlackReachBattle.create(
        gunned(base=setup(shootas=(5, 2), shootas_abilities=("overwatch",)))
    )
    # the Shootas (En Alerte here) keep their token 2 for later: the Nob holds first
    battle.execute_json({"type": "place_orders", "orders": [order(NOB, 1), order(SHOOTAS, 2)]}, B)
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    battle.execute_json({"type": "hold", "unit": NOB}, B)
    command = move(shot("secondary_1", BOYZ1), shot("secondary_1", BOYZ2))
    new = battle.execute_json(command, A, dice=[])
    assert [e.event.kind for e in new][-1] == "move_declared"
    assert battle.state.pending is not None
    assert len(battle.state.pending.weapons) == 2
    answered = battle.execute_json({"type": "pass_overwatch"}, B, dice=[4, 4])
    shots = [(e.event.target, e.event.final) for e in answered if isinstance(e.event, UnitShot)]
    assert shots == [(BOYZ1, 4), (BOYZ2, 4)]
    assert battle.state.pending is None
