"""A sniper's own table and Enfeeble (issue 16, rulings 125): a sniper table printed on the
sniper's tile replaces the rulebook's [L1339-L1340]; an Enfeeble marker on the sniper takes 2
off its die, in the roll and in the odds the legal actions show [L2982-L2991].

The battle is the sample one of ``test_sniper``: the heavy-weapon team has Sniper and sees the
Boyz at (4, 6) on open ground. Its tile (``sample-um-squad``) is given a table of its own:
3 or more one Suppressed marker, 5 or more a step.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from app.engine.black_reach.battle import (
    BattleSetup,
    BlackReachBattle,
    command_from_json,
    sample_setup,
)
from app.engine.black_reach.battle.rules import decide
from app.engine.black_reach.battle.state import BattleState, PowerMarker
from app.engine.black_reach.battle.views import legal_actions
from app.engine.black_reach.loaders import catalogue_from_dict
from app.engine.black_reach.tables import SniperEffect
from app.engine.errors import ProfileError
from app.engine.roller import Roller
from tests.engine.black_reach.battle.test_sniper import (
    BOLTER,
    BOYZ1,
    BOYZ2,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    _open,
    order,
    snipe,
)

A, B = "A", "B"
TABLE = [{"from": 5, "effect": "step"}, {"from": 3, "effect": "suppressed"}]


def battle(table: list[dict[str, Any]] | None = None) -> BlackReachBattle:
    setup = sample_setup()
    catalogue = copy.deepcopy(setup.catalogue)
    assert isinstance(catalogue, dict)
    team = next(c for c in catalogue["counters"] if c["id"] == "sample-um-heavy-bolter")
    team["faces"][0].setdefault("abilities", []).append({"id": "sniper"})
    if table is not None:
        squad = next(t for t in catalogue["tiles"] if t["id"] == "sample-um-squad")
        squad["sniper_table"] = table
    game = BlackReachBattle.create(
        BattleSetup(setup.scenario, catalogue, _open(setup.boards), setup.seats, setup.deployment)
    )
    game.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOYZ1, 1), order(BOYZ2, 2), order(NOB, 3), order(SHOOTAS, 4)],
        },
        B,
    )
    game.execute_json(
        {
            "type": "place_orders",
            "orders": [order(BOLTER, 1), order(TACTICAL, 2), order(SERGEANT, 3)],
        },
        A,
    )
    steps = [{"x": 4, "y": y} for y in (9, 8, 7, 6)]
    game.execute_json({"type": "move", "unit": BOYZ1, "path": steps}, B)
    return game


def odds(state: BattleState) -> dict[str, str]:
    entry = next(
        a
        for a in legal_actions(state, A)
        if a["command"]["type"] == "snipe" and a["command"]["target"] == BOYZ1
    )
    return dict(entry["odds"])


@pytest.mark.parametrize(
    ("die", "effect"), [(2, "nothing"), (3, "suppressed"), (4, "suppressed"), (6, "step")]
)
def test_the_tiles_own_table_replaces_the_rulebooks(die: int, effect: str) -> None:
    game = battle(TABLE)
    events = [e.event for e in game.execute_json(snipe(), A, dice=[die])]
    assert events[1].kind == "unit_sniped"
    assert (events[1].result, events[1].effect) == (die, effect)
    boyz = game.state.units[BOYZ1]
    assert boyz.suppressed == (1 if effect == "suppressed" else 0)  # 6: no Suppressed row
    assert str(boyz.status.face) == ("reduced" if effect == "step" else "intact")


def test_the_odds_read_the_tiles_table() -> None:
    assert odds(battle(TABLE).state) == {
        "nothing": "1/3",
        "suppressed": "1/3",
        "step": "1/3",
        "step_and_suppressed": "0",
    }


def enfeebled(state: BattleState) -> BattleState:
    # a Librarian's marker (the sample battle fields none: the sergeant stands in for him)
    marker = PowerMarker(SERGEANT, "sample-um-enfeeble", "enfeeble", BOLTER)
    return replace(state, powers={marker.key: marker})


def test_enfeeble_comes_off_the_snipers_odds_and_its_die() -> None:
    """The noticed bug: the roll took Enfeeble off, the odds shown did not."""
    state = enfeebled(battle().state)
    # 1 die - 2: 1 or less on 1-3, 2-3 on 4-5, 4 on a 6
    assert odds(state) == {
        "nothing": "1/2",
        "suppressed": "1/3",
        "step": "1/6",
        "step_and_suppressed": "0",
    }
    decision = decide(state, command_from_json(snipe()), A, Roller.from_values([6]))
    sniped = next(e.event for e in decision.events if e.event.kind == "unit_sniped")
    assert (sniped.result, sniped.penalties, sniped.effect) == (4, 2, "step")


@pytest.mark.parametrize(
    ("table", "where"),
    [
        ([], "tiles[0].sniper_table"),
        ([{"from": 3, "effect": "step"}, {"from": 3, "effect": "nothing"}], "from"),
        ([{"from": 3, "effect": "explodes"}], "effect"),
        ([{"from": 99, "effect": "step"}], "from"),
        ([{"from": 3, "effect": "step", "to": 4}], "to"),
        ([{"from": n, "effect": "step"} for n in range(7)], "sniper_table"),
    ],
)
def test_a_bad_sniper_table_is_refused_where_it_is_written(
    table: list[dict[str, Any]], where: str
) -> None:
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    catalogue["tiles"][0]["sniper_table"] = table
    with pytest.raises(ProfileError) as info:
        catalogue_from_dict(catalogue)
    assert where in str(info.value)


def test_a_table_is_read_highest_row_first() -> None:
    catalogue = copy.deepcopy(sample_setup().catalogue)
    assert isinstance(catalogue, dict)
    catalogue["tiles"][0]["sniper_table"] = TABLE[::-1]
    tile = catalogue_from_dict(catalogue).tiles[catalogue["tiles"][0]["id"]]
    assert tile.sniper_table == ((5, SniperEffect.STEP), (3, SniperEffect.SUPPRESSED))
