"""Keywords a choice adds with scope ``parent`` (ruling D22, issue 17 review): the Chaos Space
Marines Specialisms (Combat Bike, Daemon Host, Jump Pack, Terminator) add a category to their
``parent``, and the group they sit in is linked straight from the Crucible characters' root
entries: a group is no selection, so that parent is the unit. What the file says (the group,
the entries that link it, the categories each member adds) is read here from the XML, not
through the importer."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from defusedxml.ElementTree import fromstring

from app.catalog.bsdata import import_files
from app.engine.wh40k10e.army import BattleSize, Catalogue, Roster, RosterUnit, validate
from tests.catalog.bsdata.test_army_limits import CSM_FILES

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"
CSM = ("bsdata-wh40k-10e-more", "Chaos - Chaos Space Marines.cat")
GST = ("bsdata-wh40k-10e", "Warhammer 40,000.gst")
GROUP = "Specialisms"


def _root(folder: str, name: str) -> Element:
    root = fromstring((DATA / folder / name).read_bytes())
    for el in root.iter():
        el.tag = el.tag.split("}", 1)[-1]
    return root


class FileFacts:
    """The Specialisms group as the file has it."""

    def __init__(self) -> None:
        csm, gst = _root(*CSM), _root(*GST)
        categories = {
            e.get("id"): (e.get("name") or "") for r in (csm, gst) for e in r.iter("categoryEntry")
        }
        parent = {child: p for p in csm.iter() for child in p}
        [group] = [g for g in csm.iter("selectionEntryGroup") if g.get("name") == GROUP]
        self.group_id = group.get("id") or ""
        # member name -> the categories it adds to its parent, unconditioned
        self.adds: dict[str, list[str]] = {}
        for entry in group.iter("selectionEntry"):
            for m in entry.find("modifiers") or ():
                if (
                    m.get("field") == "category"
                    and m.get("type") in ("add", "set-primary")
                    and m.get("scope") == "parent"
                    and not list(m.iter("condition"))
                ):
                    names = self.adds.setdefault(entry.get("name") or "", [])
                    names.append(categories[m.get("value")])
        # the entries whose own entryLinks link the group (no selection in between)
        self.bearers: list[str] = []
        self.bearer_types: set[str] = set()
        for link in csm.iter("entryLink"):
            if link.get("targetId") != self.group_id:
                continue
            holder = parent[parent[link]]  # <selectionEntry><entryLinks><entryLink>
            if holder.tag == "selectionEntry":
                self.bearers.append(holder.get("name") or "")
                self.bearer_types.add(holder.get("type") or "")
        # whether each bearer is a root entry (a shared entry the catalogue's roots link)
        shared = csm.find("sharedSelectionEntries")
        self.shared = {e.get("name") for e in (shared if shared is not None else ())}


@pytest.fixture(scope="module")
def facts() -> FileFacts:
    if not (DATA / CSM[0] / CSM[1]).is_file():
        pytest.skip(f"the BSData files are not present at {DATA}")
    return FileFacts()


@pytest.fixture(scope="module")
def csm(facts: FileFacts) -> Catalogue:
    files = [(name, (DATA / folder / name).read_bytes()) for folder, name in CSM_FILES]
    result = import_files(files)
    return next(c for c in result.catalogues if c.name == "Chaos - Chaos Space Marines")


def test_the_file_says_what_this_test_relies_on(facts: FileFacts) -> None:
    assert {"Combat Bike", "Jump Pack", "Terminator"} <= set(facts.adds)
    assert "Jump Pack" in facts.adds["Jump Pack"]
    assert len(facts.bearers) >= 3  # the three Crucible characters
    assert facts.bearer_types == {"model"}  # single-model characters: the root is the unit
    assert set(facts.bearers) <= facts.shared


def test_every_bearer_offers_each_specialism_with_the_keywords_it_adds(
    facts: FileFacts, csm: Catalogue
) -> None:
    for bearer in facts.bearers:
        sheet = csm.datasheet(bearer)
        assert sheet is not None, bearer
        offered = {c.name: c for o in sheet.wargear_options for c in o.choices}
        for member, names in facts.adds.items():
            wanted = {n for n in names if not n.startswith("Faction: ")}
            assert member in offered, (bearer, member)
            assert set(offered[member].keywords) == wanted, (bearer, member)


def test_a_champion_on_a_jump_pack_is_read_with_its_keywords(
    facts: FileFacts, csm: Catalogue
) -> None:
    bearer = facts.bearers[0]
    sheet = csm.datasheet(bearer)
    assert sheet is not None
    assert "Jump Pack" not in sheet.keywords
    det = csm.detachments_of("Heretic Astartes")[0].name
    taken = csm.with_choices(csm.datasheet_in(sheet, det), {"Jump Pack": 1}, det)
    assert set(facts.adds["Jump Pack"]) <= set(taken.keywords)
    roster = Roster(
        "Heretic Astartes",
        det,
        BattleSize.STRIKE_FORCE,
        (RosterUnit(bearer, wargear={"Jump Pack": 1}, warlord=True),),
    )
    assert [v.message_id for v in validate(roster, csm).errors] == []
