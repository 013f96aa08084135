"""JSON API of combat: exact answers, validation naming each field, 404s, seeds, limits.

The happy path is checked against a hand computation with exact fractions, independent of the
engine: 10 Intercessors with bolt rifles (A2 BS3+ S4 AP-1 D1) into 5 models T4 Sv3+ W2.
Per attack: hit on 3+ (2/3) [core rules, hit roll], S4 = T4 wounds on 4+ (1/2, RULINGS 1),
Sv3+ with AP-1 saves on 4+ so fails with 1/2 (RULINGS 4): P(unsaved) = 1/6. Each unsaved
attack inflicts 1 damage on the wounded model first (RULINGS 11), so with N ~ Bin(20, 1/6)
unsaved attacks the unit loses min(N, 10) wounds and floor(min(N, 10) / 2) models.
"""

from __future__ import annotations

import copy
from fractions import Fraction
from math import comb

import pytest

from app.engine import registry
from app.engine.registry import RuleSystem

ANALYZE = "/api/v1/rulesets/wh40k-10e/combat/analyze"
RESOLVE = "/api/v1/rulesets/wh40k-10e/combat/resolve"
PROBLEM = "application/problem+json"

BOLT_RIFLES = {
    "attacks": [
        {
            "models": 10,
            "weapon": {
                "name": "Bolt rifle",
                "kind": "ranged",
                "attacks": "2",
                "skill": 3,
                "strength": 4,
                "ap": -1,
                "damage": "1",
                "abilities": ["Heavy", "Assault"],
            },
        }
    ],
    "target": {
        "models": 5,
        "toughness": 4,
        "save": 3,
        "invulnerable_save": None,
        "wounds": 2,
        "feel_no_pain": None,
        "keywords": ["INFANTRY"],
    },
    "situation": {
        "half_range": False,
        "remained_stationary": False,
        "charged": False,
        "cover": False,
        "hit_modifier": 0,
        "wound_modifier": 0,
        "reroll_hits": "none",
        "reroll_wounds": "none",
    },
}


def body(**changes: object) -> dict:
    """The bolt-rifle request with dotted-path changes (``{"target.toughness": 0}``)."""
    out = copy.deepcopy(BOLT_RIFLES)
    for path, value in changes.items():
        node: object = out
        parts = path.split(".")
        for part in parts[:-1]:
            node = node[int(part)] if isinstance(node, list) else node[part]  # type: ignore[index]
        last = parts[-1]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value  # type: ignore[index]
    return out


def frac(text: str) -> Fraction:
    return Fraction(text)


