"""Keywords a wargear choice adds to the unit that takes it (ruling D22) and the data's limit on
a choice in the whole army (ruling D23), on a small hand-built catalogue: a tank made a
Character by an "Ace" choice may take an Enhancement of a Detachment that offers them to
Characters only, and be the Warlord; the same tank without the choice may not."""

from __future__ import annotations

import pytest

from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Compare,
    CountOf,
    Datasheet,
    Detachment,
    Enhancement,
    KeywordRule,
    ModelProfile,
    ModelType,
    PointsTier,
    Restriction,
    Roster,
    RosterCondition,
    RosterUnit,
    WargearChoice,
    WargearOption,
    validate,
)
from app.engine.wh40k10e.army.catalog import CatalogueError
from app.engine.wh40k10e.army.offer import unavailable_choices

FACTION = "Test Marines"
HUNT = "Hunting Party"
OTHER = "Line Company"
ACE = "Ace Crew"
OUTSIDE_HUNT = RosterCondition.count(CountOf.DETACHMENT, Compare.FEWER_THAN, 1, HUNT)


def _tank(id_: str, name: str) -> Datasheet:
    return Datasheet(
        id=id_,
        name=name,
        faction_keywords=(FACTION,),
        keywords=("Vehicle",),
        profiles=(ModelProfile(name, '10"', 11, 3, 13, 6, 3),),
        models=(ModelType(name, 1, 1, name),),
        min_models=1,
        max_models=1,
        points=(PointsTier(1, 1, 150),),
        wargear_options=(
            WargearOption(ACE, "", (WargearChoice(ACE, keywords=("Character",), max_in_roster=2),)),
        ),
        restrictions=(Restriction(OUTSIDE_HUNT, wargear=ACE, unavailable=True, entry=True),),
    )


def catalogue() -> Catalogue:
    tanks = tuple(_tank(f"tank{i}", f"Tank {i}") for i in range(1, 4))
    vehicle_honours = Enhancement(
        "Honoured Hull", 20, HUNT, KeywordRule.has("Character"), characters_only=False
    )
    return Catalogue(
        id="aces",
        name="Aces",
        version="1",
        factions=(FACTION,),
        datasheets=tanks,
        detachments=(Detachment(HUNT, FACTION, (vehicle_honours,)), Detachment(OTHER, FACTION)),
    )


def roster(*units: RosterUnit, detachment: str = HUNT) -> Roster:
    return Roster(FACTION, detachment, BattleSize.STRIKE_FORCE, units)


def codes(r: Roster) -> list[str]:
    return sorted(v.message_id for v in validate(r, catalogue()).violations)


def test_an_ace_is_a_character_that_takes_the_enhancement_and_leads_the_army() -> None:
    ace = RosterUnit("Tank 1", wargear={ACE: 1}, enhancements=("Honoured Hull",), warlord=True)
    result = validate(roster(ace, RosterUnit("Tank 2")), catalogue())
    assert result.violations == ()
    assert result.points == 150 + 20 + 150  # the choice costs nothing here


def test_the_same_tank_without_the_choice_is_refused_the_enhancement_and_the_warlord() -> None:
    plain = RosterUnit("Tank 1", enhancements=("Honoured Hull",), warlord=True)
    assert codes(roster(plain)) == [
        "enhancement-not-eligible",
        "no-character",
        "warlord-not-character",
    ]


def test_the_choice_is_refused_outside_its_detachment_and_not_offered_there() -> None:
    ace = RosterUnit("Tank 1", wargear={ACE: 1}, warlord=True)
    result = validate(roster(ace, detachment=OTHER), catalogue())
    # refused, and the tank is judged without it: no Character, so no Warlord (issue 17)
    assert sorted(v.message_id for v in result.violations) == [
        "no-character",
        "wargear-invalid.unavailable",
        "warlord-not-character",
    ]
    sheet = catalogue().datasheet("Tank 1")
    assert sheet is not None
    assert unavailable_choices(sheet, OTHER) == frozenset({"ace crew"})
    assert unavailable_choices(sheet, HUNT) == frozenset()


def test_the_army_takes_the_choice_at_most_as_often_as_the_data_allows() -> None:
    units = [RosterUnit(f"Tank {i}", wargear={ACE: 1}) for i in (1, 2, 3)]
    units[0] = RosterUnit("Tank 1", wargear={ACE: 1}, warlord=True)
    result = validate(roster(*units), catalogue())
    [found] = result.violations
    assert found.message_id == "wargear-invalid.roster"
    assert found.unit == 2  # the first unit past the limit
    assert found.params["count"] == 3
    assert found.params["limit"] == 2
    assert "Tank 3 (#3)" in found.message
    assert validate(roster(*units[:2]), catalogue()).violations == ()


def test_keywords_added_set_the_flags_and_survive_the_catalogue_document() -> None:
    cat = catalogue()
    sheet = cat.datasheet("Tank 1")
    assert sheet is not None
    assert not sheet.character
    ace = cat.with_choices(sheet, {ACE: 1})
    assert ace.character
    assert ace.keywords == ("Vehicle", "Character")
    assert cat.with_choices(sheet, {ACE: 0}) is sheet  # not taken: unchanged
    assert cat.with_choices(sheet, {}) is sheet
    back = Catalogue.from_dict(cat.to_dict())
    choice = back.datasheets[0].wargear_options[0].choices[0]
    assert (choice.keywords, choice.max_in_roster) == (("Character",), 2)


@pytest.mark.parametrize(
    ("kwargs", "field_name"),
    [({"keywords": ("",)}, "keywords[0]"), ({"max_in_roster": -1}, "max_in_roster")],
)
def test_bad_choice_values_are_refused(kwargs: dict[str, object], field_name: str) -> None:
    with pytest.raises(CatalogueError) as info:
        WargearChoice("Ace", **kwargs)  # type: ignore[arg-type]
    assert info.value.field == field_name


def test_validating_again_reuses_the_variant_a_choice_makes() -> None:
    """A datasheet changed by a taken choice is one object however often the list is validated:
    the validator keeps its readings of a datasheet by identity, and a new copy per validation
    made a new reading each time, up to the cache's bound (review of issue 17)."""
    import importlib

    validate_module = importlib.import_module("app.engine.wh40k10e.army.validate")

    cat = catalogue()
    tank = cat.datasheet("Tank 1")
    assert tank is not None
    ace = tank.with_keywords(["Character"])
    assert ace is not tank
    assert ace.character
    assert tank.with_keywords(["Character"]) is ace
    unit = RosterUnit("Tank 1", wargear={ACE: 1}, enhancements=("Honoured Hull",), warlord=True)
    r = roster(unit)
    assert validate(r, cat).violations == ()
    kept = len(validate_module._SHEET_KEYS)
    for _ in range(20):
        assert validate(r, cat).violations == ()
    assert len(validate_module._SHEET_KEYS) == kept
