"""Keywords a wargear choice adds (ruling D22) and a choice the whole army may take only so
often (ruling D23), on the real Space Marines file: the "Tank Ace Character" choice of
Headhunter Task Force makes a vehicle a Character, so it may take the Detachment's
Enhancement and be the Warlord. What the file says (ids, the category it adds, the Detachment
that shows it, its points, its limit in the army, the vehicles that offer it) is read here from
the XML, not through the importer."""

from __future__ import annotations

import json
from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from defusedxml.ElementTree import fromstring

from app.armies import formats, listtext, matching
from app.catalog.bsdata import import_files
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Roster,
    RosterUnit,
    export_json,
    import_json,
    validate,
)
from app.engine.wh40k10e.army.offer import unavailable_choices
from tests.catalog.bsdata.test_required import SM_CORE

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "bsdata-wh40k-10e"
SM = "Imperium - Space Marines.cat"
GST = "Warhammer 40,000.gst"
TANK_ACE = "Tank Ace Character"
VEHICLE = "Predator Destructor"  # one of the vehicles the file offers it on (checked below)
OTHER_VEHICLE = "Whirlwind"


def _root(name: str) -> Element:
    root = fromstring((DATA / name).read_bytes())
    for el in root.iter():
        el.tag = el.tag.split("}", 1)[-1]
    return root


class FileFacts:
    """What the file says about the Tank Ace choice, read from the XML."""

    def __init__(self) -> None:
        sm, gst = _root(SM), _root(GST)
        categories = {
            e.get("id"): (e.get("name") or "") for r in (sm, gst) for e in r.iter("categoryEntry")
        }
        by_id = {e.get("id"): e for e in sm.iter() if e.get("id")}
        [entry] = [e for e in sm.iter("selectionEntry") if e.get("name") == TANK_ACE]
        self.id = entry.get("id") or ""
        mods = list(entry.find("modifiers") or ())
        # the category it adds to the unit that takes it (scope root-entry)
        self.adds = [
            categories[m.get("value")]
            for m in mods
            if m.get("field") == "category"
            and m.get("type") == "add"
            and m.get("scope") == "root-entry"
        ]
        # the Detachment outside which it is hidden ("fewer than 1 <Detachment> in the roster")
        hidden = [m for m in mods if m.get("field") == "hidden" and m.get("value") == "true"]
        self.detachments = [
            by_id[c.get("childId")].get("name")
            for m in hidden
            for c in m.iter("condition")
            if c.get("field") == "selections" and c.get("type") == "lessThan"
        ]
        self.points = sum(
            float(c.get("value") or 0)
            for c in entry.iter("cost")
            if (c.get("name") or "").lower() == "pts"
        )
        box = entry.find("constraints")
        self.roster_max = [
            int(float(c.get("value") or 0))
            for c in (box if box is not None else ())
            if c.get("type") == "max" and c.get("scope") == "roster"
        ]
        # the datasheets (root entries) that link it
        linked: set[str] = set()
        for root_link in sm.iter("entryLink"):
            links = root_link.find("entryLinks")
            if links is not None and any(
                x.get("targetId") == self.id for x in links.iter("entryLink")
            ):
                linked.add(root_link.get("name") or "")
        for root_entry in sm.iter("selectionEntry"):
            links = root_entry.find("entryLinks")
            if links is not None and any(
                x.get("targetId") == self.id for x in links.iter("entryLink")
            ):
                linked.add(root_entry.get("name") or "")
        self.linked = linked
        [group] = [
            g
            for g in sm.iter("selectionEntryGroup")
            if g.get("name") == f"{self.detachments[0]} Enhancements"
        ]
        first = next(group.iter("selectionEntry"))
        self.enhancement = first.get("name") or ""
        self.enhancement_points = int(
            sum(
                float(c.get("value") or 0)
                for c in first.iter("cost")
                if (c.get("name") or "").lower() == "pts"
            )
        )


