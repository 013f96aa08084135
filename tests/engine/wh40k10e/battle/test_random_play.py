"""Seeded random battles driven through ``legal_actions``: properties of the whole machine.

Every action ``legal_actions`` offers is accepted when sent; random junk is refused with a
known code and leaves the log untouched; undo is sprinkled in; at the end the state equals
the replay of the log and of its JSON export, and every view renders to JSON.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from app.engine.match.errors import Refusal
from app.engine.wh40k10e.battle import Code, Formation, Presence, ReserveKind, Seat
from app.engine.wh40k10e.battle.commands import (
    Command,
    ConfirmResult,
    GainCommandPoint,
    Move,
    ReportEngagement,
    ReportObjective,
    ResolveAttack,
    Shoot,
    Undo,
    UseStratagem,
)
from app.engine.wh40k10e.battle.game import Battle, command_from_json
from app.engine.wh40k10e.battle.state import MoveMode, Stage
from tests.engine.wh40k10e.battle.table import Table, stage

KNOWN = {str(c) for c in Code} | {
    "not_enough_dice",
    "unused_dice",
    "dice_needed",
    "bad_die",
    "nothing_to_undo",
    "cannot_undo",
    "not_your_action",
    "stale_version",
}

FORMATIONS = {
    "A": Formation(
        attachments=(("a-cap", "a-int"),),
        embarked=(("a-tac", "a-rhino"),),
        reserves=(("a-term", ReserveKind.DEEP_STRIKE),),
    ),
    "B": Formation(
        embarked=(("b-boyz", "b-wagon"),),
        reserves=(("b-dakka", ReserveKind.AIRCRAFT), ("b-nobz", ReserveKind.STRATEGIC)),
    ),
}


def _fill(rng: random.Random, hint: dict[str, Any]) -> dict[str, Any]:
    cmd = dict(hint["command"])
    choices = hint.get("choices", {})
    if "targets" in choices:
        options = list(choices["targets"])
        if options:
            cmd["targets"] = rng.sample(options, k=rng.randint(1, min(2, len(options))))
        elif cmd.get("type") in ("shoot", "declare_charge"):
            return {}
    if cmd.get("type") == "use_stratagem" and cmd.get("stratagem") == "tank_shock":
        cmd["strength"] = rng.randint(3, 12)
    if cmd.get("type") == "dispute_result":
        cmd["reason"] = "measured wrong"
    return cmd


def _junk(rng: random.Random, t: Table, seat: Seat) -> Command:
    units = sorted(t.state.units)
    pick = rng.choice
    return pick(
        [
            Move(pick(units), pick(list(MoveMode))),
            Shoot(pick(units), (pick(units),)),
            UseStratagem(
                pick(["grenade", "go_to_ground", "command_reroll", "nope"]), unit=pick(units)
            ),
            ResolveAttack(pick(units), pick(units), damage=(1,)),
            ReportEngagement(pick(units), (pick(units),)),
            GainCommandPoint("relic"),
            ConfirmResult(),
        ]
    )


def _reports(rng: random.Random, t: Table, seat: Seat) -> list[Command]:
    s = t.state
    mine = [u.id for u in s.units_of(seat) if s.on_battlefield(u.id)]
    foes = [u.id for u in s.units.values() if u.owner is not seat and s.on_battlefield(u.id)]
    out: list[Command] = []
    if mine:
        marker = rng.choice(sorted(s.markers))
        out.append(ReportObjective(marker, tuple(Presence(u) for u in rng.sample(mine, 1))))
        if foes and rng.random() < 0.5:
            out.append(ReportEngagement(rng.choice(mine), (rng.choice(foes),)))
    for u in s.units_of(seat):
        for target in sorted(u.targets):
            if s.units[target].alive and rng.random() < 0.7:
                out.append(
                    ResolveAttack(u.id, target, damage=tuple(rng.randint(0, 3) for _ in range(4)))
                )
    return out


def send(t: Table, cmd: Command, seat: Seat, seed: int) -> Refusal | None:
    """Execute ``cmd``; return the refusal instead of raising it."""
    try:
        t.battle.execute(cmd, str(seat), seed=seed)
    except Refusal as exc:
        return exc
    return None


def check(refusal: Refusal | None) -> None:
    if refusal is not None:
        assert refusal.code in KNOWN, refusal.code
        assert refusal.message


def play(
    seed: int,
    new_table: Callable[..., Table],
    setup_battle: Callable[..., None],
    max_steps: int = 900,
) -> Battle:
    rng = random.Random(seed)
    t = new_table()
    setup_battle(t, FORMATIONS, attacker=rng.choice("AB"), first=rng.choice("AB"), scouts=True)
    for _ in range(max_steps):
        if stage(t) is Stage.ENDED and all(p.result != "pending" for p in t.state.players.values()):
            break
        seat = rng.choice([Seat.A, Seat.B])
        roll = rng.random()
        if roll < 0.08:
            version = t.battle.version
            refusal = send(t, _junk(rng, t, seat), seat, rng.randrange(1 << 30))
            check(refusal)
            if refusal is not None:
                assert t.battle.version == version
            continue
        if roll < 0.12:
            check(send(t, Undo(), seat, 0))
            continue
        if roll < 0.35 and stage(t) is Stage.BATTLE:
            for cmd in _reports(rng, t, seat):
                check(send(t, cmd, seat, rng.randrange(1 << 30)))
            continue
        hints = t.battle.legal_actions(str(seat))
        if not hints:
            continue
        # ending the phase less often, so that units act
        weights = [0.15 if h["command"]["type"] == "end_phase" else 1.0 for h in hints]
        hint = rng.choices(hints, weights=weights)[0]
        data = _fill(rng, hint)
        if not data:
            continue
        refusal = send(t, command_from_json(data), seat, rng.randrange(1 << 30))
        check(refusal)
        if refusal is not None:  # only choices filled in by us may be refused
            assert "choices" in hint or data != hint["command"], (data, refusal.message)
    battle: Battle = t.battle
    return battle


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_random_battles_keep_every_invariant(
    seed: int, new_table: Callable[..., Table], setup_battle: Callable[..., None]
) -> None:
    battle = play(seed, new_table, setup_battle)
    assert battle.version > 100
    assert Battle(battle.envelopes).state == battle.state
    again = Battle.import_log(battle.export_json())
    assert again.state == battle.state
    for viewer in ("A", "B", None):
        json.dumps(battle.view(viewer))
        json.dumps(battle.log_json(viewer))
    s = battle.state
    for u in s.units.values():
        assert all(0 <= w <= s.specs[u.id].wounds for w in u.wounds)
    for p in s.players.values():
        assert p.cp >= 0
        assert 0 <= p.vp <= 12  # Take and Hold: at most 3 VP in each of 4 scoring turns
