"""Two Dynamics turns through ``execute_json`` the way the match feature drives the façade: no
secret in the battle, every order sealed by the seed ``command_seed`` derives from the match
secret, every die given by hand (found on a fork with a seed, then typed in). Turn 1: a
pending-casualty morale test that fails against a declared assault, the sweeping-advance
roll-off, the caught unit charged; turn 2: the locked combat's two Assault orders fight two
rounds in two passes. Then: the log replays equal, B never saw A's orders before their
reveal, and an undone roll sent again draws the same dice."""

import json
from collections.abc import Callable
from typing import Any

import pytest

from app.engine.dynamics import DynamicsBattle, DynStage, verify
from app.engine.match.dice import Roll
from app.engine.match.errors import Refusal
from app.engine.match.game import GameStatus, MatchGame
from app.engine.pen.battle.commands import ChooseFirst, Deploy, EndStep, RollOff
from app.engine.pen.battle.state import Place
from tests.engine.dynamics.support import SECRET, setup

Check = Callable[[DynamicsBattle], bool]


def dice_of(envelopes: list[Any]) -> list[int]:
    out: list[int] = []
    for env in envelopes:
        roll = getattr(env.event, "roll", None)
        if isinstance(roll, Roll):
            out.extend(d.value for d in roll.dice)
    return out


def send(battle: DynamicsBattle, seat: str, data: dict[str, Any], want: Check | None = None):
    """Send ``data`` for ``seat``. A placement gets the match's seed for it; a command that
    rolls gets dice by hand: the first seed whose dice give ``want`` on a fork, typed in."""
    command = battle.decode(data)
    if data["type"] == "place_order":
        return battle.execute_json(data, seat, seed=battle.command_seed(SECRET, command, seat))
    try:
        battle.fork().execute_json(data, seat)
    except Refusal as exc:  # a command that rolls asks for dice
        if exc.code != "dice_needed":
            raise
    else:
        return battle.execute_json(data, seat)  # rolls nothing: nothing to type in
    for seed in range(2000):
        trial = battle.fork()
        dice = dice_of(trial.execute_json(data, seat, seed=seed))
        if want is None or want(trial):
            version = battle.version
            new = battle.execute_json(data, seat, dice=dice, expected_version=version)
            assert battle.state == trial.state  # the dice typed in did what the seed did
            return new
    raise AssertionError(f"no dice give what the test wants for {data}")


def created() -> DynamicsBattle:
    battle = DynamicsBattle.create(setup())
    assert isinstance(battle, MatchGame)  # structurally the match feature's protocol
    assert battle.status() == GameStatus("setup")
    battle.execute(EndStep(), "A")
    battle.execute(EndStep(), "B")
    battle.execute(RollOff(), "B", dice=[5, 2])
    battle.execute(ChooseFirst("A"), "A")
    for seat in ("A", "B"):
        for u in battle.state.battle.seat_units(seat):
            if u.place is Place.UNDEPLOYED:
                battle.execute(Deploy(u.id), seat)
        battle.execute(EndStep(), seat)
    return battle


def place(battle: DynamicsBattle, seat: str, orders: dict[str, str]) -> None:
    for unit, order in orders.items():
        send(battle, seat, {"type": "place_order", "unit": unit, "order": order})
    send(battle, seat, {"type": "lock_orders"})


def scan(battle: DynamicsBattle, seat: str) -> str:
    """Everything ``seat`` can get from the façade."""
    material = [
        battle.view(seat),
        battle.log_json(seat),
        battle.audit(),
        battle.legal_actions(seat),
        repr(battle.status()),
    ]
    return json.dumps(material, sort_keys=True)


def assert_secret(battle: DynamicsBattle, owner: str) -> None:
    other = "B" if owner == "A" else "A"
    seen = scan(battle, other)
    for slot in battle.state.slots.values():
        if slot.seat == owner and not slot.revealed:
            assert slot.nonce
            assert slot.nonce not in seen
            shown = next(
                o for o in battle.view(other)["dynamics"]["orders"] if o["unit"] == slot.unit
            )
            assert "order" not in shown
            assert shown["commitment"] == slot.commitment


