"""Persistent psychic powers in the Black Reach battle (issue 16, rulings 97-99): the marker a
manifested power leaves [L2743-L2757], maintained at the start of the next Order phase for
its cost again (no Perils test) or discarded [L2760-L2772], removed with its psyker, and
what each one does while it lies in play: Warpath +1 to the assault rolls of the Weirdboy's
units within 3 squares [L2944-L2952], Enfeeble -2 to all the unit's rolls [L2982-L2991],
Perfect Timing (no reducing obstacles nor terrain defence bonus on its shots)
[L3003-L3015], Objuration Mechanicum (no Shooting Action) [L3026-L3036].

The board is built here: 8 x 8, a reducing element (-1) on (3, 1) and a yellow +2 defence
bonus on (5, 1), where the Orks' Shootas stand. Two sample Librarians (level 2): the first on
(1, 4) with Enfeeble and a made-up Objuration, the second on (1, 0) with a made-up Perfect
Timing; the Tactical squad on (2, 1). The Weirdboy (level 2) on (6, 6) with Warpath; the Nob
on (5, 4), the Boyz on (7, 7) and (4, 6).
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.black_reach.battle.events import PowerManifested, StepsTaken, UnitShot
from app.engine.black_reach.battle.evolve import evolve
from app.engine.black_reach.battle.rules import assault_request, plan_shot
from app.engine.match.dice import Roll
from app.engine.match.errors import Refusal

LIB1 = "ultramarines:tiles[0]/0:sample-um-librarian"
LIB2 = "ultramarines:tiles[1]/0:sample-um-librarian"
SERGEANT = "ultramarines:tiles[2]/0:sample-um-sergeant"
TACTICAL = "ultramarines:tiles[2]/1:sample-um-tactical"
BOLTER = "ultramarines:tiles[2]/2:sample-um-heavy-bolter"
NOB = "orks:tiles[0]/0:sample-ork-nob"
BOYZ1 = "orks:tiles[0]/1:sample-ork-boyz"
BOYZ2 = "orks:tiles[0]/2:sample-ork-boyz"
SHOOTAS = "orks:tiles[0]/3:sample-ork-shootas"
WEIRDBOY = "orks:tiles[1]/0:sample-ork-weirdboy"
A, B = "A", "B"

BOARD = {
    "boards": [
        {
            "name": "flat",
            "width": 8,
            "height": 8,
            "sample": True,
            "elements": [
                {"id": "smoke", "squares": [[3, 1]], "reduces_los": 1},
                {
                    "id": "crater",
                    "squares": [[5, 1]],
                    "defence_bonus": 2,
                    "defence_colours": ["yellow"],
                },
            ],
        }
    ]
}


def power(ident: str, effect: str, cost: int, rng: int, discipline: str) -> dict[str, Any]:
    return {
        "id": ident,
        "name": f"A made-up {effect}",
        "faction": "ultramarines",
        "type": "psychic_power",
        "cost": 1,
        "bands": ["gold"],
        "power": {
            "psyker": "librarian",
            "discipline": discipline,
            "cost": cost,
            "effect": effect,
            "line_of_sight": "clear_or_reduced",
            "range": rng,
            "persistent": True,
        },
    }


def setup(first: str = "orks") -> BattleSetup:
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    tile = next(t for t in catalogue["tiles"] if t["id"] == "sample-um-librarian")
    tile["slots"] = [{"bands": ["gold"]}, {"bands": ["gold"]}]
    catalogue["options"] += [
        power("test-objuration", "objuration_mechanicum", 1, 6, "telekinesis"),
        power("test-timing", "perfect_timing", 1, 3, "divination"),
    ]
    scenario = {
        "format": "auspex-black-reach-scenario/1",
        "id": "test-persistent",
        "name": "Test persistent powers",
        "turns": 3,
        "hand_size": 0,
        "first_initiative": first,
        "board": {"name": "flat", "boards": [{"board": "flat", "offset": [0, 0]}]},
        "sides": [
            {
                "id": "ultramarines",
                "deployment": [{"from": [0, 0], "to": [2, 7]}],
                "army": {
                    "faction": "ultramarines",
                    "tiles": [
                        {
                            "tile": "sample-um-librarian",
                            "slots": [
                                {"slot": 0, "option": "sample-um-enfeeble"},
                                {"slot": 1, "option": "test-objuration"},
                            ],
                        },
                        {
                            "tile": "sample-um-librarian",
                            "slots": [{"slot": 0, "option": "test-timing"}],
                        },
                        {"tile": "sample-um-squad"},
                    ],
                },
            },
            {
                "id": "orks",
                "deployment": [{"from": [4, 0], "to": [7, 7]}],
                "army": {
                    "faction": "orks",
                    "tiles": [
                        {"tile": "sample-ork-mob"},
                        {
                            "tile": "sample-ork-weirdboy",
                            "slots": [{"slot": 0, "option": "sample-ork-warpath"}],
                        },
                    ],
                },
            },
        ],
        "objectives": [],
    }
    deployment = (
        Deploy(LIB1, 1, 4, "E"),
        Deploy(LIB2, 1, 0, "E"),
        Deploy(SERGEANT, 0, 2, "E"),
        Deploy(TACTICAL, 2, 1, "E"),
        Deploy(BOLTER, 0, 6, "E"),
        Deploy(NOB, 5, 4, "W"),
        Deploy(BOYZ1, 7, 7, "W"),
        Deploy(BOYZ2, 4, 6, "W"),
        Deploy(SHOOTAS, 5, 1, "W"),
        Deploy(WEIRDBOY, 6, 6, "W"),
    )
    return BattleSetup(scenario, catalogue, BOARD, {"A": "ultramarines", "B": "orks"}, deployment)


def order(unit: str, number: int) -> dict[str, Any]:
    return {"unit": unit, "kind": "numbered", "number": number, "nonce": f"nonce-{unit}"}


UM_ORDERS = [order(LIB1, 1), order(LIB2, 2), order(TACTICAL, 3), order(SERGEANT, 4)]
ORK_ORDERS = [order(SHOOTAS, 1), order(WEIRDBOY, 2), order(NOB, 3)]


def ordered(first: str = "orks") -> BlackReachBattle:
    battle = BlackReachBattle.create(setup(first))
    battle.execute_json({"type": "place_orders", "orders": ORK_ORDERS}, B)
    battle.execute_json({"type": "place_orders", "orders": UM_ORDERS}, A)
    return battle


def manifest(unit: str, power: str, target: str | None = None, **kw: Any) -> dict[str, Any]:
    return {"type": "manifest", "unit": unit, "power": power, "target": target, **kw}


def kinds(envelopes: Any) -> list[str]:
    return [e.event.kind for e in envelopes]


def refused(battle: BlackReachBattle, seat: str, command: dict[str, Any], **kw: Any) -> Refusal:
    version = battle.version
    with pytest.raises(Refusal) as info:
        battle.execute_json(command, seat, **kw)
    assert battle.version == version
    return info.value


def shot_numbers(battle: BlackReachBattle, shooter: str, target: str) -> tuple[int, int]:
    """(final-result penalties, DV to reach) of a normal shot."""
    state = battle.state
    plan = plan_shot(state, state.units[shooter], state.units[target], False)
    return plan.request.attacker.penalties, plan.dv


def play_turn_one(battle: BlackReachBattle) -> None:
    """Enfeeble on the Nob, Warpath, Perfect Timing on the Tactical squad; the Nob shoots."""
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    new = battle.execute_json(manifest(LIB1, "sample-um-enfeeble", NOB), A, dice=[6])
    assert kinds(new)[-1] == "power_manifested"
    battle.execute_json(manifest(WEIRDBOY, "sample-ork-warpath"), B, dice=[6])
    battle.execute_json(manifest(LIB2, "test-timing", TACTICAL), A, dice=[6])


def test_the_markers_lie_where_the_powers_went_and_are_public() -> None:
    battle = ordered()
    play_turn_one(battle)
    markers = {(m["power"], m["unit"]) for m in battle.view(None)["powers"]}
    assert markers == {
        ("sample-um-enfeeble", NOB),
        ("sample-ork-warpath", WEIRDBOY),
        ("test-timing", TACTICAL),
    }
    assert battle.view(B)["powers"] == battle.view(A)["powers"]


def test_enfeeble_takes_two_off_the_units_shots_and_assault_rolls() -> None:
    battle = ordered()
    before = assault_request(battle.state, battle.state.units[NOB], battle.state.units[TACTICAL])
    play_turn_one(battle)
    state = battle.state
    after = assault_request(state, state.units[NOB], state.units[TACTICAL])
    assert (before.attacker.penalties, after.attacker.penalties) == (0, 2)
    new = battle.execute_json({"type": "shoot", "unit": NOB, "target": TACTICAL}, B, dice=[4])
    shot = next(e.event for e in new if isinstance(e.event, UnitShot))
    # die 4 + CV 3 - 2 (Enfeeble) = 5 against DV 5: still a step
    assert (shot.penalties, shot.final, shot.outcome) == (2, 5, "step")


def test_warpath_adds_one_to_the_assault_rolls_of_the_weirdboys_side_within_three() -> None:
    battle = ordered()
    play_turn_one(battle)
    state = battle.state
    # the Boyz 2 squares from the Weirdboy, attacking and defending
    boyz = state.units[BOYZ2]
    assert assault_request(state, boyz, state.units[TACTICAL]).attacker.bonuses == 1
    assert assault_request(state, state.units[TACTICAL], boyz).target.bonuses == 1
    # the Shootas stand 5 squares away: no bonus; the enemy near him: none
    assert assault_request(state, state.units[SHOOTAS], state.units[TACTICAL]).attacker.bonuses == 0
    assert assault_request(state, state.units[TACTICAL], boyz).attacker.bonuses == 0


def test_perfect_timing_ignores_the_obstacles_and_the_terrain_bonus() -> None:
    battle = ordered()
    assert shot_numbers(battle, TACTICAL, SHOOTAS) == (1, 6)  # smoke -1; DV 4 + crater 2
    play_turn_one(battle)
    assert shot_numbers(battle, TACTICAL, SHOOTAS) == (0, 4)
    assert shot_numbers(battle, SERGEANT, SHOOTAS)[1] == 6  # not on the Sergeant


def test_objuration_forbids_the_units_shots() -> None:
    battle = ordered(first="ultramarines")
    assert (
        refused(
            battle, A, manifest(LIB1, "test-objuration", SHOOTAS, weapon="main_1"), dice=[6]
        ).code
        == "no_weapon"
    )
    battle.execute_json(manifest(LIB1, "test-objuration", SHOOTAS), A, dice=[6])
    shoot = {"type": "shoot", "unit": SHOOTAS, "target": TACTICAL}
    assert refused(battle, B, shoot, dice=[6]).code == "objuration"
    types = {a["command"]["type"] for a in battle.actions(B)}
    assert "shoot" not in types
    assert "move" in types
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)


def test_powers_are_maintained_for_their_cost_or_dropped_before_the_tokens() -> None:
    battle = ordered()
    play_turn_one(battle)
    battle.execute_json({"type": "hold", "unit": NOB}, B)
    battle.execute_json({"type": "hold", "unit": TACTICAL}, A)
    battle.execute_json({"type": "hold", "unit": SERGEANT}, A)
    battle.execute_json({"type": "end_reserve"}, B)
    battle.execute_json({"type": "end_reserve"}, A)
    assert battle.view(None)["turn"]["number"] == 2
    lib1 = battle.state.units[LIB1].suppressed
    # the tokens wait for the maintenance
    assert refused(battle, A, {"type": "place_orders", "orders": UM_ORDERS}).code == (
        "maintain_first"
    )
    entry = battle.actions(A)[0]
    assert entry["command"]["type"] == "maintain_powers"
    assert {m["power"]: m["cost"] for m in entry["markers"]} == {
        "sample-um-enfeeble": 2,
        "test-timing": 1,
    }
    bad = {"type": "maintain_powers", "keep": [{"unit": LIB2, "power": "sample-um-enfeeble"}]}
    assert refused(battle, A, bad).code == "no_such_marker"
    keep = {"type": "maintain_powers", "keep": [{"unit": LIB1, "power": "sample-um-enfeeble"}]}
    new = battle.execute_json(keep, A)
    assert kinds(new) == ["powers_maintained", "suppressed_placed"]
    assert battle.state.units[LIB1].suppressed == lib1 + 2  # the cost again, no Perils die
    assert not any(e.event.rolled_dice() for e in new)
    assert {m["power"] for m in battle.view(None)["powers"]} == {
        "sample-um-enfeeble",
        "sample-ork-warpath",
    }
    assert refused(battle, A, keep).code == "nothing_to_maintain"
    battle.execute_json({"type": "maintain_powers", "keep": []}, B)
    assert {m["power"] for m in battle.view(None)["powers"]} == {"sample-um-enfeeble"}
    battle.execute_json({"type": "place_orders", "orders": UM_ORDERS}, A)


def test_manifested_again_the_marker_moves() -> None:
    battle = ordered()
    play_turn_one(battle)
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state  # the markers replay from the log
    # LIB1 manifests Enfeeble again (as in a later turn): the one marker goes to the Weirdboy
    event = PowerManifested(
        LIB1,
        "sample-um-enfeeble",
        "enfeeble",
        WEIRDBOY,
        Roll(None, ()),
        2,
        2,
        4,
        "works",
        None,
        0,
        True,
    )
    moved = evolve(battle.state, event)
    enfeebles = [m for m in moved.powers.values() if m.effect == "enfeeble"]
    assert [(m.psyker, m.target) for m in enfeebles] == [(LIB1, WEIRDBOY)]


def test_a_destroyed_psyker_takes_his_markers_away() -> None:
    battle = ordered()
    play_turn_one(battle)
    gone = evolve(battle.state, StepsTaken(LIB1, 1, 0, "intact", 0, False, True))
    assert {m.power for m in gone.powers.values()} == {"sample-ork-warpath", "test-timing"}
    # and a destroyed target's marker goes too
    gone = evolve(gone, StepsTaken(TACTICAL, 2, 0, "reduced", 0, True, True))
    assert {m.power for m in gone.powers.values()} == {"sample-ork-warpath"}
