"""The pack side of the match settings (docs/rulings/narrative-8e.md, 84-86): the settings
written into a scenario's narrative block, the Power Levels a player enters, the values the
battle reads, and every field of an expansion the match reads checked with its path."""

from __future__ import annotations

import copy
import json
from types import SimpleNamespace
from typing import Any

import pytest

from app.engine.narrative8e.match import PACK_EXPANSIONS, apply_settings, match_mission
from app.engine.narrative8e.pack import PACKS_DIR, PackError, check_expansion, load_pack
from app.engine.narrative8e.setup import NarrativeError, check_power_levels
from app.engine.wh40k10e.battle.errors import Code
from app.engine.wh40k10e.battle.power_levels import army_value, sentry_limit, unit_value
from app.engine.wh40k10e.battle.setup import Seat


def raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PACKS_DIR / "narrative-8e.json").read_text("utf-8"))
    return data


def expansion(x_id: str) -> dict[str, Any]:
    return copy.deepcopy(next(x for x in raw()["expansions"] if x["id"] == x_id))


def test_settings_are_written_into_the_narrative_block_and_the_pack_list_left_out() -> None:
    pack = raw()
    mission = match_mission(pack, pack["missions"][2])
    offered = mission.options[PACK_EXPANSIONS]
    assert isinstance(offered, list)
    assert [x["id"] for x in offered if isinstance(x, dict)] == [
        "planetstrike",
        "cities-of-death",
        "stronghold-assault",
        "death-from-the-skies",
    ]
    plain = apply_settings(mission)
    assert dict(plain.options) == {"narrative": mission.options["narrative"]}
    set_ = apply_settings(mission, value_measure="power", troops_keywords=["BATTLELINE"])
    narrative: Any = set_.options["narrative"]
    assert narrative["value_measure"] == "power"
    assert narrative["rules"]["sentries"]["troops_keywords"] == ["BATTLELINE"]
    assert narrative["rules"]["sentries"]["max_power"] == 10
    # the scenario's mission is left as the pack made it (no shared dict changed)
    before: Any = mission.options["narrative"]
    assert before["value_measure"] == "points"
    assert before["rules"]["sentries"]["troops_keywords"] == ["BATTLELINE", "INFANTRY"]
    # a pack without expansions offers none of its own
    bare = match_mission(pack | {"expansions": []}, pack["missions"][0])
    assert PACK_EXPANSIONS not in bare.options
    assert apply_settings(bare) is bare


def test_power_levels_are_every_unit_once_from_1_to_100() -> None:
    units = ["a1", "a2"]
    assert check_power_levels(units, {"a1": 1, "a2": 100}) == {"a1": 1, "a2": 100}
    for levels, says in (
        ({"a1": 1}, "every unit: a2"),
        ({"a1": 1, "a2": 2, "b1": 3}, "not your units: b1"),
        ({"a1": 0, "a2": 2}, "from 1 to 100: a1"),
        ({"a1": 101, "a2": 2}, "from 1 to 100: a1"),
        ({"a1": True, "a2": 2}, "from 1 to 100: a1"),
        ({"a1": "5", "a2": 2}, "from 1 to 100: a1"),
    ):
        with pytest.raises(NarrativeError) as err:
            check_power_levels(units, levels)
        assert says in str(err.value)


def _state(measure: str, power: dict[str, int], attacker: str | None) -> Any:
    """The few fields of a battle state the value readers use."""
    pack = load_pack(raw())
    narrative = SimpleNamespace(value_measure=measure, power=power, rules=pack.rules)
    specs = {"a1": SimpleNamespace(points=120), "a2": SimpleNamespace(points=300)}
    units = {u: SimpleNamespace(id=u, owner="A") for u in specs}
    return SimpleNamespace(
        narrative=narrative,
        attacker=attacker,
        specs=specs,
        units=units,
        units_of=lambda seat: list(units.values()),
    )


def test_the_value_read_is_points_or_the_power_level_entered() -> None:
    from app.engine.match.errors import Refusal

    points = _state("points", {}, None)
    assert (unit_value(points, "a1"), army_value(points, Seat.A)) == (120, 420)
    assert sentry_limit(points.narrative) == (199, "points")
    power = _state("power", {"a1": 6, "a2": 15}, None)
    assert (unit_value(power, "a1"), army_value(power, Seat.A)) == (6, 21)
    assert sentry_limit(power.narrative) == (10, "Power Level")
    missing = _state("power", {"a1": 6}, None)
    with pytest.raises(Refusal) as err:
        army_value(missing, Seat.A)
    assert err.value.code == Code.BAD_COMMAND
    assert "missing: a2" in err.value.message
    # a "power" pack's match whose Attacker was chosen before levels could be entered: points
    legacy = _state("power", {}, "A")
    assert army_value(legacy, Seat.A) == 420


