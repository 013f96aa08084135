"""A choice the Detachment makes unavailable adds no keywords (issue 17, ruling D22): in a
Detachment other than the one the "Ace" choice belongs to, the tank that takes it is refused
the choice and judged as the plain vehicle it is, so the Character checks still see it."""

from __future__ import annotations

from app.engine.wh40k10e.army import (
    Catalogue,
    Datasheet,
    Detachment,
    Enhancement,
    KeywordRule,
    ModelProfile,
    ModelType,
    PointsTier,
    Restriction,
    RosterUnit,
    WargearChoice,
    WargearOption,
    export_text,
    validate,
)
from tests.engine.wh40k10e.army.test_choice_keywords import (
    ACE,
    FACTION,
    HUNT,
    OTHER,
    OUTSIDE_HUNT,
    roster,
)


def catalogue() -> Catalogue:
    tank = Datasheet(
        id="tank",
        name="Tank",
        faction_keywords=(FACTION,),
        keywords=("Vehicle",),
        profiles=(ModelProfile("Tank", '10"', 11, 3, 13, 6, 3),),
        models=(ModelType("Tank", 1, 1, "Tank"),),
        min_models=1,
        max_models=1,
        points=(PointsTier(1, 1, 150),),
        wargear_options=(WargearOption(ACE, "", (WargearChoice(ACE, keywords=("Character",)),)),),
        restrictions=(Restriction(OUTSIDE_HUNT, wargear=ACE, unavailable=True, entry=True),),
    )
    captain = Datasheet(
        id="captain",
        name="Captain",
        faction_keywords=(FACTION,),
        keywords=("Infantry", "Character"),
        character=True,
        profiles=(ModelProfile("Captain", '6"', 4, 3, 5, 6, 1),),
        models=(ModelType("Captain", 1, 1, "Captain"),),
        min_models=1,
        max_models=1,
        points=(PointsTier(1, 1, 80),),
    )
    relic = Enhancement("Old Relic", 20, OTHER, KeywordRule.has("Character"))
    return Catalogue(
        id="aces",
        name="Aces",
        version="1",
        factions=(FACTION,),
        datasheets=(tank, captain),
        detachments=(Detachment(HUNT, FACTION), Detachment(OTHER, FACTION, (relic,))),
    )


def test_an_unavailable_ace_gives_no_character_keyword() -> None:
    cat = catalogue()
    sheet = cat.datasheet("Tank")
    assert sheet is not None
    assert not cat.with_choices(sheet, {ACE: 1}, OTHER).character
    assert cat.with_choices(sheet, {ACE: 1}, OTHER) is sheet
    assert cat.with_choices(sheet, {ACE: 1}, HUNT).character
    assert cat.with_choices(sheet, {ACE: 1}).character  # no Detachment: not decided, kept


def test_an_unavailable_ace_does_not_let_the_tank_lead_the_army() -> None:
    ace = RosterUnit("Tank", wargear={ACE: 1}, warlord=True)
    cat = catalogue()
    found = sorted(v.message_id for v in validate(roster(ace, detachment=OTHER), cat).violations)
    assert found == ["no-character", "wargear-invalid.unavailable", "warlord-not-character"]
    assert [v.message_id for v in validate(roster(ace, detachment=HUNT), cat).violations] == []


def test_an_unavailable_ace_does_not_let_the_tank_take_an_enhancement() -> None:
    units = (
        RosterUnit("Captain", warlord=True),
        RosterUnit("Tank", wargear={ACE: 1}, enhancements=("Old Relic",)),
    )
    result = validate(roster(*units, detachment=OTHER), catalogue())
    found = sorted((v.message_id, v.unit) for v in result.violations)
    assert found == [("enhancement-not-character", 1), ("wargear-invalid.unavailable", 1)]


def test_the_text_export_lists_an_unavailable_ace_with_the_vehicles() -> None:
    units = (RosterUnit("Captain", warlord=True), RosterUnit("Tank", wargear={ACE: 1}))
    other = export_text(roster(*units, detachment=OTHER), catalogue())
    assert "\nOTHER DATASHEETS\n\nTank (150 points)\n" in other
    hunt = export_text(roster(*units, detachment=HUNT), catalogue())
    assert "OTHER DATASHEETS" not in hunt
    assert hunt.index("Tank (150 points)") > hunt.index("CHARACTERS")
