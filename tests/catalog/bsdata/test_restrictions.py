"""The data's "add error" modifiers become list restrictions, the roster options are decided
(Legends by the list's setting) and the census counts what is decided: on the tiny
hand-written files of :mod:`restriction_files`, then on the real data when it is present."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from app.catalog.bsdata import ImportResult, import_files
from app.catalog.bsdata.census import census_of, main, render
from app.catalog.bsdata.files import Budget, Document, ImportLimits, read_document
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Code,
    Datasheet,
    RestrictionSeverity,
    Roster,
    RosterUnit,
    Severity,
    validate,
)
from tests.catalog.bsdata.restriction_files import CAT, FILES

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"


@pytest.fixture(scope="module")
def imported() -> ImportResult:
    return import_files(FILES)


@pytest.fixture(scope="module")
def testers(imported: ImportResult) -> Catalogue:
    assert imported.ok
    (catalogue,) = imported.catalogues
    return catalogue


def sheet(catalogue: Catalogue, name: str) -> Datasheet:
    found = catalogue.datasheet(name)
    assert found is not None
    return found


def roster(*units: RosterUnit, detachment: str = "First Host", legends: bool = False) -> Roster:
    return Roster(
        faction="Testers",
        detachment=detachment,
        battle_size=BattleSize.STRIKE_FORCE,
        units=units,
        include_legends=legends,
    )


CHIEF = RosterUnit("Chief", warlord=True)


def codes(result_roster: Roster, catalogue: Catalogue) -> list[tuple[str, int | None]]:
    return [(v.code.value, v.unit) for v in validate(result_roster, catalogue).violations]


# -- reading the files ---------------------------------------------------------------------


def test_add_error_modifiers_become_restrictions_without_their_text(testers: Catalogue) -> None:
    squad = sheet(testers, "Squad")
    worded = {(str(r.when), r.wargear, r.severity) for r in squad.restrictions}
    assert worded == {
        (
            "fewer than 10 models in the unit and more than 1 × Heavy gun in the unit",
            "Heavy gun",
            RestrictionSeverity.ERROR,
        ),
        (
            "the Detachment is Second Host and more than 2 Squad unit(s) in the army",
            "",
            RestrictionSeverity.ERROR,
        ),
    }
    assert b"stand-in message" in CAT
    assert "stand-in" not in repr(testers.to_dict())


def test_conditions_decided_at_import_or_not_expressible_are_left_out(testers: Catalogue) -> None:
    # The Chief's Crusade-only error never applies to a matched-play list; its "count" group
    # is not expressed. Only the Warlord warning is kept.
    (only,) = sheet(testers, "Chief").restrictions
    assert str(only.when) == "fewer than 1 Warlord(s) in the army"
    assert only.severity is RestrictionSeverity.WARNING


def test_roster_options_are_decided_and_legends_flagged(testers: Catalogue) -> None:
    # Hidden unless "Show Legends": offered, marked Legends. Hidden unless another "Show"
    # option: offered as a plain datasheet (the option only filters BattleScribe's lists).
    assert sheet(testers, "Old Walker").legends is True
    assert sheet(testers, "Ally Walker").legends is False
    assert sheet(testers, "Squad").legends is False


def test_restrictions_round_trip_through_json(testers: Catalogue) -> None:
    assert Catalogue.from_dict(testers.to_dict()) == testers


# -- validating with them ------------------------------------------------------------------


def test_a_wargear_restriction_applies_to_the_unit_that_takes_it(testers: Catalogue) -> None:
    five_two_guns = RosterUnit("Squad", models=5, wargear={"Heavy gun": 2})
    assert codes(roster(CHIEF, five_two_guns), testers) == [("data-restriction", 1)]
    ten_two_guns = RosterUnit("Squad", models=10, wargear={"Heavy gun": 2})
    assert codes(roster(CHIEF, ten_two_guns), testers) == []
    five_one_gun = RosterUnit("Squad", models=5, wargear={"Heavy gun": 1})
    assert codes(roster(CHIEF, five_one_gun), testers) == []
    (v,) = validate(roster(CHIEF, five_two_guns), testers).violations
    assert v.severity is Severity.ERROR
    assert v.message == (
        "Squad (#2) breaks a restriction of the catalogue: fewer than 10 models in the unit "
        "and more than 1 × Heavy gun in the unit."
    )
    assert str(v.params["condition"]) in v.message


def test_an_army_restriction_depends_on_the_detachment_and_the_count(testers: Catalogue) -> None:
    squads = [RosterUnit("Squad", models=5) for _ in range(3)]
    assert codes(roster(CHIEF, *squads, detachment="First Host"), testers) == []
    found = codes(roster(CHIEF, *squads, detachment="Second Host"), testers)
    assert found == [("data-restriction", 1), ("data-restriction", 2), ("data-restriction", 3)]
    assert codes(roster(CHIEF, *squads[:2], detachment="Second Host"), testers) == []


def test_a_datasheet_hidden_by_the_rest_of_the_roster_is_unavailable(testers: Catalogue) -> None:
    """Hidden while the army has a Chief: refused with the Chief, legal without. Its "hidden
    once the army has one" modifier (a uniqueness idiom) is left to the core limits."""
    (only,) = sheet(testers, "Rival").restrictions
    assert only.unavailable
    with_chief = validate(roster(CHIEF, RosterUnit("Rival")), testers)
    assert [(v.code.value, v.unit, v.message_id) for v in with_chief.violations] == [
        ("data-restriction", 1, "data-restriction.unavailable")
    ]
    assert with_chief.violations[0].message == (
        "Rival (#2) cannot be included in this army: at least 1 Chief unit(s) in the army."
    )
    assert codes(roster(RosterUnit("Rival", warlord=True)), testers) == []