def lost(battle: DynamicsBattle, unit: str, at_least: int) -> Check:
    start = battle.state.battle.units[unit].models
    return lambda b: start - b.state.battle.units[unit].models >= at_least


def test_two_turns_through_execute_json() -> None:
    battle = created()
    assert battle.status().stage == "battle"
    send(battle, "A", {"type": "start_turn"}, lambda b: b.state.battle.night)  # dawn: night
    assert battle.state.stage is DynStage.PLACEMENT
    place(battle, "A", {"tac": "assault", "dev": "fire"})
    assert_secret(battle, "A")
    assert battle.legal_actions("A") == []  # locked: nothing to do until B locks
    place(battle, "B", {"inf": "fire", "vet": "fire", "rhino": "forced_march"})
    assert battle.state.bonus == "A"  # A locked first: +1 once this turn [L185]
    # reveal, Initiative 3: B alone (inf, the rhino's pilot)
    assert (battle.state.stage, battle.state.step, battle.state.to_act) == (DynStage.REVEAL, 3, "B")
    assert_secret(battle, "A")
    send(battle, "B", {"type": "reveal_order", "unit": "inf", "target": "dev"})
    send(battle, "B", {"type": "reveal_order", "unit": "rhino"})
    # Initiative 4: both: an advantage test, rolled by the holder of the unspent +1
    assert {"command": {"type": "roll_advantage", "spend_bonus": True}} in battle.legal_actions("A")
    send(battle, "A", {"type": "roll_advantage"}, lambda b: b.state.advantage == "B")
    send(battle, "B", {"type": "choose_starter", "seat": "A"})
    assert_secret(battle, "A")
    send(battle, "A", {"type": "reveal_order", "unit": "dev", "target": "inf"})
    send(battle, "B", {"type": "reveal_order", "unit": "vet", "target": "tac"})
    send(battle, "A", {"type": "reveal_order", "unit": "tac", "target": "inf"})
    for slot in battle.state.slots.values():  # every commitment checks out after the reveal
        assert verify(slot.commitment, 1, slot.unit, slot.order, slot.nonce)
    # resolve, Initiative 4 (10 -> 1): a fresh advantage test, the +1 spent
    assert (battle.state.stage, battle.state.step) == (DynStage.RESOLVE, 4)
    send(
        battle,
        "A",
        {"type": "roll_advantage", "spend_bonus": True},
        lambda b: b.state.advantage == "A",
    )
    assert battle.state.bonus_spent
    send(battle, "A", {"type": "choose_starter", "seat": "A"})
    shot = {"type": "shoot", "unit": "dev", "target": "inf", "weapon": "lascannon"}
    send(battle, "A", shot | {"range_inches": 30}, lost(battle, "inf", 3))
    pending = battle.view("B")["dynamics"]["pending_casualties"]
    assert pending["inf"] >= 3  # laid down, still on the table until the pass ends [L231]

    def broken_then_caught(b: DynamicsBattle) -> bool:
        kinds = [e.event.kind for e in b.envelopes[battle.version :]]
        return "sweep_rolled" in kinds and not b.state.battle.units["inf"].retreating

    # dev's order ends: no Fire or Tactical order of the pass still names inf: morale now, -1
    # at 50%; it fails while tac holds an Assault order on it: the sweep roll-off, caught
    send(battle, "A", {"type": "end_order", "unit": "dev"}, broken_then_caught)
    log = battle.log_json("B")
    test = next(e["event"] for e in log if e["event"]["type"] == "test_taken")
    assert (test["unit"], test["test"], test["passed"]) == ("inf", "morale", False)
    sweep = next(e["event"] for e in log if e["event"]["type"] == "sweep_rolled")
    assert (sweep["unit"], sweep["assaulter"], sweep["caught"]) == ("inf", "tac", True)
    assert battle.state.to_act == "B"  # alternating: B's vet now
    send(
        battle,
        "B",
        {
            "type": "shoot",
            "unit": "vet",
            "target": "tac",
            "weapon": "lasgun",
            "range_inches": 10,
            "half_range": True,
        },
    )
    send(battle, "B", {"type": "end_order", "unit": "vet"})
    send(battle, "A", {"type": "charge", "unit": "tac", "target": "inf", "distance": 3})

    def both_hold(b: DynamicsBattle) -> bool:
        units = b.state.battle.units
        return "inf" in units["tac"].locked and not units["inf"].retreating

    send(battle, "A", {"type": "fight", "unit": "tac", "target": "inf"}, both_hold)
    send(battle, "A", {"type": "end_order", "unit": "tac"})
    # Initiative 3: B alone; inf is locked: its Fire order cannot shoot, it ends
    assert (battle.state.step, battle.state.to_act) == (3, "B")
    send(battle, "B", {"type": "end_order", "unit": "inf"})
    send(battle, "B", {"type": "move", "unit": "rhino", "speed": "rapid", "inches": 12})
    send(battle, "B", {"type": "end_order", "unit": "rhino"})
    # turn 2
    assert (battle.state.stage, battle.state.turn) == (DynStage.TURN_START, 2)
    assert battle.state.bonus == ""
    assert not battle.state.bonus_spent
    send(battle, "B", {"type": "start_turn"})
    place(battle, "B", {"inf": "assault", "vet": "fire", "rhino": "forced_march"})
    assert battle.state.bonus == "B"
    place(battle, "A", {"tac": "assault", "dev": "fire"})
    send(battle, "B", {"type": "reveal_order", "unit": "inf", "target": "tac"})
    send(battle, "B", {"type": "reveal_order", "unit": "rhino"})
    send(battle, "B", {"type": "roll_advantage"}, lambda b: b.state.advantage == "A")
    send(battle, "A", {"type": "choose_starter", "seat": "A"})
    send(battle, "A", {"type": "reveal_order", "unit": "tac", "target": "inf"})
    send(battle, "B", {"type": "reveal_order", "unit": "vet", "target": "dev"})
    send(battle, "A", {"type": "reveal_order", "unit": "dev", "target": "vet"})
    send(battle, "B", {"type": "roll_advantage"}, lambda b: b.state.advantage == "A")
    send(battle, "A", {"type": "choose_starter", "seat": "A"})
    # the first round of the combat, tac's pass (4); both hold
    send(battle, "A", {"type": "fight", "unit": "tac", "target": "inf"}, both_hold)
    rounds_before = sum(1 for e in battle.envelopes if e.event.kind == "combat_fought")
    send(battle, "A", {"type": "end_order", "unit": "tac"})
    send(battle, "B", {"type": "end_order", "unit": "vet"})
    send(battle, "A", {"type": "end_order", "unit": "dev"})
    # Initiative 3: inf's Assault order on tac: the second round, pending casualties gone
    assert battle.state.step == 3
    assert battle.state.pass_start.get("inf") == (battle.state.battle.units["inf"].models)
    send(battle, "B", {"type": "fight", "unit": "inf", "target": "tac"})
    assert sum(1 for e in battle.envelopes if e.event.kind == "combat_fought") == rounds_before + 1
    assert battle.state.slots["inf"].rounds == 1
    assert battle.state.slots["tac"].rounds == 1
    send(battle, "B", {"type": "end_order", "unit": "inf"})
    send(battle, "B", {"type": "end_order", "unit": "rhino"})
    assert (battle.state.stage, battle.state.turn) == (DynStage.TURN_START, 3)
    status = battle.status()
    assert status.stage == "battle"
    assert status.round == 3
    assert set(status.scores) == {"A", "B"}
    # the log exported, imported and replayed is the same battle
    again = DynamicsBattle.import_log(battle.export_log())
    assert again.state == battle.state
    assert again.version == battle.version
    assert again.view("B") == battle.view("B")


