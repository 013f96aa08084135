"""The BattleScribe importer on our own hand-written files (tests/catalog/fixtures/), one
construct at a time; the expected numbers are the ones written in the fixtures."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from app.catalog.bsdata import ImportResult, IssueCode, IssueSeverity, import_files
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Code,
    Datasheet,
    KeywordRule,
    Roster,
    RosterUnit,
    WeaponKind,
    validate,
)

Zip = Callable[[str, bytes], tuple[str, bytes]]


def cat(result: ImportResult, cid: str) -> Catalogue:
    return next(c for c in result.catalogues if c.id == cid)


def sheet(catalogue: Catalogue, name: str) -> Datasheet:
    found = catalogue.datasheet(name)
    assert found is not None, name
    return found


@pytest.fixture(scope="module")
def marines(imported: ImportResult) -> Catalogue:
    return cat(imported, "test-marines")


@pytest.fixture(scope="module")
def orks(imported: ImportResult) -> Catalogue:
    return cat(imported, "test-orks")


def test_one_catalogue_per_faction_file(imported: ImportResult) -> None:
    assert [c.id for c in imported.catalogues] == ["test-marines", "test-orks"]
    m = cat(imported, "test-marines")
    assert m.name == "Test Marines"
    assert m.factions == ("Test Marines",)
    assert m.version == "r12+gst-r7"
    assert m.source == "BSData Test Marines (revision 12); Test System (revision 7)"
    kinds = {f.filename: f.kind for f in imported.report.files}
    assert kinds == {
        "test-armoury.cat": "library",
        "test-marines.cat": "catalogue",
        "test-orks.cat": "catalogue",
        "test-system.gst": "gameSystem",
    }
    assert imported.ok


def test_root_entries_hidden_ones_skipped_and_linked_catalogue_roots_imported(
    marines: Catalogue, orks: Catalogue
) -> None:
    names = [d.name for d in marines.datasheets]
    assert names == [
        "Captain",
        "Lieutenant",
        "Brother Hero",
        "Battle Squad",
        "Veteran Squad",
        "Test Transport",
        "Bike Pack",
        "Drop Capsule",
        "Old Dreadnought [Legends]",
        # importRootEntries="true" on the link to Test Orks: its units, as allies
        "Boss",
        "Boyz Mob",
        "Ork Mercenary",
    ]
    assert "Hidden Thing" not in names  # hidden="true"
    assert [d.name for d in orks.datasheets] == ["Boss", "Boyz Mob", "Ork Mercenary"]


def test_unit_profile_and_shared_invulnerable_save(marines: Catalogue) -> None:
    captain = sheet(marines, "Captain")
    (p,) = captain.profiles
    stats = (p.name, p.movement, p.toughness, p.save, p.wounds, p.leadership, p.objective_control)
    assert stats == ("Captain", '6"', 4, 3, 5, 6, 1)
    assert p.invulnerable_save == 4  # infoLink to a shared profile of the game system


def test_characteristic_dashes_are_none(orks: Catalogue) -> None:
    (p,) = sheet(orks, "Ork Mercenary").profiles
    assert p.save is None
    assert p.objective_control is None


def test_categories_give_keywords_factions_and_flags(marines: Catalogue) -> None:
    captain = sheet(marines, "Captain")
    assert captain.keywords == ("Character", "Infantry", "Captain")
    assert captain.faction_keywords == ("Test Marines",)
    assert captain.character
    assert not captain.epic_hero
    hero = sheet(marines, "Brother Hero")
    assert hero.epic_hero
    assert hero.character
    squad = sheet(marines, "Battle Squad")
    assert squad.battleline
    assert squad.keywords == ("Battleline", "Infantry", "Battle Squad")
    transport = sheet(marines, "Test Transport")
    assert transport.dedicated_transport
    assert transport.transport_capacity == 10
    legend = sheet(marines, "Old Dreadnought [Legends]")
    assert legend.legends
    assert "Vehicle" in legend.keywords


def test_ability_names_only(marines: Catalogue) -> None:
    captain = sheet(marines, "Captain")
    assert captain.abilities == ("Leader", "Rites of Testing", "Deep Strike", "Feel No Pain 5+")
    text = json.dumps(marines.to_dict())
    assert "Stand-in" not in text
    assert "stand-in" not in text


def test_composition_min_max_per_model_type(marines: Catalogue) -> None:
    squad = sheet(marines, "Battle Squad")
    assert [(m.name, m.min, m.max, m.profile) for m in squad.models] == [
        ("Sergeant", 1, 1, "Sergeant"),
        ("Trooper", 4, 9, "Trooper"),
        ("Gunner", 0, 1, "Trooper"),
    ]
    assert (squad.min_models, squad.max_models) == (5, 10)
    assert [m.default_wargear for m in squad.models] == [
        ("Bolt rifle",),
        ("Bolt rifle",),
        ("Plasma gun",),
    ]


def test_conditional_cost_by_unit_size(marines: Catalogue) -> None:
    # 90 pts; "set 180 when at least 6 selections in the Squad group"
    squad = sheet(marines, "Battle Squad")
    assert [(t.min_models, t.max_models, t.points) for t in squad.points] == [
        (5, 5, 90),
        (6, 10, 180),
    ]


def test_alternative_packages_of_models(marines: Catalogue) -> None:
    # "5 Veterans" or "10 Veterans"; 150 pts, "set 300 when more than 5 models"
    vets = sheet(marines, "Veteran Squad")
    assert [(t.min_models, t.max_models, t.points) for t in vets.points] == [
        (5, 5, 150),
        (10, 10, 300),
    ]
    assert [(m.name, m.min, m.max) for m in vets.models] == [("Veteran", 5, 10)]
    assert vets.profiles[0].invulnerable_save == 4  # "Invulnerable Save" ability on the model


def test_per_model_cost_and_repeat_modifier(marines: Catalogue) -> None:
    # 25 per Biker, +10 for every 3 models (a repeat in a modifier group): 3 -> 85, 6 -> 170
    bikes = sheet(marines, "Bike Pack")
    assert [t.points for t in bikes.points] == [85, 110, 135, 170]
    assert bikes.models[0].points == 25


def test_cost_depending_on_the_primary_catalogue(marines: Catalogue, orks: Catalogue) -> None:
    # +10 when the primary catalogue is not Test Orks (taken as allies)
    assert sheet(orks, "Ork Mercenary").points[0].points == 50
    assert sheet(marines, "Ork Mercenary").points[0].points == 60


def test_link_costs_override_the_target(marines: Catalogue) -> None:
    assert sheet(marines, "Old Dreadnought [Legends]").points[0].points == 140


def test_weapons_with_every_profile_from_a_linked_library(marines: Catalogue) -> None:
    captain = sheet(marines, "Captain")
    assert [w.name for w in captain.weapons] == [
        "Bolt rifle",
        "Power fist",
        "Close combat weapon",
        "Plasma gun",
    ]
    plasma = captain.weapon("plasma gun")
    assert plasma is not None
    assert [p.name for p in plasma.profiles] == [
        "Plasma gun - standard",
        "Plasma gun - supercharge",
    ]
    std, sc = plasma.profiles
    assert (std.kind, std.range, std.attacks, std.skill, std.strength, std.ap, std.damage) == (
        WeaponKind.RANGED, 24, "1", 3, "7", -2, "1",
    )  # fmt: skip
    assert sc.abilities == ("Rapid Fire 1", "Hazardous")
    fist = captain.weapon("Power fist")
    assert fist is not None
    assert fist.profiles[0].kind is WeaponKind.MELEE
    assert fist.profiles[0].range is None


def test_ability_strings_are_normalised_and_unknown_ones_kept_and_reported(
    marines: Catalogue, imported: ImportResult
) -> None:
    cannon = sheet(marines, "Test Transport").weapon("Storm cannon")
    assert cannon is not None
    (p,) = cannon.profiles
    assert p.abilities == ("Twin-linked", "Anti-Infantry 4+", "Sustained Hits D3")
    assert p.unmapped_abilities == ("Snazzy Gubbins",)
    assert (p.attacks, p.skill, p.strength, p.ap) == ("D6+1", None, "2D6", None)
    (issue,) = imported.report.of(IssueCode.UNMAPPED_ABILITY)
    assert issue.severity is IssueSeverity.WARNING
    assert issue.params["text"] == "Snazzy Gubbins"
    assert issue.params["count"] == 1
    # "Twin-linked" in the other spelling maps to the same ability
    ccw = sheet(marines, "Captain").weapon("Close combat weapon")
    assert ccw is not None
    assert ccw.profiles[0].abilities == ("Twin-linked",)
    (bad,) = [i for i in imported.report.of(IssueCode.BAD_CHARACTERISTIC) if "AP" in i.message]
    assert "Storm cannon" in bad.message


def test_wargear_options(marines: Catalogue) -> None:
    captain = sheet(marines, "Captain")
    wargear = captain.wargear_options[0]
    assert wargear.name == "Wargear"
    assert wargear.model == "Captain"
    assert [c.name for c in wargear.choices] == [
        "Bolt rifle and power fist",
        "Plasma gun and melee weapon",
    ]
    assert wargear.choices[0].weapons == ("Bolt rifle", "Power fist")
    assert (wargear.min, wargear.max, wargear.default) == (1, 1, "Bolt rifle and power fist")
    nested = captain.wargear_options[1]
    assert nested.name == "Melee weapon"
    assert [c.name for c in nested.choices] == [
        "Close combat weapon",
        "Power fist",
    ]
    assert captain.models[0].default_wargear == ("Bolt rifle", "Power fist")
    squad = sheet(marines, "Battle Squad")
    auspex = next(o for o in squad.wargear_options if o.name == "Auspex array")
    assert auspex.model == ""
    assert auspex.choices[0].points == 5
    assert auspex.max == 1
    names = [o.name for o in squad.wargear_options]
    assert "Warlord" not in names
    assert "Crusade" not in names
    assert "Warlord" not in [o.name for o in captain.wargear_options]


def test_leaders_and_bodyguards(marines: Catalogue, orks: Catalogue) -> None:
    captain = sheet(marines, "Captain")
    # "Old Dreadnought" is written without "[Legends]": matched to the datasheet's name
    assert captain.leader_of == ("Battle Squad", "Veteran Squad", "Old Dreadnought [Legends]")
    assert captain.leader_of_conditional == ("Veteran Squad",)  # footnote asterisk
    assert not captain.extra_leader
    lieutenant = sheet(marines, "Lieutenant")
    assert lieutenant.leader_of == ("Battle Squad", "ALL INFANTRY")
    assert lieutenant.extra_leader
    assert sheet(orks, "Boss").leader_of == ("Boyz Mob",)  # inline ^^**BOYZ MOB**^^
    mob = sheet(orks, "Boyz Mob")
    assert mob.two_leaders_from == 20
    assert mob.abilities == ("Big Mob",)
    assert captain.two_leaders_from is None


def test_detachments_and_enhancements(marines: Catalogue, orks: Catalogue) -> None:
    assert [(d.name, d.faction, d.id) for d in marines.detachments] == [
        ("Strike Force Alpha", "Test Marines", "det-alpha"),
        ("Siege Cohort", "Test Marines", "det-siege"),
    ]  # "Other Chapter Host" is hidden for this primary catalogue
    alpha, siege = marines.detachments
    assert [(e.name, e.points, e.eligibility) for e in alpha.enhancements] == [
        ("Relic Blade", 15, None),
        ("Master Tactician", 20, KeywordRule.has("Captain")),
        ("Heavy Plate", 25, KeywordRule.negate(KeywordRule.has("Terminator"))),
        (
            "Mind Shield",
            10,
            KeywordRule.any_of(KeywordRule.has("Captain"), KeywordRule.has("Psyker")),
        ),
    ]  # "Crusade Trophy" only shows in a Crusade force
    # "Siege Cohort Enhancements" is matched by name; the vehicle upgrades by their condition
    assert sorted((e.name, e.points, e.characters_only) for e in siege.enhancements) == [
        ("Armoured Ram", 10, False),  # linked from a non-Character (the transport)
        ("Siege Master", 30, True),
    ]
    assert all(e.characters_only for e in alpha.enhancements)
    assert [(d.name, [e.name for e in d.enhancements]) for d in orks.detachments] == [
        ("Waaagh Band", ["Big Horns"])
    ]


def test_a_datasheet_without_faction_keyword_gets_its_catalogues(
    marines: Catalogue, imported: ImportResult
) -> None:
    capsule = sheet(marines, "Drop Capsule")
    assert capsule.faction_keywords == ("Test Marines",)
    assert capsule.profiles[0].movement == "-"
    assert capsule.dedicated_transport
    assert [i.entry for i in imported.report.of(IssueCode.FACTION_ASSUMED)] == ["Drop Capsule"]


def test_unknown_bodyguard_names_are_kept_and_reported(imported: ImportResult) -> None:
    targets = {i.params["target"] for i in imported.report.of(IssueCode.LEADER_TARGET_UNKNOWN)}
    assert targets == {"ALL INFANTRY"}


def test_problems_are_reported_not_hidden(imported: ImportResult) -> None:
    (unresolved,) = imported.report.of(IssueCode.UNRESOLVED_LINK)
    assert unresolved.params["target"] == "does-not-exist"
    assert unresolved.file == "test-marines.cat"
    assert imported.report.errors == ()
    data: Any = imported.report.as_dict()
    assert {w["code"] for w in data["warnings"]} >= {
        "unresolved-link",
        "unmapped-ability",
        "bad-characteristic",
    }


def test_zipped_files_give_the_same_catalogues(
    files: list[tuple[str, bytes]], imported: ImportResult, zip_it: Zip
) -> None:
    zipped = [zip_it(n, d) for n, d in files]
    assert {n.rsplit(".", 1)[1] for n, _ in zipped} == {"gstz", "catz"}
    again = import_files(zipped)
    assert again.catalogues == imported.catalogues


def test_file_order_does_not_matter(files: list[tuple[str, bytes]], imported: ImportResult) -> None:
    assert import_files(list(reversed(files))).catalogues == tuple(
        sorted(imported.catalogues, key=lambda c: c.id, reverse=True)
    )


def test_catalogue_round_trips_through_json(marines: Catalogue) -> None:
    assert Catalogue.from_dict(json.loads(json.dumps(marines.to_dict()))) == marines


def test_imported_catalogue_validates_a_list(marines: Catalogue) -> None:
    roster = Roster(
        "Test Marines",
        "Strike Force Alpha",
        BattleSize.INCURSION,
        (
            RosterUnit("Captain", enhancements=("Master Tactician",), warlord=True, attached_to=1),
            RosterUnit("Battle Squad", models=10, wargear={"Auspex array": 1, "Power fist": 1}),
            RosterUnit("Lieutenant", attached_to=1),
            RosterUnit("Test Transport"),
            RosterUnit("Boss"),
        ),
    )
    res = validate(roster, marines)
    assert [v.code for v in res.violations] == [Code.FACTION_MISMATCH]  # the allied Boss
    assert res.points == 80 + 20 + 180 + 5 + 60 + 75 + 70
