"""Effects of the narrative rules the match applies rather than only records (issue 15):
the Dogfight's modifier in the attack's hit modifier, mission stratagems that roll their dice
(Booby Traps, Proximity Mines, Iron Discipline) and the Dawn Raid of Night Raid
(docs/rulings/narrative-8e.md, 71-)."""

from __future__ import annotations

import dataclasses
from typing import Any

from app.engine.narrative8e.match import expansions, match_missions
from app.engine.wh40k10e.battle import Ability, ArmySpec, Battle, BattleOptions, MatchSetup, Seat
from app.matches.systems.wh40k10e import combat
from tests.engine.narrative8e.test_expansions_play import AIRCRAFT, next_round
from tests.engine.wh40k10e.battle.table import unit

MISSIONS = match_missions()

LASCANNON = {
    "name": "Lascannon",
    "kind": "ranged",
    "attacks": "1",
    "skill": 3,
    "strength": 12,
    "ap": -3,
    "damage": "D6+1",
    "range": 48,
    "models": 1,
    "abilities": [],
}


def jet(uid: str, name: str) -> Any:
    return unit(
        uid, name, points=50, models=1, wounds=12, keywords=AIRCRAFT, abilities=(Ability.HOVER,)
    )


def snaps() -> dict[Seat, dict[str, Any]]:
    """Each side's AIRCRAFT (a9, b9: index 8) carries one lascannon."""
    return {
        seat: {"units": [{"index": 8, "weapons": [dict(LASCANNON)]}]} for seat in (Seat.A, Seat.B)
    }


def dogfight_battle() -> Battle:
    att = ArmySpec("att", (unit("a1", "Raiders", points=200), jet("a9", "Jet")))
    dfn = ArmySpec("dfn", (unit("b1", "Guards", points=100), jet("b9", "Interceptor")))
    m = MISSIONS["blitz"]
    m = dataclasses.replace(
        m, options={**m.options, "expansion": expansions()["death-from-the-skies"]}
    )
    options = BattleOptions(
        starting_cp=3, expansion="death-from-the-skies", prompt_rapid_ingress=False
    )
    bt = Battle.create(MatchSetup({Seat.A: att, Seat.B: dfn}, "strike_force", m, options))
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    bt.execute_json({"type": "declare_formations", "formation": {"hover": ["a9"]}}, "A")
    bt.execute_json({"type": "declare_formations", "formation": {"hover": ["b9"]}}, "B")
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1"}, "reserves": ["b9"]}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1"], "reserves": ["a9"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    next_round(bt)
    bt.execute_json({"type": "end_phase"}, "A")
    bt.execute_json({"type": "reserve_roll", "unit": "a9"}, "A", dice=[5])
    while bt.state.active is Seat.A:
        bt.execute_json({"type": "end_phase"}, "A", dice=[])
    bt.execute_json({"type": "end_phase"}, "B")
    bt.execute_json({"type": "reserve_roll", "unit": "b9"}, "B", dice=[6])
    bt.execute_json({"type": "end_phase"}, "B")  # Shooting: the Dogfight
    return bt


def hit_modifier(bt: Battle, attacker: str, target: str) -> int:
    built = combat.build_request(
        snaps(), bt.state, attacker, target, [{"weapon": "Lascannon", "models": 1}]
    )
    return int(built.request["situation"].get("hit_modifier", 0))


def test_the_dogfight_pick_modifies_the_hit_rolls_of_the_aircraft_at_its_target() -> None:
    bt = dogfight_battle()
    assert hit_modifier(bt, "b9", "a9") == 0  # no pick yet
    bt.execute_json({"type": "dogfight_pick", "aircraft": "b9", "target": "a9", "arc": "rear"}, "B")
    assert hit_modifier(bt, "b9", "a9") == -2  # rear arc as written (the calculator caps it)
    assert hit_modifier(bt, "a9", "b9") == 0  # A has not picked
    bt.execute_json(
        {"type": "dogfight_pick", "aircraft": "a9", "target": "b9", "arc": "front"}, "A"
    )
    assert hit_modifier(bt, "a9", "b9") == 1
    assert hit_modifier(bt, "b9", "a9") == -2
    # next turn: the picks were this turn's only
    next_round(bt)
    assert hit_modifier(bt, "b9", "a9") == 0
