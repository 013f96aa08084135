"""The committed starter catalogue (data/catalog/starter-wh40k10e.json) and its generator."""

from __future__ import annotations

import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest

from app.engine.wh40k10e.army import (
    BattleSize,
    Catalogue,
    Roster,
    RosterUnit,
    load_catalogues,
    validate,
)

ROOT = Path(__file__).resolve().parents[2]
STARTER = ROOT / "data" / "catalog" / "starter-wh40k10e.json"
SCRIPT = ROOT / "scripts" / "make_starter_catalog.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_starter_catalog", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("make_starter_catalog", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def starter() -> Catalogue:
    (catalogue,) = load_catalogues(json.loads(STARTER.read_text(encoding="utf-8")))
    return catalogue


def test_factions_and_the_kinds_of_datasheets_needed(starter: Catalogue) -> None:
    assert starter.id == "starter-wh40k10e"
    assert starter.factions == ("Adeptus Astartes", "Orks")
    for faction in starter.factions:
        sheets = starter.datasheets_of(faction)
        assert any(d.character and not d.epic_hero for d in sheets), faction
        assert any(d.epic_hero for d in sheets), faction
        assert any(d.battleline for d in sheets), faction
        assert any(d.dedicated_transport for d in sheets), faction
        assert any("Vehicle" in d.keywords and not d.dedicated_transport for d in sheets), faction
        assert all(d.points and d.profiles for d in sheets), faction
        assert sum(len(d.weapons) for d in sheets) > 20
        dets = starter.detachments_of(faction)
        assert dets
        assert any(d.enhancements for d in dets)
        assert all(e.points > 0 for d in dets for e in d.enhancements)


def test_sample_lists_are_legal(starter: Catalogue) -> None:
    script = load_script()
    sizes = set()
    for roster in script.SAMPLE_LISTS:
        res = validate(roster, starter)
        assert res.valid, [v.message for v in res.violations]
        assert res.points <= roster.points_limit
        sizes.add(roster.battle_size)
    assert sizes == {BattleSize.INCURSION, BattleSize.STRIKE_FORCE}


def test_a_strike_force_space_marine_list(starter: Catalogue) -> None:
    roster = Roster(
        "Adeptus Astartes",
        "Gladius Task Force",
        BattleSize.STRIKE_FORCE,
        (
            RosterUnit("Captain", warlord=True, enhancements=("Artificer Armour",), attached_to=3),
            RosterUnit("Librarian", attached_to=4),
            RosterUnit("Lieutenant", attached_to=3),
            RosterUnit("Intercessor Squad", models=10),
            RosterUnit("Intercessor Squad", models=10),
            RosterUnit("Assault Intercessor Squad", models=10),
            RosterUnit("Terminator Squad", models=5),
            RosterUnit("Rhino"),
            RosterUnit("Redemptor Dreadnought"),
            RosterUnit("Land Raider"),
            RosterUnit("Ferren Areios [Legends]"),
        ),
        include_legends=True,
    )
    res = validate(roster, starter)
    assert res.valid, [v.message for v in res.violations]
    assert 1000 < res.points <= 2000
    # Without the list's Legends setting, the Legends unit is the only violation.
    without = validate(replace(roster, include_legends=False), starter)
    assert [(v.code.value, v.unit) for v in without.violations] == [("legends-not-included", 10)]


def test_only_names_and_numbers(starter: Catalogue) -> None:
    def strings(v: object) -> list[str]:
        if isinstance(v, str):
            return [v]
        if isinstance(v, dict):
            return [s for x in v.values() for s in strings(x)]
        if isinstance(v, list):
            return [s for x in v for s in strings(x)]
        return []

    found = strings(json.loads(STARTER.read_text(encoding="utf-8")))
    assert max(len(s) for s in found) <= 120
    assert not any("\n" in s for s in found)


def test_the_script_is_deterministic_and_the_file_up_to_date(
    real_files: list[tuple[str, bytes]],
) -> None:
    """Regenerate from the BSData files: the same bytes as the committed file."""
    script = load_script()
    text = script.render(script.build(script.DEFAULT_SOURCE))
    assert text == script.render(script.build(script.DEFAULT_SOURCE))
    assert text == STARTER.read_text(encoding="utf-8")