def test_undo_then_resend_draws_the_same_dice() -> None:
    battle = created()
    data: dict[str, Any] = {"type": "start_turn"}
    seed = battle.command_seed(SECRET, battle.decode(data), "A")
    first = dice_of(battle.execute_json(data, "A", seed=seed))
    battle.execute_json({"type": "undo"}, "A")  # it rolled: B approves
    batch = battle.match.undo_request.batch  # type: ignore[union-attr]
    assert {"command": {"type": "approve_undo", "batch": batch}} in battle.legal_actions("B")
    battle.execute_json({"type": "approve_undo", "batch": batch}, "B")
    assert battle.state.stage is DynStage.TURN_START
    again = battle.command_seed(SECRET, battle.decode(data), "A")
    assert again == seed  # the log grew, the roll's identity did not
    assert dice_of(battle.execute_json(data, "A", seed=again)) == first


def test_a_placement_without_seed_or_secret_is_refused() -> None:
    battle = created()
    send(battle, "A", {"type": "start_turn"})
    with pytest.raises(Refusal) as err:
        battle.execute_json({"type": "place_order", "unit": "tac", "order": "fire"}, "A")
    assert err.value.code == "seed_needed"
    with pytest.raises(Refusal) as err:
        battle.decode({"type": "place_order", "unit": "tac", "order": "sneak"})
    assert err.value.code == "bad_command"


