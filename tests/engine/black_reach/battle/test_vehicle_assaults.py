"""Vehicle assaults in the Black Reach battle (issue 16, rulings 107): a vehicle with Assaut
assaults a vehicle; a heavy vehicle that wins takes the square of the beaten light vehicle
(its wreck takes 1 Destruction point) [L1639-L1662]; a beaten vehicle attacker takes its
step and stays [L1665-L1685]. A vehicle's assault on infantry (rulings 119): the infantry
retreats when beaten, and is pushed aside when it wins or ties, the vehicle taking its
square [L1676-L1700].

The board is built here: 8 x 8, no terrain. The sample battle tank, given Assaut (+1), stands
on (1, 3) facing E (its rear square (0, 3)); the sample Ork buggy (DV 5, CV 0 against heavy
vehicles) on (2, 3), right in front of it, given a wreck face (structure 2) unless a test
says otherwise; the Ork mob far away.
"""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.assaults_vehicle import push_square
from app.engine.black_reach.battle.events import DestructionDealt, ForcedMove
from app.engine.black_reach.board import Square
from app.engine.match.errors import Refusal

TANK = "ultramarines:tiles[0]/0:sample-um-battle-tank"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
BUGGY = "orks:tiles[0].slots[0]/0:sample-ork-buggy"
SERGEANT = "ultramarines:tiles[1]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[1]/1:sample-um-tactical"
HEAVY = "ultramarines:tiles[1]/2:sample-um-heavy-bolter"
A, B = "A", "B"
BOARD = {"boards": [{"name": "flat", "width": 8, "height": 8, "sample": True}]}
WRECK = {"kind": "wreck", "dv": 5, "mv": None, "cv": {}, "on_step_loss": "destroy",
         "terrain": {"structure": 2}}  # fmt: skip


def setup(
    *, wreck: dict[str, Any] | None = WRECK, buggy_assault: bool = False, squad: bool = False
) -> BattleSetup:
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    counters = {c["id"]: c for c in catalogue["counters"]}
    counters["sample-um-battle-tank"]["faces"][0]["abilities"].append({"id": "assault", "param": 1})
    if wreck is not None:
        counters["sample-ork-buggy"]["faces"].append(copy.deepcopy(wreck))
    if buggy_assault:
        counters["sample-ork-buggy"]["faces"][0]["abilities"].append({"id": "assault"})
    scenario = {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-vehicle-assaults",
        "name": "Test vehicle assaults",
        "turns": 3,
        "hand_size": 0,
        "first_initiative": "ultramarines",
        "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [1, 7]}],
                "army": {
                    "faction": "ultramarines",
                    "tiles": [{"tile": "sample-um-armour"}]
                    + ([{"tile": "sample-um-squad"}] if squad else []),
                },
            },
            {
                "id": "orks",
                "deployment": [{"from": [2, 0], "to": [7, 7]}],
                "army": {
                    "faction": "orks",
                    "tiles": [
                        {
                            "tile": "sample-ork-mob",
                            "slots": [{"slot": 1, "tile": {"tile": "sample-ork-buggy"}}],
                        }
                    ],
                },
            },
        ],
        "objectives": [],
    }
    deployment = (
        Deploy(TANK, 1, 3, "E"),
        Deploy(BUGGY, 2, 3, "W"),
        Deploy(NOB, 7, 7, "W"),
        Deploy(BOYZ1, 7, 0, "W"),
        Deploy(BOYZ2, 6, 0, "W"),
        Deploy(SHOOTAS, 2, 4, "W"),
    )
    if squad:
        deployment += (Deploy(SERGEANT, 0, 0, "E"), Deploy(TACTICAL, 1, 4, "E"),
                       Deploy(HEAVY, 0, 7, "E"))  # fmt: skip
    return BattleSetup(scenario, catalogue, BOARD, {"A": "ultramarines", "B": "orks"}, deployment)


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def ordered(**kw: Any) -> BlackReachBattle:
    battle = BlackReachBattle.create(setup(**kw))
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    battle.execute_json({"type": "place_orders", "orders": [order(BUGGY, 1), order(NOB, 2)]}, B)
    return battle


ASSAULT = {"type": "assault", "unit": TANK, "target": BUGGY}


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any], **kw: Any) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, **kw)
    assert battle.version == version
    return info.value


