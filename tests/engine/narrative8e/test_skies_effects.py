"""Death from the Skies played by the engine (rulings 92, 93): each Dogfight pick's attack is
resolved as any attack of the match, in either player's turn, its weapons free again for the
ground targets of the Shooting phase; an AIRCRAFT's One Shot weapons are spent once fired and
re-armed by *Refuel, Rearm, Repair* at 2 CP or more."""

from __future__ import annotations

from typing import Any

from app.engine.wh40k10e.battle import Battle, Seat
from app.engine.wh40k10e.battle.state import Phase
from tests.engine.narrative8e.test_expansions_play import refused, replays, x_of
from tests.engine.narrative8e.test_narrative_effects import dogfight_battle


def attack(
    attacker: str, target: str, damage: list[int], weapon: str = "Lascannon", one_shot: bool = False
) -> dict[str, Any]:
    profile = {
        "name": weapon,
        "kind": "ranged",
        "attacks": "1",
        "skill": 3,
        "strength": 9,
        "ap": -2,
        "damage": "D6",
        "abilities": ["One Shot"] if one_shot else [],
    }
    return {
        "type": "resolve_attack",
        "attacker": attacker,
        "target": target,
        "damage": damage,
        "request": {"attacks": [{"models": 1, "weapon": profile}]},
        "weapons": [{"unit": attacker, "weapon": weapon, "models": 1}],
    }


def test_both_players_resolve_their_dogfight_attacks_then_shoot_ground_targets() -> None:
    bt = dogfight_battle()  # round 2, B's Shooting phase: the Dogfight
    # B's aircraft may not take an enemy AIRCRAFT as a Shooting-phase target [L885]
    assert "only in the Dogfight" in refused(
        bt, {"type": "shoot", "unit": "b9", "targets": ["a9"]}, "B"
    )
    bt.execute_json({"type": "dogfight_pick", "aircraft": "b9", "target": "a9", "arc": "side"}, "B")
    bt.execute_json(attack("b9", "a9", [4]), "B")  # the attack made at once [L887]
    assert bt.state.units["a9"].wounds == (8,)
    assert "not declared" in refused(bt, attack("b9", "a9", [4]), "B")  # made once
    # A's Jet dogfights in B's turn: its attack is accepted as any
    bt.execute_json(
        {"type": "dogfight_pick", "aircraft": "a9", "target": "b9", "arc": "front"}, "A"
    )
    bt.execute_json(attack("a9", "b9", [5]), "A")
    assert bt.state.units["b9"].wounds == (7,)
    x = x_of(bt)
    assert [a for _, _, a in x.dogfight_shots] == ["b9", "a9"]
    bt.execute_json({"type": "dogfight_pass"}, "B")
    bt.execute_json({"type": "dogfight_pass"}, "A")
    # the Interceptor may still shoot a ground target, with the same weapon [L899]
    bt.execute_json({"type": "shoot", "unit": "b9", "targets": ["a1"]}, "B")
    bt.execute_json({**attack("b9", "a1", [1]), "weapons": []}, "B")  # the whole unit's
    assert bt.state.units["a1"].models_alive == 4
    replays(bt)


def to_b_movement(bt: Battle) -> None:
    now = bt.state.round
    while not (
        bt.state.round > now and bt.state.active is Seat.B and bt.state.phase is Phase.MOVEMENT
    ):
        for seat in bt.state.coherency:
            bt.execute_json({"type": "confirm_coherency"}, str(seat), dice=[])
        bt.execute_json({"type": "end_phase"}, str(bt.state.active), dice=[])


def test_one_shot_weapons_are_spent_until_refuel_rearms_them() -> None:
    bt = dogfight_battle()
    bt.execute_json({"type": "dogfight_pick", "aircraft": "b9", "target": "a9", "arc": "side"}, "B")
    bt.execute_json(attack("b9", "a9", [3], "Missile", one_shot=True), "B")
    assert x_of(bt).one_shots == {"b9": ("Missile",)}
    bt.execute_json({"type": "dogfight_pass"}, "A")
    bt.execute_json({"type": "dogfight_pass"}, "B")
    bt.execute_json({"type": "shoot", "unit": "b9", "targets": ["a1"]}, "B")
    # the missile is spent for the battle; the lascannon is not
    assert "One Shot Missile" in refused(bt, attack("b9", "a1", [1], "Missile", True), "B")
    bt.execute_json(attack("b9", "a1", [1]), "B")
    to_b_movement(bt)
    bt.execute_json({"type": "leave_airspace", "unit": "b9"}, "B")
    bt.execute_json(
        {
            "type": "use_mission_stratagem",
            "stratagem": "refuel-rearm-repair",
            "cp": 2,
            "target": "b9",
        },
        "B",
    )
    x = x_of(bt)
    assert (x.one_shots, x.rearmed) == ({}, {"b9": 3})
    view = bt.view("A")["narrative"]["expansion"]
    assert (view["one_shots_fired"], view["rearmed"]) == ({}, {"b9": 3})
    replays(bt)


def test_refuel_at_one_cp_rearms_nothing() -> None:
    bt = dogfight_battle()
    bt.execute_json({"type": "dogfight_pick", "aircraft": "b9", "target": "a9", "arc": "side"}, "B")
    bt.execute_json(attack("b9", "a9", [3], "Missile", one_shot=True), "B")
    to_b_movement(bt)
    bt.execute_json({"type": "leave_airspace", "unit": "b9"}, "B")
    bt.execute_json(
        {
            "type": "use_mission_stratagem",
            "stratagem": "refuel-rearm-repair",
            "cp": 1,
            "target": "b9",
        },
        "B",
    )
    assert x_of(bt).one_shots == {"b9": ("Missile",)}
    assert x_of(bt).rearmed == {}


def test_a_dogfight_pick_names_aircraft_on_the_battlefield() -> None:
    bt = dogfight_battle()
    to_b_movement(bt)
    bt.execute_json({"type": "leave_airspace", "unit": "b9"}, "B")
    bt.execute_json({"type": "end_phase"}, "B")  # Shooting: a9 may not pick the absent b9
    bt.execute_json({"type": "dogfight_pass"}, "B")
    assert "not on the battlefield" in refused(
        bt, {"type": "dogfight_pick", "aircraft": "a9", "target": "b9", "arc": "side"}, "A"
    )
