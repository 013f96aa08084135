"""The sniper's Alternative Shooting Action in the Black Reach battle (issue 16): one die on
the sniper table (1 or less nothing, 2-3 one Suppressed marker, 4-5 a step, 6 or more a step
and a Suppressed marker unless the target is destroyed; the note's reconstruction of
[L1331-L1338]), less 2 per Suppressed marker on the sniper and the obstacles, never the long
range; infantry targets only; offered with the table's exact odds.

The sample counters have no sniper: the test gives Sniper to a counter of the catalogue.
After the Boyz move to (4, 6) the heavy-weapon team at (3, 1) sees them across two reducing
obstacles (-2: the ruin's wall and the woods); on ``open`` ground (the boards' reducing
obstacles taken away) with none.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, sample_setup
from app.engine.match.errors import Refusal

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
BUGGY = "orks:tiles[0].slots[1]/0:sample-ork-buggy"
A, B = "A", "B"


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def _open(boards: Any) -> Any:
    boards = copy.deepcopy(boards)
    for board in boards["boards"]:
        for element in (*board.get("elements", ()), *board.get("edges", ())):
            element.pop("reduces_los", None)
    return boards


def battle_with_sniper(
    counter: str = "sample-um-heavy-bolter", *, open_ground: bool = False
) -> BlackReachBattle:
    """``counter`` has Sniper; the Boyz have moved to (4, 6); the team's token 1 is due, the
    tactical squad's token 2 next."""
    setup = sample_setup()
    boards = _open(setup.boards) if open_ground else setup.boards
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    sniper = next(c for c in catalogue["counters"] if c["id"] == counter)
    sniper["faces"][0].setdefault("abilities", []).append({"id": "sniper"})
    battle = BlackReachBattle.create(
        BattleSetup(setup.scenario, catalogue, boards, setup.seats, setup.deployment)
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    steps = [{"x": 4, "y": y} for y in (9, 8, 7, 6)]
    battle.execute_json({"type": "move", "unit": BOYZ1, "path": steps}, B)
    return battle


def snipe(unit: str = BOLTER, target: str = BOYZ1) -> dict[str, Any]:
    return {"type": "snipe", "unit": unit, "target": target}


@pytest.mark.parametrize(
    ("die", "effect", "after"),
    [
        (1, "nothing", ["unit_sniped"]),
        (2, "suppressed", ["unit_sniped", "suppressed_placed"]),
        (3, "suppressed", ["unit_sniped", "suppressed_placed"]),
        (4, "step", ["unit_sniped", "steps_taken"]),
        (5, "step", ["unit_sniped", "steps_taken"]),
        (6, "step_and_suppressed", ["unit_sniped", "steps_taken", "suppressed_placed"]),
    ],
)
def test_the_sniper_table_by_hand(die: int, effect: str, after: list[str]) -> None:
    battle = battle_with_sniper(open_ground=True)
    events = [e.event for e in battle.execute_json(snipe(), A, dice=[die])]
    assert [e.kind for e in events] == ["order_revealed", *after]
    shot = events[1]
    assert (shot.result, shot.penalties, shot.effect) == (die, 0, effect)
    boyz = battle.state.units[BOYZ1]
    assert boyz.suppressed == (1 if "suppressed_placed" in after else 0)
    assert str(boyz.status.face) == ("reduced" if "steps_taken" in after else "intact")


def test_a_destroyed_target_takes_no_suppressed_marker() -> None:
    battle = battle_with_sniper("sample-um-tactical", open_ground=True)
    # the team's plain shot first: 3 + 4 = 7 >= DV 4, the Boyz are reduced
    battle.execute_json({"type": "shoot", "unit": BOLTER, "target": BOYZ1}, A, dice=[4])
    battle.execute_json({"type": "hold", "unit": BOYZ2}, B)
    events = [e.event for e in battle.execute_json(snipe(TACTICAL), A, dice=[6])]
    assert [e.kind for e in events] == ["order_revealed", "unit_sniped", "steps_taken"]
    assert events[2].destroyed
    assert battle.state.units[BOYZ1].suppressed == 0


def refused(battle: BlackReachBattle, command: dict[str, Any]) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, A, dice=[6])
    assert battle.version == version
    return info.value


def test_a_sniper_shoots_infantry_only_and_needs_the_ability() -> None:
    battle = battle_with_sniper()
    assert refused(battle, snipe(target=BUGGY)).code == "infantry_only"
    assert refused(battle, snipe(target=TACTICAL)).code == "own_unit"
    assert refused(battle, snipe(target=BOYZ2)).code == "no_line_of_sight"
    plain = battle_with_sniper("sample-um-tactical")
    assert refused(plain, snipe()).code == "no_sniper"
    assert not [a for a in plain.actions(A) if a["command"]["type"] == "snipe"]


def offered(battle: BlackReachBattle) -> dict[str, Any]:
    return {
        a["command"]["target"]: a["odds"]
        for a in battle.actions(A)
        if a["command"]["type"] == "snipe"
    }


def test_the_sniper_is_offered_with_the_table_s_exact_odds() -> None:
    clear = offered(battle_with_sniper(open_ground=True))
    assert BUGGY not in clear  # a vehicle
    assert clear[BOYZ1] == {
        "nothing": "1/6",
        "suppressed": "1/3",
        "step": "1/3",
        "step_and_suppressed": "1/6",
    }
    # two reducing obstacles: the die less 2, never the long range
    assert offered(battle_with_sniper())[BOYZ1] == {
        "nothing": "1/2",
        "suppressed": "1/3",
        "step": "1/6",
        "step_and_suppressed": "0",
    }


def test_obstacles_come_off_the_sniper_s_die() -> None:
    battle = battle_with_sniper()
    events = [e.event for e in battle.execute_json(snipe(), A, dice=[6])]
    assert (events[1].result, events[1].penalties, events[1].effect) == (4, 2, "step")


def test_a_log_with_a_sniper_shot_replays() -> None:
    battle = battle_with_sniper()
    battle.execute_json(snipe(), A, dice=[6])
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state