@pytest.fixture(scope="module")
def facts() -> FileFacts:
    if not DATA.is_dir():
        pytest.skip(f"the BSData files are not present at {DATA}")
    return FileFacts()


@pytest.fixture(scope="module")
def space_marines(facts: FileFacts) -> Catalogue:
    result = import_files([(n, (DATA / n).read_bytes()) for n in SM_CORE])
    return next(c for c in result.catalogues if c.name.endswith("Space Marines"))


def _base_points(cat: Catalogue, name: str) -> int:
    sheet = cat.datasheet(name)
    assert sheet is not None
    points = sheet.points_for(1)
    assert points is not None
    return points


def roster(detachment: str, *units: RosterUnit) -> Roster:
    return Roster("Adeptus Astartes", detachment, BattleSize.STRIKE_FORCE, units, name="Hunters")


def test_the_file_says_what_this_test_relies_on(facts: FileFacts) -> None:
    assert facts.adds == ["Character"]
    assert facts.detachments == ["Headhunter Task Force"]
    assert facts.roster_max == [3]
    assert {VEHICLE, OTHER_VEHICLE} <= facts.linked
    assert len(facts.linked) >= 40


def test_every_vehicle_that_links_it_offers_it_with_the_keyword(
    space_marines: Catalogue, facts: FileFacts
) -> None:
    offering = {
        d.name: c
        for d in space_marines.datasheets
        for o in d.wargear_options
        for c in o.choices
        if c.name == TANK_ACE
    }
    assert set(offering) == facts.linked
    for name, choice in offering.items():
        assert choice.keywords == tuple(facts.adds), name
        assert choice.points == facts.points, name
        assert choice.max_in_roster == facts.roster_max[0], name
        assert choice.weapons == (TANK_ACE,), name  # its Warlord entry is no wargear


def test_a_legal_headhunter_list_with_a_tank_ace_carrying_an_enhancement(
    space_marines: Catalogue, facts: FileFacts
) -> None:
    det = facts.detachments[0]
    ace = RosterUnit(
        VEHICLE, wargear={TANK_ACE: 1}, enhancements=(facts.enhancement,), warlord=True
    )
    result = validate(roster(det, ace, RosterUnit(OTHER_VEHICLE)), space_marines)
    assert result.violations == ()
    assert result.valid
    assert result.points == (
        _base_points(space_marines, VEHICLE)
        + int(facts.points)
        + facts.enhancement_points
        + _base_points(space_marines, OTHER_VEHICLE)
    )
    # the builder offers the choice in this Detachment only
    sheet = space_marines.datasheet(VEHICLE)
    assert sheet is not None
    assert TANK_ACE.lower() not in unavailable_choices(space_marines.datasheet_in(sheet, det), det)
    assert TANK_ACE.lower() in unavailable_choices(sheet, "Gladius Task Force")


def test_the_same_enhancement_on_a_vehicle_without_tank_ace_is_refused(
    space_marines: Catalogue, facts: FileFacts
) -> None:
    det = facts.detachments[0]
    plain = RosterUnit(VEHICLE, enhancements=(facts.enhancement,))
    ace = RosterUnit(OTHER_VEHICLE, wargear={TANK_ACE: 1}, warlord=True)
    result = validate(roster(det, plain, ace), space_marines)
    assert [(v.code.value, v.unit) for v in result.violations] == [("enhancement-not-eligible", 0)]


def test_tank_ace_outside_its_detachment_is_refused(
    space_marines: Catalogue, facts: FileFacts
) -> None:
    ace = RosterUnit(VEHICLE, wargear={TANK_ACE: 1})
    captain = RosterUnit("Captain", warlord=True)
    result = validate(roster("Gladius Task Force", captain, ace), space_marines)
    assert [(v.message_id, v.unit) for v in result.violations] == [
        ("wargear-invalid.unavailable", 1)
    ]
    assert "Headhunter Task Force" in result.violations[0].message


