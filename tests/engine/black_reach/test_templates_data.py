"""Templates in the forces file (docs/black-reach-data.md): the squares they cover around
their intercase, their CVs and dispersion; abilities naming a template must name one the file
defines; every problem located, all at once; the sample templates are ours."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from app.engine.black_reach.board import DATA_DIR, UnitClass
from app.engine.black_reach.loaders import catalogue_from_dict, load_sample_catalogue
from app.engine.black_reach.templates import template_distance, template_name
from app.engine.errors import ProfileError


def raw_forces() -> dict[str, Any]:
    data = json.loads((DATA_DIR / "forces.json").read_text())
    assert isinstance(data, dict)
    return data


def problems(raw: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ProfileError) as err:
        catalogue_from_dict(raw)
    return dict(err.value.errors)


def test_the_sample_templates_are_read() -> None:
    templates = load_sample_catalogue().templates
    b, big = templates["B"], templates["L"]
    assert b.cells == ((-1, -1), (0, -1), (-1, 0), (0, 0))
    assert b.cv[UnitClass.INFANTRY] == 3
    assert (b.distance, big.distance, len(big.cells)) == (1, 2, 12)
    assert big.dispersion == ((1, -1), (1, 1), (-1, 1), (-1, -1))
    assert (template_name("L/2"), template_distance("L/2", big)) == ("L", 2)
    assert (template_name("B"), template_distance("B", b)) == ("B", 1)


def test_every_template_problem_is_located() -> None:
    raw = raw_forces()
    raw["templates"] = [
        {"id": "X", "cells": []},
        {"id": "Y", "cells": [[0, 40]], "dispersion": [[0, 1], [2, 0]], "distance": 99},
        {"id": "B", "cells": [[0, 0]], "size": 3},
        {"id": "B", "cells": [[0, 0]]},
    ]
    found = problems(raw)
    assert found["templates[0].cells"] == "at least one square"
    assert found["templates[1].cells"] == "offsets from -12 to 12"
    assert found["templates[1].dispersion"] == (
        "four unit directions ([dx, dy], -1 to 1), faces 1-4"
    )
    assert "templates[1].distance" in found
    assert found["templates[2].size"] == "unknown field"
    assert found["templates[3].id"] == "'B' is used twice"


def test_an_ability_must_name_a_defined_template() -> None:
    raw = raw_forces()
    bad = copy.deepcopy(raw)
    shootas = next(i for i, c in enumerate(bad["counters"]) if c["id"] == "sample-ork-shootas")
    bad["counters"][shootas]["faces"][0]["abilities"].append(
        {"id": "indirect_fire", "param": "Z/2"}
    )
    at = len(bad["counters"][shootas]["faces"][0]["abilities"]) - 1
    assert problems(bad) == {
        f"counters[{shootas}].faces[0].abilities[{at}].param": "no template 'Z'"
    }


def test_the_perils_pool_and_power_effects_are_read() -> None:
    catalogue = load_sample_catalogue()
    assert sum(m.count for m in catalogue.perils) == 6
    assert [str(m.effect) for m in catalogue.perils] == [
        "cancelled",
        "steps",
        "suppressed",
        "suppressed",
        "again",
    ]
    endurance = catalogue.options["sample-um-endurance"].power
    assert endurance is not None
    assert (str(endurance.effect), endurance.cost, endurance.range) == ("endurance", 2, 6)
    raw = raw_forces()
    raw["perils"] = [{"effect": "steps"}, {"effect": "cancelled", "count": 6}, {"effect": "boom"}]
    raw["options"][0] = {
        "id": "p",
        "name": "P",
        "faction": "orks",
        "type": "psychic_power",
        "cost": 1,
        "bands": ["x"],
        "power": {"psyker": "weirdboy", "discipline": "w", "cost": 1, "effect": "fly"},
    }
    found = problems(raw)
    assert found["perils[0].value"] == "1 to 3 (steps or Suppressed markers)"
    assert "perils[2].effect" in found
    assert found["perils"] == "at most 6 markers in the pool (one die draws one)"
    assert "options[0].power.effect" in found
