"""Keywords a wargear choice removes from its unit (ruling D24) and keywords an Enhancement
gives its bearer (ruling D25), on the tiny hand-written files of :mod:`keyword_change_files`:
what the importer keeps, and what the validator then judges with them (an Enhancement's
eligibility, the data's limits on the units of a keyword, a choice the data hides unless the
unit has a keyword, Character)."""

from __future__ import annotations

import json

import pytest

from app.catalog.bsdata import import_files
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Datasheet,
    Roster,
    RosterUnit,
    dump_catalogues,
    load_catalogues,
    validate,
)
from tests.catalog.bsdata.keyword_change_files import FILES

FIRST = "First Host"
SECOND = "Second Host"


@pytest.fixture(scope="module")
def riders() -> Catalogue:
    result = import_files(FILES)
    assert result.ok
    (catalogue,) = result.catalogues
    return catalogue


def roster(*units: RosterUnit, detachment: str = FIRST) -> Roster:
    return Roster("Riders", detachment, BattleSize.STRIKE_FORCE, units)


def ids(r: Roster, catalogue: Catalogue) -> list[tuple[str, int | None]]:
    return sorted(
        ((v.message_id, v.unit) for v in validate(r, catalogue).violations),
        key=lambda x: (x[0], -1 if x[1] is None else x[1]),
    )


def choices(sheet: Datasheet | None) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    assert sheet is not None
    return {
        c.name: (c.keywords, c.removed_keywords) for o in sheet.wargear_options for c in o.choices
    }


def champion(**kwargs: object) -> RosterUnit:
    return RosterUnit("Champion", **kwargs)  # type: ignore[arg-type]


# -- what the importer keeps ----------------------------------------------------------------


def test_a_choice_keeps_the_keywords_it_removes_from_the_unit(riders: Catalogue) -> None:
    found = choices(riders.datasheet("Champion"))
    assert found["Bike"] == (("Mounted",), ("Infantry",))  # scope parent: the unit
    assert found["Skyboard"] == (("Fly",), ("Infantry",))  # scope root-entry
    # from the choice itself (no scope), a Faction keyword, a condition on the roster: not read
    assert found["Helmet"] == ((), ())
    assert found["Banner"] == ((), ())
    assert found["Rebreather"] == ((), ())


def test_below_a_model_parent_is_the_model_and_root_entry_is_still_the_unit(
    riders: Catalogue,
) -> None:
    found = choices(riders.datasheet("Mob"))
    assert found["Bike"] == ((), ())
    assert found["Skyboard"] == (("Fly",), ("Infantry",))


def test_an_enhancement_keeps_the_keywords_it_gives_its_bearer(riders: Catalogue) -> None:
    first = riders.detachment(FIRST)
    assert first is not None
    enh = {e.name: e for e in first.enhancements}
    # Psyker (scope parent); not the hidden display flag, not Fly given to the model
    assert enh["Warp Touch"].keywords == ("Psyker",)
    # the Mob links the group below its Boss: there the Enhancement is the Boss model's
    assert enh["Warp Touch"].model_bearers == ("e-mob",)
    assert enh["Winged Crown"].keywords == ("Fly",)  # root-entry: the unit wherever linked
    assert enh["Winged Crown"].model_bearers == ()
    assert enh["Foot Charm"].keywords == ()
    mob, champ = riders.datasheet("Mob"), riders.datasheet("Champion")
    assert mob is not None
    assert champ is not None
    assert enh["Warp Touch"].keywords_for(mob) == ()
    assert enh["Warp Touch"].keywords_for(champ) == ("Psyker",)


def test_the_stored_catalogue_keeps_the_new_fields_and_older_documents_load(
    riders: Catalogue,
) -> None:
    document = dump_catalogues([riders])
    (again,) = load_catalogues(json.loads(json.dumps(document)))
    assert again == riders
    text = json.dumps(document)
    for name in ("removed_keywords", "model_bearers"):
        assert f'"{name}"' in text
    # a document written before these fields (none of them): loads, with none of them
    older = json.loads(
        text.replace('"removed_keywords"', '"x_removed"').replace('"model_bearers"', '"x_b"')
    )

    def strip(node: object) -> None:
        if isinstance(node, dict):
            for key in ("x_removed", "x_b"):
                node.pop(key, None)
            for v in node.values():
                strip(v)
        elif isinstance(node, list):
            for v in node:
                strip(v)

    strip(older)
    (old,) = load_catalogues(older)
    assert choices(old.datasheet("Champion"))["Bike"] == (("Mounted",), ())
    first = old.detachment(FIRST)
    assert first is not None
    assert {e.name: e.model_bearers for e in first.enhancements}["Warp Touch"] == ()


# -- what the validator judges with them ----------------------------------------------------