def test_a_warning_restriction_does_not_make_the_list_invalid(testers: Catalogue) -> None:
    result = validate(roster(RosterUnit("Chief")), testers)
    found = [v for v in result.violations if v.code is Code.DATA_RESTRICTION]
    assert [(v.unit, v.severity) for v in found] == [(0, Severity.WARNING)]
    assert {v.code for v in result.errors} == {Code.NO_WARLORD}


def test_legends_need_the_lists_setting(testers: Catalogue) -> None:
    old = RosterUnit("Old Walker")
    assert codes(roster(CHIEF, old), testers) == [("legends-not-included", 1)]
    assert codes(roster(CHIEF, old, legends=True), testers) == []
    v = validate(roster(CHIEF, old), testers).violations[0]
    assert v.fix == "Remove Old Walker (#2) or include Legends in the list's settings."


# -- the census ----------------------------------------------------------------------------


def _docs(files: list[tuple[str, bytes]]) -> list[Document]:
    limits = ImportLimits()
    budget = Budget.of(limits)
    return [read_document(name, data, limits, budget) for name, data in files]


def test_census_counts_every_condition_by_kind_and_outcome() -> None:
    census = census_of(_docs(FILES))
    kinds = census.kinds
    total = census.all
    assert total.total == CAT.count(b"<condition ")
    assert total.decided + total.undecided == total.total
    # Crusade force (1), the two options (2), the detachment (1): decided at import.
    assert kinds["the force built"].at_import == 1
    assert kinds["roster options (Show Legends...)"].at_import == 2
    assert kinds["the chosen detachment"].at_import == 1
    # The gun's two conditions (models; the gun), the Warlord, squad and Chief counts are
    # kept for the validator; the squad count of the "count" group and the Rival's count of
    # itself are not.
    assert kinds["inside the unit (models, wargear)"].at_import == 1  # "model" counts
    assert kinds["inside the unit (models, wargear)"].when_validating == 1
    assert kinds["other selections in the roster"].when_validating == 3
    assert kinds["other selections in the roster"].undecided == 2
    assert total.undecided == 2
    assert "decided: 9 of 11" in render(census)


def test_census_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, data in FILES:
        (tmp_path / name).write_bytes(data)
    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "decided: 9 of 11 (5 at import, 4 when validating); moot: 0; undecided: 2" in out
    assert main([]) == 2


# -- the real files ------------------------------------------------------------------------

