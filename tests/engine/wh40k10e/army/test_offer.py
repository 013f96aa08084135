"""What the builder offers (app/engine/wh40k10e/army/offer.py): choices the data hides on a
unit by its own keywords or the Detachment are decided where they are offered (issue 17), and
allies are neither Warlords where the data hides their Warlord entry nor given Enhancements
(ruling D19)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine.wh40k10e.army import (
    ArmyLimit,
    BattleSize,
    Catalogue,
    Compare,
    ConditionOp,
    CountOf,
    Datasheet,
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
from app.engine.wh40k10e.army.offer import decided, unavailable_choices
from tests.engine.wh40k10e.army.conftest import MARINES, build_catalogue

PSYKER = RosterCondition.count(CountOf.UNIT_KEYWORD, Compare.AT_LEAST, 1, "Psyker")
NOT_PSYKER = RosterCondition.count(CountOf.UNIT_KEYWORD, Compare.FEWER_THAN, 1, "Psyker")
IN_SIEGE = RosterCondition.count(CountOf.DETACHMENT, Compare.AT_LEAST, 1, "Siege Cohort")
BIG = RosterCondition.count(CountOf.MODELS, Compare.AT_LEAST, 5)


def sheet(keywords: tuple[str, ...], *restrictions: Restriction) -> Datasheet:
    choices = tuple(WargearChoice(n) for n in ("Staff", "Axe", "Gun", "Bomb"))
    return Datasheet(
        id="hero",
        name="Hero",
        faction_keywords=(MARINES,),
        keywords=keywords,
        profiles=(ModelProfile("Hero", '6"', 4, 3, 5, 6, 1),),
        models=(ModelType("Hero", 1, 1, "Hero"),),
        min_models=1,
        max_models=1,
        points=(PointsTier(1, 1, 50),),
        wargear_options=(WargearOption("Weapon", "Hero", choices),),
        character=True,
        restrictions=restrictions,
    )


def hides(wargear: str, when: RosterCondition) -> Restriction:
    return Restriction(when=when, wargear=wargear, unavailable=True, entry=True)


def test_decided_is_three_valued() -> None:
    psyker = frozenset({"psyker"})
    assert decided(PSYKER, psyker, None) is True
    assert decided(NOT_PSYKER, psyker, None) is False
    assert decided(IN_SIEGE, psyker, None) is None  # no Detachment chosen yet
    assert decided(IN_SIEGE, psyker, "Siege Cohort") is True
    assert decided(IN_SIEGE, psyker, "Strike Force Alpha") is False
    assert decided(BIG, psyker, None) is None  # what the unit takes: not known
    both = RosterCondition(ConditionOp.ALL, args=(NOT_PSYKER, BIG))
    either = RosterCondition(ConditionOp.ANY, args=(PSYKER, BIG))
    assert decided(both, psyker, None) is False  # one member false decides an "and"
    assert decided(both, frozenset(), None) is None
    assert decided(either, psyker, None) is True  # one member true decides an "or"
    assert decided(either, frozenset(), None) is None


def test_choices_hidden_by_the_units_keywords_are_not_offered() -> None:
    rules = (
        hides("Staff", NOT_PSYKER),  # a psyker's staff
        hides("Axe", PSYKER),  # not for a psyker
        hides("Gun", RosterCondition(ConditionOp.ALL, args=(NOT_PSYKER, BIG))),
        hides("Bomb", IN_SIEGE),
        # a restriction that is not a hidden choice is never used to withhold one
        Restriction(when=NOT_PSYKER, wargear="Gun"),
    )
    plain = sheet(("Character", "Infantry"), *rules)
    assert unavailable_choices(plain) == {"staff"}
    assert unavailable_choices(plain, "Siege Cohort") == {"staff", "bomb"}
    psyker = sheet(("Character", "Infantry", "Psyker"), *rules)
    assert unavailable_choices(psyker) == {"axe"}
    # what the builder withholds, the validator refuses: never a choice it would accept
    cat = replace(build_catalogue(), datasheets=(plain,))
    roster = Roster(
        faction=MARINES,
        battle_size=BattleSize.STRIKE_FORCE,
        detachment="Siege Cohort",
        units=(RosterUnit("Hero", warlord=True, wargear={"Staff": 1}),),
    )
    found = [(v.code.value, v.message_id) for v in validate(roster, cat).errors]
    assert found == [("wargear-invalid", "wargear-invalid.unavailable")]
    taken_axe = replace(roster, units=(RosterUnit("Hero", warlord=True, wargear={"Axe": 1}),))
    assert validate(taken_axe, cat).valid


# -- allies: Warlord and Enhancements (ruling D19) -----------------------------------------


@pytest.fixture(scope="module")
def with_allies() -> Catalogue:
    base = build_catalogue()
    agent = replace(
        sheet(("Character", "Infantry", "Assigned Agent")),
        id="agent",
        name="Agent",
        faction_keywords=("Agents",),
        wargear_options=(),
    )
    knight = replace(agent, id="knight", name="Knight", keywords=("Character", "Knight Ally"))
    knight = replace(knight, no_warlord=True)
    return replace(
        base,
        datasheets=(*base.datasheets, agent, knight),
        limits=(ArmyLimit("Assigned Agent", 2), ArmyLimit("Knight Ally", 1)),
    )


def codes(cat: Catalogue, *units: RosterUnit) -> list[tuple[str, str, int | None]]:
    roster = Roster(
        faction=MARINES,
        battle_size=BattleSize.STRIKE_FORCE,
        detachment="Strike Force Alpha",
        units=units,
    )
    return [(v.code.value, v.message_id, v.unit) for v in validate(roster, cat).errors]


def test_an_ally_whose_warlord_entry_the_data_hides_cannot_be_the_warlord(
    with_allies: Catalogue,
) -> None:
    assert codes(with_allies, RosterUnit("Captain"), RosterUnit("Knight", warlord=True)) == [
        ("warlord-not-eligible", "warlord-not-eligible", 1)
    ]
    # an ally whose Warlord entry the data offers may be (the data's reading, D19)
    assert codes(with_allies, RosterUnit("Captain"), RosterUnit("Agent", warlord=True)) == []
    assert codes(with_allies, RosterUnit("Captain", warlord=True), RosterUnit("Knight")) == []
    result = validate(
        Roster(
            faction=MARINES,
            battle_size=BattleSize.STRIKE_FORCE,
            detachment="Strike Force Alpha",
            units=(RosterUnit("Captain"), RosterUnit("Knight", warlord=True)),
        ),
        with_allies,
    )
    (v,) = result.errors
    assert v.message == (
        "Knight (#2) cannot be the Warlord of a Test Marines army: the catalogue offers it "
        "as an ally only."
    )
    assert v.fix == "Mark a Test Marines Character as the Warlord instead."


def test_an_ally_cannot_take_an_enhancement(with_allies: Catalogue) -> None:
    found = codes(
        with_allies,
        RosterUnit("Captain", warlord=True),
        RosterUnit("Agent", enhancements=("Banner of Haste",)),
    )
    assert found == [("enhancement-not-eligible", "enhancement-not-eligible.ally", 1)]
    roster = Roster(
        faction=MARINES,
        battle_size=BattleSize.STRIKE_FORCE,
        detachment="Strike Force Alpha",
        units=(
            RosterUnit("Captain", warlord=True),
            RosterUnit("Agent", enhancements=("Banner of Haste",)),
        ),
    )
    (v,) = validate(roster, with_allies).errors
    assert v.message == "Agent (#2) is an allied unit and cannot take Banner of Haste."
    assert v.fix == "Give Banner of Haste to a Test Marines Character instead."
    # the Army Faction's own Character takes it
    assert (
        codes(with_allies, RosterUnit("Captain", warlord=True, enhancements=("Banner of Haste",)))
        == []
    )
