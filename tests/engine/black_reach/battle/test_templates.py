"""Templates in the Black Reach battle (issue 16): Tir Direct places its template on an
intercase it sees and attacks every unit under it, friend or foe, one roll each
[L1381-L1416]; Tir Indirect needs no sight, rolls its dispersion (1-4 scatter by the printed
direction, 5-6 on target, a Sighum spotter one intercase shorter) [L1438-L1477], [L1318-L1322].

Same board as test_heavy_vehicles (8 x 8, no terrain; the tank on (2, 3)-(2, 4) facing N, the
Nob (6, 4), the Boyz (7, 0) and (7, 1), the Shootas (5, 7)). The Shootas get Tir Direct with
the sample template "B" (the 2 x 2 squares around its intercase, CV 3/2/1) and Tir Indirect
with "L" (12 squares, CV 4/3/2, Perforant; dispersion 1 NE, 2 SE, 3 SW, 4 NW; 2 intercases).
"""

from __future__ import annotations

import copy
from fractions import Fraction
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle
from app.engine.black_reach.board import Intercase, Square
from app.engine.black_reach.loaders import load_sample_catalogue
from app.engine.black_reach.templates import Template, landing_odds, turn_cell
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


def gunners(*, spotter: bool = False) -> BlackReachBattle:
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    counters = {c["id"]: c for c in catalogue["counters"]}
    counters["sample-ork-shootas"]["faces"][0]["abilities"] += [
        {"id": "direct_fire", "param": "B"},
        {"id": "indirect_fire", "param": "L/2"},
    ]
    if spotter:
        counters["sample-ork-nob"]["faces"][0]["abilities"].append({"id": "spotter"})
    battle = BlackReachBattle.create(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    return battle


def fire(x: int, y: int, *, indirect: bool = False, facing: str = "N") -> dict[str, Any]:
    return {
        "type": "template_fire",
        "unit": SHOOTAS,
        "x": x,
        "y": y,
        "facing": facing,
        "indirect": indirect,
    }


def kinds(envelopes: Any) -> list[str]:
    return [e.event.kind for e in envelopes]


def test_templates_turn_by_quarter_turns() -> None:
    template = load_sample_catalogue().templates["L"]
    assert turn_cell(0, -2, 1) == (1, 0)  # the square north of the intercase turns east
    assert turn_cell(0, -2, 4) == (0, -2)
    north = template.squares(Intercase(4, 4), "N")
    east = template.squares(Intercase(4, 4), "E")
    assert Square(4, 2) in north
    assert east == north  # the sample "L" is the same every quarter turn
    line = Template("T", cells=((0, -1), (0, -2)), dispersion=((0, -1), (1, 0), (0, 1), (-1, 0)))
    assert line.squares(Intercase(4, 4), "N") == {Square(4, 3), Square(4, 2)}
    assert line.squares(Intercase(4, 4), "E") == {Square(4, 4), Square(5, 4)}
    assert line.squares(Intercase(4, 4), "S") == {Square(3, 4), Square(3, 5)}
    assert line.squares(Intercase(4, 4), "W") == {Square(3, 3), Square(2, 3)}
    assert template.directions("E") == ((1, 1), (-1, 1), (-1, -1), (1, -1))


def test_direct_fire_attacks_every_unit_under_the_template_friend_or_foe() -> None:
    battle = gunners()
    events = battle.execute_json(fire(7, 1), B, dice=[1, 6])
    assert kinds(events) == [
        "order_revealed",
        "template_placed",
        "unit_shot",
        "steps_taken",
        "unit_shot",
        "steps_taken",
    ]
    placed = events[1].event
    assert (placed.template, placed.indirect, placed.roll.values) == ("B", False, ())
    assert (placed.landed.x, placed.landed.y) == (7, 1)
    assert [(s.x, s.y) for s in placed.squares] == [(6, 0), (7, 0), (6, 1), (7, 1)]
    assert placed.targets == (BOYZ1, BOYZ2)  # the Shootas' own Boyz, in reading order
    first, second = events[2].event, events[4].event
    # 1 + CV 3 = 4 against DV 4: a step; 6 + 3 = 9 against 4: a Coup Double
    assert (first.target, first.weapon, first.final, first.outcome) == (
        BOYZ1,
        "template:B",
        4,
        "step",
    )
    assert (second.target, second.final, second.outcome) == (BOYZ2, 9, "coup_double")
    assert events[3].event.face == "reduced"
    assert events[5].event.destroyed is True


def test_indirect_fire_scatters_on_one_to_four() -> None:
    battle = gunners()
    # aimed at the tank's intercase (2, 4); a 2: south-east by 2 intercases, onto nobody
    events = battle.execute_json(fire(2, 4, indirect=True), B, dice=[2])
    placed = events[1].event
    assert placed.roll.values == (2,)
    assert (placed.landed.x, placed.landed.y) == (4, 6)
    assert placed.targets == ()
    assert kinds(events) == ["order_revealed", "template_placed"]


def test_indirect_fire_on_target_hits_the_tank_from_a_side() -> None:
    battle = gunners()
    # a 5: on target; the tank: 6 + CV 2 = 8 against DV 8 (a side: no Armure Frontale);
    # location 3 + 1 (Perforant) = 4: Hull
    events = battle.execute_json(fire(2, 4, indirect=True), B, dice=[5, 6, 3])
    assert kinds(events) == [
        "order_revealed",
        "template_placed",
        "unit_shot",
        "damage_located",
        "steps_taken",
        "suppressed_placed",
    ]
    shot, located = events[2].event, events[3].event
    assert (shot.target, shot.side, shot.final, shot.dv) == (TANK, "side", 8, 8)
    assert (located.modifier, located.result, located.marker) == (1, 4, "hull")


def test_a_sighum_spotter_shortens_the_scatter() -> None:
    battle = gunners(spotter=True)
    # the Nob sees the intercase (4, 4) clearly: the scatter is 2 - 1 intercase
    events = battle.execute_json(fire(4, 4, indirect=True), B, dice=[2, 1])
    landed = events[1].event.landed
    assert (landed.x, landed.y) == (5, 5)
    assert events[1].event.targets == (NOB,)
    plain = gunners()
    landed = plain.execute_json(fire(4, 4, indirect=True), B, dice=[2, 1])[1].event.landed
    assert (landed.x, landed.y) == (6, 6)
    # the tank stands between the Nob and the intercase (2, 4): no clear sight, no shortening
    blocked = gunners(spotter=True)
    landed = blocked.execute_json(fire(2, 4, indirect=True), B, dice=[2])[1].event.landed
    assert (landed.x, landed.y) == (4, 6)
    template = load_sample_catalogue().templates["L"]
    odds = landing_odds(template, Intercase(4, 4), "N", 2, spotter=True)
    assert odds == {
        Intercase(4, 4): Fraction(1, 3),
        Intercase(5, 3): Fraction(1, 6),
        Intercase(5, 5): Fraction(1, 6),
        Intercase(3, 5): Fraction(1, 6),
        Intercase(3, 3): Fraction(1, 6),
    }


def test_template_refusals_roll_nothing() -> None:
    battle = gunners()
    version = battle.version
    for command, code in (
        (fire(20, 20), "off_board"),
        (fire(2, 4, facing="NE"), "bad_facing"),
        ({**fire(2, 4), "unit": NOB}, "not_due"),
    ):
        with pytest.raises(Refusal) as info:
            battle.execute_json(command, B, dice=[6, 6, 6])
        assert info.value.code == code
    assert battle.version == version
    plain = gunners()
    plain.execute_json({"type": "hold", "unit": SHOOTAS}, B)
    plain.execute_json({"type": "hold", "unit": TANK}, A)
    with pytest.raises(Refusal) as info:
        plain.execute_json({**fire(2, 4), "unit": NOB}, B, dice=[6])
    assert info.value.code == "no_template"


def test_the_legal_actions_offer_both_templates_and_the_log_replays() -> None:
    battle = gunners()
    entries = [a for a in battle.actions(B) if a["command"]["type"] == "template_fire"]
    assert [(e["template"], e["command"]["indirect"], e["distance"]) for e in entries] == [
        ("B", False, 0),
        ("L", True, 2),
    ]
    assert entries[1]["dispersion"] == [[1, -1], [1, 1], [-1, 1], [-1, -1]]
    battle.execute_json(fire(2, 4, indirect=True), B, dice=[5, 6, 3])
    again = BlackReachBattle.import_log(battle.export_log())
    assert again.state == battle.state
    assert again.view(A) == battle.view(A)


# -- review fixes (issue 16) ----------------------------------------------------------------------


def test_a_catalogue_without_templates_still_sets_up_and_refuses_the_shot_at_use() -> None:
    # the review: a log or a saved set from before templates were data (Tir Direct "B", no
    # templates section) no longer loaded; it replays, and the shot is refused where it is used
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    del catalogue["templates"]
    for option in catalogue["options"]:
        option.get("power", {}).pop("template", None)
    counters = {c["id"]: c for c in catalogue["counters"]}
    counters["sample-ork-shootas"]["faces"][0]["abilities"] += [
        {"id": "direct_fire", "param": "B"},
        {"id": "indirect_fire"},
    ]
    battle = BlackReachBattle.create(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    assert not [a for a in battle.actions(B) if a["command"]["type"] == "template_fire"]
    for indirect in (False, True):
        version = battle.version
        with pytest.raises(Refusal) as info:
            battle.execute_json(fire(7, 1, indirect=indirect), B, dice=[1, 6])
        assert info.value.code == "no_template"
        assert battle.version == version
    assert BlackReachBattle.import_log(battle.export_log()).state == battle.state


def test_a_scatter_number_past_the_reach_is_capped() -> None:
    # "L/99" reads (1-2 digits) but scatters by 12 intercases at most, the furthest a template
    # reaches; the legal action says so
    base = setup()
    catalogue = copy.deepcopy(base.catalogue)
    assert isinstance(catalogue, dict)
    counters = {c["id"]: c for c in catalogue["counters"]}
    counters["sample-ork-shootas"]["faces"][0]["abilities"].append(
        {"id": "indirect_fire", "param": "L/99"}
    )
    battle = BlackReachBattle.create(
        BattleSetup(base.scenario, catalogue, base.boards, base.seats, base.deployment)
    )
    battle.execute_json({"type": "place_orders", "orders": [order(SHOOTAS, 1), order(NOB, 2)]}, B)
    battle.execute_json({"type": "place_orders", "orders": [order(TANK, 1)]}, A)
    entry = next(a for a in battle.actions(B) if a["command"]["type"] == "template_fire")
    assert (entry["template"], entry["distance"]) == ("L", 12)
    events = battle.execute_json(fire(4, 4, indirect=True), B, dice=[1])  # NE by 12: off
    placed = events[1].event
    assert (placed.landed.x, placed.landed.y, placed.targets) == (16, -8, ())
