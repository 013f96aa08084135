"""Roster conditions of the data (what a restriction counts, how it is worded) and the list's
Legends setting: the engine side of rulings D11 and D12."""

from __future__ import annotations

from dataclasses import replace

import pytest

from app.engine.wh40k10e.army import (
    ArmyFacts,
    ArmyLimit,
    BattleSize,
    CatalogueError,
    Compare,
    ConditionOp,
    CountOf,
    LimitStep,
    LimitStepKind,
    Roster,
    RosterCondition,
    RosterError,
    RosterUnit,
    UnitFacts,
)


def unit_facts(models: int = 5, **wargear: int) -> UnitFacts:
    return UnitFacts(models=models, wargear=wargear, keywords=("Infantry", "Testers"))


ARMY = ArmyFacts(
    units={"squad": 3, "chief": 1},
    keywords={"infantry": 3, "character": 1},
    warlords=1,
    enhancements={"old relic": 1},
    detachment="Second Host",
    battle_size="Strike Force",
    points_limit=2000,
    keyword_points={"infantry": 270, "character": 80},
)


@pytest.mark.parametrize(
    ("compare", "count", "value", "expected"),
    [
        (Compare.AT_LEAST, 2, 2, True),
        (Compare.AT_LEAST, 1, 2, False),
        (Compare.AT_MOST, 2, 2, True),
        (Compare.AT_MOST, 3, 2, False),
        (Compare.MORE_THAN, 2, 2, False),
        (Compare.MORE_THAN, 3, 2, True),
        (Compare.FEWER_THAN, 1, 2, True),
        (Compare.FEWER_THAN, 2, 2, False),
        (Compare.EQUAL, 2, 2, True),
        (Compare.EQUAL, 1, 2, False),
        (Compare.NOT_EQUAL, 1, 2, True),
        (Compare.NOT_EQUAL, 2, 2, False),
    ],
)
def test_comparisons(compare: Compare, count: int, value: int, expected: bool) -> None:
    assert compare.holds(count, value) is expected


@pytest.mark.parametrize(
    ("of", "name", "counted"),
    [
        (CountOf.MODELS, "", 7),
        (CountOf.WARGEAR, "Heavy Gun", 2),  # names compared leniently
        (CountOf.WARGEAR, "Flamer", 0),
        (CountOf.UNIT_KEYWORD, "infantry", 1),
        (CountOf.UNIT_KEYWORD, "Vehicle", 0),
        (CountOf.UNITS, "Squad", 3),
        (CountOf.UNITS, "Tank", 0),
        (CountOf.KEYWORD, "Character", 1),
        (CountOf.WARLORD, "", 1),
        (CountOf.ENHANCEMENT, "Old Relic", 1),
        (CountOf.DETACHMENT, "second host", 1),
        (CountOf.DETACHMENT, "First Host", 0),
        (CountOf.KEYWORD_POINTS, "Infantry", 270),
        (CountOf.KEYWORD_POINTS, "Vehicle", 0),
        (CountOf.BATTLE_SIZE, "strike force", 1),
        (CountOf.BATTLE_SIZE, "Onslaught", 0),
    ],
)
def test_what_each_count_reads(of: CountOf, name: str, counted: int) -> None:
    cond = RosterCondition.count(of, Compare.AT_LEAST, 0, name)
    assert cond.counted(unit_facts(7, **{"heavy gun": 2}), ARMY) == counted


def test_a_wargear_count_adds_up_the_items_of_one_option() -> None:
    cond = RosterCondition(
        ConditionOp.COUNT,
        of=CountOf.WARGEAR,
        name="Special weapons",
        compare=Compare.MORE_THAN,
        value=1,
        names=("Flamer", "Melta"),
    )
    assert cond.holds(unit_facts(Flamer=1, Melta=1), ARMY)
    assert not cond.holds(unit_facts(Flamer=1), ARMY)
    assert str(cond) == "more than 1 × Special weapons in the unit"


