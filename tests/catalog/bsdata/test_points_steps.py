"""Points that depend on a unit's wargear (ruling D28): a Crucible character's weapons past the
second cost points. What the files say (the root entry's points, its points modifiers, their
conditions and repeats on the "Weapons" group, the group's members) is read here from the XML
and the points BattleScribe would show are computed from it, not through the importer; the
importer's catalogue and the validator must give the same numbers. The tests skip only when
the files are absent."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from defusedxml.ElementTree import fromstring

from app.catalog.bsdata import import_files
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    CatalogueError,
    Compare,
    CountOf,
    Datasheet,
    LimitStepKind,
    PointsStep,
    Roster,
    RosterCondition,
    RosterUnit,
    UnitFacts,
    name_key,
    validate,
)
from tests.catalog.bsdata.test_army_limits import CSM_FILES

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"
CORE = "bsdata-wh40k-10e"
PTS = "51b2-306e-1021-d207"  # the game system's "pts" cost type
COMPARE = {
    "atLeast": lambda n, v: n >= v,
    "greaterThan": lambda n, v: n > v,
    "atMost": lambda n, v: n <= v,
    "lessThan": lambda n, v: n < v,
    "equalTo": lambda n, v: n == v,
}


def _root(folder: str, name: str) -> Element:
    root = fromstring((DATA / folder / name).read_bytes())
    for el in root.iter():
        el.tag = el.tag.split("}", 1)[-1]
    return root


def _points_modifiers(entry: Element) -> Iterator[Element]:
    """The points modifiers of ``entry`` in document order: its own, then its modifier
    groups' (a group with conditions of its own is not expected here)."""
    box = entry.find("modifiers")
    for m in box if box is not None else ():
        if m.get("field") == PTS:
            yield m
    groups = entry.find("modifierGroups")
    for g in groups if groups is not None else ():
        inner = g.find("modifiers")
        for m in inner if inner is not None else ():
            if m.get("field") == PTS:
                assert g.find("conditions") is None
                assert g.find("conditionGroups") is None
                yield m