def test_a_mutual_assault_in_one_pass_fights_two_rounds() -> None:
    battle = created()
    send(battle, "A", {"type": "start_turn"}, lambda b: b.state.battle.night)
    place(battle, "A", {"tac": "assault", "dev": "fire"})
    place(battle, "B", {"inf": "fire", "vet": "assault", "rhino": "forced_march"})
    send(battle, "B", {"type": "reveal_order", "unit": "inf", "target": "dev"})
    send(battle, "B", {"type": "reveal_order", "unit": "rhino"})
    send(battle, "A", {"type": "roll_advantage"}, lambda b: b.state.advantage == "A")
    send(battle, "A", {"type": "choose_starter", "seat": "A"})
    send(battle, "A", {"type": "reveal_order", "unit": "tac", "target": "vet"})
    send(battle, "B", {"type": "reveal_order", "unit": "vet", "target": "tac"})
    send(battle, "A", {"type": "reveal_order", "unit": "dev", "target": "inf"})
    send(battle, "A", {"type": "roll_advantage"}, lambda b: b.state.advantage == "A")
    send(battle, "A", {"type": "choose_starter", "seat": "A"})
    send(battle, "A", {"type": "charge", "unit": "tac", "target": "vet", "distance": 4})

    def both_hold(b: DynamicsBattle) -> bool:
        units = b.state.battle.units
        return "vet" in units["tac"].locked and not units["vet"].retreating

    send(battle, "A", {"type": "fight", "unit": "tac", "target": "vet"}, both_hold)
    with pytest.raises(Refusal) as err:  # an Assault order fights one round [L92]
        send(battle, "A", {"type": "fight", "unit": "tac", "target": "vet"})
    assert err.value.code == "one_round"
    send(battle, "A", {"type": "end_order", "unit": "tac"})
    # vet's own Assault order: already locked, it does not charge, it fights round 2
    with pytest.raises(Refusal):
        send(battle, "B", {"type": "charge", "unit": "vet", "target": "tac", "distance": 1})
    models = {u: battle.state.battle.units[u].models for u in ("tac", "vet")}
    new = send(battle, "B", {"type": "fight", "unit": "vet", "target": "tac"})
    fought = next(e.event for e in new if e.event.kind == "combat_fought")
    assert fought.unit == "vet"
    assert fought.unit_models_left <= models["vet"]  # no pending casualty came back [L239]
    assert fought.target_models_left <= models["tac"]
    with pytest.raises(Refusal) as err:  # no third round
        send(battle, "B", {"type": "fight", "unit": "vet", "target": "tac"})
    assert err.value.code == "one_round"
