"""Embuscade and spotting in the Black Reach battle (issue 16, rulings 114-117)
[L1776-L1824], [L3142], [L3156-L3157].

The board is built here: 10 x 10, flat, with one wood square (5, 5) (a terrain element:
defence bonus 1, no obstacle). The sample Ork shootas get an Inactive face (DV 4, MV 4, CV 2,
Assaut) and an Ambush face (DV 4, MV 5, CV 1 against infantry, Embuscade) and deploy in ambush
in the wood. The Ultramarines stand at least 3 squares away: the tactical squad on
(1, 1), the sergeant on (3, 2) (Auspex when a test asks), the heavy bolter on (9, 0) and the
battle tank on (5, 2)-(5, 1) facing S.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.ambush import spotter_of
from app.engine.black_reach.battle.events import UnitSpotted
from app.engine.match.errors import Refusal

TANK = "ultramarines:tiles[0]/0:sample-um-battle-tank"
SERGEANT = "ultramarines:tiles[1]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[1]/1:sample-um-tactical"
HEAVY = "ultramarines:tiles[1]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
A, B = "A", "B"
BOARD = {
    "boards": [
        {
            "name": "wood",
            "width": 10,
            "height": 10,
            "sample": True,
            "elements": [{"id": "wood", "squares": [[5, 5]], "defence_bonus": 1}],
        }
    ]
}
AMBUSH_FACE = {"kind": "ambush", "dv": 4, "mv": 5,
               "cv": {"infantry": 1, "light_vehicle": 0, "heavy_vehicle": None},
               "abilities": [{"id": "ambush"}], "on_step_loss": "destroy"}  # fmt: skip
INACTIVE_FACE = {"kind": "inactive", "dv": 4, "mv": 4,
                 "cv": {"infantry": 2, "light_vehicle": 1, "heavy_vehicle": 0},
                 "abilities": [{"id": "assault"}], "on_step_loss": "destroy"}  # fmt: skip


def setup(
    *,
    auspex: int | None = None,
    shootas_at: tuple[int, int] = (5, 5),
    sergeant_ambush: bool = False,
    overwatch: str | None = None,
) -> BattleSetup:
    """The battle; ``sergeant_ambush``: the sergeant gets an Ambush face and deploys on it;
    ``overwatch``: a counter id given En Alerte."""
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    counters = {c["id"]: c for c in catalogue["counters"]}
    if sergeant_ambush:
        hidden = copy.deepcopy(counters["sample-um-sergeant"]["faces"][0])
        hidden["kind"] = "ambush"
        hidden["abilities"] = [{"id": "ambush"}]
        counters["sample-um-sergeant"]["faces"].append(hidden)
    if overwatch is not None:
        counters[overwatch]["faces"][0]["abilities"].append({"id": "overwatch"})
    counters["sample-ork-shootas"]["faces"] = [copy.deepcopy(INACTIVE_FACE),
                                               copy.deepcopy(AMBUSH_FACE)]  # fmt: skip
    if auspex is not None:
        counters["sample-um-sergeant"]["faces"][0]["abilities"].append(
            {"id": "auspex", "param": auspex}
        )
    scenario = {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-ambush",
        "name": "Test ambush",
        "turns": 3,
        "hand_size": 0,
        "first_initiative": "ultramarines",
        "board": {"name": "wood", "boards": [{"board": "wood", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [9, 2]}],
                "army": {
                    "faction": "ultramarines",
                    "tiles": [{"tile": "sample-um-armour"}, {"tile": "sample-um-squad"}],
                },
            },
            {
                "id": "orks",
                "deployment": [{"from": [0, 3], "to": [9, 9]}],
                "army": {"faction": "orks", "tiles": [{"tile": "sample-ork-mob"}]},
            },
        ],
        "objectives": [],
    }
    deployment = (
        Deploy(TANK, 5, 2, "S"),
        Deploy(SERGEANT, 3, 2, "S", "ambush" if sergeant_ambush else None),
        Deploy(TACTICAL, 1, 1, "S"),
        Deploy(HEAVY, 9, 0, "S"),
        Deploy(SHOOTAS, *shootas_at, "N", "ambush"),
        Deploy(NOB, 9, 9, "N"),
        Deploy(BOYZ1, 0, 9, "N"),
        Deploy(BOYZ2, 1, 9, "N"),
    )
    return BattleSetup(scenario, catalogue, BOARD, {"A": "ultramarines", "B": "orks"}, deployment)


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def ordered(a: tuple[str, ...] = (TACTICAL, TANK, SERGEANT), **kw: Any) -> BlackReachBattle:
    battle = BlackReachBattle.create(setup(**kw))
    orders = [order(u, n) for n, u in enumerate(a, 1)]
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    return battle


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any], **kw: Any) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, **kw)
    assert battle.version == version
    return info.value


def face(battle: BlackReachBattle, uid: str) -> str:
    return str(battle.state.units[uid].status.face)


def spotted(new: list[Any]) -> list[UnitSpotted]:
    return [e.event for e in new if isinstance(e.event, UnitSpotted)]


def move(unit: str, *squares: tuple[int, int]) -> dict[str, Any]:
    return {"type": "move", "unit": unit, "path": [{"x": x, "y": y} for x, y in squares]}


def test_an_ambushed_unit_cannot_be_shot_and_is_not_offered_as_a_target() -> None:
    battle = ordered()
    assert face(battle, SHOOTAS) == "ambush"
    err = refused(battle, A, {"type": "shoot", "unit": TACTICAL, "target": SHOOTAS})
    assert err.code == "ambushed"
    targets = [
        a["command"].get("target") for a in battle.actions(A) if a["command"]["type"] == "shoot"
    ]
    assert SHOOTAS not in targets
    assert NOB in targets  # the nob in the open is a target


def test_the_end_of_an_enemy_move_within_two_squares_spots_it_in_terrain() -> None:
    battle = ordered()
    # 3 squares from the wood: clear line of sight, but it stands in a terrain element
    new = battle.execute_json(move(TACTICAL, (1, 2), (2, 3)), A)
    assert spotted(new) == []
    assert face(battle, SHOOTAS) == "ambush"
    battle = ordered()
    new = battle.execute_json(move(TACTICAL, (1, 2), (2, 3), (3, 3)), A)
    assert [(s.unit, s.face, s.why, s.by, s.after) for s in spotted(new)] == [
        (SHOOTAS, "inactive", "spotted", TACTICAL, None)
    ]
    assert face(battle, SHOOTAS) == "inactive"
    assert new[-1].event.kind != "unit_spotted" or len(spotted(new)) == 1


def test_a_heavy_vehicle_never_spots() -> None:
    battle = ordered((TANK, TACTICAL, SERGEANT))
    # the tank's front comes next to the wood: it spots nothing
    new = battle.execute_json(move(TANK, (5, 3), (5, 4)), A)
    assert spotted(new) == []
    assert face(battle, SHOOTAS) == "ambush"


def test_a_moving_ambushed_unit_is_spotted_where_it_leaves_the_wood_and_keeps_its_mv() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": TACTICAL}, A)
    # five squares: the Ambush face's MV 5 (its Inactive face has 4)
    path = ((6, 5), (7, 5), (8, 5), (8, 6), (8, 7))
    new = battle.execute_json(move(SHOOTAS, *path), B)
    [s] = spotted(new)
    assert (s.unit, s.why, s.after) == (SHOOTAS, "spotted", 1)
    assert s.by in {TACTICAL, SERGEANT, HEAVY}
    assert face(battle, SHOOTAS) == "inactive"
    p = battle.state.units[SHOOTAS].placement
    assert p is not None
    assert (p.anchor.x, p.anchor.y) == (8, 7)


def test_a_move_inside_the_wood_far_from_the_enemy_is_not_spotted() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": TACTICAL}, A)
    new = battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    assert spotted(new) == []
    assert face(battle, SHOOTAS) == "ambush"


def test_auspex_spots_within_its_range_when_activated() -> None:
    battle = ordered((SERGEANT, TACTICAL, TANK), auspex=3)
    new = battle.execute_json({"type": "hold", "unit": SERGEANT}, A)
    assert [(s.why, s.by) for s in spotted(new)] == [("auspex", SERGEANT)]
    battle = ordered((SERGEANT, TACTICAL, TANK), auspex=2)
    new = battle.execute_json({"type": "hold", "unit": SERGEANT}, A)
    assert spotted(new) == []


def test_an_assaulted_ambushed_unit_turns_inactive_before_the_dice() -> None:
    battle = ordered()
    offered = [
        a
        for a in battle.actions(A)
        if a["command"]["type"] == "assault" and a["command"]["target"] == SHOOTAS
    ]
    assert offered
    assert offered[0]["command"]["unit"] == TACTICAL
    command = {"type": "assault", "unit": TACTICAL, "target": SHOOTAS,
               "path": [{"x": 2, "y": 2}, {"x": 3, "y": 3}, {"x": 4, "y": 4}]}  # fmt: skip
    # the tactical's best of 6 and 1 + CV 2 + Assaut 1 = 9; the shootas (Inactive: Assaut,
    # two dice) 1 + CV 2 = 3 (its Ambush face's CV is 1; the wood has no shield colour)
    new = battle.execute_json(command, A, dice=[6, 1, 1, 1])
    kinds = [e.event.kind for e in new]
    assert kinds.index("unit_spotted") < kinds.index("assault_resolved")
    assert [(s.why, s.by) for s in spotted(new)] == [("assault", TACTICAL)]
    resolved = next(e.event for e in new if e.event.kind == "assault_resolved")
    assert (resolved.attacker_total, resolved.defender_total) == (9, 3)


def test_an_ambushed_unit_flips_to_shoot() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": TACTICAL}, A)
    new = battle.execute_json({"type": "shoot", "unit": SHOOTAS, "target": TACTICAL}, B, dice=[6])
    kinds = [e.event.kind for e in new]
    assert kinds[:3] == ["order_revealed", "unit_spotted", "unit_shot"]
    shot = next(e.event for e in new if e.event.kind == "unit_shot")
    assert shot.cv == 2  # the Inactive face's CV against infantry, not the Ambush face's 1
    assert face(battle, SHOOTAS) == "inactive"


def test_an_ambushed_unit_blocks_no_line_of_sight_and_its_face_is_what_both_see() -> None:
    # the shootas in the open on (5, 4), right between the tank's squares and the wood: the
    # Ultramarines see both the ambush face and its Ambush values, no more
    battle = ordered()
    view = battle.render(A)
    mine = next(u for u in view["units"] if u["id"] == SHOOTAS)
    assert (mine["face"], mine["dv"], mine["mv"]) == ("ambush", 4, 5)
    assert mine["token"] is None
    assert mine["face_down_token"] is True


def test_two_ambushed_units_spot_each_other() -> None:
    # the shootas in the open on (4, 4), next to the ambushed sergeant
    battle = ordered((TACTICAL, TANK), sergeant_ambush=True, shootas_at=(4, 4))
    state = battle.state
    assert face(battle, SERGEANT) == "ambush"
    shootas, sergeant = state.units[SHOOTAS], state.units[SERGEANT]
    assert spotter_of(state, shootas, [sergeant]) == SERGEANT
    assert spotter_of(state, sergeant, [shootas]) == SHOOTAS
    tank = state.units[TANK]
    assert spotter_of(state, shootas, [tank]) is None  # a heavy vehicle never spots


def test_en_alerte_shoots_a_moving_ambushed_unit_once_it_is_spotted() -> None:
    battle = ordered(overwatch="sample-um-heavy-bolter")
    battle.execute_json({"type": "hold", "unit": TACTICAL}, A)
    path = ((6, 5), (7, 5))
    new = battle.execute_json(move(SHOOTAS, *path), B, dice=[])
    assert [e.event.kind for e in new] == ["order_revealed", "move_declared"]
    steps = {
        a["command"]["after"] for a in battle.actions(A) if a["command"]["type"] == "overwatch"
    }
    assert steps == {1, 2}  # spotted on its first square: a target from there on
    # the heavy bolter: 1 + CV 3 = 4 against DV 4, a step
    new = battle.execute_json({"type": "overwatch", "unit": HEAVY, "after": 1}, A, dice=[1])
    kinds = [e.event.kind for e in new]
    assert kinds.index("unit_spotted") < kinds.index("unit_shot")