class Sheet:
    """A Crucible character as its file says: base points, the Weapons group it counts, the
    names of the group's choices, and its points for ``n`` weapons as BattleScribe adds them."""

    def __init__(self, root: Element, name: str) -> None:
        [self.entry] = [
            e
            for e in root.iter("selectionEntry")
            if e.get("name") == name and e.get("type") == "model"
        ]
        costs = self.entry.find("costs")
        assert costs is not None
        [cost] = [c for c in costs if c.get("typeId") == PTS]
        self.base = float(cost.get("value") or "0")
        self.mods = list(_points_modifiers(self.entry))
        counted = {c.get("childId") for m in self.mods for c in m.iter("condition")} | {
            r.get("childId") for m in self.mods for r in m.iter("repeat")
        }
        assert len(counted) == 1, counted  # every modifier counts one group
        self.group_id = counted.pop()
        ids = {e.get("id"): e for e in root.iter() if e.get("id")}
        group = ids[self.group_id]
        if group.tag == "entryLink":
            group = ids[group.get("targetId")]
        assert group.tag == "selectionEntryGroup"
        self.weapons: set[str] = set()
        for e in group.iter():
            link = e.tag == "entryLink" and e.get("type") == "selectionEntry"
            if e.tag == "selectionEntry" or link:
                self.weapons.add(name_key(e.get("name") or ""))

    def points(self, n: int) -> int:
        value = self.base
        for m in self.mods:
            held = True
            for c in m.iter("condition"):
                assert c.get("childId") == self.group_id
                assert c.get("field") == "selections"
                held = held and COMPARE[c.get("type") or ""](n, float(c.get("value") or "0"))
            if not held:
                continue
            times = 1
            for r in m.iter("repeat"):
                times = int(n // float(r.get("value") or "1")) * int(r.get("repeats") or "1")
            amount = float(m.get("value") or "0") * times
            kind = m.get("type")
            if kind == "increment":
                value += amount
            elif kind == "decrement":
                value -= amount
            else:
                raise AssertionError(f"unexpected points modifier {kind}")
        return round(max(value, 0.0))


def _loadouts(sheet: Datasheet, weapons: set[str]) -> Iterator[dict[str, int]]:
    """Loadouts of 1, 2, ... weapons of the counted group, each option within its own
    ``max``, at no points of their own (a melee weapon first: the data requires one)."""
    picks: list[str] = []
    options = sorted(sheet.wargear_options, key=lambda o: -o.min)
    for o in options:
        free = [c.name for c in o.choices if name_key(c.name) in weapons and c.points == 0]
        if len({name_key(c.name) for c in o.choices} - weapons):
            continue  # an option offering other things too
        picks.extend(free[: o.max])
    taken: dict[str, int] = {}
    for name in picks:
        taken[name] = taken.get(name, 0) + 1
        yield dict(taken)


@pytest.fixture(scope="module")
def core() -> list[Catalogue]:
    folder = DATA / CORE
    if not (folder / "Orks.cat").is_file():
        pytest.skip(f"the BSData files are not present at {DATA}")
    return list(
        import_files([(p.name, p.read_bytes()) for p in sorted(folder.iterdir())]).catalogues
    )


@pytest.fixture(scope="module")
def csm() -> Catalogue:
    if not (DATA / CSM_FILES[1][0] / CSM_FILES[1][1]).is_file():
        pytest.skip(f"the BSData files are not present at {DATA}")
    result = import_files([(n, (DATA / d / n).read_bytes()) for d, n in CSM_FILES])
    return next(c for c in result.catalogues if c.name == "Chaos - Chaos Space Marines")


CASES = [
    # (file, catalogue's Army Faction or name, datasheet)
    (
        (CORE, "Imperium - Agents of the Imperium.cat"),
        "Agents of the Imperium",
        "Martial Agent [Crucible]",
    ),
    (
        (CORE, "Imperium - Agents of the Imperium.cat"),
        "Agents of the Imperium",
        "Enthroned Agent [Crucible]",
    ),
    ((CORE, "Orks.cat"), "Orks", "Hordeboss [Crucible]"),
    # a chapter's own weapon (Dark Angels') is hidden in Space Marines: it counts 0 there
    (
        (CORE, "Imperium - Space Marines.cat"),
        "Adeptus Astartes",
        "Champion of the Chapter [Crucible]",
    ),
    ((CORE, "Orks.cat"), "Orks", "Warphead [Crucible]"),
]


def _check(catalogue: Catalogue, faction: str, facts: Sheet, name: str) -> int:
    sheet = catalogue.datasheet(name)
    assert sheet is not None, name
    assert sheet.points_steps, name
    det = catalogue.detachments_of(faction)[0].name
    checked = 0
    for wargear in _loadouts(sheet, facts.weapons):
        n = sum(wargear.values())
        unit = RosterUnit(name, wargear=wargear)
        result = validate(Roster(faction, det, BattleSize.STRIKE_FORCE, (unit,)), catalogue)
        assert result.units[0].points == facts.points(n), (name, n, wargear)
        checked += 1
    return checked


@pytest.mark.parametrize(("where", "faction", "name"), CASES)
def test_points_match_the_files(
    core: list[Catalogue], where: tuple[str, str], faction: str, name: str
) -> None:
    facts = Sheet(_root(*where), name)
    catalogue = next(c for c in core if c.factions == (faction,))
    # up to 6 weapons: past the third the price climbs (or falls back by 10, for the Orks)
    assert _check(catalogue, faction, facts, name) >= 5
    assert facts.points(2) == facts.base  # two weapons: the datasheet's own points
    assert facts.points(5) != facts.base  # and the files do change it past them


def test_chaos_champion_counts_more_than_two(csm: Catalogue) -> None:
    facts = Sheet(_root(*CSM_FILES[1]), "Exalted Champion [Crucible]")
    assert _check(csm, "Heretic Astartes", facts, "Exalted Champion [Crucible]") >= 5


def test_steps_survive_a_stored_catalogue(core: list[Catalogue]) -> None:
    orks = next(c for c in core if c.factions == ("Orks",))
    again = Catalogue.from_dict(orks.to_dict())
    before = orks.datasheet("Hordeboss [Crucible]")
    after = again.datasheet("Hordeboss [Crucible]")
    assert before is not None
    assert after is not None
    assert before.points_steps
    assert after.points_steps == before.points_steps


def test_what_the_roster_cannot_count_is_not_read(core: list[Catalogue]) -> None:
    # the Venerable Battle-Brother's weapon packs each hold two weapons selected with them,
    # which a count with child selections adds up: the roster records the pack only
    marines = next(c for c in core if c.factions == ("Adeptus Astartes",))
    sheet = marines.datasheet("Venerable Battle-Brother [Crucible]")
    assert sheet is not None
    assert sheet.points_steps == ()
    facts = Sheet(_root(CORE, "Imperium - Space Marines.cat"), sheet.name)
    assert facts.points(3) != facts.points(2)  # the file does price it by its weapons


def test_a_points_step_adds_or_takes_and_never_sets() -> None:
    when = RosterCondition.count(CountOf.WARGEAR, Compare.AT_LEAST, 3, "Weapons")
    when = replace(when, names=("Axe", "Gun"))
    plus = PointsStep(LimitStepKind.INCREMENT, 5, per=("Axe", "Gun"))
    minus = PointsStep(LimitStepKind.DECREMENT, 10, when)
    unit = UnitFacts(models=1, wargear={"Axe": 2, "Gun": 1, "Shield": 4}, keywords=())
    assert plus.points(unit) == 15
    assert minus.points(unit) == -10
    assert minus.points(replace(unit, wargear={"Axe": 2})) == 0
    with pytest.raises(CatalogueError):
        PointsStep(LimitStepKind.SET, 5)
