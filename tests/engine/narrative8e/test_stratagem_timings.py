"""Issue 15: each mission stratagem is accepted (so offered) only at its seed timing
(rulings 58-60)."""

from __future__ import annotations

import pytest

from app.engine.match.errors import Refusal
from app.engine.wh40k10e.battle import ArmySpec, Battle
from app.engine.wh40k10e.battle.state import Phase
from tests.engine.narrative8e.test_match_play_more import end_turn, four, new, small, to_phase
from tests.engine.wh40k10e.battle.table import unit


def use(
    bt: Battle, seat: str, strat: str, target: str | None = None, cp: int | None = None
) -> None:
    cmd: dict[str, object] = {"type": "use_mission_stratagem", "stratagem": strat}
    if target is not None:
        cmd["target"] = target
    if cp is not None:
        cmd["cp"] = cp
    bt.execute_json(cmd, seat, dice=[])


def used(bt: Battle) -> list[tuple[str, str]]:
    assert bt.state.narrative is not None
    return [(str(seat), strat) for seat, strat, _, _ in bt.state.narrative.spent]


def test_patrol_set_up_and_reserve_stratagems_at_their_timings() -> None:
    five = ArmySpec("a", (*four("a").units, unit("a5", "Squad a5", points=100)))
    bt = new("patrol", five, four("b"), cp=10)
    bt.execute_json({"type": "roll_off"}, "A", dice=[5, 2])  # A attacks
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    # after the Defender's patrol is set up [L311], not before
    with pytest.raises(Refusal, match="after the Defender's patrol"):
        use(bt, "A", "reconnaissance-in-force")
    with pytest.raises(Refusal, match="during the battle"):  # end of a Movement phase [L305]
        use(bt, "A", "signal-the-attack")
    bt.execute_json({"type": "deploy_forces", "units": ["b1", "b2", "b3"], "reserves": ["b4"]}, "B")
    use(bt, "A", "reconnaissance-in-force")
    bt.execute_json(
        {"type": "deploy_forces", "units": ["a1", "a2", "a3", "a5"], "reserves": ["a4"]}, "A"
    )
    bt.execute_json({"type": "roll_off"}, "A", dice=[6, 1])  # A first
    with pytest.raises(Refusal, match="Movement phase"):  # A's Command phase
        use(bt, "A", "signal-the-attack")
    to_phase(bt, "A", Phase.MOVEMENT)
    use(bt, "A", "signal-the-attack")
    # the Defender's own reserve stratagem waits for its own turn [L317]; the one against
    # the opponent's roll is used in the opponent's turn [L323]
    with pytest.raises(Refusal, match="your own turn"):
        use(bt, "B", "rapid-reinforcements", target="b4")
    use(bt, "B", "delayed-reserves", target="a4", cp=1)
    end_turn(bt, "A")
    to_phase(bt, "B", Phase.MOVEMENT)
    with pytest.raises(Refusal, match="opponent's reserve roll"):
        use(bt, "B", "delayed-reserves", target="a4", cp=1)
    use(bt, "B", "rapid-reinforcements", target="b4")
    assert used(bt) == [
        ("A", "reconnaissance-in-force"),
        ("A", "signal-the-attack"),
        ("B", "delayed-reserves"),
        ("B", "rapid-reinforcements"),
    ]


def test_ambush_return_fire_at_the_end_of_the_opponents_first_shooting_phase() -> None:
    att, dfn = small()
    bt = new("ambush", att, dfn, cp=10)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # the higher army attacks
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "place_tokens", "tokens": {"t1": "a1", "t2": "a2"}}, "A")
    with pytest.raises(Refusal, match="during the battle"):  # [L251]
        use(bt, "B", "return-fire")
    bt.execute_json({"type": "deploy_forces", "units": ["b1", "b2"]}, "B")
    bt.execute_json({"type": "roll_off"}, "A", dice=[])  # Ambush: the Attacker first
    to_phase(bt, "A", Phase.MOVEMENT)
    with pytest.raises(Refusal, match="first Shooting phase"):
        use(bt, "B", "return-fire")
    to_phase(bt, "A", Phase.SHOOTING)
    use(bt, "B", "return-fire")
    assert used(bt) == [("B", "return-fire")]


def test_sabotage_and_rescue_set_up_stratagems_at_their_steps() -> None:
    att, dfn = small()
    bt = new("sabotage", att, dfn, cp=10)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    # the sentries step: Extra Sentries before they are set up [L477]; Sensors after [L469]
    with pytest.raises(Refusal, match="after the sentries"):
        use(bt, "B", "sensors")
    with pytest.raises(Refusal, match="as one of your units is set up"):  # B sets up now [L459]
        use(bt, "A", "camouflage")
    use(bt, "B", "extra-sentries")
    bt.execute_json({"type": "deploy_forces", "units": ["b1"], "reserves": ["b2"]}, "B")
    use(bt, "B", "sensors")
    use(bt, "A", "camouflage")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    with pytest.raises(Refusal, match="during the battle"):  # at the end of the battle [L473]
        use(bt, "B", "cut-the-wires")
    assert used(bt) == [("B", "extra-sentries"), ("B", "sensors"), ("A", "camouflage")]

    bt = new("rescue", att, dfn, cp=10)
    bt.execute_json({"type": "roll_off"}, "A", dice=[])
    for seat in "AB":
        bt.execute_json({"type": "declare_formations", "formation": {}}, seat)
    bt.execute_json({"type": "deploy_forces", "units": ["b1"], "reserves": ["b2"]}, "B")
    # after both sides deployed [L541]: not while the Attacker still sets up
    with pytest.raises(Refusal, match="after both sides have deployed"):
        use(bt, "A", "night-raid")
    bt.execute_json({"type": "deploy_forces", "units": ["a1", "a2"]}, "A")
    use(bt, "A", "night-raid")
    assert used(bt) == [("A", "night-raid")]
