"""The request models match what each engine parser accepts, field for field.

A field the engine accepts but the model lacks would be refused by the API (422) although the
engine could use it; a field the model has but the engine lacks would be accepted by the
schema and refused by the engine. Either is drift: these tests catch it.
"""

from __future__ import annotations

from pydantic import BaseModel

from app.combat.rulesets import pen, spec_for, specs, wh40k10e
from app.combat.service import combat_systems
from app.engine.pen import requests as pen_parser
from app.engine.wh40k10e import profiles as p10


def fields(model: type[BaseModel]) -> set[str]:
    return set(model.model_fields)


def test_10th_edition_model_matches_the_engine_parser() -> None:
    assert fields(wh40k10e.Wh40k10eCombatRequest) == set(p10.REQUEST_FIELDS)
    assert fields(wh40k10e.Wh40k10eAttackEntry) == {"models", "weapon"}
    assert fields(wh40k10e.Wh40k10eWeapon) == p10._WEAPON_FIELDS
    assert fields(wh40k10e.Wh40k10eTarget) == p10._TARGET_FIELDS
    assert fields(wh40k10e.Wh40k10eTargetGroup) == p10._GROUP_FIELDS
    assert fields(wh40k10e.Wh40k10eSituation) == set(p10.SITUATION_FIELDS)


def test_pen_model_matches_the_engine_parser() -> None:
    assert fields(pen.PenCombatRequest) == {"attacker", "weapon", "target", "situation"}
    assert fields(pen.PenUnit) == pen_parser.UNIT_FIELDS
    assert fields(pen.PenWeapon) == pen_parser.WEAPON_FIELDS
    assert fields(pen.PenTarget) == pen_parser.UNIT_FIELDS | pen_parser.VEHICLE_FIELDS
    assert fields(pen.PenArmour) == {"front", "side", "rear"}
    assert fields(pen.PenSituation) == pen_parser.SITUATION_FIELDS


def test_every_model_forbids_unknown_fields_and_coercion() -> None:
    for spec in specs().values():
        for model in (spec.request_model, spec.resolve_model):
            assert model.model_config.get("extra") == "forbid"
            assert model.model_config.get("strict") is True
        assert fields(spec.resolve_model) == fields(spec.request_model) | {"seed", "dice"}


def test_both_combat_systems_have_a_spec_and_a_form() -> None:
    registered = {s.id for s in combat_systems()}
    assert {"wh40k-10e", "pen"} <= registered
    for system_id in ("wh40k-10e", "pen"):
        spec = spec_for(system_id)
        assert spec is not None
        assert spec.form is not None
        assert spec.form.system_id == system_id
        assert spec.limits
    # a system registered later without a spec still works through the generic routes
    # (tests/combat/test_service.py), and the calculator simply does not offer it
