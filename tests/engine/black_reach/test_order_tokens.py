"""The army's Order tokens before the battle and the match's Order phase count alike (issue 16,
rulings 46, 146, 151) [L153-L160], [L1926-L1942], [L2594-L2596], [L2700-L2701].

Machine Spirit is our own made-up option in the book's words (``test_equipment_auras``'s
``SPIRIT_OPTION``: a vehicle's Equipment granting Ordre Personnel); the armies are built from
the sample catalogue, the sample Land Raider-like tile (``sample-um-armour``: 1 star, a battle
tank without Ordre) given gold slots for it.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

from app.engine.black_reach.armies import (
    MAX_ORDER_TOKENS,
    Army,
    Catalogue,
    Fielded,
    Filled,
    order_tokens,
    validate_army,
)
from app.engine.black_reach.battle import BlackReachBattle, rules
from app.engine.black_reach.board import DATA_DIR
from app.engine.black_reach.forces import Faction
from app.engine.black_reach.loaders import catalogue_from_dict
from app.engine.black_reach.turn import TokenKind
from tests.engine.black_reach.battle import test_ambush as ambush
from tests.engine.black_reach.battle.test_equipment_auras import SPIRIT_OPTION, vehicle_setup

SQUAD = Fielded("sample-um-squad")  # 1 star + the sergeant's Ordre: 2 tokens
ARMOUR = Fielded("sample-um-armour")  # 1 star, the tank has no Ordre: 1 token
SPIRITED = Fielded("sample-um-armour", (Filled(0, option="test-spirit"),))


def catalogue(*options: dict[str, Any]) -> Catalogue:
    raw = json.loads((DATA_DIR / "forces.json").read_text())
    raw["options"].extend(copy.deepcopy([SPIRIT_OPTION, *options]))
    armour = next(t for t in raw["tiles"] if t["id"] == "sample-um-armour")
    armour["slots"] = [{"bands": ["gold"]}]
    return catalogue_from_dict(raw)


CAT = catalogue()


def army(*tiles: Fielded) -> Army:
    return Army(Faction.ULTRAMARINES, tiles)


def numbered(pool: tuple[Any, ...]) -> int:
    return sum(t.kind is TokenKind.NUMBERED for t in pool)


def test_machine_spirit_gives_its_token_in_the_army_count() -> None:
    assert order_tokens(army(ARMOUR), CAT).numbered == 1
    assert order_tokens(army(SPIRITED), CAT).numbered == 2
    # broken, the tile gives nothing, its gift's token neither [L639-L647]
    assert order_tokens(army(SPIRITED), CAT, broken=frozenset({"tiles[0]"})).numbered == 0
    # in a squad's slot it serves no unit (vehicles only): no token
    squad = Fielded("sample-um-squad", (Filled(1, option="test-spirit"),))
    assert order_tokens(army(squad), CAT).numbered == order_tokens(army(SQUAD), CAT).numbered == 2


def test_machine_spirit_counts_towards_the_cap_of_ten_tokens() -> None:
    ten = army(SQUAD, SQUAD, SQUAD, SQUAD, ARMOUR, ARMOUR)
    assert order_tokens(ten, CAT).total == MAX_ORDER_TOKENS
    assert [v.code for v in validate_army(ten, CAT)] == []
    eleven = army(SQUAD, SQUAD, SQUAD, SQUAD, ARMOUR, SPIRITED)
    violations = validate_army(eleven, CAT)
    assert [v.code for v in violations] == ["too_many_tokens"]
    assert "11 Order tokens" in violations[0].message


def test_a_printed_ordre_personnel_is_not_counted_twice() -> None:
    raw = json.loads((DATA_DIR / "forces.json").read_text())
    raw["options"].append(copy.deepcopy(SPIRIT_OPTION))
    armour = next(t for t in raw["tiles"] if t["id"] == "sample-um-armour")
    armour["slots"] = [{"bands": ["gold"]}]
    tank = next(c for c in raw["counters"] if c["id"] == "sample-um-battle-tank")
    tank["faces"][0]["abilities"].append({"id": "personal_order"})
    cat = catalogue_from_dict(raw)
    assert order_tokens(army(ARMOUR), cat).numbered == 2
    assert order_tokens(army(SPIRITED), cat).numbered == 2


def test_a_replaced_counter_gives_no_token() -> None:
    # an option putting a tactical marine in the sergeant's place: his Ordre is not fielded
    swap = {
        "id": "test-swap",
        "name": "A made-up swap",
        "faction": "ultramarines",
        "type": "support",
        "cost": 1,
        "bands": ["blue"],
        "counters": ["sample-um-tactical"],
        "replaces": ["sample-um-sergeant"],
    }
    cat = catalogue(swap)
    swapped = Fielded("sample-um-squad", (Filled(0, option="test-swap"),))
    assert order_tokens(army(swapped), cat).numbered == 1  # the tile's star only


def test_the_order_phase_takes_what_the_army_counts() -> None:
    counts = []
    for options in ((), (SPIRIT_OPTION,)):
        battle = BlackReachBattle.create(vehicle_setup(*options))
        state = battle.state
        assert state.scenario is not None
        assert state.turn is not None
        counted = {
            side.id: order_tokens(side.army, state.catalogue).numbered
            for side in state.scenario.sides
        }
        assert {s: numbered(pool) for s, pool in state.turn.pools.items()} == counted
        counts.append(counted)
    plain, spirit = counts
    assert spirit == {**plain, "ultramarines": plain["ultramarines"] + 1}
    assert spirit["ultramarines"] == 4


def test_the_gift_s_token_goes_with_its_destroyed_vehicle() -> None:
    state = BlackReachBattle.create(vehicle_setup(SPIRIT_OPTION)).state
    assert numbered(rules._pool(state, "ultramarines")) == 4
    tank = state.units[ambush.TANK]
    gone = replace(tank, status=replace(tank.status, destroyed=True))
    state = replace(state, units={**state.units, ambush.TANK: gone})
    # the armour tile's star stays (its group is not broken), the tank's own token goes
    assert numbered(rules._pool(state, "ultramarines")) == 3
