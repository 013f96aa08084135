"""The shipped narrative pack: every number of seed 003 as data, and malformed packs refused
with located errors."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from app.engine.match.missions import MISSIONS_DIR, load_missions
from app.engine.narrative8e.pack import (
    MAX_PACK_BYTES,
    PACKS_DIR,
    CostKind,
    Evaluator,
    FirstTurn,
    HiddenDeploymentMode,
    PackError,
    ReserveMode,
    Side,
    load_pack,
    load_packs,
)

PACK_FILE = PACKS_DIR / "narrative-8e.json"


def raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(PACK_FILE.read_text(encoding="utf-8"))
    return data


def test_the_six_scenarios_ship_with_english_and_french_names() -> None:
    pack = load_packs()["narrative-8e"]
    assert [m.id for m in pack.missions] == [
        "meat-grinder",
        "ambush",
        "patrol",
        "blitz",
        "sabotage",
        "rescue",
    ]
    assert pack.mission("meat-grinder").name == {"en": "Meat Grinder", "fr": "Hachoir à viande"}
    assert pack.mission("rescue").name["fr"] == "Sauvetage"
    assert [z.id for z in pack.combat_zones] == [
        "night-fight",
        "fire-and-fury",
        "psychic-maelstrom",
    ]
    assert [x.id for x in pack.expansions] == [
        "planetstrike",
        "cities-of-death",
        "stronghold-assault",
        "death-from-the-skies",
    ]


def test_the_pack_does_not_disturb_only_war() -> None:
    """The pack lives in a sub-folder: the auspex-mission/1 loader still reads only Only War."""
    assert list(load_missions(MISSIONS_DIR)) == ["only-war"]


def test_narrative_rule_numbers_match_the_seed() -> None:
    r = load_packs()["narrative-8e"].rules
    assert r.dawn_raid_modifier == -1
    assert r.dawn_raid_rounds == 1
    assert (r.bombardment.hit_on, r.bombardment.damage, r.bombardment.ground_damage) == (
        6,
        "D6",
        "D3",
    )  # [L64]
    assert [(g.after_round, g.roller, g.continue_on) for g in r.game_length] == [
        (5, "first", 3),
        (6, "second", 4),
    ]  # [L70]
    assert r.game_length_last_round == 7
    assert (r.reserves_from_own_phase, r.reserves_arrive_on) == (2, 3)  # [L78]
    s = r.sentries  # [L86-L104]
    assert (s.max_models, s.max_power) == (10, 10)
    assert [(b.up_to, b.range) for b in s.detection_power] == [(5, 3), (10, 6), (19, 9), (None, 12)]
    sa = r.sustained_assault  # [L112]
    assert (sa.return_on, sa.troops_bonus, sa.edge_distance) == (4, 2, 6)
    assert (sa.cull_numerator, sa.cull_denominator) == (1, 4)


def test_mission_records_match_the_seed() -> None:
    pack = load_packs()["narrative-8e"]
    mg = pack.mission("meat-grinder")
    assert mg.first_turn is FirstTurn.ATTACKER_D6
    assert mg.attacker_first_up_to == 3
    assert mg.rules.hidden_deployment is HiddenDeploymentMode.DEFENDER  # [L135]
    assert mg.reserve_policy(Side.DEFENDER).mode is ReserveMode.NONE
    assert pack.mission("ambush").rules.hidden_deployment is HiddenDeploymentMode.REVERSED  # [L205]
    patrol = pack.mission("patrol")
    assert (patrol.ratio_numerator, patrol.ratio_denominator) == (4, 3)  # [L265]
    att, dfn = patrol.reserve_policy(Side.ATTACKER), patrol.reserve_policy(Side.DEFENDER)
    assert (att.arrive_on, dfn.arrive_on, att.from_round, att.automatic_at_own_phase) == (
        4,
        3,
        2,
        4,
    )
    assert patrol.deployment_counts["attacker"] == 3  # [L275]
    assert pack.mission("sabotage").reserve_policy(Side.DEFENDER).first_turn_after_alarm_on == 3
    assert pack.mission("rescue").reserve_policy(Side.DEFENDER).first_turn_after_alarm_on == 4
    assert pack.mission("blitz").evaluator is Evaluator.BREAKTHROUGH
    assert pack.mission("blitz").params["second_line_vp"] == 2  # [L369]


STRATAGEM_CP = {
    "meat-grinder": {
        "sustained-bombardment": 1,
        "spies": 1,
        "flank-reinforcements": 2,
        "decoys": 1,
        "foxholes": 1,
        "booby-traps": 1,
    },
    "ambush": {
        "night-raider": None,
        "night-vision": 1,
        "preliminary-bombardment": 3,
        "lightning-reaction": 1,
        "return-fire": 2,
        "iron-discipline": 1,
    },
    "patrol": {
        "encirclement": 2,
        "signal-the-attack": 2,
        "reconnaissance-in-force": 2,
        "rapid-reinforcements": 1,
        "delayed-reserves": None,
        "known-ground": 2,
    },
    "blitz": {
        "intensive-bombardment": 1,
        "covered-advance": 1,
        "forced-march": 2,
        "entrenchments": 2,
        "proximity-mines": 1,
        "decoys": 1,
    },
    "sabotage": {
        "silenced-weapons": 1,
        "camouflage": 1,
        "extra-explosives": 1,
        "sensors": 2,
        "cut-the-wires": 1,
        "extra-sentries": 2,
    },
    "rescue": {
        "silenced-weapons": 1,
        "night-raid": 2,
        "beacon-scan": 1,
        "sensors": 2,
        "rapid-reaction": 3,
        "extra-sentries": 2,
    },
}


def test_every_mission_stratagem_costs_what_the_seed_says() -> None:
    pack = load_packs()["narrative-8e"]
    for mission_id, costs in STRATAGEM_CP.items():
        m = pack.mission(mission_id)
        assert {
            s.id: (s.cost.cp if s.cost.kind is CostKind.FIXED else None) for s in m.stratagems
        } == costs
        assert {s.side for s in m.stratagems} == {Side.ATTACKER, Side.DEFENDER}
    delayed = pack.mission("patrol").stratagem("delayed-reserves").cost
    assert (delayed.kind, delayed.min, delayed.max) == (CostKind.VARIABLE, 1, 2)  # [L323]
    refuel = pack.expansion("death-from-the-skies").stratagems[1].cost
    assert (refuel.kind, refuel.min, refuel.max) == (CostKind.TIERED, 1, 3)  # [L919]


def test_expansion_weapon_profiles_are_numbers() -> None:
    pack = load_packs()["narrative-8e"]
    silo = next(w for w in pack.expansion("stronghold-assault").weapons if w.id == "missile-silo")
    assert (silo.attacks, silo.range, silo.strength, silo.ap, silo.min_range) == (
        "3D6",
        96,
        4,
        0,
        18,
    )  # [L849]
    quad = next(w for w in pack.expansion("planetstrike").weapons if w.id == "quad-gun")
    assert (quad.attacks, quad.range, quad.strength, quad.ap, quad.damage) == ("8", 48, 7, -1, "1")


def test_a_pack_missing_a_french_name_and_with_a_bad_threshold_lists_both_with_paths() -> None:
    data = raw()
    del data["missions"][2]["name"]["fr"]
    data["missions"][4]["reserves"]["defender"]["first_turn_after_alarm_on"] = 9
    with pytest.raises(PackError) as err:
        load_pack(data)
    paths = [p for p, _ in err.value.errors]
    assert paths == [
        "missions[2].name.fr",
        "missions[4].reserves.defender.first_turn_after_alarm_on",
    ]
    assert "English and French" in str(err.value)


@pytest.mark.parametrize(
    ("mutate", "path", "words"),
    [
        (
            lambda d: d["missions"][0].update(first_turn="coin_toss"),
            "missions[0].first_turn",
            "coin_toss",
        ),
        (
            lambda d: d["missions"][1]["stratagems"][0]["cost"].update(kind="free"),
            "missions[1].stratagems[0].cost.kind",
            "free",
        ),
        (lambda d: d["missions"][0].update(surprise=1), "missions[0]", "surprise"),
        (
            lambda d: d["rules"]["sentries"]["detection_points"][-1].update(up_to=500),
            "rules.sentries.detection_points",
            "no upper bound",
        ),
        (lambda d: d["missions"].append(copy.deepcopy(d["missions"][0])), "missions", "used twice"),
        (
            lambda d: d["missions"][3]["stratagems"][0].update(side="both"),
            "missions[3].stratagems[0].side",
            "one side",
        ),
        (lambda d: d.update(missions=[]), "missions", "at least one mission"),
        (lambda d: d["rules"].update(starting_cp=21), "rules.starting_cp", "0 to 20 CP"),
    ],
)
def test_malformed_packs_are_refused_with_a_located_message(
    mutate: Any, path: str, words: str
) -> None:
    data = raw()
    mutate(data)
    with pytest.raises(PackError) as err:
        load_pack(data)
    assert err.value.path == path
    assert words in str(err.value)


def test_wrong_format_not_json_and_oversized_packs_are_refused() -> None:
    with pytest.raises(PackError, match="auspex-narrative-pack/1"):
        load_pack({"format": "auspex-mission/1"})
    with pytest.raises(PackError, match="not JSON"):
        load_pack("{nope")
    with pytest.raises(PackError, match="at most 512 KiB"):
        load_pack(" " * (MAX_PACK_BYTES + 1))
    with pytest.raises(PackError, match="JSON object"):
        load_pack("[]")


def test_a_club_pack_with_one_mission_loads() -> None:
    data = raw()
    data["id"] = "club-night"
    data["missions"] = [data["missions"][0]]
    data["missions"][0]["id"] = "last-bastion"
    data["combat_zones"] = []
    data["expansions"] = []
    pack = load_pack(json.dumps(data))
    assert [m.id for m in pack.missions] == ["last-bastion"]


def test_the_starting_cp_of_a_pack_defaults_to_the_battle_forged_three() -> None:
    data = raw()
    assert "starting_cp" not in data["rules"]  # not in the seed: the format's default
    assert load_pack(data).rules.starting_cp == 3
    data["rules"]["starting_cp"] = 5
    assert load_pack(data).rules.starting_cp == 5


def test_read_pack_gives_the_checked_pack_its_raw_json_and_its_match_missions() -> None:
    from app.engine.narrative8e.match import read_pack

    found = read_pack(PACK_FILE.read_bytes())
    assert found.pack.id == found.raw["id"] == "narrative-8e"
    assert [m.id for m in found.missions] == [m.id for m in found.pack.missions]
    narrative = found.missions[0].options["narrative"]
    assert narrative["mission"] == found.raw["missions"][0]
    with pytest.raises(PackError) as err:
        read_pack(json.dumps(raw() | {"id": ""}))
    assert err.value.path == "id"