def binomial(n: int, p: Fraction) -> list[Fraction]:
    return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def test_bolt_rifles_exact_fractions(client) -> None:
    response = client.post(ANALYZE, json=BOLT_RIFLES)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/json"
    data = response.json()
    assert data["ruleset"] == "wh40k-10e"

    unsaved = binomial(20, Fraction(1, 6))
    damage = {v: sum(p for k, p in enumerate(unsaved) if min(k, 10) == v) for v in range(11)}
    models = {m: sum(p for k, p in enumerate(unsaved) if min(k, 10) // 2 == m) for m in range(6)}

    got_damage = {row["value"]: frac(row["exact"]) for row in data["damage"]["distribution"]}
    assert got_damage == {v: p for v, p in damage.items() if p}
    assert frac(data["damage"]["mean"]["exact"]) == sum(v * p for v, p in damage.items())
    assert data["damage"]["mean"]["approx"] == pytest.approx(
        float(sum(v * p for v, p in damage.items())), abs=1e-4
    )
    got_models = {r["value"]: frac(r["exact"]) for r in data["models_destroyed"]["distribution"]}
    assert got_models == {m: p for m, p in models.items() if p}
    assert frac(data["models_destroyed"]["mean"]["exact"]) == sum(m * p for m, p in models.items())
    assert frac(data["wipe_probability"]["exact"]) == models[5] == sum(unsaved[10:])
    # P(at least k) of each row
    for row in data["damage"]["distribution"]:
        assert frac(row["at_least_exact"]) == sum(p for v, p in damage.items() if v >= row["value"])

    means = {name: frac(stage["mean"]["exact"]) for name, stage in data["stages"].items()}
    assert means["attacks"] == 20
    assert means["hits"] == Fraction(40, 3)
    assert means["wounds"] == Fraction(20, 3)
    assert means["failed_saves"] == Fraction(10, 3)
    assert means["mortal_wounds"] == 0
    assert isinstance(data["extra"], dict)


def test_fractions_are_reduced_strings(client) -> None:
    data = client.post(ANALYZE, json=BOLT_RIFLES).json()
    for row in data["damage"]["distribution"]:
        q = Fraction(row["exact"])
        assert row["exact"] == (
            str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
        )
    assert data["stages"]["attacks"]["mean"]["exact"] == "20"


def _problem(response, status: int) -> dict:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM
    data = response.json()
    assert data["status"] == status
    assert data["type"].startswith("https://")
    assert data["title"]
    return data


def _fields(problem: dict) -> dict[str, dict]:
    return {e["field"]: e for e in problem["errors"]}


@pytest.mark.parametrize(
    ("path", "field"),
    [
        ("attackz", "attackz"),
        ("attacks.0.weapon.strenght", "attacks.0.weapon.strenght"),
        ("target.toughnes", "target.toughnes"),
        ("situation.half_rang", "situation.half_rang"),
    ],
)
def test_unknown_field_is_a_422_naming_it(client, path: str, field: str) -> None:
    problem = _problem(client.post(ANALYZE, json=body(**{path: 1})), 422)
    assert field in _fields(problem)
    assert _fields(problem)[field]["type"] == "extra_forbidden"


def test_unknown_ability_names_the_field_and_suggests(client) -> None:
    request = body(**{"attacks.0.weapon.abilities": ["Heavy", "Lethal Hitz"]})
    problem = _problem(client.post(ANALYZE, json=request), 422)
    errors = _fields(problem)
    assert list(errors) == ["attacks.0.weapon.abilities.1"]
    error = errors["attacks.0.weapon.abilities.1"]
    assert error["suggestion"] == "Lethal Hits"
    assert "Lethal Hitz" in error["message"]
    assert error["loc"] == ["body", "attacks", "0", "weapon", "abilities", "1"]
    assert "did you mean 'Lethal Hits'" in problem["detail"]


def test_t0_skill7_and_bad_dice_are_each_named(client) -> None:
    request = body(
        **{"target.toughness": 0, "attacks.0.weapon.skill": 7, "attacks.0.weapon.damage": "D7"}
    )
    errors = _fields(_problem(client.post(ANALYZE, json=request), 422))
    assert set(errors) == {
        "target.toughness",
        "attacks.0.weapon.skill",
        "attacks.0.weapon.damage",
    }
    assert "D7" in errors["attacks.0.weapon.damage"]["message"]


@pytest.mark.parametrize("dice", ["banana", "11D6", "D6+", "2D", "", "D6+101"])
def test_malformed_dice_expressions(client, dice: str) -> None:
    errors = _fields(
        _problem(client.post(ANALYZE, json=body(**{"attacks.0.weapon.attacks": dice})), 422)
    )
    assert "attacks.0.weapon.attacks" in errors


def test_rules_level_errors_from_the_engine_name_the_field(client) -> None:
    # a weapon without skill must be a Torrent weapon: checked by the engine, not the schema
    errors = _fields(
        _problem(client.post(ANALYZE, json=body(**{"attacks.0.weapon.skill": None})), 422)
    )
    assert errors["attacks.0.weapon.skill"]["type"] == "invalid_profile"


def test_type_mismatch_is_not_coerced(client) -> None:
    errors = _fields(_problem(client.post(ANALYZE, json=body(**{"target.toughness": "4"})), 422))
    assert "target.toughness" in errors


def test_unknown_ruleset_is_a_404_problem(client) -> None:
    for action in ("analyze", "resolve"):
        problem = _problem(client.post(f"/api/v1/rulesets/no-such/combat/{action}", json={}), 404)
        assert problem["type"].endswith("ruleset-not-found")
        assert "no-such" in problem["detail"]


def test_a_system_without_combat_is_a_404_saying_so(client) -> None:
    registry.register(RuleSystem(id="test-no-combat", name="Board game without combat"))
    try:
        for action in ("analyze", "resolve"):
            problem = _problem(
                client.post(f"/api/v1/rulesets/test-no-combat/combat/{action}", json={}), 404
            )
            assert problem["type"].endswith("combat-not-offered")
            assert "Board game without combat" in problem["detail"]
    finally:
        registry.unregister("test-no-combat")


def test_resolve_is_deterministic_by_seed(client) -> None:
    first = client.post(RESOLVE, json={**BOLT_RIFLES, "seed": 1234})
    second = client.post(RESOLVE, json={**BOLT_RIFLES, "seed": 1234})
    assert first.status_code == 200, first.text
    assert first.json() == second.json()
    data = first.json()
    assert data["seed"] == 1234
    assert data["ruleset"] == "wh40k-10e"
    hits = [d for d in data["dice"] if d["stage"] == "hit"]
    assert len(hits) == 20
    assert all(1 <= d["value"] <= 6 and d["outcome"] for d in hits)
    assert data["target_after"]["wounds_lost"] == data["totals"]["damage"]
    assert len(data["target_after"]["models"]) == 5
    assert data["steps"]
    other = client.post(RESOLVE, json={**BOLT_RIFLES, "seed": 4321}).json()
    assert [d["value"] for d in other["dice"]] != [d["value"] for d in data["dice"]]


def test_resolve_without_seed_returns_the_seed_it_used(client) -> None:
    data = client.post(RESOLVE, json=BOLT_RIFLES).json()
    assert isinstance(data["seed"], int)
    again = client.post(RESOLVE, json={**BOLT_RIFLES, "seed": data["seed"]}).json()
    assert again["dice"] == data["dice"]


def test_resolve_with_dice_rolled_by_hand(client) -> None:
    one_attack = body(**{"attacks.0.models": 1, "attacks.0.weapon.attacks": "1"})
    # hit 6 (critical), wound 4, save 1 (fails): one wound lost
    data = client.post(RESOLVE, json={**one_attack, "dice": [6, 4, 1]}).json()
    assert data["seed"] is None
    assert [d["value"] for d in data["dice"]] == [6, 4, 1]
    assert data["target_after"]["wounds_lost"] == 1
    # too few dice: a 422 on `dice`, not a 500
    errors = _fields(_problem(client.post(RESOLVE, json={**one_attack, "dice": [6]}), 422))
    assert "dice" in errors
    # a D6 value of 7 is refused by the schema
    errors = _fields(_problem(client.post(RESOLVE, json={**one_attack, "dice": [7, 4, 1]}), 422))
    assert "dice.0" in errors


def test_resolve_refuses_seed_and_dice_together_and_bad_seeds(client) -> None:
    errors = _fields(
        _problem(client.post(RESOLVE, json={**BOLT_RIFLES, "seed": 1, "dice": [6]}), 422)
    )
    assert "dice" in errors
    for seed in (-1, 2**53, "12", 1.5):
        errors = _fields(_problem(client.post(RESOLVE, json={**BOLT_RIFLES, "seed": seed}), 422))
        assert "seed" in errors


def test_analyze_does_not_take_a_seed(client) -> None:
    errors = _fields(_problem(client.post(ANALYZE, json={**BOLT_RIFLES, "seed": 3}), 422))
    assert "seed" in errors


def test_malformed_json_and_wrong_body_are_problems(client) -> None:
    response = client.post(
        ANALYZE, content=b"{not json", headers={"content-type": "application/json"}
    )
    assert response.status_code in (400, 422)
    assert response.headers["content-type"] == PROBLEM
    _problem(client.post(ANALYZE, json=[1, 2]), 422)
    _problem(client.post(ANALYZE, json={}), 422)


def test_openapi_documents_one_body_per_system(client) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    paths = spec["paths"]
    for system, model in (("wh40k-10e", "Wh40k10eCombatRequest"), ("pen", "PenCombatRequest")):
        for action in ("analyze", "resolve"):
            operation = paths[f"/api/v1/rulesets/{system}/combat/{action}"]["post"]
            ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            assert ref.endswith(
                model if action == "analyze" else model.replace("Request", "ResolveRequest")
            )
            assert "Size limits" in operation["description"]
            assert "422" in operation["responses"]
            assert "404" in operation["responses"]
    assert "/api/v1/rulesets/{ruleset}/combat/analyze" not in paths
    schemas = spec["components"]["schemas"]
    for name in ("Wh40k10eCombatRequest", "Wh40k10eWeapon", "Wh40k10eTarget", "PenTarget"):
        assert schemas[name]["additionalProperties"] is False
    skill = schemas["Wh40k10eWeapon"]["properties"]["skill"]["anyOf"][0]
    assert (skill["minimum"], skill["maximum"]) == (2, 6)
    resolve = spec["components"]["schemas"]["Wh40k10eCombatResolveRequest"]
    assert {"seed", "dice"} <= set(resolve["properties"])


def test_body_too_large_is_a_413_problem(client) -> None:
    huge = {**BOLT_RIFLES, "target": {**BOLT_RIFLES["target"], "keywords": ["X" * 80] * 20000}}
    response = client.post(ANALYZE, json=huge)
    assert response.status_code == 413
    assert response.headers["content-type"] == PROBLEM


PEN_ANALYZE = "/api/v1/rulesets/pen/combat/analyze"
PEN_RESOLVE = "/api/v1/rulesets/pen/combat/resolve"
PEN_BOLTERS = {
    "attacker": {"models": 10, "ws": 4, "bs": 4, "strength": 4, "attacks": 1, "initiative": 4},
    "weapon": {
        "name": "Bolter",
        "kind": "ranged",
        "type": "rapid fire",
        "shots": 1,
        "strength": 4,
        "ap": 5,
        "properties": [],
    },
    "target": {
        "models": 10,
        "ws": 4,
        "toughness": 4,
        "wounds": 1,
        "save": 4,
        "invulnerable_save": None,
        "cover_save": None,
        "feel_no_pain": None,
    },
    "situation": {"half_range": False, "stationary": False, "target_moved": 0},
}
PEN_LASCANNON = {
    "attacker": {"models": 1, "bs": 4},
    "weapon": {"name": "Lascannon", "type": "heavy 1", "strength": 9, "ap": 2},
    "target": {
        "armour": {"front": 14, "side": 13, "rear": 10},
        "facing": "side",
        "hull_points": 3,
        "types": ["tank"],
    },
}


@pytest.mark.parametrize("request_body", [PEN_BOLTERS, PEN_LASCANNON], ids=["unit", "vehicle"])
def test_pen_analysis_is_the_engines_own_answer(client, request_body: dict) -> None:
    from app.engine import registry, systems
    from app.engine.combat import to_jsonable

    systems.load_all()
    expected = to_jsonable(registry.get("pen").analyze_combat(request_body))
    response = client.post(PEN_ANALYZE, json=request_body)
    assert response.status_code == 200, response.text
    assert response.json() == {"ruleset": "pen", **expected}  # type: ignore[dict-item]


def test_pen_errors_name_fields_and_suggest(client) -> None:
    body = copy.deepcopy(PEN_BOLTERS)
    body["weapon"]["properties"] = ["Rendng"]
    body["target"]["toughness"] = 11
    body["target"]["armor"] = {}
    errors = _fields(_problem(client.post(PEN_ANALYZE, json=body), 422))
    assert {"target.toughness", "target.armor"} <= set(errors)
    body = copy.deepcopy(PEN_BOLTERS)
    body["weapon"]["properties"] = ["Blast"]
    errors = _fields(_problem(client.post(PEN_ANALYZE, json=body), 422))
    assert errors["weapon.properties.0"]["suggestion"] == "Blessant"
    # a vehicle target takes only vehicle fields: the engine names the stray one
    body = copy.deepcopy(PEN_LASCANNON)
    body["target"]["toughness"] = 4
    errors = _fields(_problem(client.post(PEN_ANALYZE, json=body), 422))
    assert "target.toughness" in errors


def test_pen_resolve_is_deterministic(client) -> None:
    first = client.post(PEN_RESOLVE, json={**PEN_LASCANNON, "seed": 99}).json()
    second = client.post(PEN_RESOLVE, json={**PEN_LASCANNON, "seed": 99}).json()
    assert first == second
    assert first["ruleset"] == "pen"
    assert first["seed"] == 99
    assert first["dice"]


def test_every_bad_field_is_named_at_once_including_a_misspelt_ability(client) -> None:
    body = {
        "attacks": [
            {
                "models": 1,
                "weapon": {
                    "name": "x",
                    "kind": "ranged",
                    "attacks": "2D7",
                    "skill": 7,
                    "strength": 4,
                    "ap": 0,
                    "damage": "1",
                    "abilities": ["Lethal Hits", "Sustaned Hits 1"],
                },
            }
        ],
        "target": {"models": 1, "toughness": 0, "save": 3, "wounds": 1},
    }
    response = client.post("/api/v1/rulesets/wh40k-10e/combat/analyze", json=body)
    assert response.status_code == 422
    errors = {e["field"]: e["message"] for e in response.json()["errors"]}
    assert set(errors) == {
        "attacks.0.weapon.attacks",
        "attacks.0.weapon.skill",
        "attacks.0.weapon.abilities.1",
        "target.toughness",
    }
    assert "Sustained Hits" in errors["attacks.0.weapon.abilities.1"]


def test_pen_vehicle_target_takes_its_bs_which_its_own_shots_use(client) -> None:
    """A vehicle's profile carries its BS [L103] (the unit editor's profile of a vehicle is
    also the battle's shooter): as a target it is accepted and changes nothing."""
    body = copy.deepcopy(PEN_LASCANNON)
    body["target"]["bs"] = 3
    with_bs = client.post(PEN_ANALYZE, json=body)
    assert with_bs.status_code == 200, with_bs.text
    assert with_bs.json() == client.post(PEN_ANALYZE, json=PEN_LASCANNON).json()
    body["target"]["bs"] = 11
    errors = _fields(_problem(client.post(PEN_ANALYZE, json=body), 422))
    assert "target.bs" in errors
