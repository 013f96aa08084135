"""The rule system ``pen`` is registered with its name, capabilities and hooks."""

from fractions import Fraction

from app.engine.combat import CombatAnalysis, CombatResolution, to_jsonable
from app.engine.distributions import Dist
from app.engine.registry import get
from app.engine.roller import Roller


def test_registered() -> None:
    import app.engine.pen  # noqa: F401  (registers on import)

    pen = get("pen")
    assert pen.name == "PEN — French fan ruleset (5th-edition based)"
    assert pen.has("combat.analyze")
    assert pen.has("combat.resolve")
    assert pen.has("combat.vehicles")
    assert pen.has("combat.melee_result")
    assert pen.analyze_combat is not None
    assert pen.resolve_combat is not None


def test_hooks_take_plain_requests() -> None:
    import app.engine.pen  # noqa: F401

    pen = get("pen")
    request = {
        "attacker": {"models": 1, "bs": 4},
        "weapon": {"name": "Lascannon", "type": "heavy 1", "strength": 9, "ap": 2},
        "target": {
            "armour": {"front": 12, "side": 12, "rear": 10},
            "hull_points": 3,
            "types": ["tank"],
        },
        "situation": {"stationary": True},
    }
    assert pen.analyze_combat is not None
    assert pen.resolve_combat is not None
    analysis = pen.analyze_combat(request)
    assert isinstance(analysis, CombatAnalysis)
    assert analysis.wipe_probability == Fraction(1, 18)
    json = to_jsonable(analysis)
    assert isinstance(json, dict)
    assert json["wipe_probability"] == {"exact": "1/18", "approx": 0.0556}
    resolution = pen.resolve_combat(request, Roller(3))
    assert isinstance(resolution, CombatResolution)
    assert isinstance(to_jsonable(resolution), dict)


def test_extras() -> None:
    import app.engine.pen  # noqa: F401

    pen = get("pen")
    assert pen.extras["morale_test"](8) == Fraction(26, 36)
    length = pen.extras["game_length"]()
    assert isinstance(length, Dist)
    assert length.mean() == Fraction(5 * 3 + 6 * 4 + 7 * 2, 9)


def test_every_result_serialises() -> None:
    import app.engine.pen  # noqa: F401

    pen = get("pen")
    assert pen.analyze_combat is not None
    assert pen.resolve_combat is not None
    melee = {
        "attacker": {
            "models": 5,
            "ws": 4,
            "strength": 4,
            "toughness": 4,
            "initiative": 4,
            "attacks": 2,
            "leadership": 8,
            "save": 3,
        },
        "weapon": {"kind": "melee", "type": "power weapon"},
        "target": {
            "models": 5,
            "ws": 3,
            "toughness": 3,
            "strength": 3,
            "initiative": 3,
            "attacks": 1,
            "leadership": 7,
            "save": 5,
            "cover_save": 4,
        },
        "situation": {"charged": True, "target_in_cover": True},
    }
    analysis = to_jsonable(pen.analyze_combat(melee))
    assert isinstance(analysis, dict)
    extra = analysis["extra"]
    assert isinstance(extra, dict)
    combat = extra["combat_result"]
    assert isinstance(combat, dict)
    assert combat["defender_initiative"] == 10  # in cover, no offensive grenades [L1183]
    assert set(combat) >= {
        "p_attacker_wins",
        "p_draw",
        "p_defender_wins",
        "expected_sweep_casualties",
    }
    live = to_jsonable(pen.resolve_combat(melee, Roller(11)))
    assert isinstance(live, dict)
    assert live["seed"] == 11
    dice = live["dice"]
    assert isinstance(dice, list)
    assert dice
