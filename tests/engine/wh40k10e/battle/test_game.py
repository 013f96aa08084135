"""The façade the service layer drives: JSON commands, seeds, audits, views and hints."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from app.engine.match.errors import Refusal
from app.engine.roller import Roller
from app.engine.wh40k10e.battle import Battle, Seat, command_from_json, command_seed
from app.engine.wh40k10e.battle.commands import (
    ApproveUndo,
    DeployUnit,
    Move,
    RemoveModels,
    ResolveAttack,
    Shoot,
    Undo,
)
from app.engine.wh40k10e.battle.events import UnitMoved
from app.engine.wh40k10e.battle.state import MoveMode, Stage
from tests.engine.wh40k10e.battle.table import Table, goto, stage


def test_commands_from_json_are_strict() -> None:
    cmd = command_from_json({"type": "move", "unit": "u1", "mode": "advance"})
    assert cmd == Move("u1", MoveMode.ADVANCE)
    for bad, field in (
        ({"type": "move", "unit": "u1", "mode": "run"}, "mode"),
        ({"type": "move", "unit": "u1", "mode": "normal", "speed": 3}, ""),
        ({"type": "teleport"}, "type"),
        ({"unit": "u1"}, ""),
    ):
        with pytest.raises(Refusal) as info:
            command_from_json(bad)
        assert info.value.code == "bad_command"
        assert info.value.kind == "input"
        assert info.value.details["field"] == field


def test_execute_json_with_versions(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    b = t.battle
    v = b.version
    b.execute_json({"type": "end_phase"}, "A", expected_version=v)
    with pytest.raises(Refusal) as info:
        b.execute_json({"type": "end_phase"}, "A", expected_version=v)
    assert info.value.code == "stale_version"
    assert b.view("A")["version"] == b.version == len(b.envelopes)


def test_command_seed_makes_undo_then_reroll_give_the_same_dice(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "movement", round_=1)
    b = t.battle
    cmd = Move("a-int", MoveMode.ADVANCE)
    seed = command_seed("match-secret", b.state, cmd)
    first = b.execute(cmd, "A", seed=seed)[0]
    b.execute(Undo(), "A")  # it rolled dice: a request...
    b.execute(ApproveUndo(first.batch), "B")  # ...that B approves
    first = first.event
    assert command_seed("match-secret", b.state, cmd) == seed
    again = b.execute(cmd, "A", seed=command_seed("match-secret", b.state, cmd))[0].event
    assert isinstance(first, UnitMoved)
    assert isinstance(again, UnitMoved)
    assert first.roll is not None
    assert again.roll == first.roll
    assert command_seed("match-secret", b.state, Move("a-hell", MoveMode.ADVANCE)) != seed


def test_audit_checks_every_seeded_roll(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    r = Roller(4242)
    r.roll_many(3, 6, "hit")
    dice = r.records
    t.do("A", Shoot("a-hell", ("b-boyz",)))
    t.do("A", ResolveAttack("a-hell", "b-boyz", damage=(1,), seed=4242, dice=dice))
    audit = t.battle.audit()
    assert audit[-1] == {"seq": t.battle.version, "event": "attack_resolved", "ok": True}
    assert {a["ok"] for a in audit} <= {True, None}
    assert any(a["ok"] is None for a in audit)  # the roll-offs were rolled by hand
    forged = json.loads(t.battle.export_json())
    last = forged["events"][-1]["event"]
    last["dice"][0]["value"] = 7 - last["dice"][0]["value"]
    last["dice"][0]["face"] = last["dice"][0]["value"]
    assert Battle.import_log(forged).audit()[-1]["ok"] is False


def test_views_and_legal_actions(new_table: Callable[..., Table]) -> None:
    t = new_table()
    view = t.battle.view(None)
    assert view["stage"] == "roll_off"
    assert view["setup_step"] == {"index": 0, "step": "roll_off", "purpose": "objectives"}
    assert t.battle.legal_actions("A") == [{"command": {"type": "roll_off"}}]
    json.dumps(view)


def test_infiltrators_and_model_removal(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    from app.engine.wh40k10e.battle.commands import (
        DeclareFormations,
        PlaceObjective,
        RollOff,
    )
    from tests.engine.wh40k10e.battle.table import DEFAULT_FORMATIONS

    t = new_table()
    t.do("A", RollOff(), dice=[6, 1])
    for i in range(4):
        t.do("AB"[i % 2], PlaceObjective())
    t.do("A", RollOff(), dice=[1, 6])  # B is the Attacker: B deploys first
    t.do("A", DeclareFormations(DEFAULT_FORMATIONS["A"]))
    t.do("B", DeclareFormations(DEFAULT_FORMATIONS["B"]))
    assert stage(t) is Stage.DEPLOY
    t.refused("A", DeployUnit("a-int"), "not_your_choice")
    t.refused("B", DeployUnit("b-boyz", infiltrate=True), "not_infiltrators")
    t.do("B", DeployUnit("b-komm", infiltrate=True))
    assert t.state.next_seat is Seat.A
    hints = t.battle.legal_actions("A")
    assert {"command": {"type": "deploy_unit", "unit": "a-int", "infiltrate": False}} in hints
    t2 = new_table()
    from tests.engine.wh40k10e.battle.table import play_setup

    play_setup(t2)
    t2.do("A", RemoveModels("a-int", (0, 3), cause="coherency"))
    assert t2.unit("a-int").wounds == (0, 2, 2, 0, 2)
    t2.refused("A", RemoveModels("a-int", (0,)), "bad_casualties")
    t2.refused("A", RemoveModels("b-boyz", (0,)), "not_your_unit")
    t2.check_replay()


def test_a_log_written_before_per_slot_wounds_replays_to_the_same_state(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Logs stored before UnitSpec had ``model_wounds`` have no such key: they decode with
    every model at the unit's W and replay to the same state (docs/adr/0004)."""
    t = new_table()
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-hell", ("b-nobz",)))
    t.do("A", ResolveAttack("a-hell", "b-nobz", damage=(3, 1)))
    assert t.unit("b-nobz").wounds == (0, 1, 2, 2, 2)
    old = json.loads(t.battle.export_json())
    removed = 0
    for army in old["events"][0]["event"]["setup"]["armies"].values():
        for spec in army["units"]:
            assert spec.pop("model_wounds") == []
            removed += 1
    assert t.state.setup is not None
    assert removed == sum(len(a.units) for a in t.state.setup.armies.values())
    replayed = Battle.import_log(old)
    assert replayed.state == t.state
    assert replayed.view("A") == t.battle.view("A")
    assert replayed.export_json() == t.battle.export_json()