REAL = (
    ("bsdata-wh40k-10e", "Warhammer 40,000.gst"),
    ("bsdata-wh40k-10e-more", "Chaos - Death Guard.cat"),
    ("bsdata-wh40k-10e-more", "Chaos - Chaos Knights Library.cat"),
    ("bsdata-wh40k-10e-more", "Chaos - Chaos Daemons Library.cat"),
    ("bsdata-wh40k-10e", "Library - Astartes Heresy Legends.cat"),
    ("bsdata-wh40k-10e", "Library - Titans.cat"),
    ("bsdata-wh40k-10e", "Unaligned Forces.cat"),
)


@pytest.fixture(scope="module")
def death_guard() -> Catalogue:
    if not DATA.is_dir():
        pytest.skip(f"the BSData files are not present at {DATA}")
    result = import_files([(name, (DATA / folder / name).read_bytes()) for folder, name in REAL])
    assert result.ok
    return next(c for c in result.catalogues if "Death Guard" in c.factions)


def test_real_data_restriction_on_two_exclusive_weapons(death_guard: Catalogue) -> None:
    """A Helbrute may not take both of two melee weapons the data makes exclusive; the list
    with one of them is legal."""
    helbrute = sheet(death_guard, "Helbrute")
    assert helbrute.restrictions
    names = {c.name for o in helbrute.wargear_options for c in o.choices}
    assert {"Power scourge", "Helbrute hammer"} <= names
    lord = next(d for d in death_guard.datasheets_of("Death Guard") if d.character)
    det = death_guard.detachments_of("Death Guard")[0].name
    base = Roster(
        faction="Death Guard",
        detachment=det,
        battle_size=BattleSize.STRIKE_FORCE,
        units=(RosterUnit(lord.name, warlord=True),),
    )
    both = RosterUnit("Helbrute", wargear={"Power scourge": 1, "Helbrute hammer": 1})
    one = RosterUnit("Helbrute", wargear={"Helbrute hammer": 1})
    with_both = validate(replace(base, units=(*base.units, both)), death_guard)
    with_one = validate(replace(base, units=(*base.units, one)), death_guard)
    assert Code.DATA_RESTRICTION in {v.code for v in with_both.violations if v.unit == 1}
    assert Code.DATA_RESTRICTION not in {v.code for v in with_one.violations}


def test_real_data_legends_datasheets_are_flagged(death_guard: Catalogue) -> None:
    flagged = [d for d in death_guard.datasheets if d.legends]
    assert flagged
    assert all("[legends]" in d.name.lower() or d.legends for d in flagged)
    assert not any(d.legends for d in death_guard.datasheets if d.name == "Helbrute")


AELDARI = (
    ("bsdata-wh40k-10e", "Warhammer 40,000.gst"),
    ("bsdata-wh40k-10e-more", "Aeldari - Aeldari Library.cat"),
    ("bsdata-wh40k-10e-more", "Aeldari - Craftworlds.cat"),
    ("bsdata-wh40k-10e", "Library - Astartes Heresy Legends.cat"),
    ("bsdata-wh40k-10e", "Library - Titans.cat"),
    ("bsdata-wh40k-10e", "Unaligned Forces.cat"),
)


def test_real_data_a_datasheet_the_rest_of_the_army_excludes() -> None:
    """In the Aeldari data a Phoenix Lord is hidden while the army has Yvraine: refused with
    her, legal with another Warlord."""
    if not DATA.is_dir():
        pytest.skip(f"the BSData files are not present at {DATA}")
    result = import_files([(name, (DATA / folder / name).read_bytes()) for folder, name in AELDARI])
    assert result.ok
    (aeldari,) = result.catalogues
    asurmen = sheet(aeldari, "Asurmen")
    assert any(r.unavailable for r in asurmen.restrictions)
    det = aeldari.detachments_of(aeldari.factions[0])[0].name

    def army(warlord: str) -> Roster:
        return Roster(
            faction=aeldari.factions[0],
            detachment=det,
            battle_size=BattleSize.STRIKE_FORCE,
            units=(RosterUnit(warlord, warlord=True), RosterUnit("Asurmen")),
        )

    with_yvraine = validate(army("Yvraine"), aeldari)
    assert ("data-restriction.unavailable", 1) in {
        (v.message_id, v.unit) for v in with_yvraine.violations
    }
    with_autarch = validate(army("Autarch"), aeldari)
    assert Code.DATA_RESTRICTION not in {v.code for v in with_autarch.violations}
