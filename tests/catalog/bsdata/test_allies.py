"""Allies as Warlord or with Enhancements (ruling D19), on the real data: what the importer
reads is checked against a separate reading of the files (ElementTree over the XML, no code of
the importer), the lists against the validator."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from defusedxml.ElementTree import fromstring

from app.catalog.bsdata import ImportResult
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Roster,
    RosterUnit,
    validate,
)

DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "bsdata-wh40k-10e"
KNIGHTS = "Imperium - Imperial Knights - Library.cat"
AGENTS = "Imperium - Agents of the Imperium.cat"
MARINES = "Imperium - Space Marines.cat"


def _read(name: str) -> Element:
    root = fromstring((DATA / name).read_bytes())
    for el in root.iter():
        el.tag = el.tag.split("}", 1)[-1]
    return root


@pytest.fixture(scope="module")
def marines(real_import: ImportResult) -> Catalogue:
    return next(c for c in real_import.catalogues if c.name.endswith("Space Marines"))


def check(cat: Catalogue, *units: RosterUnit) -> list[tuple[str, str, int | None]]:
    roster = Roster(
        faction="Adeptus Astartes",
        detachment="Gladius Task Force",
        battle_size=BattleSize.STRIKE_FORCE,
        units=units,
    )
    return [(v.code.value, v.message_id, v.unit) for v in validate(roster, cat).errors]


def _hidden_unless_primary(entry: Element) -> set[str]:
    """The catalogue ids ``entry`` is hidden without being the primary catalogue of."""
    out = set()
    for m in entry.iter("modifier"):
        if m.get("field") != "hidden" or m.get("value") != "true":
            continue
        for c in m.iter("condition"):
            if c.get("scope") == "primary-catalogue" and c.get("type") == "notInstanceOf":
                out.add(c.get("childId") or "")
    return out


def test_the_knights_are_never_the_warlord_of_a_space_marines_army(marines: Catalogue) -> None:
    knights = _read(KNIGHTS)
    sm_id = _read(MARINES).get("id")
    # the library's shared "Warlord" entries: hidden unless the Knights' own catalogue is the
    # primary one, which Space Marines is not
    warlords = [
        e
        for e in knights.iter("selectionEntry")
        if e.get("name") == "Warlord" and _hidden_unless_primary(e)
    ]
    assert warlords
    ids = {e.get("id") for e in warlords}
    assert all(sm_id not in _hidden_unless_primary(e) for e in warlords)
    # the Character datasheets of the library whose only Warlord link is to such an entry
    characters = {
        c.get("id")
        for doc in (knights, _read("Warhammer 40,000.gst"))
        for c in doc.iter("categoryEntry")
        if c.get("name") == "Character"
    }
    expected = set()
    for e in [*knights.iter("selectionEntry"), *knights.iter("entryLink")]:
        links = e.find("entryLinks")
        cats = e.find("categoryLinks")
        if links is None or cats is None:
            continue
        mine = [x for x in links if x.get("name") == "Warlord"]
        is_char = any(c.get("targetId") in characters for c in cats)
        if mine and is_char and all(x.get("targetId") in ids for x in mine):
            expected.add(e.get("name"))
    got = {s.name for s in marines.datasheets if s.no_warlord}
    assert got == expected
    assert len(got) == 17
    # a Knight as the Warlord is refused; the Captain as Warlord beside it is not
    assert check(marines, RosterUnit("Captain"), RosterUnit("Knight Preceptor", warlord=True)) == [
        ("warlord-not-eligible", "warlord-not-eligible", 1)
    ]
    assert check(marines, RosterUnit("Captain", warlord=True), RosterUnit("Knight Preceptor")) == []


def test_an_assigned_agent_may_be_the_warlord_but_takes_no_enhancement(
    marines: Catalogue,
) -> None:
    agents = _read(AGENTS)
    # the Agents' Warlord entries are never hidden by the primary catalogue: the data offers
    # an Inquisitor as the Warlord of a Space Marines army
    assert not any(
        _hidden_unless_primary(e)
        for e in agents.iter("selectionEntry")
        if e.get("name") == "Warlord"
    )
    assert check(marines, RosterUnit("Captain"), RosterUnit("Inquisitor", warlord=True)) == []
    # the Space Marines' Enhancements groups are linked from Space Marines entries only: no
    # link of the Agents' file targets one, so no Agent is offered them
    sm = _read(MARINES)
    groups = {
        g.get("id")
        for g in sm.iter("selectionEntryGroup")
        if (g.get("name") or "").strip().lower().endswith("enhancements")
    }
    assert groups
    assert not any(link.get("targetId") in groups for link in agents.iter("entryLink"))
    found = check(
        marines,
        RosterUnit("Captain", warlord=True),
        RosterUnit("Inquisitor", enhancements=("Artificer Armour",)),
    )
    assert found == [("enhancement-not-eligible", "enhancement-not-eligible.ally", 1)]
    # the same Enhancement on a Space Marines Character is legal
    assert (
        check(marines, RosterUnit("Captain", warlord=True, enhancements=("Artificer Armour",)))
        == []
    )