def anchor(battle: BlackReachBattle, uid: str) -> tuple[int, int]:
    p = battle.state.units[uid].placement
    assert p is not None
    return (p.anchor.x, p.anchor.y)


def test_a_heavy_vehicle_beats_a_light_one_and_takes_its_square_onto_its_wreck() -> None:
    battle = ordered()
    # the tank's best of 6 and 1 + CV 3 + Assaut 1 = 10 against the buggy's 1 + CV 0 = 1
    new = battle.execute_json(ASSAULT, A, dice=[6, 1, 1])
    kinds = [e.event.kind for e in new]
    assert kinds[-4:] == ["assault_resolved", "steps_taken", "forced_move", "destruction_dealt"]
    assert battle.state.units[BUGGY].wreck
    moved = next(e.event for e in new if isinstance(e.event, ForcedMove))
    assert (moved.unit, moved.to.x, moved.to.y) == (TANK, 2, 3)
    assert anchor(battle, TANK) == (2, 3)
    # exactly 1 point, not the points of driving into a wreck (rulings 81)
    points = [e.event for e in new if isinstance(e.event, DestructionDealt)]
    assert [(d.wreck, d.points, d.total, d.removed, d.by) for d in points] == [
        (BUGGY, 1, 1, False, TANK)
    ]


def test_a_light_vehicle_without_a_wreck_face_is_removed_and_the_square_taken() -> None:
    battle = ordered(wreck=None)
    new = battle.execute_json(ASSAULT, A, dice=[6, 1, 1])
    assert not battle.state.units[BUGGY].alive
    assert anchor(battle, TANK) == (2, 3)
    assert not any(isinstance(e.event, DestructionDealt) for e in new)


def test_a_wreck_forbidden_to_heavy_vehicles_keeps_the_tank_on_its_start_square() -> None:
    forbidden = copy.deepcopy(WRECK)
    forbidden["terrain"] = {"structure": 2, "forbidden_to": ["heavy_vehicle"]}
    battle = ordered(wreck=forbidden)
    new = battle.execute_json(ASSAULT, A, dice=[6, 1, 1])
    assert battle.state.units[BUGGY].wreck
    assert anchor(battle, TANK) == (1, 3)
    assert not any(isinstance(e.event, ForcedMove | DestructionDealt) for e in new)


def test_a_beaten_heavy_vehicle_attacker_takes_its_step_and_stays() -> None:
    battle = ordered()
    # 1 + 3 + 1 = 5 against 6 + 0 = 6: the buggy wins; the tank's location die 1: Locomotion
    new = battle.execute_json(ASSAULT, A, dice=[1, 1, 6, 1])
    kinds = [e.event.kind for e in new]
    assert "damage_located" in kinds
    assert "forced_move" not in kinds
    assert anchor(battle, TANK) == (1, 3)
    assert battle.state.units[BUGGY].alive


def test_a_vehicle_assault_on_infantry_is_offered() -> None:
    battle = BlackReachBattle.create(setup(buggy_assault=True, squad=True))
    mine = [order(TANK, 1), order(SERGEANT, 2), order(HEAVY, 3)]
    battle.execute_json({"type": "place_orders", "orders": mine}, A)
    battle.execute_json({"type": "place_orders", "orders": [order(BUGGY, 1), order(NOB, 2)]}, B)
    battle.execute_json({"type": "hold", "unit": TANK}, A)
    targets = {
        a["command"]["target"]
        for a in battle.actions(B)
        if a["command"]["type"] == "assault" and a["command"]["unit"] == BUGGY
    }
    assert {TANK, TACTICAL} <= targets  # the Tactical squad next to it too (rulings 119)


TANK_ON_SHOOTAS = {"type": "assault", "unit": TANK, "target": SHOOTAS}


def shootas_in_front() -> BattleSetup:
    """The shootas right in front of the tank on (2, 3), the buggy away on (7, 5)."""
    made = setup()
    spots = {BUGGY: Deploy(BUGGY, 7, 5, "W"), SHOOTAS: Deploy(SHOOTAS, 2, 3, "W")}
    deployment = tuple(spots.get(d.unit, d) for d in made.deployment)
    return dataclasses.replace(made, deployment=deployment)


def facing_the_shootas() -> BlackReachBattle:
    battle = BlackReachBattle.create(shootas_in_front())
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    return battle


