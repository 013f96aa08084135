"""Wargear options inside a choice (issue 17, ruling D20), on the real data of ``../shared/data``.

A Captain (``Imperium - Space Marines.cat``, offered to the Blood Angels) picks one of three
choices of its "Wargear" group; the default one holds a "Melee Weapon" group (a close combat
weapon by default), "Pistol and Melee Weapon" holds only two groups (a pistol, a melee weapon).
The data's shape is read here by a small ElementTree walk of that entry, independent of the
importer; the importer must link each inner group to its choice, the choice made only of
groups must give no weapon of its own, and the validator, the loadout, the builder's rows, the
text export and the pasted-list matcher must open an inner group only to a unit taking its
choice. Skipped, saying why, only when the files are absent."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from defusedxml.ElementTree import fromstring

from app.armies import formats, listtext, loadout, matching
from app.catalog.bsdata import import_files
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Datasheet,
    Roster,
    RosterUnit,
    name_key,
    validate,
)

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
CORE = DATA / "bsdata-wh40k-10e"
MARINES = CORE / "Imperium - Space Marines.cat"
ANGELS = DATA / "bsdata-wh40k-10e-more" / "Imperium - Blood Angels.cat"
BLOOD_ANGELS = "Imperium - Adeptus Astartes - Blood Angels"
NS = "{http://www.battlescribe.net/schema/catalogueSchema}"
PARENT = "Pistol and Melee Weapon"

pytestmark = pytest.mark.skipif(
    not (MARINES.exists() and ANGELS.exists()), reason="../shared/data is not here"
)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _kids(node: ET.Element, kind: str) -> list[ET.Element]:
    """The selection entries, groups or links directly under ``node`` (through the wrapper
    elements ``selectionEntries`` / ``selectionEntryGroups`` / ``entryLinks``)."""
    out = []
    for wrapper in node:
        if _local(wrapper.tag) not in ("selectionEntries", "selectionEntryGroups", "entryLinks"):
            continue
        for child in wrapper:
            if (
                kind == "group"
                and (
                    _local(child.tag) == "selectionEntryGroup"
                    or child.get("type") == "selectionEntryGroup"
                )
            ) or (
                kind == "entry"
                and (
                    _local(child.tag) == "selectionEntry"
                    or (_local(child.tag) == "entryLink" and child.get("type") == "selectionEntry")
                )
            ):
                out.append(child)
    return out


def _xml_shape() -> tuple[str, dict[str, list[tuple[str, str | None, list[str]]]]]:
    """The Captain's "Wargear" group read straight from the XML: its default member's name,
    and for each member the groups directly inside it: (name, default entry's name, names)."""
    root = fromstring(MARINES.read_bytes())
    captain = next(
        e
        for e in root.iter(f"{NS}selectionEntry")
        if e.get("name") == "Captain" and e.get("type") == "model"
    )
    group = next(g for g in _kids(captain, "group") if g.get("name") == "Wargear")
    members = _kids(group, "entry")
    default = next(
        m.get("name", "") for m in members if m.get("id") == group.get("defaultSelectionEntryId")
    )
    shape: dict[str, list[tuple[str, str | None, list[str]]]] = {}
    for m in members:
        inner = []
        for g in _kids(m, "group"):
            entries = _kids(g, "entry")
            dflt = next(
                (e.get("name") for e in entries if e.get("id") == g.get("defaultSelectionEntryId")),
                None,
            )
            inner.append((g.get("name", ""), dflt, [e.get("name", "") for e in entries]))
        shape[m.get("name", "")] = inner
    return default, shape


@pytest.fixture(scope="module")
def angels() -> Catalogue:
    files = [(p.name, p.read_bytes()) for p in (CORE / "Warhammer 40,000.gst", MARINES, ANGELS)]
    result = import_files(files)
    return next(c for c in result.catalogues if c.name == BLOOD_ANGELS)


@pytest.fixture(scope="module")
def captain(angels: Catalogue) -> Datasheet:
    return next(d for d in angels.datasheets if d.name == "Captain")


def _roster(cat: Catalogue, wargear: dict[str, int]) -> Roster:
    return Roster(
        faction=cat.factions[0],
        detachment=cat.detachments_of(cat.factions[0])[0].name,
        battle_size=BattleSize.STRIKE_FORCE,
        units=(RosterUnit("Captain", 1, wargear, warlord=True),),
    )


def _wargear_violations(cat: Catalogue, wargear: dict[str, int]) -> list[tuple[str, str]]:
    result = validate(_roster(cat, wargear), cat)
    return [
        (v.message_id, str(v.params.get("wargear", "")))
        for v in result.violations
        if v.code.value == "wargear-invalid"
    ]


def _carried(sheet: Datasheet, wargear: dict[str, int]) -> dict[str, int]:
    return {name_key(w.name): n for w, n in loadout.loadout(sheet, 1, wargear)}


def test_the_importer_links_each_inner_group_to_its_choice(captain: Datasheet) -> None:
    default, shape = _xml_shape()
    assert PARENT in shape
    assert len(shape[PARENT]) == 2
    assert shape[default]
    outer = next(o for o in captain.wargear_options if o.name == "Wargear" and not o.within)
    assert outer.default == default
    assert {c.name for c in outer.choices} == set(shape)
    inner = [o for o in captain.wargear_options if o.within]
    expected = sorted(
        (member, g, dflt, sorted(names))
        for member, groups in shape.items()
        for g, dflt, names in groups
    )
    got = sorted((o.within, o.name, o.default, sorted(c.name for c in o.choices)) for o in inner)
    assert got == expected
    assert all(o.within_option == "Wargear" for o in inner)
    # the choice made only of groups gives no pretend weapon named after itself
    parent = next(c for c in outer.choices if c.name == PARENT)
    assert parent.weapons == ()


def test_an_inner_choice_needs_its_parent_choice(angels: Catalogue) -> None:
    assert _wargear_violations(angels, {"Plasma pistol": 1}) == [
        ("wargear-invalid.requires", "Plasma pistol")
    ]
    other = "Heavy Bolt Pistol, Master-crafted power weapon and 1 Relic Shield"
    # the default choice is replaced: its own inner melee weapon is no longer open
    assert _wargear_violations(angels, {other: 1, "Power fist": 1}) == [
        ("wargear-invalid.requires", "Power fist")
    ]
    # the default choice kept: its inner melee weapon is open
    assert _wargear_violations(angels, {"Power fist": 1}) == []
    assert _wargear_violations(angels, {PARENT: 1, "Plasma pistol": 1, "Power fist": 1}) == []
    # one pistol per choice taken
    two = {PARENT: 1, "Plasma pistol": 1, "Neo-volkite Pistol": 1, "Power fist": 1}
    found = _wargear_violations(angels, two)
    assert [m for m, _ in found] == ["wargear-invalid.alternatives"]
    result = validate(_roster(angels, {"Plasma pistol": 1}), angels)
    fix = next(v.fix for v in result.violations if v.message_id == "wargear-invalid.requires")
    assert fix == f"Take {PARENT}, or remove Plasma pistol."


def _inner_minimums() -> dict[str, int]:
    """The groups inside the Captain's "Pistol and Melee Weapon" choice, read from the XML:
    each group's own ``min`` (scope ``parent``) and its members' names."""
    _default, shape = _xml_shape()
    root = fromstring(MARINES.read_bytes())
    captain = next(
        e
        for e in root.iter(f"{NS}selectionEntry")
        if e.get("name") == "Captain" and e.get("type") == "model"
    )
    group = next(g for g in _kids(captain, "group") if g.get("name") == "Wargear")
    parent = next(m for m in _kids(group, "entry") if m.get("name") == PARENT)
    out: dict[str, int] = {}
    for g in _kids(parent, "group"):
        out[g.get("name", "")] = max(
            int(c.get("value", "0"))
            for c in g.findall(f"{NS}constraints/{NS}constraint")
            if c.get("type") == "min"
            and c.get("scope") == "parent"
            and c.get("field") == "selections"
        )
    assert set(out) == {g for g, _, _ in shape[PARENT]}
    return out


def test_a_choice_taken_without_its_inner_picks_is_an_error(
    angels: Catalogue, captain: Datasheet
) -> None:
    """The groups inside "Pistol and Melee Weapon" say "take at least 1" (ADR 0017's
    nested minimum): taking the choice with no pick gives the Captain no weapon at all."""
    minimums = _inner_minimums()
    assert minimums == {"Pistol": 1, "Melee Weapon": 1}
    inner = {o.name: o for o in captain.wargear_options if o.within == PARENT}
    assert {n: o.min for n, o in inner.items()} == minimums
    assert all(o.default is None for o in inner.values())

    def errors(wargear: dict[str, int]) -> list[tuple[str, str, int, str]]:
        result = validate(_roster(angels, wargear), angels)
        return sorted(
            (v.message_id, str(v.params["option"]), int(v.params["missing"]), v.fix)
            for v in result.errors
            if v.message_id == "wargear-invalid.required-within"
        )

    pistols = ", ".join(c.name for c in inner["Pistol"].choices)
    melee = ", ".join(c.name for c in inner["Melee Weapon"].choices)
    found = errors({PARENT: 1})
    assert [(m, o, n) for m, o, n, _ in found] == [
        ("wargear-invalid.required-within", "Melee Weapon", 1),
        ("wargear-invalid.required-within", "Pistol", 1),
    ]
    fixes = {f for _, _, _, f in found}
    assert f"Add 1 of {pistols} (Pistol), or remove {PARENT}." in fixes
    assert f"Add 1 of {melee} (Melee Weapon), or remove {PARENT}." in fixes
    assert not validate(_roster(angels, {PARENT: 1}), angels).valid
    # one pick made: the other group still lacks its own
    assert [o for _, o, _, _ in errors({PARENT: 1, "Plasma pistol": 1})] == ["Melee Weapon"]
    # both picks made, or the choice not taken: nothing is required
    assert errors({PARENT: 1, "Plasma pistol": 1, "Power fist": 1}) == []
    assert errors({}) == []
    assert errors({"Power fist": 1}) == []
    assert validate(_roster(angels, {PARENT: 1, "Plasma pistol": 1, "Power fist": 1}), angels).valid


def test_the_loadout_follows_the_choice_taken(captain: Datasheet) -> None:
    default, shape = _xml_shape()
    # the default: the default member's own weapons and its inner group's default
    inner_default = next(d for _, d, _ in shape[default] if d)
    assert set(_carried(captain, {})) == {
        name_key(n) for n in ("Bolt pistol", "Master-crafted bolter", inner_default)
    }
    assert _carried(captain, {"Power fist": 1}) == {
        name_key("Bolt pistol"): 1,
        name_key("Master-crafted bolter"): 1,
        name_key("Power fist"): 1,
    }
    # the parent replaces the default, the inner picks give the weapons: nothing else
    assert _carried(captain, {PARENT: 1, "Plasma pistol": 1, "Power fist": 1}) == {
        name_key("Plasma pistol"): 1,
        name_key("Power fist"): 1,
    }
    described = loadout.describe(captain, 1, {PARENT: 1, "Plasma pistol": 1, "Power fist": 1})
    assert "Plasma pistol" in described
    assert "Power fist" in described
    assert PARENT not in described
    # an inner pick whose choice is not taken adds nothing on top of the default
    assert _carried(captain, {"Plasma pistol": 1}) == _carried(captain, {})


def test_the_builder_offers_inner_rows_once_their_choice_is_taken(captain: Datasheet) -> None:
    def rows(wargear: dict[str, int]) -> dict[str, int]:
        return {r.name: r.max for r in loadout.wargear_rows(captain, 1, wargear)}

    closed = rows({})
    assert "Plasma pistol" not in closed
    assert PARENT in closed
    assert closed["Power fist"] == 1  # the default's inner melee weapon, once
    opened = rows({PARENT: 1})
    assert opened["Plasma pistol"] == 1
    assert opened["Power fist"] == 1
    # an inner pick taken without its choice stays listed (to be removed, or kept while the
    # choice is taken), with the option's own most so that the form still saves
    assert rows({"Plasma pistol": 1})["Plasma pistol"] == 1


def test_text_export_and_the_pasted_list_follow(angels: Catalogue) -> None:
    wargear = {PARENT: 1, "Plasma pistol": 1, "Master-crafted power weapon": 1}
    roster = _roster(angels, wargear)
    result = validate(roster, angels)
    assert [v for v in result.violations if v.code.value == "wargear-invalid"] == []
    text = listtext.export_text(roster, angels, result)
    assert "Plasma pistol" in text
    assert "Master-crafted power weapon" in text
    assert PARENT not in text
    assert "Bolt pistol" not in text
    back = matching.match(formats.parse(text), angels)
    assert back.problems == []
    assert back.roster is not None
    assert {name_key(k): v for k, v in back.roster.units[0].wargear.items()} == {
        name_key(k): v for k, v in wargear.items()
    }


PASTED = """+++++++++++++++++++++++++++++++++++++++++++++++
+ FACTION KEYWORD: Imperium - Adeptus Astartes - Blood Angels
+ DETACHMENT: {detachment}
+ TOTAL ARMY POINTS: 80pts
+
+ WARLORD: Char1: Captain
+ NUMBER OF UNITS: 1
+++++++++++++++++++++++++++++++++++++++++++++++

Char1: 1x Captain (80 pts): {gear}
"""


def test_a_pasted_captain_with_inner_picks(angels: Catalogue) -> None:
    detachment = angels.detachments_of(angels.factions[0])[0].name

    def read(gear: str) -> matching.Matched:
        return matching.match(
            formats.parse(PASTED.format(detachment=detachment, gear=gear)), angels
        )

    legal = read("Plasma pistol, Master-crafted power weapon")
    assert legal.problems == []
    assert legal.roster is not None
    assert dict(legal.roster.units[0].wargear) == {
        PARENT: 1,
        "Plasma pistol": 1,
        "Master-crafted power weapon": 1,
    }
    # a plasma pistol on top of the default weapons is no loadout of the datasheet
    extra = read("Bolt pistol, Close combat weapon, Master-crafted bolter, Plasma pistol")
    assert extra.roster is None
    assert any("Plasma pistol: 1 listed, 0 possible" in p.message for p in extra.problems)
