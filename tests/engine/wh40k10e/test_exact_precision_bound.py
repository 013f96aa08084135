"""Precision into a unit with a sergeant and a CHARACTER goes through the general chain, whose
up-front estimate refused 10 x D6 with every ability (issue 18) although the chain answers it
in about 50 ms: it is answered now, identical to the plain engine, and a much larger one is
still refused at once (30 x D6 is answered since the chain prunes along Precision's line:
test_exact_precision_line.py; 30 x D6+3 with D6+1 damage is not)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from app.engine.errors import ProfileError
from app.engine.wh40k10e import analyze
from app.engine.wh40k10e.profiles import request_from_dict
from tests.engine.wh40k10e import plain
from tests.engine.wh40k10e.factory import mixed_unit, weapon

ABILITIES = ["Sustained Hits 1", "Lethal Hits", "Devastating Wounds", "Precision"]


def _request(
    models: int, bodyguard: int, attacks: str = "D6", damage: str = "D3"
) -> dict[str, Any]:
    return {
        "attacks": [
            {
                "models": models,
                "weapon": weapon(attacks=attacks, abilities=ABILITIES, damage=damage),
            }
        ],
        "target": mixed_unit(bodyguard),
    }


def test_precision_from_ten_models_into_a_mixed_unit_is_answered_exactly() -> None:
    req = request_from_dict(_request(10, 18))
    new, old = analyze(req), plain.analyze(req)
    assert new.damage == old.damage
    assert new.models_destroyed == old.models_destroyed
    assert new.wipe_probability == old.wipe_probability
    assert new.stages == old.stages


def test_precision_from_thirty_models_of_d6_plus_3_attacks_is_refused_at_once() -> None:
    req = request_from_dict(_request(30, 28, attacks="D6+3", damage="D6+1"))
    with pytest.raises(ProfileError) as err:
        analyze(req)
    assert "too large to analyse exactly" in err.value.message
    best = min(_refusal_seconds(req) for _ in range(3))  # after the warm-up above
    assert best < 0.1


def _refusal_seconds(req: Any) -> float:
    start = time.process_time()
    with pytest.raises(ProfileError):
        analyze(req)
    return time.process_time() - start