def answered(battle: BlackReachBattle, new: Any) -> list[Any]:
    """The events, the owner's square taken (the first offered) when the battle waits for it
    (rulings 142)."""
    awaited = next((e.event for e in new if e.event.kind == "square_awaited"), None)
    if awaited is None:
        return list(new)
    first = awaited.squares[0]
    answer = {"type": "choose_square", "unit": awaited.unit, "x": first.x, "y": first.y}
    return [*new, *battle.execute_json(answer, B)]


def test_a_tank_beating_infantry_takes_the_square_it_retreats_from() -> None:
    battle = facing_the_shootas()
    assert any(
        a["command"] == {**TANK_ON_SHOOTAS, "path": [], "supporters": []} for a in battle.actions(A)
    )
    # best of 6 and 1 + CV 3 + Assaut 1 = 10 against the shootas' best of 1 and 1 + 0 = 1
    new = answered(battle, battle.execute_json(TANK_ON_SHOOTAS, A, dice=[6, 1, 1, 1]))
    moves = [(e.event.unit, e.event.to.x, e.event.to.y, e.event.why) for e in new
             if isinstance(e.event, ForcedMove)]  # fmt: skip
    # the retreat straight back from the tank's front square (1, 3), then the tank in
    assert moves == [(SHOOTAS, 3, 3, "retreat"), (TANK, 2, 3, "takes the defender's square")]
    assert battle.state.units[TANK].placement.squares == {  # type: ignore[union-attr]
        Square(2, 3),
        Square(1, 3),
    }


def test_on_a_tie_the_tank_takes_the_square_and_pushes_the_infantry_aside() -> None:
    battle = facing_the_shootas()
    # 1 + 3 + 1 = 5 against 5 + 0 = 5: a tie, no step [L1697-L1700]
    new = battle.execute_json(TANK_ON_SHOOTAS, A, dice=[1, 1, 5, 5])
    assert [e.event.kind for e in new][-2:] == ["assault_resolved", "square_awaited"]
    new = answered(battle, new)
    assert [e.event.kind for e in new][-2:] == ["forced_move", "forced_move"]
    moves = [(e.event.unit, e.event.to.x, e.event.to.y, e.event.why) for e in new
             if isinstance(e.event, ForcedMove)]  # fmt: skip
    # the first free square next to it in reading order
    assert moves == [
        (SHOOTAS, 1, 2, "pushed aside by the vehicle"),
        (TANK, 2, 3, "takes the defender's square"),
    ]
    assert str(battle.state.units[SHOOTAS].status.face) == "intact"


def test_a_tank_beaten_by_infantry_takes_its_step_and_still_takes_the_square() -> None:
    battle = facing_the_shootas()
    # 5 against 6: the shootas win; the tank's location die 3 [L1676-L1685]
    new = answered(battle, battle.execute_json(TANK_ON_SHOOTAS, A, dice=[1, 1, 6, 6, 3]))
    kinds = [e.event.kind for e in new]
    assert kinds.index("damage_located") < kinds.index("forced_move")
    assert anchor(battle, TANK) == (2, 3)
    assert anchor(battle, SHOOTAS) == (1, 2)


def test_the_push_square_and_nowhere_to_go() -> None:
    battle = facing_the_shootas()
    state = battle.state
    shootas = state.units[SHOOTAS]
    under = frozenset({Square(2, 3), Square(1, 3)})
    assert push_square(state, shootas, under) == Square(1, 2)
    row = frozenset({Square(1, 2), Square(2, 2), Square(3, 2)})
    assert push_square(state, shootas, under | row) == Square(3, 3)
    around = frozenset(Square(2, 3).neighbours())
    assert push_square(state, shootas, under | around) is None


def test_a_unit_whose_face_has_weapons_is_offered_its_assaults() -> None:
    # the tank fires its weapons one by one (vehicle_fire), and may still assault (rulings 120)
    battle = ordered()
    offered = {
        a["command"]["target"]
        for a in battle.actions(A)
        if a["command"]["type"] == "assault" and a["command"]["unit"] == TANK
    }
    assert offered == {BUGGY, SHOOTAS}
    kinds = {a["command"]["type"] for a in battle.actions(A)}
    assert "vehicle_fire" in kinds
    assert "shoot" not in kinds  # never a single shot of the whole face
