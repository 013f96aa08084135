"""Army lists into a match: the snapshot, the engine's ArmySpec, samples, pasted exports, and
the army builder's own ``ready_snapshot``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.catalog.starter import starter_catalogue
from app.engine.wh40k10e.army import BattleSize, Roster, RosterUnit, validate
from app.engine.wh40k10e.battle import Ability, ArmySpec, Battle, BattleOptions, MatchSetup, Seat
from app.matches import armies, service
from app.matches.exceptions import ArmyUnusable
from tests.matches.conftest import marines, orks


def snap(roster: Roster, limit: int = 2000) -> dict[str, Any]:
    return armies.snapshot_from_roster(
        starter_catalogue(),
        roster,
        source="test",
        army_id=None,
        catalogue_id=None,
        points_limit=limit,
    )


def setup_of(orks_spec: ArmySpec) -> MatchSetup:
    marines_spec = armies.army_spec(snap(marines()), Seat.A)
    return MatchSetup(
        {Seat.A: marines_spec, Seat.B: orks_spec},
        "strike_force",
        service.missions()["only-war"],
        BattleOptions(),
    )


def test_a_snapshot_holds_what_the_match_needs_per_unit() -> None:
    s = snap(marines())
    assert s["format"] == "auspex.match-army/1"
    assert s["faction"] == "Adeptus Astartes"
    assert s["points"] == validate(marines(), starter_catalogue()).points
    by_name = {u["name"]: u for u in s["units"]}
    captain = by_name["Captain"]
    assert (captain["models"], captain["wounds"], captain["oc"], captain["leadership"]) == (
        1,
        5,
        1,
        6,
    )
    assert "Intercessor Squad" in captain["leads"]
    assert "CHARACTER" in captain["keywords"]
    assert captain["attached_to"] == 1  # the roster's Leader attachment
    assert captain["profile"]["invulnerable_save"] == 4
    terminators = by_name["Terminator Squad"]
    assert terminators["abilities"] == ["deep_strike"]
    assert terminators["profile"]["save"] == 2
    scouts = by_name["Scout Squad"]
    assert scouts["scouts"] == 6
    assert "infiltrators" in scouts["abilities"]
    rhino = by_name["Rhino"]
    assert rhino["transport_capacity"] == 12
    assert {"TRANSPORT", "DEDICATED TRANSPORT", "VEHICLE", "SMOKE"} <= set(rhino["keywords"])
    assert rhino["toughness"] == 9
    intercessors = by_name["Intercessor Squad"]
    bolt_rifle = next(w for w in intercessors["weapons"] if w["name"] == "Bolt Rifle")
    assert bolt_rifle == {
        "name": "Bolt Rifle",
        "kind": "ranged",
        "attacks": "2",
        "skill": 3,
        "strength": 4,
        "ap": -1,
        "damage": "1",
        "abilities": ["Assault", "Heavy"],
        "range": 24,
        "models": 5,
        "group": "Bolt Rifle",
    }
    assert "assault_weapons" in intercessors["abilities"]
    plasma = [
        w for w in by_name["Hellblaster Squad"]["weapons"] if w["group"] == "Plasma Incinerator"
    ]
    assert [w["name"] for w in plasma] == [
        "Plasma Incinerator - Standard",
        "Plasma Incinerator - Supercharge",
    ]


def test_the_engine_spec_of_a_snapshot() -> None:
    spec = armies.army_spec(snap(orks()), Seat.B)
    assert spec.faction == "Orks"
    ids = [u.id for u in spec.units]
    assert ids == ["b1", "b2", "b3", "b4", "b5", "b6"]
    boyz = spec.units[1]
    assert (boyz.models, boyz.wounds, boyz.oc, boyz.leadership, boyz.toughness) == (10, 1, 2, 7, 5)
    assert Ability.INFILTRATORS in spec.units[2].abilities
    assert spec.units[4].transport_capacity == 22
    assert Ability.DEEP_STRIKE in spec.units[5].abilities
    assert armies.snapshot_unit(snap(orks()), Seat.B, "b2")["name"] == "Boyz"
    assert armies.snapshot_unit(snap(orks()), Seat.B, "a2") is None
    assert armies.snapshot_unit(None, Seat.B, "b2") is None


def test_each_model_slot_keeps_its_own_model_types_wounds() -> None:
    """A Boyz mob of 10 is nine Boys (W1) then the Boss Nob (W2), in composition order; T and
    Sv stay the most numerous type's (the Boys')."""
    s = snap(orks())
    by_name = {u["name"]: u for u in s["units"]}
    boyz = by_name["Boyz"]
    assert boyz["model_wounds"] == [1] * 9 + [2]
    assert (boyz["wounds"], boyz["toughness"], boyz["profile"]["save"]) == (1, 5, 5)
    assert by_name["Stormboyz"]["model_wounds"] == [1, 1, 1, 1, 2]
    assert by_name["Nobz"]["model_wounds"] == [2] * 5
    assert by_name["Warboss"]["model_wounds"] == [6]
    spec = armies.army_spec(s, Seat.B)
    mob = spec.units[1]
    assert mob.model_wounds == (1,) * 9 + (2,)
    assert (mob.wounds_of(0), mob.wounds_of(9)) == (1, 2)
    assert spec.units[3].model_wounds == ()  # Nobz: every model at the unit's W
    assert Battle.create(setup_of(spec)).state.units["b2"].wounds == (1,) * 9 + (2,)


def test_a_snapshot_taken_before_per_slot_wounds_still_makes_a_spec() -> None:
    s = snap(orks())
    for u in s["units"]:
        del u["model_wounds"]
    spec = armies.army_spec(s, Seat.B)
    assert spec.units[1].model_wounds == ()
    assert spec.units[1].max_wounds == (1,) * 10  # as the tracker counted the mob before
    assert Battle.create(setup_of(spec)).state.units["b2"].wounds == (1,) * 10


def test_two_units_of_one_datasheet_get_numbered_names() -> None:
    roster = Roster(
        "Orks",
        "War Horde",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Warboss", warlord=True),
            RosterUnit("Boyz", 10),
            RosterUnit("Boyz", 10, label="Da Ladz"),
            RosterUnit("Boyz", 10),
        ),
    )
    names = [u["name"] for u in snap(roster)["units"]]
    assert names == ["Warboss", "Boyz 1", "Da Ladz", "Boyz 2"]


def test_a_list_that_breaks_the_rules_or_the_points_is_refused() -> None:
    broken = Roster("Orks", "War Horde", BattleSize.STRIKE_FORCE, (RosterUnit("Boyz", 3),))
    with pytest.raises(ArmyUnusable) as info:
        snap(broken)
    assert info.value.errors
    with pytest.raises(ArmyUnusable) as info:
        snap(marines(), limit=500)
    assert info.value.errors == [
        {"field": "points", "message": "over the battle size", "type": "too_big"}
    ]


def test_the_sample_lists_are_valid_incursion_lists() -> None:
    for sample in armies.SAMPLES:
        result = validate(sample.roster, starter_catalogue())
        assert result.valid, [v.message for v in result.violations]
        assert result.points <= 1000
        assert armies.army_spec(snap(sample.roster, 1000), Seat.B).units


def test_the_roster_inside_what_the_builder_gives() -> None:
    export = marines().to_dict()
    assert armies._find_roster({"export": export, "catalogue": {"id": 3}}) == export
    assert armies._find_catalogue_ref({"catalogue": {"id": 3}}, export) == 3
    assert armies._find_roster({**export, "catalogue_id": 3}) == export
    assert armies._find_catalogue_ref({**export, "catalogue_id": 3}, export) == 3
    with pytest.raises(ArmyUnusable):
        armies._find_roster({"name": "no export"})


def test_the_real_army_builder_feeds_a_match(
    user_client: Callable[[str], TestClient], starter: int
) -> None:
    """No fake here: a list built and marked ready with /api/v1/armies starts a match."""
    alice = user_client("Alice")
    r = alice.post(
        "/api/v1/armies",
        json={
            "rule_system": "wh40k-10e",
            "name": "Real list",
            "faction": "Adeptus Astartes",
            "detachment": "Gladius Task Force",
            "battle_size": "strike-force",
            "units": [
                {"datasheet": "Captain", "warlord": True, "attached_to": 1},
                {"datasheet": "Intercessor Squad", "models": 5},
            ],
        },
    )
    assert r.status_code == 201, r.text
    army_id = r.json()["id"]
    r = alice.post("/api/v1/matches", json={"army_id": army_id})
    assert r.status_code == 409, r.text  # a draft is not ready
    assert r.json()["type"].endswith("army-not-ready")
    assert alice.patch(f"/api/v1/armies/{army_id}", json={"status": "ready"}).status_code == 200
    r = alice.post("/api/v1/matches", json={"army_id": army_id})
    assert r.status_code == 201, r.text
    assert r.json()["players"]["A"]["army"] == "Real list"
    assert r.json()["players"]["A"]["points"] == 160


def test_the_weapon_lists_count_the_models_that_carry_each_weapon() -> None:
    """The list's wargear choices reach the tracker as the builder shows them: a choice
    replaces its option's default (the Sergeant's plasma pistol and power weapon take the
    place of his bolt rifle and close combat weapon), a choice two options offer counts once
    (one meltagun, not one per option), and nothing the unit does not carry is offered as
    carried."""
    roster = Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Captain", warlord=True),
            RosterUnit("Intercessor Squad", 5, {"Plasma pistol": 1, "Power weapon": 1}),
            RosterUnit(
                "Tactical Squad", 10, {"Tactical Marine w/Special Weapon": 1, "Meltagun": 1}
            ),
            RosterUnit("Inceptor Squad", 6, {"Plasma Exterminators": 3}),
        ),
    )
    units = snap(roster)["units"]

    def carriers(unit: dict[str, Any]) -> dict[str, int]:
        return {w["group"]: w["models"] for w in unit["weapons"] if w["models"]}

    assert carriers(units[1]) == {
        "Bolt Rifle": 4,
        "Plasma pistol": 1,
        "Power weapon": 1,
        "Close combat weapon": 4,
        "Bolt pistol": 5,
    }
    assert carriers(units[2]) == {
        "Bolt pistol": 10,
        "Close combat weapon": 10,
        "Boltgun": 9,
        "Meltagun": 1,
    }
    assert carriers(units[3]) == {
        "Assault Bolters": 3,
        "Plasma Exterminators": 3,
        "Close combat weapon": 6,
    }
