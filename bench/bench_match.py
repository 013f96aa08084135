"""Benchmark: replaying a 5,000-event 10th-edition match log.

Builds a long battle (two 40-unit armies, a mission as data made 15 rounds long so that one
battle yields more than 5,000 events: every unit moves, shoots, resolves its attacks and
reports an objective every turn), exports its log to JSON, then times in the same run:

- ``json.loads`` of the exported log alone (baseline: the decode a store must do anyway);
- our replay from decoded events (``replay``);
- our import from JSON text (decode + typed events + replay, what a request would do);
- a naive replay that deep-copies the state before every event (baseline; so slow that it
  runs on the first 500 events only and its time is scaled to the whole log).

Run: ``.venv/bin/python bench/bench_match.py``. Prints times and ratios; the target is a
replay well under 200 ms.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.engine.match.log import replay
from app.engine.match.missions import MISSIONS_DIR, BattleLength, load_mission_file
from app.engine.wh40k10e.battle import (
    RULE_BOOK,
    ArmySpec,
    Battle,
    Formation,
    MatchSetup,
    Presence,
    Seat,
    UnitSpec,
)
from app.engine.wh40k10e.battle.commands import (
    DeclareFormations,
    DeployUnit,
    EndPhase,
    EndScouts,
    Move,
    PlaceObjective,
    ReportObjective,
    ResolveAttack,
    RollOff,
    Shoot,
)
from app.engine.wh40k10e.battle.evolve import evolve
from app.engine.wh40k10e.battle.state import Location, MoveMode, Phase, Stage

UNITS = 40
TARGET_EVENTS = 5000
NAIVE_PREFIX = 500


def army(prefix: str) -> ArmySpec:
    units = tuple(
        UnitSpec(
            id=f"{prefix}{i:02d}",
            name=f"Squad {i}",
            datasheet="Squad",
            models=10,
            wounds=100,
            oc=2,
            leadership=6,
            points=40,
            keywords=frozenset({"INFANTRY"}),
        )
        for i in range(UNITS)
    )
    return ArmySpec(f"Army {prefix}", units)


def build_log() -> Battle:
    mission = load_mission_file(MISSIONS_DIR / "only-war.json")
    mission = dataclasses.replace(mission, length=BattleLength(rounds=15))
    battle = Battle.create(MatchSetup({Seat.A: army("a"), Seat.B: army("b")}, "onslaught", mission))
    seed = iter(range(10**9))

    def do(seat: str, cmd: object, dice: list[int] | None = None) -> None:
        battle.execute(cmd, seat, seed=next(seed), dice=dice)  # type: ignore[arg-type]

    do("A", RollOff(), [6, 1])
    for i in range(4):
        do("AB"[i % 2], PlaceObjective())
    do("A", RollOff(), [6, 1])
    do("A", DeclareFormations(Formation()))
    do("B", DeclareFormations(Formation()))
    while battle.state.stage is Stage.DEPLOY:
        deployer = battle.state.next_seat
        assert deployer is not None
        todo = sorted(
            u.id for u in battle.state.units_of(deployer) if u.location is Location.TO_DEPLOY
        )
        do(str(deployer), DeployUnit(todo[0]))
    do("A", RollOff(), [6, 1])
    while battle.state.stage is Stage.SCOUTS:
        do(str(battle.state.next_seat), EndScouts())
    while battle.state.stage is Stage.BATTLE and battle.version < TARGET_EVENTS:
        s = battle.state
        seat = str(s.active)
        mine = [u.id for u in s.units_of(Seat(seat))]
        theirs = [u.id for u in s.units.values() if u.owner is not Seat(seat)]
        if s.phase is Phase.MOVEMENT:
            for i, u in enumerate(mine):
                do(seat, Move(u, MoveMode.NORMAL))
                do(seat, ReportObjective(str(i % 4 + 1), (Presence(u, 1 + i % 3),)))
        elif s.phase is Phase.SHOOTING:
            for i, u in enumerate(mine):
                target = theirs[i % len(theirs)]
                do(seat, Shoot(u, (target,)))
                do(seat, ResolveAttack(u, target, damage=(1,)))
        do(seat, EndPhase())
    return battle


def timed(fn: Callable[[], object], repeat: int) -> float:
    """Median wall time in seconds over ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def naive_replay(envelopes: tuple) -> object:  # type: ignore[type-arg]
    state = RULE_BOOK.initial_state()
    for env in envelopes:
        state = evolve(copy.deepcopy(state), env.event)
    return state


def main() -> None:
    t0 = time.perf_counter()
    battle = build_log()
    built = time.perf_counter() - t0
    envelopes = battle.envelopes
    text = battle.export_json()
    n = len(envelopes)
    print(f"log: {n} events, {len(text) / 1e6:.2f} MB of JSON (built in {built:.1f} s)")

    assert replay(RULE_BOOK, envelopes).state == battle.state
    assert Battle.import_log(text).state == battle.state

    t_json = timed(lambda: json.loads(text), 5)
    t_replay = timed(lambda: replay(RULE_BOOK, envelopes), 5)
    t_import = timed(lambda: Battle.import_log(text), 5)
    prefix = envelopes[:NAIVE_PREFIX]
    t_naive = timed(lambda: naive_replay(prefix), 1) * n / len(prefix)

    def row(name: str, t: float) -> None:
        print(
            f"{name:<44} {t * 1000:9.1f} ms   x{t / t_json:6.2f} json.loads"
            f"   x{t / t_naive:7.4f} naive deep-copy replay"
        )

    row("baseline: json.loads of the log", t_json)
    row("ours: replay(events)", t_replay)
    row("ours: import_log(JSON text) = decode + replay", t_import)
    row(f"baseline: naive replay (deepcopy; x{n / len(prefix):.1f} of {len(prefix)})", t_naive)
    per_event = t_replay / n * 1e6
    verdict = "OK" if t_import < 0.2 else "SLOW"
    print(f"replay: {per_event:.1f} us/event; import of {n} events: {verdict} (target < 200 ms)")


if __name__ == "__main__":
    main()
