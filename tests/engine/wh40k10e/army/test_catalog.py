"""Catalogue values: lookups, flags, keyword rules, bounds, and the lossless JSON round trip."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.engine.wh40k10e.abilities import AbilityKind
from app.engine.wh40k10e.army import (
    SCHEMA_VERSION,
    Catalogue,
    CatalogueError,
    Datasheet,
    KeywordOp,
    KeywordRule,
    ModelProfile,
    ModelType,
    PointsTier,
    WeaponKind,
    WeaponProfile,
    dump_catalogues,
    load_catalogues,
    merge_catalogues,
)


def test_round_trip_is_lossless(catalogue: Catalogue) -> None:
    data = catalogue.to_dict()
    assert data["format"] == "auspex.catalogue"
    assert data["schema_version"] == SCHEMA_VERSION
    text = json.dumps(data)
    again = Catalogue.from_dict(json.loads(text))
    assert again == catalogue
    assert again.to_dict() == data


def test_catalogue_set_round_trip(catalogue: Catalogue) -> None:
    doc = dump_catalogues([catalogue, catalogue])
    assert load_catalogues(json.loads(json.dumps(doc))) == (catalogue, catalogue)
    assert load_catalogues(catalogue.to_dict()) == (catalogue,)


def test_defaults_are_left_out_of_the_json(catalogue: Catalogue) -> None:
    data: Any = json.loads(json.dumps(catalogue.to_dict()))
    tank = next(d for d in data["datasheets"] if d["name"] == "Battle Tank")
    assert "weapons" not in tank
    assert "epic_hero" not in tank
    assert "legends" not in tank


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda d: d.update(schema_version=99), "schema_version"),
        (lambda d: d.update(format="other"), "format"),
        (lambda d: d["datasheets"][0].update(min_models="1"), "datasheets[0].min_models"),
        (lambda d: d["datasheets"][0].update(bogus=1), "datasheets[0].bogus"),
        (lambda d: d["datasheets"][0]["points"][0].update(points=-5),
         "datasheets[0].points[0].points"),
        (lambda d: d["datasheets"][0].pop("name"), "datasheets[0].name"),
        (lambda d: d["detachments"][0]["enhancements"][1]["eligibility"].update(op="xor"),
         "detachments[0].enhancements[1].eligibility.op"),
    ],
)  # fmt: skip
def test_bad_documents_name_the_field(catalogue: Catalogue, mutate, field: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(json.dumps(catalogue.to_dict()))
    mutate(data)
    with pytest.raises(CatalogueError) as info:
        Catalogue.from_dict(data)
    assert info.value.field == field


def test_bounds_are_checked_on_construction() -> None:
    with pytest.raises(CatalogueError, match="skill"):
        WeaponProfile("x", WeaponKind.RANGED, 24, "1", 7, "4", 0, "1")
    with pytest.raises(CatalogueError, match="ap"):
        WeaponProfile("x", WeaponKind.RANGED, 24, "1", 3, "4", 2, "1")
    with pytest.raises(CatalogueError, match="min"):
        ModelType("x", 3, 2, "")
    with pytest.raises(CatalogueError, match="min_models"):
        PointsTier(5, 4, 10)
    with pytest.raises(CatalogueError, match="profile"):
        Datasheet("d", "D", (), (), (), (ModelType("m", 1, 1, "missing"),), 1, 1, ())


def test_duplicate_datasheet_ids_are_refused(catalogue: Catalogue) -> None:
    with pytest.raises(CatalogueError, match="duplicate"):
        Catalogue("c", "C", "1", ("F",), (catalogue.datasheets[0], catalogue.datasheets[0]))


def test_lookups(catalogue: Catalogue) -> None:
    assert catalogue.datasheet("battle squad") is catalogue.datasheet("Battle Squad")
    assert catalogue.datasheet("Nope") is None
    assert catalogue.faction("test orks") == "Test Orks"
    assert [d.name for d in catalogue.detachments_of("Test Orks")] == ["Waaagh Band"]
    assert catalogue.detachment("Waaagh Band", "Test Marines") is None
    assert catalogue.detachment("waaagh band", "Test Orks") is not None
    assert catalogue.enhancements_named("relic blade")[0].points == 15
    assert {d.name for d in catalogue.datasheets_of("Test Orks")} == {"Boss", "Boyz"}
    assert catalogue.datasheet_by_id("tank") is catalogue.datasheet("Battle Tank")


def test_rule_of_three_limits(catalogue: Catalogue) -> None:
    # [L4324-4331, L4343-4344]
    limits = {d.name: d.max_in_army for d in catalogue.datasheets}
    assert limits["Battle Tank"] == 3
    assert limits["Battle Squad"] == 6  # Battleline
    assert limits["Test Transport"] == 6  # Dedicated Transport
    assert limits["Brother Hero"] == 1  # Epic Hero


def test_points_for_sizes(catalogue: Catalogue) -> None:
    squad = catalogue.datasheet("Battle Squad")
    assert squad is not None
    assert [squad.points_for(n) for n in (4, 5, 6, 10, 11)] == [None, 90, 180, 180, None]


def test_keyword_rules() -> None:
    captain = KeywordRule.has("Captain")
    not_term = KeywordRule.negate(KeywordRule.has("Terminator"))
    either = KeywordRule.any_of(captain, KeywordRule.has("Psyker"))
    both = KeywordRule.all_of(captain, not_term)
    assert captain.matches(["CAPTAIN", "Infantry"])
    assert not captain.matches(["Lieutenant"])
    assert not_term.matches([])
    assert not not_term.matches(["terminator"])
    assert either.matches(["Psyker"])
    assert not either.matches(["Infantry"])
    assert both.matches(["Captain"])
    assert not both.matches(["Captain", "Terminator"])
    assert str(both) == "Captain and non-Terminator"
    assert str(KeywordRule.all_of(either, not_term)) == "(Captain or Psyker) and non-Terminator"
    assert KeywordRule.negate(not_term) == KeywordRule.has("Terminator")
    with pytest.raises(CatalogueError):
        KeywordRule(KeywordOp.NOT, args=())
    with pytest.raises(CatalogueError):
        KeywordRule(KeywordOp.ANY)


def test_weapon_profile_to_combat_request_and_engine_abilities() -> None:
    wp = WeaponProfile(
        "Plasma", WeaponKind.RANGED, 24, "1", 3, "8", -3, "2", ("Rapid Fire 1", "Hazardous")
    )
    assert wp.combat_weapon() == {
        "name": "Plasma",
        "kind": "ranged",
        "attacks": "1",
        "skill": 3,
        "strength": 8,
        "ap": -3,
        "damage": "2",
        "abilities": ["Rapid Fire 1", "Hazardous"],
    }
    kinds = [a.kind for a in wp.engine_abilities()]
    assert kinds == [AbilityKind.RAPID_FIRE, AbilityKind.HAZARDOUS]
    random_s = WeaponProfile("Shokk", WeaponKind.RANGED, 60, "D6", 5, "2D6", None, "D6")
    assert random_s.combat_weapon() is None
    assert random_s.strength_value is None


def test_datasheet_to_combat_target(catalogue: Catalogue) -> None:
    vets = catalogue.datasheet("Veteran Squad")
    assert vets is not None
    assert vets.combat_target(10) == {
        "models": 10,
        "toughness": 5,
        "save": 2,
        "wounds": 3,
        "invulnerable_save": 4,
        "feel_no_pain": None,
        "keywords": ["INFANTRY", "TERMINATOR", "TEST MARINES"],
    }
    squad = catalogue.datasheet("Battle Squad")
    assert squad is not None
    target = squad.combat_target()
    assert target is not None
    assert target["models"] == 5
    assert target["wounds"] == 2
    fnp = replace(squad, abilities=("Feel No Pain 5+",))
    assert fnp.feel_no_pain == 5


def test_merge_keeps_each_datasheet_once(catalogue: Catalogue) -> None:
    merged = merge_catalogues([catalogue, catalogue], id="m", name="M", version="1")
    assert merged.factions == catalogue.factions
    assert len(merged.datasheets) == len(catalogue.datasheets)
    assert len(merged.detachments) == len(catalogue.detachments)


names = st.text(
    st.characters(min_codepoint=32, max_codepoint=0x2FF), min_size=1, max_size=20
).filter(lambda s: s.strip() != "")


@given(
    name=names,
    toughness=st.integers(1, 30),
    save=st.none() | st.integers(2, 7),
    wounds=st.integers(1, 100),
    tiers=st.lists(st.integers(0, 10_000), min_size=1, max_size=4),
    keywords=st.lists(names, max_size=4),
)
def test_round_trip_property(
    name: str, toughness: int, save: int | None, wounds: int, tiers: list[int], keywords: list[str]
) -> None:
    profile = ModelProfile(name, '6"', toughness, save, wounds, None, 1, None)
    points = tuple(PointsTier(i + 1, i + 1, p) for i, p in enumerate(tiers))
    sheet = Datasheet(
        "id", name, ("F",), tuple(keywords), (profile,), (ModelType(name, 1, len(tiers), name),),
        1, len(tiers), points,
    )  # fmt: skip
    cat = Catalogue("c", name, "v", ("F",), (sheet,))
    assert Catalogue.from_dict(json.loads(json.dumps(cat.to_dict()))) == cat


def test_a_strength_in_digits_that_are_not_ascii_is_no_number() -> None:
    # imported data is the user's: int() cannot read "²", which str.isdigit() accepts
    profile = WeaponProfile("Odd gun", WeaponKind.RANGED, 24, "1", 3, "\u00b2", 0, "1", ())
    assert profile.strength_value is None
    assert replace(profile, strength="8").strength_value == 8
