"""The combat service: error paths, validation, the bounded roller, the generic fallback."""

from __future__ import annotations

import pytest

from app.combat import service
from app.combat.exceptions import CombatNotOffered, InvalidCombatRequest, RuleSystemNotFound
from app.combat.schemas import MAX_RESOLVE_DICE
from app.engine import registry
from app.engine.combat import CombatAnalysis, CombatResolution, TargetState
from app.engine.distributions import Dist
from app.engine.errors import ProfileError
from app.engine.registry import RuleSystem
from app.engine.roller import Roller


def test_path_parts_read_engine_paths() -> None:
    assert service.path_parts("attacks[0].weapon.abilities[2]") == [
        "attacks",
        "0",
        "weapon",
        "abilities",
        "2",
    ]
    assert service.path_parts("target.groups[1].save") == ["target", "groups", "1", "save"]
    assert service.path_parts("") == []


def test_profile_errors_name_every_field_and_the_suggestion() -> None:
    exc = ProfileError.collect(
        [
            ProfileError("target.toughness", "must be 1..30"),
            ProfileError("attacks[0].weapon.abilities[1]", "unknown; did you mean 'Twin-linked'?"),
        ]
    )
    errors = service.profile_errors(exc)
    assert [e["field"] for e in errors] == ["target.toughness", "attacks.0.weapon.abilities.1"]
    assert errors[1]["loc"] == ["body", "attacks", "0", "weapon", "abilities", "1"]
    assert errors[1]["suggestion"] == "Twin-linked"
    assert "suggestion" not in errors[0]


def test_validate_uses_the_system_model() -> None:
    with pytest.raises(InvalidCombatRequest) as info:
        service.validate("wh40k-10e", {"attacks": [], "target": {}, "oops": 1})
    fields = {e["field"] for e in info.value.errors or []}
    assert {"attacks", "oops", "target.models"} <= fields


def test_unknown_and_combatless_systems() -> None:
    with pytest.raises(RuleSystemNotFound):
        service.combat_system("nope")
    registry.register(RuleSystem(id="test-service-nocombat", name="No combat"))
    try:
        with pytest.raises(CombatNotOffered):
            service.combat_system("test-service-nocombat")
    finally:
        registry.unregister("test-service-nocombat")


def test_bounded_roller_stops_at_its_limit() -> None:
    roller = service.BoundedRoller(1)
    roller.limit = 3
    roller.d6("a")
    roller.d6("b")
    roller.reroll()
    with pytest.raises(service.TooManyDice):
        roller.d6("c")
    hand = service.BoundedRoller.from_values([1, 2, 3])
    assert hand.limit == MAX_RESOLVE_DICE
    assert [hand.d6("x"), hand.d6("y")] == [1, 2]


def test_bounded_roller_rolls_like_the_engine_roller() -> None:
    plain, bounded = Roller(99), service.BoundedRoller(99)
    assert [plain.d6("x") for _ in range(50)] == [bounded.d6("x") for _ in range(50)]
    assert plain.records == bounded.records


def _dummy_system(system_id: str, dice: int) -> RuleSystem:
    """A rule system without a request model in app.combat: the raw body reaches the hook."""

    def analyze(request: object) -> CombatAnalysis:
        if not isinstance(request, dict) or "n" not in request:
            raise ProfileError("n", "is required")
        d = Dist.die(6)
        return CombatAnalysis(d, Dist.constant(0), d.p_at_least(7), {"rolls": d})

    def resolve(request: object, roller: Roller) -> CombatResolution:
        for _ in range(dice):
            roller.d6("die")
        return CombatResolution(roller.seed, roller.records, {}, TargetState((), 0, 0))

    return RuleSystem(
        id=system_id,
        name="Dummy",
        capabilities=("combat.analyze", "combat.resolve"),
        analyze_combat=analyze,
        resolve_combat=resolve,
    )


def test_a_system_without_a_model_goes_through_the_generic_routes(client) -> None:
    registry.register(_dummy_system("test-dummy", 3))
    try:
        response = client.post("/api/v1/rulesets/test-dummy/combat/analyze", json={"n": 1})
        assert response.status_code == 200, response.text
        assert response.json()["ruleset"] == "test-dummy"
        assert response.json()["damage"]["mean"]["exact"] == "7/2"
        problem = client.post("/api/v1/rulesets/test-dummy/combat/analyze", json={}).json()
        assert problem["errors"][0]["field"] == "n"
        data = client.post("/api/v1/rulesets/test-dummy/combat/resolve", json={"seed": 5}).json()
        assert data["seed"] == 5
        assert len(data["dice"]) == 3
        problem = client.post("/api/v1/rulesets/test-dummy/combat/resolve", json={"seed": "x"})
        assert problem.status_code == 422
        assert problem.json()["errors"][0]["field"] == "seed"
    finally:
        registry.unregister("test-dummy")


def test_a_resolution_rolling_too_many_dice_is_a_422(client) -> None:
    registry.register(_dummy_system("test-greedy", MAX_RESOLVE_DICE + 1))
    try:
        response = client.post("/api/v1/rulesets/test-greedy/combat/resolve", json={})
        assert response.status_code == 422
        assert str(MAX_RESOLVE_DICE) in response.json()["detail"]
    finally:
        registry.unregister("test-greedy")
