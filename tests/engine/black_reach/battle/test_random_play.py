"""Random commands, well-formed and not, against the sample battle: every one either runs or
is refused with a :class:`Refusal` (never another exception, so never a 500), and the log
always replays to the state the battle holds."""

from __future__ import annotations

import random
from typing import Any

import pytest

from app.engine.black_reach.battle import BattleSetup, BlackReachBattle, Deploy, sample_setup
from app.engine.match.errors import Refusal

FACINGS = ["N", "NE", "E", "SE", "S", "SW", "W", "NW", "Q"]


def _random_command(rng: random.Random, battle: BlackReachBattle, seat: str) -> dict[str, Any]:
    state = battle.state
    units = list(state.units)
    mine = [u for u in units if state.units[u].side == state.seats[seat]]
    theirs = [u for u in units if u not in mine]
    # prefer what the battle offers, dressed up at random
    offered = battle.legal_actions(seat)
    if offered and rng.random() < 0.7:
        pick = rng.choice(offered)
        cmd = dict(pick["command"])
        if cmd["type"] == "place_orders":
            tokens = pick["tokens"]
            chosen = rng.sample(pick["units"], k=min(len(tokens), len(pick["units"])))
            cmd["orders"] = [
                {"unit": u, "kind": t["kind"], "number": t["number"]}
                for u, t in zip(chosen, tokens, strict=False)
            ]
        elif cmd["type"] in ("move", "reserve_move") and pick.get("to"):
            x, y = rng.choice(pick["to"])
            here = state.units[cmd["unit"]].placement
            assert here is not None
            steps = []
            cx, cy = here.anchor
            while (cx, cy) != (x, y):
                cx += (x > cx) - (x < cx)
                cy += (y > cy) - (y < cy)
                steps.append({"x": cx, "y": cy})
            cmd["path"] = steps
        elif cmd["type"] == "assault":
            cmd["path"] = [{"x": rng.randrange(-1, 9), "y": rng.randrange(-1, 13)}]
        return cmd
    kind = rng.choice(
        ["move", "shoot", "assault", "hold", "reserve_move", "end_reserve", "embark", "flip"]
    )
    unit = rng.choice(mine + theirs + ["nobody"])
    path = [
        {"x": rng.randrange(-2, 10), "y": rng.randrange(-2, 14), "facing": rng.choice(FACINGS)}
        for _ in range(rng.randrange(0, 4))
    ]
    return {
        "move": {"type": "move", "unit": unit, "path": path},
        "shoot": {
            "type": "shoot",
            "unit": unit,
            "target": rng.choice(units),
            "suppression": rng.random() < 0.3,
        },
        "assault": {
            "type": "assault",
            "unit": unit,
            "target": rng.choice(units),
            "path": path,
            "supporters": rng.sample(units, k=rng.randrange(0, 3)),
        },
        "hold": {"type": "hold", "unit": unit},
        "reserve_move": {
            "type": "reserve_move",
            "unit": unit,
            "path": path,
            "embark": rng.choice([None, *units]),
        },
        "end_reserve": {"type": "end_reserve"},
        "embark": {"type": "move", "unit": unit, "path": path[:1], "embark": rng.choice(units)},
        "flip": {"type": "move", "unit": unit, "path": [], "flip": rng.choice(["start", "x"])},
    }[kind]


@pytest.mark.parametrize("seed", range(3))
def test_random_commands_are_run_or_refused_and_the_log_replays(seed: int) -> None:
    rng = random.Random(seed)
    battle = BlackReachBattle.create(sample_setup())
    ran = 0
    for i in range(150):
        seat = battle.state.active_seat or rng.choice(["A", "B"])
        if rng.random() < 0.15:
            seat = "B" if seat == "A" else "A"
        command = _random_command(rng, battle, seat)
        try:
            battle.execute_json(command, seat, seed=rng.randrange(1 << 30))
            ran += 1
        except Refusal:
            pass
        if i % 50 == 49:
            assert BlackReachBattle.import_log(battle.export_log()).state == battle.state
        if battle.state.stage.value == "ended":
            break
    assert ran > 10
    assert all(a["ok"] for a in battle.audit())  # every roll is its seed's


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"facing": "UP"}, "facing must be one of"),
        ({"face": "ghostly"}, "face to deploy on"),
        ({"face": "wreck"}, "face to deploy on"),
        ({"x": 99}, "outside the"),
    ],
)
def test_bad_deployment_entries_are_refused_not_crashed(
    change: dict[str, Any], message: str
) -> None:
    setup = sample_setup()
    first = setup.deployment[0]
    fields = {
        "unit": first.unit,
        "x": first.x,
        "y": first.y,
        "facing": first.facing,
        "face": first.face,
        **change,
    }
    bad = BattleSetup(
        setup.scenario,
        setup.catalogue,
        setup.boards,
        setup.seats,
        (Deploy(**fields), *setup.deployment[1:]),
    )
    with pytest.raises(Refusal) as info:
        BlackReachBattle.create(bad)
    assert info.value.code == "bad_deployment"
    assert message in info.value.message
