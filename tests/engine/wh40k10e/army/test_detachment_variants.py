"""What a detachment changes on a datasheet (the data's modifiers, read on import): whether it
may be taken, its keywords (Battleline), its limit of copies, its points; and the data's own
limit of copies instead of the one the keywords imply."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from app.engine.wh40k10e.army import (
    Catalogue,
    Code,
    DetachmentVariant,
    PointsTier,
    Roster,
    RosterUnit,
    load_catalogues,
    validate,
)
from app.engine.wh40k10e.army.catalog import SCHEMA_VERSION, dump_catalogues

ALPHA, SIEGE = "Strike Force Alpha", "Siege Cohort"


def with_tank(catalogue: Catalogue, **changes: object) -> Catalogue:
    sheets = tuple(
        replace(d, **changes) if d.id == "tank" else d  # type: ignore[arg-type]
        for d in catalogue.datasheets
    )
    return replace(catalogue, datasheets=sheets)


def tanks(make_roster: Callable[..., Roster], count: int, detachment: str) -> Roster:
    units = [RosterUnit("Captain", warlord=True), *[RosterUnit("Battle Tank")] * count]
    return make_roster(*units, detachment=detachment)


def test_a_detachment_makes_a_unit_battleline(
    catalogue: Catalogue, make_roster: Callable[..., Roster]
) -> None:
    cat = with_tank(
        catalogue,
        variants=(DetachmentVariant(SIEGE, keywords=("Vehicle", "Battleline"), max_in_roster=6),),
    )
    siege = validate(tanks(make_roster, 4, SIEGE), cat)
    alpha = validate(tanks(make_roster, 4, ALPHA), cat)
    assert siege.valid, [v.message for v in siege.violations]
    assert [v.code for v in alpha.violations] == [Code.DATASHEET_LIMIT_EXCEEDED]
    assert alpha.violations[0].params["limit"] == 3
    tank = cat.datasheet("Battle Tank")
    assert tank is not None
    assert cat.datasheet_in(tank, SIEGE).battleline
    assert not cat.datasheet_in(tank, ALPHA).battleline
    assert cat.datasheet_in(tank, SIEGE) is cat.datasheet_in(tank, SIEGE)  # made once


def test_a_detachment_changes_the_points(
    catalogue: Catalogue, make_roster: Callable[..., Roster]
) -> None:
    cat = with_tank(
        catalogue, variants=(DetachmentVariant(SIEGE, points=(PointsTier(1, 1, 170),)),)
    )
    assert validate(tanks(make_roster, 1, SIEGE), cat).points == 80 + 170
    assert validate(tanks(make_roster, 1, ALPHA), cat).points == 80 + 200


def test_a_unit_the_detachment_excludes(
    catalogue: Catalogue, make_roster: Callable[..., Roster]
) -> None:
    cat = with_tank(catalogue, variants=(DetachmentVariant(ALPHA, available=False),))
    res = validate(tanks(make_roster, 1, ALPHA), cat)
    assert [v.code for v in res.violations] == [Code.DATASHEET_NOT_IN_DETACHMENT]
    assert res.violations[0].unit == 1
    assert "Siege Cohort" in res.violations[0].fix
    assert validate(tanks(make_roster, 1, SIEGE), cat).valid


def test_the_datas_own_limit_wins_over_the_keywords(
    catalogue: Catalogue, make_roster: Callable[..., Roster]
) -> None:
    one = with_tank(catalogue, max_in_roster=1)
    res = validate(tanks(make_roster, 2, ALPHA), one)
    assert [v.code for v in res.violations] == [Code.DATASHEET_LIMIT_EXCEEDED]
    assert res.violations[0].params["limit"] == 1
    assert validate(tanks(make_roster, 3, ALPHA), catalogue).valid  # the core rule: 3


def test_variants_round_trip_and_version_1_documents_still_load(catalogue: Catalogue) -> None:
    cat = with_tank(
        catalogue,
        max_in_roster=3,
        variants=(DetachmentVariant(SIEGE, keywords=("Vehicle", "Battleline"), max_in_roster=6),),
    )
    document = dump_catalogues([cat])
    assert document["schema_version"] == SCHEMA_VERSION == 2
    (back,) = load_catalogues(document)
    assert back == cat
    old = dump_catalogues([catalogue])
    old["schema_version"] = 1
    for item in old["catalogues"]:  # type: ignore[union-attr]
        item["schema_version"] = 1  # type: ignore[index]
    (legacy,) = load_catalogues(old)
    assert legacy == catalogue
    tank = legacy.datasheet("Battle Tank")
    assert tank is not None
    assert tank.max_in_army == 3
    assert legacy.datasheet_in(tank, SIEGE) is tank
