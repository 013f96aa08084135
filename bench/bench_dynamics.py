"""Benchmark: the Dynamics turn of PEN battles (issue 14) over HTTP on Postgres, against the
classic PEN turn of the same armies measured in the same run.

What it does, in one run (bounded: a fixed number of turns and a time limit):

1. creates a scratch Postgres database (``bench/_support.py``: user ``postgres`` on
   127.0.0.1, or ``W40K_PG_ADMIN_URL``), migrates it and stores 2 x (50 + 1) PEN matches
   between two users with API tokens, the same two lists everywhere (Marines: a tactical squad
   and Devastators; Guard: two squads and a Rhino): half of them ``turn_structure:
   "dynamics"`` (the Rhino's pilot at Initiative 4, so pass 4 has orders of both players and
   its advantage tests), half ``classic``;
2. serves the app with uvicorn (``--workers 2``) and plays every match's PEN set-up
   (reserves, roll-off, deployment), not measured;
3. **the turn's resolution, one match alone**: the wall time of one whole game round, from
   its first command to the command that starts the next one, played sequentially on one
   match: a Dynamics common turn (start-of-turn tests, 5 hidden orders placed and locked,
   revealed from Initiative 1 up with an advantage test, resolved from 10 down with another,
   every shot and move) and, as the baseline, a classic PEN round (both players' turns: the
   same shots and moves);
4. **50 matches at once**, each table playing its turns as players do, one command after
   another with a think time (``--think``, default 1 s +-50 %), every write naming the
   version it saw: first the classic turns (the baseline), then the Dynamics turns;
5. prints p50/p95/p99 of each case, the server's own share (its ``Server-Timing`` header),
   the ratios Dynamics / classic, and checks that no event was lost or doubled (the stored
   seqs of every match are exactly 1..version).

Every die is given by hand (``dice`` in the command): every shot misses, so each turn is the
same and the script never depends on the server's dice. An order's nonce comes from the match
secret, never from dice.

Run: ``.venv/bin/python bench/bench_dynamics.py`` (``--turns N``, ``--think S``). Target: p95
under 50 ms per command with 50 matches at once. Without a Postgres server it says so and
exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from _support import (  # noqa: E402
    Phone,
    drop_database,
    load_average,
    pct,
    scratch_database,
    serve,
    stop,
)

TABLES = 50
TIME_LIMIT = 120.0  # seconds for each concurrent case

Command = tuple[str, dict[str, Any], list[int] | None]  # (seat, command, dice by hand)


def _unit(
    name: str, points: int, models: int, chars: dict[str, int], weapon: dict[str, Any]
) -> dict[str, Any]:
    return {
        "name": name,
        "points": points,
        "models": models,
        "unit_type": "infanterie",
        "troops": True,
        "characteristics": chars,
        "weapons": [weapon],
    }


MARINE = {"ws": 4, "bs": 4, "strength": 4, "toughness": 4, "wounds": 1, "initiative": 4}
MARINE |= {"attacks": 1, "leadership": 8, "save": 3}
GUARD = MARINE | {"ws": 3, "bs": 3, "strength": 3, "toughness": 3, "initiative": 3}
GUARD |= {"leadership": 7, "save": 5}
BOLTER = {"name": "Bolter", "type": "tir rapide", "shots": 1, "strength": 4, "ap": 5}
LASCANNON = {"name": "Lascannon", "type": "lourde", "shots": 1, "strength": 9, "ap": 2}
LASGUN = {"name": "Lasgun", "type": "tir rapide", "shots": 1, "strength": 3}
RHINO = {
    "name": "Rhino",
    "points": 35,
    "unit_type": None,
    "characteristics": {"bs": 4},
    "armour": {"front": 11, "side": 11, "rear": 10},
    "hull_points": 3,
    "vehicle_types": ["tank", "transport"],
    "transport_capacity": 10,
    "weapons": [{"name": "Fulgurant", "type": "assaut", "shots": 2, "strength": 4, "ap": 5}],
}
MARINES = [
    _unit("Escouade tactique", 150, 10, MARINE, BOLTER),
    _unit("Devastators", 120, 5, MARINE, LASCANNON) | {"troops": False},
]
GUARDS = [
    _unit("Escouade d'infanterie", 60, 10, GUARD, LASGUN),
    RHINO,
    _unit("Vétérans", 60, 10, GUARD, LASGUN) | {"troops": False},
]


@dataclass
class Table:
    match_id: int
    tokens: dict[str, str]
    structure: str
    version: int = 0
    writes: int = 0
    latencies: list[float] = field(default_factory=list)
    server: list[float] = field(default_factory=list)
    turns: list[float] = field(default_factory=list)  # wall time of each whole round


def store_matches(url: str, count: int, structure: str) -> list[Table]:
    """``count`` joined PEN matches of ``structure`` between two users with API tokens."""
    os.environ.setdefault("W40K_PASSWORD_HASH", "fast")
    from sqlalchemy.orm import Session

    from app.accounts.models import User
    from app.accounts.schemas import TokenCreate
    from app.accounts.service import create_token
    from app.catalog.pen_units import PenArmy
    from app.core import migrate
    from app.core.db import make_engine
    from app.matches import service
    from app.matches.models import Match, MatchStatus, OpponentKind
    from app.matches.systems.pen import parse_options
    from app.matches.systems.pen.armies import snapshot_from_army

    migrate.upgrade(url)
    engine = make_engine(url)

    def snapshot(name: str, units: list[dict[str, Any]]) -> dict[str, Any]:
        army = PenArmy.from_dict({"name": name, "units": units})
        return snapshot_from_army(army, source="bench", army_id=None, points_limit=1000)

    options: dict[str, Any] = {"turn_structure": structure}
    if structure == "dynamics":
        options["pilots"] = {"B": 4}
    stored = parse_options(options)
    tables = []
    with Session(engine) as s:
        for n in range(count):
            users = [
                User(
                    email=f"bench-{structure}-{n}-{seat}@example.com",
                    display_name=f"P{n}{seat}",
                    password_hash="x",
                )
                for seat in "AB"
            ]
            s.add_all(users)
            s.flush()
            tokens = {
                seat: create_token(s, u, TokenCreate(name="bench")).secret
                for seat, u in zip("AB", users, strict=True)
            }
            match = Match(
                rule_system="pen",
                mission_id="pen-objectives",
                battle_size="1000",
                status=MatchStatus.OPEN,
                opponent_kind=OpponentKind.USER,
                created_by_id=users[0].id,
                player_a_id=users[0].id,
                secret=secrets.token_hex(32),
                army_a=snapshot("Marines", MARINES) | {"options": stored},
                version=0,
            )
            s.add(match)
            s.flush()
            service.join(s, match, snapshot("Garde", GUARDS), user=users[1])
            tables.append(Table(match.id, tokens, structure, version=match.version))
        s.commit()
    engine.dispose()
    return tables


# -- the scripts ------------------------------------------------------------------------------

SET_UP: list[Command] = [
    ("A", {"type": "end_step"}, None),
    ("B", {"type": "end_step"}, None),
    ("A", {"type": "roll_off"}, [5, 2]),
    ("A", {"type": "choose_first", "seat": "A"}, None),
    *(("A", {"type": "deploy", "unit": u}, None) for u in ("a1", "a2")),
    ("A", {"type": "end_step"}, None),
    *(("B", {"type": "deploy", "unit": u}, None) for u in ("b1", "b2", "b3")),
    ("B", {"type": "end_step"}, None),
]


def _shoot(unit: str, target: str, weapon: str, inches: int) -> dict[str, Any]:
    return {
        "type": "shoot",
        "unit": unit,
        "target": target,
        "weapon": weapon,
        "range_inches": inches,
    }


def _dawn(turn: int) -> list[int] | None:
    """Night on turn 1 (a 1 keeps it), the dawn on turn 2 (a 6); no die after."""
    return {1: [1], 2: [6]}.get(turn)


def dynamics_turn(turn: int) -> list[Command]:
    """One common turn: the same shots (all missing) and moves as :func:`classic_round`."""
    return [
        ("A", {"type": "start_turn"}, _dawn(turn)),
        ("A", {"type": "place_order", "unit": "a1", "order": "fire"}, None),
        ("A", {"type": "place_order", "unit": "a2", "order": "fire"}, None),
        ("A", {"type": "lock_orders"}, None),
        ("B", {"type": "place_order", "unit": "b1", "order": "fire"}, None),
        ("B", {"type": "place_order", "unit": "b2", "order": "tactical_move"}, None),
        ("B", {"type": "place_order", "unit": "b3", "order": "forced_march"}, None),
        ("B", {"type": "lock_orders"}, None),
        # reveal: Initiative 3 (B alone), then 4 (both: the +1 holder rolls)
        ("B", {"type": "reveal_order", "unit": "b1", "target": "a1"}, None),
        ("B", {"type": "reveal_order", "unit": "b3"}, None),
        ("A", {"type": "roll_advantage"}, [6, 1]),
        ("A", {"type": "choose_starter", "seat": "A"}, None),
        ("A", {"type": "reveal_order", "unit": "a1", "target": "b1"}, None),
        ("B", {"type": "reveal_order", "unit": "b2", "target": "a1"}, None),
        ("A", {"type": "reveal_order", "unit": "a2", "target": "b2"}, None),
        # resolve: pass 4, then pass 3
        ("A", {"type": "roll_advantage"}, [6, 1]),
        ("A", {"type": "choose_starter", "seat": "A"}, None),
        ("A", _shoot("a1", "b1", "Bolter", 20), [1] * 10),
        ("A", {"type": "end_order", "unit": "a1"}, None),
        ("B", {"type": "move", "unit": "b2", "speed": "normal", "inches": 6}, None),
        ("B", _shoot("b2", "a1", "Fulgurant", 18), [1] * 2),
        ("B", {"type": "end_order", "unit": "b2"}, None),
        ("A", _shoot("a2", "b2", "Lascannon", 30), [1] * 5),
        ("A", {"type": "end_order", "unit": "a2"}, None),
        ("B", _shoot("b1", "a1", "Lasgun", 20), [1] * 10),
        ("B", {"type": "end_order", "unit": "b1"}, None),
        ("B", {"type": "move", "unit": "b3", "speed": "rapid", "inches": 9}, None),
        ("B", {"type": "end_order", "unit": "b3"}, None),
    ]


def classic_round(turn: int) -> list[Command]:
    """A's turn then B's, squad by squad (a PEN movement phase moves and shoots [L991]): the
    same moves and shots (all missing) as :func:`dynamics_turn`."""
    return [
        ("A", {"type": "start_turn"}, _dawn(turn)),
        ("A", _shoot("a1", "b1", "Bolter", 20), [1] * 10),
        ("A", {"type": "end_activation", "unit": "a1"}, None),
        ("A", _shoot("a2", "b2", "Lascannon", 30), [1] * 5),
        ("A", {"type": "end_activation", "unit": "a2"}, None),
        ("A", {"type": "end_phase"}, None),  # to the assault phase
        ("A", {"type": "end_phase"}, None),  # the end of A's turn
        ("B", {"type": "start_turn"}, None),
        ("B", {"type": "move", "unit": "b2", "speed": "normal", "inches": 6}, None),
        ("B", _shoot("b2", "a1", "Fulgurant", 18), [1] * 2),
        ("B", {"type": "end_activation", "unit": "b2"}, None),
        ("B", {"type": "move", "unit": "b3", "speed": "rapid", "inches": 9}, None),
        ("B", {"type": "end_activation", "unit": "b3"}, None),
        ("B", _shoot("b1", "a1", "Lasgun", 20), [1] * 10),
        ("B", {"type": "end_activation", "unit": "b1"}, None),
        ("B", {"type": "end_phase"}, None),
        ("B", {"type": "end_phase"}, None),
    ]


def script(structure: str, turns: int) -> list[list[Command]]:
    make = dynamics_turn if structure == "dynamics" else classic_round
    return [make(turn) for turn in range(1, turns + 1)]


# -- the players ------------------------------------------------------------------------------


class Overloaded(Exception):
    pass


async def send(phone: Phone, table: Table, move: Command, measured: bool) -> None:
    seat, command, dice = move
    body: dict[str, Any] = {"expected_version": table.version, "command": command}
    if dice is not None:
        body["dice"] = dice
    t0 = time.perf_counter()
    code, server, data = await phone.request(
        "POST", f"/api/v1/matches/{table.match_id}/commands", body, token=table.tokens[seat]
    )
    elapsed = time.perf_counter() - t0
    if code == 503 and not measured:
        raise Overloaded()
    if code != 200:
        raise RuntimeError(
            f"match {table.match_id} ({table.structure}): {command} -> {code} {data[:400]!r}"
        )
    table.version = json.loads(data)["version"]
    table.writes += 1
    if measured:
        table.latencies.append(elapsed)
        table.server.append(server / 1000)


async def play(
    base: str, table: Table, turns: list[list[Command]], deadline: float, think: float
) -> None:
    rng = random.Random(table.match_id)
    phone = Phone(base)
    try:
        await asyncio.sleep(think * rng.random())  # the tables do not start in step
        for turn in turns:
            t0 = time.perf_counter()
            for move in turn:
                if time.monotonic() > deadline:
                    return
                if think:
                    await asyncio.sleep(think * rng.uniform(0.5, 1.5))
                await send(phone, table, move, measured=True)
            table.turns.append(time.perf_counter() - t0)
    finally:
        phone.close()


async def set_up(base: str, tables: list[Table]) -> None:
    """Every match's PEN set-up, ten tables at a time (not measured; a 503 while the workers
    warm up is sent again after a second)."""

    async def one(table: Table) -> None:
        phone = Phone(base)
        try:
            for move in SET_UP:
                for _ in range(30):
                    try:
                        await send(phone, table, move, measured=False)
                        break
                    except Overloaded:
                        await asyncio.sleep(1.0)
        finally:
            phone.close()

    await one(tables[0])  # the first one alone: the workers import the PEN engine
    for start in range(1, len(tables), 10):
        await asyncio.gather(*(one(t) for t in tables[start : start + 10]))


async def concurrent(base: str, tables: list[Table], turns: int, think: float) -> float:
    deadline = time.monotonic() + TIME_LIMIT
    t0 = time.perf_counter()
    await asyncio.gather(
        *(play(base, t, script(t.structure, turns), deadline, think) for t in tables)
    )
    return time.perf_counter() - t0


def check_no_loss(url: str, tables: list[Table]) -> int:
    """Events checked; raises if a match's stored seqs are not exactly 1..its version."""
    import psycopg

    conn = psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://", 1))
    events = 0
    try:
        for t in tables:
            seqs = [
                r[0]
                for r in conn.execute(
                    "SELECT seq FROM match_events WHERE match_id = %s ORDER BY seq", (t.match_id,)
                )
            ]
            if seqs != list(range(1, t.version + 1)):
                raise AssertionError(
                    f"match {t.match_id}: seqs 1..{len(seqs)}, version {t.version}"
                )
            events += len(seqs)
    finally:
        conn.close()
    return events


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=2, help="game rounds per match (1-4)")
    parser.add_argument(
        "--think", type=float, default=1.0, help="seconds between a table's writes (0: closed loop)"
    )
    args = parser.parse_args(argv)
    turns = max(1, min(args.turns, 4))  # the game-length die comes after turn 5
    think = max(0.0, min(args.think, 5.0))
    found = scratch_database()
    if found is None:
        return 0
    admin, name, url = found
    server = None
    try:
        t0 = time.perf_counter()
        dyn = store_matches(url, TABLES + 1, "dynamics")
        classic = store_matches(url, TABLES + 1, "classic")
        server, base = serve(url)
        asyncio.run(set_up(base, dyn + classic))
        print(
            f"scratch database {name}: {2 * (TABLES + 1)} PEN matches set up, server up "
            f"({time.perf_counter() - t0:.1f} s)"
        )
        solo_dyn, dyn = dyn[0], dyn[1:]
        solo_classic, classic = classic[0], classic[1:]
        # one match alone, sequentially: a whole round's resolution (the first round warms up)
        asyncio.run(concurrent(base, [solo_classic], turns, 0.0))
        asyncio.run(concurrent(base, [solo_dyn], turns, 0.0))
        asyncio.run(concurrent(base, classic, turns, think))
        asyncio.run(concurrent(base, dyn, turns, think))
        events = check_no_loss(url, [solo_dyn, solo_classic, *dyn, *classic])

        def flat(tables: list[Table], attr: str) -> list[float]:
            return [x for t in tables for x in getattr(t, attr)]

        print(f"{'case':<56}{'n':>6}{'p50 ms':>9}{'p95 ms':>9}{'p99 ms':>9}")
        rows = (
            ("classic PEN round, 1 match alone (whole round)", solo_classic.turns),
            ("Dynamics common turn, 1 match alone (whole turn)", solo_dyn.turns),
            ("classic PEN, 1 match alone, per command", solo_classic.latencies),
            ("Dynamics, 1 match alone, per command", solo_dyn.latencies),
            (f"baseline: classic PEN, {TABLES} matches at once", flat(classic, "latencies")),
            ("  of which the server's own time (Server-Timing)", flat(classic, "server")),
            (f"Dynamics, {TABLES} matches at once", flat(dyn, "latencies")),
            ("  of which the server's own time (Server-Timing)", flat(dyn, "server")),
        )
        for label, values in rows:
            if not values:
                continue
            print(
                f"{label:<56}{len(values):>6}{pct(values, 0.5):>9.1f}{pct(values, 0.95):>9.1f}"
                f"{pct(values, 0.99):>9.1f}"
            )
        per_turn_dyn = len(dynamics_turn(3))
        per_turn_classic = len(classic_round(3))
        print(f"commands per round: Dynamics {per_turn_dyn}, classic {per_turn_classic}")
        turn_ratio = pct(solo_dyn.turns, 0.5) / pct(solo_classic.turns, 0.5)
        p95 = pct(flat(dyn, "latencies"), 0.95)
        p95_ratio = p95 / pct(flat(classic, "latencies"), 0.95)
        print(f"ratio whole round, Dynamics / classic (p50, 1 match): {turn_ratio:.2f}")
        print(f"ratio p95 per command, Dynamics / classic ({TABLES} matches): {p95_ratio:.2f}")
        print(f"lost or duplicated events: 0 (checked {events} events of {2 * TABLES + 2} matches)")
        print(f"target p95 < 50 ms: {'met' if p95 < 50 else 'NOT met'} ({p95:.1f} ms)")
        print(f"machine: {load_average()} (the server and the load generator share them)")
        return 0
    finally:
        stop(server)
        drop_database(admin, name)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
