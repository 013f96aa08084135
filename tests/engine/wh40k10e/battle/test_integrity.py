"""Integrity of a battle: one attack per unit and target in a phase, an Attached unit is one
unit, seeds from what a roll is (never from the log position), undo of dice needs approval.

Each scenario plays through ``Battle`` the way the service does (seeds from
``command_seed``); the property test at the end drives random legal command sequences.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.engine.match.errors import Refusal
from app.engine.match.events import UNDO_EVENTS
from app.engine.match.log import replay
from app.engine.roller import Roller
from app.engine.wh40k10e.battle import Formation, Seat, command_seed
from app.engine.wh40k10e.battle.commands import (
    ApproveUndo,
    Command,
    DeclareCharge,
    HazardousTest,
    Move,
    RefuseUndo,
    ResolveAttack,
    Shoot,
    Undo,
    UseStratagem,
)
from app.engine.wh40k10e.battle.events import (
    AttackResolved,
    ChargeDeclared,
    PhaseStarted,
    TurnStarted,
)
from app.engine.wh40k10e.battle.game import Battle, command_from_json, roll_identity
from app.engine.wh40k10e.battle.rules import RULE_BOOK
from app.engine.wh40k10e.battle.state import MoveMode
from tests.engine.wh40k10e.battle.table import (
    Table,
    events,
    goto,
    make_table,
    only_war_mission,
    play_setup,
)

SECRET = "match-secret"
ATTACHED = {"A": Formation(attachments=(("a-cap", "a-int"),), embarked=(("a-tac", "a-rhino"),))}


def send(t: Table, seat: str, cmd: Command) -> list:  # type: ignore[type-arg]
    """As the service sends it: the seed derived from the match secret and the command."""
    seed = command_seed(SECRET, t.state, cmd, seat)
    return t.battle.execute(cmd, seat, seed=seed)


def live(t: Table, seat: str, attacker: str, target: str, note: str = "") -> ResolveAttack:
    """A live roll as ``service.resolve`` makes it: dice from the seed of the probe."""
    probe = ResolveAttack(attacker, target, weapon=note)
    seed = command_seed(SECRET, t.state, probe, seat)
    r = Roller(seed)
    r.roll_many(6, 6, "hit")
    return ResolveAttack(attacker, target, damage=(1,), weapon=note, seed=seed, dice=r.records)


def test_a_unit_attacks_a_target_once_per_phase_overwatch_included(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "movement", round_=1)
    # Fire Overwatch is an attack too: once
    t.do("A", Move("a-hell", MoveMode.NORMAL))
    t.do("B", UseStratagem("fire_overwatch", unit="b-boyz", enemy="a-hell"))
    t.do("B", ResolveAttack("b-boyz", "a-hell", damage=(1,)))
    t.refused("B", ResolveAttack("b-boyz", "a-hell", damage=(1,)), "already_attacked")
    goto(t, "A", "shooting", round_=1)
    assert t.unit("b-boyz").attacked == frozenset()  # a new phase starts afresh
    t.do("A", Shoot("a-hell", ("b-boyz", "b-nobz")))
    t.do("A", ResolveAttack("a-hell", "b-boyz", damage=(1,)))
    refusal = t.refused("A", ResolveAttack("a-hell", "b-boyz", damage=(1,)), "already_attacked")
    assert refusal.kind == "rules"  # 409 through the API
    assert refusal.details == {"attacker": "a-hell", "target": "b-boyz"}
    t.do("A", ResolveAttack("a-hell", "b-nobz", damage=(1,)))  # its other declared target
    t.refused("A", ResolveAttack("a-hell", "b-nobz", damage=(1,)), "already_attacked")
    assert t.unit("a-hell").attacked == {"b-boyz", "b-nobz"}
    t.check_replay()
    goto(t, "A", "fight", round_=1)
    assert t.unit("a-hell").attacked == frozenset()


def test_an_attached_unit_attacks_and_is_attacked_as_one_unit(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t, ATTACHED)
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-cap", ("b-boyz",)))  # either part names the Attached unit
    t.do("A", ResolveAttack("a-cap", "b-boyz", damage=(1,)))
    (attack,) = events(t, AttackResolved)
    assert attack.attacker == "a-int"  # credited to the Attached unit (its Bodyguard id)
    t.refused("A", ResolveAttack("a-int", "b-boyz", damage=(1,)), "already_attacked")
    t.refused("A", ResolveAttack("a-cap", "b-boyz", damage=(1,)), "already_attacked")
    goto(t, "B", "shooting", round_=1)
    t.do("B", Shoot("b-boyz", ("a-int",)))
    t.do("B", ResolveAttack("b-boyz", "a-cap", damage=(1,)))
    assert events(t, AttackResolved)[-1].target == "a-int"
    # the Leader is the same target as its Bodyguard
    t.refused("B", ResolveAttack("b-boyz", "a-int", damage=(1,)), "already_attacked")
    t.check_replay()


def test_an_attack_undone_then_sent_again_draws_the_same_dice_however_dressed(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "shooting", round_=1)
    t.do("A", Shoot("a-hell", ("b-boyz", "b-nobz")))
    t.do("A", HazardousTest("a-hell"))  # another roll first: the log moves on
    first = live(t, "A", "a-hell", "b-boyz", note="plasma incinerators")
    [sent] = t.battle.execute(first, "A")
    t.battle.execute(Undo(), "A")
    assert t.battle.view("B")["undo_request"] == {"batch": sent.batch, "by": "A"}
    t.battle.execute(ApproveUndo(sent.batch), "B")
    # a different weapon list, a different target: still A's first attack of the phase
    again = live(t, "A", "a-hell", "b-nobz", note="bolt pistols")
    assert again.seed == first.seed
    assert again.dice == first.dice
    # the identity holds no log position, no roll count, no weapon, no target
    identity = roll_identity(t.state, again, "A")
    assert t.state.rolls not in identity[-2:]
    assert "b-nobz" not in identity
    assert "bolt pistols" not in identity
    # after that attack, the next one is another roll
    t.battle.execute(again, "A")
    assert live(t, "A", "a-hell", "b-boyz").seed != first.seed


def test_a_charge_undone_and_declared_at_other_targets_rolls_the_same(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "charge", round_=1)
    [declared] = send(t, "A", DeclareCharge("a-hell", ("b-boyz",)))
    send(t, "A", Undo())
    send(t, "B", ApproveUndo(declared.batch))
    send(t, "A", DeclareCharge("a-hell", ("b-nobz",)))
    first, second = events(t, ChargeDeclared)
    assert first.roll == second.roll
    assert first.targets != second.targets


def test_undo_of_dice_waits_for_the_opponent_and_keeps_the_dice_in_both_logs(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    t = new_table()
    setup_battle(t)
    goto(t, "A", "charge", round_=1)
    [declared] = send(t, "A", DeclareCharge("a-hell", ("b-boyz",)))
    before = t.state
    send(t, "A", Undo())
    assert t.state == before  # only asked
    assert t.battle.view("A")["can_undo"] is False
    assert [a["command"] for a in t.battle.legal_actions("B")][:2] == [
        {"type": "refuse_undo", "batch": declared.batch},
        {"type": "approve_undo", "batch": declared.batch},
    ]
    assert not any("undo" in a["command"]["type"] for a in t.battle.legal_actions("A"))
    t.refused("A", ApproveUndo(declared.batch), "not_your_answer")
    t.refused("B", ApproveUndo(declared.batch + 5), "undo_request_changed")
    send(t, "B", RefuseUndo(declared.batch))
    assert t.state.charge is not None
    assert t.battle.view("A")["undo_request"] is None
    send(t, "A", Undo())
    send(t, "B", ApproveUndo(declared.batch))
    assert t.state.charge is None
    for seat in ("A", "B"):
        tail = t.battle.log_json(seat)[-5:]
        assert [e["event"]["type"] for e in tail] == [
            "charge_declared",
            "undo_requested",
            "undo_refused",
            "undo_requested",
            "undone",
        ]
        assert tail[0]["event"]["roll"]["dice"]  # the undone dice stay visible to both
    t.check_replay()


# -- random legal play: the properties ----------------------------------------------------------


def _attacks(battle: Battle) -> list[tuple[int, int, str, str, str]]:
    """Effective attacks as (round, turn, phase, attacker, target)."""
    undone = replay(RULE_BOOK, battle.envelopes).undone
    out: list[tuple[int, int, str, str, str]] = []
    where: tuple[int, int, str] = (0, 0, "")
    for env in battle.envelopes:
        e = env.event
        if env.batch in undone or isinstance(e, UNDO_EVENTS):
            continue
        if isinstance(e, TurnStarted):
            where = (e.round, e.turn, "")
        elif isinstance(e, PhaseStarted):
            where = (where[0], where[1], str(e.phase))
        elif isinstance(e, AttackResolved):
            out.append((*where, e.attacker, e.target))
    return out


def _random_play(seed: int, t: Table) -> None:
    rng = random.Random(seed)
    for _ in range(400):
        seat = rng.choice("AB")
        roll = rng.random()
        s = t.state
        if roll < 0.1:
            request = t.battle.match.undo_request
            cmd: Command = Undo()
            if request is not None and request.actor != seat:
                cmd = (ApproveUndo if rng.random() < 0.7 else RefuseUndo)(request.batch)
        elif roll < 0.45 and s.stage.value == "battle":
            mine = [u for u in s.units_of(Seat(seat)) if u.targets and u.alive]
            if not mine:
                continue
            u = rng.choice(mine)
            target = rng.choice(sorted(u.targets))
            cmd = live(t, seat, u.id, target)
            probe = ResolveAttack(u.id, target)
            # a resent roll after an undo: the same dice as the roll it replaces
            assert cmd.seed == command_seed(SECRET, s, probe, seat)
        else:
            hints = t.battle.legal_actions(seat)
            if not hints:
                continue
            weights = [0.1 if h["command"]["type"] == "end_phase" else 1.0 for h in hints]
            hint = rng.choices(hints, weights=weights)[0]
            data = dict(hint["command"])
            choices = hint.get("choices", {}).get("targets")
            if choices:
                data["targets"] = rng.sample(choices, 1)
            elif data["type"] in ("shoot", "declare_charge"):
                continue
            cmd = command_from_json(data)
        try:
            send(t, seat, cmd)
        except Refusal:
            continue


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10_000))
def test_random_legal_play_keeps_attacks_single_and_the_log_replayable(seed: int) -> None:
    t = make_table(only_war_mission())
    play_setup(t, ATTACHED)
    _random_play(seed, t)
    attacks = _attacks(t.battle)
    assert len(attacks) == len(set(attacks)), "a unit attacked a target twice in a phase"
    assert Battle(t.battle.envelopes).state == t.state
    assert Battle.import_log(t.battle.export_json()).state == t.state


def test_an_undone_roll_sent_again_draws_the_same_dice_in_random_play(
    new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    """Every approved undo of a seeded roll, sent again at once, gives the same dice."""
    rng = random.Random(7)
    t = new_table()
    setup_battle(t, ATTACHED)
    checked = 0
    for _ in range(300):
        seat = str(t.state.active) if t.state.active is not None else "A"
        hints = [
            h
            for h in t.battle.legal_actions(seat)
            if h["command"]["type"] in ("move", "declare_charge", "end_phase", "shoot")
        ]
        if not hints:
            break
        hint = rng.choice(hints)
        data = dict(hint["command"])
        choices = hint.get("choices", {}).get("targets")
        if choices:
            data["targets"] = rng.sample(choices, 1)
        elif data["type"] in ("shoot", "declare_charge"):
            continue
        from app.engine.wh40k10e.battle.game import command_from_json

        cmd = command_from_json(data)
        try:
            new = send(t, seat, cmd)
        except Refusal:
            continue
        rolled = [e.event for e in new if e.event.rolled_dice()]
        if rolled and data["type"] != "end_phase" and t.battle.match.undo_needs_approval():
            send(t, seat, Undo())
            send(t, "B" if seat == "A" else "A", ApproveUndo(new[0].batch))
            again = send(t, seat, cmd)
            assert [e.event for e in again if e.event.rolled_dice()] == rolled
            checked += 1
    assert checked >= 3
