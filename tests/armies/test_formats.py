"""The formats players paste (app.armies.formats) mapped onto the starter catalogue
(app.armies.matching), and our text export (app.armies.listtext) read back as the same list.

The fixtures in tests/armies/pasted/ are our own wording of the layouts: the official app's text,
New Recruit's WTC and roster text, and New Recruit's JSON, each for the same 355-point list."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.armies import formats, listtext, loadout, matching
from app.catalog.starter import starter_catalogue
from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Roster,
    RosterUnit,
    parent_option,
    validate,
)

PASTED = Path(__file__).parent / "pasted"
CATALOGUE = starter_catalogue()

EXPECTED = [
    ("Captain", 1, {}, ("Artificer Armour",), True),
    ("Intercessor Squad", 5, {}, (), False),
    ("Rhino", 1, {"Hunter-killer missile": 1}, (), False),
    ("Hellblaster Squad", 5, {"Plasma pistol": 1}, (), False),
]


def _units(roster: Roster) -> list[tuple[object, ...]]:
    return [
        (u.datasheet, u.models, dict(u.wargear), u.enhancements, u.warlord) for u in roster.units
    ]


@pytest.mark.parametrize(
    ("file", "fmt"),
    [("app.txt", "app"), ("wtc.txt", "wtc"), ("roster.txt", "roster"), ("roster.json", "json")],
)
def test_each_format_reads_the_same_list(file: str, fmt: str) -> None:
    pasted = formats.parse((PASTED / file).read_text(encoding="utf-8"))
    assert pasted.format == fmt
    found = matching.match(pasted, CATALOGUE)
    assert found.problems == []
    assert found.roster is not None
    assert found.roster.faction == "Adeptus Astartes"
    assert found.roster.detachment == "Gladius Task Force"
    assert found.roster.battle_size == BattleSize.INCURSION
    assert _units(found.roster) == EXPECTED
    result = validate(found.roster, CATALOGUE)
    assert result.points == 355
    assert [found.stated_points[i] for i in range(4)] == [u.points for u in result.units]


def test_the_app_footer_is_recognised_and_a_sub_faction_is_a_note() -> None:
    pasted = formats.parse((PASTED / "app.txt").read_text(encoding="utf-8"))
    assert [w for w, _t in pasted.ignored] == ["line 48"]
    found = matching.match(pasted, CATALOGUE)
    assert [(n.where, n.text) for n in found.notes] == [("line 4", "Ultramarines")]


def test_points_in_digits_that_are_not_ascii_are_not_points() -> None:
    # "\u00b2".isdigit() is true but int() cannot read it (a paste answered 500)
    assert formats._int("\u00b2\u00b2\u00b2") is None
    assert formats._int("1,995") == 1995


def test_every_line_not_understood_is_reported_with_its_number() -> None:
    text = (PASTED / "app.txt").read_text(encoding="utf-8")
    lines = text.split("\n")
    lines[11] = "  • 1x Laser sword"  # line 12: a weapon the Captain does not have
    lines.insert(20, "Some words that mean nothing")  # line 21
    lines[31] = "Rhinoceros (75 Points)"  # line 32: no such datasheet
    pasted = formats.parse("\n".join(lines))
    found = matching.match(pasted, CATALOGUE)
    assert found.roster is None
    where = {p.where for p in found.problems}
    assert where >= {"line 12", "line 21", "line 32"}
    messages = {p.where: p.message for p in found.problems}
    assert "not a weapon or wargear option of Captain" in messages["line 12"]
    assert "not a unit" in messages["line 21"]
    assert "not a datasheet of Adeptus Astartes" in messages["line 32"]
    # asked to, the list is built without them, and they are still reported
    skipped = matching.match(pasted, CATALOGUE, skip=True)
    assert skipped.roster is not None
    assert [u.datasheet for u in skipped.roster.units] == [
        "Captain",
        "Intercessor Squad",
        "Hellblaster Squad",
    ]
    assert {p.where for p in skipped.problems} >= {"line 12", "line 21", "line 32"}


def test_weapons_that_no_choice_gives_are_refused() -> None:
    text = (
        (PASTED / "app.txt")
        .read_text(encoding="utf-8")
        .replace(
            "    ◦ 4x Plasma Incinerator", "    ◦ 4x Plasma Incinerator\n    ◦ 2x Plasma pistol"
        )
    )
    found = matching.match(formats.parse(text), CATALOGUE)
    assert found.roster is None
    assert any("does not match the datasheet's options" in p.message for p in found.problems)


def test_names_ignore_case_spaces_and_accents() -> None:
    text = (PASTED / "app.txt").read_text(encoding="utf-8")
    text = text.replace("Captain (90", "cAPTAÍN  (90").replace("Bolt pistol", "BOLT  PISTOL")
    found = matching.match(formats.parse(text), CATALOGUE)
    assert found.problems == []
    assert found.roster is not None
    assert _units(found.roster) == EXPECTED


def test_a_detachment_of_another_faction_is_refused() -> None:
    text = (
        (PASTED / "wtc.txt").read_text(encoding="utf-8").replace("Gladius Task Force", "War Horde")
    )
    found = matching.match(formats.parse(text), CATALOGUE)
    assert found.roster is None
    assert [p.message for p in found.problems if p.where == "line 3"] == [
        "a detachment of Orks, not of Adeptus Astartes"
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x" * (formats.MAX_TEXT_BYTES + 1), "larger than"),
        ("\n" * (formats.MAX_LINES + 1), "more than"),
        ("{not json", "not valid JSON"),
        ('{"roster": {"forces": []}}', "no force"),
        ('{"roster": ' + "[" * 5000 + "]" * 5000 + "}", ""),
    ],
)
def test_bounds(text: str, message: str) -> None:
    with pytest.raises(formats.FormatRefused, match=message):
        formats.parse(text)


# -- our text export, read back ----------------------------------------------------------------

FACTIONS = {f: [d for d in CATALOGUE.datasheets_of(f) if not d.legends] for f in CATALOGUE.factions}


@st.composite
def rosters(draw: st.DrawFn) -> Roster:
    faction = draw(st.sampled_from(CATALOGUE.factions))
    detachments = CATALOGUE.detachments_of(faction)
    det = draw(st.sampled_from(detachments))
    units: list[RosterUnit] = []
    for _ in range(draw(st.integers(1, 8))):
        sheet = draw(st.sampled_from(FACTIONS[faction]))
        models = draw(st.integers(sheet.min_models, sheet.max_models))
        wargear: dict[str, int] = {}
        for opt in sheet.wargear_options:
            if draw(st.booleans()):
                choice = draw(st.sampled_from(opt.choices))
                if opt.default is not None and choice.name == opt.default:
                    continue
                wargear[choice.name] = 1
        # a choice inside a choice the unit does not take gives nothing (ruling D20): not
        # part of the text (the validator refuses it)
        for opt in sheet.wargear_options:
            parent = parent_option(sheet.wargear_options, opt)
            if parent is None or opt.within in wargear:
                continue
            by_default = parent.default == opt.within and not any(
                c.name in wargear for c in parent.choices
            )
            if not by_default:
                for c in opt.choices:
                    wargear.pop(c.name, None)
        optional = [m for m in sheet.models if m.min == 0 and m.max > 0]
        if len(sheet.models) > 1 and optional and draw(st.booleans()):
            m = draw(st.sampled_from(optional))
            room = models - sum(o.min for o in sheet.models if o is not m)
            wargear[m.name] = draw(st.integers(0, max(0, min(m.max, room))))
        # a choice for a model type the unit has none of gives nothing: not part of the text
        counts = {
            matching.key(k): v for k, v in loadout.model_counts(sheet, models, wargear).items()
        }
        by_option = {c.name: o.model for o in sheet.wargear_options for c in o.choices if o.model}
        wargear = {
            k: v
            for k, v in wargear.items()
            if k not in by_option or counts.get(matching.key(by_option[k]), 1) > 0
        }
        enh = ()
        if sheet.character and det.enhancements and draw(st.booleans()):
            enh = (draw(st.sampled_from(det.enhancements)).name,)
        units.append(
            RosterUnit(
                sheet.name,
                models=models,
                wargear=wargear,
                enhancements=enh,
                warlord=sheet.character and not any(u.warlord for u in units),
                label=draw(st.sampled_from(["", "Alpha", "Left flank"])),
            )
        )
    leaders = [
        i for i, u in enumerate(units) if CATALOGUE.datasheet(u.datasheet, faction).leader_of
    ]  # type: ignore[union-attr]
    if leaders and len(units) > 1 and draw(st.booleans()):
        i = leaders[0]
        j = draw(st.sampled_from([k for k in range(len(units)) if k != i]))
        u = units[i]
        units[i] = RosterUnit(
            u.datasheet, u.models, dict(u.wargear), u.enhancements, u.warlord, j, u.label
        )
    size = draw(st.sampled_from(list(BattleSize)))
    return Roster(
        faction, det.name, size, tuple(units), name=draw(st.sampled_from(["", "Night raid"]))
    )


def _in_text_order(roster: Roster, catalogue: Catalogue) -> list[tuple[object, ...]]:
    order = listtext.text_order(roster, catalogue)
    position = {ri: n for n, ri in enumerate(order)}
    out = []
    for ri in order:
        u = roster.units[ri]
        sheet = catalogue.datasheet(u.datasheet, roster.faction)
        assert sheet is not None
        target = position.get(u.attached_to) if u.attached_to is not None else None
        out.append((matching.signature(sheet, u), u.enhancements, u.warlord, u.label, target))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rosters())
def test_our_text_export_reads_back_as_the_same_list(roster: Roster) -> None:
    text = listtext.export_text(roster, CATALOGUE, validate(roster, CATALOGUE))
    found = matching.match(formats.parse(text), CATALOGUE)
    assert found.problems == [], text
    back = found.roster
    assert back is not None
    assert (back.faction, back.detachment, back.battle_size) == (
        roster.faction,
        roster.detachment,
        roster.battle_size,
    )
    assert back.name == (roster.name or f"{roster.faction} army")
    assert _in_text_order(back, CATALOGUE) == _in_text_order(roster, CATALOGUE)
    assert validate(back, CATALOGUE).points == validate(roster, CATALOGUE).points
    # and exporting the list read back gives the same text
    assert listtext.export_text(back, CATALOGUE, validate(back, CATALOGUE)) == text.replace(
        f"{roster.faction} army (", f"{back.name} (", 1
    )


def test_the_export_lists_wargear_per_model_type() -> None:
    roster = Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.INCURSION,
        (
            RosterUnit(
                "Intercessor Squad",
                models=10,
                wargear={"Intercessor w/ Grenade Launcher": 2, "Power weapon": 1},
            ),
            RosterUnit("Captain", warlord=True, attached_to=0),
        ),
        name="Spear",
    )
    text = listtext.export_text(roster, CATALOGUE, validate(roster, CATALOGUE))
    assert (
        "CHARACTERS\n\nCaptain (80 points)\n  • Warlord\n  • Attached to: Intercessor Squad (#2)"
        in text
    )
    assert (
        "  • 2x Intercessor w/ Grenade Launcher\n    ◦ 2x Bolt Rifle\n"
        "    ◦ 2x Astartes grenade launcher"
    ) in text
    assert "  • 1x Intercessor Sergeant\n    ◦ 1x Power weapon\n" in text
    assert "  • 7x Intercessor\n" in text
