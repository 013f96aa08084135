"""What the builder offers on real data (issue 17): a choice the data hides by the bearer's own
keywords is not offered, checked against a separate reading of the files (ElementTree over the
XML, no code of the importer)."""

from __future__ import annotations

from pathlib import Path

import pytest
from defusedxml.ElementTree import fromstring

from app.catalog.bsdata import import_files
from app.engine.wh40k10e.army import BattleSize, Catalogue, Roster, RosterUnit, name_key, validate
from app.engine.wh40k10e.army.offer import unavailable_choices
from tests.catalog.bsdata.test_army_limits import CSM_FILES

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"


@pytest.fixture(scope="module")
def csm() -> Catalogue:
    if not (DATA / "bsdata-wh40k-10e-more").is_dir():
        pytest.skip(f"the BSData files are not present at {DATA}")
    files = [(name, (DATA / folder / name).read_bytes()) for folder, name in CSM_FILES]
    result = import_files(files)
    return next(c for c in result.catalogues if c.name == "Chaos - Chaos Space Marines")


def _mark_of_chaos_hidden_for() -> tuple[str, set[str]]:
    """The "Mark of Chaos" group's "Chaos Undivided" entry, read from the file: the names of
    the categories whose bearers it is hidden from (``instanceOf`` on the ancestor)."""
    root = fromstring(
        (DATA / "bsdata-wh40k-10e-more" / "Chaos - Chaos Space Marines.cat").read_bytes()
    )
    for el in root.iter():
        el.tag = el.tag.split("}", 1)[-1]
    system = fromstring((DATA / "bsdata-wh40k-10e" / "Warhammer 40,000.gst").read_bytes())
    names = {
        c.get("id"): c.get("name")
        for doc in (root, system)
        for c in doc.iter()
        if c.tag.endswith("categoryEntry")
    }
    group = next(g for g in root.iter("selectionEntryGroup") if g.get("name") == "Mark of Chaos")
    entry = next(e for e in group.iter("selectionEntry") if e.get("name") == "Chaos Undivided")
    hidden_for = set()
    for m in entry.iter("modifier"):
        if m.get("field") == "hidden" and m.get("value") == "true":
            for c in m.iter("condition"):
                if c.get("type") == "instanceOf" and c.get("scope") == "ancestor":
                    hidden_for.add(names.get(c.get("childId"), ""))
    return entry.get("name") or "", hidden_for


def test_a_daemon_prince_is_not_offered_chaos_undivided(csm: Catalogue) -> None:
    name, hidden_for = _mark_of_chaos_hidden_for()
    assert hidden_for == {"Daemon Prince"}
    det = csm.detachments_of("Heretic Astartes")[0].name
    offered_to = [
        s
        for s in csm.datasheets
        if any(c.name == name for o in s.wargear_options for c in o.choices)
    ]
    princes = [s for s in offered_to if "Daemon Prince" in csm.datasheet_in(s, det).keywords]
    others = [s for s in offered_to if s not in princes]
    assert len(princes) == 2  # the Daemon Prince, with and without wings
    assert others  # the Chaos Lord, Sorcerer...
    for s in princes:
        assert name_key(name) in unavailable_choices(csm.datasheet_in(s, det), det)
    for s in others:
        assert name_key(name) not in unavailable_choices(csm.datasheet_in(s, det), det)
    # what the builder withholds is what the validator refuses
    prince = princes[0].name
    roster = Roster(
        faction="Heretic Astartes",
        detachment=det,
        battle_size=BattleSize.STRIKE_FORCE,
        units=(RosterUnit(prince, warlord=True, wargear={name: 1}),),
    )
    assert [(v.code.value, v.message_id) for v in validate(roster, csm).errors] == [
        ("wargear-invalid", "wargear-invalid.unavailable")
    ]


def test_a_mark_of_chaos_where_the_data_shows_it(csm: Catalogue) -> None:
    """Chaos - Chaos Space Marines.cat, group "Mark of Chaos" (5581-5d38-90b8-f8cd): hidden in
    the Army Roster while the roster holds no "Pactbound Zealots" (53dd-68f7-7c1f-3e5d) and the
    bearer is no Daemon Prince; its min (d4ae-1dc8-3dfe-e03a, 0) is set to 1 while the bearer
    has fewer than 1 of it: a Mark is required wherever the group is shown (ruling D20)."""
    root = fromstring(
        (DATA / "bsdata-wh40k-10e-more" / "Chaos - Chaos Space Marines.cat").read_bytes()
    )
    for el in root.iter():
        el.tag = el.tag.split("}", 1)[-1]
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    group = by_id["5581-5d38-90b8-f8cd"]
    box = group.find("constraints")
    assert box is not None
    (minimum,) = [c for c in box if c.get("type") == "min"]
    assert (minimum.get("id"), minimum.get("value")) == ("d4ae-1dc8-3dfe-e03a", "0")
    own = group.find("modifiers")
    assert own is not None
    raise_ = next(m for m in own if m.get("field") == "d4ae-1dc8-3dfe-e03a")
    assert raise_.get("value") == "1"
    assert {(c.get("type"), c.get("childId")) for c in raise_.iter("condition")} >= {
        ("lessThan", "5581-5d38-90b8-f8cd")
    }
    hide = next(m for m in own if m.get("field") == "hidden")
    named = {by_id.get(c.get("childId"), c).get("name") for c in hide.iter("condition")}
    assert "Pactbound Zealots" in named
    marks = [e.get("name") or "" for e in group.iter("selectionEntry")]
    zealots, other = "Pactbound Zealots", "Veterans of the Long War"
    lord = csm.datasheet("Chaos Lord")
    assert lord is not None
    assert not {name_key(m) for m in marks} & unavailable_choices(lord, zealots)
    assert {name_key(m) for m in marks} <= unavailable_choices(lord, other)

    def check(det: str, wargear: dict[str, int]) -> list[tuple[str, str]]:
        roster = Roster(
            faction="Heretic Astartes",
            detachment=det,
            battle_size=BattleSize.STRIKE_FORCE,
            units=(RosterUnit("Chaos Lord", warlord=True, wargear=wargear),),
        )
        return [(v.severity.value, v.message_id) for v in validate(roster, csm).violations]

    assert check(zealots, {}) == [("warning", "wargear-invalid.required-while")]
    assert check(zealots, {"Khorne": 1}) == []
    assert check(other, {}) == []
    assert check(other, {"Khorne": 1}) == [("error", "wargear-invalid.unavailable")]
