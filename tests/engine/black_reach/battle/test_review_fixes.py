"""Review findings on the Black Reach work (issue 16): each test pins one fix."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, sample_setup
from app.engine.black_reach.turn import TokenKind
from app.engine.match.errors import Refusal
from tests.engine.black_reach.battle import test_ambush as ambush
from tests.engine.black_reach.battle import test_deploy_aboard as aboard_tests
from tests.engine.black_reach.battle import test_equipment_auras as eq
from tests.engine.black_reach.battle import test_heavy_vehicles as heavy
from tests.engine.black_reach.battle import test_vehicle_multi_shots_on_move as multi
from tests.engine.black_reach.battle.test_structures import (
    BOYZ1,
    DESTRUCTION,
    TACTICAL,
    A,
    B,
    ordered,
)

ASSAULT_BOYZ = {
    "type": "assault",
    "unit": TACTICAL,
    "target": BOYZ1,
    "path": [{"x": 2, "y": 4}, {"x": 3, "y": 5}, {"x": 4, "y": 5}],
}


def test_destruction_dice_rolled_when_the_beaten_infantry_chooses_its_square() -> None:
    """Rulings 142/104: the beaten infantry's owner chooses its square, yet the attack's
    Destruction dice are rolled at once, at the structure the defender stood in."""
    battle = ordered(DESTRUCTION)
    new = battle.execute_json(ASSAULT_BOYZ, A, dice=[6, 6, 1, 4, 6])
    kinds = [e.event.kind for e in new]
    assert "square_awaited" in kinds
    assert battle.state.placing is not None
    assert "destruction_dealt" in kinds
    dealt = next(e.event for e in new if e.event.kind == "destruction_dealt")
    assert dealt.points >= 1
    assert sum(battle.state.destruction.values()) >= 1
    square = battle.state.placing.squares[-1]
    done = battle.execute_json(
        {"type": "choose_square", "unit": BOYZ1, "x": square.x, "y": square.y}, B, dice=[]
    )
    # the dice are not rolled a second time once the square is chosen
    assert [e.event.kind for e in done] == ["forced_move", "forced_move"]


# -- rulings 141: a transport deployed again with its passengers -------------------------------


def flight_setup() -> BattleSetup:
    """The sample set-up with no deployment; the transport gets Changement d'état and a
    Flight face carrying 1."""
    s = sample_setup(deployment=())
    cat = copy.deepcopy(s.catalogue)
    t = next(c for c in cat["counters"] if c["id"] == "sample-um-transport")
    intact = t["faces"][0]
    intact["abilities"].append({"id": "state_change"})
    flight = copy.deepcopy(intact)
    flight["kind"] = "flight"
    flight["abilities"] = [a for a in flight["abilities"] if a["id"] != "transport"]
    flight["abilities"].append({"id": "transport", "param": 1})
    t["faces"].append(flight)
    return replace(s, catalogue=cat)


def _transport_with_flight_face() -> BlackReachBattle:
    return BlackReachBattle.create(flight_setup())


def _deploy_transport(battle: BlackReachBattle, face: str | None = None) -> None:
    d = aboard_tests.PLACES[aboard_tests.TRANSPORT]
    command: dict[str, Any] = {
        "type": "deploy",
        "unit": aboard_tests.TRANSPORT,
        "x": d.x,
        "y": d.y,
        "facing": d.facing,
    }
    if face is not None:
        command["face"] = face
    battle.execute_json(command, A)


def test_a_loaded_transport_is_not_deployed_again_on_its_flight_face() -> None:
    battle = _transport_with_flight_face()
    _deploy_transport(battle)
    battle.execute_json(aboard_tests.aboard(aboard_tests.TACTICAL), A)
    before = battle.version
    with pytest.raises(Refusal) as info:
        _deploy_transport(battle, "flight")
    assert info.value.code == "transport_flying"
    assert battle.version == before
    # its passenger deployed on a square first, the transport may fly
    aboard_tests.deploy(battle, A, aboard_tests.TACTICAL)
    _deploy_transport(battle, "flight")
    assert str(battle.state.units[aboard_tests.TRANSPORT].status.face) == "flight"


def test_a_loaded_transport_deployed_again_keeps_its_passengers_within_its_capacity() -> None:
    battle = _transport_with_flight_face()
    _deploy_transport(battle)
    battle.execute_json(aboard_tests.aboard(aboard_tests.TACTICAL), A)
    battle.execute_json(aboard_tests.aboard(aboard_tests.SERGEANT), A)
    _deploy_transport(battle)  # the same face again: both still aboard
    aboard = {p.uid for p in battle.state.passengers(aboard_tests.TRANSPORT)}
    assert aboard == {aboard_tests.TACTICAL, aboard_tests.SERGEANT}


def test_a_transport_face_with_less_room_refuses_its_passengers() -> None:
    # a reduced face on the ground carrying 1: the tactical squad (2) no longer fits
    cat = copy.deepcopy(sample_setup().catalogue)
    t = next(c for c in cat["counters"] if c["id"] == "sample-um-transport")
    t["faces"][0]["abilities"].append({"id": "state_change"})
    small = copy.deepcopy(t["faces"][0])
    small["kind"] = "reduced"
    small["abilities"] = [a for a in small["abilities"] if a["id"] != "transport"]
    small["abilities"].append({"id": "transport", "param": 1})
    t["faces"] = [f for f in t["faces"] if f["kind"] != "reduced"] + [small]
    battle = BlackReachBattle.create(replace(sample_setup(deployment=()), catalogue=cat))
    _deploy_transport(battle)
    battle.execute_json(aboard_tests.aboard(aboard_tests.TACTICAL), A)
    with pytest.raises(Refusal) as info:
        _deploy_transport(battle, "reduced")
    assert info.value.code == "transport_full"
    assert battle.state.units[aboard_tests.TACTICAL].embarked_in == aboard_tests.TRANSPORT


# -- rulings 146: the token an Ordre Personnel unit must carry ----------------------------------


def test_an_ordre_personnel_unit_may_carry_a_bluff() -> None:
    """[L1933-L1942] (note §7's reconstruction): the unit must get an Order token every turn,
    Numbered, Special or Bluff: a Bluff on it is accepted (leaving it without one is refused:
    test_equipment_auras.py)."""
    bluff = copy.deepcopy(
        next(o for o in sample_setup().catalogue["options"] if o["id"] == "sample-um-bluff")
    )
    bluff["id"] = "test-bluff"
    bluff["bands"] = ["gold"]
    bluff["ordnance"] = {"bluff_tokens": 1}
    others = (ambush.SERGEANT, ambush.TACTICAL, ambush.HEAVY)
    orders = [ambush.order(u, n) for n, u in enumerate(others, 1)]
    battle = BlackReachBattle.create(eq.vehicle_setup(eq.SPIRIT_OPTION, bluff))
    orders.append({"unit": ambush.TANK, "kind": "bluff", "nonce": "n-tank"})
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    assert battle.state.secret["ultramarines"][ambush.TANK].token.kind is TokenKind.BLUFF


# -- rulings 122/140: a weapon lost to En Alerte loses only its own shot ------------------------


def test_a_weapon_lost_to_en_alerte_loses_only_its_shot_on_the_move() -> None:
    """The tank moves two squares and fires main_1 and secondary_1 after the second; the
    Shootas' En Alerte shot after the first destroys main_1 (location 5): secondary_1 still
    fires its shot, main_1's is lost."""
    battle = BlackReachBattle.create(
        multi.gunned(base=heavy.setup(shootas=(5, 2), shootas_abilities=("overwatch",)))
    )
    battle.execute_json(
        {
            "type": "place_orders",
            "orders": [heavy.order(heavy.NOB, 1), heavy.order(heavy.SHOOTAS, 2)],
        },
        B,
    )
    battle.execute_json({"type": "place_orders", "orders": [heavy.order(heavy.TANK, 1)]}, A)
    battle.execute_json({"type": "hold", "unit": heavy.NOB}, B)
    command = {
        "type": "move",
        "unit": heavy.TANK,
        "path": [{"x": 2, "y": 2, "facing": "N"}, {"x": 2, "y": 1, "facing": "N"}],
        "fire_after": 2,
        "weapons": [multi.shot("main_1", heavy.BOYZ1), multi.shot("secondary_1", heavy.BOYZ2)],
    }
    declared = battle.execute_json(command, A, dice=[])
    assert declared[-1].event.kind == "move_declared"
    # En Alerte: 4 + CV 4 against DV 8 is a step; location 5 destroys main_1; then the tank's
    # one remaining shot, a 5
    answered = battle.execute_json(
        {"type": "overwatch", "unit": heavy.SHOOTAS, "after": 1}, B, dice=[4, 5, 5]
    )
    located = next(e.event for e in answered if e.event.kind == "damage_located")
    assert (located.marker, located.number) == ("main_weapon", 1)
    shots = [
        (e.event.unit, e.event.target, e.event.weapon)
        for e in answered
        if e.event.kind == "unit_shot"
    ]
    assert shots == [
        (heavy.SHOOTAS, heavy.TANK, None),
        (heavy.TANK, heavy.BOYZ2, "secondary_1"),
    ]
    assert battle.state.units[heavy.TANK].placement is not None
    assert battle.state.units[heavy.TANK].placement.anchor == (2, 1)
