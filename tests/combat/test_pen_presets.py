"""The PEN calculator's presets and fields against the PEN rules (issue 13): the standard
weapons of §6.1 [L553-L580], Géant [L410-L412], hull points, the strike back of a melee
attack and the damage results already suffered this turn [L1460]."""

from __future__ import annotations

from typing import Any

import pytest

from app.combat.forms import load_presets
from app.combat.forms.pen import PenForm
from app.engine.pen.analysis import analyze
from app.engine.pen.attack import plan_attack
from app.engine.pen.profiles import Vehicle
from app.engine.pen.requests import request_from_dict
from app.engine.pen.tables import DamageResult
from app.engine.pen.weapons import STANDARD_WEAPONS

PEN = PenForm()
PRESETS = load_presets("pen.json")
STANDARD = {name.lower(): weapon for name, weapon in STANDARD_WEAPONS.items()}
STANDARD["bolter"] = STANDARD_WEAPONS["Boltgun"]


def _request(query: list[tuple[str, str]]) -> dict[str, Any]:
    state = PEN.parse(query)
    if state.redirect is not None:
        state = PEN.parse(state.redirect)
    assert not state.has_errors, state.errors
    assert state.request is not None
    return state.request


@pytest.mark.parametrize(
    "preset", [w for w in PRESETS["weapons"] if w["name"].lower() in STANDARD], ids=str
)
def test_weapon_presets_match_the_standard_weapons(preset: dict[str, Any]) -> None:
    """Heavy bolter: Enrayement, Tirs soutenus [L566]; plasma gun and meltagun: Embrasement
    [L570], [L575]... every preset of a standard weapon has its S, AP, type and properties."""
    body = _request([("w.preset", preset["id"])])
    got = request_from_dict(body).weapon
    expected = STANDARD[preset["name"].lower()]
    assert (got.strength, got.ap, got.type, got.shots, got.template) == (
        expected.strength,
        expected.ap,
        expected.type,
        expected.shots,
        expected.template,
    )
    assert {p.rule for p in got.properties} == {p.rule for p in expected.properties}


def test_the_land_raider_is_giant() -> None:
    """Géant: the Land Raider has it [L412]; the shooter gets +1 BS against it [L410]."""
    body = _request([("t.preset", "land-raider"), ("w.preset", "lascannon")])
    target = request_from_dict(body).target
    assert isinstance(target, Vehicle)
    assert ("giant target", 1) in plan_attack(request_from_dict(body)).hit.modifiers


def test_vehicle_presets_say_where_their_hull_points_come_from() -> None:
    for preset in PRESETS["targets"]:
        if preset["values"].get("kind") == "vehicle" and preset["values"].get("hull_points"):
            assert "6th-edition" in preset["source"]
    assert "hull points" in PRESETS["note"]


def test_a_melee_attack_from_the_fresh_form_models_the_strike_back() -> None:
    """The attacker's T (and W, Sv, Ld) and the target's S and A are on the form, so the
    defender strikes back (pen rulings 19)."""
    body = _request([("w.preset", "close-combat")])
    assert body["attacker"]["toughness"] == 4
    assert body["target"]["strength"] == 3
    combat: Any = analyze(request_from_dict(body)).extra["combat_result"]
    assert combat["strike_back_modelled"] is True


def test_results_already_suffered_this_turn_reach_the_engine() -> None:
    """[L1460]: after a Secoué earlier this turn, a die reading Secoué moves one row down.
    BS 1 (location 1D6 + 1: 2 is the weapons table [L1422]) so that Secoué can be read."""
    state = PEN.parse([("t.preset", "rhino"), ("w.preset", "lascannon")])
    assert state.redirect is not None
    base = [(k, v) for k, v in state.redirect if k != "a.bs"] + [("a.bs", "1")]
    earlier = [*base, ("v.results_this_turn", "Secoué, pilote sonné")]
    target = request_from_dict(_request(earlier)).target
    assert isinstance(target, Vehicle)
    assert target.results_this_turn == (DamageResult.SHAKEN, DamageResult.DRIVER_STUNNED)
    fresh: Any = analyze(request_from_dict(_request(base))).extra["vehicle"]
    after: Any = analyze(request_from_dict(_request(earlier))).extra["vehicle"]
    assert fresh["results"]["shaken"]["expected"] > 0
    assert after["results"]["shaken"]["expected"] == 0
    assert after["results"]["driver_stunned"]["expected"] == 0
