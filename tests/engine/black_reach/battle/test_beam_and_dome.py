"""Killbolt and Telekinetic Dome in the Black Reach battle (issue 16, rulings 129-130).

Killbolt is a Faisceau [L2774-L2789], [L2972-L2978]: a Shooting Action at every unit under the
line from a square within 6 squares to the Weirdboy, friend or foe, with the CVs printed on the
power's tile: absent from the seed, they are the power's data (here made up: 3 against
infantry, 1 against light vehicles, X against heavy ones). Telekinetic Dome's effect is lost at
a page join [L3046]: its marker goes on the Librarian, with the text the players apply and the
DV bonus the data gives him and his side's units within the power's range (here +1 within 1).

The board is ``test_psykers``' (8 x 8, no terrain): the Librarian (level 2) on (1, 1), the
tactical squad (DV 5) on (2, 2), the Weirdboy (level 2) on (5, 5); the second Boyz stand on
(4, 4), on the beam's line from the tactical squad to the Weirdboy.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy
from app.engine.black_reach.battle.powers import dome_bonus
from app.engine.black_reach.loaders import catalogue_from_dict
from app.engine.match.errors import Refusal, RefusalKind
from tests.engine.black_reach.battle import test_psykers as psykers
from tests.engine.black_reach.battle.test_psykers import (
    BOLTER,
    BOYZ2,
    LIBRARIAN,
    NOB,
    SERGEANT,
    SHOOTAS,
    TACTICAL,
    WEIRDBOY,
    order,
)

A, B = "A", "B"
KILLBOLT = {
    "id": "test-killbolt",
    "name": "A made-up killbolt",
    "faction": "orks",
    "type": "psychic_power",
    "cost": 3,
    "bands": ["yellow"],
    "power": {
        "psyker": "weirdboy",
        "discipline": "waaagh",
        "cost": 2,
        "range": 6,
        "effect": "killbolt",
        "cv": {"infantry": 3, "light_vehicle": 1, "heavy_vehicle": None},
    },
}
DOME = {
    "id": "test-dome",
    "name": "A made-up dome",
    "faction": "ultramarines",
    "type": "psychic_power",
    "cost": 3,
    "bands": ["gold"],
    "power": {
        "psyker": "librarian",
        "discipline": "telekinesis",
        "cost": 2,
        "persistent": True,
        "range": 1,
        "dv_bonus": 1,
        "effect": "telekinetic_dome",
        "text": "Made-up text: shots bounce off the dome.",
    },
}


def setup(killbolt: dict[str, Any] | None = None) -> BattleSetup:
    base = psykers.setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    catalogue["options"].extend([killbolt or KILLBOLT, DOME])
    scenario = copy.deepcopy(base.scenario)
    assert isinstance(scenario, dict)
    um, orks = scenario["sides"]
    um["army"]["tiles"][0]["slots"][1]["option"] = "test-dome"
    orks["army"]["tiles"][1]["slots"][0]["option"] = "test-killbolt"
    deployment = tuple(Deploy(BOYZ2, 4, 4, "N") if d.unit == BOYZ2 else d for d in base.deployment)
    return replace(base, catalogue=catalogue, scenario=scenario, deployment=deployment)


def ordered(killbolt: dict[str, Any] | None = None) -> BlackReachBattle:
    """Orks first: the Shootas 1, the Weirdboy 2, the Nob 3; the Librarian 1, the tactical
    squad 2, the Sergeant 3. The Shootas hold: the Librarian's token is due."""
    battle = BlackReachBattle.create(setup(killbolt))
    orders = [order(SHOOTAS, 1), order(WEIRDBOY, 2), order(NOB, 3)]
    battle.execute_json({"type": "place_orders", "orders": orders}, B)
    orders = [order(LIBRARIAN, 1), order(TACTICAL, 2), order(SERGEANT, 3)]
    battle.execute_json({"type": "place_orders", "orders": orders}, A)
    battle.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    return battle


def bolt(x: int = 2, y: int = 2) -> dict[str, Any]:
    return {"type": "manifest", "unit": WEIRDBOY, "power": "test-killbolt", "x": x, "y": y}


DOME_UP = {"type": "manifest", "unit": LIBRARIAN, "power": "test-dome"}


