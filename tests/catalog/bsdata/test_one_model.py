"""A count inside one model type that the unit holds at most once (ruling D21): "at least N"
there is the unit's count when nothing else in the unit offers what is counted. On the real
Space Marines file, with the numbers and ids read from the file here, not by the importer."""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element

import pytest
from defusedxml.ElementTree import fromstring

from app.catalog.bsdata import import_files
from app.engine.wh40k10e.army import BattleSize, Catalogue, Roster, RosterUnit, validate
from tests.catalog.bsdata.test_required import SM_CORE

DATA = Path(__file__).resolve().parents[4] / "shared" / "data"
SM = "Imperium - Space Marines.cat"
SERGEANT = "a3e6-65a5-763f-4ac"  # Tactical Marine Sergeant (a model type of the Tactical Squad)
CLAWS = "8bd8-a0de-a0b9-a72e"  # Twin lightning claws (a shared entry)


@pytest.fixture(scope="module")
def space_marines() -> Catalogue:
    if not (DATA / "bsdata-wh40k-10e").is_dir():
        pytest.skip(f"the BSData files are not present at {DATA}")
    files = [(n, (DATA / "bsdata-wh40k-10e" / n).read_bytes()) for n in SM_CORE]
    result = import_files(files)
    return next(c for c in result.catalogues if c.name.endswith("Space Marines"))


def _root() -> Element:
    root = fromstring((DATA / "bsdata-wh40k-10e" / SM).read_bytes())
    for el in root.iter():
        el.tag = el.tag.split("}", 1)[-1]
    return root


def _max(entry: Element) -> int | None:
    box = entry.find("constraints")
    for c in box if box is not None else ():
        if c.get("type") == "max" and c.get("field") == "selections":
            return int(float(c.get("value") or 0))
    return None


def _names(entry: Element) -> set[str]:
    return {
        (e.get("name") or "").strip()
        for e in entry.iter()
        if e.tag in ("selectionEntry", "entryLink") and e is not entry
    }


def test_the_sergeants_claws_close_his_other_weapons(space_marines: Catalogue) -> None:
    root = _root()
    by_id = {e.get("id"): e for e in root.iter() if e.get("id")}
    sergeant = by_id[SERGEANT]
    assert sergeant.get("type") == "model"
    assert _max(sergeant) == 1
    # his "Weapon 1" and "Weapon 2" groups: each max set to 0 while the sergeant (scope: his
    # own id) holds at least 1 Twin lightning claws
    closed: dict[str, set[str]] = {}
    for group in sergeant.iter("selectionEntryGroup"):
        box = group.find("constraints")
        caps = {
            c.get("id")
            for c in (box if box is not None else ())
            if c.get("type") == "max" and c.get("field") == "selections"
        }
        for m in group.iter("modifier"):
            conds = list(m.iter("condition"))
            if (
                m.get("field") in caps
                and m.get("value") == "0"
                and len(conds) == 1
                and conds[0].get("scope") == SERGEANT
                and conds[0].get("childId") == CLAWS
                and conds[0].get("type") == "atLeast"
                and conds[0].get("value") == "1"
            ):
                closed[group.get("name") or ""] = _names(group)
    assert set(closed) == {"Weapon 1", "Weapon 2"}
    assert "Plasma pistol" in closed["Weapon 1"]
    assert "Combi-weapon" in closed["Weapon 2"]
    # the claws are offered to the sergeant only among the squad's models
    squad = next(
        e
        for e in root.iter("selectionEntry")
        if e.get("name") == "Tactical Squad" and e.get("type") == "unit"
    )
    claws = [
        e for e in squad.iter("entryLink") if e.get("targetId") == CLAWS or e.get("id") == CLAWS
    ]
    assert len(claws) == 1
    assert claws[0] in list(sergeant.iter("entryLink"))

    detachment = space_marines.detachments_of("Adeptus Astartes")[0].name

    def check(wargear: dict[str, int]) -> list[tuple[str, str, int | None]]:
        res = validate(
            Roster(
                faction="Adeptus Astartes",
                detachment=detachment,
                battle_size=BattleSize.STRIKE_FORCE,
                units=(
                    RosterUnit("Captain", warlord=True),
                    RosterUnit("Tactical Squad", models=10, wargear=wargear),
                ),
            ),
            space_marines,
        )
        return [(v.severity.value, v.message_id, v.unit) for v in res.violations if v.unit == 1]

    # the claws alone, or a pistol alone: legal
    assert check({"Twin lightning claws": 1}) == []
    assert check({"Plasma pistol": 1}) == []
    # the claws replace both: a plasma pistol or a combi-weapon beside them is refused
    assert check({"Twin lightning claws": 1, "Plasma pistol": 1}) == [
        ("error", "wargear-invalid.unavailable", 1)
    ]
    assert check({"Twin lightning claws": 1, "Combi-weapon": 1}) == [
        ("error", "wargear-invalid.unavailable", 1)
    ]
