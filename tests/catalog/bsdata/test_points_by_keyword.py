"""Points set by a count of a keyword in the unit (issue 17, ruling D28): the Windriders
(``Aeldari - Aeldari Library.cat``) cost 80 points for 3 models and 160 for 4 to 6, which the
data writes as a ``set`` of the points under an ``or`` of two cases: 4 to 6 models and no
Warlock Skyrunner in the unit, or 5 to 7 models and one. No entry of the Windriders unit
carries the Warlock Skyrunners keyword (a Warlock Skyrunner is a datasheet of its own, a
Leader), so that count is 0 in every list and the first case decides. Read here from the XML
with ElementTree, following the unit's links, and priced by a small evaluator of the data's
conditions, not by the importer. The tests skip only when the files are absent."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from defusedxml.ElementTree import fromstring

from app.catalog.bsdata import import_files
from app.engine.wh40k10e.army import BattleSize, Catalogue, Roster, RosterUnit, validate

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"
CORE = DATA / "bsdata-wh40k-10e"
MORE = DATA / "bsdata-wh40k-10e-more"
LIBRARY = MORE / "Aeldari - Aeldari Library.cat"
CRAFTWORLDS = MORE / "Aeldari - Craftworlds.cat"
PTS = "51b2-306e-1021-d207"  # the game system's "pts" cost type
COMPARE = {
    "atLeast": lambda a, b: a >= b,
    "atMost": lambda a, b: a <= b,
    "greaterThan": lambda a, b: a > b,
    "lessThan": lambda a, b: a < b,
    "equalTo": lambda a, b: a == b,
    "notEqualTo": lambda a, b: a != b,
}

pytestmark = pytest.mark.skipif(
    not (LIBRARY.is_file() and CRAFTWORLDS.is_file()), reason="../shared/data is not here"
)


def _root(path: Path) -> Element:
    root = fromstring(path.read_bytes())
    for el in root.iter():
        el.tag = el.tag.split("}", 1)[-1]
    return root


class Windriders:
    """The Windriders entry as the file writes it."""

    def __init__(self) -> None:
        root = _root(LIBRARY)
        self.ids = {e.get("id"): e for e in root.iter() if e.get("id")}
        [self.entry] = [
            e
            for e in root.iter("selectionEntry")
            if e.get("name") == "Windriders" and e.get("type") == "unit"
        ]
        costs = self.entry.find("costs")
        assert costs is not None
        [cost] = [c for c in costs if c.get("typeId") == PTS]
        self.base = float(cost.get("value") or "0")
        box = self.entry.find("modifiers")
        assert box is not None
        [self.points_set] = [m for m in box if m.get("field") == PTS]
        assert self.points_set.get("type") == "set"
        self.keywords = {
            c.get("childId") or ""
            for c in self.points_set.iter("condition")
            if c.get("childId") != "model"
        }

    def categories_in_unit(self) -> set[str]:
        """Every category linked by the unit's entry or anything below it, links followed."""
        found: set[str] = set()
        stack, seen = [self.entry], set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            for el in node.iter():
                if el.tag == "categoryLink":
                    found.add(el.get("targetId") or "")
                if el.tag == "modifier" and el.get("field") == "category":
                    found.add(el.get("value") or "")
                if el.tag == "entryLink" and el.get("targetId") in self.ids:
                    stack.append(self.ids[el.get("targetId")])
        return found

    def _holds(self, el: Element, models: int, keyword: int) -> bool:
        if el.tag == "condition":
            counted = models if el.get("childId") == "model" else keyword
            return COMPARE[el.get("type") or ""](counted, float(el.get("value") or "0"))
        parts = [*el.findall("conditions/condition"), *el.findall("conditionGroups/conditionGroup")]
        values = [self._holds(p, models, keyword) for p in parts]
        return any(values) if el.get("type") == "or" else all(values)

    def points(self, models: int, keyword: int) -> int:
        """The unit's points as BattleScribe sets them: the base cost, or the modifier's value
        when its conditions hold."""
        if self._holds(self.points_set, models, keyword):
            return round(float(self.points_set.get("value") or "0"))
        return round(self.base)


@pytest.fixture(scope="module")
def aeldari() -> Catalogue:
    files = [
        (p.name, p.read_bytes()) for p in (CORE / "Warhammer 40,000.gst", LIBRARY, CRAFTWORLDS)
    ]
    result = import_files(files)
    return next(c for c in result.catalogues if c.datasheet("Windriders") is not None)


def test_no_entry_of_the_unit_carries_the_keyword_counted() -> None:
    facts = Windriders()
    assert len(facts.keywords) == 1
    assert not facts.keywords & facts.categories_in_unit()
    # the keyword does exist: another datasheet of the file carries it
    assert all(k in facts.ids and facts.ids[k].tag == "categoryEntry" for k in facts.keywords)


def test_windriders_cost_what_the_file_sets(aeldari: Catalogue) -> None:
    facts = Windriders()
    sheet = aeldari.datasheet("Windriders")
    assert sheet is not None
    expected = {
        n: facts.points(n, keyword=0) for n in range(sheet.min_models, sheet.max_models + 1)
    }
    assert expected[3] == facts.base
    assert expected[6] != facts.base  # the file does raise it
    assert {n: sheet.points_for(n) for n in expected} == expected
    faction = aeldari.factions[0]
    det = aeldari.detachments_of(faction)[0].name
    for n, points in expected.items():
        roster = Roster(faction, det, BattleSize.STRIKE_FORCE, (RosterUnit("Windriders", n),))
        assert validate(roster, aeldari).units[0].points == points