def test_the_army_takes_at_most_the_files_number_of_tank_aces(
    space_marines: Catalogue, facts: FileFacts
) -> None:
    det = facts.detachments[0]
    limit = facts.roster_max[0]
    names = sorted(n for n in facts.linked if "[Legends]" not in n)[: limit + 1]
    units = [RosterUnit(n, wargear={TANK_ACE: 1}, warlord=i == 0) for i, n in enumerate(names)]
    result = validate(roster(det, *units), space_marines)
    assert [(v.message_id, v.unit) for v in result.violations] == [
        ("wargear-invalid.roster", limit)
    ]
    assert validate(roster(det, *units[:limit]), space_marines).violations == ()


def test_a_tank_ace_survives_our_text_and_json_exports(
    space_marines: Catalogue, facts: FileFacts
) -> None:
    det = facts.detachments[0]
    ace = RosterUnit(
        VEHICLE, wargear={TANK_ACE: 1}, enhancements=(facts.enhancement,), warlord=True
    )
    army = roster(det, RosterUnit(OTHER_VEHICLE), ace)
    result = validate(army, space_marines)
    text = listtext.export_text(army, space_marines, result)
    # listed with the Characters, and the choice by name
    characters = text.split("CHARACTERS", 1)[1].split("OTHER DATASHEETS", 1)[0]
    assert VEHICLE in characters
    assert f"1x {TANK_ACE}" in characters
    found = matching.match(formats.parse(text), space_marines)
    assert found.problems == [], text
    back = found.roster
    assert back is not None
    assert back.detachment == det
    [unit] = [u for u in back.units if u.datasheet == VEHICLE]
    assert dict(unit.wargear) == {TANK_ACE: 1}
    assert unit.enhancements == (facts.enhancement,)
    assert unit.warlord
    assert validate(back, space_marines).violations == ()
    assert validate(back, space_marines).points == result.points
    assert import_json(export_json(army, space_marines)) == army


def test_a_new_recruit_json_list_with_a_tank_ace_is_read(
    space_marines: Catalogue, facts: FileFacts
) -> None:
    """A roster JSON as New Recruit writes it: the Warlord entry inside the Tank Ace choice, the
    Enhancement an item of the Detachment's own group ("<Detachment> Enhancements")."""
    det = facts.detachments[0]
    group = f"{det} Enhancements"
    sheet = space_marines.datasheet(VEHICLE)
    assert sheet is not None
    defaults = [  # what the vehicle carries anyway, listed by New Recruit too
        {"name": w, "type": "upgrade", "number": 1} for w in sheet.models[0].default_wargear
    ]
    ace = {
        "name": VEHICLE,
        "type": "model",
        "number": 1,
        "selections": [
            {
                "name": TANK_ACE,
                "type": "upgrade",
                "number": 1,
                "selections": [{"name": "Warlord", "type": "upgrade", "number": 1}],
            },
            {"name": facts.enhancement, "type": "upgrade", "number": 1, "group": group},
            *defaults,
        ],
    }
    doc = {
        "roster": {
            "name": "Hunters",
            "costLimits": [{"name": "pts", "value": 2000}],
            "forces": [
                {
                    "name": "Army Roster",
                    "catalogueName": "Imperium - Space Marines",
                    "selections": [
                        {
                            "name": "Battle Size",
                            "type": "upgrade",
                            "selections": [{"name": "2. Strike Force (2000 Point limit)"}],
                        },
                        {"name": "Detachment", "type": "upgrade", "selections": [{"name": det}]},
                        ace,
                    ],
                }
            ],
        }
    }
    found = matching.match(formats.parse(json.dumps(doc)), space_marines)
    assert found.problems == []
    assert found.roster is not None
    [unit] = found.roster.units
    assert (dict(unit.wargear), unit.enhancements, unit.warlord) == (
        {TANK_ACE: 1},
        (facts.enhancement,),
        True,
    )
    assert validate(found.roster, space_marines).violations == ()
