"""Issue 15, effects still played at the table now played by the engine (rulings 90-99):
Foxholes' own INFANTRY unit, the buildings' attacks, the re-armed One Shot weapons, and the
combat zones' effects."""

from __future__ import annotations

import pytest

from app.engine.match.errors import Refusal
from app.engine.wh40k10e.battle import Battle, Seat
from app.engine.wh40k10e.battle.state import Phase
from app.engine.wh40k10e.battle.views import narrative_actions
from tests.engine.narrative8e.test_match_play import new
from tests.engine.narrative8e.test_match_play_more import end_turn, small, to_phase
from tests.engine.narrative8e.test_match_play_more import new as new_more
from tests.engine.narrative8e.test_match_play_more import replays as replays_more


def _to_bombardment_step() -> Battle:
    bt = new("meat-grinder")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    return bt


def test_foxholes_names_one_of_your_infantry_units_and_bombardments_an_enemy() -> None:
    """Foxholes is for "one of your INFANTRY units" [L181]; the Attacker's bombardment
    stratagems are for the enemy unit it rolls for [L163] (ruling 90): refused before any CP
    is spent, and the page's hint skips the refused targets."""
    bt = _to_bombardment_step()
    before = {s: p.cp for s, p in bt.state.players.items()}
    fox = {"type": "use_mission_stratagem", "stratagem": "foxholes"}
    with pytest.raises(Refusal, match="one of your INFANTRY units") as info:
        bt.execute_json({**fox, "target": "a1"}, "B", dice=[])
    assert info.value.code == "bad_command"
    sustained = {"type": "use_mission_stratagem", "stratagem": "sustained-bombardment"}
    with pytest.raises(Refusal, match="an enemy unit"):
        bt.execute_json({**sustained, "target": "a2"}, "A", dice=[])
    assert {s: p.cp for s, p in bt.state.players.items()} == before
    bt.execute_json({**fox, "target": "b1"}, "B", dice=[])
    bt.execute_json({**sustained, "target": "b1"}, "A", dice=[])
    # the page offers it with a unit it accepts, never an enemy one
    bt2 = _to_bombardment_step()
    hints = [a for a in narrative_actions(bt2.state, Seat.B) if "foxholes" in str(a)]
    assert hints
    assert all("'a1'" not in str(a) and "'a2'" not in str(a) for a in hints)


def _blitz_movement() -> Battle:
    att, dfn = small()
    bt = new_more("blitz", att, dfn, cp=6)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "b1", "t2": "b2"}}, "B")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    bt.execute_json({"type": "bombard"}, "A", dice=[1, 1])
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # Blitz: the Attacker first
    to_phase(bt, "A", Phase.MOVEMENT)
    return bt


def _advance_die(bt: Battle) -> tuple[int, object]:
    (moved,) = [e["event"] for e in bt.log_json("A") if e["event"]["type"] == "unit_moved"][-1:]
    die = moved["roll"]["dice"][0]
    return die["value"], moved["roll"]["seed"]


def test_covered_advance_makes_the_named_units_advance_roll_a_six() -> None:
    """*Covered Advance* [L383]: the Advance roll of the unit named just before it counts as
    a 6: no die is rolled (ruling 95)."""
    bt = _blitz_movement()
    covered = {"type": "use_mission_stratagem", "stratagem": "covered-advance"}
    with pytest.raises(Refusal, match="about to Advance"):
        bt.execute_json({**covered, "target": "b1"}, "A", dice=[])
    bt.execute_json({**covered, "target": "a1"}, "A", dice=[])
    rolls = bt.state.rolls
    bt.execute_json({"type": "move", "unit": "a1", "mode": "advance"}, "A", dice=[])
    assert _advance_die(bt) == (6, None)  # counted as a 6, no seed: nothing was drawn
    assert bt.state.rolls == rolls + 1
    # the other unit, not named, rolls its die
    bt.execute_json({"type": "move", "unit": "a2", "mode": "advance"}, "A", dice=[2])
    assert _advance_die(bt)[0] == 2
    replays_more(bt)


def test_covered_advance_used_in_an_earlier_round_is_spent() -> None:
    bt = _blitz_movement()
    covered = {"type": "use_mission_stratagem", "stratagem": "covered-advance"}
    bt.execute_json({**covered, "target": "a1"}, "A", dice=[])
    bt.execute_json({"type": "move", "unit": "a1", "mode": "normal"}, "A", dice=[])
    end_turn(bt, "A")
    end_turn(bt, "B")
    to_phase(bt, "A", Phase.MOVEMENT)
    bt.execute_json({"type": "move", "unit": "a1", "mode": "advance"}, "A", dice=[3])
    assert _advance_die(bt)[0] == 3
