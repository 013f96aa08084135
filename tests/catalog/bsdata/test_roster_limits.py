"""Limits of copies that depend on the rest of the roster (ruling D9) and the census's moot
conditions (ruling D1): on the tiny hand-written files of :mod:`roster_limit_files`, then on
the real data, with the numbers read from the files by hand (their line is cited)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.catalog.bsdata import ImportResult, import_files
from app.catalog.bsdata.census import census_of, render
from app.catalog.bsdata.files import Budget, ImportLimits, read_document
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Code,
    Roster,
    RosterUnit,
    validate,
)
from tests.catalog.bsdata.roster_limit_files import FILES

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"


@pytest.fixture(scope="module")
def limiters() -> Catalogue:
    result = import_files(FILES)
    assert result.ok
    (catalogue,) = result.catalogues
    return catalogue


def roster(*units: RosterUnit, faction: str = "Limiters", detachment: str = "First Host") -> Roster:
    return Roster(
        faction=faction,
        detachment=detachment,
        battle_size=BattleSize.STRIKE_FORCE,
        units=units,
    )


def codes(r: Roster, catalogue: Catalogue) -> list[tuple[str, int | None]]:
    return [(v.code.value, v.unit) for v in validate(r, catalogue).errors]


BOSS = RosterUnit("Boss", warlord=True)
CAPTAIN = RosterUnit("Captain")


def test_the_limit_is_the_most_any_roster_allows(limiters: Catalogue) -> None:
    limits = {s.name: s.max_in_roster for s in limiters.datasheets}
    assert limits["Riders"] == 5  # 2, or 5 with the Boss as Warlord
    assert limits["Guards"] == 2  # 0, 1 with one Captain, 2 with two
    assert limits["Twin A"] == 1  # 1, or 0 beside Twin B
    assert limits["Twin B"] is None  # no constraint: the core rule (3)
    assert limits["Swarm"] is None  # a repeated modifier is not read: the core rule (3)
    swarm = limiters.datasheet("Swarm")
    assert swarm is not None
    assert swarm.restrictions == ()


def test_a_limit_raised_by_a_warlord_flag(limiters: Catalogue) -> None:
    riders = [RosterUnit("Riders")] * 4
    # The Boss is the Warlord: the flag is there, up to 5 (was refused at the core rule's 3).
    assert codes(roster(BOSS, *riders), limiters) == []
    # No Boss in the army: the flag certainly is not there, 2 at most.
    found = validate(roster(RosterUnit("Captain", warlord=True), *riders), limiters).errors
    assert [(v.code, v.unit) for v in found] == [(Code.DATA_RESTRICTION, i) for i in (1, 2, 3, 4)]
    assert "more than 2 Riders unit(s) in the army" in found[0].message
    # A Boss who is not the Warlord: the roster marks the Warlord unit, and the flag comes
    # with the Boss's own Warlord entry, so it is certainly not there (ruling D29; before it,
    # nothing was reported).
    r = roster(RosterUnit("Captain", warlord=True), RosterUnit("Boss"), *riders)
    found = validate(r, limiters).errors
    assert [(v.code, v.unit) for v in found] == [(Code.DATA_RESTRICTION, i) for i in (2, 3, 4, 5)]
    assert "Boss is not the Warlord" in found[0].message
    # Over the most any roster allows: the engine's own limit.
    six = roster(BOSS, *[RosterUnit("Riders")] * 6)
    assert (Code.DATASHEET_LIMIT_EXCEEDED.value, 6) in codes(six, limiters)


def test_a_limit_set_by_how_many_units_of_another_datasheet(limiters: Catalogue) -> None:
    guards = RosterUnit("Guards")
    leader = RosterUnit("Captain", warlord=True)
    assert codes(roster(leader, guards), limiters) == []
    assert codes(roster(leader, guards, guards), limiters) == [
        ("data-restriction", 1),
        ("data-restriction", 2),
    ]
    assert codes(roster(leader, CAPTAIN, guards, guards), limiters) == []
    # No Captain: none allowed.
    assert codes(roster(BOSS, guards), limiters) == [("data-restriction", 1)]
    # Three is over the most (2): the limit's own violation.
    three = codes(roster(leader, CAPTAIN, guards, guards, guards), limiters)
    assert three == [("datasheet-limit-exceeded", 4)]


def test_a_pair_that_excludes_each_other(limiters: Catalogue) -> None:
    assert codes(roster(BOSS, RosterUnit("Twin A")), limiters) == []
    assert codes(roster(BOSS, RosterUnit("Twin A"), RosterUnit("Twin B")), limiters) == [
        ("data-restriction", 1)
    ]


def _census_docs() -> list:  # type: ignore[type-arg]
    limits = ImportLimits()
    budget = Budget.of(limits)
    return [read_document(name, data, limits, budget) for name, data in FILES]


def test_census_counts_limits_and_moot_conditions() -> None:
    census = census_of(_census_docs())
    other = census.kinds["other selections in the roster"]
    # Guards' two Captain counts and Twin A's count of Twin B are decided when validating, and
    # so is the Lucky Charm's "hidden once the roster has one" (the core rule); Brutes' two
    # Captain counts sit in an "and" beside a Boarding Actions force condition: moot; the
    # Riders' flag is decided when validating too ("the Boss is the Warlord", ruling D29;
    # undecided before it). Swarm's repeated modifier is not read: its condition is undecided.
    assert (other.total, other.when_validating, other.moot, other.undecided) == (8, 5, 2, 1)
    # the Charm's companion, "unless this bearer has it"
    assert census.kinds["inside the unit (models, wargear)"].when_validating == 1
    assert census.core_rule == 2
    assert census.kinds["the force built"].at_import == 2
    assert "moot: 2; undecided: 1" in render(census)


def test_an_enhancement_once_per_army_is_the_core_rule(limiters: Catalogue) -> None:
    charmed = RosterUnit("Boss", enhancements=("Lucky Charm",))
    r = roster(RosterUnit("Captain", warlord=True), charmed, charmed)
    assert codes(r, limiters) == [("enhancement-duplicate", 2)]


# -- the real data ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def real() -> ImportResult:
    folder = DATA / "bsdata-wh40k-10e"
    if not folder.is_dir():
        pytest.skip(f"the BSData files are not present at {folder}")
    return import_files([(p.name, p.read_bytes()) for p in sorted(folder.iterdir())])


def _catalogue(result: ImportResult, faction: str) -> Catalogue:
    return next(c for c in result.catalogues if c.factions == (faction,))


def test_orks_warbikers_with_wazdakka_as_warlord(real: ImportResult) -> None:
    # Orks.cat: Warbikers "max 3 in the roster" (constraint 4f4d-f450-6bac-d647), set to 6 when
    # the roster holds the hidden category "Wazdakka Warlord Flag", which only Wazdakka
    # Gutsmek's Warlord entry carries. Before: 4 Warbikers were refused (core limit 3).
    orks = _catalogue(real, "Orks")
    bikers = orks.datasheet("Warbikers")
    assert bikers is not None
    assert bikers.max_in_roster == 6
    det = orks.detachments_of("Orks")[0].name
    four = [RosterUnit("Warbikers")] * 4
    with_waz = roster(
        RosterUnit("Wazdakka Gutsmek", warlord=True), *four, faction="Orks", detachment=det
    )
    assert codes(with_waz, orks) == []
    without = roster(RosterUnit("Warboss", warlord=True), *four, faction="Orks", detachment=det)
    assert codes(without, orks) == [("data-restriction", i) for i in (1, 2, 3, 4)]
    # Wazdakka in the army but not the Warlord: the flag is not there (ruling D29)
    beside = roster(
        RosterUnit("Warboss", warlord=True),
        RosterUnit("Wazdakka Gutsmek"),
        *four,
        faction="Orks",
        detachment=det,
    )
    assert codes(beside, orks) == [("data-restriction", i) for i in (2, 3, 4, 5)]
    seven = roster(
        RosterUnit("Wazdakka Gutsmek", warlord=True),
        *[RosterUnit("Warbikers")] * 7,
        faction="Orks",
        detachment=det,
    )
    assert ("datasheet-limit-exceeded", 7) in codes(seven, orks)


def test_space_marines_company_heroes_need_a_captain(real: ImportResult) -> None:
    # Imperium - Space Marines.cat: Company Heroes "max 0 in the roster" (constraint
    # 1852-2e76-ee7b-15aa), set to 1 with exactly 1 unit of the Captain or Chapter Master
    # keyword (categories 2d7f-1892-2fd0-e29c, 5bd8-882d-302b-48f3), 2 with one of each or 2
    # Captains, 3 with more. Before: the core rule's 3 applied, and a list without a Captain
    # was accepted.
    sm = _catalogue(real, "Adeptus Astartes")
    heroes = sm.datasheet("Company Heroes")
    assert heroes is not None
    assert heroes.max_in_roster == 3
    det = "Gladius Task Force"
    lib = RosterUnit("Librarian", warlord=True)
    one = RosterUnit("Company Heroes")
    assert codes(roster(lib, one, faction="Adeptus Astartes", detachment=det), sm) == [
        ("data-restriction", 1)
    ]
    cap = RosterUnit("Captain")
    assert codes(roster(lib, cap, one, faction="Adeptus Astartes", detachment=det), sm) == []
    two = roster(lib, cap, one, one, faction="Adeptus Astartes", detachment=det)
    assert codes(two, sm) == [("data-restriction", 2), ("data-restriction", 3)]
    # Two Captain-keyword units (a Captain and a Captain in Gravis Armour): 2.
    gravis = RosterUnit("Captain in Gravis Armour")
    both = roster(lib, cap, gravis, one, one, faction="Adeptus Astartes", detachment=det)
    assert codes(both, sm) == []
    three = roster(lib, cap, gravis, one, one, one, faction="Adeptus Astartes", detachment=det)
    assert codes(three, sm) == [("data-restriction", i) for i in (3, 4, 5)]
