"""Keywords a choice removes (ruling D24) and keywords an Enhancement gives its bearer (ruling
D25) in ``../shared/data``. What the files say (the entries, their ``remove`` / ``add``
category modifiers, the categories' names and whether the data hides them) is read here from
the XML, not through the importer; the tests skip only when the files are absent."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from defusedxml.ElementTree import fromstring

from app.catalog.bsdata import ImportResult, import_files
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Roster,
    RosterUnit,
    name_key,
    validate,
)
from app.engine.wh40k10e.army.offer import unavailable_choices
from tests.catalog.bsdata.test_army_limits import CSM_FILES

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"
CORE = "bsdata-wh40k-10e"
CSM = ("bsdata-wh40k-10e-more", "Chaos - Chaos Space Marines.cat")
ORKS = (CORE, "Orks.cat")
GST = (CORE, "Warhammer 40,000.gst")
UNIT_SCOPES = ("parent", "root-entry", "unit")


def _root(folder: str, name: str) -> Element:
    root = fromstring((DATA / folder / name).read_bytes())
    for el in root.iter():
        el.tag = el.tag.split("}", 1)[-1]
    return root


def _unconditioned(entry: Element) -> list[Element]:
    """The modifiers of ``entry`` itself (and of its modifier groups) with no condition."""
    out: list[Element] = []
    box = entry.find("modifiers")
    out.extend(m for m in (box if box is not None else ()) if not list(m.iter("condition")))
    groups = entry.find("modifierGroups")
    for g in groups if groups is not None else ():
        if list(g.iter("condition")):
            continue
        inner = g.find("modifiers")
        out.extend(inner if inner is not None else ())
    return out


class Facts:
    """Per file: entry name -> (categories removed from the unit, categories added to it)."""

    def __init__(self) -> None:
        roots = {f: _root(*f) for f in (CSM, ORKS, GST)}
        self.categories = {
            e.get("id"): (e.get("name") or "")
            for r in roots.values()
            for e in r.iter("categoryEntry")
        }
        self.hidden = {
            e.get("id")
            for r in roots.values()
            for e in r.iter("categoryEntry")
            if e.get("hidden") == "true"
        }
        self.removes: dict[tuple[str, str], dict[str, list[str]]] = {}
        self.adds: dict[tuple[str, str], dict[str, list[tuple[str, str]]]] = {}
        for f, root in roots.items():
            for entry in root.iter("selectionEntry"):
                for m in _unconditioned(entry):
                    if m.get("field") != "category" or (m.get("scope") or "") not in UNIT_SCOPES:
                        continue
                    name = entry.get("name") or ""
                    value = m.get("value") or ""
                    if m.get("type") == "remove":
                        self.removes.setdefault(f, {}).setdefault(name, []).append(
                            self.categories[value]
                        )
                    elif m.get("type") == "add":
                        self.adds.setdefault(f, {}).setdefault(name, []).append(
                            (value, m.get("scope") or "")
                        )
        # CSM enhancements: the members of its "Enhancements" shared group
        [group] = [
            g for g in roots[CSM].iter("selectionEntryGroup") if g.get("name") == "Enhancements"
        ]
        self.csm_enhancements = {e.get("name") or "" for e in group.iter("selectionEntry")}


@pytest.fixture(scope="module")
def facts() -> Facts:
    if not (DATA / CSM[0] / CSM[1]).is_file() or not (DATA / ORKS[0] / ORKS[1]).is_file():
        pytest.skip(f"the BSData files are not present at {DATA}")
    return Facts()


@pytest.fixture(scope="module")
def csm(facts: Facts) -> Catalogue:
    result = import_files([(n, (DATA / d / n).read_bytes()) for d, n in CSM_FILES])
    return next(c for c in result.catalogues if c.name == "Chaos - Chaos Space Marines")


@pytest.fixture(scope="module")
def core(facts: Facts) -> ImportResult:
    folder = DATA / CORE
    return import_files([(p.name, p.read_bytes()) for p in sorted(folder.iterdir())])


def _removing(catalogue: Catalogue) -> dict[str, dict[str, tuple[str, ...]]]:
    """Datasheet name -> choice name -> keywords it removes (the importer's reading)."""
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for d in catalogue.datasheets:
        for o in d.wargear_options:
            for c in o.choices:
                if c.removed_keywords:
                    out.setdefault(d.name, {})[c.name] = c.removed_keywords
    return out


def test_the_files_say_what_this_test_relies_on(facts: Facts) -> None:
    assert facts.removes[CSM] == {"Combat Bike": ["Infantry"]}
    assert facts.removes[ORKS] == {"Warbike": ["Infantry"], "Smasha Squig": ["Infantry"]}
    psyker = [n for n, a in facts.adds[CSM].items() if n in facts.csm_enhancements]
    assert {"Touched by the Warp", "Cybinfernal Font", "Tzagulla"} <= set(psyker)


def test_the_choices_that_remove_infantry(facts: Facts, csm: Catalogue, core: ImportResult) -> None:
    orks = next(c for c in core.catalogues if c.factions == ("Orks",))
    found = {**_removing(csm), **_removing(orks)}
    # each choice the importer reads as removing a keyword is one the file says removes it
    for sheet, taken in found.items():
        for choice, removed in taken.items():
            where = CSM if choice in facts.removes[CSM] else ORKS
            assert list(removed) == facts.removes[where][choice], (sheet, choice)
    # the census of ruling D24: 9 choices on 6 datasheets (3 Crucible champions' Combat Bike,
    # 3 Ork Crucible characters' Warbike and Smasha Squig); no other catalogue of the core
    # folder has one
    assert sum(len(t) for t in found.values()) == 9
    assert len(found) == 6
    for other in core.catalogues:
        if other is not orks:
            assert _removing(other) == {}, other.name


def test_a_champion_on_a_combat_bike_is_no_infantry(csm: Catalogue) -> None:
    # an Enhancement the data gives Infantry only (read from the import), on the champion
    # who takes the Combat Bike: refused; on foot: not refused
    det, enh = next(
        (d.name, e.name)
        for d in csm.detachments
        for e in d.enhancements
        if e.eligibility is not None and str(e.eligibility) == "Infantry"
    )
    bearer = next(n for n in _removing(csm) if "Exalted" in n)

    def refused(wargear: dict[str, int]) -> list[str]:
        unit = RosterUnit(bearer, wargear=wargear, warlord=True, enhancements=(enh,))
        r = Roster("Heretic Astartes", det, BattleSize.STRIKE_FORCE, (unit,))
        return [v.message_id for v in validate(r, csm).errors if "enhancement" in v.message_id]

    assert refused({}) == []
    assert refused({"Combat Bike": 1}) == ["enhancement-not-eligible"]
    sheet = csm.datasheet(bearer)
    assert sheet is not None
    biker = csm.with_choices(csm.datasheet_in(sheet, det), {"Combat Bike": 1}, det)
    assert "Infantry" in sheet.keywords
    assert "Infantry" not in biker.keywords
    assert "Mounted" in biker.keywords


def test_an_ork_on_a_warbike_or_a_smasha_squig_is_no_infantry(core: ImportResult) -> None:
    orks = next(c for c in core.catalogues if c.factions == ("Orks",))
    refused = 0
    for name, taken in _removing(orks).items():
        sheet = orks.datasheet(name)
        assert sheet is not None
        assert "Infantry" in sheet.keywords, name
        hidden = unavailable_choices(sheet)
        for choice in taken:
            mounted = orks.with_choices(sheet, {choice: 1})
            if name_key(choice) in hidden:
                # the data hides the mount on this character: refused, and no change
                assert mounted is sheet, (name, choice)
                unit = RosterUnit(name, wargear={choice: 1}, warlord=True)
                det = orks.detachments_of("Orks")[0].name
                r = Roster("Orks", det, BattleSize.STRIKE_FORCE, (unit,))
                assert "wargear-invalid.unavailable" in [
                    v.message_id for v in validate(r, orks).errors
                ]
                refused += 1
                continue
            assert "Infantry" not in mounted.keywords, (name, choice)
            assert "Mounted" in mounted.keywords, (name, choice)
    assert refused == 2  # the Upstart Gretchin's Warbike and Smasha Squig


def test_the_enhancements_that_give_their_bearer_a_keyword(facts: Facts, csm: Catalogue) -> None:
    given = {e.name: e.keywords for d in csm.detachments for e in d.enhancements if e.keywords}
    # from the file: the Enhancements whose unconditioned "add" to the parent is a category
    # the data does not hide (Tzagulla's is a hidden display flag)
    expected = {
        name: tuple(
            facts.categories[v] for v, scope in adds if scope == "parent" and v not in facts.hidden
        )
        for name, adds in facts.adds[CSM].items()
        if name in facts.csm_enhancements
    }
    assert given == {n: k for n, k in expected.items() if k}
    assert given == {"Touched by the Warp": ("Psyker",), "Cybinfernal Font": ("Soul Forge",)}


def test_touched_by_the_warp_opens_the_psychic_choices(csm: Catalogue) -> None:
    det, enh = next(
        (d.name, e.name) for d in csm.detachments for e in d.enhancements if "Psyker" in e.keywords
    )
    sheet = next(
        d
        for d in csm.datasheets
        if "Exalted" in d.name
        and any(str(r.when) == "the unit is not Psyker" for r in d.restrictions)
    )
    weapon = next(r.wargear for r in sheet.restrictions if str(r.when) == "the unit is not Psyker")

    def unavailable(enhancements: tuple[str, ...]) -> list[str]:
        unit = RosterUnit(sheet.name, wargear={weapon: 1}, warlord=True, enhancements=enhancements)
        r = Roster("Heretic Astartes", det, BattleSize.STRIKE_FORCE, (unit,))
        return [v.message_id for v in validate(r, csm).errors if v.message_id.startswith("wargear")]

    assert unavailable(()) == ["wargear-invalid.unavailable"]
    assert unavailable((enh,)) == []