def test_killbolt_hits_every_unit_under_its_line_nearest_first() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": LIBRARIAN}, A)
    offer = next(
        a
        for a in battle.actions(B)
        if a["command"]["type"] == "manifest" and a.get("target") == TACTICAL
    )
    assert (offer["command"]["x"], offer["command"]["y"]) == (2, 2)
    # the cost paid first: 1 die + CV 3 - 2 x 2 Suppressed; the Boyz (DV 4) on a 5 or 6, the
    # tactical squad (DV 5) on a 6
    assert [t["target"] for t in offer["targets"]] == [BOYZ2, TACTICAL]
    assert offer["targets"][0]["odds"] == {"miss": "2/3", "step": "1/3", "coup_double": "0"}
    assert offer["odds"] == {"miss": "5/6", "step": "1/6", "coup_double": "0"}
    # the Perils: 6 + 2 - 4 = 4, it works; then one die per unit under the line
    events = [e.event for e in battle.execute_json(bolt(), B, dice=[6, 5, 6])]
    kinds = [e.kind for e in events]
    assert kinds[:4] == ["order_revealed", "suppressed_placed", "power_manifested", "beam_fired"]
    beam = events[3]
    assert beam.targets == (BOYZ2, TACTICAL)
    assert [(s.x, s.y) for s in beam.squares] == [(2, 2), (3, 3), (4, 4), (5, 5)]
    shots = [e for e in events if e.kind == "unit_shot"]
    assert [(s.target, s.final, s.outcome, s.sight) for s in shots] == [
        (BOYZ2, 4, "step", "beam"),
        (TACTICAL, 5, "step", "beam"),
    ]
    assert str(battle.state.units[TACTICAL].status.face) == "reduced"


def test_a_killbolt_is_checked_before_any_die() -> None:
    battle = ordered()
    battle.execute_json({"type": "hold", "unit": LIBRARIAN}, A)
    short = copy.deepcopy(KILLBOLT)
    short["power"]["range"] = 2
    for command, code, kind in [
        (bolt(9, 9), "off_board", RefusalKind.INPUT),
        (bolt(5, 5), "own_square", RefusalKind.INPUT),
        ({**bolt(), "x": None, "y": None}, "square_needed", RefusalKind.INPUT),
    ]:
        with pytest.raises(Refusal) as info:
            battle.execute_json(command, B, dice=[6, 6, 6])
        assert (info.value.code, info.value.kind) == (code, kind), command
    for data, code in [
        (short, "out_of_range"),
        ({**KILLBOLT, "power": {**KILLBOLT["power"], "cv": None}}, "no_cv"),
    ]:
        other = ordered(data)  # type: ignore[arg-type]
        other.execute_json({"type": "hold", "unit": LIBRARIAN}, A)
        version = other.version
        with pytest.raises(Refusal) as info:
            other.execute_json(bolt(), B, dice=[6, 6, 6])
        assert info.value.code == code
        assert other.version == version


def test_the_dome_raises_the_dv_of_the_librarian_and_his_units_near_him() -> None:
    battle = ordered()
    # 4 + level 2 - 2 x 2: 2, the power works [L2817-L2819]
    battle.execute_json(DOME_UP, A, dice=[4])
    state = battle.state
    assert {u: dome_bonus(state, u) for u in (LIBRARIAN, TACTICAL, SERGEANT, BOLTER, NOB)} == {
        LIBRARIAN: 1,
        TACTICAL: 1,  # 1 square away
        SERGEANT: 1,
        BOLTER: 0,  # 2 squares away
        NOB: 0,  # not his side
    }
    marker = next(m for m in battle.view(B)["powers"] if m["effect"] == "telekinetic_dome")
    assert (marker["unit"], marker["text"]) == (LIBRARIAN, DOME["power"]["text"])
    # the beam at the tactical squad: 6 + 3 - 4 = 5 against DV 5 + 1: a miss
    events = [e.event for e in battle.execute_json(bolt(), B, dice=[6, 1, 6])]
    shot = [e for e in events if e.kind == "unit_shot"][-1]
    assert (shot.target, shot.dv, shot.outcome) == (TACTICAL, 6, "miss")


def test_the_dome_leaves_its_marker_on_the_librarian() -> None:
    battle = ordered()
    battle.execute_json(DOME_UP, A, dice=[4])
    marker = battle.state.powers[f"{LIBRARIAN}|test-dome"]
    assert (marker.target, marker.effect) == (LIBRARIAN, "telekinetic_dome")
    assert battle.state.units[LIBRARIAN].suppressed == 2  # its cost


def test_the_power_data_reads_cvs_text_and_dv_bonus() -> None:
    catalogue = copy.deepcopy(setup().catalogue)
    assert isinstance(catalogue, dict)
    read = catalogue_from_dict(catalogue)
    bolt_power = read.options["test-killbolt"].power
    dome_power = read.options["test-dome"].power
    assert bolt_power is not None
    assert dome_power is not None
    assert bolt_power.cv is not None
    assert [bolt_power.cv[c] for c in bolt_power.cv] == [3, 1, None]
    assert (dome_power.dv_bonus, dome_power.text) == (1, DOME["power"]["text"])
    dome = next(o for o in catalogue["options"] if o["id"] == "test-dome")
    dome["power"]["text"] = "x" * 601
    with pytest.raises(Exception, match="text"):
        catalogue_from_dict(catalogue)
