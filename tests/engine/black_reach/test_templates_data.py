"""Templates in the forces file (docs/black-reach-data.md): the squares they cover around
their intercase, their CVs and dispersion; an ability's template param has one shape (letters,
"/" and 1-2 ASCII digits), a template the file lacks is an army violation and a refusal at use;
every problem located, all at once; the sample templates are ours."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from app.engine.black_reach.armies import Army, Fielded, Filled, validate_army
from app.engine.black_reach.board import UnitClass
from app.engine.black_reach.forces import Faction
from app.engine.black_reach.loaders import catalogue_from_dict, load_sample_catalogue
from app.engine.black_reach.templates import (
    MAX_TEMPLATE_REACH,
    parse_template_param,
    template_distance,
    template_name,
)
from tests.engine.black_reach.forces_data import problems, raw_forces


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


def _with_shootas_ability(raw: dict[str, Any], ability: dict[str, Any]) -> tuple[int, int]:
    """Add ``ability`` to the Shootas' first face; their index and the ability's."""
    shootas = next(i for i, c in enumerate(raw["counters"]) if c["id"] == "sample-ork-shootas")
    raw["counters"][shootas]["faces"][0]["abilities"].append(ability)
    return shootas, len(raw["counters"][shootas]["faces"][0]["abilities"]) - 1


@pytest.mark.parametrize(
    "param",
    ["B/\u00b2", "B/\u0662", "B/999999", "B/", "/2", "B2", "B/2/3", "\u00c9", "B 2", "b/-1", 2],
)
def test_a_template_param_of_another_shape_is_refused_located(param: object) -> None:
    # "²".isdigit() and "٢".isdigit() are true and int("²") fails: the review's 500 (issue 16)
    raw = raw_forces()
    shootas, at = _with_shootas_ability(raw, {"id": "indirect_fire", "param": param})
    assert problems(raw) == {
        f"counters[{shootas}].faces[0].abilities[{at}].param": (
            "a template's letters, then / and 1 or 2 digits: B, L/2"
        )
    }


def test_a_template_param_is_parsed_in_one_place_and_its_distance_capped() -> None:
    big = load_sample_catalogue().templates["L"]
    assert parse_template_param("L/2") == ("L", 2)
    assert parse_template_param("weirdboy") == ("weirdboy", None)
    assert parse_template_param("L/99") == ("L", MAX_TEMPLATE_REACH)
    assert template_distance("L/99", big) == 12  # never past the reach the reader allows
    assert template_distance("L/07", big) == 7
    assert template_distance("L/0", big) == 0
    for bad in ("B/\u00b2", "B/999999", None, 3, "B/2 "):
        assert parse_template_param(bad) is None
        assert template_name(bad) == ""
        assert template_distance(bad, big) == big.distance == 2


def test_a_template_the_file_lacks_is_judged_where_it_is_used() -> None:
    # the file stays readable (a set being edited, a log made before templates were data)
    raw = raw_forces()
    _with_shootas_ability(raw, {"id": "indirect_fire", "param": "Z/2"})
    krunch = next(i for i, o in enumerate(raw["options"]) if o["id"] == "sample-ork-krunch")
    raw["options"][krunch]["power"]["template"] = "Q"
    catalogue = catalogue_from_dict(raw)
    without = copy.deepcopy(raw)
    del without["templates"]
    assert catalogue_from_dict(without).templates == {}
    # an army fielding them is told where (no_template); the match refuses them at use
    army = Army(
        Faction.ORKS,
        (
            Fielded("sample-ork-mob"),
            Fielded("sample-ork-weirdboy", (Filled(0, option="sample-ork-krunch"),)),
        ),
    )
    found = [(v.code, v.where) for v in validate_army(army, catalogue)]
    assert found == [("no_template", "tiles[0].tile"), ("no_template", "tiles[1].slots[0].option")]
    assert validate_army(army, load_sample_catalogue()) == ()


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
