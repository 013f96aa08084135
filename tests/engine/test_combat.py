"""Serialisation of the shared combat result types."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any, cast

from app.engine.combat import (
    CombatAnalysis,
    CombatResolution,
    ModelState,
    ResolutionStep,
    TargetState,
    dist_to_jsonable,
    fraction_to_str,
    to_jsonable,
)
from app.engine.distributions import Dist
from app.engine.roller import Roller


def test_fraction_strings() -> None:
    assert fraction_to_str(Fraction(50, 9)) == "50/9"
    assert fraction_to_str(Fraction(4, 2)) == "2"
    assert fraction_to_str(Fraction(0)) == "0"


def test_dist_jsonable_has_mean_rows_and_at_least() -> None:
    out = cast(dict[str, Any], dist_to_jsonable(Dist.die(3)))
    assert out["mean"] == {"exact": "2", "approx": 2.0}
    rows = out["distribution"]
    assert isinstance(rows, list)
    assert rows[0] == {
        "value": 1,
        "exact": "1/3",
        "approx": 0.3333,
        "at_least_exact": "1",
        "at_least_approx": 1.0,
    }
    assert rows[2]["at_least_exact"] == "1/3"


def test_analysis_and_resolution_serialise_to_json() -> None:
    a = CombatAnalysis(
        damage=Dist.die(6),
        models_destroyed=Dist.bernoulli(Fraction(1, 2)),
        wipe_probability=Fraction(1, 9),
        stages={"hits": Dist.constant(2)},
        extra={"groups": [{"name": "main", "p": Fraction(1, 3), "d": Dist.constant(1)}]},
    )
    data = to_jsonable(a)
    assert isinstance(data, dict)
    assert data["wipe_probability"] == {"exact": "1/9", "approx": 0.1111}
    assert set(data) == {"damage", "models_destroyed", "wipe_probability", "stages", "extra"}
    json.dumps(data)
    r = Roller.from_values([5])
    r.d6("hit", stage="hit")
    res = CombatResolution(
        seed=None,
        dice=r.records,
        totals={"hits": 1},
        target_after=TargetState(
            models=(ModelState("main", 2, 0), ModelState("main", 2, 1)),
            wounds_lost=3,
            models_destroyed=1,
        ),
        steps=(ResolutionStep("hits", "1 hit", (0,)),),
    )
    out = cast(dict[str, Any], to_jsonable(res))
    assert isinstance(out, dict)
    assert out["target_after"]["models_remaining"] == 1
    assert out["target_after"]["wiped"] is False
    assert out["dice"][0]["value"] == 5
    json.dumps(out)
