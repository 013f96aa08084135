"""A New Recruit JSON Enhancement read from its group (issue 17 review): an item whose
``group`` is a Detachment's Enhancements group is the Enhancement itself, and what it holds is
not taken as more Enhancements; a container named "... Enhancements" still gives its items."""

from __future__ import annotations

import json
from typing import Any

from app.armies import formats

GROUP = "Headhunter Task Force Enhancements"


def _doc(*selections: dict[str, Any]) -> str:
    unit = {"name": "Predator Destructor", "type": "model", "number": 1, "selections": selections}
    force = {
        "name": "Army Roster",
        "catalogueName": "Imperium - Space Marines",
        "selections": [unit],
    }
    return json.dumps({"roster": {"name": "Aces", "forces": [force]}})


def test_an_item_of_the_group_is_the_enhancement_not_what_it_holds() -> None:
    item = {
        "name": "Gunnery Honours",
        "type": "upgrade",
        "number": 1,
        "group": GROUP,
        "selections": [{"name": "Some Note", "type": "upgrade", "number": 1}],
    }
    [unit] = formats.parse(_doc(item)).units
    assert [name for name, _ in unit.enhancements] == ["Gunnery Honours"]
    assert [i.name for i in unit.items] == []


def test_a_container_named_after_the_group_gives_its_items() -> None:
    container = {
        "name": GROUP,
        "type": "upgrade",
        "number": 1,
        "selections": [{"name": "Gunnery Honours", "type": "upgrade", "number": 1}],
    }
    [unit] = formats.parse(_doc(container)).units
    assert [name for name, _ in unit.enhancements] == ["Gunnery Honours"]
