"""Grenades and Tankbusta Bombs in the Black Reach battle (issue 16, rulings 101): an
equipment marker used for good, thrown as an Alternative Shooting Action of infantry, its
template on an intercase within range, never scattering; every unit under it attacked with
the template's CVs [L2486-L2496], [L2515-L2564]; Tankbusta Bombs affect one square.

The board is built here: 8 x 8, no terrain. Our own options and templates (the printed ones
are not in the seed): the Ultramarines squad holds "test-grenades" (1 marker, template "G",
the 4 squares around its intercase, CV 3 / 1 / X, range 3 intercases); the Ork mob holds
"test-tankbusta" (1 marker, template "T", the one square right-below its intercase, CV 1 / 2
/ 4, range 2). The Tactical squad on (1, 3), the Sergeant on (2, 3); the Shootas on (5, 3),
the Boyz on (4, 4) and (4, 2), the Nob on (7, 7).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.events import GrenadeThrown, UnitShot
from app.engine.black_reach.loaders import catalogue_from_dict
from app.engine.errors import ProfileError
from app.engine.match.errors import Refusal

SERGEANT = "ultramarines:tiles[0]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[0]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[0]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
A, B = "A", "B"

BOARD = {"boards": [{"name": "flat", "width": 8, "height": 8, "sample": True}]}


def grenade_option(ident: str, faction: str, band: str, template: str, rng: int) -> dict[str, Any]:
    return {
        "id": ident,
        "name": f"Made-up {ident}",
        "faction": faction,
        "type": "equipment",
        "cost": 2,
        "bands": [band],
        "equipment": {
            "markers": 1,
            "restriction": ["infantry"],
            "alternative": True,
            "template": template,
            "range": rng,
        },
    }


def catalogue() -> dict[str, Any]:
    raw = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(raw, dict)
    raw["templates"] += [
        {
            "id": "G",
            "cells": [[-1, -1], [0, -1], [-1, 0], [0, 0]],
            "cv": {"infantry": 3, "light_vehicle": 1, "heavy_vehicle": None},
        },
        {
            "id": "T",
            "cells": [[0, 0]],
            "cv": {"infantry": 1, "light_vehicle": 2, "heavy_vehicle": 4},
        },
    ]
    raw["options"] += [
        grenade_option("test-grenades", "ultramarines", "blue", "G", 3),
        grenade_option("test-tankbusta", "orks", "red", "T", 2),
    ]
    return raw


def setup() -> BattleSetup:
    scenario = {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-grenades",
        "name": "Test grenades",
        "turns": 3,
        "hand_size": 0,
        "first_initiative": "ultramarines",
        "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [2, 7]}],
                "army": {
                    "faction": "ultramarines",
                    "tiles": [
                        {
                            "tile": "sample-um-squad",
                            "slots": [{"slot": 0, "option": "test-grenades"}],
                        }
                    ],
                },
            },
            {
                "id": "orks",
                "deployment": [{"from": [4, 0], "to": [7, 7]}],
                "army": {
                    "faction": "orks",
                    "tiles": [
                        {
                            "tile": "sample-ork-mob",
                            "slots": [{"slot": 0, "option": "test-tankbusta"}],
                        }
                    ],
                },
            },
        ],
        "objectives": [],
    }
    deployment = (
        Deploy(SERGEANT, 2, 3, "E"),
        Deploy(TACTICAL, 1, 3, "E"),
        Deploy(BOLTER, 0, 0, "E"),
        Deploy(NOB, 7, 7, "W"),
        Deploy(BOYZ1, 4, 4, "W"),
        Deploy(BOYZ2, 4, 2, "W"),
        Deploy(SHOOTAS, 5, 3, "W"),
    )
    return BattleSetup(scenario, catalogue(), BOARD, {"A": "ultramarines", "B": "orks"}, deployment)


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


def ordered() -> BlackReachBattle:
    battle = BlackReachBattle.create(setup())
    battle.execute_json({"type": "place_orders", "orders": [order(BOYZ2, 1), order(NOB, 2)]}, B)
    battle.execute_json(
        {"type": "place_orders", "orders": [order(TACTICAL, 1), order(SERGEANT, 2)]}, A
    )
    return battle


def throw(unit: str, option: str, x: int, y: int) -> dict[str, Any]:
    return {"type": "grenade", "unit": unit, "option": option, "x": x, "y": y, "facing": "N"}


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any], **kw: Any) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, **kw)
    assert battle.version == version
    return info.value


def shots(envelopes: Any) -> list[tuple[str, int, str]]:
    return [
        (e.event.target, e.event.final, e.event.outcome)
        for e in envelopes
        if isinstance(e.event, UnitShot)
    ]


def test_a_grenade_attacks_every_unit_under_its_template_and_uses_a_marker() -> None:
    battle = ordered()
    entry = next(a for a in battle.actions(A) if a["command"]["type"] == "grenade")
    assert (entry["command"]["option"], entry["markers"], entry["range"]) == ("test-grenades", 1, 3)
    new = battle.execute_json(throw(TACTICAL, "test-grenades", 5, 4), A, dice=[1, 2])
    kinds = [e.event.kind for e in new]
    assert kinds[:2] == ["order_revealed", "grenade_thrown"]
    thrown = next(e.event for e in new if isinstance(e.event, GrenadeThrown))
    assert thrown.targets == (SHOOTAS, BOYZ1)  # reading order; no dispersion die
    # die + CV 3 against DV 4: 1 -> 4, a step; 2 -> 5, a step
    assert shots(new) == [(SHOOTAS, 4, "step"), (BOYZ1, 5, "step")]
    assert battle.state.equipment_used == {"ultramarines:tiles[0]|test-grenades": 1}


def test_tankbusta_bombs_affect_one_square() -> None:
    battle = ordered()
    battle.execute_json(throw(TACTICAL, "test-grenades", 5, 4), A, dice=[1, 2])
    # the Boyz on (4, 2) throw at the intercase (2, 3): only the Sergeant's square (2, 3)
    new = battle.execute_json(throw(BOYZ2, "test-tankbusta", 2, 3), B, dice=[6])
    assert shots(new) == [(SERGEANT, 7, "step")]  # 6 + CV 1 against DV 5
    assert battle.state.units[TACTICAL].status.face.value == "intact"


def test_bad_throws_are_refused_before_any_die() -> None:
    battle = ordered()
    cases = [
        (throw(TACTICAL, "test-grenades", 6, 4), "out_of_range"),  # 4 intercases away
        (throw(TACTICAL, "test-grenades", 9, 4), "off_board"),
        (throw(TACTICAL, "test-tankbusta", 4, 4), "not_your_option"),
        (throw(TACTICAL, "sample-um-ammo", 4, 4), "no_grenade"),
        ({**throw(TACTICAL, "test-grenades", 4, 4), "facing": "NE"}, "bad_facing"),
    ]
    for command, code in cases:
        assert refused(battle, A, command, dice=[1, 1]).code == code
    battle.execute_json(throw(TACTICAL, "test-grenades", 5, 4), A, dice=[1, 2])
    battle.execute_json({"type": "hold", "unit": BOYZ2}, B)
    # the one marker is used: the Sergeant of the same squad has none left
    assert refused(battle, A, throw(SERGEANT, "test-grenades", 4, 4), dice=[1]).code == (
        "no_marker_left"
    )
    assert not [a for a in battle.actions(A) if a["command"]["type"] == "grenade"]


def test_a_grenade_needs_its_template_and_a_range_in_the_data() -> None:
    raw = catalogue()
    option = next(o for o in raw["options"] if o["id"] == "test-grenades")
    option["equipment"]["range"] = 0
    option["equipment"]["template"] = "TOO-LONG-ID"
    with pytest.raises(ProfileError) as info:
        catalogue_from_dict(raw)
    assert "equipment.range" in str(info.value)
    assert "equipment.template" in str(info.value)