def test_a_choice_that_removes_infantry_makes_an_infantry_enhancement_ineligible(
    riders: Catalogue,
) -> None:
    assert ids(roster(champion(warlord=True, enhancements=("Foot Charm",))), riders) == []
    on_bike = champion(wargear={"Bike": 1}, warlord=True, enhancements=("Foot Charm",))
    assert ids(roster(on_bike), riders) == [("enhancement-not-eligible", 0)]
    on_board = champion(wargear={"Skyboard": 1}, warlord=True, enhancements=("Foot Charm",))
    assert ids(roster(on_board), riders) == [("enhancement-not-eligible", 0)]
    # a removal the importer does not read changes nothing
    helmet = champion(wargear={"Helmet": 1}, warlord=True, enhancements=("Foot Charm",))
    assert ids(roster(helmet), riders) == []


def test_a_unit_that_is_no_longer_infantry_is_not_counted_in_the_infantry_limit(
    riders: Catalogue,
) -> None:
    squads = (RosterUnit("Foot Squad"), RosterUnit("Foot Squad"))
    assert ids(roster(champion(warlord=True), *squads), riders) == [("category-limit-exceeded", 2)]
    assert ids(roster(*squads, champion(wargear={"Bike": 1}, warlord=True)), riders) == []
    # the Mob's Bike is its Boss's: the Mob is still Infantry
    mob = RosterUnit("Mob", wargear={"Bike": 1}, warlord=True)
    assert ids(roster(*squads, mob), riders) == [("category-limit-exceeded", 2)]


def test_the_builder_reads_the_unit_without_the_removed_keyword(riders: Catalogue) -> None:
    sheet = riders.datasheet("Champion")
    assert sheet is not None
    biker = riders.with_choices(sheet, {"Bike": 1}, FIRST)
    assert biker.keywords == ("Character", "Mounted")
    assert biker.character
    assert riders.with_choices(sheet, {"Helmet": 1}, FIRST) is sheet


def test_an_enhancement_keyword_counts_in_the_data_limits(riders: Catalogue) -> None:
    seer = RosterUnit("Seer")
    touched = champion(warlord=True, enhancements=("Warp Touch",))
    # judged eligible without its own keyword (the data hides it on a Psyker)
    assert ids(roster(touched), riders) == []
    # now a Psyker: two Psyker units where the data allows one
    assert ids(roster(seer, touched), riders) == [("category-limit-exceeded", 1)]
    # on the Mob it is its Boss model's: the unit is no Psyker
    mob = RosterUnit("Mob", warlord=True, enhancements=("Warp Touch",))
    assert ids(roster(seer, mob), riders) == []
    # a Psyker may not take it (the data hides it there)
    assert ids(roster(RosterUnit("Seer", warlord=True, enhancements=("Warp Touch",))), riders) == [
        ("enhancement-not-eligible", 0)
    ]


def test_an_enhancement_keyword_opens_a_choice_the_data_hides_without_it(
    riders: Catalogue,
) -> None:
    staff = champion(wargear={"Psychic Staff": 1}, warlord=True)
    assert ids(roster(staff), riders) == [("wargear-invalid.unavailable", 0)]
    touched = champion(wargear={"Psychic Staff": 1}, warlord=True, enhancements=("Warp Touch",))
    assert ids(roster(touched), riders) == []


def test_an_enhancement_of_another_detachment_gives_nothing(riders: Catalogue) -> None:
    touched = champion(warlord=True, enhancements=("Warp Touch",))
    found = ids(roster(RosterUnit("Seer"), touched, detachment=SECOND), riders)
    # refused, and the unit is judged without its keyword: no second Psyker
    assert found == [("enhancement-wrong-detachment", 1)]
    sheet = riders.datasheet("Champion")
    assert sheet is not None
    assert riders.with_enhancements(sheet, ["Warp Touch"], SECOND) is sheet
    assert riders.with_enhancements(sheet, ["Warp Touch"], None) is sheet
    assert riders.with_enhancements(sheet, ["Warp Touch"], FIRST).keywords == (
        "Character",
        "Infantry",
        "Psyker",
    )
    mob = riders.datasheet("Mob")
    assert mob is not None
    assert riders.with_enhancements(mob, ["Warp Touch"], FIRST) is mob
    assert "Fly" in riders.with_enhancements(mob, ["Winged Crown"], FIRST).keywords


def test_a_removed_keyword_takes_its_flag_with_it_and_wins_over_an_added_one(
    riders: Catalogue,
) -> None:
    seer = riders.datasheet("Seer")
    assert seer is not None
    assert seer.character
    plain = seer.with_keywords((), ("Character",))
    assert plain.keywords == ("Psyker",)
    assert not plain.character
    assert seer.with_keywords(("Battleline",), ("Battleline",)).battleline is False
    line = seer.with_keywords(("Battleline",))
    assert line.battleline
    assert line.with_keywords((), ("battleline",)).battleline is False  # names as keys
    assert seer.with_keywords((), ("Infantry",)) is seer  # nothing to remove: unchanged
    assert seer.with_keywords((), ("Riders",)) is seer  # Faction keywords are not changed
