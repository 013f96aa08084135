"""A Dynamics battle records the PEN move table it is played with (pen rulings B37), as a
PEN battle does: a log recorded before keeps the flat limits."""

import json

from app.engine.dynamics import DynamicsBattle
from tests.engine.dynamics.support import SECRET, deployed, setup


def test_creating_a_dynamics_battle_records_the_seed_moves() -> None:
    battle = deployed()
    first = json.loads(battle.match.export_json())["events"][0]["event"]
    assert first["setup"]["battle"]["seed_moves"] is True
    assert battle.state.battle.setup is not None
    assert battle.state.battle.setup.seed_moves is True


def test_a_dynamics_log_recorded_before_replays_without_the_field() -> None:
    battle = DynamicsBattle.create(setup(), secret=SECRET)
    data = json.loads(battle.match.export_json())
    del data["events"][0]["event"]["setup"]["battle"]["seed_moves"]
    old = DynamicsBattle.import_log(json.dumps(data))
    assert old.state.battle.setup is not None
    assert old.state.battle.setup.seed_moves is None