def test_all_and_any_and_their_wording() -> None:
    few = RosterCondition.count(CountOf.MODELS, Compare.FEWER_THAN, 10)
    guns = RosterCondition.count(CountOf.WARGEAR, Compare.MORE_THAN, 1, "Gun")
    both = RosterCondition(ConditionOp.ALL, args=(few, guns))
    either = RosterCondition(ConditionOp.ANY, args=(both, guns))
    assert both.holds(unit_facts(5, Gun=2), ARMY)
    assert not both.holds(unit_facts(10, Gun=2), ARMY)
    assert either.holds(unit_facts(10, Gun=2), ARMY)
    assert not either.holds(unit_facts(5, Gun=1), ARMY)
    assert str(either) == (
        "(fewer than 10 models in the unit and more than 1 × Gun in the unit) or "
        "more than 1 × Gun in the unit"
    )
    assert str(RosterCondition.count(CountOf.WARLORD, Compare.FEWER_THAN, 1)) == (
        "fewer than 1 Warlord(s) in the army"
    )
    assert str(RosterCondition.count(CountOf.DETACHMENT, Compare.FEWER_THAN, 1, "Host")) == (
        "the Detachment is not Host"
    )
    assert str(RosterCondition.count(CountOf.UNIT_KEYWORD, Compare.AT_LEAST, 1, "Psyker")) == (
        "the unit is Psyker"
    )


def test_malformed_conditions_are_refused() -> None:
    with pytest.raises(CatalogueError):
        RosterCondition(ConditionOp.ALL)
    with pytest.raises(CatalogueError):
        RosterCondition(ConditionOp.COUNT)
    with pytest.raises(CatalogueError):
        RosterCondition.count(CountOf.MODELS, Compare.AT_LEAST, -1)
    with pytest.raises(CatalogueError):
        RosterCondition(
            ConditionOp.COUNT, of=CountOf.WARGEAR, names=tuple(f"w{i}" for i in range(51))
        )


def test_the_legends_setting_is_off_by_default_and_round_trips() -> None:
    base = {"faction": "Testers", "detachment": "Host", "battle_size": "strike-force"}
    assert Roster.from_dict(base).include_legends is False
    on = Roster(
        "Testers", "Host", BattleSize.STRIKE_FORCE, (RosterUnit("A"),), include_legends=True
    )
    assert on.to_dict()["include_legends"] is True
    assert Roster.from_dict(on.to_dict()) == on
    with pytest.raises(RosterError):
        Roster.from_dict({**base, "include_legends": "yes"})


def _in(size: str) -> RosterCondition:
    return RosterCondition.count(CountOf.BATTLE_SIZE, Compare.AT_LEAST, 1, size)


def test_the_battle_size_and_keyword_points_are_worded() -> None:
    assert str(_in("Onslaught")) == "the battle size is Onslaught"
    below = RosterCondition.count(CountOf.BATTLE_SIZE, Compare.FEWER_THAN, 1, "Onslaught")
    assert str(below) == "the battle size is not Onslaught"
    pts = RosterCondition.count(CountOf.KEYWORD_POINTS, Compare.MORE_THAN, 500, "Allies")
    assert str(pts) == "more than 500 points of Allies units in the army"


def test_an_army_limit_applies_its_steps_in_order() -> None:
    # 1 / 2 / 3 by battle size, one more with a Character, none at all with 4+ infantry units
    lim = ArmyLimit(
        "Infantry",
        base=0,
        steps=(
            LimitStep(LimitStepKind.SET, 1, _in("Incursion")),
            LimitStep(LimitStepKind.SET, 2, _in("Strike Force")),
            LimitStep(LimitStepKind.SET, 3, _in("Onslaught")),
            LimitStep(
                LimitStepKind.INCREMENT,
                1,
                RosterCondition.count(CountOf.KEYWORD, Compare.AT_LEAST, 1, "Character"),
            ),
            LimitStep(
                LimitStepKind.SET,
                -1,
                RosterCondition.count(CountOf.KEYWORD, Compare.AT_LEAST, 4, "Infantry"),
            ),
        ),
    )
    assert lim.value(ARMY) == 3  # Strike Force 2, + 1 for the Character
    assert lim.counted(ARMY) == 3
    assert lim.value(replace(ARMY, battle_size="Incursion", keywords={"infantry": 3})) == 1
    assert lim.value(replace(ARMY, keywords={"infantry": 4, "character": 1})) is None
    points = ArmyLimit("Infantry", base=250, points=True)
    assert (points.value(ARMY), points.counted(ARMY)) == (250, 270)
    assert ArmyLimit("Infantry", base=-1).value(ARMY) is None


def test_an_army_limit_is_bounded() -> None:
    with pytest.raises(CatalogueError):
        ArmyLimit("", base=1)
    with pytest.raises(CatalogueError):
        ArmyLimit("Infantry", base=-2)
    with pytest.raises(CatalogueError):
        ArmyLimit("Infantry", base=1, steps=(LimitStep(LimitStepKind.SET, 1),) * 51)
