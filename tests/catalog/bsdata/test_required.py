"""The data's requirements (ruling D20): a wargear option the unit must fill (BattleScribe's
``min``), a requirement the data raises under a condition (the Detachment, the bearer) and a
choice a Detachment unlocks. On the tiny hand-written files of :mod:`required_files`, then on
the real data with the numbers read from the files separately (their ids are cited)."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from defusedxml.ElementTree import fromstring

from app.catalog.bsdata import import_files
from app.catalog.bsdata.census import census_of
from app.catalog.bsdata.files import Budget, ImportLimits, read_document
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Roster,
    RosterUnit,
    Violation,
    validate,
)
from app.engine.wh40k10e.army.offer import unavailable_choices
from tests.catalog.bsdata.required_files import FILES

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"


@pytest.fixture(scope="module")
def required() -> Catalogue:
    result = import_files(FILES)
    assert result.ok
    (catalogue,) = result.catalogues
    return catalogue


def check(cat: Catalogue, detachment: str, *units: RosterUnit, faction: str = "Interplay"):  # type: ignore[no-untyped-def]
    return validate(
        Roster(
            faction=faction,
            detachment=detachment,
            battle_size=BattleSize.STRIKE_FORCE,
            units=units,
        ),
        cat,
    )


def found(violations: tuple[Violation, ...]) -> list[tuple[str, str, int | None]]:
    return [(v.severity.value, v.message_id, v.unit) for v in violations]


ARM = {"Claw": 1}


def test_an_option_without_a_default_must_be_filled(required: Catalogue) -> None:
    boss = required.datasheet("Boss")
    assert boss is not None
    mins = {o.name: o.min for o in boss.wargear_options}
    # Arm: min 1, no default. Sidearm: filled by its Pistol's own min. Grip: inside the Kit,
    # which the unit may not take. Oath: hidden in some armies, read as a restriction.
    assert mins == {"Kit": 0, "Grip": 0, "Arm": 1, "Sidearm": 0, "Oath": 0, "Hunter's Mark": 0}
    result = check(required, "Plain Host", RosterUnit("Boss", warlord=True))
    assert found(result.violations) == [("warning", "wargear-invalid.required", 0)]
    (v,) = result.violations
    assert v.message == (
        "Boss (#1) takes 0 of Claw, Blade (Arm): the catalogue requires at least 1."
    )
    assert v.fix == "Add 1 of Claw, Blade (Arm)."
    assert result.valid  # a warning: the list is still legal to play
    assert (
        check(required, "Plain Host", RosterUnit("Boss", warlord=True, wargear=ARM)).violations
        == ()
    )


def test_a_requirement_where_a_group_is_shown(required: Catalogue) -> None:
    boss = required.datasheet("Boss")
    champion = required.datasheet("Champion")
    assert boss is not None
    assert champion is not None
    # not offered to the Boss outside Oathsworn, offered (and required) in it
    oaths = {"oath of iron", "oath of fire"}
    assert oaths <= unavailable_choices(boss, "Plain Host")
    assert not oaths & unavailable_choices(boss, "Oathsworn")
    assert not oaths & unavailable_choices(champion, "Plain Host")
    plain = check(required, "Plain Host", RosterUnit("Boss", warlord=True, wargear=ARM))
    assert plain.violations == ()
    taken = check(
        required, "Plain Host", RosterUnit("Boss", warlord=True, wargear={**ARM, "Oath of Iron": 1})
    )
    assert found(taken.violations) == [("error", "wargear-invalid.unavailable", 0)]
    sworn = check(required, "Oathsworn", RosterUnit("Boss", warlord=True, wargear=ARM))
    assert found(sworn.violations) == [("warning", "wargear-invalid.required-while", 0)]
    (v,) = sworn.violations
    assert v.message == (
        "Boss (#1) takes 0 of Oath of Iron, Oath of Fire (Oath): the catalogue requires at "
        "least 1 while the Detachment is Oathsworn or the unit is Champion."
    )
    assert v.fix == "Add 1 of Oath of Iron, Oath of Fire (Oath)."
    kept = check(
        required, "Oathsworn", RosterUnit("Boss", warlord=True, wargear={**ARM, "Oath of Fire": 1})
    )
    assert kept.violations == ()
    # the Champion carries the keyword: required in every Detachment
    champ = check(required, "Plain Host", RosterUnit("Champion", warlord=True))
    assert found(champ.violations) == [("warning", "wargear-invalid.required-while", 0)]


def test_a_choice_a_detachment_unlocks(required: Catalogue) -> None:
    boss = required.datasheet("Boss")
    assert boss is not None
    assert "hunter's mark" in unavailable_choices(boss, "Plain Host")
    assert "hunter's mark" not in unavailable_choices(boss, "Hunt")
    hunt = check(required, "Hunt", RosterUnit("Boss", warlord=True, wargear=ARM))
    assert found(hunt.violations) == [("warning", "wargear-invalid.required-while", 0)]
    assert hunt.points == 70
    marked = RosterUnit("Boss", warlord=True, wargear={**ARM, "Hunter's Mark": 1})
    ok = check(required, "Hunt", marked)
    assert ok.violations == ()
    assert ok.points == 70 + 15
    elsewhere = check(required, "Plain Host", marked)
    assert found(elsewhere.violations) == [("error", "wargear-invalid.unavailable", 0)]


def test_the_census_counts_them_decided() -> None:
    limits = ImportLimits()
    budget = Budget.of(limits)
    census = census_of([read_document(n, d, limits, budget) for n, d in FILES])
    # the Oath's "fewer than 1 of itself" (required until taken): when validating (the
    # requirement is checked on the list); the force, the Detachments (each one assumed) and
    # the bearer's keyword: at import; nothing left undecided
    assert census.all.undecided == 0
    assert census.kinds["inside the unit (models, wargear)"].when_validating == 1


# -- the real data ---------------------------------------------------------------------------


def _read(folder: str, name: str) -> Element:
    root = fromstring((DATA / folder / name).read_bytes())
    for el in root.iter():
        el.tag = el.tag.split("}", 1)[-1]
    return root


AGENTS_FILES = (
    "Warhammer 40,000.gst",
    "Imperium - Agents of the Imperium.cat",
    "Imperium - Imperial Knights - Library.cat",
    "Library - Astartes Heresy Legends.cat",
    "Library - Titans.cat",
    "Unaligned Forces.cat",
)


@pytest.fixture(scope="module")
def agents() -> Catalogue:
    if not (DATA / "bsdata-wh40k-10e").is_dir():
        pytest.skip(f"the BSData files are not present at {DATA}")
    files = [(n, (DATA / "bsdata-wh40k-10e" / n).read_bytes()) for n in AGENTS_FILES]
    result = import_files(files)
    return next(c for c in result.catalogues if c.name.endswith("Agents of the Imperium"))


def test_the_vindicares_micromelta_round_in_its_detachment(agents: Catalogue) -> None:
    # Imperium - Agents of the Imperium.cat: "Micromelta Round" (bcba-352d-f7f2-84ba, inside
    # the Vindicare Assassin efa3-2cf5-dcfb-b976) is hidden, 45 points, min -1; a modifier
    # group unhides it and sets its min (6651-4ef1-484f-30a1) to 1 while the roster holds the
    # "Veiled Blade Elimination Force" detachment entry (e203-73dc-18d9-f390)
    root = _read("bsdata-wh40k-10e", AGENTS_FILES[1])
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    round_ = by_id["bcba-352d-f7f2-84ba"]
    assert round_.get("hidden") == "true"
    cost = next(c for c in round_.iter("cost") if c.get("name") == "pts")
    assert cost.get("value") == "45"
    (group,) = round_.iter("modifierGroup")
    sets = {(m.get("field"), m.get("value")) for m in group.iter("modifier")}
    assert sets == {("hidden", "false"), ("6651-4ef1-484f-30a1", "1")}
    (cond,) = group.iter("condition")
    detachment = by_id[cond.get("childId")].get("name")
    assert detachment == "Veiled Blade Elimination Force"
    vindicare = by_id["efa3-2cf5-dcfb-b976"]
    base = next(c for c in vindicare.find("costs") if c.get("name") == "pts")
    base_points = int(float(base.get("value") or 0))
    # the builder offers it in that detachment only, required there
    sheet = agents.datasheet("Vindicare Assassin")
    assert sheet is not None
    other = next(d.name for d in agents.detachments if d.name != detachment)
    assert "micromelta round" in unavailable_choices(sheet, other)
    assert "micromelta round" not in unavailable_choices(sheet, detachment)
    lead = RosterUnit("Inquisitor", warlord=True)
    without = check(
        agents, detachment, lead, RosterUnit(sheet.name), faction="Agents of the Imperium"
    )
    assert ("warning", "wargear-invalid.required-while", 1) in found(without.violations)
    taken = RosterUnit(sheet.name, wargear={"Micromelta Round": 1})
    with_it = check(agents, detachment, lead, taken, faction="Agents of the Imperium")
    assert not [v for v in with_it.violations if v.unit == 1]
    assert with_it.units[1].points == base_points + 45
    elsewhere = check(agents, other, lead, taken, faction="Agents of the Imperium")
    assert ("error", "wargear-invalid.unavailable", 1) in found(elsewhere.violations)