def test_every_expansion_field_the_match_reads_is_checked_with_its_path() -> None:
    for x in raw()["expansions"]:
        assert check_expansion(x).id == x["id"]
    planetstrike = expansion("planetstrike")
    planetstrike["params"]["firestorm_dice"] = 0
    planetstrike["params"]["firestorm_attacks"] = 13
    planetstrike["params"]["reserves_arrive_on"] = True
    planetstrike["structures"][1]["weapons_one_of"] = []
    planetstrike["structures"][0]["capacity"] = 101
    planetstrike["structures"][0].pop("wounds")
    planetstrike["weapons"][0]["damage"] = "lots"
    planetstrike["weapons"][1]["id"] = planetstrike["weapons"][0]["id"]
    with pytest.raises(PackError) as err:
        check_expansion(planetstrike)
    assert dict(err.value.errors) == {
        "expansion.params.firestorm_dice": "a whole number from 1 to 12",
        "expansion.params.firestorm_attacks": "a whole number from 0 to 12",
        "expansion.params.reserves_arrive_on": "a whole number from 1 to 7",
        "expansion.weapons": "the id 'heavy-bolter' is used twice",
        "expansion.weapons[0].damage": "a number or a dice expression (3, D6, 2D3, D6+1)",
        "expansion.structures[0].wounds": "a building needs its wounds",
        "expansion.structures[0].capacity": "a whole number from 0 to 100",
        "expansion.structures[1].weapons_one_of": "a list of 1 to 8 weapon ids",
    }
    # the shipped numbers pass, null Firestorm attacks included (the Attacker states them)
    assert check_expansion(expansion("planetstrike")).params["firestorm_attacks"] is None
    with pytest.raises(PackError) as err:
        check_expansion({"id": "planetstrike"})
    assert err.value.path == "expansion"  # the codec: a field missing


@pytest.mark.parametrize("weapon", [["heavy-bolter"], {"id": "heavy-bolter"}, 3, None])
def test_a_buildings_weapon_that_is_not_an_id_is_refused_with_its_path(weapon: object) -> None:
    # a list or an object here was hashed against the weapon ids: a 500 on upload
    planetstrike = expansion("planetstrike")
    planetstrike["structures"][0]["weapons"] = [weapon]
    with pytest.raises(PackError) as err:
        check_expansion(planetstrike)
    assert dict(err.value.errors) == {
        "expansion.structures[0].weapons[0]": "one of this expansion's weapons"
    }


def test_a_pack_expansion_must_be_one_the_engine_plays_and_keywords_are_capitals() -> None:
    data = raw()
    data["expansions"][0]["id"] = "zone-mortalis"
    data["rules"]["sentries"]["troops_keywords"] = ["battleline", "INFANTRY"]
    data["rules"]["sentries"]["max_power"] = 0
    with pytest.raises(PackError) as err:
        load_pack(data)
    found = dict(err.value.errors)
    assert set(found) == {
        "expansions[0].id",
        "rules.sentries.troops_keywords[0]",
        "rules.sentries.max_power",
    }
    assert "planetstrike, cities-of-death" in found["expansions[0].id"]


@pytest.mark.parametrize(
    ("troops", "back"),
    [(None, ("a1",)), (["BATTLELINE"], ()), (["INFANTRY"], ("a1",))],
)
def test_sustained_assault_gives_its_plus_two_to_the_matchs_troops_only(
    troops: list[str] | None, back: tuple[str, ...]
) -> None:
    """Meat Grinder: a1 (INFANTRY, not BATTLELINE) shot down rolls 2 to return: +2 as Troops
    by the pack's keywords or INFANTRY, none when the match narrows Troops to BATTLELINE."""
    from app.engine.wh40k10e.battle import Battle, BattleOptions, MatchSetup
    from app.engine.wh40k10e.battle.state import Phase
    from tests.engine.narrative8e.test_match_play_more import (
        MISSIONS,
        end_turn,
        shoot_down,
        small,
        to_phase,
    )

    att, dfn = small()
    mission = apply_settings(MISSIONS["meat-grinder"], troops_keywords=troops)
    bt = Battle.create(
        MatchSetup(
            {Seat.A: att, Seat.B: dfn}, "strike_force", mission, BattleOptions(starting_cp=3)
        )
    )
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # 350 v 200 points: A attacks
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "go_to_ground", "units": []}, "B")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[2])  # the Attacker first
    end_turn(bt, "A")
    shoot_down(bt, "b1", "a1", [1] * 5)
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.MOVEMENT)
    bt.execute_json({"type": "assault_return"}, "A", dice=[2])
    assert bt.state.narrative is not None
    assert bt.state.narrative.returned == back
