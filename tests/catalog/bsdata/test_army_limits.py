"""The battle size and a category's own constraints (rulings D1, M12): on the tiny
hand-written files of :mod:`army_limit_files`, then on the real data, with the numbers read
from the files by hand (their line or id is cited)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.catalog.bsdata import import_files
from app.catalog.bsdata.census import census_of
from app.catalog.bsdata.files import Budget, ImportLimits, read_document
from app.engine.wh40k10e.army import (
    ArmyLimit,
    BattleSize,
    Catalogue,
    LimitStepKind,
    Roster,
    RosterUnit,
    validate,
)
from tests.catalog.bsdata.army_limit_files import FILES

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"

LORD = RosterUnit("Lord", warlord=True)


@pytest.fixture(scope="module")
def wardens() -> Catalogue:
    result = import_files(FILES)
    assert result.ok
    (catalogue,) = result.catalogues
    return catalogue


def roster(size: BattleSize, *units: RosterUnit) -> Roster:
    return Roster(
        faction="Wardens", detachment="Wall Watch", battle_size=size, units=(LORD, *units)
    )


def errors(r: Roster, catalogue: Catalogue) -> list[tuple[str, int | None, str]]:
    return [(v.code.value, v.unit, v.message_id) for v in validate(r, catalogue).errors]


def limit(catalogue: Catalogue, keyword: str) -> ArmyLimit:
    return next(x for x in catalogue.limits if x.keyword == keyword)


def test_the_limits_read(wardens: Catalogue) -> None:
    # Sentinel's limit (3) is no looser than the core rule's for its only datasheet: not read
    # twice; Drifter's needs a "count" group: left out.
    assert {x.keyword for x in wardens.limits} == {"Hired Blades", "Retainer", "Relic Guard"}
    hired = limit(wardens, "Hired Blades")
    assert (hired.points, hired.base) == (True, -1)
    assert [(s.kind, s.amount, str(s.when)) for s in hired.steps] == [
        (LimitStepKind.SET, 100, "the battle size is Incursion"),
        (LimitStepKind.SET, 200, "the battle size is Strike Force"),
        (LimitStepKind.SET, 300, "the battle size is Onslaught"),
    ]
    retainer = limit(wardens, "Retainer")
    # the Crusade force's "set -1" is decided false in a matched-play list: dropped
    assert [s.kind for s in retainer.steps] == [LimitStepKind.SET] * 3 + [LimitStepKind.INCREMENT]
    assert str(retainer.steps[3].when) == "at least 1 Patron unit(s) in the army"
    assert limit(wardens, "Relic Guard") == ArmyLimit("Relic Guard", 1)


def test_allies_points_by_battle_size(wardens: Catalogue) -> None:
    # Sellswords 90, Duelist 45: 225 points of Hired Blades; 100 / 200 / 300 allowed.
    hired = (RosterUnit("Sellswords"), RosterUnit("Sellswords"), RosterUnit("Duelist"))
    over = ("category-limit-exceeded", 3, "category-limit-exceeded.points")
    assert errors(roster(BattleSize.STRIKE_FORCE, *hired), wardens) == [over]
    assert errors(roster(BattleSize.INCURSION, *hired), wardens) == [over]
    assert errors(roster(BattleSize.ONSLAUGHT, *hired), wardens) == []
    result = validate(roster(BattleSize.INCURSION, *hired), wardens)
    (v,) = result.errors
    assert (v.params["count"], v.params["limit"], v.params["excess"]) == (225, 100, 125)
    # no single unit is worth 125 points: the fix names the costliest one
    assert v.fix == "Remove 125 points of Hired Blades units, e.g. Sellswords (#3)."
    two = (RosterUnit("Sellswords"), RosterUnit("Duelist"))  # 135 points
    assert errors(roster(BattleSize.STRIKE_FORCE, *two), wardens) == []
    # Strike Force, 225 - 200 = 25: the cheapest unit that clears it alone
    (sf,) = validate(roster(BattleSize.STRIKE_FORCE, *hired), wardens).errors
    assert sf.fix == "Remove 25 points of Hired Blades units, e.g. Duelist (#4)."


def test_a_count_by_battle_size_raised_by_another_unit(wardens: Catalogue) -> None:
    squires = [RosterUnit("Squire")] * 3
    over = ("category-limit-exceeded", 3, "category-limit-exceeded")
    assert errors(roster(BattleSize.STRIKE_FORCE, *squires), wardens) == [over]
    assert errors(roster(BattleSize.ONSLAUGHT, *squires), wardens) == []
    patron = RosterUnit("Patron")
    # 2 in Strike Force, one more with a Patron
    assert errors(roster(BattleSize.STRIKE_FORCE, patron, *squires), wardens) == []
    # 1 in Incursion, 2 with the Patron: 3 Squires are one too many
    (v,) = validate(roster(BattleSize.INCURSION, patron, *squires), wardens).errors
    assert (v.params["count"], v.params["limit"], v.unit) == (3, 2, 4)
    assert v.message == (
        "3 Retainer units in the army: the catalogue allows at most 2 in Incursion."
    )
    assert v.fix == "Remove 1 Retainer unit(s), e.g. Squire (#5)."


def test_a_fixed_limit_two_datasheets_share(wardens: Catalogue) -> None:
    both = (RosterUnit("Relic Bearer"), RosterUnit("Relic Keeper"))
    for size in BattleSize:
        assert errors(roster(size, *both), wardens) == [
            ("category-limit-exceeded", 2, "category-limit-exceeded")
        ]
    assert errors(roster(BattleSize.STRIKE_FORCE, both[0]), wardens) == []


def test_a_datasheet_hidden_below_onslaught(wardens: Catalogue) -> None:
    bastion = RosterUnit("Bastion")
    refused = ("data-restriction", 1, "data-restriction.unavailable")
    assert errors(roster(BattleSize.STRIKE_FORCE, bastion), wardens) == [refused]
    assert errors(roster(BattleSize.INCURSION, bastion), wardens) == [refused]
    assert errors(roster(BattleSize.ONSLAUGHT, bastion), wardens) == []
    (v,) = validate(roster(BattleSize.STRIKE_FORCE, bastion), wardens).errors
    assert v.params["condition"] == "the battle size is not Onslaught"


def test_the_limits_survive_the_stored_form(wardens: Catalogue) -> None:
    again = Catalogue.from_dict(wardens.to_dict())
    assert again.limits == wardens.limits


def test_census_counts_battle_sizes_when_validating() -> None:
    limits = ImportLimits()
    budget = Budget.of(limits)
    census = census_of([read_document(n, d, limits, budget) for n, d in FILES])
    sizes = census.kinds["the battle size"]
    # Hired Blades 3, Retainer 3, Bastion 1 are kept for the validator; Drifter's one sits in
    # a "count" group this reading does not express.
    assert (sizes.total, sizes.when_validating, sizes.undecided) == (8, 7, 1)
    other = census.kinds["other selections in the roster"]
    assert (other.total, other.when_validating) == (1, 1)  # the Retainer's Patron


# -- the real data ---------------------------------------------------------------------------

CSM_FILES = (
    ("bsdata-wh40k-10e", "Warhammer 40,000.gst"),
    ("bsdata-wh40k-10e-more", "Chaos - Chaos Space Marines.cat"),
    ("bsdata-wh40k-10e-more", "Chaos - Chaos Daemons Library.cat"),
    ("bsdata-wh40k-10e-more", "Chaos - Chaos Knights Library.cat"),
    ("bsdata-wh40k-10e", "Library - Astartes Heresy Legends.cat"),
    ("bsdata-wh40k-10e", "Library - Titans.cat"),
    ("bsdata-wh40k-10e", "Unaligned Forces.cat"),
)


@pytest.fixture(scope="module")
def csm() -> Catalogue:
    if not (DATA / "bsdata-wh40k-10e-more").is_dir():
        pytest.skip(f"the BSData files are not present at {DATA}")
    files = [(name, (DATA / folder / name).read_bytes()) for folder, name in CSM_FILES]
    result = import_files(files)
    return next(c for c in result.catalogues if c.name == "Chaos - Chaos Space Marines")


def test_chaos_space_marines_cult_units_by_battle_size(csm: Catalogue) -> None:
    # Chaos - Chaos Space Marines.cat, category "Cults of the Dark Gods" (c536-60f4-afed-45ff,
    # line 70): at most 0 points in the force (constraint b9a6-1702-143b-322e), set to 250 /
    # 500 / 750 by the battle size entries of the game system (d62d-db22-4893-4bc0 Incursion,
    # baf8-997f-e323-a090 Strike Force, 4204-82d0-908c-a62a Onslaught). Noise Marines
    # (371f-09ee-951e-88b3) link it and cost 145 points with no points modifier: two are 290.
    # Before: accepted in Incursion.
    cults = limit(csm, "Cults of the Dark Gods")
    assert (cults.points, cults.base) == (True, 0)
    assert [s.amount for s in cults.steps] == [250, 500, 750]
    det = csm.detachments_of("Heretic Astartes")[0].name
    units = (RosterUnit("Chaos Lord", warlord=True), RosterUnit("Noise Marines"))

    def check(size: BattleSize, *more: RosterUnit) -> list[tuple[str, int | None, str]]:
        r = Roster(
            faction="Heretic Astartes", detachment=det, battle_size=size, units=(*units, *more)
        )
        return errors(r, csm)

    two = RosterUnit("Noise Marines")
    assert check(BattleSize.INCURSION, two) == [
        ("category-limit-exceeded", 2, "category-limit-exceeded.points")
    ]
    assert check(BattleSize.INCURSION) == []
    assert check(BattleSize.STRIKE_FORCE, two) == []
    r = Roster(
        faction="Heretic Astartes",
        detachment=det,
        battle_size=BattleSize.INCURSION,
        units=(*units, two),
    )
    (v,) = validate(r, csm).errors
    assert (v.params["count"], v.params["limit"]) == (290, 250)
