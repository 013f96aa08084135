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
    # which the unit may not take. Oath: hidden in some armies, read as a restriction. Hand:
    # min 1 with a default no member is: settled by the datasheet (D21), nothing to pick.
    assert mins == {
        "Kit": 0,
        "Grip": 0,
        "Arm": 1,
        "Hand": 0,
        "Banner": 0,
        "Sidearm": 0,
        "Oath": 0,
        "Hunter's Mark": 0,
    }
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


def test_a_requirement_on_one_model_of_a_squad(required: Catalogue) -> None:
    # the Oath group on the Squad Leader (one per Squad) is required where it is shown (D21):
    # the unit's count of its choices is that model's
    squad = required.datasheet("Squad")
    assert squad is not None
    assert [(m.name, m.min, m.max) for m in squad.models] == [
        ("Squad Leader", 1, 1),
        ("Trooper", 2, 4),
    ]
    assert "oath of iron" in unavailable_choices(squad, "Plain Host")
    assert "oath of iron" not in unavailable_choices(squad, "Oathsworn")
    lead = RosterUnit("Boss", warlord=True, wargear=ARM)
    plain = check(required, "Plain Host", lead, RosterUnit("Squad", models=5))
    assert plain.violations == ()
    sworn = check(required, "Oathsworn", lead, RosterUnit("Squad", models=5))
    assert found(sworn.violations) == [
        ("warning", "wargear-invalid.required-while", 0),  # the Boss' own Oath
        ("warning", "wargear-invalid.required-while", 1),
    ]
    sworn_taken = check(
        required,
        "Oathsworn",
        RosterUnit("Boss", warlord=True, wargear={**ARM, "Oath of Fire": 1}),
        RosterUnit("Squad", models=5, wargear={"Oath of Iron": 1}),
    )
    assert sworn_taken.violations == ()


def test_a_choice_hidden_in_a_detachment(required: Catalogue) -> None:
    # the Banner is hidden while the Detachment is Oathsworn (D21): offered elsewhere,
    # neither offered nor accepted there
    boss = required.datasheet("Boss")
    assert boss is not None
    assert "banner" not in unavailable_choices(boss, "Plain Host")
    assert "banner" in unavailable_choices(boss, "Oathsworn")
    banner = {**ARM, "Banner": 1}
    plain = check(required, "Plain Host", RosterUnit("Boss", warlord=True, wargear=banner))
    assert plain.violations == ()
    sworn = check(
        required,
        "Oathsworn",
        RosterUnit("Boss", warlord=True, wargear={**banner, "Oath of Iron": 1}),
    )
    assert found(sworn.violations) == [("error", "wargear-invalid.unavailable", 0)]
    (v,) = sworn.violations
    assert v.message == ("Boss (#1) cannot take Banner while the Detachment is Oathsworn.")


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


# -- a default the data names but no member is (ruling D21) ---------------------------------

SM_CORE = (
    "Warhammer 40,000.gst",
    "Imperium - Space Marines.cat",
    "Imperium - Agents of the Imperium.cat",
    "Imperium - Imperial Knights - Library.cat",
    "Library - Astartes Heresy Legends.cat",
    "Library - Titans.cat",
    "Unaligned Forces.cat",
)


@pytest.fixture(scope="module")
def space_marines() -> Catalogue:
    if not (DATA / "bsdata-wh40k-10e").is_dir():
        pytest.skip(f"the BSData files are not present at {DATA}")
    files = [(n, (DATA / "bsdata-wh40k-10e" / n).read_bytes()) for n in SM_CORE]
    result = import_files(files)
    return next(c for c in result.catalogues if c.name.endswith("Space Marines"))


def _group_members(group: Element) -> set[str]:
    ids: set[str] = set()
    for box in ("selectionEntries", "entryLinks", "selectionEntryGroups"):
        inner = group.find(box)
        for child in inner if inner is not None else ():
            ids |= {child.get("id") or "", child.get("targetId") or ""}
    return ids - {""}


def _group_min(group: Element) -> int:
    return max(
        (
            int(float(c.get("value") or 0))
            for c in group.iter("constraint")
            if c.get("type") == "min" and c.get("field") == "selections"
        ),
        default=0,
    )


def test_a_default_no_member_is_settles_the_pick(space_marines: Catalogue) -> None:
    # Imperium - Space Marines.cat, read here without the importer: the Chaplain with Jump
    # Pack (23f1-2df2-7085-cf41) has a "Weapon" group (68df-cc7a-f4ab-4114) with min 1 whose
    # defaultSelectionEntryId is no member's id (nor any id of the file); the Hellblaster
    # Sergeant's "Pistol Option" (adf2-4bf1-bc97-2b18) has min 1 and names no default at all
    root = _read("bsdata-wh40k-10e", "Imperium - Space Marines.cat")
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    weapon = by_id["68df-cc7a-f4ab-4114"]
    assert weapon.get("name") == "Weapon"
    assert weapon in list(by_id["23f1-2df2-7085-cf41"].iter("selectionEntryGroup"))
    dangling = weapon.get("defaultSelectionEntryId")
    assert dangling
    assert dangling not in by_id
    assert dangling not in _group_members(weapon)
    assert _group_min(weapon) == 1
    pistol = by_id["adf2-4bf1-bc97-2b18"]
    assert pistol.get("defaultSelectionEntryId") is None
    assert _group_min(pistol) == 1
    # how many groups of the file require a pick and name a default no member is
    groups = [g for g in root.iter("selectionEntryGroup") if _group_min(g) >= 1]
    stale = [
        g
        for g in groups
        if g.get("defaultSelectionEntryId")
        and g.get("defaultSelectionEntryId") not in _group_members(g)
    ]
    assert (len(groups), len(stale)) == (272, 35)

    detachment = space_marines.detachments_of("Adeptus Astartes")[0].name
    chaplain = space_marines.datasheet("Chaplain with Jump Pack")
    assert chaplain is not None
    (opt,) = [o for o in chaplain.wargear_options if o.name == "Weapon"]
    assert opt.min == 0
    assert opt.default is None
    res = check(
        space_marines,
        detachment,
        RosterUnit("Chaplain with Jump Pack", warlord=True),
        faction="Adeptus Astartes",
    )
    assert "wargear-invalid.required" not in {v.message_id for v in res.violations}
    # a group that names no default still asks for its pick
    squad = check(
        space_marines,
        detachment,
        RosterUnit("Chaplain with Jump Pack", warlord=True),
        RosterUnit("Hellblaster Squad"),
        faction="Adeptus Astartes",
    )
    assert [(v.message_id, v.unit, v.severity.value) for v in squad.violations] == [
        ("wargear-invalid.required", 1, "warning")
    ]
