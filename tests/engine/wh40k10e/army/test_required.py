"""Requirements of the data on a unit's wargear (ruling D20): an option the unit must fill,
checked against the models of its type the unit certainly has, and a requirement that binds
while a condition holds."""

from __future__ import annotations

from dataclasses import replace

from app.engine.wh40k10e.army import (
    BattleSize,
    Compare,
    CountOf,
    Datasheet,
    ModelProfile,
    ModelType,
    PointsTier,
    Restriction,
    RestrictionSeverity,
    Roster,
    RosterCondition,
    RosterUnit,
    WargearChoice,
    WargearOption,
    validate,
)
from tests.engine.wh40k10e.army.conftest import MARINES, build_catalogue

GUNS = (WargearChoice("Flamer"), WargearChoice("Melta"))


def squad(*options: WargearOption, restrictions: tuple[Restriction, ...] = ()) -> Datasheet:
    """5-10 models: 1 Sergeant, 2-9 Gunners, 2-9 Troopers (the extra models go where B3 puts
    them: the roster does not say how many Gunners a unit of 10 has)."""
    return Datasheet(
        id="sq",
        name="Squad",
        faction_keywords=(MARINES,),
        keywords=("Infantry",),
        profiles=(ModelProfile("Trooper", '6"', 4, 3, 2, 6, 2),),
        models=(
            ModelType("Sergeant", 1, 1, "Trooper"),
            ModelType("Gunner", 2, 9, "Trooper"),
            ModelType("Trooper", 2, 9, "Trooper"),
        ),
        min_models=5,
        max_models=10,
        points=(PointsTier(5, 10, 100),),
        wargear_options=options,
        restrictions=restrictions,
    )


def warnings(
    sheet: Datasheet, models: int, wargear: dict[str, int], det: str = "Strike Force Alpha"
):  # type: ignore[no-untyped-def]
    base = build_catalogue()
    cat = replace(base, datasheets=(*base.datasheets, sheet), required_options=True)
    roster = Roster(
        faction=MARINES,
        detachment=det,
        battle_size=BattleSize.STRIKE_FORCE,
        units=(
            RosterUnit("Captain", warlord=True),
            RosterUnit("Squad", models=models, wargear=wargear),
        ),
    )
    return [
        (v.message_id, v.params.get("limit"), v.params.get("count"))
        for v in validate(roster, cat).violations
        if v.unit == 1
    ]


def test_each_certain_model_of_the_type_fills_the_option() -> None:
    per_gunner = squad(WargearOption("Gun", "Gunner", GUNS, min=1, max=1))
    # 5 models: 1 Sergeant, 2 Gunners, 2 Troopers: 2 guns needed
    assert warnings(per_gunner, 5, {}) == [("wargear-invalid.required", 2, 0)]
    assert warnings(per_gunner, 5, {"Flamer": 1}) == [("wargear-invalid.required", 2, 1)]
    assert warnings(per_gunner, 5, {"Flamer": 1, "Melta": 1}) == []
    # 10 models: the Gunners may be 2 to 9 (the Troopers take the rest): still 2 certain
    assert warnings(per_gunner, 10, {"Melta": 2}) == []


def test_a_default_or_a_model_type_that_may_be_absent_asks_nothing() -> None:
    defaulted = squad(WargearOption("Gun", "Gunner", GUNS, min=1, max=1, default="Flamer"))
    assert warnings(defaulted, 5, {}) == []
    optional = replace(
        squad(WargearOption("Gun", "Gunner", GUNS, min=1, max=1)),
        models=(
            ModelType("Sergeant", 1, 1, "Trooper"),
            ModelType("Gunner", 0, 9, "Trooper"),
            ModelType("Trooper", 0, 9, "Trooper"),
        ),
    )
    assert warnings(optional, 5, {}) == []
    unit_wide = squad(WargearOption("Banner", "", (WargearChoice("Banner"),), min=1, max=1))
    assert warnings(unit_wide, 10, {}) == [("wargear-invalid.required", 1, 0)]


def test_a_catalogue_imported_before_the_reading_is_not_checked() -> None:
    """Its option minimums are the raw data (a group inside a package, one its members fill):
    not requirements (ruling D20, D10)."""
    per_gunner = squad(WargearOption("Gun", "Gunner", GUNS, min=1, max=1))
    base = build_catalogue()
    assert not base.required_options
    cat = replace(base, datasheets=(*base.datasheets, per_gunner))
    roster = Roster(
        faction=MARINES,
        detachment="Strike Force Alpha",
        battle_size=BattleSize.STRIKE_FORCE,
        units=(RosterUnit("Captain", warlord=True), RosterUnit("Squad", models=5)),
    )
    assert validate(roster, cat).violations == ()


def test_a_requirement_while_a_condition_holds() -> None:
    in_siege = RosterCondition.count(CountOf.DETACHMENT, Compare.AT_LEAST, 1, "Siege Cohort")
    rule = Restriction(
        when=in_siege,
        severity=RestrictionSeverity.WARNING,
        wargear="Siege kit",
        required=1,
        choices=("Siege kit",),
    )
    kit = squad(WargearOption("Siege kit", "", (WargearChoice("Siege kit"),)), restrictions=(rule,))
    assert warnings(kit, 5, {}) == []
    assert warnings(kit, 5, {}, det="Siege Cohort") == [("wargear-invalid.required-while", 1, 0)]
    assert warnings(kit, 5, {"Siege kit": 1}, det="Siege Cohort") == []
